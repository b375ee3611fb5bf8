/* SPDX-License-Identifier: MIT */
/* tests/unit/test_config.c: parsing of the CUAUDIT_* variables, good and bad. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "config.h"
#include "configs.h"
#include "cuaudit_ids.h"
#include "table.h"
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>

static const char *const *fake_env;
static int diags;
static char last_diag[2048];

static const char *get(const char *name)
{
	for (const char *const *e = fake_env; e && *e; e += 2)
		if (strcmp(e[0], name) == 0)
			return e[1];
	return NULL;
}

static void diag(const char *msg)
{
	diags++;
	strncpy(last_diag, msg, sizeof(last_diag) - 1);
}

/* Each hook's own configuration, filled by load beside the core's. */
static struct cua_hook_configs hooks;

static struct cua_config load(const char *const *env)
{
	struct cua_config cfg;

	fake_env = env;
	diags = 0;
	last_diag[0] = '\0';
	cua_config_load(&cfg, get, diag, 0);
	cua_hook_configs_load(&hooks, &cfg, get, diag);
	return cfg;
}

static void level_names_parse_in_any_case(void **state)
{
	(void)state;
	assert_int_equal(cua_config_parse_level("off"), CUA_LOG_OFF);
	assert_int_equal(cua_config_parse_level("error"), CUA_LOG_ERROR);
	assert_int_equal(cua_config_parse_level("WARN"), CUA_LOG_WARN);
	assert_int_equal(cua_config_parse_level("Info"), CUA_LOG_INFO);
	assert_int_equal(cua_config_parse_level("verbose"), CUA_LOG_VERBOSE);
	assert_int_equal(cua_config_parse_level("debug"), CUA_LOG_DEBUG);
	assert_int_equal(cua_config_parse_level("verb"), -1);
	assert_int_equal(cua_config_parse_level("verbosee"), -1);
	assert_int_equal(cua_config_parse_level(""), -1);
	assert_int_equal(cua_config_parse_level("3"), -1);
}

static void empty_environment_gives_defaults_silently(void **state)
{
	struct cua_config cfg = load(NULL);

	(void)state;
	assert_int_equal(cfg.log_level, CUA_LOG_WARN);
	assert_string_equal(cfg.log_file, "");
	assert_string_equal(cfg.libcuda, "");
	assert_int_equal(diags, 0);
}

static void bad_CUAUDIT_LOG_gives_one_message_and_default(void **state)
{
	static const char *const env[] = { "CUAUDIT_LOG", "loud", NULL };
	struct cua_config cfg = load(env);

	(void)state;
	assert_int_equal(cfg.log_level, CUA_LOG_WARN);
	assert_int_equal(diags, 1);
	assert_non_null(strstr(last_diag, "CUAUDIT_LOG=\"loud\""));
	assert_non_null(strstr(last_diag, "off, error, warn, info, verbose, debug"));
}

/* A shared object that is surely there: the C library this test runs on. */
static const char *libc_path(void)
{
	Dl_info info;

	assert_true(dladdr((void *)strlen, &info) && info.dli_fname);
	return info.dli_fname;
}

static void good_values_are_taken(void **state)
{
	const char *env[] = { "CUAUDIT_LOG", "debug", "CUAUDIT_LOG_FILE", "/tmp/x.%p.%h",
			      "CUAUDIT_LIBCUDA", libc_path(), NULL };
	struct cua_config cfg = load(env);

	(void)state;
	assert_int_equal(diags, 0);
	assert_int_equal(cfg.log_level, CUA_LOG_DEBUG);
	assert_string_equal(cfg.log_file, "/tmp/x.%p.%h");
	assert_string_equal(cfg.libcuda, libc_path());
}

/* The loader would refuse each of these, and the program would not start. */
static void substitutes_must_be_shared_objects(void **state)
{
	static const char *const bad[] = { "/", "/dev/null", "/etc/passwd", "/proc/self/maps" };

	(void)state;
	assert_int_equal(cua_config_is_shared_object(libc_path()), 1);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *env[] = { "CUAUDIT_LIBCUDA", bad[i], NULL };
		struct cua_config cfg = load(env);

		assert_int_equal(cua_config_is_shared_object(bad[i]), 0);
		assert_int_equal(diags, 1);
		assert_string_equal(cfg.libcuda, "");
		assert_non_null(strstr(last_diag, "CUAUDIT_LIBCUDA"));
	}
}

