/* SPDX-License-Identifier: MIT */
/* hooks/log.c: writes cuaudit's messages and, at verbose, one line per intercepted call. */
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "dispatch.h"
#include "hooks.h"
#include "log.h"
#include "out.h"
#include "table.h"

static const char *const level_tags[] = { "", "error", "warning", "info", "verbose", "debug" };
static const char *const kind_names[CUAUDIT_BIND_COUNT] = { "plt", "bindnow", "dlsym",
							    "procaddress", "got" };

void cua_log_begin(struct cua_buf *b, int level)
{
	cua_buf_str(b, "cuaudit: ");
	cua_buf_str(b, level_tags[level]);
	cua_buf_str(b, ": ");
}

void cua_log_end(struct cua_buf *b)
{
	if (b->len == b->cap)
		b->len--;
	b->p[b->len++] = '\n';
	cua_out_log(b->p, b->len);
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

static uint64_t read_scalar(const unsigned char *p, unsigned size, int is_signed)
{
	uint64_t v = 0;

	memcpy(&v, p, size > 8 ? 8 : size);
	if (is_signed && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~(uint64_t)0 << (size * 8);
	return v;
}

static void format_arg(struct cua_buf *b, const struct cua_arg_desc *a, const void *args)
{
	const unsigned char *p = (const unsigned char *)args + a->offset;

	switch (a->cls) {
	case CUA_CLASS_POINTER: {
		const char *ptr;

		memcpy(&ptr, p, sizeof(ptr));
		if (a->fmt == CUA_FMT_STRING)
			cua_buf_quoted(b, ptr, 64);
		else if (!ptr)
			cua_buf_str(b, "NULL");
		else
			cua_buf_hex(b, (uint64_t)(uintptr_t)ptr);
		return;
	}
	case CUA_CLASS_INTEGER:
	case CUA_CLASS_CHAR:
	case CUA_CLASS_ENUM:
	case CUA_CLASS_BOOL: {
		uint64_t v = read_scalar(p, a->size, a->is_signed);

		if (a->fmt == CUA_FMT_HEX)
			cua_buf_hex(b, v);
		else if (a->is_signed)
			cua_buf_i64(b, (int64_t)v);
		else
			cua_buf_u64(b, v);
		return;
	}
	case CUA_CLASS_REAL:
		cua_buf_str(b, "<real>");
		return;
	default:
		cua_buf_str(b, "{...}");
		return;
	}
}

static void format_result(struct cua_buf *b, const struct cua_api_desc *d, uint64_t r)
{
	const char *name;

	switch (d->ret) {
	case CUA_RET_CURESULT:
	case CUA_RET_CUDAERROR:
		name = cua_table_result_name(d->layer, (int)r);
		if (name)
			cua_buf_str(b, name);
		else
			cua_buf_i64(b, (int)r);
		return;
	case CUA_RET_VOID:
		cua_buf_str(b, "void");
		return;
	case CUA_RET_PTR:
		cua_buf_hex(b, r);
		return;
	default:
		cua_buf_i64(b, (int64_t)r);
		return;
	}
}

void cua_log_format_args(struct cua_buf *b, const struct cuaudit_call *c)
{
	const struct cua_api_desc *d = &cua_api[c->id];

	for (unsigned i = 0; i < d->nargs; i++) {
		if (i)
			cua_buf_str(b, ", ");
		cua_buf_str(b, d->args[i].name);
		cua_buf_char(b, '=');
		format_arg(b, &d->args[i], c->args);
	}
}

void cua_log_format_arg(struct cua_buf *b, const struct cuaudit_call *c, unsigned i)
{
	format_arg(b, &cua_api[c->id].args[i], c->args);
}

void cua_log_format_result(struct cua_buf *b, const struct cuaudit_call *c)
{
	format_result(b, &cua_api[c->id], c->result);
}

size_t cua_log_format_call(char *out, size_t cap, const struct cuaudit_call *c, uint64_t pid,
			   uint64_t wall_ns)
{
	struct cua_buf b = { out, 0, cap ? cap - 1 : 0, 0 };

	cua_buf_str(&b, "cuaudit: ");
	cua_buf_u64(&b, wall_ns / 1000000000u);
	cua_buf_char(&b, '.');
	cua_buf_u64_pad(&b, wall_ns % 1000000000u / 1000u, 6);
	cua_buf_str(&b, " pid=");
	cua_buf_u64(&b, pid);
	cua_buf_str(&b, " tid=");
	cua_buf_u64(&b, c->thread_id);
	cua_buf_char(&b, ' ');
	for (unsigned i = 0; i < c->depth && i < 8; i++)
		cua_buf_str(&b, "  ");
	cua_buf_str(&b, c->elf_name);
	cua_buf_char(&b, '(');
	cua_log_format_args(&b, c);
	cua_buf_str(&b, ") -> ");
	cua_log_format_result(&b, c);
	cua_buf_char(&b, ' ');
	cua_buf_u64(&b, c->t_exit_ns - c->t_enter_ns);
	cua_buf_str(&b, "ns ");
	cua_buf_str(&b, kind_names[c->binding]);
	if (c->skipped)
		cua_buf_str(&b, " skipped");
	b.p[b.len++] = '\n';
	return b.len;
}

static void log_exit(const struct cuaudit_call *c, void *ctx)
{
	char line[1024];
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_REALTIME, &ts);
	size_t n = cua_log_format_call(line, sizeof(line), c, cua_process_id(),
				       (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
	cua_out_log(line, n);
}

void cua_log_init(void)
{
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = log_exit, .flags = CUAUDIT_SUB_TIMES);

	if (cua_log_on(CUA_LOG_VERBOSE))
		cua_dispatch_subscribe(&sub);
}
