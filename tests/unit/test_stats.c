/* SPDX-License-Identifier: MIT */
/* tests/unit/test_stats.c: duration statistics: buckets, percentiles, merging, deviation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "stats.h"

static void buckets_are_exact_below_64_and_within_a_sixteenth_above(void **state)
{
	(void)state;
	for (uint64_t v = 0; v < 64; v++)
		assert_int_equal(cua_stats_bucket_value(cua_stats_bucket(v)), v);
	for (uint64_t v = 64; v < (1ull << 40); v = v * 3 + 7) {
		uint64_t r = cua_stats_bucket_value(cua_stats_bucket(v));
		uint64_t diff = r > v ? r - v : v - r;

		assert_true(diff * 16 <= v);
		assert_true(cua_stats_bucket(v) < CUA_HIST_BUCKETS);
	}
	assert_true(cua_stats_bucket(UINT64_MAX) < CUA_HIST_BUCKETS);
}

static void percentiles_median_and_p99_of_a_known_set(void **state)
{
	struct cua_stat s;

	(void)state;
	memset(&s, 0, sizeof(s));
	for (uint64_t v = 1; v <= 100; v++)
		cua_stats_add(&s, v, v % 10 == 0, CUAUDIT_BIND_PLT);
	assert_int_equal(s.calls, 100);
	assert_int_equal(s.errors, 10);
	assert_int_equal(s.min_ns, 1);
	assert_int_equal(s.max_ns, 100);
	assert_int_equal(s.total_ns, 5050);
	assert_int_equal(cua_stats_percentile(&s, 500), 50);
	/* 99 lies in the bucket [96, 100): its middle is 98, within a sixteenth. */
	assert_true(cua_stats_percentile(&s, 990) >= 93 && cua_stats_percentile(&s, 990) <= 100);
	assert_int_equal(cua_stats_stddev(&s), 28); /* sqrt(833.25) */
	assert_int_equal(s.by_binding[CUAUDIT_BIND_PLT], 100);
}

static void merging_threads_equals_adding_all(void **state)
{
	struct cua_stat a, b, all;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&all, 0, sizeof(all));
	for (uint64_t v = 0; v < 1000; v++) {
		cua_stats_add(v & 1 ? &a : &b, v * 37, 0, CUAUDIT_BIND_DLSYM);
		cua_stats_add(&all, v * 37, 0, CUAUDIT_BIND_DLSYM);
	}
	cua_stats_merge(&a, &b);
	assert_int_equal(a.calls, all.calls);
	assert_int_equal(a.total_ns, all.total_ns);
	assert_int_equal(a.min_ns, all.min_ns);
	assert_int_equal(a.max_ns, all.max_ns);
	assert_memory_equal(a.hist, all.hist, sizeof(a.hist));
	assert_int_equal(cua_stats_percentile(&a, 500), cua_stats_percentile(&all, 500));
}

static void empty_and_single_sets(void **state)
{
	struct cua_stat s;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(cua_stats_percentile(&s, 500), 0);
	cua_stats_add(&s, 12345, 0, 0);
	/* One value: every percentile is that value, not its bucket's middle. */
	assert_int_equal(cua_stats_percentile(&s, 990), 12345);
	assert_int_equal(cua_stats_percentile(&s, 500), 12345);
	assert_int_equal(cua_stats_stddev(&s), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buckets_are_exact_below_64_and_within_a_sixteenth_above),
		cmocka_unit_test(percentiles_median_and_p99_of_a_known_set),
		cmocka_unit_test(merging_threads_equals_adding_all),
		cmocka_unit_test(empty_and_single_sets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
