/* SPDX-License-Identifier: MIT */
/* tests/unit/test_config.c: parsing of the CUAUDIT_* variables, good and bad. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "config.h"

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

static struct cua_config load(const char *const *env)
{
	struct cua_config cfg;

	fake_env = env;
	diags = 0;
	last_diag[0] = '\0';
	cua_config_load(&cfg, get, diag, 0);
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

static void good_values_are_taken(void **state)
{
	static const char *const env[] = { "CUAUDIT_LOG", "debug", "CUAUDIT_LOG_FILE",
					   "/tmp/x.%p.%h", "CUAUDIT_LIBCUDA", "/dev/null", NULL };
	struct cua_config cfg = load(env);

	(void)state;
	assert_int_equal(diags, 0);
	assert_int_equal(cfg.log_level, CUA_LOG_DEBUG);
	assert_string_equal(cfg.log_file, "/tmp/x.%p.%h");
	assert_string_equal(cfg.libcuda, "/dev/null");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(level_names_parse_in_any_case),
		cmocka_unit_test(empty_environment_gives_defaults_silently),
		cmocka_unit_test(bad_CUAUDIT_LOG_gives_one_message_and_default),
		cmocka_unit_test(good_values_are_taken),
		cmocka_unit_test(bad_log_file_templates_are_refused),
		cmocka_unit_test(substitutes_must_be_absolute_and_readable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
