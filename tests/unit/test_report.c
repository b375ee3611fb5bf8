/* SPDX-License-Identifier: MIT */
/* tests/unit/test_report.c: the report command's JSON reader, its field table against docs/summary-schema.json, and the merge. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>
#include "json.h"
#include "summaries.h"

static struct json *parse(const char *text, char *err, size_t cap)
{
	return json_parse(text, strlen(text), err, cap);
}

/* The text ends right before an inaccessible page: one byte read past it faults. */
static void truncated_texts_are_rejected_without_reading_past_the_end(void **state)
{
	static const char *const texts[] = {
		"\"\\u", "\"\\u1", "\"\\u12", "\"\\u123", "\"\\ud83d", "\"\\ud83d\\u", "\"\\ud83d\\ude0",
		"\"abc\\", "\"abc", "[1,", "{\"a\":", "tru", "-", "1e", "1.", "\"\xe2\x82", "{\"a\"",
		"[", "{",
	};
	long page = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);

	(void)state;
	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + page, (size_t)page, PROT_NONE), 0);
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		size_t n = strlen(texts[i]);
		char *at = map + page - n, err[128];

		memcpy(at, texts[i], n);
		assert_null(json_parse(at, n, err, sizeof(err)));
		assert_true(err[0] != '\0');
	}
	munmap(map, (size_t)page * 2);
}

static void non_finite_numbers_are_rejected(void **state)
{
	static const char *const texts[] = { "NaN", "nan", "Infinity", "-Infinity", "inf", "1e999",
					     "-1e999", "[1e309]", "{\"total_ns\":1e400}" };
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		assert_null(parse(texts[i], err, sizeof(err)));
		assert_true(err[0] != '\0');
	}
	assert_null(parse("1e999", err, sizeof(err)));
	assert_non_null(strstr(err, "number out of range"));
}

static void what_rfc8259_rejects_is_rejected(void **state)
{
	static const char *const texts[] = {
		"", " ", "01", "-01", "+1", ".5", "1.", "1.e5", "0x10", "--1", "1e", "1e+", "[1,]", "[,1]",
		"{\"a\":1,}", "{a:1}", "{'a':1}", "'s'", "[1 2]", "{\"a\" 1}", "True", "nul", "[1]x",
		"\"a\tb\"", "\"a\nb\"", "\"\\x41\"", "\"\\'\"", "\"\\U0041\"", "\"\\u00G0\"", "\"\xff\"",
		"\"\xc0\xaf\"", "\"\xe0\x80\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"",
		"\"\x80\"", "\"\\udc00\"", "\"\\ud800x\"", "\"\\ud800\\u0041\"", "\"\\u0000\"",
		"\xef\xbb\xbf{}", "{\"a\":1,\"a\":2}", "[1]\x00", "\v1", "\f1",
	};
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		size_t n = i == sizeof(texts) / sizeof(texts[0]) - 3 ? 4 : strlen(texts[i]);

		if (json_parse(texts[i], n, err, sizeof(err)))
			fail_msg("accepted: %s", texts[i]);
		assert_non_null(strstr(err, "line 1, column "));
	}
}

static void valid_texts_are_read_exactly(void **state)
{
	char err[128];
	struct json *j = parse(" {\"s\":\"\\ud83d\\ude00\\u00e9\xc3\xa9\\\"\\\\\\/\\b\\f\\n\\r\\t\","
			       "\"big\":9007199254740993,\"neg\":-9223372036854775808,\"over\":"
			       "9223372036854775808,\"f\":-0.5e-3,\"tiny\":1e-999,\"z\":-0,"
			       "\"a\":[true,false,null,{},[]]}\r\n",
			       err, sizeof(err));
	const struct json *v;

	(void)state;
	assert_non_null(j);
	assert_int_equal(j->count, 8);
	assert_string_equal(json_get(j, "s")->string,
			    "\xf0\x9f\x98\x80\xc3\xa9\xc3\xa9\"\\/\b\f\n\r\t");
	v = json_get(j, "big");
	assert_true(v->integral && v->integer == 9007199254740993LL);
	v = json_get(j, "neg");
	assert_true(v->integral && v->integer == INT64_MIN);
	v = json_get(j, "over");
	assert_true(!v->integral && v->number == 9223372036854775808.0);
	assert_true(json_get(j, "f")->number == -0.5e-3 && !json_get(j, "f")->integral);
	assert_true(json_get(j, "tiny")->number == 0.0);
	assert_true(json_get(j, "z")->integral && json_get(j, "z")->integer == 0);
	v = json_get(j, "a");
	assert_int_equal(v->type, JSON_ARRAY);
	assert_int_equal(v->count, 5);
	assert_true(v->child->boolean && !v->child->next->boolean);
	assert_null(json_get(j, "missing"));
	json_free(j);
}

