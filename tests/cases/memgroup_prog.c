/* SPDX-License-Identifier: MIT */
/* tests/cases/memgroup_prog.c: processes of one memory group: filling the quota in rounds, churning, holding, and the memory reports of the driver and NVML. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAXP 100000
static CUdeviceptr ptrs[MAXP];

/* A counter block the test's processes share (not cuaudit's): a barrier, the bytes held
   now and the most ever held together. */
struct shared {
	uint64_t arrived, held, max_held;
};

static struct shared *map_shared(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT, 0600);
	void *p;

	if (fd < 0 || ftruncate(fd, 4096) != 0) {
		perror(path);
		exit(2);
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

/* Waits until n processes have arrived phase + 1 times; 60 s at most. */
static void barrier(struct shared *s, unsigned n, unsigned phase)
{
	time_t end = time(NULL) + 60;

	__atomic_add_fetch(&s->arrived, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&s->arrived, __ATOMIC_SEQ_CST) < (uint64_t)n * (phase + 1)) {
		if (time(NULL) > end) {
			fprintf(stderr, "barrier %u: timed out\n", phase);
			exit(3);
		}
		usleep(100);
	}
}

static void start(void)
{
	CUdevice dev;
	CUcontext ctx;

	if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
	    cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
		fprintf(stderr, "no context\n");
		exit(2);
	}
}

static unsigned fill(size_t chunk)
{
	unsigned n = 0;

	while (n < MAXP && cuMemAlloc_v2(&ptrs[n], chunk) == CUDA_SUCCESS)
		n++;
	return n;
}

static void free_all(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (cuMemFree_v2(ptrs[i]) != CUDA_SUCCESS) {
			fprintf(stderr, "free failed\n");
			exit(2);
		}
}

/* rounds FILE NPROC ROUNDS CHUNK_KIB: each round every process allocates until refused,
   says how many it got, and frees them once all have finished. */
static int rounds(char **a)
{
	struct shared *s = map_shared(a[0]);
	unsigned nproc = (unsigned)atoi(a[1]), nrounds = (unsigned)atoi(a[2]);
	size_t chunk = (size_t)atoi(a[3]) << 10;

	start();
	barrier(s, nproc, 0);
	for (unsigned r = 0; r < nrounds; r++) {
		unsigned n = fill(chunk);

		printf("round %u granted %u\n", r, n);
		barrier(s, nproc, 1 + 2 * r);
		free_all(n);
		barrier(s, nproc, 2 + 2 * r);
	}
	return 0;
}

static void note_held(struct shared *s, uint64_t bytes)
{
	uint64_t h = __atomic_add_fetch(&s->held, bytes, __ATOMIC_SEQ_CST),
		 m = __atomic_load_n(&s->max_held, __ATOMIC_SEQ_CST);

	while (h > m && !__atomic_compare_exchange_n(&s->max_held, &m, h, 0, __ATOMIC_SEQ_CST,
						     __ATOMIC_SEQ_CST))
		;
}

/* churn FILE ITER CHUNK_KIB HOLDMAX NPROC: once NPROC processes are there, allocate up to a few chunks, free them, again. The
   shared count goes up after an allocation succeeds and down before its free: it is never
   more than what the group charged at that moment. */
static int churn(char **a)
{
	struct shared *s = map_shared(a[0]);
	unsigned iter = (unsigned)atoi(a[1]), holdmax = (unsigned)atoi(a[3]);
	size_t chunk = (size_t)atoi(a[2]) << 10;
	unsigned granted = 0, refused = 0, seed = (unsigned)getpid();

	start();
	/* All at once: processes that start one after another would never meet. */
	barrier(s, (unsigned)atoi(a[4]), 0);
	for (unsigned i = 0; i < iter; i++) {
		unsigned want = 1 + rand_r(&seed) % holdmax, n = 0;

		for (; n < want; n++) {
			if (cuMemAlloc_v2(&ptrs[n], chunk) != CUDA_SUCCESS) {
				refused++;
				break;
			}
			note_held(s, chunk);
			granted++;
		}
		if (rand_r(&seed) % 4 == 0)
			sched_yield();
		for (unsigned k = 0; k < n; k++) {
			__atomic_sub_fetch(&s->held, chunk, __ATOMIC_SEQ_CST);
			if (cuMemFree_v2(ptrs[k]) != CUDA_SUCCESS) {
				fprintf(stderr, "free failed\n");
				return 2;
			}
		}
	}
	printf("churn granted %u refused %u\n", granted, refused);
	return 0;
}

