/* SPDX-License-Identifier: MIT */
/* hooks/errcount.c: the CUAUDIT_ERROR_COUNT hook: counts failed calls in a file `cuaudit run` reads after the program. */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "dispatch.h"
#include "errcount_config.h"
#include "hooks.h"
#include "table.h"

/* A shared mapping of the file's first 8 bytes: an atomic add lands in the page cache, so the
   count survives SIGKILL, and no descriptor is kept that the program could close or reuse. */
static uint64_t *counter;

/* CUDA_ERROR_NOT_READY and cudaErrorNotReady: a query's "not finished yet", not a failure. */
#define NOT_READY 600
/* CUDA_ERROR_DEINITIALIZED and cudaErrorCudartUnloading: teardown calls the runtime makes at
   exit after the driver has shut down (seen on every nvcc program, driver 580); the program
   has finished by then. */
#define DEINITIALIZED 4

static void errcount_exit(const struct cuaudit_call *c, void *ctx)
{
	unsigned ret = cua_api[c->id].ret;
	int result = (int)c->result;

	(void)ctx;
	/* Only what the program itself was told (depth 0), as compute-sanitizer reports API
	   errors: a runtime probing the driver inside its own calls is not the program failing. */
	if (c->depth == 0 && (ret == CUA_RET_CURESULT || ret == CUA_RET_CUDAERROR) && result != 0 &&
	    result != NOT_READY && result != DEINITIALIZED)
		__atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
}

int cua_errcount_init(const struct cua_errcount_config *own)
{
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = errcount_exit);
	struct stat st;
	void *p;
	int fd;

	if (!own->path[0])
		return 0;
	/* No O_NOFOLLOW: the command names its counter as /proc/PID/fd/N, a link by design. */
	fd = open(own->path, O_RDWR | O_CLOEXEC);
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