static void bad_log_file_templates_are_refused(void **state)
{
	static const char *const bad[] = { "", "/tmp/log.%d", "/tmp/log.%" };

	(void)state;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *env[] = { "CUAUDIT_LOG_FILE", bad[i], NULL };
		struct cua_config cfg = load(env);

		assert_int_equal(diags, 1);
		assert_string_equal(cfg.log_file, "");
		assert_non_null(strstr(last_diag, "CUAUDIT_LOG_FILE"));
	}
}

static void substitutes_must_be_absolute_and_readable(void **state)
{
	static const char *const env[] = { "CUAUDIT_LIBCUDA", "libcuda.so.1", "CUAUDIT_LIBCUDART",
					   "/nonexistent/libcudart.so.13", NULL };
	struct cua_config cfg = load(env);

	(void)state;
	assert_int_equal(diags, 2);
	assert_string_equal(cfg.libcuda, "");
	assert_string_equal(cfg.libcudart, "");
	assert_non_null(strstr(last_diag, "CUAUDIT_LIBCUDART"));
}

static void sizes_parse_with_decimal_and_binary_units(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(cua_config_parse_size("4GiB", &v), 0);
	assert_true(v == 4ull << 30);
	assert_int_equal(cua_config_parse_size("512mib", &v), 0);
	assert_true(v == 512ull << 20);
	assert_int_equal(cua_config_parse_size("1.5GB", &v), 0);
	assert_true(v == 1500000000ull);
	assert_int_equal(cua_config_parse_size("4096", &v), 0);
	assert_true(v == 4096);
	assert_int_equal(cua_config_parse_size("1K", &v), 0);
	assert_true(v == 1024);
	assert_int_equal(cua_config_parse_size("0", &v), -1);
	assert_int_equal(cua_config_parse_size("4XB", &v), -1);
	assert_int_equal(cua_config_parse_size("GiB", &v), -1);
	assert_int_equal(cua_config_parse_size("-1GiB", &v), -1);
	assert_int_equal(cua_config_parse_size("99999999999TiB", &v), -1);
	assert_int_equal(cua_config_parse_size("1.GiB", &v), -1);
}

static void mem_limit_takes_a_default_and_per_device_sizes(void **state)
{
	struct cua_memlimit_config cfg;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(cua_memlimit_config_parse("8GiB,1:2GiB,3:1MiB", &cfg), 0);
	assert_true(cfg.mem_limit == 8ull << 30);
	assert_true(cfg.mem_limit_dev[1] == 2ull << 30);
	assert_true(cfg.mem_limit_dev[3] == 1ull << 20);
	assert_true(cfg.mem_limit_dev[0] == 0);
	assert_int_equal(cua_memlimit_config_parse("1GiB,2GiB", &cfg), -1);
	assert_int_equal(cua_memlimit_config_parse("64:1GiB", &cfg), -1);
	assert_int_equal(cua_memlimit_config_parse("0:", &cfg), -1);
	assert_int_equal(cua_memlimit_config_parse("1GiB,", &cfg), -1);
}

static void fault_specs_parse_names_errors_and_modes(void **state)
{
	struct cua_fault_config cfg;
	char why[256];

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(cua_fault_config_parse("cuMemAlloc_v2=CUDA_ERROR_OUT_OF_MEMORY@every:3;"
						 "cudaMalloc=cudaErrorMemoryAllocation@after:10;"
						 "cuLaunchKernel=719@prob:0.01,seed:42",
						 &cfg, why, sizeof(why)), 0);
	assert_int_equal(cfg.nfaults, 3);
	assert_int_equal(cfg.faults[0].id, CUAUDIT_ID_cuMemAlloc_v2);
	assert_int_equal(cfg.faults[0].error, 2);
	assert_int_equal(cfg.faults[0].mode, CUA_FAULT_EVERY);
	assert_int_equal(cfg.faults[0].n, 3);
	assert_int_equal(cfg.faults[1].id, CUAUDIT_ID_cudaMalloc);
	assert_int_equal(cfg.faults[1].error, 2);
	assert_int_equal(cfg.faults[1].mode, CUA_FAULT_AFTER);
	assert_int_equal(cfg.faults[2].error, 719);
	assert_int_equal(cfg.faults[2].prob_ppb, 10000000);
	assert_int_equal(cfg.faults[2].seed, 42);
}

