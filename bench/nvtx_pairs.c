/* SPDX-License-Identifier: MIT */
/* bench/nvtx_pairs.c: times N nvtxRangePushA/nvtxRangePop pairs (the toolkit's header-only NVTX v3), after one warm-up pair that loads the injection library. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <nvtx3/nvToolsExt.h>

static double now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Usage: nvtx_pairs N [REPEATS]: prints the best of REPEATS runs, in ns per pair, by the
   wall clock and by the thread's CPU time (on a loaded machine the second leaves out the time
   other processes had the core). */
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int repeats = argc > 2 ? atoi(argv[2]) : 5;
	double best = 1e30, best_cpu = 1e30;

	nvtxRangePushA("warm-up");
	nvtxRangePop();
	for (int r = 0; r < repeats; r++) {
		double t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);

		for (long i = 0; i < n; i++) {
			nvtxRangePushA("step");
			nvtxRangePop();
		}
		double per = (now_ns(CLOCK_MONOTONIC) - t0) / (double)n;
		double cpu = (now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / (double)n;

		if (per < best)
			best = per;
		if (cpu < best_cpu)
			best_cpu = cpu;
	}
	printf("%.1f ns per push/pop pair (CPU time %.1f ns; best of %d runs of %ld)\n", best, best_cpu,
	       repeats, n);
	return 0;
}
