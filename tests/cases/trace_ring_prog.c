/* SPDX-License-Identifier: MIT */
/* tests/cases/trace_ring_prog.c: calls whose trace must be the same with the live view on and off: many mixed calls, runtime calls nesting driver calls, more threads than the view's slots, threads alive at exit, signal handlers (one making three rings of calls, one inside the trace's own update), a kill after a flush, a fork, a profiler range, calls at the edge of the ring's room. */
#include <cudaProfiler.h>
#include <cuda_runtime_api.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cuaudit_args.h"
#include "cuaudit_ids.h"
#include "common.h"
#include "livefmt.h"
#include "mockstate.h"

/* Every mode prints "calls N": the wrapped calls it made itself (the runtime's own driver
   calls excepted: mode nested prints the mock's count of those). Arguments change from call
   to call (an ordinal, a size, a string), so that a record lost, repeated, swapped or
   altered shows in the sequence a test compares. Each thread names itself before its first
   call: the name is the thread's stable key, since thread ids differ from run to run. */

/* CHECK(cond), counting the call it makes in n. */
#define CHECKED(n, cond)                                                                       \
	do {                                                                                   \
		CHECK(cond);                                                                   \
		(n)++;                                                                         \
	} while (0)

/* One call of cuDeviceGet with that ordinal (its result is the mock's): returns 1. */
static long device_get(int ordinal)
{
	CUdevice dev;

	(void)cuDeviceGet(&dev, ordinal);
	return 1;
}

/* Installs handler for sig with SA_SIGINFO and flags, nothing more blocked while it runs. */
static void on_signal(int sig, void (*handler)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(sig, &sa, NULL) == 0);
}

static long made; /* calls of the main thread, or of the only thread making them */

static void name_thread(const char *fmt, int i)
{
	char name[16];

	snprintf(name, sizeof(name), fmt, i);
	prctl(PR_SET_NAME, name, 0, 0, 0);
}

/* What this process's live region says (rt/livefmt.h): that the view is on, with how many
   records per slot, and how many threads found no slot now. "live none" where there is
   no region (the view is off). */
static void show_live(void)
{
	const char *dir = getenv("CUAUDIT_LIVE_DIR");
	struct cua_live_head h;
	char prefix[32], path[4096];
	struct dirent *d;
	DIR *dp = dir ? opendir(dir) : NULL;
	int fd = -1;

	snprintf(prefix, sizeof(prefix), "%d-", (int)getpid());
	while (dp && (d = readdir(dp)) && fd < 0)
		if (strncmp(d->d_name, prefix, strlen(prefix)) == 0) {
			snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
			fd = open(path, O_RDONLY);
		}
	if (dp)
		closedir(dp);
	if (fd >= 0 && pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h))
		printf("live ncalls %u untracked %u\n", h.ncalls, h.untracked);
	else
		printf("live none\n");
	if (fd >= 0)
		close(fd);
}

/* ---------------------------------------------------------------- mixed calls */

static int buf_in[64], buf_out[64];

/* One round of calls of every kind the trace keeps apart: out-values (ints, pointers,
   strings), string arguments (one longer than the 63 bytes kept), launches with kernel
   names, an argument struct holding a 64-byte struct by value (80 bytes, the largest the
   mock has), calls that fail. Returns how many calls it made. */
