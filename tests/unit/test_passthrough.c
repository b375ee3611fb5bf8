/* SPDX-License-Identifier: MIT */
/* tests/unit/test_passthrough.c: the counting trampolines forward every argument register unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "passthrough.h"

extern const char cua_pt_code[], cua_pt_code_end[];

static double mix(long a, long b, long c, long d, long e, long f, long g, long h, double x,
		  double y, double z)
{
	return (double)(a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h) + x * 10 +
	       y * 100 + z * 1000;
}

static long other(long a)
{
	return -a;
}

static void stubs_are_sixteen_bytes_each(void **state)
{
	(void)state;
	assert_int_equal(cua_pt_code_end - cua_pt_code, CUA_PT_COUNT * CUA_PT_STUB_SIZE);
}

static void stub_forwards_integer_stack_and_vector_arguments(void **state)
{
	double (*stub)(long, long, long, long, long, long, long, long, double, double, double);

	(void)state;
	stub = (__typeof__(stub))cua_pt_get("cuFutureMix", (void *)mix);
	assert_non_null(stub);
	assert_true(stub(1, 2, 3, 4, 5, 6, 7, 8, 0.5, 0.25, 0.125) ==
		    mix(1, 2, 3, 4, 5, 6, 7, 8, 0.5, 0.25, 0.125));
	assert_true(stub(-1, 0, 0, 0, 0, 0, 0, 100, 0, 0, 0) == 799.0);
	assert_int_equal(cua_pt_used(), 1);
	assert_string_equal(cua_pt_name(0), "cuFutureMix");
	assert_int_equal(cua_pt_calls_of(0), 2);
}

static void same_address_reuses_its_stub_and_others_get_new_ones(void **state)
{
	void *a = cua_pt_get("cuFutureMix", (void *)mix);
	long (*b)(long) = (long (*)(long))cua_pt_get("cuFutureOther", (void *)other);

	(void)state;
	assert_ptr_equal(a, cua_pt_code);
	assert_ptr_equal((void *)b, cua_pt_code + CUA_PT_STUB_SIZE);
	assert_int_equal(b(5), -5);
	assert_int_equal(cua_pt_calls_of(1), 1);
	assert_int_equal(cua_pt_used(), 2);
}

static void pool_runs_out_cleanly(void **state)
{
	(void)state;
	for (uintptr_t i = cua_pt_used(); i < CUA_PT_COUNT; i++)
		assert_non_null(cua_pt_get("cuFill", (void *)(0x1000 + i)));
	assert_null(cua_pt_get("cuOneTooMany", (void *)0x999999));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stubs_are_sixteen_bytes_each),
		cmocka_unit_test(stub_forwards_integer_stack_and_vector_arguments),
		cmocka_unit_test(same_address_reuses_its_stub_and_others_get_new_ones),
		cmocka_unit_test(pool_runs_out_cleanly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
