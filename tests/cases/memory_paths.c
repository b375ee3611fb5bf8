/* SPDX-License-Identifier: MIT */
/* tests/cases/memory_paths.c: every allocation path of the driver, for the memory limit: its results, and the free memory each leaves. */
#include <stdint.h>
#include <string.h>
#include "common.h"

/* The 32-bit legacy forms, which cuda.h maps away from. */
#undef cuMemGetInfo
#undef cuDeviceTotalMem
CUresult cuMemGetInfo(unsigned int *free_bytes, unsigned int *total);
CUresult cuDeviceTotalMem(unsigned int *bytes, CUdevice dev);

#define MiB (1ull << 20)
static CUcontext ctx[2];

static void info(const char *what)
{
	size_t f = 0, t = 0;
	CUresult r = cuMemGetInfo_v2(&f, &t);

	printf("%-28s info %d: free %zu MiB%s total %zu MiB\n", what, (int)r, (size_t)(f / MiB),
	       f % MiB ? "+" : "", (size_t)(t / MiB));
}

static void start(int devices)
{
	CUdevice d;

	CHECK(cuInit(0) == CUDA_SUCCESS);
	for (int i = 0; i < devices; i++) {
		CHECK(cuDeviceGet(&d, i) == CUDA_SUCCESS);
		CHECK(cuDevicePrimaryCtxRetain(&ctx[i], d) == CUDA_SUCCESS);
	}
	CHECK(cuCtxSetCurrent(ctx[0]) == CUDA_SUCCESS);
}

/* Allocate and free 1 MiB twelve times; a fault on every other allocation. */
static void fault_loop(void)
{
	CUdeviceptr p;

	start(1);
	for (int i = 1; i <= 12; i++) {
		CUresult r = cuMemAlloc(&p, MiB);

		printf("cuMemAlloc #%d -> %d\n", i, (int)r);
		if (r == CUDA_SUCCESS)
			cuMemFree(p);
	}
	info("after the loop");
}

/* Keep nine 1 MiB allocations where they succeed, then free them all. */
static void combined(void)
{
	CUdeviceptr p[9];
	int n = 0;

	start(1);
	for (int i = 1; i <= 9; i++) {
		CUresult r = cuMemAlloc(&p[n], MiB);

		printf("cuMemAlloc #%d -> %d\n", i, (int)r);
		n += r == CUDA_SUCCESS;
	}
	info("kept");
	while (n > 0)
		CHECK(cuMemFree(p[--n]) == CUDA_SUCCESS);
	info("all freed");
}

/* Error-path probes with sizes near SIZE_MAX, then ordinary calls. */
static void huge(void)
{
	CUdeviceptr p, q, big = 0;
	size_t pitch = 0;

	start(1);
	SHOW(cuMemAlloc(&p, MiB));
	SHOW(cuMemAlloc(&big, SIZE_MAX));
	SHOW(cuMemAlloc(&big, SIZE_MAX - MiB + 1));
	SHOW(cuMemAllocPitch(&big, &pitch, SIZE_MAX / 2, 3, 4));
	SHOW(cuMemAllocManaged(&big, SIZE_MAX, CU_MEM_ATTACH_GLOBAL));
	info("after the probes");
	SHOW(cuMemAlloc(&q, 3 * MiB));
	info("full");
	SHOW(cuMemFree(q));
	SHOW(cuMemFree(p));
	info("empty");
}

static void paths(void)
{
	CUdeviceptr p[8] = { 0 }, va = 0;
	size_t pitch = 0, total = 0;
	unsigned f1 = 0, t1 = 0;
	CUmemoryPool pool = NULL, dpool = NULL;
	CUmemPoolProps props;
	CUmemAllocationProp prop;
	CUmemGenericAllocationHandle h = 0, hh = 0, imported = 0;
	CUipcMemHandle ipc;
	cuuint64_t threshold = UINT64_MAX;

	start(2);
	info("start");
	SHOW(cuMemAllocPitch(&p[0], &pitch, 1000, 1024, 4));
	printf("pitch %zu\n", pitch);
	info("pitch 1000x1024");
	SHOW(cuMemAllocManaged(&p[1], MiB, CU_MEM_ATTACH_GLOBAL));
	info("managed 1 MiB");
	SHOW(cuMemAllocAsync(&p[2], MiB, NULL));
	info("async 1 MiB");
	SHOW(cuMemFreeAsync(p[2], NULL));
	info("async freed");
	SHOW(cuMemAllocAsync(&p[2], 7 * MiB, NULL));
	info("async 7 MiB refused");

	memset(&props, 0, sizeof(props));
	props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	props.location.id = 1;
	SHOW(cuMemPoolCreate(&pool, &props));
	SHOW(cuMemAllocFromPoolAsync(&p[3], 2 * MiB, pool, NULL));
	info("pool of device 1: 2 MiB");
	SHOW(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold));
	SHOW(cuMemPoolTrimTo(pool, 0));
	SHOW(cuDeviceGetDefaultMemPool(&dpool, 1));
	SHOW(cuMemAllocFromPoolAsync(&p[4], 3 * MiB, dpool, NULL));

	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 1;
	SHOW(cuMemCreate(&h, 2 * MiB, &prop, 0));
	SHOW(cuMemCreate(&hh, 2 * MiB, &prop, 0));
	SHOW(cuMemAddressReserve(&va, 4 * MiB, 0, 0, 0));
	SHOW(cuMemMap(va, 2 * MiB, 0, h, 0));
	SHOW(cuMemMap(va + 2 * MiB, 2 * MiB, 0, h, 0));
	prop.location.type = CU_MEM_LOCATION_TYPE_HOST;
	prop.location.id = 0;
	SHOW(cuMemCreate(&hh, 64 * MiB, &prop, 0));
	SHOW(cuMemImportFromShareableHandle(&imported, (void *)(uintptr_t)7,
					    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	memset(&ipc, 0, sizeof(ipc));
	SHOW(cuIpcOpenMemHandle(&p[5], ipc, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	CHECK(cuCtxSetCurrent(ctx[1]) == CUDA_SUCCESS);
	info("device 1");
	SHOW(cuMemRelease(imported));
	SHOW(cuIpcCloseMemHandle(p[5]));
	info("device 1, imports closed");
	SHOW(cuMemRelease(h));
	info("device 1, handle released");
	SHOW(cuMemFreeAsync(p[3], NULL));
	info("device 1, pool freed");
	CHECK(cuCtxSetCurrent(ctx[0]) == CUDA_SUCCESS);
	info("device 0");

	SHOW(cuDeviceTotalMem_v2(&total, 0));
	printf("total of device 0: %zu MiB\n", (size_t)(total / MiB));
	SHOW(cuDeviceTotalMem_v2(&total, 1));
	printf("total of device 1: %zu MiB\n", (size_t)(total / MiB));
	SHOW(cuMemGetInfo(&f1, &t1));
	printf("32-bit info: free %u MiB total %u MiB\n", f1 >> 20, t1 >> 20);
	SHOW(cuDeviceTotalMem(&t1, 1));
	printf("32-bit total of device 1: %u MiB\n", t1 >> 20);
	SHOW(cuMemFree(p[0]));
	SHOW(cuMemFree(p[1]));
	info("device 0, all freed");
}

int main(int argc, char **argv)
{
	CHECK(argc == 2);
	if (strcmp(argv[1], "fault_loop") == 0)
		fault_loop();
	else if (strcmp(argv[1], "combined") == 0)
		combined();
	else if (strcmp(argv[1], "huge") == 0)
		huge();
	else
		paths();
	return 0;
}
