/* SPDX-License-Identifier: MIT */
/* base/stats.h: per-call duration statistics with a log-linear histogram for percentiles. */
#ifndef CUA_STATS_H
#define CUA_STATS_H

#include <stdint.h>
#include "cuaudit.h"

/* Below 64 ns each value has its own bucket; above, each power of two has 16, so a
   percentile is exact to within 1/16 (6.25%) of its value. */
#define CUA_HIST_BUCKETS (64 + 58 * 16)

/* The fields every call updates come first, in one cache line (64-byte aligned blocks):
   calls, timed, errors, total, min, max, sum of squares; then the bindings and the
   histogram, of which a call touches one word each. */
struct cua_stat {
	uint64_t calls;
	/* Calls whose duration was measured: equal to calls unless the summary samples; the
	   time fields and the histogram then describe these calls only. */
	uint64_t timed;
	uint64_t errors;
	uint64_t total_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	double sumsq;
	uint64_t by_binding[CUAUDIT_BIND_COUNT];
	/* The sampled summary only (hooks/summary/summary.c, CUAUDIT_SUMMARY_SAMPLE=N): the calls of
	   one function on one thread go in blocks; blk_end is the index of the call after the
	   current block, pick the index of the one call timed in it, blk_all non-zero when the
	   block is timed whole. picks, pick_ns and pick_sumsq describe the timed calls that were
	   picks: each stands for N calls, so the estimated total is total_ns + (N-1) * pick_ns. */
	uint64_t blk_end, pick;
	uint64_t blk_all;
	uint64_t slow; /* timed calls of CUA_SAMPLE_SLOW_NS or more */
	uint64_t picks, pick_ns;
	double pick_sumsq;
	uint32_t hist[CUA_HIST_BUCKETS];
};

/* Inline: the summary adds one sample per intercepted call. */
static inline unsigned cua_stats_bucket(uint64_t ns)
{
	unsigned e;

	if (ns < 64)
		return (unsigned)ns;
	e = 63u - (unsigned)__builtin_clzll(ns); /* 6..63 */
	return 64 + (e - 6) * 16 + (unsigned)((ns >> (e - 4)) & 15);
}

/* The middle of a bucket's range: what a percentile falling in it reports. */
uint64_t cua_stats_bucket_value(unsigned bucket);

static inline void cua_stats_add(struct cua_stat *s, uint64_t ns, int error, unsigned binding)
{
	if (s->timed == 0 || ns < s->min_ns)
		s->min_ns = ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
	s->calls++;
	s->timed++;
	s->errors += error != 0;
	s->total_ns += ns;
	s->sumsq += (double)ns * (double)ns;
	if (binding < CUAUDIT_BIND_COUNT)
		s->by_binding[binding]++;
	s->hist[cua_stats_bucket(ns)]++;
}
/* cua_stats_add for a block made by cua_stats_fresh, with a binding kind the dispatch gave
   (always below CUAUDIT_BIND_COUNT): no test of the first sample, no range check
   (the exact summary's counter). */
static inline void cua_stats_fresh(struct cua_stat *s)
{
	s->min_ns = UINT64_MAX; /* read only when timed is non-zero */
	s->blk_all = 1;         /* the sampler's first call: a block of its own */
}

static inline __attribute__((always_inline)) void cua_stats_add_fast(struct cua_stat *s, uint64_t ns,
								     int error, unsigned binding)
{
	if (ns < s->min_ns)
		s->min_ns = ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
	s->calls++;
	s->timed++;
	s->errors += (unsigned)error;
	s->total_ns += ns;
	/* A duration is below 2^63: the signed conversion is one instruction. */
	s->sumsq += (double)(int64_t)ns * (double)(int64_t)ns;
	s->by_binding[binding]++;
	s->hist[cua_stats_bucket(ns)]++;
}

/* Counts a call whose duration was not measured (the sampled summary). */
static inline void cua_stats_count(struct cua_stat *s, int error, unsigned binding)
{
	s->calls++;
	s->errors += error != 0;
	if (binding < CUAUDIT_BIND_COUNT)
		s->by_binding[binding]++;
}

/* Adds b into a (merging threads). */
void cua_stats_merge(struct cua_stat *a, const struct cua_stat *b);
/* The value below which 'permille' thousandths of the calls fall (500: median, 990: p99). */
uint64_t cua_stats_percentile(const struct cua_stat *s, unsigned permille);
uint64_t cua_stats_stddev(const struct cua_stat *s);
/* The integer square root of v (0 for v <= 0): the module links no libm. */
uint64_t cua_stats_sqrt(double v);

#endif
