/* SPDX-License-Identifier: MIT */
/* tests/cases/gpu_lock_step.c: a signal handler that jumps out of a timed launch at every instruction near the GPU timing's atomic instructions (where its locks are taken and given back). */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include "common.h"
#include "trapflag.h"

/* gpu_lock_step WIDTH COUNTFILE, under CUAUDIT_GPU_TIME=on: launches are single-stepped (the
   x86 trap flag) with no jump, keeping the address of every instruction they run: one (it
   runs the once-only paths), then 8 in a row, of which the one with the most atomic
   instructions of cuaudit's code (its mapping in /proc/self/maps, a lock prefix) is kept:
   the one that harvests. The first two runs of each such instruction there are the take
   and the release of the pool's lock and of the totals' lock, among others. Then, for
   every instruction within WIDTH steps of one of them, a round: 7 plain launches (with the
   stepped one, 8 a round: the stepped launch harvests as the kept one did), then a launch
   stepped again whose SIGTRAP handler jumps out with siglongjmp when that instruction runs
   (its address, the same number of times as in the kept step); again after one more plain
   launch where it did not run there, 8 tries at most. After the rounds: 16 plain launches,
   50 from another thread (timed in ms), 10 plain ones. COUNTFILE gets: the plain
   launches, the stepped ones, the jumps, the other thread's milliseconds, the kept step's
   instructions and the instructions chosen. A lock a jump left held with no mark made
   every later launch of the thread "busy". STEP_DEBUG=1: the atomic instructions chosen and
   those never reached, on stderr. x86-64 only. */
#define MAX_STEPS 65536
/* Not in any header: what one block of a kernel's grid lasts on the mock GPU. */
CUresult cuMockKernelUnitNs(unsigned long long ns);
static CUfunction add_one;
static CUdeviceptr dev;
static sigjmp_buf env;
static volatile long traps, jumps, occ;
static volatile int discover;
static uintptr_t pcs[MAX_STEPS], kept[MAX_STEPS], target_pc;
static long kept_steps;
static long target_occ, plain;
static uintptr_t lo, hi; /* cuaudit's executable mapping */
static CUcontext ctx;

static CUresult launch(void)
{
	int n = 64;
	void *params[] = { &dev, &n };

	return cuLaunchKernel(add_one, 1, 1, 1, 64, 1, 1, 0, NULL, params, NULL);
}

static void plain_launches(int n)
{
	for (int i = 0; i < n; i++) {
		CHECK(launch() == CUDA_SUCCESS);
		plain++;
	}
}

static void handler(int sig, siginfo_t *info, void *ucv)
{
	uintptr_t pc = (uintptr_t)((ucontext_t *)ucv)->uc_mcontext.gregs[REG_RIP];

	(void)sig;
	(void)info;
	if (discover) {
		if (traps < MAX_STEPS)
			pcs[traps] = pc;
		traps++;
		return;
	}
	if (pc == target_pc && ++occ == target_occ) {
		jumps++;
		siglongjmp(env, 1);
	}
}

static void stepped(void)
{
	int ok;

	occ = 0;
	if (sigsetjmp(env, 1) == 0) {
		trap_flag(1);
		ok = launch() == CUDA_SUCCESS;
		trap_flag(0);
		CHECK(ok);
	}
}

/* The executable mapping of libcuaudit.so. */
static int find_cuaudit(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	CHECK(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		char perm[8];

		if (strstr(line, "libcuaudit") && sscanf(line, "%lx-%lx %7s", &a, &b, perm) == 3 &&
		    perm[2] == 'x') {
			lo = a;
			hi = b;
		}
	}
	fclose(f);
	return hi != 0;
}

