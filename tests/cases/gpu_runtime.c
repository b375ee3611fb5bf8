/* SPDX-License-Identifier: MIT */
/* tests/cases/gpu_runtime.c: runtime launches under GPU timing: each timed once (not again for the runtime's own driver call), and the runtime's last error left to the program. */
#include <cuda_runtime_api.h>
#include <stdio.h>

/* The mock driver runs a "kernel" as a host function of this shape. */
static void bump(void **params, unsigned threads)
{
	(void)threads;
	(**(int **)params[0])++;
}

int main(void)
{
	int *d = NULL, h = 0;
	void *args[] = { &d };
	dim3 grid = { 4, 1, 1 }, block = { 1, 1, 1 };

	printf("malloc %d\n", (int)cudaMalloc((void **)&d, 64));
	printf("memset host %d\n", (int)cudaMemcpy(d, &h, sizeof(h), cudaMemcpyHostToDevice));
	/* Three launches of 4 ms on the legacy stream. */
	for (int i = 0; i < 3; i++)
		printf("launch %d\n", (int)cudaLaunchKernel((const void *)bump, grid, block, args, 0, 0));
	printf("last error after good launches %d\n", (int)cudaGetLastError());
	/* A launch the driver refuses sets the runtime's last error, once. */
	printf("bad launch %d\n", (int)cudaLaunchKernel(NULL, grid, block, args, 0, 0));
	printf("peek %d\n", (int)cudaPeekAtLastError());
	printf("last error %d\n", (int)cudaGetLastError());
	printf("last error again %d\n", (int)cudaGetLastError());
	printf("copy back %d\n", (int)cudaMemcpy(&h, d, sizeof(h), cudaMemcpyDeviceToHost));
	printf("value %d\n", h);
	return 0;
}
