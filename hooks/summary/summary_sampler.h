/* SPDX-License-Identifier: MIT */
/* hooks/summary/summary_sampler.h: the sampled summary's choice of the calls it times, and its unbiased estimate of the rest. */
#ifndef CUA_SUMMARY_SAMPLER_H
#define CUA_SUMMARY_SAMPLER_H

#include <stdint.h>
#include "stats.h"

/* CUAUDIT_SUMMARY_SAMPLE=N: every call is counted, but two clock reads are the floor of an
   exact time, so the counter path (a function the summary alone covers, no launch) times
   only some calls of a fast function. The calls of one function on one thread go in blocks
   of N; one call of each block, at a position drawn uniformly at random when the block
   starts, is timed (a pick), and stands for the N calls of its block. Every call is thus
   timed with probability 1/N whatever the program's pattern of calls (a step of 64 copies
   with one large one is no longer seen at the same position each time), and the estimated
   total, total_ns + (N-1) * pick_ns, is unbiased (Horvitz-Thompson). A block starting before
   CUA_SAMPLE_WARMUP calls were timed, or while the function's timed median is CUA_SAMPLE_SLOW_NS
   or more (half its timed calls took that long: a mean would be held above it by a few
   preempted calls on a loaded machine, and the function timed whole for good), is timed whole, each call standing for itself: the choice is made at the block's
   start from earlier calls only, which keeps the estimate unbiased, and once a block, so
   that a call of a block timed whole costs one compare more than the exact summary's. Calls on the general path (launches, a call
   other hooks also see, a patched entry) are all timed by the dispatch and stand for
   themselves. The report's error is a 95% interval from the picks' spread. */
#define CUA_SAMPLE_WARMUP 64
#define CUA_SAMPLE_SLOW_NS 1000

/* A number in [0, n), from one xorshift64* step of *rng; a state of 0 (a thread's first
   draw) is seeded from its own address, so that each thread draws its own sequence. */
static inline uint64_t cua_sampler_rand(uint64_t *rng, uint64_t n)
{
	uint64_t x = *rng ? *rng : 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*rng = x;
	return (uint64_t)(((unsigned __int128)((x * 0x2545f4914f6cdd1dull) >> 32) * n) >> 32);
}

/* Whether the row's next call (index s->calls) is timed, for blocks of n; starts the next
   block when this call is past the current one. */
static inline int cua_sampler_next(struct cua_stat *s, unsigned n, uint64_t *rng)
{
	uint64_t k = s->calls;

	if (__builtin_expect(k >= s->blk_end, 0)) {
		s->blk_all = n < 2 || s->timed < CUA_SAMPLE_WARMUP || 2 * s->slow >= s->timed;
		s->blk_end = k + (n < 2 ? 1 : n);
		s->pick = s->blk_all ? k : k + cua_sampler_rand(rng, n);
	}
	return s->blk_all || k == s->pick;
}

/* Before a timed call of duration ns is added to the row: it is a pick where its block is
   sampled and its index the one drawn. */
static inline void cua_sampler_note(struct cua_stat *s, uint64_t ns)
{
	uint64_t k = s->calls;

	s->slow += ns >= CUA_SAMPLE_SLOW_NS;
	if (!s->blk_all && k == s->pick && k < s->blk_end) {
		s->picks++;
		s->pick_ns += ns;
		s->pick_sumsq += (double)(int64_t)ns * (double)(int64_t)ns;
	}
}

/* The last block of one thread's row, while unfinished (m of its n calls made): its pick,
   drawn among all n positions, stands for n calls when it fell among the m made and for
   none when not yet; unbiased, but with a variance of m (n - m) times the calls' mean
   square. Returns m (n - m), summed over the threads' rows before they merge. */
static inline double cua_sampler_tail(const struct cua_stat *s, unsigned n)
{
	uint64_t m;

	if (s->blk_all || n < 2 || s->blk_end <= s->calls || s->blk_end - s->calls > n)
		return 0;
	m = s->calls - (s->blk_end - n);
	return (double)m * (double)(n - m);
}

/* Scales a sampled row's time to all its calls (each pick stands for n calls: total and
   sum of squares), so that avg_ns, stddev_ns and the shares read as estimates for every
   call; returns the half-width of the total's 95% interval, from the picks' spread (simple
   random sampling of the picked blocks: var = k n^2 (1 - 1/n) s^2 for k picks of sample
   variance s^2; a single pick shows no spread, and its own square stands in for s^2; plus
   the unfinished blocks' share, tail from cua_sampler_tail). min, max and the percentiles
   stay those of the timed calls. */
static inline uint64_t cua_sampler_estimate(struct cua_stat *s, unsigned n, double tail)
{
	double k = (double)s->picks, mean, var_s, var;

	if (!s->picks || n < 2)
		return 0;
	s->total_ns += (uint64_t)(n - 1) * s->pick_ns;
	s->sumsq += (double)(n - 1) * s->pick_sumsq;
	mean = (double)s->pick_ns / k;
	var_s = s->picks > 1 ? (s->pick_sumsq - k * mean * mean) / (k - 1) : mean * mean;
	if (var_s < 0)
		var_s = 0;
	var = k * (double)n * (double)n * (1.0 - 1.0 / n) * var_s + tail * (mean * mean + var_s);
	return cua_stats_sqrt(1.96 * 1.96 * var);
}

#endif