static void nesting_is_limited(void **state)
{
	char text[2 * JSON_MAX_DEPTH + 3], err[128];
	struct json *j;

	(void)state;
	memset(text, '[', JSON_MAX_DEPTH);
	memset(text + JSON_MAX_DEPTH, ']', JSON_MAX_DEPTH);
	j = json_parse(text, 2 * JSON_MAX_DEPTH, err, sizeof(err));
	assert_non_null(j);
	json_free(j);
	memset(text, '[', JSON_MAX_DEPTH + 1);
	memset(text + JSON_MAX_DEPTH + 1, ']', JSON_MAX_DEPTH + 1);
	assert_null(json_parse(text, 2 * JSON_MAX_DEPTH + 2, err, sizeof(err)));
	assert_non_null(strstr(err, "nested too deeply"));
}

/* ---------------------------------------------------------------- the field table and the schema */

static const struct json *resolve(const struct json *root, const struct json *s)
{
	const struct json *ref = json_get(s, "$ref");

	if (ref && ref->type == JSON_STRING && strncmp(ref->string, "#/$defs/", 8) == 0)
		return json_get(json_get(root, "$defs"), ref->string + 8);
	return s;
}

static int in_list(const struct json *list, const char *word)
{
	for (const struct json *m = list ? list->child : NULL; m; m = m->next)
		if (m->type == JSON_STRING && strcmp(m->string, word) == 0)
			return 1;
	return 0;
}

/* "apis[].bindings.plt": the schema of that field, and its parent's "required" list, from
   the top level's kind 'which' ("else": one process's summary, "then": a merged one). */
static const struct json *schema_in(const struct json *root, const char *which, const char *path,
				    const struct json **required)
{
	const struct json *s = json_get(root, which);
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *part = strtok_r(buf, ".", &save); part && s; part = strtok_r(NULL, ".", &save)) {
		size_t n = strlen(part);
		int array = n > 2 && strcmp(part + n - 2, "[]") == 0;

		if (array)
			part[n - 2] = '\0';
		s = resolve(root, s);
		*required = json_get(s, "required");
		s = json_get(json_get(s, "properties"), part);
		if (s && array)
			s = json_get(resolve(root, s), "items");
	}
	return s ? resolve(root, s) : NULL;
}

/* A field of either kind: the reader takes both, from one top level. */
static const struct json *schema_of(const struct json *root, const char *path,
				    const struct json **required)
{
	const struct json *s = schema_in(root, "else", path, required);

	return s ? s : schema_in(root, "then", path, required);
}

static int type_matches(const struct json *s, enum cua_field_type t)
{
	const struct json *type = json_get(s, "type"), *min = json_get(s, "minimum");

	switch (t) {
	case CUA_F_STRING: return type && type->type == JSON_STRING && !strcmp(type->string, "string");
	case CUA_F_UINT:
		return type && type->type == JSON_STRING && !strcmp(type->string, "integer") && min &&
		       min->integral && min->integer >= 0;
	case CUA_F_INT_OR_NULL:
		return type && type->type == JSON_ARRAY && type->count == 2 && in_list(type, "integer") &&
		       in_list(type, "null");
	case CUA_F_BOOL: return type && type->type == JSON_STRING && !strcmp(type->string, "boolean");
	case CUA_F_OBJECT: return type && type->type == JSON_STRING && !strcmp(type->string, "object");
	case CUA_F_ARRAY: return type && type->type == JSON_STRING && !strcmp(type->string, "array");
	case CUA_F_STRING_OR_NULL:
		return type && type->type == JSON_ARRAY && type->count == 2 && in_list(type, "string") &&
		       in_list(type, "null");
	}
	return 0;
}

