/* SPDX-License-Identifier: MIT */
/* tests/unit/test_classify.c: which loaded objects count as libcuda or libcudart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "classify.h"
#include "libs.h"

static int classify(const char *path)
{
	return cua_objopen_classify(path, "/opt/sub/mydriver.so", "");
}

static void driver_names_with_and_without_version(void **state)
{
	(void)state;
	assert_int_equal(classify("/usr/lib/x86_64-linux-gnu/libcuda.so.1"), CUA_LIB_DRIVER);
	assert_int_equal(classify("/usr/lib/x86_64-linux-gnu/libcuda.so"), CUA_LIB_DRIVER);
	assert_int_equal(classify("libcuda.so.580.159.03"), CUA_LIB_DRIVER);
	assert_int_equal(classify("/opt/sub/mydriver.so"), CUA_LIB_DRIVER);
}

static void runtime_names(void **state)
{
	(void)state;
	assert_int_equal(classify("/usr/local/cuda/lib64/libcudart.so.13"), CUA_LIB_RUNTIME);
	assert_int_equal(classify("/x/libcudart.so.12.4.127"), CUA_LIB_RUNTIME);
	assert_int_equal(classify("libcudart.so"), CUA_LIB_RUNTIME);
}

static void look_alikes_and_others_are_not_cuda(void **state)
{
	(void)state;
	assert_int_equal(classify(""), CUA_LIB_NONE);
	assert_int_equal(classify(NULL), CUA_LIB_NONE);
	assert_int_equal(classify("/usr/lib/libc.so.6"), CUA_LIB_NONE);
	assert_int_equal(classify("/x/libcudnn.so.9"), CUA_LIB_NONE);
	assert_int_equal(classify("/x/libcudart_static.a"), CUA_LIB_NONE);
	assert_int_equal(classify("/x/libcuda.sox"), CUA_LIB_NONE);
	assert_int_equal(classify("/libcuda.so.1/libc.so.6"), CUA_LIB_NONE);
	assert_int_equal(classify("/x/libcudadebugger.so.1"), CUA_LIB_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(driver_names_with_and_without_version),
		cmocka_unit_test(runtime_names),
		cmocka_unit_test(look_alikes_and_others_are_not_cuda),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
