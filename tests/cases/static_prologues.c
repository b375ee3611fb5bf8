/* SPDX-License-Identifier: MIT */
/* tests/cases/static_prologues.c: calls the assembly runtime functions whose entries test the patcher's refusals. */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>

void **__cudaRegisterFatBinary(void *fat_cubin);

int main(void)
{
	static int cubin;
	void *p = NULL;
	int n = -1, dev = -1;
	size_t free_bytes = 0, total = 0;
	void **h = __cudaRegisterFatBinary(&cubin);

	int r;

	printf("register -> %s\n", h && *h == (void *)&cubin ? "handle" : "wrong");
	r = (int)cudaMalloc(&p, 64);
	printf("cudaMalloc -> %d, %#lx\n", r, (unsigned long)(uintptr_t)p);
	r = (int)cudaGetDeviceCount(&n);
	printf("cudaGetDeviceCount -> %d, %d\n", r, n);
	printf("cudaFree(NULL) -> %d\n", (int)cudaFree(NULL));
	printf("cudaFree(p) -> %d\n", (int)cudaFree(p));
	r = (int)cudaGetDevice(&dev);
	printf("cudaGetDevice -> %d, %d\n", r, dev);
	r = (int)cudaMemGetInfo(&free_bytes, &total);
	printf("cudaMemGetInfo -> %d, %zu %zu\n", r, free_bytes, total);
	printf("cudaDeviceSynchronize -> %d\n", (int)cudaDeviceSynchronize());
	return 0;
}
