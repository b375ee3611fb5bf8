/* SPDX-License-Identifier: MIT */
/* base/process.h: process and thread identity across fork (the pid cache, the thread id). */
#ifndef CUA_PROCESS_H
#define CUA_PROCESS_H

#include <stdint.h>
#include "compiler.h"

/* The program's __errno_location (its C library's, not the audit namespace's), set when
   that library is opened; NULL before. Hooks that call the driver themselves restore the
   program's errno through it. */
extern int *(*cua_program_errno)(void);
/* The program's __cxa_atexit: work registered through it runs at the program's exit, in
   reverse order of registration, so before the CUDA runtime's own exit teardown when it is
   registered after the runtime started. NULL before its C library is opened. */
extern int (*cua_program_cxa_atexit)(void (*fn)(void *), void *arg, void *dso);
/* The program's __register_atfork (what pthread_atfork calls): handlers registered through it
   run in the program's fork, also from a signal handler; the audit namespace's own never
   run. NULL before its C library is opened, or where it has none. */
extern int (*cua_program_register_atfork)(void (*prepare)(void), void (*parent)(void),
					  void (*child)(void), void *dso);

/* Sets up the fork detector; from la_version. */
void cua_process_init(void);
/* This process's id in one load: the cache lives in a page the kernel wipes in a forked
   child (MADV_WIPEONFORK), since pthread_atfork handlers of the audit namespace never run. */
uint64_t cua_process_id(void);
/* 1 when this process owns its memory and has made a call the summary or the trace kept: 0
   in a vfork child, which shares its parent's memory (the cache holds the parent's pid), and
   in an image or a forked child that has made no such call yet. */
int cua_process_image_is_own(void);
/* Signal-handler levels of a thread's per-level records (base/threads.h). */
#define CUA_LEVELS 4
/* Depth of cua_thread.entry_stack: a power of two, more than the signal handlers that can
   nest inside the few instructions between an island's push and its wrapper's pop. */
#define CUA_ENTRY_STACK 16
/* Handlers kept per thread (cua_thread.sig). */
#define CUA_SIG_FRAMES 2
/* Set in the level word while a handler the trampoline ran is on the thread, or was left
   by a jump not yet seen: every update then misses the levels' fast test and asks
   cua_level_resolve for its level. Far above any real level. */
#define CUA_LEVEL_HANDLER (1u << 16)
/* A signal handler running on the thread: its frames all lie below the trampoline's frame
   and on the stack it runs on, so code found above that frame or off that stack has left
   it (docs/design.md, "Signal handlers"). */
struct cua_sig_frame {
	uintptr_t frame;  /* the trampoline's frame */
	uintptr_t lo, hi; /* its stack: the alternate signal stack, or the whole address space */
	uint32_t level;   /* the level word it found, and puts back when it returns */
	uint32_t serial;  /* cua_thread.sig_serial when it began */
};
/* The calling thread's identity: its serial, call counter and depth, and its kernel id
   cached with the pid it was read in. */
struct cua_thread {
	uint64_t serial; /* 0 until the thread's first call */
	uint64_t calls;
	uint64_t tid, tid_pid;
	uint16_t depth;
	/* Which runtime copy a call through a patched entry came through: the
	   entry's island pushes its copy here and jumps to the entry-kind wrapper, which pops
	   it first thing (cua_entry_take). A stack, never one word: a signal handler can run
	   between the push and the pop, and its own calls through patched entries push and pop
	   above the interrupted call's copy, leaving it as they found it. Indexes
	   wrap: a handler that never returns (longjmp) leaves a slot behind, harmlessly. */
	uint32_t entry_sp;
	uint32_t entry_stack[CUA_ENTRY_STACK];
	/* Set by a counter form that samples (the sampled summary, metrics): count_skip[id * 2 +
	   nested] non-zero says this thread's next such call is counted without times, so the
	   counter path reads no clock for it. NULL: every call is timed. */
	const uint8_t *count_skip;
	/* cuaudit's own time on this thread, in ns, in the hooks of general-path calls made
	   inside other intercepted calls (the part of each outside its own two clock reads): a
	   call subtracts what was added while it ran (docs/design.md, "A call's time"). */
	uint64_t hook_ns;
	/* How many updates of a per-level record (the summary's statistics, the trace's
	   buffer) are in progress on this thread: the one level every keeper reads
	   (cua_level_enter, base/threads.h). */
	uint32_t level;
	/* The thread's record at each level of the keeper that counts calls in place (the
	   summary's statistics): beside the level, so that the counter path finds both from one
	   offset. */
	void *level_rec[CUA_LEVELS];
	/* The signal handlers the trampoline ran on this thread that have not returned
	   (audit/signals.c), oldest first: sig_n of them, or CUA_SIG_FRAMES + 1 when more were
	   running than sig[] holds (then none is forgotten until they return). sig_serial
	   counts the handlers run, to tell one begun after a given moment. */
	uint32_t sig_n, sig_serial;
	struct cua_sig_frame sig[CUA_SIG_FRAMES];
};
/* Initial-exec: one %fs-relative access instead of a __tls_get_addr call per use. The few
   bytes come from the static TLS surplus the loader keeps for modules like this one. */
extern __thread struct cua_thread cua_self __attribute__((tls_model("initial-exec")));

/* An update of a per-level record begins (base/threads.h, "Signal handlers"): returns its level (CUA_LEVELS or more: none). */
CUA_HOT_INLINE unsigned cua_level_enter(void)
{
	unsigned l = cua_self.level++;

	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return l;
}

/* The update that cua_level_enter began at level l ends. */
CUA_HOT_INLINE void cua_level_leave(unsigned l)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	cua_self.level = l;
}

/* An update whose level word l (from cua_level_enter) was past the levels: forgets the
   handlers a jump has left (cua_sig_settle), rewrites *l to the level word this update
   runs at (for cua_level_leave) and returns its level (CUA_LEVELS or more: none).
   Not on the hot path: only in a handler, or after a jump out of one. */
unsigned cua_level_resolve(unsigned *l);
/* Forgets the handlers of this thread that code at stack address here has left (a
   siglongjmp out of them), and puts the level word back to what they found. Returns the
   handlers still running: sig_n, or more than CUA_SIG_FRAMES when not all are known. */
unsigned cua_sig_settle(uintptr_t here);

/* A new thread's serial (1, 2, ...), for correlation ids: once per thread, at its first call. */
uint64_t cua_process_new_thread(void);
/* The calling thread's kernel id, cached; correct in a forked child too. */
uint64_t cua_thread_id(void);
/* The page cua_process_id caches the pid in; wiped to 0 in a forked child. Never NULL:
   without a cache it points at a word that stays 0. */
extern volatile uint64_t *cua_pid_cache;

/* cua_process_id without a call when the cache is good: one memory load. */
CUA_HOT_INLINE uint64_t cua_process_id_fast(void)
{
	uint64_t pid = *cua_pid_cache;

	return CUA_LIKELY(pid) ? pid : cua_process_id();
}

/* cua_thread_id without a call when the cache is good: one TLS and one memory compare. */
CUA_HOT_INLINE uint64_t cua_thread_id_fast(void)
{
	uint64_t pid = *cua_pid_cache;

	if (CUA_LIKELY(pid && pid == cua_self.tid_pid))
		return cua_self.tid;
	return cua_thread_id();
}

/* The host name, for %h in file names and the summary's "process"; "unknown" if unreadable. */
const char *cua_process_host(void);

#endif