static void bad_fault_specs_say_why(void **state)
{
	static const char *const bad[][2] = {
		{ "cuNope=1@every:1", "unknown ELF name cuNope" },
		{ "cuInit=CUDA_ERROR_NOPE@every:1", "unknown error" },
		{ "cudaMalloc=CUDA_ERROR_OUT_OF_MEMORY@every:1", "unknown error" }, /* wrong layer */
		{ "cuInit=1@every:0", "every:N needs N >= 1" },
		/* No CUresult or cudaError_t is negative: -1 is no error the program could know. */
		{ "cuInit=-1@every:1", "ERROR must be a result name of the function's layer or a number from 1" },
		{ "cuInit=1@prob:1.5", "prob:P needs" },
		{ "cuInit=1@sometimes", "mode must be" },
		{ "cuInit=1", "expected NAME=ERROR@MODE" },
		{ "cuInit=1@every:2x", "unexpected text" },
		{ "", "empty" },
	};
	struct cua_fault_config cfg;
	char why[256];

	(void)state;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&cfg, 0, sizeof(cfg));
		assert_int_equal(cua_fault_config_parse(bad[i][0], &cfg, why, sizeof(why)), -1);
		assert_non_null(strstr(why, bad[i][1]));
		assert_int_equal(cfg.nfaults, 0);
	}
}

static void plugin_lists_need_absolute_readable_paths(void **state)
{
	struct cua_plugins_config cfg;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(cua_plugins_config_parse("/dev/null:/dev/zero", &cfg), 0);
	assert_int_equal(cfg.nplugins, 2);
	assert_string_equal(cfg.plugins[1], "/dev/zero");
	assert_int_equal(cua_plugins_config_parse("relative.so", &cfg), -1);
	assert_int_equal(cua_plugins_config_parse("/dev/null::/dev/zero", &cfg), -1);
	assert_int_equal(cua_plugins_config_parse("/nonexistent/p.so", &cfg), -1);
}

static void secure_mode_loads_and_writes_nothing_the_environment_names(void **state)
{
	static const char *const env[] = {
		"CUAUDIT_LOG_FILE", "/tmp/x.log", "CUAUDIT_LIBCUDA", "/dev/null",
		"CUAUDIT_LIBCUDART", "/dev/null", "CUAUDIT_SUMMARY", "/tmp/s.json",
		"CUAUDIT_TRACE", "/tmp/t.json", "CUAUDIT_PLUGINS", "/dev/null",
		"CUAUDIT_MEM_LIMIT", "1GiB,1:2GiB", "CUAUDIT_LOG", "debug",
		"CUAUDIT_FAULT", "cuMemAlloc_v2=CUDA_ERROR_OUT_OF_MEMORY@every:1", NULL };
	struct cua_config cfg;

	(void)state;
	fake_env = env;
	cua_config_load(&cfg, get, diag, 1);
	cua_config_restrict_secure(&cfg);
	cua_hook_configs_load(&hooks, &cfg, get, diag);
	assert_string_equal(cfg.log_file, "");
	assert_string_equal(cfg.libcuda, "");
	assert_string_equal(cfg.libcudart, "");
	assert_string_equal(hooks.trace.path, "");
	assert_string_equal(hooks.summary.path, "stderr");
	assert_int_equal(hooks.plugins.nplugins, 0);
	/* cuaudit only observes there: no quota and no faults; the log level stays. */
	assert_true(hooks.memlimit.mem_limit == 0);
	assert_true(hooks.memlimit.mem_limit_dev[1] == 0);
	assert_int_equal(hooks.fault.nfaults, 0);
	assert_int_equal(cfg.log_level, CUA_LOG_DEBUG);
	cfg.secure = 0;
	cua_config_load(&cfg, get, diag, 0);
	cua_config_restrict_secure(&cfg);
	cua_hook_configs_load(&hooks, &cfg, get, diag);
	assert_string_equal(hooks.trace.path, "/tmp/t.json");
	assert_int_equal(hooks.plugins.nplugins, 1);
	assert_true(hooks.memlimit.mem_limit == 1ull << 30 && hooks.memlimit.mem_limit_dev[1] == 2ull << 30);
	assert_int_equal(hooks.fault.nfaults, 1);
}

/* ---------------------------------------------------------------- filters (readable) */

static int has(const struct cua_config *cfg, const char *elf_name)
{
	int id = cua_table_find(elf_name);

	assert_true(id >= 0);
	return cfg->filter[id >> 3] >> (id & 7) & 1;
}

