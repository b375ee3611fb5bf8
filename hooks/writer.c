/* SPDX-License-Identifier: MIT */
/* hooks/writer.c: a small buffered writer on top of write(2), and report-file opening. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "writer.h"

void cua_writer_init(struct cua_writer *w, int fd)
{
	w->fd = fd;
	w->failed = fd < 0;
	w->b = (struct cua_buf){ w->mem, 0, sizeof(w->mem), 0 };
}

void cua_writer_flush(struct cua_writer *w)
{
	const char *p = w->mem;
	size_t left = w->b.len;

	while (left && !w->failed) {
		ssize_t n = write(w->fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->failed = 1;
			break;
		}
		p += n;
		left -= (size_t)n;
	}
	w->b.len = 0;
	w->b.truncated = 0;
}

struct cua_buf *cua_writer_room(struct cua_writer *w, size_t need)
{
	if (w->b.cap - w->b.len < need)
		cua_writer_flush(w);
	return &w->b;
}

int cua_writer_open(const char *tmpl, char *path, size_t cap)
{
	char host[256];

	if (gethostname(host, sizeof(host)) != 0)
		memcpy(host, "unknown", 8);
	host[sizeof(host) - 1] = '\0';
	if (cua_fmt_path(path, cap, tmpl, (unsigned)getpid(), host) < 0)
		return -1;
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
}
