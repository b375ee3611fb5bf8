/* SPDX-License-Identifier: MIT */
/* base/fd.c: keeps the descriptors cuaudit owns at 1000 and above, and is the one way the module writes or grows a file. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
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

/* A write or a growth past RLIMIT_FSIZE (`ulimit -f`) fails with EFBIG and sends SIGXFSZ to
   the thread, whose default action kills the program: natively it would have run on. So
   SIGXFSZ is held off this thread around each of the module's own file operations, and the
   one that operation raised is taken back before the thread's mask is restored. The
   program's own writes keep their disposition: nothing is changed but this thread's mask,
   for the length of one system call. A SIGXFSZ already pending here (the program's, under
   its own mask) is left pending. */
struct fsize_guard {
	sigset_t old;
	int held;        /* the mask was changed: old is the thread's own, to put back */
	int was_pending;
};

static void fsize_hold(struct fsize_guard *g)
{
	sigset_t xfsz, pending;

	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	g->was_pending = 0;
	g->held = pthread_sigmask(SIG_BLOCK, &xfsz, &g->old) == 0;
	if (!g->held)
		return;
	/* Only a thread that had it blocked can have one pending that is not ours. */
	if (sigismember(&g->old, SIGXFSZ) && sigpending(&pending) == 0)
		g->was_pending = sigismember(&pending, SIGXFSZ);
}

/* err: the operation's errno (EFBIG: it raised SIGXFSZ). errno is kept. */
static void fsize_release(struct fsize_guard *g, int err)
{
	int saved = errno;

	if (!g->held)
		return;
	if (err == EFBIG && !g->was_pending) {
		sigset_t xfsz;
		struct timespec now = { 0, 0 };

		sigemptyset(&xfsz);
		sigaddset(&xfsz, SIGXFSZ);
		while (sigtimedwait(&xfsz, NULL, &now) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
	errno = saved;
}

int cua_fd_write_all(int fd, const void *p, size_t n, off_t at)
{
	struct fsize_guard g;
	int rc = 0, err = 0;

	fsize_hold(&g);
	while (n) {
		ssize_t w = at < 0 ? write(fd, p, n) : pwrite(fd, p, n, at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			err = errno;
			rc = -1;
			break;
		}
		p = (const char *)p + w;
		n -= (size_t)w;
		if (at >= 0)
			at += w;
	}
	fsize_release(&g, err);
	if (rc)
		errno = err;
	return rc;
}

int cua_fd_grow(int fd, off_t size, int reserve)
{
	struct fsize_guard g;
	int err = EOPNOTSUPP;

	fsize_hold(&g);
	if (reserve)
		err = posix_fallocate(fd, 0, size);
	if (err == EOPNOTSUPP || err == EINVAL)
		err = ftruncate(fd, size) == 0 ? 0 : errno;
	fsize_release(&g, err);
	return err;
}
