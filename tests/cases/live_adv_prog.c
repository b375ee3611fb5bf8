/* SPDX-License-Identifier: MIT */
/* tests/cases/live_adv_prog.c: workloads of the adversarial live-view cases (live_adv.sh): a failing exec, an exec into a program without CUDA, a cancelled thread, a burst of threads beyond the slots, a steady caller. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cuda.h>

static CUstream stream;

static void setup(void)
{
	CUdevice dev;
	CUcontext ctx;

	cuInit(0);
	cuDeviceGet(&dev, 0);
	cuDevicePrimaryCtxRetain(&ctx, dev);
	cuCtxSetCurrent(ctx);
	cuStreamCreate(&stream, 0);
}

static void calls(long n)
{
	int c;

	for (long i = 0; i < n; i++)
		cuDeviceGetCount(&c);
}

static void wait_file(const char *p)
{
	while (access(p, F_OK) != 0)
		usleep(2000);
}

static void say(const char *s)
{
	printf("%s\n", s);
	fflush(stdout);
}

/* A thread that blocks in a synchronisation (MOCK_BLOCK_FILE) with a context of its own. */
static void block_in_sync(void)
{
	CUdevice d;
	CUcontext c;

	cuDeviceGet(&d, 0);
	cuDevicePrimaryCtxRetain(&c, d);
	cuCtxSetCurrent(c);
	cuStreamSynchronize(stream);
}

static void *blocker(void *a)
{
	(void)a;
	block_in_sync();
	return NULL;
}

static pthread_barrier_t bar;
static long burst_every;
static int burst_ended; /* set by main once it joined every thread that ends */

/* burst: every thread makes its first call while all are alive; then all but every
   burst_every-th end, and those block in a call once the others are joined (their slots
   free whatever the load) and more than the 100 ms between two tries has passed. */
static void *burster(void *a)
{
	long i = (long)a;

	cuCtxSetCurrent(NULL);
	pthread_barrier_wait(&bar);
	if (i % burst_every != 0)
		return NULL;
	while (!__atomic_load_n(&burst_ended, __ATOMIC_ACQUIRE))
		usleep(2000);
	usleep(150000);
	block_in_sync();
	return NULL;
}

static pthread_barrier_t bar2;
static long untracked_calls;

/* untracked: every thread attaches while all are alive (some find no slot), then each makes
   untracked_calls calls, quickly (well within 100 ms without system calls). */
static void *untracked(void *a)
{
	(void)a;
	cuCtxSetCurrent(NULL);
	pthread_barrier_wait(&bar);
	calls(untracked_calls);
	pthread_barrier_wait(&bar2);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (strcmp(m, "calls") == 0 && argc == 4) { /* N calls, then wait for argv[3] */
		setup();
		calls(atol(argv[2]));
		say("ready");
		wait_file(argv[3]);
		return 0;
	}
	if (strcmp(m, "loop") == 0 && argc == 3) { /* a call every millisecond until argv[2] */
		setup();
		say("ready");
		while (access(argv[2], F_OK) != 0) {
			calls(1);
			usleep(1000);
		}
		return 0;
	}
	if (strcmp(m, "execfail") == 0 && argc == 3) { /* an exec that fails, then calls */
		char *a[] = { "/etc/passwd", NULL };

		setup();
		calls(10);
		execv("/etc/passwd", a);
		calls(10);
		say("ready");
		wait_file(argv[2]);
		return 0;
	}
	if (strcmp(m, "execto") == 0 && argc > 2) { /* calls, then exec argv[2...] */
		setup();
		calls(10);
		execvp(argv[2], argv + 2);
		perror("execvp");
		return 1;
	}
	if (strcmp(m, "cancel") == 0 && argc == 3) { /* a thread blocked in a call is cancelled */
		pthread_t t;

		setup();
		pthread_create(&t, NULL, blocker, NULL);
		usleep(300000);
		pthread_cancel(t);
		pthread_join(t, NULL);
		say("ready");
		wait_file(argv[2]);
		return 0;
	}
	if (strcmp(m, "mainexit") == 0) { /* main ends by pthread_exit; a thread blocks in a call */
		pthread_t t;

		setup();
		pthread_create(&t, NULL, blocker, NULL);
		usleep(200000);
		say("ready");
		pthread_exit(NULL);
	}
	if (strcmp(m, "burst") == 0 && argc == 5) { /* argv[2] threads at once, every argv[3]-th blocks after */
		long n = atol(argv[2]);
		pthread_t *ts = calloc((size_t)n, sizeof(*ts));

		burst_every = atol(argv[3]);
		setup();
		pthread_barrier_init(&bar, NULL, (unsigned)n);
		for (long i = 0; i < n; i++)
			pthread_create(&ts[i], NULL, burster, (void *)i);
		for (long i = 0; i < n; i++)
			if (i % burst_every != 0)
				pthread_join(ts[i], NULL);
		__atomic_store_n(&burst_ended, 1, __ATOMIC_RELEASE);
		say("ready");
		wait_file(argv[4]);
		return 0;
	}
	if (strcmp(m, "untracked") == 0 && argc == 4) { /* argv[2] threads, argv[3] calls each */
		long n = atol(argv[2]);
		pthread_t *ts = calloc((size_t)n, sizeof(*ts));

		untracked_calls = atol(argv[3]);
		setup();
		pthread_barrier_init(&bar, NULL, (unsigned)n);
		pthread_barrier_init(&bar2, NULL, (unsigned)n);
		for (long i = 0; i < n; i++)
			pthread_create(&ts[i], NULL, untracked, (void *)i);
		for (long i = 0; i < n; i++)
			pthread_join(ts[i], NULL);
		say("ready");
		return 0;
	}
	fprintf(stderr, "usage: live_adv_prog calls N FILE|loop FILE|execfail FILE|execto PROG...|cancel FILE|mainexit|burst T K FILE\n");
	return 2;
}
