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
	if (!strcmp(only, "events")) {
		// What a timed launch may ask of the driver (issue 21): each operation alone, in ns
		// per operation, on completed events and the legacy stream.
		const int P = 64;
		CUevent ev[P], nt[P];
		for (int i = 0; i < P; i++) {
			cuEventCreate(&ev[i], CU_EVENT_DEFAULT);
			cuEventCreate(&nt[i], CU_EVENT_DISABLE_TIMING);
		}
		auto launches = [&](int n, int what) {
			for (int i = 0; i < n; i++) {
				empty_kernel<<<1, 1>>>();
				if (what == 1)
					cuEventRecord(ev[i % P], CU_STREAM_LEGACY);
				else if (what == 2)
					cuEventRecord(nt[i % P], CU_STREAM_LEGACY);
				else if (what == 3) { // cuaudit's design by hand: an end event a launch,
					// and every 8 launches the 8 oldest of P in flight queried and timed
					float t;
					cuEventRecord(ev[i % P], CU_STREAM_LEGACY);
					if (i % 8 == 7 && i >= P)
						for (int k = 0; k < 8; k++)
							if (cuEventQuery(ev[(i + 1 + k) % P]) == CUDA_SUCCESS)
								cuEventElapsedTime(&t, ev[(i + k) % P], ev[(i + 1 + k) % P]);
				}
			}
			cudaDeviceSynchronize();
		};
		double base = median_ns([&](int n) { launches(n, 0); }, 20000, 9);
		double timing = median_ns([&](int n) { launches(n, 1); }, 20000, 9);
		double notiming = median_ns([&](int n) { launches(n, 2); }, 20000, 9);
		double design = median_ns([&](int n) { launches(n, 3); }, 20000, 9);
		for (int i = 0; i < P; i++)
			cuEventRecord(ev[i], CU_STREAM_LEGACY);
		cudaDeviceSynchronize();
		float ms;
		double query = median_ns([&](int n) { for (int i = 0; i < n; i++) cuEventQuery(ev[i % P]); },
					 200000, 9);
		double elapsed = median_ns(
			[&](int n) { for (int i = 0; i < n; i++) cuEventElapsedTime(&ms, ev[i % P], ev[(i + 1) % P]); },
			200000, 9);
		double current = median_ns([&](int n) { for (int i = 0; i < n; i++) cuCtxGetCurrent(&ctx); },
					   200000, 9);
		CUstreamCaptureStatus st;
		double capturing = median_ns(
			[&](int n) { for (int i = 0; i < n; i++) cuStreamIsCapturing(CU_STREAM_LEGACY, &st); },
			200000, 9);
		printf("launch %.2f\nlaunch+timing_event %.2f\nlaunch+event_no_timing %.2f\n"
		       "launch+timing_event+query_elapsed %.2f\n", base, timing, notiming, design);
		printf("event_query_done %.2f\nevent_elapsed_done %.2f\nctx_get_current %.2f\nstream_is_capturing %.2f\n",
		       query, elapsed, current, capturing);
	}
	return 0;
}
