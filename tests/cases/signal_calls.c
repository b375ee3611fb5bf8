/* SPDX-License-Identifier: MIT */
/* tests/cases/signal_calls.c: a signal handler that calls CUDA, firing again and again while the thread is inside wrapped calls. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

/* signal_calls sigaction|signal N COUNTFILE: calls on the main thread, at least N and until
   the handler has run 300 times, while another thread sends it SIGUSR1 every few
   microseconds; the handler makes one call that succeeds (the same function as the loop's)
   and one that fails. What the program prints is the same every run; how many calls the
   loop made and how often the handler ran go to COUNTFILE. */
static volatile sig_atomic_t runs;
static volatile int done;
static pthread_t main_thread;

static void handler(int sig)
{
	int n;
	CUdevice d;

	(void)sig;
	if (cuDeviceGetCount(&n) != CUDA_SUCCESS || cuDeviceGet(&d, 9999) != CUDA_ERROR_INVALID_DEVICE)
		_exit(3);
	runs++;
}

static void *sender(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		pthread_kill(main_thread, SIGUSR1);
		usleep(5);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa, old;
	pthread_t t;
	long count, made = 0;
	int n;
	FILE *f;

	CHECK(argc == 4);
	count = atol(argv[2]);
	CHECK(cuInit(0) == CUDA_SUCCESS);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (strcmp(argv[1], "signal") == 0)
		CHECK(signal(SIGUSR1, handler) == SIG_DFL);
	else
		CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	/* The program sees its own handler and flags back, never a stand-in. */
	CHECK(sigaction(SIGUSR1, NULL, &old) == 0);
	printf("handler is ours: %d, SA_SIGINFO: %d\n", old.sa_handler == handler,
	       (old.sa_flags & SA_SIGINFO) != 0);
	main_thread = pthread_self();
	CHECK(pthread_create(&t, NULL, sender, NULL) == 0);
	for (long i = 0; i < count || runs < 300; i++, made++)
		CHECK(cuDeviceGetCount(&n) == CUDA_SUCCESS);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	CHECK(pthread_join(t, NULL) == 0);
	/* Handlers after this point would race the count: block the signal first. */
	signal(SIGUSR1, SIG_IGN);
	f = fopen(argv[3], "w");
	CHECK(f != NULL);
	fprintf(f, "%ld %ld\n", made, (long)runs);
	fclose(f);
	printf("%ld calls done\n", count);
	return runs > 0 ? 0 : 2;
}
