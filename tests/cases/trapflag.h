/* SPDX-License-Identifier: MIT */
/* tests/cases/trapflag.h: the x86 trap flag, set and cleared around a call to single-step it (SIGTRAP after every instruction). */
#ifndef CASES_TRAPFLAG_H
#define CASES_TRAPFLAG_H

#include <stdio.h>
#include <stdlib.h>

#define TF 0x100ul

/* The kernel clears the flag for a signal handler and puts it back when the handler
   returns. Exits with status 2 off x86-64 (the callers skip there). */
static inline void trap_flag(int on)
{
#if !defined(__x86_64__)
	(void)on;
	fprintf(stderr, "the trap flag: x86-64 only\n");
	exit(2);
#else
	if (on)
		__asm__ volatile("pushfq; orq %0, (%%rsp); popfq" : : "i"(TF) : "memory", "cc");
	else
		__asm__ volatile("pushfq; andq %0, (%%rsp); popfq" : : "i"(~TF) : "memory", "cc");
#endif
}

#endif
