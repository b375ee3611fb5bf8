// SPDX-License-Identifier: MIT
// tests/gpu/cublas_gemm.cu: one cuBLAS SGEMM; cuBLAS reaches the driver by dlsym and cuGetProcAddress.
#include <cstdio>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <vector>

int main()
{
	const int n = 512;
	std::vector<float> a(n * n), b(n * n), c(n * n);
	for (int i = 0; i < n * n; i++) {
		a[i] = (float)(i % 13) * 0.25f;
		b[i] = (float)(i % 7) * 0.5f;
	}
	float *da, *db, *dc;
	cudaMalloc(&da, n * n * 4);
	cudaMalloc(&db, n * n * 4);
	cudaMalloc(&dc, n * n * 4);
	cudaMemcpy(da, a.data(), n * n * 4, cudaMemcpyHostToDevice);
	cudaMemcpy(db, b.data(), n * n * 4, cudaMemcpyHostToDevice);
	cublasHandle_t h;
	cublasCreate(&h);
	float one = 1, zero = 0;
	cublasStatus_t st = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, da, n, db, n, &zero, dc, n);
	cudaMemcpy(c.data(), dc, n * n * 4, cudaMemcpyDeviceToHost);
	double sum = 0;
	for (float v : c)
		sum += v;
	cublasDestroy(h);
	printf("sgemm status %d, checksum %.1f, kernels launched: 1\n", (int)st, sum);
	return 0;
}
