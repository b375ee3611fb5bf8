/* SPDX-License-Identifier: MIT */
/* base/clock.c: the monotonic clock calls are timed with, and its TSC calibration. */
#include <time.h>
#include "clock.h"

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The TSC, scaled to nanoseconds on the monotonic clock's scale: ns = ns_base +
   ((tsc - tsc_base) * mult) >> 32. Reading it costs a few ns where a clock_gettime in a
   virtual machine can cost 20 or more; each timed call reads the clock twice. */
struct cua_tsc cua_tsc_scale;
#define tsc cua_tsc_scale

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>

static int invariant_tsc(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
		return 0;
	__get_cpuid(0x80000007u, &a, &b, &c, &d);
	return (d >> 8) & 1;
}

/* One monotonic time m and the TSC at that moment t: the TSC read on both sides of the
   clock read, the narrowest of 16 tries kept. A pair split by a preemption would be off by
   the preemption, and the rate from two such pairs by that much in 2 ms (a 100 us stall: 5%,
   where the GPU times' drift allowance is 50 ppm). Returns the kept pair's width in ticks. */
static uint64_t read_pair(uint64_t *m, uint64_t *t)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 16; i++) {
		uint64_t a = __rdtsc(), mm = monotonic_ns(), b = __rdtsc();

		if (b > a && b - a < best) {
			best = b - a;
			*m = mm;
			*t = a + (b - a) / 2;
		}
	}
	return best;
}

void cua_clock_calibrate(void)
{
	uint64_t t0, m0, t1, m1, w0, w1;

	if (tsc.on || !invariant_tsc())
		return;
	/* 2 ms against the monotonic clock, each end read as a narrow pair: a frequency error
	   of about 1 in 10^5 (two pairs of some 50 ns). */
	w0 = read_pair(&m0, &t0);
	do
		m1 = monotonic_ns();
	while (m1 - m0 < 2000000u);
	w1 = read_pair(&m1, &t1);
	if (w0 == UINT64_MAX || w1 == UINT64_MAX || t1 <= t0)
		return;
	tsc.mult = (uint64_t)(((unsigned __int128)(m1 - m0) << 32) / (t1 - t0));
	tsc.tsc_base = t1;
	tsc.ns_base = m1 + tsc.test_offset;
	__atomic_store_n(&tsc.on, 1, __ATOMIC_RELEASE);
}

uint64_t cua_clock_mono_ns(void)
{
	return monotonic_ns();
}
#else
void cua_clock_calibrate(void)
{
}

uint64_t cua_clock_mono_ns(void)
{
	return monotonic_ns();
}
#endif

void cua_clock_set_test_offset(uint64_t ns)
{
	tsc.test_offset = ns;
}
