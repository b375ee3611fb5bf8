/* SPDX-License-Identifier: MIT */
/* tests/cases/lookup_threads.c: 16 threads look driver functions up with cuGetProcAddress_v2 and call them, all at once. */
#include <dlfcn.h>
#include <pthread.h>
#include "common.h"
#include "mockstate.h"

#define THREADS 16
#define ROUNDS 200

typedef CUresult (*gpa5_fn)(const char *, void **, int, cuuint64_t,
			    CUdriverProcAddressQueryResult *);
static gpa5_fn gpa;
static pthread_barrier_t start;

static void *worker(void *arg)
{
	long ok = 0;

	(void)arg;
	pthread_barrier_wait(&start);
	for (int i = 0; i < ROUNDS; i++) {
		CUresult (*count)(int *) = NULL;
		CUresult (*sync)(CUstream) = NULL;
		int n = 0;

		ok += gpa("cuDeviceGetCount", (void **)&count, 2000, 0, NULL) == CUDA_SUCCESS;
		ok += gpa("cuStreamSynchronize", (void **)&sync, 7000,
			  CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, NULL) == CUDA_SUCCESS;
		ok += count(&n) == CUDA_SUCCESS && n == 1;
		ok += sync(NULL) == CUDA_SUCCESS;
	}
	return (void *)ok;
}

int main(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	pthread_t t[THREADS];
	long ok = 0;

	CHECK(h != NULL);
	gpa = (gpa5_fn)dlsym(h, "cuGetProcAddress_v2");
	CHECK(gpa != NULL);
	CHECK(((CUresult(*)(unsigned))dlsym(h, "cuInit"))(0) == CUDA_SUCCESS);
	pthread_barrier_init(&start, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, worker, NULL) == 0);
	for (int i = 0; i < THREADS; i++) {
		void *r;

		pthread_join(t[i], &r);
		ok += (long)r;
	}
	printf("successes %ld of %d; mock cuStreamSynchronize_ptsz %ld, cuStreamSynchronize %ld\n",
	       ok, THREADS * ROUNDS * 4, mock_calls("cuStreamSynchronize_ptsz"),
	       mock_calls("cuStreamSynchronize"));
	return ok == THREADS * ROUNDS * 4 ? 0 : 1;
}