/* spin CHUNK_KIB N: holds N chunks, says so, then allocates and frees one more chunk
   forever: a SIGKILL finds it in the middle of an allocation. */
static int spin(char **a)
{
	size_t chunk = (size_t)atoi(a[0]) << 10;
	unsigned want = (unsigned)atoi(a[1]), n = 0;
	CUdeviceptr extra;

	start();
	while (n < want && cuMemAlloc_v2(&ptrs[n], chunk) == CUDA_SUCCESS)
		n++;
	printf("held %u\n", n);
	fflush(stdout);
	for (;;)
		if (cuMemAlloc_v2(&extra, chunk) == CUDA_SUCCESS)
			cuMemFree_v2(extra);
	return 0;
}

/* later CHUNK_KIB N FILE: holds N chunks, says so, waits (up to 60 s) until FILE exists,
   then allocates chunks until refused and says how many more it got. */
/* cutself FILE: allocates 1 MiB (its look finds the group's file whole), cuts FILE short as
   an operator's `: > FILE` would, and allocates again at once: the second allocation's use of
   the mapping comes microseconds after the first's look. */
static int cutself(char **a)
{
	CUdeviceptr p, q;
	CUresult r;

	start();
	usleep(2000);
	if (cuMemAlloc_v2(&p, (size_t)1 << 20) != CUDA_SUCCESS) {
		printf("first refused\n");
		return 2;
	}
	if (truncate(a[0], 0) != 0) {
		perror("truncate");
		return 2;
	}
	r = cuMemAlloc_v2(&q, (size_t)1 << 20);
	printf("second %d\n", (int)r);
	return 0;
}

static int later(char **a)
{
	size_t chunk = (size_t)atoi(a[0]) << 10;
	unsigned want = (unsigned)atoi(a[1]), n = 0, more = 0;
	CUdeviceptr extra[1024];

	start();
	while (n < want && cuMemAlloc_v2(&ptrs[n], chunk) == CUDA_SUCCESS)
		n++;
	printf("held %u\n", n);
	fflush(stdout);
	for (unsigned i = 0; i < 6000 && access(a[2], F_OK) != 0; i++)
		usleep(10000);
	while (more < 1024 && cuMemAlloc_v2(&extra[more], chunk) == CUDA_SUCCESS)
		more++;
	printf("more %u\n", more);
	return 0;
}

/* forked CHUNK_KIB N SECONDS: holds N chunks, forks; the child holds N chunks of its own;
   each says so ("parent PID held N", "child PID held N") and sleeps. */
static int forked(char **a)
{
	size_t chunk = (size_t)atoi(a[0]) << 10;
	unsigned want = (unsigned)atoi(a[1]), n = 0;
	pid_t child;

	start();
	while (n < want && cuMemAlloc_v2(&ptrs[n], chunk) == CUDA_SUCCESS)
		n++;
	printf("parent %d held %u\n", (int)getpid(), n);
	fflush(stdout);
	if ((child = fork()) == 0) {
		n = 0;
		while (n < want && cuMemAlloc_v2(&ptrs[n], chunk) == CUDA_SUCCESS)
			n++;
		printf("child %d held %u\n", (int)getpid(), n);
		fflush(stdout);
	}
	sleep((unsigned)atoi(a[2]));
	return 0;
}

/* hold CHUNK_KIB N SECONDS: holds N chunks, says so, and sleeps. */
static int hold(char **a)
{
	size_t chunk = (size_t)atoi(a[0]) << 10;
	unsigned want = (unsigned)atoi(a[1]), n = 0;

	start();
	while (n < want && cuMemAlloc_v2(&ptrs[n], chunk) == CUDA_SUCCESS)
		n++;
	printf("held %u\n", n);
	fflush(stdout);
	sleep((unsigned)atoi(a[2]));
	return 0;
}

