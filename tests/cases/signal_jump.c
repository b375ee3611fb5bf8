/* SPDX-License-Identifier: MIT */
/* tests/cases/signal_jump.c: a signal handler that jumps out of a wrapped call at one instruction boundary after another, on the thread's stack or an alternate one. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include "common.h"
#include "trapflag.h"

/* signal_jump stack|altlow|althigh STRIDE COUNTFILE: calls cuDeviceGetCount single-stepped
   (the x86 trap flag) again and again; the SIGTRAP handler counts the call's instructions
   and, at the k-th (k = 1, 1 + STRIDE, 1 + 2 STRIDE, ...), makes one failing call and jumps
   out with siglongjmp, until a call ends before its k-th instruction: a jump out of every
   part of a call (the wrapper, the dispatch, every hook's update, the mock) in turn. After
   each call, jumped out of or not, one cuDriverGetVersion that is not stepped. stack: the
   handler runs on the thread's stack; altlow: on an alternate stack below the thread's
   (the main thread, the alternate stack in the program's data); althigh: on an alternate
   stack above the thread's (a thread whose stack is in the program's data, the alternate
   stack mapped). What the program prints is the same every run; the rounds, the jumps and
   the failing calls go to COUNTFILE. x86-64 only (the caller skips elsewhere). */

static sigjmp_buf env;
static volatile long traps, target, jumps;
static char low_stack[1 << 20] __attribute__((aligned(4096)));

static void handler(int sig)
{
	CUdevice d;

	(void)sig;
	if (++traps != target)
		return;
	/* The kernel cleared the trap flag for the handler: this call is not stepped. */
	if (cuDeviceGet(&d, 9999) != CUDA_ERROR_INVALID_DEVICE)
		_exit(3);
	jumps++;
	siglongjmp(env, 1);
}

struct run {
	const char *mode;
	long stride, rounds;
};

static void *loop(void *arg)
{
	struct run *r = arg;
	struct sigaction sa;
	stack_t alt;
	int n, v, ok;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	if (strcmp(r->mode, "stack") != 0) {
		memset(&alt, 0, sizeof(alt));
		alt.ss_size = 1 << 18;
		if (strcmp(r->mode, "altlow") == 0)
			alt.ss_sp = low_stack;
		else
			alt.ss_sp = mmap(NULL, alt.ss_size, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(alt.ss_sp != MAP_FAILED);
		CHECK(sigaltstack(&alt, NULL) == 0);
		sa.sa_flags = SA_ONSTACK;
	}
	CHECK(sigaction(SIGTRAP, &sa, NULL) == 0);
	for (long k = 1;; k += r->stride) {
		r->rounds++;
		traps = 0;
		target = k;
		if (sigsetjmp(env, 1) == 0) {
			trap_flag(1);
			ok = cuDeviceGetCount(&n) == CUDA_SUCCESS;
			trap_flag(0);
			CHECK(ok);
			CHECK(cuDriverGetVersion(&v) == CUDA_SUCCESS);
			break;
		}
		CHECK(cuDriverGetVersion(&v) == CUDA_SUCCESS);
	}
	signal(SIGTRAP, SIG_DFL);
	return NULL;
}

int main(int argc, char **argv)
{
	struct run r = { 0 };
	pthread_attr_t a;
	pthread_t t;
	FILE *f;

	CHECK(argc == 4);
	r.mode = argv[1];
	r.stride = atol(argv[2]);
	CHECK(r.stride > 0);
	CHECK(cuInit(0) == CUDA_SUCCESS);
	if (strcmp(r.mode, "althigh") == 0) {
		CHECK(pthread_attr_init(&a) == 0);
		CHECK(pthread_attr_setstack(&a, low_stack, sizeof(low_stack)) == 0);
		CHECK(pthread_create(&t, &a, loop, &r) == 0);
		CHECK(pthread_join(t, NULL) == 0);
	} else {
		CHECK(strcmp(r.mode, "stack") == 0 || strcmp(r.mode, "altlow") == 0);
		loop(&r);
	}
	f = fopen(argv[3], "w");
	CHECK(f != NULL);
	fprintf(f, "%ld %ld\n", r.rounds, (long)jumps);
	fclose(f);
	printf("%s: every round ended\n", r.mode);
	return jumps > 0 ? 0 : 2;
}
