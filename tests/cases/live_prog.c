/* SPDX-License-Identifier: MIT */
/* tests/cases/live_prog.c: the live view's workloads on the mock: a thread hung in a synchronisation, thread churn, fork, capture on demand. */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include "common.h"

static CUstream stream;

static void setup(void)
{
	CUdevice dev;
	CUcontext ctx;

	CHECK(cuInit(0) == CUDA_SUCCESS);
	CHECK(cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
	CHECK(cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS);
	CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
	CHECK(cuStreamCreate(&stream, 0) == CUDA_SUCCESS);
}

static void calls(int n)
{
	int count;

	for (int i = 0; i < n; i++)
		CHECK(cuDeviceGetCount(&count) == CUDA_SUCCESS);
}

static void wait_file(const char *path)
{
	while (access(path, F_OK) != 0)
		usleep(2000);
}

static void *sync_thread(void *arg)
{
	(void)arg;
	setup();
	calls(3);
	printf("blocking\n");
	fflush(stdout);
	/* Blocks while MOCK_BLOCK_FILE exists. */
	CHECK(cuStreamSynchronize(stream) == CUDA_SUCCESS);
	return NULL;
}

static void *churn_thread(void *arg)
{
	calls((int)(long)arg);
	return NULL;
}

/* forkinside: SIGUSR1 lands while the main thread is inside cuStreamSynchronize; its
   handler forks, and the child lets its copy of the call return and ends. The parent's call is still in flight. */
static void fork_in_handler(int sig)
{
	(void)sig;
	if (fork() == 0) {
		/* The mock's wait holds the variable's string: emptied here, in the child's own
		   copy of the memory, the path names nothing and the child's call returns. */
		char *path = getenv("MOCK_BLOCK_FILE");

		if (path)
			path[0] = '\0';
		return; /* back into the call */
	}
}

/* handler: SIGUSR1 lands while the main thread is inside cuStreamSynchronize; its handler
   makes three calls of its own and says so, the call it interrupted still blocked. */
static void calls_in_handler(int sig)
{
	static const char done[] = "handler done\n";

	(void)sig;
	calls(3);
	if (write(1, done, sizeof(done) - 1) < 0)
		_exit(3);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (strcmp(mode, "forkinside") == 0) {
		pid_t parent = getpid();

		setup();
		calls(3);
		signal(SIGUSR1, fork_in_handler);
		printf("blocking\n");
		fflush(stdout);
		CHECK(cuStreamSynchronize(stream) == CUDA_SUCCESS);
		if (getpid() != parent) {
			printf("child returned\n");
			fflush(stdout);
			_exit(0);
		}
		while (wait(NULL) > 0)
			;
		printf("unblocked\n");
		return 0;
	}

	if (strcmp(mode, "handler") == 0) {
		setup();
		calls(3);
		signal(SIGUSR1, calls_in_handler);
		printf("blocking\n");
		fflush(stdout);
		CHECK(cuStreamSynchronize(stream) == CUDA_SUCCESS);
		printf("unblocked\n");
		return 0;
	}
	if (strcmp(mode, "noargs") == 0) {
		/* Functions without arguments (no argument struct): the view copies nothing. */
		CHECK(cuInit(0) == CUDA_SUCCESS);
		CHECK(cudaGetLastError() == cudaSuccess);
		CHECK(cudaDeviceSynchronize() == cudaSuccess);
		printf("done\n");
		return 0;
	}
	if (strcmp(mode, "fields") == 0) {
		/* One call of each kind a record tells apart, then a call of four arguments that
		   hangs while MOCK_BLOCK_FILE exists. */
		CUdevice bad;
		CUdeviceptr d;
		void *p = NULL;

		setup();
		/* The runtime at depth 0 (PLT), its driver call at depth 1 (cuGetProcAddress). */
		CHECK(cudaMalloc(&p, 4096) == cudaSuccess);
		CHECK(cuDeviceGet(&bad, 99) == CUDA_ERROR_INVALID_DEVICE);
		CHECK(cuMemAlloc(&d, 4096) == CUDA_SUCCESS);
		printf("blocking\n");
		fflush(stdout);
		CHECK(cuMemsetD32Async(d, 0xC0FFEEu, 777, stream) == CUDA_SUCCESS);
		printf("unblocked\n");
		return 0;
	}
	if (strcmp(mode, "block") == 0) {
		/* A helper thread hangs in cuStreamSynchronize; main waits for it. */
		pthread_t t;

		setup();
		calls(10);
		CHECK(pthread_create(&t, NULL, sync_thread, NULL) == 0);
		pthread_join(t, NULL);
		printf("unblocked\n");
		return 0;
	}
	if (strcmp(mode, "churn") == 0) {
		/* argv[2] waves of 64 threads, each making argv[3] calls: slots are reused. */
		int waves = argc > 2 ? atoi(argv[2]) : 4, n = argc > 3 ? atoi(argv[3]) : 100;

		setup();
		for (int w = 0; w < waves; w++) {
			pthread_t t[64];

			for (int i = 0; i < 64; i++)
				CHECK(pthread_create(&t[i], NULL, churn_thread, (void *)(long)n) == 0);
			for (int i = 0; i < 64; i++)
				pthread_join(t[i], NULL);
		}
		printf("churn done\n");
		fflush(stdout);
		if (argc > 4)
			wait_file(argv[4]);
		return 0;
	}
	if (strcmp(mode, "fork") == 0) {
		/* Parent and child each block in a synchronisation of their own. */
		pid_t child;
		int st;

		setup();
		calls(5);
		child = fork();
		CHECK(child >= 0);
		if (child == 0) {
			calls(7);
			printf("child %d blocking\n", (int)getpid());
			fflush(stdout);
			CHECK(cuStreamSynchronize(stream) == CUDA_SUCCESS);
			exit(0);
		}
		printf("parent %d blocking\n", (int)getpid());
		fflush(stdout);
		CHECK(cuStreamSynchronize(stream) == CUDA_SUCCESS);
		CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0);
		printf("fork done\n");
		return 0;
	}
	if (strcmp(mode, "phases") == 0) {
		/* argv[2] calls, wait for file argv[3], argv[2] more on two threads, wait for
		   argv[4], argv[2] more: `cuaudit ctl` switches the trace between the phases. */
		int n = atoi(argv[2]);
		pthread_t t;

		setup();
		calls(n);
		printf("phase 1 done\n");
		fflush(stdout);
		wait_file(argv[3]);
		CHECK(pthread_create(&t, NULL, churn_thread, (void *)(long)n) == 0);
		calls(n);
		pthread_join(t, NULL);
		printf("phase 2 done\n");
		fflush(stdout);
		wait_file(argv[4]);
		calls(n);
		printf("phase 3 done\n");
		return 0;
	}
	if (strcmp(mode, "calls") == 0) {
		/* 4 MiB held on the device, argv[2] calls, then wait for file argv[3] (if given). */
		CUdeviceptr a, b;

		setup();
		CHECK(cuMemAlloc(&a, 1 << 20) == CUDA_SUCCESS);
		CHECK(cuMemAlloc(&b, 4 << 20) == CUDA_SUCCESS);
		CHECK(cuMemFree(a) == CUDA_SUCCESS);
		calls(atoi(argv[2]));
		printf("calls done\n");
		fflush(stdout);
		if (argc > 3)
			wait_file(argv[3]);
		return 0;
	}
	if (strcmp(mode, "exec") == 0) {
		/* argv[2] calls, then the same program (same pid, same start time) makes its own
		   calls and waits for argv[3]. */
		char *args[] = { argv[0], "calls", "5", argv[3], NULL };

		setup();
		calls(atoi(argv[2]));
		execv("/proc/self/exe", args);
		perror("execv");
		return 1;
	}
	fprintf(stderr, "usage: live_prog block|forkinside|churn|fork|phases|calls|exec ...\n");
	return 2;
}