static void *other_launches(void *arg)
{
	struct timespec t0, t1;
	long *ms = arg;

	CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 50; i++)
		CHECK(launch() == CUDA_SUCCESS);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	CUdevice d;
	CUmodule mod = NULL;
	pthread_t t;
	long width, steps, rounds = 0, targets = 0, other_ms = 0, phase = 0;
	static uint8_t chosen[MAX_STEPS];
	FILE *f;

	CHECK(argc == 3);
	width = atol(argv[1]);
	CHECK(cuInit(0) == CUDA_SUCCESS);
	CHECK(cuDeviceGet(&d, 0) == CUDA_SUCCESS);
	CHECK(cuDevicePrimaryCtxRetain(&ctx, d) == CUDA_SUCCESS);
	CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
	CHECK(cuModuleGetFunction(&add_one, mod, "_Z7add_onePii") == CUDA_SUCCESS);
	CHECK(cuMemAlloc_v2(&dev, 8192) == CUDA_SUCCESS);
	if (!find_cuaudit()) {
		fprintf(stderr, "gpu_lock_step: no libcuaudit.so mapped (run it under LD_AUDIT)\n");
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGTRAP, &sa, NULL) == 0);
	/* Work of 1 us: the harvests find it done. 100 launches: past the once-only polls of
	   the first calls. */
	CHECK(cuMockKernelUnitNs(1000) == CUDA_SUCCESS);
	plain_launches(100);
	/* The first stepped launch runs the once-only paths of a stepped call; then 8 in a row
	   (one harvests), and the one with the most atomic instructions is kept: 8 launches a
	   round from there keep that phase. */
	discover = 1;
	traps = 0;
	stepped();
	for (int i = 0, best = -1; i < 8; i++) {
		int n = 0;

		traps = 0;
		stepped();
		steps = traps < MAX_STEPS ? traps : MAX_STEPS;
		for (long j = 0; j < steps; j++)
			n += pcs[j] >= lo && pcs[j] < hi && *(const unsigned char *)pcs[j] == 0xf0;
		if (n > best) {
			best = n;
			memcpy(kept, pcs, (size_t)steps * sizeof(pcs[0]));
			kept_steps = steps;
			phase = i;
		}
	}
	discover = 0;
	/* Launch L0 + 8 next: (phase + 1) % 8 plain ones, then 7 a round before the stepped one,
	   which is then L0 + phase modulo 8. */
	plain_launches((phase + 1) % 8);
	memcpy(pcs, kept, (size_t)kept_steps * sizeof(pcs[0]));
	steps = kept_steps;
	for (long i = 0; i < steps; i++) {
		long seen = 0;

		if (pcs[i] < lo || pcs[i] >= hi || *(const unsigned char *)pcs[i] != 0xf0)
			continue;
		/* The first two runs of each: a lock's take (the pool's, then the totals') and
		   release; later ones are the same code again (each record the harvest delivers). */
		for (long j = 0; j < i; j++)
			seen += pcs[j] == pcs[i];
		if (seen >= 2)
			continue;
		if (getenv("STEP_DEBUG"))
			fprintf(stderr, "atomic %lx at %ld\n", (unsigned long)(pcs[i] - lo), i);
		for (long k = i - width; k <= i + width; k++)
			if (k >= 0 && k < steps)
				chosen[k] = 1;
	}
	for (long k = 0; k < steps; k++) {
		if (!chosen[k] || pcs[k] < lo || pcs[k] >= hi)
			continue;
		target_pc = pcs[k];
		target_occ = 0;
		for (long j = 0; j <= k; j++)
			target_occ += pcs[j] == target_pc;
		/* Stepped again (one plain launch between: the next harvest phase) until it
		   runs there: a jump before the pool counts the call shifts the phase. */
		int reached = 0;

		plain_launches(7);
		for (int tries = 0; tries < 8; tries++) {
			long before = jumps;

			stepped();
			rounds++;
			if (jumps > before) {
				reached = 1;
				break;
			}
			plain_launches(1);
		}
		targets++;
		if (getenv("STEP_DEBUG") && !reached)
			fprintf(stderr, "unreached %lx occ %ld at %ld\n", (unsigned long)(target_pc - lo), target_occ, k);
	}
	plain_launches(16);
	CHECK(pthread_create(&t, NULL, other_launches, &other_ms) == 0);
	CHECK(pthread_join(t, NULL) == 0);
	plain_launches(10);
	signal(SIGTRAP, SIG_DFL);
	f = fopen(argv[2], "w");
	CHECK(f != NULL);
	fprintf(f, "%ld %ld %ld %ld %ld %ld\n", plain, rounds + 2, (long)jumps, other_ms, steps,
		targets);
	fclose(f);
	printf("rounds %ld jumps %ld\n", rounds, (long)jumps);
	return 0;
}
