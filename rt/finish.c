/* SPDX-License-Identifier: MIT */
/* rt/finish.c: the work to run when the program image ends (exit or exec), once each per process, in registration order. */
#include <unistd.h>
#include "finish.h"
#include "dispatch.h"
#include "process.h"
#include "threads.h"

#define MAX_FINISH 16
enum { IDLE = 0, RUNNING = 1, DONE = 2 };

/* The state of a piece of work is one word: the process it belongs to (high 32 bits), the
   thread running it and IDLE/RUNNING/DONE. One compare-and-swap takes it with its owner, so
   no signal can land between taking it and naming the owner (a same-thread handler would
   then wait for itself), and a forked child, whose pid differs, finds every piece idle: the
   parent's DONE is not the child's. */
static struct {
	void (*fn)(void);
	void (*resume)(void);
	unsigned flags;
	uint64_t word;
} finish[MAX_FINISH];
static unsigned nfinish;
/* The process that loaded this image (la_version registers the work): a forked child has
   another pid. */
static uint64_t loader_pid;

#define WORD(pid, tid, state) ((uint64_t)(pid) << 32 | (uint64_t)((tid) & 0x3fffffffu) << 2 | (state))
#define WORD_PID(w) ((w) >> 32)
#define WORD_TID(w) ((uint32_t)((w) >> 2) & 0x3fffffffu)
#define WORD_STATE(w) ((unsigned)(w) & 3u)

void cua_finish_add(void (*fn)(void), void (*resume)(void), unsigned flags)
{
	if (!loader_pid)
		loader_pid = (uint64_t)getpid();
	if (nfinish < MAX_FINISH) {
		finish[nfinish].fn = fn;
		finish[nfinish].resume = resume;
		finish[nfinish].flags = flags;
		nfinish++;
	}
}

int cua_finish_any_at_exec(void)
{
	for (unsigned i = 0; i < nfinish; i++)
		if (finish[i].flags & CUA_FINISH_AT_EXEC)
			return 1;
	return 0;
}

/* Exit and exec may race on two threads: each piece of work is done by one of them, and the
   other waits until it is whole, but never forever: not for itself (a signal handler that
   interrupted it), not for a thread that has ended, and not past a deadline in time. */
static void run_one(unsigned i)
{
	uint64_t pid = cua_process_id(), deadline = 0;
	uint32_t self = (uint32_t)cua_thread_id();
	uint64_t w = __atomic_load_n(&finish[i].word, __ATOMIC_ACQUIRE);

	for (;;) {
		if (WORD_PID(w) != pid || WORD_STATE(w) == IDLE) {
			if (!__atomic_compare_exchange_n(&finish[i].word, &w, WORD(pid, self, RUNNING),
							 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				continue;
			finish[i].fn();
			__atomic_store_n(&finish[i].word, WORD(pid, self, DONE), __ATOMIC_RELEASE);
			return;
		}
		if (WORD_STATE(w) == DONE || WORD_TID(w) == (self & 0x3fffffffu) ||
		    !cua_thread_alive(pid, WORD_TID(w)))
			return;
		if (!deadline)
			deadline = cua_wait_deadline();
		else if (!cua_wait_more(deadline))
			return;
		w = __atomic_load_n(&finish[i].word, __ATOMIC_ACQUIRE);
	}
}

/* A forked child that has made no call the summary or the trace kept. */
static int child_without_calls(void)
{
	uint64_t pid = cua_process_id();

	return pid != loader_pid && cua_tslot_last_pid() != pid;
}

void cua_finish_run(void)
{
	int idle_child = child_without_calls();

	for (unsigned i = 0; i < nfinish; i++)
		if (!(idle_child && (finish[i].flags & CUA_FINISH_OWN_CALLS)))
			run_one(i);
}

void cua_finish_run_at_exec(void)
{
	for (unsigned i = 0; i < nfinish; i++)
		if (finish[i].flags & CUA_FINISH_AT_EXEC)
			run_one(i);
}

void cua_finish_resume(void)
{
	uint64_t pid = cua_process_id();

	for (unsigned i = 0; i < nfinish; i++) {
		uint64_t w = __atomic_load_n(&finish[i].word, __ATOMIC_ACQUIRE);

		if (!(finish[i].flags & CUA_FINISH_ONCE) && WORD_PID(w) == pid &&
		    WORD_STATE(w) == DONE) {
			if (finish[i].resume)
				finish[i].resume();
			__atomic_store_n(&finish[i].word, WORD(pid, 0, IDLE), __ATOMIC_RELEASE);
		}
	}
}
