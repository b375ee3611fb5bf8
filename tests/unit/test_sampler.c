/* SPDX-License-Identifier: MIT */
/* tests/unit/test_sampler.c: the sampled summary's estimate against the exact totals of known call patterns: unbiased, and inside its stated error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "stats.h"
#include "summary_sampler.h"

#define N 64

typedef uint64_t (*pattern_fn)(uint64_t i, uint64_t *lcg);

/* Runs calls durations of a pattern through the sampler as the counter path does; returns
   the estimated total in *est and its 95% half-width, and the true total in *truth. */
static uint64_t run(pattern_fn f, uint64_t calls, uint64_t seed, uint64_t *est, uint64_t *truth,
		    uint64_t *timed)
{
	static struct cua_stat s;
	uint64_t rng = seed | 1, lcg = seed * 2654435761u + 1, err;
	int take;

	memset(&s, 0, sizeof(s));
	cua_stats_fresh(&s);
	*truth = 0;
	take = 1; /* the row's first call is timed (the skip byte starts at 0) */
	for (uint64_t i = 0; i < calls; i++) {
		uint64_t ns = f(i, &lcg);

		*truth += ns;
		if (take) {
			cua_sampler_note(&s, ns);
			cua_stats_add(&s, ns, 0, 0);
		} else {
			cua_stats_count(&s, 0, 0);
		}
		take = cua_sampler_next(&s, N, &rng);
	}
	*timed = s.timed;
	assert_int_equal(s.calls, calls);
	err = cua_sampler_estimate(&s, N, cua_sampler_tail(&s, N));
	*est = s.total_ns;
	return err;
}

/* Uniform in [140, 360): a coefficient of variation of 0.25. */
static uint64_t steady(uint64_t i, uint64_t *lcg)
{
	(void)i;
	*lcg = *lcg * 6364136223846793005ull + 1442695040888963407ull;
	return 140 + (*lcg >> 33) % 220;
}

/* A step of 64 calls, one of them large: the pattern a fixed sampling phase misses. */
static uint64_t periodic(uint64_t i, uint64_t *lcg)
{
	(void)lcg;
	return i % 64 == 63 ? 30000 : 200;
}

static uint64_t bimodal(uint64_t i, uint64_t *lcg)
{
	(void)i;
	*lcg = *lcg * 6364136223846793005ull + 1442695040888963407ull;
	return (*lcg >> 62) & 1 ? 900 : 100;
}

/* The first 64 calls slow (first use), the rest fast: the warm-up calls stand for themselves. */
static uint64_t first_slow(uint64_t i, uint64_t *lcg)
{
	(void)lcg;
	return i < 64 ? 100000 : 150;
}

static uint64_t slow(uint64_t i, uint64_t *lcg)
{
	(void)lcg;
	return 1500 + i % 7;
}

static double rel(uint64_t a, uint64_t b)
{
	return ((double)a - (double)b) / (double)b;
}

/* Over many seeds: the mean estimate is within 'bias' of the truth, the stated 95%
   interval holds the truth in at least 'coverage' of the runs, and (each > 0) the estimate
   is within 'each' of the truth in at least 95% of them. */
static void check(pattern_fn f, uint64_t calls, double bias, double coverage, double each)
{
	const int runs = 200;
	double sum = 0;
	int inside = 0, near = 0;

	for (int r = 0; r < runs; r++) {
		uint64_t est, truth, timed, err = run(f, calls, 0x1234567ull * (uint64_t)(r + 1), &est, &truth, &timed);
		double d = rel(est, truth);

		sum += d;
		inside += (est > truth ? est - truth : truth - est) <= err;
		near += d <= each && d >= -each;
		assert_true(timed < calls);
	}
	/* The bound the documentation states, at 95%. */
	if (each > 0 && near < 0.95 * runs)
		fail_msg("within %.0f%% of the truth in %d of %d runs", 100 * each, near, runs);
	if (sum / runs > bias || sum / runs < -bias)
		fail_msg("mean error %.3f%% over %d runs", 100 * sum / runs, runs);
	if (inside < coverage * runs)
		fail_msg("the 95%% interval held the truth in %d of %d runs", inside, runs);
}

/* The documented bound: a function of 10,000 calls or more whose durations have a
   coefficient of variation of 0.3 or less is estimated within 5% with 95% probability; one
   that varies more is within its printed interval. */
static void steady_calls_within_5_percent(void **state)
{
	(void)state;
	check(steady, 10000, 0.005, 0.90, 0.05);
	check(bimodal, 10000, 0.01, 0.90, 0);
}

static void periodic_pattern_is_unbiased_and_inside_its_interval(void **state)
{
	(void)state;
	check(periodic, 64 * 4000, 0.03, 0.90, 0);
}

static void warm_up_calls_stand_for_themselves(void **state)
{
	(void)state;
	check(first_slow, 20000, 0.01, 0.90, 0.05);
}

static void slow_functions_are_timed_whole(void **state)
{
	uint64_t est, truth, timed, err;

	(void)state;
	err = run(slow, 5000, 7, &est, &truth, &timed);
	assert_int_equal(timed, 5000);
	assert_int_equal(est, truth);
	assert_int_equal(err, 0);
}

/* Each position of a block is drawn as often as any other. */
static void positions_are_uniform(void **state)
{
	uint64_t rng = 99, seen[N] = { 0 };

	(void)state;
	for (int i = 0; i < N * 2000; i++)
		seen[cua_sampler_rand(&rng, N)]++;
	for (int p = 0; p < N; p++)
		if (seen[p] < 1600 || seen[p] > 2400)
			fail_msg("position %d drawn %llu times of 128000", p, (unsigned long long)seen[p]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(steady_calls_within_5_percent),
		cmocka_unit_test(periodic_pattern_is_unbiased_and_inside_its_interval),
		cmocka_unit_test(warm_up_calls_stand_for_themselves),
		cmocka_unit_test(slow_functions_are_timed_whole),
		cmocka_unit_test(positions_are_uniform),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
