// SPDX-License-Identifier: MIT
// tests/gpu/cublas_busy.cu: cuBLAS SGEMMs and short kernels queued behind a long kernel, and a GEMM loop that queues faster than the GPU runs, for the exact GPU times of CUAUDIT_GPU_TIME.
#include <cstdio>
#include <vector>
#include <cublas_v2.h>
#include <cuda_runtime.h>

__global__ void spin(long long n)
{
	long long t0 = clock64();
	while (clock64() - t0 < n) {
	}
}

__global__ void bump(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += 1.0f;
}

int main()
{
	const int n = 1024, m = 1 << 20;
	float *a, *b, *c, *v, one = 1.0f, zero = 0.0f;
	std::vector<float> h(n * n, 0.5f);
	cublasHandle_t handle;

	cudaMalloc(&a, sizeof(float) * n * n);
	cudaMalloc(&b, sizeof(float) * n * n);
	cudaMalloc(&c, sizeof(float) * n * n);
	cudaMalloc(&v, sizeof(float) * m);
	cudaMemcpy(a, h.data(), sizeof(float) * n * n, cudaMemcpyHostToDevice);
	cudaMemcpy(b, h.data(), sizeof(float) * n * n, cudaMemcpyHostToDevice);
	cudaMemset(v, 0, sizeof(float) * m);
	cublasCreate(&handle);
	cudaDeviceSynchronize();
	for (int rep = 0; rep < 4; rep++) {
		spin<<<1, 1>>>(50000000ll); // about 25 ms: the host queues the rest meanwhile
		for (int i = 0; i < 50; i++)
			cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
		for (int i = 0; i < 200; i++)
			bump<<<(m + 255) / 256, 256>>>(v, m);
		cudaDeviceSynchronize();
	}
	for (int i = 0; i < 300; i++) {
		cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
		bump<<<(m + 255) / 256, 256>>>(v, m);
	}
	cudaError_t e = cudaDeviceSynchronize();
	float first = 0;
	cudaMemcpy(&first, v, sizeof(float), cudaMemcpyDeviceToHost);
	printf("cublas busy: %s, v[0] %.0f\n", cudaGetErrorString(e), first);
	cublasDestroy(handle);
	return e == cudaSuccess ? 0 : 1;
}
