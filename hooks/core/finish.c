/* SPDX-License-Identifier: MIT */
/* hooks/core/finish.c: the work to run when the program image ends (exit or exec), once each, in registration order. */
#include <unistd.h>
#include "finish.h"
#include "dispatch.h"
#include "process.h"
#include "threads.h"

#define MAX_FINISH 16
enum { IDLE = 0, RUNNING = 1, DONE = 2 };

static struct {
	void (*fn)(void);
	void (*resume)(void);
	unsigned flags;
	int state;       /* IDLE, RUNNING (by owner), DONE */
	uint32_t owner;
} finish[MAX_FINISH];
static unsigned nfinish;

void cua_finish_add(void (*fn)(void), void (*resume)(void), unsigned flags)
{
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
   other waits until it is whole, but never forever (the same thread, from a signal handler,
   or a thread that has ended, is not waited for). */
static void run_one(unsigned i)
{
	int idle = IDLE;
	uint32_t self = (uint32_t)cua_thread_id();

	if (__atomic_compare_exchange_n(&finish[i].state, &idle, RUNNING, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		__atomic_store_n(&finish[i].owner, self, __ATOMIC_RELEASE);
		finish[i].fn();
		__atomic_store_n(&finish[i].state, DONE, __ATOMIC_RELEASE);
		return;
	}
	for (unsigned spins = 0; spins < 200000 &&
	     __atomic_load_n(&finish[i].state, __ATOMIC_ACQUIRE) == RUNNING; spins++) {
		uint32_t owner = __atomic_load_n(&finish[i].owner, __ATOMIC_ACQUIRE);

		if (owner == self || (owner && !cua_thread_alive(cua_process_id(), owner)))
			break;
		usleep(10);
	}
}

void cua_finish_run(void)
{
	for (unsigned i = 0; i < nfinish; i++)
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
	for (unsigned i = 0; i < nfinish; i++) {
		if (!(finish[i].flags & CUA_FINISH_ONCE) &&
		    __atomic_load_n(&finish[i].state, __ATOMIC_ACQUIRE) == DONE) {
			if (finish[i].resume)
				finish[i].resume();
			__atomic_store_n(&finish[i].state, IDLE, __ATOMIC_RELEASE);
		}
	}
}