static long mixed_round(long i)
{
	static const char *const kernels[] = { "_Z10vec_doublePiPKii", "_Z7add_onePii" };
	CUfunction f = NULL;
	CUdeviceptr p = 0, ipc = 0;
	CUipcMemHandle h;
	const char *s = NULL;
	void *fn = NULL;
	CUdriverProcAddressQueryResult status;
	char missing[128];
	int n = 0, v = 0, count = (int)(i % 60) + 1;
	long calls = 0;

	CHECKED(calls, cuDeviceGetCount(&n) == CUDA_SUCCESS);
	calls += device_get((int)(i % 3));
	CHECKED(calls, cuModuleGetFunction(&f, NULL, kernels[i & 1]) == CUDA_SUCCESS);
	if (i & 1) {
		void *args[] = { &p, &count };

		CHECKED(calls, cuMemAlloc_v2(&p, sizeof(buf_in)) == CUDA_SUCCESS);
		CHECKED(calls, cuLaunchKernel(f, 1, 1, 1, (unsigned)(i % 64) + 1, 1, 1, (unsigned)i,
					      NULL, args, NULL) == CUDA_SUCCESS);
		CHECKED(calls, cuMemFree_v2(p) == CUDA_SUCCESS);
	} else {
		void *args[] = { &p, &p, &count };

		CHECKED(calls, cuMemAlloc_v2(&p, sizeof(buf_in) + (size_t)i) == CUDA_SUCCESS);
		CHECKED(calls, cuMemcpyHtoD_v2(p, buf_in, sizeof(buf_in)) == CUDA_SUCCESS);
		CHECKED(calls, cuLaunchKernel(f, (unsigned)(i % 4) + 1, 1, 1, 64, 1, 1, 0, NULL, args,
					      NULL) == CUDA_SUCCESS);
		CHECKED(calls, cuMemcpyDtoH_v2(buf_out, p, sizeof(buf_out)) == CUDA_SUCCESS);
		CHECKED(calls, cuMemFree_v2(p) == CUDA_SUCCESS);
	}
	/* A name that is not there, different each round; every 8th longer than 63 bytes. */
	snprintf(missing, sizeof(missing), "%s_missing_%ld%s", kernels[i & 1], i,
		 i % 8 == 0 ? "_and_a_tail_that_takes_this_string_well_past_sixty_three_bytes" : "");
	CHECKED(calls, cuModuleGetFunction(&f, NULL, missing) == CUDA_ERROR_NOT_FOUND);
	CHECKED(calls, cuGetErrorName((CUresult)(i % 3 == 0 ? 2 : 101), &s) == CUDA_SUCCESS);
	CHECKED(calls, cuDriverGetVersion(&v) == CUDA_SUCCESS);
	memset(&h, (int)(i & 0xff), sizeof(h));
	CHECKED(calls, cuIpcOpenMemHandle_v2(&ipc, h, (unsigned)(i % 2)) == CUDA_SUCCESS);
	CHECKED(calls, cuIpcCloseMemHandle(ipc) == CUDA_SUCCESS);
	/* A name the driver lacks succeeds too; the status (an out-value) says it is not found. */
	CHECKED(calls, cuGetProcAddress_v2(i % 5 ? "cuDeviceGetCount" : "cuNoSuchFunction", &fn,
					   12000, 0, &status) == CUDA_SUCCESS);
	return calls;
}

/* Mode mixed begins in the executable's constructor (glibc passes it the arguments), before
   main: calls made as early as a program can make them. */
__attribute__((constructor)) static void early_calls(int argc, char **argv)
{
	int n;

	if (argc < 2 || strcmp(argv[1], "mixed") != 0)
		return;
	name_thread("ring-main", 0);
	CHECKED(made, cuInit(0) == CUDA_SUCCESS);
	for (int i = 0; i < 3; i++)
		CHECKED(made, cuDeviceGetCount(&n) == CUDA_SUCCESS);
	made += device_get(77);
}

static int mixed(long rounds)
{
	for (long i = 0; i < rounds; i++)
		made += mixed_round(i);
	show_live();
	printf("calls %ld\n", made);
	return 0;
}

/* ---------------------------------------------------------------- runtime calls */

/* Each runtime call reaches the mock driver through pointers the runtime looked up (and
   cuaudit wrapped): driver calls nested in runtime calls, one level deeper. */
static int nested(long rounds)
{
	/* The driver functions the program and the mock runtime call (cuaudit's own calls of
	   others, such as cuCtxGetDevice for the memory it counts, are no program's). */
	static const char *const drivers[] = { "cuInit", "cuDeviceGet", "cuDeviceGetCount",
					       "cuDevicePrimaryCtxRetain", "cuCtxSetCurrent",
					       "cuCtxGetDevice_v2", "cuGetProcAddress",
					       "cuGetProcAddress_v2", "cuMemAlloc_v2", "cuMemFree_v2",
					       "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuLaunchKernel" };
	int in[64], out[64], n = 64, dev = -1, count = 0;

	name_thread("ring-main", 0);
	for (int k = 0; k < n; k++)
		in[k] = k;
	for (long i = 0; i < rounds; i++) {
		void *d = NULL, *fn = NULL;
		void *args[] = { &d, &d, &n };
		dim3 grid = { (unsigned)(i % 3) + 1, 1, 1 }, block = { 64, 1, 1 };

		CHECKED(made, cudaGetDevice(&dev) == cudaSuccess);
		CHECKED(made, cudaMalloc(&d, 256 + (size_t)i) == cudaSuccess);
		CHECKED(made, cudaMemcpy(d, in, sizeof(in), cudaMemcpyHostToDevice) == cudaSuccess);
		CHECKED(made, cudaLaunchKernel((const void *)mock_double_kernel, grid, block, args, 0,
					       NULL) == cudaSuccess);
		CHECKED(made, cudaMemcpy(out, d, sizeof(out), cudaMemcpyDeviceToHost) == cudaSuccess);
		CHECKED(made, cudaFree(d) == cudaSuccess);
		CHECKED(made, cudaGetDeviceCount(&count) == cudaSuccess);
		CHECKED(made, cudaGetDriverEntryPointByVersion(i % 2 ? "cuMemAlloc" : "cuDeviceGetCount",
							       &fn, 12000, 0, NULL) == cudaSuccess);
		/* A driver call of the program's own between runtime calls. */
		CHECKED(made, cuDeviceGetCount(&count) == CUDA_SUCCESS);
	}
	show_live();
	printf("calls %ld\n", made);
	/* The driver functions' calls as the mock ran them, whoever made them. */
	for (unsigned k = 0; k < sizeof(drivers) / sizeof(drivers[0]); k++)
		printf("mock %s %ld\n", drivers[k], mock_calls(drivers[k]));
	return 0;
}

