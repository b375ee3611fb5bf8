/* SPDX-License-Identifier: MIT */
/* tests/cases/gpu_lock.c: GPU timing under hostile timing: exit and CUDA calls from signal handlers inside the hook, a fork while another thread is inside it, a device reset, captures kept open and abandoned. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common.h"
#include "mockstate.h"

static CUfunction add_one;
static CUdeviceptr dev;
static int host[64];

static CUresult launch(CUstream s, unsigned grid)
{
	int n = 64;
	void *params[] = { &dev, &n };

	return cuLaunchKernel(add_one, grid, 1, 1, 64, 1, 1, 0, s, params, NULL);
}

static void say(const char *text)
{
	if (write(1, text, strlen(text)) < 0)
		_exit(5);
}

/* sigexit: the handler ends the program from inside whatever its thread was doing. */
static void exit_handler(int sig)
{
	(void)sig;
	say("handler: exit(3)\n");
	exit(3);
}

/* sigcopy: the handler makes an async copy from inside whatever its thread was doing. */
static void copy_handler(int sig)
{
	(void)sig;
	say(cuMemcpyHtoDAsync_v2(dev, host, sizeof(host), NULL) == CUDA_SUCCESS ? "handler: copy 0\n"
										  : "handler: copy failed\n");
}

/* jump: the handler jumps out of whatever call its thread was in. */
static sigjmp_buf jump_env;

static void jump_handler(int sig)
{
	(void)sig;
	siglongjmp(jump_env, 1);
}

/* Not in any header: what one block of a kernel's grid lasts on the mock GPU. */
CUresult cuMockKernelUnitNs(unsigned long long ns);

static void launch_or_jump(int i)
{
	if (sigsetjmp(jump_env, 1) == 0)
		CHECK(launch(NULL, 1) == CUDA_SUCCESS);
	else
		printf("launch %d: jumped out\n", i);
}

/* lockjump: a handler jumps out of cuaudit's own driver call made with one of its locks
   held (MOCK_TRIP says which); launches follow from the same thread, then from another
   thread on the same context, then from the first again. */
static CUcontext lockjump_ctx;

static void *other_launches(void *arg)
{
	struct timespec t0, t1;

	(void)arg;
	CHECK(cuCtxSetCurrent(lockjump_ctx) == CUDA_SUCCESS);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 50; i++)
		CHECK(launch(NULL, 1) == CUDA_SUCCESS);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("other thread: 50 launches\n");
	fprintf(stderr, "other thread: 50 launches in %ld ms\n",
		(long)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000));
	return NULL;
}

static void other_thread(void)
{
	pthread_t t;

	CHECK(pthread_create(&t, NULL, other_launches, NULL) == 0);
	CHECK(pthread_join(t, NULL) == 0);
}

/* nest: the handler makes 20 launches inside the launch it interrupted, on an alternate
   stack above the thread's own (a thread whose stack is in the program's data), and
   returns. */
static char low_stack[1 << 20] __attribute__((aligned(4096)));
static CUcontext nest_ctx;

static void launches_handler(int sig)
{
	(void)sig;
	for (int i = 0; i < 20; i++)
		if (launch(NULL, 1) != CUDA_SUCCESS)
			_exit(6);
	say("handler: 20 launches\n");
}

