/* SPDX-License-Identifier: MIT */
/* tests/cases/signal_step.c: a signal handler that calls CUDA at every instruction boundary of wrapped calls, and a handler inside it at every boundary of some of its own. */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include "common.h"

/* signal_step N COUNTFILE: N calls on the main thread, each single-stepped (the x86 trap
   flag): after every instruction of the call (the wrapper, the dispatch, every hook's
   update, the mock) a SIGTRAP handler makes one call that succeeds (the same function as
   the loop's) and one that fails. Every 256th run of the handler single-steps its own first
   call the same way, so a handler interrupts a handler at every instruction of that call
   too. What the program prints is the same every run; the loop's calls and the handler's
   runs go to COUNTFILE. x86-64 only (the caller skips elsewhere). */
static volatile sig_atomic_t runs, inside;

#define TF 0x100ul

static inline void trap_flag(int on)
{
#if !defined(__x86_64__)
	(void)on;
	fprintf(stderr, "signal_step: x86-64 only\n");
	exit(2);
#else
	if (on)
		__asm__ volatile("pushfq; orq %0, (%%rsp); popfq" : : "i"(TF) : "memory", "cc");
	else
		__asm__ volatile("pushfq; andq %0, (%%rsp); popfq" : : "i"(~TF) : "memory", "cc");
#endif
}

static void handler(int sig)
{
	int n, ok;
	CUdevice d;
	/* The kernel clears the trap flag for the handler; set again, it steps this call. */
	int step = inside == 0 && runs % 256 == 0;

	(void)sig;
	inside++;
	if (step)
		trap_flag(1);
	ok = cuDeviceGetCount(&n) == CUDA_SUCCESS;
	if (step)
		trap_flag(0);
	if (!ok || cuDeviceGet(&d, 9999) != CUDA_ERROR_INVALID_DEVICE)
		_exit(3);
	runs++;
	inside--;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	long count, made = 0;
	int n, ok;
	FILE *f;

	CHECK(argc == 3);
	count = atol(argv[1]);
	CHECK(cuInit(0) == CUDA_SUCCESS);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	/* A trap inside the handler's own stepped call runs the handler again, nested. */
	sa.sa_flags = SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGTRAP, &sa, NULL) == 0);
	for (long i = 0; i < count; i++, made++) {
		trap_flag(1);
		ok = cuDeviceGetCount(&n) == CUDA_SUCCESS;
		trap_flag(0);
		CHECK(ok);
	}
	signal(SIGTRAP, SIG_DFL);
	f = fopen(argv[2], "w");
	CHECK(f != NULL);
	fprintf(f, "%ld %ld\n", made, (long)runs);
	fclose(f);
	printf("%ld stepped calls done\n", count);
	return runs > 0 ? 0 : 2;
}
