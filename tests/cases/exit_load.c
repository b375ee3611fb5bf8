/* SPDX-License-Identifier: MIT */
/* tests/cases/exit_load.c: a worker calls the driver in a loop; SIGTERM's handler calls exit() on it (or on main) after DELAY_US. */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

static void on_term(int sig)
{
	(void)sig;
	exit(0);
}

static int worker_takes_it;

static void *worker(void *arg)
{
	sigset_t s;
	CUcontext ctx;
	int n;

	(void)arg;
	sigemptyset(&s);
	sigaddset(&s, SIGTERM);
	pthread_sigmask(worker_takes_it ? SIG_UNBLOCK : SIG_BLOCK, &s, NULL);
	for (;;) {
		cuCtxGetCurrent(&ctx);
		cuDeviceGetCount(&n);
	}
	return NULL;
}

/* exit_load worker|main DELAY_US: the thread named takes SIGTERM, sent DELAY_US after the
   worker started; the other blocks it. */
int main(int argc, char **argv)
{
	struct sigaction sa;
	sigset_t s;
	pthread_t t;

	CHECK(argc == 3);
	worker_takes_it = strcmp(argv[1], "worker") == 0;
	CHECK(worker_takes_it || strcmp(argv[1], "main") == 0);
	CHECK(cuInit(0) == CUDA_SUCCESS);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&s);
	sigaddset(&s, SIGTERM);
	pthread_sigmask(worker_takes_it ? SIG_BLOCK : SIG_UNBLOCK, &s, NULL);
	CHECK(pthread_create(&t, NULL, worker, NULL) == 0);
	usleep((useconds_t)atol(argv[2]));
	kill(getpid(), SIGTERM);
	for (;;)
		pause();
}
