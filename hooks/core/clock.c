/* SPDX-License-Identifier: MIT */
/* hooks/core/clock.c: the monotonic clock calls are timed with, and its TSC calibration. */
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

void cua_clock_calibrate(void)
{
	uint64_t t0, m0, t1, m1;

	if (tsc.on || !invariant_tsc())
		return;
	/* 2 ms against the monotonic clock: a frequency error of about 1 in 10^5. */
	m0 = monotonic_ns();
	t0 = __rdtsc();
	do
		m1 = monotonic_ns();
	while (m1 - m0 < 2000000u);
	t1 = __rdtsc();
	if (t1 <= t0)
		return;
	tsc.mult = (uint64_t)(((unsigned __int128)(m1 - m0) << 32) / (t1 - t0));
	tsc.tsc_base = t1;
	tsc.ns_base = m1;
	__atomic_store_n(&tsc.on, 1, __ATOMIC_RELEASE);
}

uint64_t cua_clock_slow_ns(void)
{
	return monotonic_ns();
}
#else
void cua_clock_calibrate(void)
{
}

uint64_t cua_clock_slow_ns(void)
{
	return monotonic_ns();
}
#endif
