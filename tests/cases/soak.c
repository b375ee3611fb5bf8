/* SPDX-License-Identifier: MIT */
/* tests/cases/soak.c: N threads make M driver calls each; prints the totals and the peak resident memory (to stderr). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

static long calls_per_thread;

static void *worker(void *arg)
{
	long ok = 0;
	int n;

	(void)arg;
	for (long i = 0; i < calls_per_thread; i++)
		ok += cuDeviceGetCount(&n) == CUDA_SUCCESS && n == 1;
	return (void *)ok;
}

int main(int argc, char **argv)
{
	int threads;
	pthread_t t[256];
	long ok = 0;
	char line[256];
	FILE *f;

	CHECK(argc == 3);
	threads = atoi(argv[1]);
	calls_per_thread = atol(argv[2]);
	CHECK(threads > 0 && threads <= 256);
	CHECK(cuInit(0) == CUDA_SUCCESS);
	for (int i = 0; i < threads; i++)
		CHECK(pthread_create(&t[i], NULL, worker, NULL) == 0);
	for (int i = 0; i < threads; i++) {
		void *r;

		pthread_join(t[i], &r);
		ok += (long)r;
	}
	printf("successful calls: %ld of %ld\n", ok, threads * calls_per_thread);
	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			fprintf(stderr, "peak_rss_kib=%ld\n", atol(line + 6));
	if (f)
		fclose(f);
	return ok == threads * calls_per_thread ? 0 : 1;
}