/* ---------------------------------------------------------------- threads */

static pthread_barrier_t all_alive, second_go, second_done;
static long per_thread;
static int half;

/* A worker's calls: the first names the thread's index (an ordinal no device has). */
static long worker_calls(int index, long count, long base)
{
	long calls = 0;
	int n;

	calls += device_get(1000000 + index);
	for (long k = 0; k < count; k++) {
		if (k % 2)
			CHECKED(calls, cuDeviceGetCount(&n) == CUDA_SUCCESS);
		else
			calls += device_get((int)(base + k));
	}
	return calls;
}

static void *serial_worker(void *arg)
{
	int index = (int)(long)arg;

	name_thread("ring-s%03d", index);
	return (void *)worker_calls(index, per_thread, 2000000 + 1000L * index);
}

/* Every worker is alive and past its first calls before any makes more: more threads than
   the view's slots at once. Then the first half make more calls and end; the second half,
   once they have ended, make a third round of calls: a thread that had no slot takes one
   of theirs then, in the middle of its life. */
static void *parallel_worker(void *arg)
{
	int index = (int)(long)arg;
	long calls;

	name_thread("ring-p%03d", index);
	calls = worker_calls(index, per_thread / 2, 3000000 + 1000L * index);
	pthread_barrier_wait(&all_alive);
	calls += worker_calls(index, per_thread - per_thread / 2, 4000000 + 1000L * index);
	if (index < half)
		return (void *)calls;
	pthread_barrier_wait(&second_go);
	calls += worker_calls(index, per_thread / 2, 5000000 + 1000L * index);
	pthread_barrier_wait(&second_done);
	return (void *)calls;
}

static int threads(int parallel, int count, long each)
{
	pthread_t *t = calloc((size_t)count, sizeof(*t));
	long total;
	void *r;

	CHECK(t != NULL);
	per_thread = each;
	name_thread("ring-main", 0);
	CHECKED(made, cuInit(0) == CUDA_SUCCESS);
	total = made;
	if (parallel) {
		/* The main thread waits with them: while they are all alive, how many found
		   no slot; and once the second half made their third round, how many still. */
		half = count / 2;
		CHECK(pthread_barrier_init(&all_alive, NULL, (unsigned)count + 1) == 0);
		CHECK(pthread_barrier_init(&second_go, NULL, (unsigned)(count - half) + 1) == 0);
		CHECK(pthread_barrier_init(&second_done, NULL, (unsigned)(count - half) + 1) == 0);
		for (int i = 0; i < count; i++)
			CHECK(pthread_create(&t[i], NULL, parallel_worker, (void *)(long)i) == 0);
		pthread_barrier_wait(&all_alive);
		show_live();
		for (int i = 0; i < half; i++) {
			CHECK(pthread_join(t[i], &r) == 0);
			total += (long)r;
		}
		/* A thread without a slot asks again at a call 100 ms after its last try
		   (CUA_LIVE_RETRY_NS): this waits for that time, nothing else. */
		usleep(150000);
		pthread_barrier_wait(&second_go);
		pthread_barrier_wait(&second_done);
		show_live();
		for (int i = half; i < count; i++) {
			CHECK(pthread_join(t[i], &r) == 0);
			total += (long)r;
		}
	} else {
		for (int i = 0; i < count; i++) {
			CHECK(pthread_create(&t[i], NULL, serial_worker, (void *)(long)i) == 0);
			CHECK(pthread_join(t[i], &r) == 0);
			total += (long)r;
		}
		show_live();
	}
	free(t);
	printf("calls %ld\n", total);
	return 0;
}

/* ---------------------------------------------------------------- threads alive at exit */

static pthread_barrier_t called;
static int never[2]; /* a pipe nobody writes: the workers wait in read() until the end */

static void *idle_worker(void *arg)
{
	int index = (int)(long)arg;
	char c;

	name_thread("ring-i%03d", index);
	worker_calls(index, per_thread - 1, 7000000 + 1000L * index);
	pthread_barrier_wait(&called);
	/* No CUDA call from here on: blocked, not in a call, when the process exits. */
	while (read(never[0], &c, 1) != 0)
		;
	return NULL;
}

/* count threads make `each` calls each and wait (not in a call) while the main thread
   makes its calls and returns from main: the trace is formatted at exit with their calls
   still wherever the threads left them. */
static int idle(int count, long each)
{
	pthread_t t;

	per_thread = each;
	name_thread("ring-main", 0);
	CHECKED(made, cuInit(0) == CUDA_SUCCESS);
	CHECK(pipe(never) == 0);
	CHECK(pthread_barrier_init(&called, NULL, (unsigned)count + 1) == 0);
	for (int i = 0; i < count; i++)
		CHECK(pthread_create(&t, NULL, idle_worker, (void *)(long)i) == 0);
	pthread_barrier_wait(&called);
	made += worker_calls(count, each - 1, 8000000);
	show_live();
	printf("calls %ld\n", made + count * each);
	return 0;
}

