// SPDX-License-Identifier: MIT
// tests/gpu/kernels.cu: the kernel the driver-API program loads as a cubin.
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] * 2.0f + b[i];
}
