/* SPDX-License-Identifier: MIT */
/* tests/cases/lifecycle_race.c: threads look driver functions up and call them while the main thread loads the first libcudart. */
#include <dlfcn.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include "common.h"

#define THREADS 4

typedef CUresult (*gpa5_fn)(const char *, void **, int, cuuint64_t,
			    CUdriverProcAddressQueryResult *);
static gpa5_fn gpa;
static int stop;
static long calls[THREADS], failures, raw;
static pthread_barrier_t start;

static void *worker(void *arg)
{
	long i = (long)arg;

	pthread_barrier_wait(&start);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		CUresult (*count)(int *) = NULL;
		int n = 0;

		Dl_info in;

		if (gpa("cuDeviceGetCount", (void **)&count, 2000, 0, NULL) != CUDA_SUCCESS ||
		    count(&n) != CUDA_SUCCESS || n != 1)
			__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
		/* A pointer into the driver itself: natively always, under cuaudit never. */
		if (dladdr((void *)count, &in) && in.dli_fname && strstr(in.dli_fname, "libcuda.so"))
			__atomic_add_fetch(&raw, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&calls[i], 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Until every worker has made more than 'floor' calls: the load overlaps running lookups
   even on a loaded machine, and each worker looks up again after it. */
static void wait_for_workers(long floor[THREADS])
{
	for (int i = 0; i < THREADS; i++)
		while (__atomic_load_n(&calls[i], __ATOMIC_ACQUIRE) <= floor[i])
			sched_yield();
}

int main(void)
{
	long before[THREADS] = { 0 }, after[THREADS];
	void *drv = dlopen("libcuda.so.1", RTLD_NOW), *rt;
	pthread_t t[THREADS];
	long total = 0;
	int dev = -1;

	CHECK(drv != NULL);
	gpa = (gpa5_fn)dlsym(drv, "cuGetProcAddress_v2");
	CHECK(gpa && ((CUresult(*)(unsigned))dlsym(drv, "cuInit"))(0) == CUDA_SUCCESS);
	pthread_barrier_init(&start, NULL, THREADS + 1);
	for (long i = 0; i < THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0);
	pthread_barrier_wait(&start);
	wait_for_workers(before);
	rt = dlopen("libcudart.so.13", RTLD_NOW);
	CHECK(rt != NULL);
	for (int i = 0; i < THREADS; i++)
		after[i] = __atomic_load_n(&calls[i], __ATOMIC_ACQUIRE);
	wait_for_workers(after);
	CHECK(((int (*)(int *))dlsym(rt, "cudaGetDevice"))(&dev) == 0);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		total += calls[i];
	}
	/* The count varies from run to run: stderr, which the runner does not compare. */
	fprintf(stderr, "calls %ld\nraw %ld\n", total, raw);
	printf("failures %ld, device %d\n", failures, dev);
	return failures != 0;
}
