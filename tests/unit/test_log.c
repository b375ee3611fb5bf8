/* SPDX-License-Identifier: MIT */
/* tests/unit/test_log.c: the exact text of a verbose log line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "cuaudit_args.h"
#include "dispatch.h"
#include "callfmt.h"
#include "log.h"
#include "table.h"

static const char *format(struct cuaudit_call *c)
{
	static char line[1024];
	size_t n;

	c->elf_name = cua_api[c->id].elf_name;
	c->layer = (enum cuaudit_layer)cua_api[c->id].layer;
	c->thread_id = 78;
	n = cua_callfmt_call(line, sizeof(line), c, 77, 1700000000123456789ull);

	line[n] = '\0';
	return line;
}

static void call_line_names_arguments_result_duration_and_binding(void **state)
{
	CUdeviceptr dptr = 0;
	struct cuaudit_args_cuMemAlloc_v2 a = { &dptr, 4096 };
	struct cuaudit_call c = { .id = CUAUDIT_ID_cuMemAlloc_v2, .binding = CUAUDIT_BIND_DLSYM,
				  .args = &a, .result = 2, .t_enter_ns = 1000, .t_exit_ns = 1250 };
	char want[256] = "cuaudit: 1700000000.123456 pid=77 tid=78 cuMemAlloc_v2(dptr=";
	char hex[32];
	size_t n;

	(void)state;
	n = cua_fmt_hex(hex, (uint64_t)(uintptr_t)&dptr);
	hex[n] = '\0';
	strcat(want, hex);
	strcat(want, ", bytesize=4096) -> CUDA_ERROR_OUT_OF_MEMORY 250ns dlsym\n");
	assert_string_equal(format(&c), want);
}

static void nested_calls_are_indented_and_strings_quoted(void **state)
{
	void *pfn = NULL;
	struct cuaudit_args_cuGetProcAddress a = { "cuInit", &pfn, 12000, 0 };
	struct cuaudit_call c = { .id = CUAUDIT_ID_cuGetProcAddress,
				  .binding = CUAUDIT_BIND_PROCADDRESS, .depth = 1, .args = &a,
				  .t_enter_ns = 5, .t_exit_ns = 5 };
	const char *line = format(&c);

	(void)state;
	assert_non_null(strstr(line, " tid=78   cuGetProcAddress(symbol=\"cuInit\", pfn=0x"));
	assert_non_null(strstr(line, ", cudaVersion=12000, flags=0) -> CUDA_SUCCESS 0ns procaddress\n"));
}

static void negative_and_unknown_results_print_as_numbers(void **state)
{
	int v;
	struct cuaudit_args_cuDriverGetVersion a = { &v };
	struct cuaudit_call c = { .id = CUAUDIT_ID_cuDriverGetVersion, .args = &a,
				  .result = (uint64_t)(int64_t)-5 };

	(void)state;
	assert_non_null(strstr(format(&c), ") -> -5 0ns plt\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(call_line_names_arguments_result_duration_and_binding),
		cmocka_unit_test(nested_calls_are_indented_and_strings_quoted),
		cmocka_unit_test(negative_and_unknown_results_print_as_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