static void globs_match_star_and_question_mark(void **state)
{
	(void)state;
	assert_true(cua_config_glob("cuMem*", 6, "cuMemAlloc_v2"));
	assert_true(cua_config_glob("*Async*", 7, "cuMemcpyAsync_ptsz"));
	assert_true(cua_config_glob("cu?nit", 6, "cuInit"));
	assert_true(cua_config_glob("*", 1, "cuInit"));
	assert_true(cua_config_glob("cuInit", 6, "cuInit"));
	assert_false(cua_config_glob("cuInit", 6, "cuInit_v2"));
	assert_false(cua_config_glob("cuMem*Free", 10, "cuMemAlloc"));
	assert_true(cua_config_glob("*a*b*c", 6, "xaxxbxcxbc"));
	/* The length bounds the pattern: "cuInit,cuMem*" is two patterns to the parser. */
	assert_true(cua_config_glob("cuInit,cuMem*", 6, "cuInit"));
}

static void include_and_exclude_make_one_mask(void **state)
{
	static const char *const env[] = { "CUAUDIT_INCLUDE", "cuMem*,cuInit", "CUAUDIT_EXCLUDE",
					   "*Free*", NULL };
	static const char *const none[] = { NULL };
	struct cua_config cfg = load(env);
	unsigned ids[CUAUDIT_ID_COUNT];

	(void)state;
	assert_int_equal(diags, 0);
	assert_int_equal(cfg.filtered, 1);
	assert_true(has(&cfg, "cuInit") && has(&cfg, "cuMemAlloc_v2"));
	assert_false(has(&cfg, "cuMemFree_v2") || has(&cfg, "cuDeviceGetCount"));
	assert_true(cua_config_filter_ids(&cfg, ids) < CUAUDIT_ID_COUNT);
	cfg = load(none);
	assert_int_equal(cfg.filtered, 0);
	assert_int_equal(cua_config_filter_ids(&cfg, ids), CUAUDIT_ID_COUNT);
}

static void bad_patterns_give_one_message_and_no_filter(void **state)
{
	static const char *const empty[] = { "CUAUDIT_INCLUDE", "cuInit,", NULL };
	static const char *const nomatch[] = { "CUAUDIT_EXCLUDE", "cuNoSuch*", NULL };
	static const char *const blank[] = { "CUAUDIT_INCLUDE", "", NULL };
	struct cua_config cfg = load(empty);

	(void)state;
	assert_int_equal(diags, 1);
	assert_non_null(strstr(last_diag, "an empty pattern"));
	assert_int_equal(cfg.filtered, 0);
	cfg = load(nomatch);
	assert_int_equal(diags, 1);
	assert_non_null(strstr(last_diag, "no ELF name matches cuNoSuch*"));
	assert_int_equal(cfg.filtered, 0);
	cfg = load(blank);
	assert_int_equal(diags, 1);
	assert_int_equal(cfg.filtered, 0);
}

static void log_errors_is_warn_with_failed_calls(void **state)
{
	static const char *const env[] = { "CUAUDIT_LOG", "Errors", NULL };
	struct cua_config cfg = load(env);

	(void)state;
	assert_int_equal(diags, 0);
	assert_int_equal(cfg.log_errors, 1);
	assert_int_equal(cfg.log_level, CUA_LOG_WARN);
}

static void enum_values_have_names(void **state)
{
	int id = cua_table_find("cuDeviceGetAttribute");
	const struct cua_arg_desc *a;

	(void)state;
	assert_true(id >= 0);
	a = &cua_api[id].args[1];
	assert_string_equal(a->name, "attrib");
	assert_string_equal(cua_table_enum_name(a->names, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 4),
			    "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT");
	assert_null(cua_table_enum_name(a->names, 0x7ffffff0, 4));
	assert_null(cua_table_enum_name(0, 1, 4));
	/* The out-parameter of the same call is marked, its pointee an int. */
	assert_int_equal(cua_api[id].args[0].out, 1);
	assert_int_equal(cua_api[id].args[0].out_size, sizeof(int));
}

