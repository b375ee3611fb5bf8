/* SPDX-License-Identifier: MIT */
/* hooks/core/fd.c: keeps the descriptors cuaudit owns at 1000 and above, out of the program's range. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "fd.h"

int cua_fd_high(int fd)
{
	int high;

	if (fd < 0 || fd >= CUA_FD_MIN)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, CUA_FD_MIN);
	if (high < 0)
		return fd; /* RLIMIT_NOFILE below 1000: a low copy still beats none */
	close(fd);
	return high;
}

int cua_fd_write_all(int fd, const void *p, size_t n, off_t at)
{
	while (n) {
		ssize_t w = at < 0 ? write(fd, p, n) : pwrite(fd, p, n, at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p = (const char *)p + w;
		n -= (size_t)w;
		if (at >= 0)
			at += w;
	}
	return 0;
}
