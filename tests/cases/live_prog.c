/* SPDX-License-Identifier: MIT */
/* tests/cases/live_prog.c: the live view's workloads on the mock: a thread hung in a synchronisation, thread churn, fork, capture on demand. */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include "common.h"
#include "livefmt.h"

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

/* firstcalls: the threads make their first calls together, none made before. */
static pthread_barrier_t first_barrier;
static int first_again;

static void *first_thread(void *arg)
{
	pthread_barrier_wait(&first_barrier);
	CHECK(cuInit(0) == CUDA_SUCCESS);
	calls((int)(long)arg);
	/* All made their calls (the region is made): one more call each. */
	if (first_again) {
		pthread_barrier_wait(&first_barrier);
		calls(1);
	}
	return NULL;
}

/* The 64 threads of firstcalls, then "firstcalls done", then wait for file 'go'. */
static void first_calls(int n, const char *go)
{
	pthread_t t[64];

	CHECK(pthread_barrier_init(&first_barrier, NULL, 64) == 0);
	for (int i = 0; i < 64; i++)
		CHECK(pthread_create(&t[i], NULL, first_thread, (void *)(long)n) == 0);
	for (int i = 0; i < 64; i++)
		pthread_join(t[i], NULL);
	printf("%d firstcalls done\n", (int)getpid());
	fflush(stdout);
	wait_file(go);
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
   makes three calls of its own (HANDLER_CALLS) and says so, the call it interrupted still
   blocked. */
static int handler_calls_n = 3; /* HANDLER_CALLS, read before the handler is set */

static void calls_in_handler(int sig)
{
	static const char done[] = "handler done\n";

	(void)sig;
	calls(handler_calls_n);
	if (write(1, done, sizeof(done) - 1) < 0)
		_exit(3);
}

/* nest: each SIGUSR1 (not blocked in its own handler) lands inside the call the last one
   blocked in and blocks in a call of its own: calls in flight deeper than the view keeps. */
static void sync_in_handler(int sig)
{
	static const char in[] = "nested\n";

	(void)sig;
	if (write(1, in, sizeof(in) - 1) < 0)
		_exit(3);
	CHECK(cuStreamSynchronize(stream) == CUDA_SUCCESS);
}

/* jump: a timer's handler jumps out of a call blocked for good, as a timeout that abandons
   the call would. */
static sigjmp_buf jump_env;

static void jump_out(int sig)
{
	(void)sig;
	siglongjmp(jump_env, 1);
}

/* storm: a thread sends the main thread signals as fast as it can while main makes calls;
   each handler makes a call that fails. */
static volatile sig_atomic_t handler_calls;
static pthread_t storm_target;
static volatile int storm_stop;

static void failing_call_in_handler(int sig)
{
	CUdevice d;

	(void)sig;
	if (cuDeviceGet(&d, 4242) == CUDA_ERROR_INVALID_DEVICE)
		handler_calls++;
}

static void *storm_thread(void *arg)
{
	(void)arg;
	while (!storm_stop)
		pthread_kill(storm_target, SIGUSR2);
	return NULL;
}

/* attachstorm: a new thread's first call (it takes its slot) under a storm of signals whose
   handlers make calls (which attach too, when they land before the thread's attach ends). */
static volatile int attach_done;

static void *first_call_thread(void *arg)
{
	int count;

	(void)arg;
	CHECK(cuDeviceGetCount(&count) == CUDA_SUCCESS);
	attach_done = 1;
	while (attach_done != 2)
		usleep(1000);
	return NULL;
}

/* manyblocked: threads with a full history each, all blocked in a call. */
static void *full_then_block(void *arg)
{
	(void)arg;
	calls(70);
	CHECK(cuStreamSynchronize(stream) == CUDA_SUCCESS);
	return NULL;
}

/* atforkcall: a child handler of the program's own makes a call in the child. */
static void call_in_child_handler(void)
{
	calls(1);
}

/* The calling thread's slot in this process's live region under directory dir, mapped
   read-only (the reader's layout, rt/livefmt.h); NULL if none. */
static const struct cua_live_slot *own_slot(const char *dir, const struct cua_live_head **head)
{
	char prefix[32], path[4096];
	struct dirent *d;
	DIR *dp = opendir(dir);
	const char *map = MAP_FAILED;
	struct stat st;
	int fd = -1;

	snprintf(prefix, sizeof(prefix), "%d-", (int)getpid());
	while (dp && (d = readdir(dp)) && fd < 0)
		if (strncmp(d->d_name, prefix, strlen(prefix)) == 0) {
			snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
			fd = open(path, O_RDONLY);
		}
	if (dp)
		closedir(dp);
	if (fd >= 0 && fstat(fd, &st) == 0)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (fd >= 0)
		close(fd);
	if (map == MAP_FAILED)
		return NULL;
	*head = (const struct cua_live_head *)map;
	for (uint32_t i = 0; i < (*head)->nslots; i++) {
		const struct cua_live_slot *sl =
			(const void *)(map + CUA_LIVE_HEAD_SIZE + i * (*head)->slot_size);

		if (sl->tid == (uint32_t)syscall(SYS_gettid))
			return sl;
	}
	return NULL;
}

/* Every whole record of the slot's history (its number that of its index, ended): an id
   with result 0 counts in ok_ids, one with a non-zero result in bad_ids. */
static void scan_history(const struct cua_live_head *h, const struct cua_live_slot *sl,
			 unsigned char *ok_ids, unsigned char *bad_ids, long *whole)
{
	const struct cua_live_call *ring = (const void *)(sl + 1);
	uint64_t done = sl->done;

	for (uint64_t k = 0; k < h->ncalls && k < done; k++) {
		const struct cua_live_call *e = &ring[(done - 1 - k) & (h->ncalls - 1)];

		if (e->h.seq != cua_live_seq(done - 1 - k, CUA_LIVE_ENDED))
			continue;
		(*whole)++;
		(e->h.result ? bad_ids : ok_ids)[e->h.id] = 1;
	}
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
		if (getenv("HANDLER_CALLS"))
			handler_calls_n = atoi(getenv("HANDLER_CALLS"));
		setup();
		calls(3);
		signal(SIGUSR1, calls_in_handler);
		printf("blocking\n");
		fflush(stdout);
		CHECK(cuStreamSynchronize(stream) == CUDA_SUCCESS);
		printf("unblocked\n");
		return 0;
	}
	if (strcmp(mode, "tail") == 0) {
		/* An argument in the last 4 bytes of its struct, with its high bytes set: the
		   trace copies a struct's tail word by hand (hooks/trace/trace.c). */
		CUdevice d;

		CHECK(cuInit(0) == CUDA_SUCCESS);
		CHECK(cuDeviceGet(&d, 0x12345678) == CUDA_ERROR_INVALID_DEVICE);
		printf("done\n");
		return 0;
	}
	if (strcmp(mode, "jump") == 0) {
		/* 40 calls abandoned in flight (a ring of 16 records), then 100 calls, then the
		   pid of a forked child's look at its maps: waits for file argv[2]. */
		struct itimerval tv = { { 0, 0 }, { 0, 20000 } };
		int jumps = 0;

		signal(SIGALRM, jump_out);
		setup();
		for (int i = 0; i < 40; i++) {
			if (sigsetjmp(jump_env, 1) == 0) {
				CHECK(setitimer(ITIMER_REAL, &tv, NULL) == 0);
				cuStreamSynchronize(stream); /* blocked by MOCK_BLOCK_FILE */
				printf("the call returned\n");
				return 1;
			}
			jumps++;
		}
		calls(100);
		printf("jumped %d\n", jumps);
		fflush(stdout);
		wait_file(argv[2]);
		return 0;
	}
	if (strcmp(mode, "forkmaps") == 0) {
		/* A forked child no longer maps its parent's region (the program's fork replaced it
		   with private memory), then maps its own after its first call. */
		pid_t child;
		int st = 0;

		setup();
		calls(3);
		child = fork();
		if (child == 0) {
			char line[4096];
			int parents = 0, own = 0;
			FILE *m = fopen("/proc/self/maps", "r");
			char mine[32];

			while (m && fgets(line, sizeof(line), m))
				parents += strstr(line, ".live") != NULL;
			if (m)
				fclose(m);
			calls(1);
			snprintf(mine, sizeof(mine), "/%d-", (int)getpid());
			m = fopen("/proc/self/maps", "r");
			while (m && fgets(line, sizeof(line), m))
				own += strstr(line, ".live") != NULL && strstr(line, mine) != NULL;
			if (m)
				fclose(m);
			printf("child: parent's region mapped %d, own after a call %d\n", parents, own);
			fflush(stdout);
			_exit(0);
		}
		CHECK(child > 0 && waitpid(child, &st, 0) == child && WIFEXITED(st));
		calls(1);
		printf("parent done\n");
		return 0;
	}
	if (strcmp(mode, "nest") == 0) {
		/* Blocked, then nested by signals; once unblocked, 3 calls, then waits for the
		   file $NEST_EXIT. */
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = sync_in_handler;
		sa.sa_flags = SA_NODEFER;
		CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
		setup();
		calls(2);
		printf("blocking\n");
		fflush(stdout);
		CHECK(cuStreamSynchronize(stream) == CUDA_SUCCESS);
		calls(3);
		printf("unblocked\n");
		fflush(stdout);
		wait_file(getenv("NEST_EXIT"));
		return 0;
	}
	if (strcmp(mode, "manyblocked") == 0) {
		pthread_t t[100];

		setup();
		for (int i = 0; i < 100; i++)
			CHECK(pthread_create(&t[i], NULL, full_then_block, NULL) == 0);
		printf("blocking\n");
		fflush(stdout);
		for (int i = 0; i < 100; i++)
			pthread_join(t[i], NULL);
		printf("unblocked\n");
		return 0;
	}
	if (strcmp(mode, "atforkcall") == 0) {
		pid_t child;
		int st = 0;

		setup();
		calls(2);
		CHECK(pthread_atfork(NULL, NULL, call_in_child_handler) == 0);
		child = fork();
		if (child == 0) {
			printf("child %d blocking\n", (int)getpid());
			fflush(stdout);
			CHECK(cuStreamSynchronize(stream) == CUDA_SUCCESS);
			_exit(0);
		}
		CHECK(child > 0 && waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0);
		printf("parent done\n");
		return 0;
	}
	if (strcmp(mode, "attachstorm") == 0) {
		/* Waves of 100 threads, each signalled without pause through its first call, all
		   alive when the wave's slots are read: no thread holds two. */
		struct sigaction sa;
		const struct cua_live_head *h = NULL;
		int dups = 0, threads = 0, signals = 0;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = failing_call_in_handler;
		sa.sa_flags = SA_RESTART;
		CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
		setup();
		CHECK(own_slot(getenv("CUAUDIT_LIVE_DIR"), &h) != NULL);
		for (int wave = 0; wave < 5; wave++) {
			pthread_t t[100];

			for (int i = 0; i < 100; i++) {
				attach_done = 0;
				CHECK(pthread_create(&t[i], NULL, first_call_thread, NULL) == 0);
				while (!attach_done) {
					pthread_kill(t[i], SIGUSR2);
					signals++;
				}
				threads++;
			}
			/* Every slot's owner, while the wave's threads are all alive. */
			for (uint32_t i = 0; i < h->nslots; i++) {
				const struct cua_live_slot *a =
					(const void *)((const char *)h + CUA_LIVE_HEAD_SIZE + i * h->slot_size);

				for (uint32_t j = i + 1; a->tid && j < h->nslots; j++) {
					const struct cua_live_slot *b = (const void *)((const char *)h +
						CUA_LIVE_HEAD_SIZE + j * h->slot_size);

					dups += b->tid == a->tid;
				}
			}
			attach_done = 2;
			for (int i = 0; i < 100; i++)
				pthread_join(t[i], NULL);
		}
		printf("attachstorm: %d threads, %d signals, %d handler calls, %d slots held twice\n",
		       threads, signals, (int)handler_calls, dups);
		return dups != 0;
	}
	if (strcmp(mode, "storm") == 0) {
		/* Calls while signals land, until file argv[2] exists (20 s at most); then says
		   how many, and waits for file argv[3] before it exits. */
		struct sigaction sa;
		pthread_t t;
		long n = 0;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = failing_call_in_handler;
		sa.sa_flags = SA_RESTART;
		CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
		static unsigned char ok_ids[65536], bad_ids[65536];
		const struct cua_live_head *h = NULL;
		const struct cua_live_slot *sl;
		long whole = 0, scans = 0;
		int mixed = 0, nok = 0, nbad = 0;

		setup();
		storm_target = pthread_self();
		CHECK(pthread_create(&t, NULL, storm_thread, NULL) == 0);
		sl = own_slot(getenv("CUAUDIT_LIVE_DIR"), &h);
		CHECK(sl != NULL);
		printf("storming\n");
		fflush(stdout);
		for (; n < 100000000 && (n % 1024 || access(argv[2], F_OK) != 0); n++) {
			int count;

			CHECK(cuDeviceGetCount(&count) == CUDA_SUCCESS);
			/* Every 4096 calls the thread blocks the signal and reads its own
			   history as a reader would (it alone writes there): each call's entry
			   is read once or twice. */
			if (n % 4096 == 4095) {
				sigset_t usr2;

				sigemptyset(&usr2);
				sigaddset(&usr2, SIGUSR2);
				CHECK(pthread_sigmask(SIG_BLOCK, &usr2, NULL) == 0);
				scan_history(h, sl, ok_ids, bad_ids, &whole);
				scans++;
				CHECK(pthread_sigmask(SIG_UNBLOCK, &usr2, NULL) == 0);
			}
		}
		storm_stop = 1;
		pthread_join(t, NULL);
		for (unsigned i = 0; i < 65536; i++) {
			nok += ok_ids[i];
			nbad += bad_ids[i];
			mixed += ok_ids[i] && bad_ids[i];
		}
		/* Whole entries hold one function that succeeded and another that failed. */
		printf("storm done: %ld calls, %ld in handlers; %ld scans, %ld whole entries; "
		       "%d ids succeeded, %d failed, %d both\n",
		       n, (long)handler_calls, scans, whole, nok, nbad, mixed);
		fflush(stdout);
		wait_file(argv[3]);
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
	if (strcmp(mode, "firstcalls") == 0) {
		/* 64 threads make their first calls at once, a cuInit and argv[2] more each;
		   then wait for file argv[3]. With argv[4] "fork", in a forked child (of a
		   parent that made no call), whose region one of the threads makes meanwhile,
		   and each thread makes one more call once all are done. */
		pid_t child;
		int st;

		if (argc < 5 || strcmp(argv[4], "fork") != 0) {
			first_calls(atoi(argv[2]), argv[3]);
			return 0;
		}
		child = fork();
		CHECK(child >= 0);
		if (child == 0) {
			first_again = 1;
			first_calls(atoi(argv[2]), argv[3]);
			exit(0);
		}
		CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0);
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
	if (strcmp(mode, "execnocall") == 0) {
		/* No CUDA call: exec a shell that says "execed" and waits for file argv[2]. */
		char script[512];

		snprintf(script, sizeof(script),
			 "echo $$ execed; while [ ! -e '%s' ]; do sleep 0.02; done", argv[2]);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		perror("execl");
		return 1;
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
