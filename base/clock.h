/* SPDX-License-Identifier: MIT */
/* base/clock.h: the monotonic clock calls are timed with (the TSC once calibrated). */
#ifndef CUA_CLOCK_H
#define CUA_CLOCK_H

#include <stdint.h>
#include "compiler.h"

/* The TSC's scale to nanoseconds, set once by cua_clock_calibrate. */
struct cua_tsc {
	int on;
	uint64_t tsc_base, ns_base, mult;
	uint64_t test_offset; /* CUAUDIT_TEST_CLOCK_OFFSET_MS, in ns; 0 but in tests */
};
extern struct cua_tsc cua_tsc_scale;
/* CLOCK_MONOTONIC itself (clock_gettime, a vDSO read): the same clock in every process of
   the machine. Every time that another process compares with its own (the compute share's
   file) is on it, or carries the definition of the clock it is on (the live view's calls,
   stamped on the hot path: rt/livefmt.h, clock_*): cuaudit's clock below is the process's
   own, its TSC's rate calibrated once against this clock in 2 ms, so two processes' clocks
   drift apart (some 10 ms an hour) while each stays right for the intervals it measures. */
uint64_t cua_clock_mono_ns(void);

/* Monotonic nanoseconds: the TSC once calibrated, clock_gettime before or without one. */
CUA_HOT_INLINE uint64_t cua_clock_ns(void)
{
#if defined(__x86_64__)
	if (CUA_LIKELY(cua_tsc_scale.on))
		return cua_tsc_scale.ns_base +
		       (uint64_t)(((unsigned __int128)(__builtin_ia32_rdtsc() - cua_tsc_scale.tsc_base) *
				   cua_tsc_scale.mult) >> 32);
#endif
	return cua_clock_mono_ns() + cua_tsc_scale.test_offset;
}

/* Calibrates the TSC against CLOCK_MONOTONIC (2 ms of spinning). Called once at the first
   CUDA library, only when a hook times calls, so processes without CUDA pay nothing. */
void cua_clock_calibrate(void);
/* Test only (CUAUDIT_TEST_CLOCK_OFFSET_MS, read in la_version): puts cuaudit's clock ns
   ahead of CLOCK_MONOTONIC, as a long-lived process's TSC drifts. Before the first read. */
void cua_clock_set_test_offset(uint64_t ns);
#endif