/* fill CHUNK_KIB [HOLD_SECONDS]: allocates until refused, says how many, and holds them. */
static int fill_main(char **a, int argc)
{
	size_t chunk = (size_t)atoi(a[0]) << 10;
	unsigned n;

	start();
	n = fill(chunk);
	printf("granted %u\n", n);
	fflush(stdout);
	if (argc > 1)
		sleep((unsigned)atoi(a[1]));
	return 0;
}

/* NVML's ABI, as the mock and NVIDIA's documentation give it. */
struct nvml_memory {
	unsigned long long total, free, used;
};
struct nvml_memory_v2 {
	unsigned int version;
	unsigned long long total, reserved, free, used;
};

#define MiB ((size_t)1 << 20)

static void nvml_report(void *lib, unsigned index)
{
	int (*init)(void) = (int (*)(void))dlsym(lib, "nvmlInit_v2");
	int (*handle)(unsigned, void **) = (int (*)(unsigned, void **))dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
	int (*v1)(void *, struct nvml_memory *) =
		(int (*)(void *, struct nvml_memory *))dlsym(lib, "nvmlDeviceGetMemoryInfo");
	int (*v2)(void *, struct nvml_memory_v2 *) =
		(int (*)(void *, struct nvml_memory_v2 *))dlsym(lib, "nvmlDeviceGetMemoryInfo_v2");
	struct nvml_memory m1;
	struct nvml_memory_v2 m2 = { .version = (unsigned)(sizeof(m2) | 2u << 24) };
	void *dev;
	int r1, r2;

	if (!init || !handle || !v1 || !v2 || init() != 0 || handle(index, &dev) != 0) {
		printf("nvml: not usable\n");
		return;
	}
	r1 = v1(dev, &m1);
	r2 = v2(dev, &m2);
	printf("nvml %u v1 -> %d total %llu free %llu used %llu (MiB)\n", index, r1, m1.total >> 20,
	       m1.free >> 20, m1.used >> 20);
	printf("nvml %u v2 -> %d total %llu reserved %llu free %llu used %llu (MiB)\n", index, r2,
	       m2.total >> 20, m2.reserved >> 20, m2.free >> 20, m2.used >> 20);
}

/* info: what the driver and NVML (opened with dlopen, looked up with dlsym) report. */
static int info(void)
{
	size_t free_b = 0, total = 0, dtotal = 0;
	void *lib;
	int r1, r2;

	start();
	/* Each call before the printf that shows its results: arguments have no order. */
	r1 = (int)cuMemGetInfo_v2(&free_b, &total);
	r2 = (int)cuDeviceTotalMem_v2(&dtotal, 0);
	printf("cuMemGetInfo_v2 -> %d free %zu total %zu (MiB)\n", r1, free_b / MiB, total / MiB);
	printf("cuDeviceTotalMem_v2 -> %d total %zu (MiB)\n", r2, dtotal / MiB);
	if (!(lib = dlopen("libnvidia-ml.so.1", RTLD_NOW))) {
		printf("nvml: %s\n", dlerror());
		return 1;
	}
	nvml_report(lib, 0);
	nvml_report(lib, 1);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 6 && strcmp(argv[1], "rounds") == 0)
		return rounds(argv + 2);
	if (argc >= 7 && strcmp(argv[1], "churn") == 0)
		return churn(argv + 2);
	if (argc >= 5 && strcmp(argv[1], "hold") == 0)
		return hold(argv + 2);
	if (argc >= 5 && strcmp(argv[1], "forked") == 0)
		return forked(argv + 2);
	if (argc >= 5 && strcmp(argv[1], "later") == 0)
		return later(argv + 2);
	if (argc >= 4 && strcmp(argv[1], "spin") == 0)
		return spin(argv + 2);
	if (argc >= 3 && strcmp(argv[1], "fill") == 0)
		return fill_main(argv + 2, argc - 2);
	if (argc >= 2 && strcmp(argv[1], "info") == 0)
		return info();
	if (argc >= 3 && strcmp(argv[1], "cutself") == 0)
		return cutself(argv + 2);
	fprintf(stderr, "usage: memgroup_prog rounds|churn|spin|fill|info|cutself ...\n");
	return 2;
}