static void *nest_thread(void *arg)
{
	struct sigaction sa;
	stack_t alt = { .ss_size = 1 << 18 };

	(void)arg;
	alt.ss_sp = mmap(NULL, alt.ss_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			 0);
	CHECK(alt.ss_sp != MAP_FAILED);
	CHECK((uintptr_t)alt.ss_sp > (uintptr_t)low_stack);
	CHECK(sigaltstack(&alt, NULL) == 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = launches_handler;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
	CHECK(cuCtxSetCurrent(nest_ctx) == CUDA_SUCCESS);
	CHECK(cuMockKernelUnitNs(1000) == CUDA_SUCCESS);
	for (int i = 0; i < 101; i++)
		CHECK(launch(NULL, 1) == CUDA_SUCCESS);
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
}

/* fork: a thread sets up a second context's pool, and stays inside it (MOCK_TRIP sleeps
   in one of its event creations) while the main thread forks. */
static void *second_context(void *arg)
{
	CUcontext c;
	CUdevice d = 0;

	(void)arg;
	CHECK(cuCtxCreate_v4(&c, NULL, 0, d) == CUDA_SUCCESS);
	CHECK(cuCtxSetCurrent(c) == CUDA_SUCCESS);
	CHECK(launch(NULL, 2) == CUDA_SUCCESS);
	return NULL;
}

static int fork_inside(void)
{
	pthread_t t;
	pid_t pid;
	int st = 0;

	CHECK(launch(NULL, 3) == CUDA_SUCCESS);
	CHECK(pthread_create(&t, NULL, second_context, NULL) == 0);
	/* Under cuaudit, until the other thread is inside the hook (MOCK_TRIP stops it in
	   one of the pool's event creations); natively there is nothing to wait for. */
	if (getenv("MOCK_TRIP")) {
		for (int i = 0; i < 10000 && mock_calls("mock_trip") < 1; i++)
			sleep_ms(1);
		CHECK(mock_calls("mock_trip") == 1);
	}
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		if (launch(NULL, 9) != CUDA_SUCCESS)
			_exit(4);
		exit(0);
	}
	/* The child's own exit is bounded: 10 s, then it is called hung. */
	for (int i = 0; i < 1000 && waitpid(pid, &st, WNOHANG) == 0; i++)
		sleep_ms(10);
	if (waitpid(pid, &st, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		printf("child hung\n");
		return 1;
	}
	printf("child exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	CHECK(pthread_join(t, NULL) == 0);
	return 0;
}

/* reset: 5 launches, a reset of the primary context, 20 launches; then a created context
   with 3 launches, destroyed, and a new one (the same handle) with 4 launches. */
static void reset(CUcontext primary, CUdevice d)
{
	CUcontext c;

	for (int i = 0; i < 5; i++)
		CHECK(launch(NULL, 1) == CUDA_SUCCESS);
	CHECK(cuDevicePrimaryCtxReset_v2(d) == CUDA_SUCCESS);
	CHECK(cuDevicePrimaryCtxRetain(&primary, d) == CUDA_SUCCESS);
	CHECK(cuCtxSetCurrent(primary) == CUDA_SUCCESS);
	for (int i = 0; i < 20; i++)
		CHECK(launch(NULL, 1) == CUDA_SUCCESS);
	CHECK(cuCtxCreate_v4(&c, NULL, 0, d) == CUDA_SUCCESS);
	CHECK(cuCtxSetCurrent(c) == CUDA_SUCCESS);
	for (int i = 0; i < 3; i++)
		CHECK(launch(NULL, 2) == CUDA_SUCCESS);
	CHECK(cuCtxDestroy_v2(c) == CUDA_SUCCESS);
	CHECK(cuCtxCreate_v4(&c, NULL, 0, d) == CUDA_SUCCESS);
	CHECK(cuCtxSetCurrent(c) == CUDA_SUCCESS);
	for (int i = 0; i < 4; i++)
		CHECK(launch(NULL, 2) == CUDA_SUCCESS);
}

/* capture: a capture in the global mode, begun before any timed work, stays open while 10
   launches go to the legacy stream, and ends; a second one is abandoned (its stream
   destroyed without an end), and 10 launches follow. */
static void captures(void)
{
	CUstream s;
	CUgraph g = NULL;

	CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
	CHECK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
	for (int i = 0; i < 10; i++)
		CHECK(launch(NULL, 1) == CUDA_SUCCESS);
	/* The mock ends a global capture at any query made outside the relaxed mode. */
	printf("end capture -> %d\n", (int)cuStreamEndCapture(s, &g));
	CHECK(cuStreamDestroy_v2(s) == CUDA_SUCCESS);
	CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
	CHECK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
	CHECK(cuStreamDestroy_v2(s) == CUDA_SUCCESS);
	for (int i = 0; i < 10; i++)
		CHECK(launch(NULL, 1) == CUDA_SUCCESS);
}

/* modejump, modenest: the thread sets its capture mode to thread-local and begins a
   global-mode capture; 16 launches go to the legacy stream, the 8th of which harvests,
   where MOCK_TRIP raises a signal inside cuaudit's first event query, made with the
   thread's mode switched to relaxed. modejump: the handler jumps out of it; modenest: it
   makes an async copy and returns. Then the thread's mode is read (and the capture ended):
   the program's own mode, thread-local (1), never relaxed (2). */
static void mode_after_a_signal(int jump)
{
	CUstreamCaptureMode m = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
	CUstream s;
	CUgraph g = NULL;

	if (jump)
		signal(SIGUSR2, jump_handler);
	else
		signal(SIGUSR1, copy_handler);
	CHECK(cuThreadExchangeStreamCaptureMode(&m) == CUDA_SUCCESS);
	CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
	CHECK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
	for (int i = 0; i < 16; i++)
		launch_or_jump(i);
	m = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
	CHECK(cuThreadExchangeStreamCaptureMode(&m) == CUDA_SUCCESS);
	printf("thread's mode %d\n", (int)m);
	printf("end capture -> %d\n", (int)cuStreamEndCapture(s, &g));
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	CUcontext ctx;
	CUdevice d;
	CUmodule mod = NULL;
	int rc = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	CHECK(cuInit(0) == CUDA_SUCCESS);
	CHECK(cuDeviceGet(&d, 0) == CUDA_SUCCESS);
	CHECK(cuDevicePrimaryCtxRetain(&ctx, d) == CUDA_SUCCESS);
	CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
	CHECK(cuModuleGetFunction(&add_one, mod, "_Z7add_onePii") == CUDA_SUCCESS);
	CHECK(cuMemAlloc_v2(&dev, 8192) == CUDA_SUCCESS);
	if (strcmp(mode, "sigexit") == 0) {
		/* 16 launches: the 8th harvests, inside the hook, where MOCK_TRIP raises. */
		signal(SIGTERM, exit_handler);
		for (int i = 0; i < 16; i++)
			CHECK(launch(NULL, 1) == CUDA_SUCCESS);
	} else if (strcmp(mode, "sigcopy") == 0) {
		/* 3 launches, harvested by the exit drain, where MOCK_TRIP raises. */
		signal(SIGUSR1, copy_handler);
		for (int i = 0; i < 3; i++)
			CHECK(launch(NULL, 1) == CUDA_SUCCESS);
	} else if (strcmp(mode, "jump") == 0) {
		/* The first launch raises SIGUSR2 inside the driver (MOCK_TRIP), whose handler
		   jumps out of it; 2000 launches of 1 us follow, from the same place. */
		signal(SIGUSR2, jump_handler);
		CHECK(cuMockKernelUnitNs(1000) == CUDA_SUCCESS);
		for (int i = 0; i < 2001; i++)
			launch_or_jump(i);
	} else if (strcmp(mode, "lockjump") == 0 || strcmp(mode, "lockjump_first") == 0) {
		/* lockjump: 116 launches, 50 from another thread, 10; lockjump_first: 8 (the last jumped out of), 50
		   from another thread before the first thread's next call, 10, 50 again. */
		int first = mode[8] == '_';

		signal(SIGUSR2, jump_handler);
		CHECK(cuMockKernelUnitNs(1000) == CUDA_SUCCESS);
		lockjump_ctx = ctx;
		for (int i = 0; i < (first ? 8 : 116); i++)
			launch_or_jump(i);
		other_thread();
		for (int i = 116; i < 126; i++)
			launch_or_jump(i);
		if (first)
			other_thread();
	} else if (strcmp(mode, "nest") == 0) {
		pthread_attr_t a;
		pthread_t t;

		nest_ctx = ctx;
		CHECK(pthread_attr_init(&a) == 0);
		CHECK(pthread_attr_setstack(&a, low_stack, sizeof(low_stack)) == 0);
		CHECK(pthread_create(&t, &a, nest_thread, NULL) == 0);
		CHECK(pthread_join(t, NULL) == 0);
	} else if (strcmp(mode, "fork") == 0) {
		rc = fork_inside();
	} else if (strcmp(mode, "reset") == 0) {
		reset(ctx, d);
	} else if (strcmp(mode, "capture") == 0) {
		captures();
	} else if (strcmp(mode, "modejump") == 0 || strcmp(mode, "modenest") == 0) {
		mode_after_a_signal(mode[4] == 'j');
	} else {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	fprintf(stderr, "mock dead handle calls %ld\n", mock_calls("mock_dead_handle"));
	printf("end\n");
	return rc;
}
