/* SPDX-License-Identifier: MIT */
/* tests/cases/hooks_alloc.c: allocations through both layers, for the memory limit and fault injection. */
#include <cuda_runtime_api.h>
#include <string.h>
#include "common.h"

static void info(void)
{
	size_t free_b = 0, total = 0, rfree = 0, rtotal = 0;
	CUresult r = cuMemGetInfo(&free_b, &total);
	cudaError_t e = cudaMemGetInfo(&rfree, &rtotal);

	printf("driver info %d: free %zu total %zu; runtime info %d: free %zu total %zu\n", (int)r,
	       free_b, total, (int)e, rfree, rtotal);
}

int main(int argc, char **argv)
{
	CUdeviceptr d[4] = { 0 };
	void *p[4] = { 0 };

	CHECK(argc == 2);
	CHECK(cudaFree(NULL) == cudaSuccess || 1); /* starts the runtime */
	if (strcmp(argv[1], "limit") == 0) {
		/* With CUAUDIT_MEM_LIMIT=1MiB: two 512 KiB allocations fill it, one through each
		   layer; the runtime's own driver allocation must not be counted twice. */
		printf("cudaMalloc 512KiB -> %d\n", (int)cudaMalloc(&p[0], 512 << 10));
		info();
		printf("cuMemAlloc 512KiB -> %d\n", (int)cuMemAlloc(&d[0], 512 << 10));
		info();
		printf("cudaMalloc 1 -> %d\n", (int)cudaMalloc(&p[1], 1));
		printf("cuMemAlloc 1 -> %d\n", (int)cuMemAlloc(&d[1], 1));
		printf("cudaFree -> %d\n", (int)cudaFree(p[0]));
		info();
		printf("cuMemAlloc 256KiB -> %d\n", (int)cuMemAlloc(&d[2], 256 << 10));
		printf("cudaMalloc 256KiB -> %d\n", (int)cudaMalloc(&p[2], 256 << 10));
		printf("cudaMalloc 1 -> %d\n", (int)cudaMalloc(&p[3], 1));
		printf("cuMemFree -> %d\n", (int)cuMemFree(d[0]));
		printf("cudaMalloc 1 -> %d\n", (int)cudaMalloc(&p[3], 1));
		return 0;
	}
	if (strcmp(argv[1], "zero") == 0) {
		/* Zero bytes through the runtime: success and no address (on an H200 the
		   runtime wrote NULL; over the mock driver it leaves the pointer, NULL here);
		   then the quota is whole: 1 MiB fits, once. */
		p[0] = p[1] = NULL;
		printf("cudaMalloc 0 -> %d %s\n", (int)cudaMalloc(&p[0], 0), p[0] ? "address" : "NULL");
		printf("cudaMallocManaged 0 -> %d %s\n", (int)cudaMallocManaged(&p[1], 0, cudaMemAttachGlobal),
		       p[1] ? "address" : "NULL");
		printf("cudaMalloc 1MiB -> %d\n", (int)cudaMalloc(&p[2], 1 << 20));
		info();
		printf("cudaFree -> %d\n", (int)cudaFree(p[2]));
		return 0;
	}
	/* "loop": nine driver and five runtime allocations, each freed at once. */
	for (int i = 1; i <= 9; i++) {
		CUresult r = cuMemAlloc(&d[0], 64);

		printf("cuMemAlloc #%d -> %d\n", i, (int)r);
		if (r == CUDA_SUCCESS)
			cuMemFree(d[0]);
	}
	for (int i = 1; i <= 5; i++) {
		cudaError_t e = cudaMalloc(&p[0], 64);

		printf("cudaMalloc #%d -> %d\n", i, (int)e);
		if (e == cudaSuccess)
			cudaFree(p[0]);
	}
	return 0;
}