/* ---------------------------------------------------------------- signal handlers */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}


static long handler_runs;    /* handlers that made their calls; each took one number */
static int handler_depth;    /* handlers running on the main thread now, nested */
static volatile int stop_sending;
static pthread_t main_thread;

/* Two calls per run, the first naming the run (a negative ordinal). SA_NODEFER: handlers
   nest inside handlers' calls, up to three deep (four levels with the main loop's, as many
   as the trace keeps apart). */
static void handler(int sig, siginfo_t *si, void *uc)
{
	CUdevice dev;
	int v;

	(void)sig;
	(void)si;
	(void)uc;
	if (__atomic_add_fetch(&handler_depth, 1, __ATOMIC_RELAXED) <= 3) {
		long k = __atomic_fetch_add(&handler_runs, 1, __ATOMIC_RELAXED);

		cuDeviceGet(&dev, (int)(-1 - k));
		if (cuDriverGetVersion(&v) != CUDA_SUCCESS)
			_exit(3);
	}
	__atomic_sub_fetch(&handler_depth, 1, __ATOMIC_RELAXED);
}

static void *sender(void *arg)
{
	(void)arg;
	/* A signal every 10 us or so, asleep between them (so that the main thread runs on a
	   machine with one free core), with the sleep's timer slack (50 us) cut to 1 us: some
	   signals land in a handler's call. */
	prctl(PR_SET_TIMERSLACK, 1000, 0, 0, 0);
	while (!__atomic_load_n(&stop_sending, __ATOMIC_ACQUIRE)) {
		pthread_kill(main_thread, SIGUSR1);
		usleep(10);
	}
	return NULL;
}

/* At least `count` loop iterations, and on until the handlers ran `runs` times, but no more
   than 20 times `count`: a test checks the counts it prints, whatever they are. */
static int signals(long count, long runs)
{
	pthread_t t;
	int n;

	name_thread("ring-main", 0);
	CHECKED(made, cuInit(0) == CUDA_SUCCESS);
	on_signal(SIGUSR1, handler, SA_RESTART | SA_NODEFER);
	main_thread = pthread_self();
	CHECK(pthread_create(&t, NULL, sender, NULL) == 0);
	for (long i = 0; i < 20 * count && (i < count ||
					     __atomic_load_n(&handler_runs, __ATOMIC_RELAXED) < runs);
	     i++) {
		made += device_get((int)(100000 + i));
		CHECKED(made, cuDeviceGetCount(&n) == CUDA_SUCCESS);
	}
	__atomic_store_n(&stop_sending, 1, __ATOMIC_RELEASE);
	CHECK(pthread_join(t, NULL) == 0);
	/* No handler after this point: the counts are final. */
	signal(SIGUSR1, SIG_IGN);
	show_live();
	printf("loop calls %ld handler runs %ld\n", made, handler_runs);
	printf("calls %ld\n", made + 2 * handler_runs);
	return 0;
}

/* ---------------------------------------------------------------- SIGKILL after a flush */

static pthread_barrier_t flushed;

/* count calls, then one more past CUAUDIT_FLUSH_INTERVAL (1 s) after them: its exit is past
   the thread's flush time, so it writes the thread's buffer out with itself in it. */
static long calls_then_flush(int index, long count)
{
	long calls = worker_calls(index, count, 5000000 + 100000L * index);
	uint64_t until = mono_ns() + 1300000000ull;

	/* The interval is a time: this waits for it to pass, nothing else. */
	while (mono_ns() < until)
		usleep(20000);
	calls += device_get(1100000 + index);
	return calls;
}

static void *flush_worker(void *arg)
{
	long calls;

	name_thread("ring-k%03d", 1);
	calls = calls_then_flush(1, (long)arg);
	pthread_barrier_wait(&flushed);
	return (void *)calls;
}

static int killed(long count)
{
	pthread_t t;
	long calls;

	name_thread("ring-main", 0);
	CHECKED(made, cuInit(0) == CUDA_SUCCESS);
	CHECK(pthread_barrier_init(&flushed, NULL, 2) == 0);
	CHECK(pthread_create(&t, NULL, flush_worker, (void *)count) == 0);
	calls = calls_then_flush(0, count);
	pthread_barrier_wait(&flushed);
	show_live();
	printf("calls %ld\n", made + 2 * calls);
	fflush(stdout);
	raise(SIGKILL);
	return 1;
}

/* ---------------------------------------------------------------- fork */

