// SPDX-License-Identifier: MIT
// tests/gpu/threads_ptds.cu: four threads launching on their per-thread default streams (--default-stream per-thread).
#include <cstdio>
#include <cuda_runtime.h>
#include <thread>
#include <vector>

__global__ void fill(int *out, int v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] += v;
}

int main()
{
	const int n = 1 << 16, threads = 4, reps = 10;
	std::vector<long> sums(threads);
	std::vector<std::thread> ts;
	for (int t = 0; t < threads; t++)
		ts.emplace_back([&, t] {
			int *d;
			std::vector<int> h(n);
			cudaMalloc(&d, n * 4);
			cudaMemset(d, 0, n * 4);
			for (int r = 0; r < reps; r++)
				fill<<<n / 256, 256>>>(d, t + 1, n);
			cudaStreamSynchronize(cudaStreamPerThread);
			cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost);
			long s = 0;
			for (int v : h)
				s += v;
			sums[t] = s;
			cudaFree(d);
		});
	for (auto &t : ts)
		t.join();
	printf("sums %ld %ld %ld %ld, kernels launched: %d\n", sums[0], sums[1], sums[2], sums[3],
	       threads * reps);
	return 0;
}