static void survival_variables_parse_and_bad_ones_fall_back(void **state)
{
	static const char *const good[] = { "CUAUDIT_FLUSH_INTERVAL", "5", "CUAUDIT_TRACE_MAX",
					    "2MiB", "CUAUDIT_LOG_MAX", "64KiB", "CUAUDIT_CAPTURE",
					    "Profiler-API", NULL };
	static const char *const bad[] = { "CUAUDIT_FLUSH_INTERVAL", "-1", NULL };
	static const char *const off[] = { "CUAUDIT_FLUSH_INTERVAL", "0", NULL };
	static const char *const dir[] = { "CUAUDIT_TRACE", "/tmp/", NULL };
	struct cua_config cfg;
	uint64_t ns;

	(void)state;
	cfg = load(NULL);
	assert_int_equal(diags, 0);
	assert_true(cfg.flush_interval_ns == CUA_FLUSH_INTERVAL_DEFAULT_NS);
	cfg = load(good);
	assert_int_equal(diags, 0);
	assert_true(cfg.flush_interval_ns == 5000000000ull);
	assert_true(hooks.trace.max == 2u << 20 && cfg.log_max == 64u << 10);
	assert_int_equal(cfg.capture, CUA_CAPTURE_PROFILER_API);
	cfg = load(bad);
	assert_int_equal(diags, 1);
	assert_non_null(strstr(last_diag, "CUAUDIT_FLUSH_INTERVAL"));
	assert_true(cfg.flush_interval_ns == CUA_FLUSH_INTERVAL_DEFAULT_NS);
	cfg = load(off);
	assert_true(cfg.flush_interval_ns == 0);
	cfg = load(dir);
	assert_int_equal(diags, 1);
	assert_int_equal(hooks.trace.path[0], '\0');
	assert_int_equal(cua_config_parse_seconds("12x", &ns), -1);
	assert_int_equal(cua_config_check_file_path("/tmp/t.json"), 0);
	assert_int_equal(cua_config_check_file_path("/tmp/.."), -1);
	assert_int_equal(cua_config_check_file_path("/tmp"), -1);
}

static void metric_labels_take_names_and_templates(void **state)
{
	static const char *const bad[] = {
		"pid=1", "device=0", "__x=1", "9a=1", "a-b=1", "a", "=1", "a=1,", "a=1,,b=2",
		"a=1,a=2", "a=%z", "a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8,i=9",
		"abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd=1",
	};
	struct cua_metrics_config cfg;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(cua_metrics_config_parse_labels("rank=%q{RANK},pod=p-%h,_x=,A9=%%", &cfg), 0);
	assert_int_equal(cfg.nlabels, 4);
	assert_string_equal(cfg.label_names[0], "rank");
	assert_string_equal(cfg.label_values[0], "%q{RANK}");
	assert_string_equal(cfg.label_names[1], "pod");
	assert_string_equal(cfg.label_values[1], "p-%h");
	assert_string_equal(cfg.label_names[2], "_x");
	assert_string_equal(cfg.label_values[2], "");
	assert_string_equal(cfg.label_names[3], "A9");
	assert_int_equal(cua_metrics_config_parse_labels("", &cfg), 0);
	assert_int_equal(cfg.nlabels, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cfg.nlabels = 0;
		if (cua_metrics_config_parse_labels(bad[i], &cfg) != -1)
			fail_msg("accepted %s", bad[i]);
		assert_int_equal(cfg.nlabels, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(level_names_parse_in_any_case),
		cmocka_unit_test(empty_environment_gives_defaults_silently),
		cmocka_unit_test(bad_CUAUDIT_LOG_gives_one_message_and_default),
		cmocka_unit_test(good_values_are_taken),
		cmocka_unit_test(substitutes_must_be_shared_objects),
		cmocka_unit_test(bad_log_file_templates_are_refused),
		cmocka_unit_test(substitutes_must_be_absolute_and_readable),
		cmocka_unit_test(sizes_parse_with_decimal_and_binary_units),
		cmocka_unit_test(mem_limit_takes_a_default_and_per_device_sizes),
		cmocka_unit_test(fault_specs_parse_names_errors_and_modes),
		cmocka_unit_test(bad_fault_specs_say_why),
		cmocka_unit_test(plugin_lists_need_absolute_readable_paths),
		cmocka_unit_test(secure_mode_loads_and_writes_nothing_the_environment_names),
		cmocka_unit_test(globs_match_star_and_question_mark),
		cmocka_unit_test(include_and_exclude_make_one_mask),
		cmocka_unit_test(bad_patterns_give_one_message_and_no_filter),
		cmocka_unit_test(log_errors_is_warn_with_failed_calls),
		cmocka_unit_test(enum_values_have_names),
		cmocka_unit_test(survival_variables_parse_and_bad_ones_fall_back),
		cmocka_unit_test(metric_labels_take_names_and_templates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