static int forked(long rounds)
{
	long parent = 0, child = 0;
	pid_t pid;
	int status;

	name_thread("ring-main", 0);
	CHECKED(parent, cuInit(0) == CUDA_SUCCESS);
	for (long i = 0; i < rounds; i++)
		parent += mixed_round(i);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		name_thread("ring-child", 0);
		for (long i = 0; i < rounds; i++)
			child += mixed_round(rounds + i);
		printf("child ");
		show_live();
		printf("child calls %ld\n", child);
		exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (long i = 0; i < rounds; i++)
		parent += mixed_round(2 * rounds + i);
	show_live();
	printf("child %d\n", (int)pid);
	printf("parent calls %ld\n", parent);
	return 0;
}

/* ---------------------------------------------------------------- profiler range */

/* Calls outside the ranges (more than a ring holds), two ranges with calls inside. Prints
   the calls inside, Start and Stop included: what CUAUDIT_CAPTURE=profiler-api records. */
static int profiler(long outside, long inside)
{
	long in_range = 0;
	CUdevice dev;

	name_thread("ring-main", 0);
	CHECK(cuInit(0) == CUDA_SUCCESS);
	for (int range = 0; range < 2; range++) {
		for (long i = 0; i < outside; i++)
			cuDeviceGet(&dev, (int)(6000000 + 1000000 * range + i));
		CHECKED(in_range, cuProfilerStart() == CUDA_SUCCESS);
		for (long i = 0; i < inside; i++)
			in_range += mixed_round(range * inside + i);
		CHECKED(in_range, cuProfilerStop() == CUDA_SUCCESS);
	}
	for (long i = 0; i < outside; i++)
		cuDeviceGet(&dev, (int)(8000000 + i));
	show_live();
	printf("calls %ld\n", in_range);
	/* Every call but cuDeviceGet's (the calls outside and one a round inside): cuInit and
	   the rest of the ranges. */
	printf("calls but cuDeviceGet %ld\n", 1 + in_range - 2 * inside);
	return 0;
}

/* ---------------------------------------------------------------- the ring's room */

/* nvcc's entry points, declared only in C++ headers. */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
			    const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
			    dim3 *bDim, dim3 *gDim, int *wSize);

/* The mock runs a runtime launch's host stub as its kernel (tests/mock/libcuda.c): two of
   their own, each with a body of its own so that no two share an address. */
static volatile int edge_ran[2];
static void edge_kernel23(void **params, unsigned threads)
{
	(void)params;
	edge_ran[0] += (int)threads;
}
static void edge_kernel24(void **params, unsigned threads)
{
	(void)params;
	edge_ran[1] -= (int)threads;
}

/* A line of the output for whoever reads it: the calls of id ID whose first string (an
   argument, or the kernel's name) has LEN bytes and begins with PREFIX, at depth DEPTH: the
   argument struct's ARGS bytes, how an older writer stored them (traced: the ring's record
   alone; ref: a reference with the variable part), how many such calls were made. */
static void expect(unsigned id, size_t args, size_t len, unsigned depth, const char *prefix,
		   const char *path, long n)
{
	printf("expect %u %zu %zu %u %s %s %ld\n", id, (args + 7) & ~(size_t)7, len, depth, prefix,
	       path, n);
}
#define EXPECT(fn, ...) expect(CUAUDIT_ID_##fn, sizeof(struct cuaudit_args_##fn), __VA_ARGS__)

/* Calls whose variable part just fills the room after their argument struct in the ring's
   96 bytes (the tail's 8 bytes, the strings to a multiple of 8, 16 bytes an out-value, a
   kernel's name; a runtime call's nested calls' hook time makes it a whole record), and
   calls with one byte more. Each
   string holds the round's number, so that every call differs from the others. */