static struct json *load_schema(void)
{
	FILE *f = fopen(SCHEMA_PATH, "rb");
	static char text[1 << 16];
	size_t n;
	char err[128];
	struct json *j;

	assert_non_null(f);
	n = fread(text, 1, sizeof(text), f);
	fclose(f);
	assert_true(n < sizeof(text));
	j = json_parse(text, n, err, sizeof(err));
	if (!j)
		fail_msg("%s: %s", SCHEMA_PATH, err);
	return j;
}

/* Every field the reader reads is in the schema with the same type, and a field the reader
 * requires is one the schema makes the writer write. */
static void reader_fields_agree_with_the_schema_file(void **state)
{
	struct json *root = load_schema();

	(void)state;
	assert_true(cua_summaries_nfields > 30);
	for (size_t i = 0; i < cua_summaries_nfields; i++) {
		const struct cua_field *f = &cua_summaries_fields[i];
		const struct json *required = NULL, *s = schema_of(root, f->path, &required);
		const char *key = strrchr(f->path, '.');

		key = key ? key + 1 : f->path;
		if (!s)
			fail_msg("the reader reads %s, which docs/summary-schema.json lacks", f->path);
		if (!type_matches(s, f->type))
			fail_msg("%s: the reader's type differs from the schema's", f->path);
		if (f->required && !in_list(required, key))
			fail_msg("%s: the reader requires it but the schema does not", f->path);
	}
	json_free(root);
}

/* ---------------------------------------------------------------- merging */

static char *make_summary(size_t n, const char *prefix, uint64_t calls, uint64_t timed)
{
	size_t cap = n * 160 + 256, len = 0;
	char *t = malloc(cap);

	assert_non_null(t);
	len += (size_t)snprintf(t + len, cap - len, "{\"schema\":\"cuaudit-summary/1\",\"pid\":7,\"apis\":[");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(t + len, cap - len,
					"%s{\"name\":\"%s%zu\",\"layer\":\"driver\",\"nested\":false,"
					"\"calls\":%llu,\"timed\":%llu,\"errors\":0,\"total_ns\":%zu}",
					i ? "," : "", prefix, (n - i) * 7919 % n, (unsigned long long)calls,
					(unsigned long long)timed, i);
	snprintf(t + len, cap - len, "]}");
	return t;
}

static void merging_100k_names_from_two_inputs_takes_n_log_n_comparisons(void **state)
{
	const size_t n = 100000;
	struct cua_summaries s;
	char err[256];
	char *a = make_summary(n, "api", 3, 3), *b = make_summary(n, "api", 10, 2);

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(cua_summaries_add(&s, "a", a, strlen(a), err, sizeof(err)), 0);
	assert_int_equal(cua_summaries_add(&s, "b", b, strlen(b), err, sizeof(err)), 0);
	assert_int_equal(s.napis, 2 * n);
	cua_summaries_merge(&s);
	assert_int_equal(s.napis, n);
	for (size_t i = 0; i < s.napis; i++) {
		assert_int_equal(s.apis[i].processes, 2);
		assert_int_equal(s.apis[i].calls, 13);
		assert_int_equal(s.apis[i].timed, 5);
	}
	/* 2n log2(2n) is 3.5 million; a search per record would be 10^10. */
	if (s.comparisons > 2 * (2 * n) * 18)
		fail_msg("%llu comparisons for %zu records", (unsigned long long)s.comparisons, 2 * n);
	cua_summaries_free(&s);
	free(a);
	free(b);
}

