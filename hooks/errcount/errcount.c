/* SPDX-License-Identifier: MIT */
/* hooks/errcount/errcount.c: the CUAUDIT_ERROR_COUNT hook: counts failed calls in a file `cuaudit run` reads after the program. */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "configs.h"
#include "dispatch.h"
#include "errcount_config.h"
#include "fmt.h"
#include "hooks.h"
#include "log.h"
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
/* The counter file: the count, then the 128-bit token of the command that made it. */
#define TOKEN_AT 8
#define COUNTER_SIZE 24

static void errcount_exit(const struct cuaudit_call *c, void *ctx)
{
	int result = (int)c->result;

	(void)ctx;
	/* Only what the program itself was told (depth 0), as compute-sanitizer reports API
	   errors: a runtime probing the driver inside its own calls is not the program failing. */
	if (c->depth == 0 && cua_failed(c->id, result) &&
	    result != NOT_READY && result != DEINITIALIZED)
		__atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
}

/* Opens the counter the path names, and proves it is the command's own:
   the command's /proc/PID/fd/N outlives the command, and a reused pid makes it name another
   program's descriptor. The path is resolved with O_PATH (nothing is opened: no FIFO, tty
   or device sees an open), the inode must be a regular file, it is then opened through our
   own O_PATH descriptor (the same inode, whatever the path names by now), and it must hold
   the 128-bit random token the command stored in it and passed beside the path. Only then
   is it mapped; the mapping pins that inode, so every later add lands in it and nowhere else. */
static int open_counter(const struct cua_errcount_config *own)
{
	char self[64];
	struct cua_buf b = CUA_BUF(self);
	uint8_t token[sizeof(own->token)];
	struct stat st, st2;
	int path_fd, fd;

	path_fd = open(own->path, O_PATH | O_CLOEXEC);
	if (path_fd < 0)
		return -1;
	if (fstat(path_fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < COUNTER_SIZE) {
		close(path_fd);
		return -1;
	}
	cua_buf_str(&b, "/proc/self/fd/");
	cua_buf_u64(&b, (uint64_t)path_fd);
	self[b.len < sizeof(self) ? b.len : sizeof(self) - 1] = '\0';
	fd = open(self, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	close(path_fd);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st2) != 0 || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino ||
	    pread(fd, token, sizeof(token), TOKEN_AT) != (ssize_t)sizeof(token) ||
	    memcmp(token, own->token, sizeof(token)) != 0) {
		close(fd);
		return -2;
	}
	return fd;
}

int cua_errcount_init(const struct cua_errcount_config *own)
{
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = errcount_exit);
	void *p;
	int fd;

	if (!own->path[0])
		return 0;
	fd = open_counter(own);
	if (fd < 0) {
		cua_log_msg(CUA_LOG_WARN, "CUAUDIT_ERROR_COUNT=", own->path,
			    fd == -2 ? " is not the counter of the `cuaudit run` this process descends"
				       " from (its token differs: that run has ended and its process id"
				       " is in use again, or the variable was copied)"
				     : " cannot be opened as a regular file",
			    "; accepted: the counter `cuaudit run --error-exitcode` makes, with its"
			    " CUAUDIT_ERROR_COUNT_TOKEN. Failed calls are not counted.", NULL);
		return -1;
	}
	p = mmap(NULL, sizeof(*counter), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	counter = p;
	return cua_dispatch_subscribe(&sub);
}

/* The registry's entry (hooks/registry.c). */
void cua_errcount_start(const struct cua_config *all, struct cua_hook_configs *cfg)
{
	(void)all;
	cua_errcount_init(&cfg->errcount);
}
