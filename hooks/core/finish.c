/* SPDX-License-Identifier: MIT */
/* hooks/core/finish.c: the work to run when the process exits normally, in registration order. */
#include "process.h"

#define MAX_FINISH 16
static void (*finish[MAX_FINISH])(void);
static unsigned nfinish;

void cua_finish_add(void (*fn)(void))
{
	if (nfinish < MAX_FINISH)
		finish[nfinish++] = fn;
}

void cua_finish_run(void)
{
	for (unsigned i = 0; i < nfinish; i++)
		finish[i]();
}
