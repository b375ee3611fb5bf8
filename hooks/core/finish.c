/* SPDX-License-Identifier: MIT */
/* hooks/core/finish.c: the work to run when the program image ends (exit or exec), once each, in registration order. */
#include "process.h"

#define MAX_FINISH 16
static struct {
	void (*fn)(void);
	void (*resume)(void);
	int done;
} finish[MAX_FINISH];
static unsigned nfinish;

void cua_finish_add(void (*fn)(void), void (*resume)(void))
{
	if (nfinish < MAX_FINISH) {
		finish[nfinish].fn = fn;
		finish[nfinish].resume = resume;
		nfinish++;
	}
}

int cua_finish_any(void)
{
	return nfinish != 0;
}

/* Exit and exec may race on two threads: each piece of work is claimed by one of them. */
void cua_finish_run(void)
{
	for (unsigned i = 0; i < nfinish; i++)
		if (!__atomic_exchange_n(&finish[i].done, 1, __ATOMIC_ACQ_REL))
			finish[i].fn();
}

void cua_finish_resume(void)
{
	for (unsigned i = 0; i < nfinish; i++) {
		if (finish[i].resume && __atomic_load_n(&finish[i].done, __ATOMIC_ACQUIRE)) {
			finish[i].resume();
			__atomic_store_n(&finish[i].done, 0, __ATOMIC_RELEASE);
		}
	}
}