static int edges(long rounds)
{
	static char fatbin[16];
	static char k23[] = "edge_kernel_of_23_bytes", k24[] = "edge_kernel_of_24_bytes_";
	CUdriverProcAddressQueryResult status;
	dim3 grid = { 1, 1, 1 }, block = { 1, 1, 1 };
	CUfunction f = NULL;
	void *fn = NULL, **h;
	char s[128];
	long calls = 0;

	CHECK(strlen(k23) == 23 && strlen(k24) == 24);
	name_thread("ring-main", 0);
	/* Four calls (traced): the binary, its two kernels, its end. */
	h = __cudaRegisterFatBinary(fatbin);
	__cudaRegisterFunction(h, (const char *)edge_kernel23, k23, k23, -1, NULL, NULL, NULL, NULL,
			       NULL);
	__cudaRegisterFunction(h, (const char *)edge_kernel24, k24, k24, -1, NULL, NULL, NULL, NULL,
			       NULL);
	__cudaRegisterFatBinaryEnd(h);
	calls += 4;
	CHECKED(calls, cuInit(0) == CUDA_SUCCESS);
	for (long i = 0; i < rounds; i++) {
		/* 40 + 8 + 16 (a length byte and 15) + 2 * 16 out-values = 96; then 17 bytes. */
		snprintf(s, sizeof(s), "cuEdge%09ld", i);
		CHECKED(calls, cuGetProcAddress_v2(s, &fn, 12000, 0, &status) == CUDA_SUCCESS);
		snprintf(s, sizeof(s), "cuEdge%010ld", i);
		CHECKED(calls, cuGetProcAddress_v2(s, &fn, 12000, 0, &status) == CUDA_SUCCESS);
		/* No status: 40 + 8 + 32 + 16 = 96; then 33 bytes of string. */
		snprintf(s, sizeof(s), "cuEdgeNoStatus_%016ld", i);
		CHECKED(calls, cuGetProcAddress_v2(s, &fn, 12000, 0, NULL) == CUDA_SUCCESS);
		snprintf(s, sizeof(s), "cuEdgeNoStatus_%017ld", i);
		CHECKED(calls, cuGetProcAddress_v2(s, &fn, 12000, 0, NULL) == CUDA_SUCCESS);
		/* A name not found (no out-value): 24 + 8 + 64 = 96, whether the name has 63 bytes
		   or is cut to them. */
		snprintf(s, sizeof(s), "edge_missing_%050ld", i);
		CHECKED(calls, cuModuleGetFunction(&f, NULL, s) == CUDA_ERROR_NOT_FOUND);
		snprintf(s, sizeof(s), "edge_missing_cut_%090ld", i);
		CHECKED(calls, cuModuleGetFunction(&f, NULL, s) == CUDA_ERROR_NOT_FOUND);
		/* A runtime launch nests the driver's (its hooks' time is kept): 56 + 8 + 8 + 24
		   (the name of 23 bytes) = 96; then a name of 24. */
		grid.x = (unsigned)(i % 7) + 1;
		CHECKED(calls, cudaLaunchKernel((const void *)edge_kernel23, grid, block, NULL, 0,
						NULL) == cudaSuccess);
		CHECKED(calls, cudaLaunchKernel((const void *)edge_kernel24, grid, block, NULL, 0,
						NULL) == cudaSuccess);
		/* A runtime look-up nests the driver's (its strings as long): 40 + 8 + 8 + 24 + 16
		   = 96; then 25 bytes of string. The nested ones (40 + 8 + 24 + 32) never fit. */
		snprintf(s, sizeof(s), "cuEdgeRt%015ld", i);
		CHECKED(calls,
			cudaGetDriverEntryPointByVersion(s, &fn, 12000, 0, NULL) == cudaSuccess);
		snprintf(s, sizeof(s), "cuEdgeRt%016ld", i);
		CHECKED(calls,
			cudaGetDriverEntryPointByVersion(s, &fn, 12000, 0, NULL) == cudaSuccess);
	}
	CHECK(edge_ran[0] > 0 && edge_ran[1] < 0);
	printf("runtime %u\nruntime %u\n", (unsigned)CUAUDIT_ID_cudaLaunchKernel,
	       (unsigned)CUAUDIT_ID_cudaGetDriverEntryPointByVersion);
	/* An argument struct of 88 bytes: the ring's room after it holds a tail and no more. */
	printf("big %u %zu\n", (unsigned)CUAUDIT_ID_cuTensorMapEncodeIm2col,
	       sizeof(struct cuaudit_args_cuTensorMapEncodeIm2col));
	EXPECT(cuGetProcAddress_v2, 15, 0, "cuEdge0", "traced", rounds);
	EXPECT(cuGetProcAddress_v2, 16, 0, "cuEdge0", "ref", rounds);
	EXPECT(cuGetProcAddress_v2, 31, 0, "cuEdgeNoStatus_", "traced", rounds);
	EXPECT(cuGetProcAddress_v2, 32, 0, "cuEdgeNoStatus_", "ref", rounds);
	EXPECT(cuModuleGetFunction, 63, 0, "edge_missing_", "traced", 2 * rounds);
	EXPECT(cudaLaunchKernel, 23, 0, "edge_kernel_of_", "traced", rounds);
	EXPECT(cudaLaunchKernel, 24, 0, "edge_kernel_of_", "ref", rounds);
	EXPECT(cudaGetDriverEntryPointByVersion, 23, 0, "cuEdgeRt", "traced", rounds);
	EXPECT(cudaGetDriverEntryPointByVersion, 24, 0, "cuEdgeRt", "ref", rounds);
	/* The runtime's own look-ups inside them (40 + 8 + 24 + 32): never in the room. */
	EXPECT(cuGetProcAddress_v2, 23, 1, "cuEdgeRt", "ref", rounds);
	EXPECT(cuGetProcAddress_v2, 24, 1, "cuEdgeRt", "ref", rounds);
	show_live();
	printf("calls %ld\n", calls);
	return 0;
}

/* Rounds of one call the ring keeps (a device count) and then 'whole' calls it cannot (a
   driver look-up of a 60-byte name with its two out-values: 40 bytes of arguments and 96 of
   variable part, past the ring's room): more of those than the ring holds, as a program's
   start registers thousands of kernels and variables by name. */
