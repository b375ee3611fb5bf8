/* SPDX-License-Identifier: MIT */
/* out/log.c: writes cuaudit's own messages, by level, to the log. */
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "dispatch.h"
#include "process.h"
#include "log.h"
#include "out.h"
#include "table.h"

static const char *const level_tags[] = { "", "error", "warning", "info", "verbose", "debug" };

void cua_log_begin(struct cua_buf *b, int level)
{
	/* Every message obeys CUAUDIT_LOG here, whether or not its writer asked first. */
	b->quiet = !cua_log_on(level);
	cua_buf_str(b, "cuaudit: ");
	cua_buf_str(b, level_tags[level]);
	cua_buf_str(b, ": ");
}

void cua_log_end(struct cua_buf *b)
{
	if (b->quiet)
		return;
	if (b->len == b->cap)
		b->len--;
	b->p[b->len++] = '\n';
	cua_out_log(b->p, b->len);
}

void cua_log_generated(const char *what, const char *path, int cut)
{
	char line[2048];
	struct cua_buf b = CUA_BUF(line);

	if (!cua_log_on(CUA_LOG_WARN))
		return;
	cua_buf_str(&b, "cuaudit: Generated: ");
	/* Controls escaped, as every other path on the terminal (cua_out_report). */
	cua_buf_text(&b, path, strlen(path), CUA_TEXT_TERM);
	cua_buf_str(&b, " (the ");
	cua_buf_str(&b, what);
	cua_buf_str(&b, " of pid ");
	cua_buf_u64(&b, cua_process_id());
	cua_buf_str(&b, cut ? ", cut short: events were dropped, see the error above)" : ")");
	cua_log_end(&b);
}

void cua_log_count(int level, const char *before, uint64_t n, const char *after)
{
	char line[2048];
	struct cua_buf b = CUA_BUF(line);

	if (!cua_log_on(level))
		return;
	cua_log_begin(&b, level);
	cua_buf_str(&b, before);
	cua_buf_u64(&b, n);
	cua_buf_str(&b, after);
	cua_log_end(&b);
}

void cua_log_msg(int level, const char *first, ...)
{
	char line[2048];
	struct cua_buf b = CUA_BUF(line);
	va_list ap;

	if (!cua_log_on(level))
		return;
	cua_log_begin(&b, level);
	va_start(ap, first);
	for (const char *s = first; s; s = va_arg(ap, const char *))
		cua_buf_str(&b, s);
	va_end(ap);
	cua_log_end(&b);
}
