/* SPDX-License-Identifier: MIT */
/* base/stats.c: accumulates call durations and reads percentiles back from a histogram. */
#include <string.h>
#include "stats.h"

uint64_t cua_stats_bucket_value(unsigned bucket)
{
	unsigned e, sub;
	uint64_t lo, width;

	if (bucket < 64)
		return bucket;
	e = (bucket - 64) / 16 + 6;
	sub = (bucket - 64) % 16;
	width = (uint64_t)1 << (e - 4);
	lo = ((uint64_t)1 << e) + sub * width;
	return lo + width / 2;
}

void cua_stats_merge(struct cua_stat *a, const struct cua_stat *b)
{
	if (!b->calls)
		return;
	if (b->timed && (!a->timed || b->min_ns < a->min_ns))
		a->min_ns = b->min_ns;
	if (b->max_ns > a->max_ns)
		a->max_ns = b->max_ns;
	a->calls += b->calls;
	a->timed += b->timed;
	a->errors += b->errors;
	a->total_ns += b->total_ns;
	a->sumsq += b->sumsq;
	a->picks += b->picks;
	a->pick_ns += b->pick_ns;
	a->pick_sumsq += b->pick_sumsq;
	for (unsigned k = 0; k < CUAUDIT_BIND_COUNT; k++)
		a->by_binding[k] += b->by_binding[k];
	for (unsigned i = 0; i < CUA_HIST_BUCKETS; i++)
		a->hist[i] += b->hist[i];
}

uint64_t cua_stats_percentile(const struct cua_stat *s, unsigned permille)
{
	/* The rank of the wanted call, 1-based, rounded up: p50 of 4 calls is the 2nd. */
	uint64_t n = s->timed ? s->timed : s->calls; /* the histogram holds the timed calls */
	uint64_t rank = (n * permille + 999) / 1000, seen = 0;

	if (!n)
		return 0;
	if (rank == 0)
		rank = 1;
	for (unsigned i = 0; i < CUA_HIST_BUCKETS; i++) {
		seen += s->hist[i];
		if (seen >= rank) {
			uint64_t v = cua_stats_bucket_value(i);

			/* Never report outside what was seen. */
			return v < s->min_ns ? s->min_ns : v > s->max_ns ? s->max_ns : v;
		}
	}
	return s->max_ns;
}

uint64_t cua_stats_sqrt(double v)
{
	uint64_t lo = 0, hi = 1ull << 48;

	if (v <= 0)
		return 0;
	while (lo + 1 < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if ((double)mid * (double)mid <= v)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

uint64_t cua_stats_stddev(const struct cua_stat *s)
{
	double mean, var;

	if (s->calls < 2)
		return 0;
	mean = (double)s->total_ns / (double)s->calls;
	var = s->sumsq / (double)s->calls - mean * mean;
	return cua_stats_sqrt(var);
}
