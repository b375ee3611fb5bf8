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
};
extern struct cua_tsc cua_tsc_scale;
uint64_t cua_clock_slow_ns(void);

/* Monotonic nanoseconds: the TSC once calibrated, clock_gettime before or without one. */
CUA_HOT_INLINE uint64_t cua_clock_ns(void)
{
#if defined(__x86_64__)
	if (CUA_LIKELY(cua_tsc_scale.on))
		return cua_tsc_scale.ns_base +
		       (uint64_t)(((unsigned __int128)(__builtin_ia32_rdtsc() - cua_tsc_scale.tsc_base) *
				   cua_tsc_scale.mult) >> 32);
#endif
	return cua_clock_slow_ns();
}

/* Calibrates the TSC against CLOCK_MONOTONIC (2 ms of spinning). Called once at the first
   CUDA library, only when a hook times calls, so processes without CUDA pay nothing. */
void cua_clock_calibrate(void);
#endif