static void a_record_repeated_in_one_input_counts_one_process(void **state)
{
	static const char doc[] =
		"{\"schema\":\"cuaudit-summary/1\",\"apis\":["
		"{\"name\":\"cuInit\",\"layer\":\"driver\",\"nested\":false,\"calls\":1,\"errors\":0,\"total_ns\":5},"
		"{\"name\":\"cuInit\",\"layer\":\"driver\",\"nested\":false,\"calls\":2,\"errors\":1,\"total_ns\":6},"
		"{\"name\":\"cuInit\",\"layer\":\"driver\",\"nested\":true,\"calls\":4,\"errors\":0,\"total_ns\":7}]}";
	struct cua_summaries s;
	char err[256];

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(cua_summaries_add(&s, "a", doc, strlen(doc), err, sizeof(err)), 0);
	cua_summaries_merge(&s);
	assert_int_equal(s.napis, 2);
	assert_int_equal(s.apis[0].calls, 3);
	assert_int_equal(s.apis[0].errors, 1);
	assert_int_equal(s.apis[0].processes, 1);
	assert_int_equal(s.inputs[0].calls, 3);
	cua_summaries_free(&s);
}

static void a_bad_field_is_named_and_nothing_is_kept(void **state)
{
	static const struct { const char *doc, *want; } cases[] = {
		{ "{\"schema\":\"cuaudit-summary/1\",\"apis\":[{\"name\":\"x\",\"layer\":\"driver\","
		  "\"nested\":false,\"calls\":-1,\"errors\":0,\"total_ns\":0}]}",
		  "apis[0].calls: expected a non-negative integer" },
		{ "{\"schema\":\"cuaudit-summary/1\",\"apis\":[{\"name\":\"x\",\"layer\":\"gpu\","
		  "\"nested\":false,\"calls\":1,\"errors\":0,\"total_ns\":0}]}",
		  "apis[0].layer: expected \"driver\" or \"runtime\"" },
		{ "{\"schema\":\"cuaudit-summary/1\",\"apis\":[{\"name\":\"x\",\"layer\":\"driver\","
		  "\"nested\":false,\"calls\":1,\"timed\":2,\"errors\":0,\"total_ns\":0}]}",
		  "apis[0].timed: larger than calls" },
		{ "{\"schema\":\"cuaudit-summary/2\",\"apis\":[]}", "schema: not \"cuaudit-summary/1\"" },
		{ "{\"schema\":\"cuaudit-summary/1\",\"apis\":{}}", "apis: expected an array" },
		{ "{\"schema\":\"cuaudit-summary/1\",\"apis\":[],\"process\":{\"driver_version\":\"13\"}}",
		  "process.driver_version: expected an integer or null" },
		{ "{\"schema\":\"cuaudit-summary/1\",\"apis\":[],\"kernels\":[{\"launches\":1}]}",
		  "kernels[0].name: missing" },
		{ "[]", "document: expected an object" },
	};
	struct cua_summaries s;
	char err[256];

	(void)state;
	memset(&s, 0, sizeof(s));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(cua_summaries_add(&s, "f", cases[i].doc, strlen(cases[i].doc), err,
						   sizeof(err)), -1);
		assert_string_equal(err, cases[i].want);
		assert_int_equal(s.ninputs, 0);
		assert_int_equal(s.napis, 0);
	}
	cua_summaries_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(truncated_texts_are_rejected_without_reading_past_the_end),
		cmocka_unit_test(non_finite_numbers_are_rejected),
		cmocka_unit_test(what_rfc8259_rejects_is_rejected),
		cmocka_unit_test(valid_texts_are_read_exactly),
		cmocka_unit_test(nesting_is_limited),
		cmocka_unit_test(reader_fields_agree_with_the_schema_file),
		cmocka_unit_test(merging_100k_names_from_two_inputs_takes_n_log_n_comparisons),
		cmocka_unit_test(a_record_repeated_in_one_input_counts_one_process),
		cmocka_unit_test(a_bad_field_is_named_and_nothing_is_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
