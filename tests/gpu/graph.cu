// SPDX-License-Identifier: MIT
// tests/gpu/graph.cu: ten launches captured into a CUDA graph, then the graph launched five times.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void step(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * 0.5f + 1.0f;
}

int main()
{
	const int n = 1 << 16;
	float *d, h[4];
	cudaStream_t s;
	cudaGraph_t g;
	cudaGraphExec_t e;
	cudaMalloc(&d, n * 4);
	cudaMemset(d, 0, n * 4);
	cudaStreamCreate(&s);
	cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
	for (int i = 0; i < 10; i++)
		step<<<n / 256, 256, 0, s>>>(d, n);
	cudaStreamEndCapture(s, &g);
	cudaGraphInstantiate(&e, g, 0);
	for (int i = 0; i < 5; i++)
		cudaGraphLaunch(e, s);
	cudaStreamSynchronize(s);
	cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
	printf("after 50 steps x[0..3] = %.6f %.6f %.6f %.6f, graph launches: 5\n", h[0], h[1], h[2], h[3]);
	return 0;
}