static int burst(long rounds, long whole)
{
	CUdriverProcAddressQueryResult status;
	char name[96];
	void *fn;
	int n;

	name_thread("ring-main", 0);
	CHECKED(made, cuInit(0) == CUDA_SUCCESS);
	for (long i = 0; i < rounds; i++) {
		CHECKED(made, cuDeviceGetCount(&n) == CUDA_SUCCESS);
		for (long k = 0; k < whole; k++) {
			snprintf(name, sizeof(name), "cuNoSuchFunctionWithAName_long_enough_to_be_whole_%04ld_%04ld", i, k);
			CHECKED(made, cuGetProcAddress_v2(name, &fn, 12000, 0, &status) == CUDA_SUCCESS);
		}
	}
	show_live();
	printf("calls %ld\n", made);
	return 0;
}

/* ---------------------------------------------------------------- a string changed meanwhile */

static char flipped[64];
static volatile int flip_stop;

static void *flipper(void *arg)
{
	(void)arg;
	while (!flip_stop) {
		__atomic_store_n(&flipped[0], 0, __ATOMIC_SEQ_CST);
		memset(flipped + 1, 'x', 62);
		__atomic_store_n(&flipped[0], 'x', __ATOMIC_SEQ_CST);
	}
	return NULL;
}

/* cuGetProcAddress_v2 of a symbol another thread makes empty and 63 bytes long, again and
   again, while the call returns and is traced: its record must be the call's, of whichever
   length the trace read, and no other record touched. */
static int flipping(long rounds)
{
	pthread_t t;

	name_thread("ring-main", 0);
	CHECKED(made, cuInit(0) == CUDA_SUCCESS);
	CHECK(pthread_create(&t, NULL, flipper, NULL) == 0);
	for (long i = 0; i < rounds; i++) {
		void *fn = NULL;
		CUdriverProcAddressQueryResult status;

		CHECKED(made, cuGetProcAddress_v2(flipped, &fn, 12000, 0, &status) == CUDA_SUCCESS);
	}
	flip_stop = 1;
	CHECK(pthread_join(t, NULL) == 0);
	show_live();
	printf("calls %ld\n", made);
	return 0;
}


/* ---------------------------------------------------------------- a busy thread at exit */

static volatile long busy_calls;

static void *busy_worker(void *arg)
{
	int n;

	(void)arg;
	name_thread("ring-busy", 0);
	for (;;) {
		(void)cuDeviceGetCount(&n);
		busy_calls++;
	}
	return NULL;
}

/* A thread calls in a loop until the process exits, while the main thread makes `calls`
   calls (blocks of the raw file that exit converts, for a while, before the buffers) and
   returns from main. The busy thread's calls before exit took its buffer are in the trace
   with the view off; with it on, they must be too, not overwritten in its ring while exit
   converts the raw file. */
static int busy(long calls)
{
	pthread_t t;
	int n;

	name_thread("ring-main", 0);
	CHECKED(made, cuInit(0) == CUDA_SUCCESS);
	CHECK(pthread_create(&t, NULL, busy_worker, NULL) == 0);
	while (busy_calls < 2000)
		;
	for (long i = 0; i < calls; i++)
		CHECKED(made, cuDeviceGetCount(&n) == CUDA_SUCCESS);
	show_live();
	printf("calls %ld\n", made);
	return 0;
}

/* ---------------------------------------------------------------- a handler's calls past the ring */

static volatile int in_spin;	/* the main thread is inside its spinning call */
static volatile int landed;	/* the handler ran while it was */
static long handler_calls;	/* the handler's calls, each counted */
static long handler_wants;

/* Its calls nest inside the interrupted call, more of them than the ring holds: they must
   not take the records of the main thread's calls kept since the ring was last written out
   before those are. */
static void overtaking_handler(int sig, siginfo_t *si, void *uc)
{
	int v;

	(void)sig;
	(void)si;
	(void)uc;
	landed = in_spin;
	for (long i = 0; i < handler_wants; i++) {
		if (cuDriverGetVersion(&v) != CUDA_SUCCESS)
			_exit(3);
		handler_calls++;
	}
}

/* One signal, 20 ms after the main thread entered its spinning call. */
static void *overtaking_sender(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&in_spin, __ATOMIC_ACQUIRE))
		usleep(1000);
	usleep(20000);
	pthread_kill(main_thread, SIGUSR1);
	return NULL;
}

/* `count` calls, then a call the test makes spin (MOCK_SPIN=cuDeviceGetCount:NS) inside
   which the handler makes `calls` calls; again (up to 5 times) if the signal came after
   the spin. Prints whether it landed inside, and every call made. */
