/* SPDX-License-Identifier: MIT */
/* tests/cases/signal_step.c: a signal handler that calls CUDA at every instruction boundary of wrapped calls, and a handler inside it at every boundary of some of its own. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include "common.h"
#include "trapflag.h"

/* signal_step N COUNTFILE: N calls on the main thread, each single-stepped (the x86 trap
   flag): after every instruction of the call (the wrapper, the dispatch, every hook's
   update, the mock) a SIGTRAP handler makes one call that succeeds (the same function as
   the loop's) and one that fails. Every 256th run of the handler single-steps its own first
   call the same way, so a handler interrupts a handler at every instruction of that call
   too. What the program prints is the same every run; the loop's calls and the handler's
   runs go to COUNTFILE. x86-64 only (the caller skips elsewhere).
   signal_step N COUNTFILE althigh: the same on a thread whose stack is in the program's
   data, with the handler on an alternate stack mapped above it. */
static volatile sig_atomic_t runs, inside;

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

static long count, made;
static int on_alt;
static char low_stack[1 << 20] __attribute__((aligned(4096)));

static void *loop(void *arg)
{
	struct sigaction sa;
	stack_t alt = { .ss_size = 1 << 18 };
	int n, ok;

	(void)arg;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	/* A trap inside the handler's own stepped call runs the handler again, nested. */
	sa.sa_flags = SA_NODEFER;
	if (on_alt) {
		alt.ss_sp = mmap(NULL, alt.ss_size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(alt.ss_sp != MAP_FAILED && (uintptr_t)alt.ss_sp > (uintptr_t)low_stack);
		CHECK(sigaltstack(&alt, NULL) == 0);
		sa.sa_flags |= SA_ONSTACK;
	}
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGTRAP, &sa, NULL) == 0);
	for (long i = 0; i < count; i++, made++) {
		trap_flag(1);
		ok = cuDeviceGetCount(&n) == CUDA_SUCCESS;
		trap_flag(0);
		CHECK(ok);
	}
	signal(SIGTRAP, SIG_DFL);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_attr_t a;
	pthread_t t;
	FILE *f;

	CHECK(argc == 3 || (argc == 4 && strcmp(argv[3], "althigh") == 0));
	count = atol(argv[1]);
	CHECK(cuInit(0) == CUDA_SUCCESS);
	if (argc == 4) {
		on_alt = 1;
		CHECK(pthread_attr_init(&a) == 0);
		CHECK(pthread_attr_setstack(&a, low_stack, sizeof(low_stack)) == 0);
		CHECK(pthread_create(&t, &a, loop, NULL) == 0);
		CHECK(pthread_join(t, NULL) == 0);
	} else {
		loop(NULL);
	}
	f = fopen(argv[2], "w");
	CHECK(f != NULL);
	fprintf(f, "%ld %ld\n", made, (long)runs);
	fclose(f);
	printf("%ld stepped calls done\n", count);
	return runs > 0 ? 0 : 2;
}
