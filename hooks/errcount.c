/* SPDX-License-Identifier: MIT */
/* hooks/errcount.c: the CUAUDIT_ERROR_COUNT hook: counts failed calls in a file `cuaudit run` reads after the program. */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "dispatch.h"
#include "hooks.h"
#include "table.h"

/* A shared mapping of the file's first 8 bytes: an atomic add lands in the page cache, so the
   count survives SIGKILL, and no descriptor is kept that the program could close or reuse. */
static uint64_t *counter;

static void errcount_exit(const struct cuaudit_call *c, void *ctx)
{
	unsigned ret = cua_api[c->id].ret;

	(void)ctx;
	/* The same rule as the summary's errors column. */
	if ((ret == CUA_RET_CURESULT || ret == CUA_RET_CUDAERROR) && (int)c->result != 0)
		__atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
}

int cua_errcount_init(void)
{
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = errcount_exit);
	struct stat st;
	void *p;
	int fd;

	if (!cua_cfg.error_count[0])
		return 0;
	/* No O_NOFOLLOW: the command names its counter as /proc/PID/fd/N, a link by design. */
	fd = open(cua_cfg.error_count, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(*counter)) {
		close(fd);
		return -1;
	}
	p = mmap(NULL, sizeof(*counter), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	counter = p;
	return cua_dispatch_subscribe(&sub);
}
