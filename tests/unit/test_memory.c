/* SPDX-License-Identifier: MIT */
/* tests/unit/test_memory.c: the memory limit's configuration: exact sizes, faults that are errors, observe-only secure mode, %q{NAME} templates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "config.h"
#include "fault_config.h"
#include "memlimit_config.h"
#include "summary_config.h"
#include "fmt.h"

static const char *const *fake_env;
static int diags;

static const char *get(const char *name)
{
	for (const char *const *e = fake_env; e && *e; e += 2)
		if (strcmp(e[0], name) == 0)
			return e[1];
	return NULL;
}

static void diag(const char *msg)
{
	(void)msg;
	diags++;
}

static void fractional_sizes_are_exact_to_the_byte(void **state)
{
	uint64_t v = 0;

	(void)state;
	/* 0.999999999 * 2^40 = 1099511626676.3: it once wrapped to 10.4 GB. */
	assert_int_equal(cua_config_parse_size("0.999999999TiB", &v), 0);
	assert_true(v == 1099511626676ull);
	/* 1.99999999 * 2^40 = 2199023244556.1: it once became 1.16 TiB. */
	assert_int_equal(cua_config_parse_size("1.99999999TiB", &v), 0);
	assert_true(v == 2199023244556ull);
	assert_int_equal(cua_config_parse_size("1.5GiB", &v), 0);
	assert_true(v == 1610612736ull);
	assert_int_equal(cua_config_parse_size("0.000000000000000001TiB", &v), -1); /* < 1 byte */
	assert_int_equal(cua_config_parse_size("1.0000000000000000001TiB", &v), -1); /* 19 digits */
	assert_int_equal(cua_config_parse_size("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(cua_config_parse_size("18446744073709551616", &v), -1);
	assert_int_equal(cua_config_parse_size("16777216TiB", &v), -1); /* 2^64 */
	assert_int_equal(cua_config_parse_size("16777215.999999999999999999TiB", &v), 0);
	assert_true(v == UINT64_MAX);
}

static void success_is_rejected_as_a_fault_error(void **state)
{
	static const char *const specs[] = { "cuMemAlloc_v2=0@every:1",
					     "cuMemAlloc_v2=CUDA_SUCCESS@every:1",
					     "cudaMalloc=cudaSuccess@after:0" };
	struct cua_fault_config cfg;
	char why[256];

	(void)state;
	for (unsigned i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		memset(&cfg, 0, sizeof(cfg));
		assert_int_equal(cua_fault_config_parse(specs[i], &cfg, why, sizeof(why)), -1);
		assert_non_null(strstr(why, "not success"));
		assert_int_equal(cfg.nfaults, 0);
	}
	/* No result is negative: -1 is refused (it was taken, and returned to the program), and
	   so is -0, a sign on success. */
	assert_int_equal(cua_fault_config_parse("cuMemAlloc_v2=-1@every:1", &cfg, why, sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "number from 1 to 2147483647, not -1"));
	assert_int_equal(cua_fault_config_parse("cuMemAlloc_v2=-0@every:1", &cfg, why, sizeof(why)),
			 -1);
	assert_int_equal(cua_fault_config_parse("cuMemAlloc_v2=2@every:1", &cfg, why, sizeof(why)), 0);
	assert_int_equal(cfg.faults[0].error, 2);
}

static void secure_mode_drops_limit_and_faults_only(void **state)
{
	static const char *const env[] = { "CUAUDIT_FAULT", "cuInit=1@every:1;cuInit=2@every:2",
					   "CUAUDIT_MEM_LIMIT", "1,63:2", "CUAUDIT_LOG", "verbose",
					   NULL };
	struct cua_config cfg;
	struct cua_fault_config faults;
	struct cua_memlimit_config limits;

	(void)state;
	fake_env = env;
	diags = 0;
	/* Each hook's own loader drops what would change the program, in a secure process only;
	   the core keeps the log level. */
	for (int secure = 0; secure <= 1; secure++) {
		cua_config_load(&cfg, get, diag, secure);
		cua_config_restrict_secure(&cfg);
		cua_fault_config_load(&faults, get, diag, secure);
		cua_memlimit_config_load(&limits, get, diag, secure);
		assert_int_equal(cfg.log_level, CUA_LOG_VERBOSE);
		if (secure)
			assert_true(limits.mem_limit == 0 && limits.mem_limit_dev[63] == 0 &&
				    faults.nfaults == 0);
		else
			assert_true(limits.mem_limit == 1 && limits.mem_limit_dev[63] == 2 &&
				    faults.nfaults == 2);
	}
	assert_int_equal(diags, 0);
}

static void q_escape_is_checked_and_expanded_from_captured_values(void **state)
{
	static const char *const env[] = { "RANK", "3", "SLURM_JOB_ID", "j42", NULL };
	char out[64];

	(void)state;
	assert_int_equal(cua_config_check_template("/t/s.%q{RANK}.json"), 0);
	assert_int_equal(cua_config_check_template("/t/%q{_A1}%p%h%%"), 0);
	assert_int_equal(cua_config_check_template("/t/%q{1A}"), -1);
	assert_int_equal(cua_config_check_template("/t/%q{}"), -1);
	assert_int_equal(cua_config_check_template("/t/%q{RANK"), -1);
	assert_int_equal(cua_config_check_template("/t/%qRANK"), -1);
	assert_int_equal(cua_config_check_template("/t/%q{A-B}"), -1);
	cua_fmt_forget_vars();
	fake_env = env;
	assert_int_equal(cua_config_capture_template("/t/%q{RANK}.%q{SLURM_JOB_ID}.%q{NONE}", get), 0);
	assert_int_equal(cua_fmt_path(out, sizeof(out), "/t/s.%q{RANK}.%q{SLURM_JOB_ID}.%p", 7, "h"),
			 (long)strlen("/t/s.3.j42.7"));
	assert_string_equal(out, "/t/s.3.j42.7");
	/* Unset, or never captured: empty, as nsys expands it. */
	assert_true(cua_fmt_path(out, sizeof(out), "/t/%q{NONE}x%q{OTHER}", 7, "h") > 0);
	assert_string_equal(out, "/t/x");
	assert_int_equal(cua_fmt_path(out, sizeof(out), "/t/%q{1X}", 7, "h"), -1);
	cua_fmt_forget_vars();
}

static void q_values_are_read_once_when_the_configuration_loads(void **state)
{
	static const char *const env[] = { "CUAUDIT_SUMMARY", "/t/s.%q{RANK}.json", "RANK", "1",
					   NULL };
	static const char *const later[] = { "RANK", "9", NULL };
	struct cua_summary_config cfg;
	char out[64];

	(void)state;
	cua_fmt_forget_vars();
	fake_env = env;
	diags = 0;
	cua_summary_config_load(&cfg, get, diag, 0);
	assert_int_equal(diags, 0);
	assert_string_equal(cfg.path, "/t/s.%q{RANK}.json");
	fake_env = later; /* a later change of the environment is not seen */
	assert_true(cua_fmt_path(out, sizeof(out), cfg.path, 1, "h") > 0);
	assert_string_equal(out, "/t/s.1.json");
	cua_fmt_forget_vars();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fractional_sizes_are_exact_to_the_byte),
		cmocka_unit_test(success_is_rejected_as_a_fault_error),
		cmocka_unit_test(secure_mode_drops_limit_and_faults_only),
		cmocka_unit_test(q_escape_is_checked_and_expanded_from_captured_values),
		cmocka_unit_test(q_values_are_read_once_when_the_configuration_loads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
