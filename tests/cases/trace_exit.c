/* SPDX-License-Identifier: MIT */
/* tests/cases/trace_exit.c: many calls from several threads, then the process ends by return, exit() from a thread, or _exit. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

#define THREADS 4
#define CALLS 30000 /* 1.4 MiB of records per thread: the spill file is used */

static const char *how;
static pthread_barrier_t done;

static void *worker(void *arg)
{
	int n;

	for (int i = 0; i < CALLS; i++)
		cuDeviceGetCount(&n);
	pthread_barrier_wait(&done);
	/* One worker ends the process while the others still run. */
	if (arg == (void *)0 && strcmp(how, "thread-exit") == 0)
		exit(0);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];

	CHECK(argc == 2);
	how = argv[1];
	CHECK(cuInit(0) == CUDA_SUCCESS);
	pthread_barrier_init(&done, NULL, THREADS + 1);
	for (long i = 0; i < THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0);
	pthread_barrier_wait(&done);
	if (strcmp(how, "thread-exit") == 0)
		for (;;)
			pause();
	if (strcmp(how, "_exit") == 0)
		_exit(0);
	return 0; /* "return": from main while the workers wait */
}
