// SPDX-License-Identifier: MIT
// bench/calls.cu: per-call cost of four CUDA paths: the median ns per call over repeated passes after warm-up.
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <x86intrin.h>
#include <cstring>
#include <vector>

__global__ void empty_kernel() {}

typedef CUresult (*ctx_get_current_fn)(CUcontext *);

static double now_ns()
{
	return (double)std::chrono::duration_cast<std::chrono::nanoseconds>(
		       std::chrono::steady_clock::now().time_since_epoch())
		.count();
}

// Runs body(n) for n calls, 'passes' times after one warm-up pass; returns the median ns/call.
template <class F> static double median_ns(F body, int n, int passes)
{
	std::vector<double> v;
	const char *scale = getenv("BENCH_SCALE");

	if (scale && atoi(scale) > 1)
		n /= atoi(scale);
	body(n);
	for (int p = 0; p < passes; p++) {
		double t0 = now_ns();
		body(n);
		v.push_back((now_ns() - t0) / n);
	}
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : "";
	CUcontext ctx;
	int dev;

	cudaFree(0); // creates the primary context
	cudaGetDevice(&dev);

	if (!*only || !strcmp(only, "plt")) {
		// (a) cuCtxGetCurrent through the program's own PLT slot (linked with -lcuda).
		double ns = median_ns([&](int n) { for (int i = 0; i < n; i++) cuCtxGetCurrent(&ctx); },
				      2000000, 15);
		printf("cuCtxGetCurrent_plt %.2f\n", ns);
	}
	if (!*only || !strcmp(only, "procaddress")) {
		// (b) the same through a pointer from cuGetProcAddress.
		void *p = nullptr;
		CUdriverProcAddressQueryResult st;
		cuGetProcAddress("cuCtxGetCurrent", &p, 12000, 0, &st);
		ctx_get_current_fn f = (ctx_get_current_fn)p;
		double ns = median_ns([&](int n) { for (int i = 0; i < n; i++) f(&ctx); }, 2000000, 15);
		printf("cuCtxGetCurrent_procaddress %.2f\n", ns);
	}
	if (!*only || !strcmp(only, "cudart")) {
		// (c) cudaGetDevice through shared libcudart.
		double ns = median_ns([&](int n) { for (int i = 0; i < n; i++) cudaGetDevice(&dev); },
				      2000000, 15);
		printf("cudaGetDevice_shared %.2f\n", ns);
	}
	if (!strcmp(only, "clock")) {
		// What each timed call pays twice: the TSC, and clock_gettime for comparison.
		unsigned long long acc = 0;
		struct timespec ts;
		double tsc = median_ns([&](int n) { for (int i = 0; i < n; i++) acc += __rdtsc(); },
				       2000000, 15);
		double cg = median_ns(
			[&](int n) {
				for (int i = 0; i < n; i++) {
					clock_gettime(CLOCK_MONOTONIC, &ts);
					acc += ts.tv_nsec;
				}
			},
			2000000, 15);
		printf("rdtsc %.2f\nclock_gettime %.2f\n", tsc, cg + (acc & 0) * 0.0);
	}
	if (!*only || !strcmp(only, "launch")) {
		// (d) an empty kernel launch, asynchronous, synchronised once per pass.
		double ns = median_ns(
			[&](int n) {
				for (int i = 0; i < n; i++)
					empty_kernel<<<1, 1>>>();
				cudaDeviceSynchronize();
			},
			20000, 15);
		printf("empty_launch %.2f\n", ns);
	}
	return 0;
}
