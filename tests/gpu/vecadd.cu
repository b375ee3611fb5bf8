// SPDX-License-Identifier: MIT
// tests/gpu/vecadd.cu: a runtime-API program with <<<>>> launches, built with static and with shared cudart.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void vecadd(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] * 2.0f + b[i];
}

int main()
{
	const int n = 1 << 20;
	float *ha = new float[n], *hb = new float[n], *hc = new float[n];
	float *a, *b, *c;
	for (int i = 0; i < n; i++) {
		ha[i] = (float)(i % 1000) * 0.5f;
		hb[i] = (float)(i % 7);
	}
	cudaMalloc(&a, n * sizeof(float));
	cudaMalloc(&b, n * sizeof(float));
	cudaMalloc(&c, n * sizeof(float));
	cudaMemcpy(a, ha, n * sizeof(float), cudaMemcpyHostToDevice);
	cudaMemcpy(b, hb, n * sizeof(float), cudaMemcpyHostToDevice);
	for (int rep = 0; rep < 10; rep++)
		vecadd<<<n / 256, 256>>>(a, b, c, n);
	cudaError_t err = cudaDeviceSynchronize();
	cudaMemcpy(hc, c, n * sizeof(float), cudaMemcpyDeviceToHost);
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += hc[i];
	cudaFree(a);
	cudaFree(b);
	cudaFree(c);
	printf("status %d, 10 launches, checksum %.1f\n", (int)err, sum);
	return 0;
}