static int overtaking(long count, long calls)
{
	pthread_t t;
	int n;

	name_thread("ring-main", 0);
	CHECKED(made, cuInit(0) == CUDA_SUCCESS);
	on_signal(SIGUSR1, overtaking_handler, SA_RESTART);
	main_thread = pthread_self();
	handler_wants = calls;
	for (long i = 0; i < count; i++)
		made += device_get((int)(100000 + i));
	for (int tries = 0; tries < 5 && !landed; tries++) {
		CHECK(pthread_create(&t, NULL, overtaking_sender, NULL) == 0);
		__atomic_store_n(&in_spin, 1, __ATOMIC_RELEASE);
		CHECKED(made, cuDeviceGetCount(&n) == CUDA_SUCCESS);
		__atomic_store_n(&in_spin, 0, __ATOMIC_RELEASE);
		CHECK(pthread_join(t, NULL) == 0);
	}
	signal(SIGUSR1, SIG_IGN);
	show_live();
	printf("inside %d\n", landed);
	printf("calls %ld\n", made + handler_calls);
	return 0;
}

/* ---------------------------------------------------------------- a handler inside the trace's own update */

static char *probe;       /* a page holding a kernel name the mock does not know */
static size_t probe_size;
static volatile int probe_closed;
static long probe_faults;

/* SIGUSR2, raised by the mock inside cuModuleGetFunction once it has read the name
   (MOCK_TRIP=cuModuleGetFunction:1:raise=12): the name's page becomes unreadable. */
static void probe_closer(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	if (mprotect(probe, probe_size, PROT_NONE) != 0)
		_exit(5);
	probe_closed = 1;
}

/* The trace reads the call's string argument inside its own update, after the call: this
   handler runs there, at the trace's next level, where its calls take ring records but
   cannot write the ring out. It makes its calls, makes the page readable again and returns:
   the trace's read goes on. */
static void probe_handler(int sig, siginfo_t *si, void *uc)
{
	int v;

	(void)sig;
	(void)uc;
	if (!probe_closed || (char *)si->si_addr < probe || (char *)si->si_addr >= probe + probe_size)
		_exit(4);
	probe_faults++;
	for (long i = 0; i < handler_wants; i++) {
		if (cuDriverGetVersion(&v) != CUDA_SUCCESS)
			_exit(3);
		handler_calls++;
	}
	if (mprotect(probe, probe_size, PROT_READ | PROT_WRITE) != 0)
		_exit(5);
}

/* `count` calls (the ring keeps them), then cuModuleGetFunction with the name on the probe
   page, which the mock closes (probe_closer); the trace's update faults on the name and the
   handler makes `calls` calls there; then `count` calls more. Prints the faults and every
   call made. */
static int fault_inside(long count, long calls)
{
	CUfunction f;

	name_thread("ring-main", 0);
	CHECKED(made, cuInit(0) == CUDA_SUCCESS);
	probe_size = (size_t)sysconf(_SC_PAGESIZE);
	probe = mmap(NULL, probe_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(probe != MAP_FAILED);
	strcpy(probe, "probe_kernel_unknown");
	on_signal(SIGUSR2, probe_closer, 0);
	on_signal(SIGSEGV, probe_handler, 0);
	handler_wants = calls;
	for (long i = 0; i < count; i++)
		made += device_get((int)(100000 + i));
	CHECKED(made, cuModuleGetFunction(&f, NULL, probe) == CUDA_ERROR_NOT_FOUND);
	for (long i = 0; i < count; i++)
		made += device_get((int)(200000 + i));
	signal(SIGSEGV, SIG_DFL);
	show_live();
	printf("faults %ld\n", probe_faults);
	printf("calls %ld\n", made + handler_calls);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long a = argc > 2 ? atol(argv[2]) : 0, b = argc > 3 ? atol(argv[3]) : 0;

	if (strcmp(mode, "mixed") == 0)
		return mixed(a);
	if (strcmp(mode, "nested") == 0)
		return nested(a);
	if (strcmp(mode, "serial") == 0)
		return threads(0, (int)a, b);
	if (strcmp(mode, "parallel") == 0)
		return threads(1, (int)a, b);
	if (strcmp(mode, "idle") == 0)
		return idle((int)a, b);
	if (strcmp(mode, "signal") == 0)
		return signals(a, b);
	if (strcmp(mode, "fault_inside") == 0)
		return fault_inside(a, b);
	if (strcmp(mode, "kill") == 0)
		return killed(a);
	if (strcmp(mode, "fork") == 0)
		return forked(a);
	if (strcmp(mode, "profiler") == 0)
		return profiler(a, b);
	if (strcmp(mode, "burst") == 0)
		return burst(a, b);
	if (strcmp(mode, "flipping") == 0)
		return flipping(a);
	if (strcmp(mode, "busy") == 0)
		return busy(a);
	if (strcmp(mode, "edges") == 0)
		return edges(a);
	if (strcmp(mode, "overtaking") == 0)
		return overtaking(a, b);
	fprintf(stderr, "usage: trace_ring_prog "
			"mixed|nested|serial|parallel|idle|signal|fault_inside|kill|fork|profiler|burst|edges|flipping|busy|"
			"overtaking ...\n");
	return 2;
}
