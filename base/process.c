/* SPDX-License-Identifier: MIT */
/* base/process.c: process and thread identity that stays right across fork, without atfork handlers. */
#include <sys/mman.h>
#include <sys/syscall.h>
#include <string.h>
#include <unistd.h>
#include "process.h"
#include "threads.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

/* Without MADV_WIPEONFORK (Linux < 4.14) the cache points here and stays 0: never a
   pointer to test on the hot path, and only the system call answers. */
static volatile uint64_t no_cache;
volatile uint64_t *cua_pid_cache = &no_cache;
__thread struct cua_thread cua_self __attribute__((tls_model("initial-exec")));
static uint64_t thread_serials;

uint64_t cua_process_new_thread(void)
{
	return __atomic_add_fetch(&thread_serials, 1, __ATOMIC_RELAXED);
}
#define pid_cache cua_pid_cache

void cua_process_init(void)
{
	void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED && madvise(p, (size_t)sysconf(_SC_PAGESIZE), MADV_WIPEONFORK) == 0)
		pid_cache = p;
	else if (p != MAP_FAILED)
		munmap(p, (size_t)sysconf(_SC_PAGESIZE));
}

int *(*cua_program_errno)(void);
int (*cua_program_cxa_atexit)(void (*fn)(void *), void *arg, void *dso);
int (*cua_program_register_atfork)(void (*prepare)(void), void (*parent)(void), void (*child)(void),
				   void *dso);

uint64_t cua_process_id(void)
{
	uint64_t pid;

	if (CUA_LIKELY(pid_cache != &no_cache)) {
		pid = *pid_cache;
		if (CUA_LIKELY(pid))
			return pid;
		pid = (uint64_t)getpid();
		*pid_cache = pid;
		return pid;
	}
	/* Without MADV_WIPEONFORK (Linux < 4.14) only the system call is safe. */
	return (uint64_t)getpid();
}

int cua_process_image_is_own(void)
{
	uint64_t cached = *pid_cache;

	/* Without the cache (Linux < 4.14) a vfork child cannot be told apart: say no. The
	   cache alone is set by a log line too: a call kept by the summary or the trace is
	   what makes the image's outputs worth writing. */
	return cached && cached == (uint64_t)getpid() && cua_tslot_last_pid() == cached;
}

uint64_t cua_thread_id(void)
{
	uint64_t pid = cua_process_id();

	/* A forked child's thread has a new id: the cache is keyed by the process. */
	if (cua_self.tid_pid != pid) {
		/* The id before the key: a signal handler's call that lands in between finds the
		   key stale and asks again, never the new key with the old id. */
		cua_self.tid = (uint64_t)syscall(SYS_gettid);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		cua_self.tid_pid = pid;
	}
	return cua_self.tid;
}

static char host[256];

const char *cua_process_host(void)
{
	/* Read once: a host name does not change under a running program. */
	if (!host[0] && (gethostname(host, sizeof(host) - 1) != 0 || !host[0]))
		memcpy(host, "unknown", 8);
	return host;
}

/* A handler is left when code runs above its trampoline's frame, or off the stack it runs
   on: its own frames, and those of handlers inside it on the same stack, are all below
   that frame on that stack (a handler on the alternate stack may lie above the code it
   interrupted, so the interrupted code's place would not do). A handler still running is
   never taken for left; one left by a jump to code deeper in the stack than its frame is
   taken for running until the thread's code passes above it. */
static int left(const struct cua_sig_frame *f, uintptr_t here)
{
	return here > f->frame || here < f->lo || here >= f->hi;
}

/* Drops the handlers code at here has left, newest first (an older one still running
   keeps every newer one's state apart). 1, and *base the level word at here, when some
   were dropped: the one the newest still running set for its own code (none: 0), since
   an update in progress below here would be one a handler still running interrupted. */
static int drop_left(uintptr_t here, unsigned *base)
{
	unsigned n = cua_self.sig_n, k = n;

	if (n > CUA_SIG_FRAMES)
		return 0;
	while (k > 0 && left(&cua_self.sig[k - 1], here))
		k--;
	if (k == n)
		return 0;
	*base = k ? cua_self.sig[k - 1].level | CUA_LEVEL_HANDLER : 0;
	cua_self.sig_n = k;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 1;
}

unsigned cua_sig_settle(uintptr_t here)
{
	unsigned base;

	if (drop_left(here, &base)) {
		cua_self.level = base;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	}
	return cua_self.sig_n;
}

CUA_COLD unsigned cua_level_resolve(unsigned *l)
{
	unsigned base;

	if (drop_left((uintptr_t)__builtin_frame_address(0), &base)) {
		*l = base;
		cua_self.level = base + 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	}
	return *l & ~CUA_LEVEL_HANDLER;
}
