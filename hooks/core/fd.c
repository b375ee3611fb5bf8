/* SPDX-License-Identifier: MIT */
/* hooks/core/fd.c: keeps the descriptors cuaudit owns at 1000 and above, out of the program's range. */
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
