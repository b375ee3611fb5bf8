/* SPDX-License-Identifier: MIT */
/* tests/cases/static_rt_race.c: threads call through two runtime copies while the main thread opens and closes a third again and again; every call must reach its own copy. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include "common.h"

int copy_a_check(int n);
int copy_b_check(int n);

#define THREAD_CALLS 20000
#define ROUNDS 30

/* A new thread has no current context: give it the primary one, as a program would. */
static void thread_context(void)
{
	CUdevice d;
	CUcontext c;

	CHECK(cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&d, 0) == CUDA_SUCCESS &&
	      cuDevicePrimaryCtxRetain(&c, d) == CUDA_SUCCESS && cuCtxSetCurrent(c) == CUDA_SUCCESS);
}

static void *run_a(void *arg)
{
	(void)arg;
	thread_context();
	return (void *)(long)copy_a_check(THREAD_CALLS);
}

static void *run_b(void *arg)
{
	(void)arg;
	thread_context();
	return (void *)(long)copy_b_check(THREAD_CALLS);
}

int main(void)
{
	pthread_t t[4];
	long total = 0;
	int c_calls = 0;

	for (int i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], NULL, i % 2 ? run_b : run_a, NULL) == 0);
	for (int r = 0; r < ROUNDS; r++) {
		void *h = dlopen("libstatic_rt_c.so", RTLD_NOW | RTLD_LOCAL);
		int (*check)(int);

		CHECK(h != NULL);
		check = (int (*)(int))dlsym(h, "copy_c_check");
		CHECK(check != NULL);
		c_calls += check(100);
		CHECK(dlclose(h) == 0);
	}
	for (int i = 0; i < 4; i++) {
		void *ret;

		CHECK(pthread_join(t[i], &ret) == 0);
		total += (long)ret;
	}
	printf("threads: %ld calls through a and b; main: %d calls through c in %d loads\n", total,
	       c_calls, ROUNDS);
	return 0;
}
