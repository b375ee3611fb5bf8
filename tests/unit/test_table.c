/* SPDX-License-Identifier: MIT */
/* tests/unit/test_table.c: the generated name, version and argument tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "table.h"

static const struct cua_api_desc *api(const char *elf_name)
{
	int id = cua_table_find(elf_name);

	assert_true(id >= 0);
	return &cua_api[id];
}

static void ids_are_in_byte_order_of_elf_names(void **state)
{
	(void)state;
	for (unsigned i = 1; i < CUAUDIT_ID_COUNT; i++)
		assert_true(strcmp(cua_api[i - 1].elf_name, cua_api[i].elf_name) < 0);
}

static void every_name_is_found_at_its_own_id(void **state)
{
	(void)state;
	for (unsigned i = 0; i < CUAUDIT_ID_COUNT; i++)
		assert_int_equal(cua_table_find(cua_api[i].elf_name), (int)i);
	assert_int_equal(cua_table_find("cuNoSuchThing"), -1);
	assert_int_equal(cua_table_find(""), -1);
	assert_int_equal(cua_table_find("printf"), -1);
}

static void driver_covers_every_stub_export(void **state)
{
	unsigned driver = 0;

	(void)state;
	for (unsigned i = 0; i < CUAUDIT_ID_COUNT; i++)
		driver += cua_api[i].layer == CUAUDIT_LAYER_DRIVER;
	/* CUDA 13.0's stub libcuda.so exports 637 functions (docs/facts.md §4.1). */
	assert_true(driver >= 630);
}

static void variants_keep_their_own_version_flavour_and_prototype(void **state)
{
	const struct cua_api_desc *v1 = api("cuMemAlloc"), *v2 = api("cuMemAlloc_v2");
	const struct cua_api_desc *ptds = api("cuMemcpyHtoD_v2_ptds");

	(void)state;
	assert_string_equal(v1->api_name, "cuMemAlloc");
	assert_int_equal(v1->version, 2000);
	assert_int_equal(v2->version, 3020);
	assert_int_equal(v1->args[1].size, 4);    /* unsigned int bytesize */
	assert_int_equal(v2->args[1].size, 8);    /* size_t bytesize */
	assert_int_equal(v2->args[0].cls, CUA_CLASS_POINTER);
	assert_string_equal(v2->args[1].name, "bytesize");
	assert_string_equal(ptds->api_name, "cuMemcpyHtoD");
	assert_int_equal(ptds->flavour, 1);
	assert_int_equal(ptds->version, 7000);
	assert_int_equal(ptds->args[0].fmt, CUA_FMT_HEX); /* CUdeviceptr */
	assert_int_equal(api("cuCtxGetDevice")->nargs, 1);
	assert_int_equal(api("cuCtxGetDevice_v2")->nargs, 2);
	assert_int_equal(api("cuCtxGetDevice_v2")->version, 13000);
	assert_int_equal(api("cuStreamSynchronize_ptsz")->flavour, 2);
	assert_int_equal(api("cuGetProcAddress_v2")->nargs, 5);
	assert_int_equal(api("cuGetProcAddress")->nargs, 4);
	assert_int_equal(api("cuGetProcAddress")->args[0].fmt, CUA_FMT_STRING);
}

static void signed_and_enum_arguments_are_classified(void **state)
{
	const struct cua_api_desc *a = api("cuDeviceGetAttribute");

	(void)state;
	/* GCC's C front end classifies enums as integers; either is printed in decimal. */
	assert_true(a->args[1].cls == CUA_CLASS_ENUM || a->args[1].cls == CUA_CLASS_INTEGER);
	assert_int_equal(a->args[2].cls, CUA_CLASS_INTEGER); /* CUdevice is int */
	assert_int_equal(a->args[2].is_signed, 1);
	assert_int_equal(api("cuInit")->args[0].is_signed, 0);
}

static void runtime_exports_are_tabled_too(void **state)
{
	const struct cua_api_desc *m = api("cudaMemcpy_ptds");

	(void)state;
	assert_int_equal(m->layer, CUAUDIT_LAYER_RUNTIME);
	assert_string_equal(m->api_name, "cudaMemcpy");
	assert_int_equal(m->ret, CUA_RET_CUDAERROR);
}

static void result_codes_have_names(void **state)
{
	(void)state;
	assert_string_equal(cua_table_result_name(CUAUDIT_LAYER_DRIVER, 0), "CUDA_SUCCESS");
	assert_string_equal(cua_table_result_name(CUAUDIT_LAYER_DRIVER, 2),
			    "CUDA_ERROR_OUT_OF_MEMORY");
	assert_string_equal(cua_table_result_name(CUAUDIT_LAYER_DRIVER, 999), "CUDA_ERROR_UNKNOWN");
	assert_null(cua_table_result_name(CUAUDIT_LAYER_DRIVER, 123456));
	assert_string_equal(cua_table_result_name(CUAUDIT_LAYER_RUNTIME, 2),
			    "cudaErrorMemoryAllocation");
	assert_string_equal(cuaudit_api_name(0), cua_api[0].elf_name);
	assert_null(cuaudit_api_name(CUAUDIT_ID_COUNT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ids_are_in_byte_order_of_elf_names),
		cmocka_unit_test(every_name_is_found_at_its_own_id),
		cmocka_unit_test(driver_covers_every_stub_export),
		cmocka_unit_test(variants_keep_their_own_version_flavour_and_prototype),
		cmocka_unit_test(signed_and_enum_arguments_are_classified),
		cmocka_unit_test(runtime_exports_are_tabled_too),
		cmocka_unit_test(result_codes_have_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
