// SPDX-License-Identifier: MIT
// tests/gpu/graph_nodes.cu: captures launches, a memset and a copy into a CUDA graph and prints the graph's nodes and edges, to show a tool left the capture unchanged.
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
	float *d, *h;
	cudaStream_t s;
	cudaGraph_t g;
	cudaGraphExec_t e;
	size_t nodes = 0, edges = 0;
	cudaGraphNode_t list[64];

	cudaMalloc(&d, n * 4);
	// Pinned: a copy to pageable memory cannot be captured.
	cudaMallocHost(&h, 4 * sizeof(float));
	cudaStreamCreate(&s);
	// Work before the capture on the same stream, timed by cuaudit.
	step<<<n / 256, 256, 0, s>>>(d, n);
	cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
	cudaMemsetAsync(d, 0, n * 4, s);
	for (int i = 0; i < 10; i++)
		step<<<n / 256, 256, 0, s>>>(d, n);
	cudaMemcpyAsync(h, d, 4 * sizeof(float), cudaMemcpyDeviceToHost, s);
	cudaError_t end = cudaStreamEndCapture(s, &g);
	cudaGraphGetNodes(g, nullptr, &nodes);
	cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges);
	printf("end capture: %s, nodes %zu, edges %zu\n", cudaGetErrorName(end), nodes, edges);
	if (nodes <= 64) {
		cudaGraphGetNodes(g, list, &nodes);
		for (size_t i = 0; i < nodes; i++) {
			cudaGraphNodeType t;
			cudaGraphNodeGetType(list[i], &t);
			printf("node %zu type %d\n", i, (int)t);
		}
	}
	cudaGraphInstantiate(&e, g, 0);
	for (int i = 0; i < 5; i++)
		cudaGraphLaunch(e, s);
	cudaStreamSynchronize(s);
	printf("x[0..3] = %.6f %.6f %.6f %.6f, last error %s\n", h[0], h[1], h[2], h[3],
	       cudaGetErrorName(cudaGetLastError()));
	return 0;
}
