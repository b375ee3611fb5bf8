/* SPDX-License-Identifier: MIT */
/* tests/cases/live_rt_prog.c: the live view in a program that names only the runtime (the driver is loaded by the runtime, at its first call), and in one that loads the driver and names none of its functions. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include "common.h"

static pthread_barrier_t barrier;

static void wait_file(const char *path)
{
	while (access(path, F_OK) != 0)
		usleep(2000);
}

/* Each thread's calls are all made together with the others' first calls, and none after. */
static void *thread(void *arg)
{
	int n = (int)(long)arg;

	pthread_barrier_wait(&barrier);
	for (int i = 0; i < n; i++)
		CHECK(cudaGetLastError() == cudaSuccess);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];

	/* execto PROG...: no CUDA call at all, then an exec of another program. */
	if (argc > 2 && strcmp(argv[1], "execto") == 0) {
		execvp(argv[2], argv + 2);
		perror("execvp");
		return 1;
	}
	if (argc < 4 || strcmp(argv[1], "rtfirstcalls") != 0) {
		fprintf(stderr, "usage: live_rt_prog rtfirstcalls N GO\n");
		return 2;
	}
	/* 64 threads make argv[2] runtime calls each, all at once, and end; then
	   "PID rtfirstcalls done" and wait for file argv[3]. */
	CHECK(pthread_barrier_init(&barrier, NULL, 64) == 0);
	for (int i = 0; i < 64; i++)
		CHECK(pthread_create(&t[i], NULL, thread, (void *)(long)atoi(argv[2])) == 0);
	for (int i = 0; i < 64; i++)
		pthread_join(t[i], NULL);
	printf("%d rtfirstcalls done\n", (int)getpid());
	fflush(stdout);
	wait_file(argv[3]);
	return 0;
}
