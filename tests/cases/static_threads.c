/* SPDX-License-Identifier: MIT */
/* tests/cases/static_threads.c: a program with the runtime linked in that runs 16 threads, forks and execs itself, for exact counts. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

#define THREADS 16
#define ROUNDS 200

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		void *d = NULL;

		CHECK(cudaMalloc(&d, 64) == cudaSuccess);
		CHECK(cudaFree(d) == cudaSuccess);
	}
	return NULL;
}

static int exec_child(void)
{
	int dev = -1;

	for (int i = 0; i < 5; i++)
		CHECK(cudaGetDevice(&dev) == cudaSuccess);
	printf("exec'd child: device %d\n", dev);
	return 0;
}

static void fork_child(void)
{
	size_t f = 0, t = 0;

	for (int i = 0; i < 7; i++)
		CHECK(cudaMemGetInfo(&f, &t) == cudaSuccess);
	printf("forked child: %zu of %zu free\n", f, t);
	fflush(stdout);
	exit(0);
}

int main(int argc, char **argv)
{
	pthread_t th[THREADS];
	int dev = -1, status;
	pid_t a, b;

	if (argc > 1 && strcmp(argv[1], "exec") == 0)
		return exec_child();
	CHECK(cudaGetDevice(&dev) == cudaSuccess);
	for (int i = 0; i < THREADS; i++)
		CHECK(pthread_create(&th[i], NULL, worker, NULL) == 0);
	for (int i = 0; i < THREADS; i++)
		CHECK(pthread_join(th[i], NULL) == 0);
	printf("threads done: %d calls\n", THREADS * ROUNDS * 2);
	fflush(stdout);
	if ((a = fork()) == 0)
		fork_child();
	CHECK(a > 0 && waitpid(a, &status, 0) == a && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if ((b = fork()) == 0) {
		execl("/proc/self/exe", argv[0], "exec", (char *)NULL);
		_exit(127);
	}
	CHECK(b > 0 && waitpid(b, &status, 0) == b && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	printf("parent done\n");
	return 0;
}
