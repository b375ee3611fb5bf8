/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_json.c: libFuzzer target for `cuaudit report`'s JSON reader and summary merge. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "summaries.h"

#define CHECK(cond)                                                                            \
	do {                                                                                   \
		if (!(cond))                                                                   \
			abort();                                                               \
	} while (0)

/* Writes the tree back as JSON, with the command's own string escaper. */
static void emit(FILE *f, const struct json *j)
{
	switch (j->type) {
	case JSON_NULL: fputs("null", f); break;
	case JSON_BOOL: fputs(j->boolean ? "true" : "false", f); break;
	case JSON_NUMBER:
		CHECK(isfinite(j->number));
		if (j->integral)
			fprintf(f, "%lld", j->integer);
		else {
			char num[40];

			/* Keep a fraction or exponent, so that it reads back as a non-integer. */
			snprintf(num, sizeof(num), "%.17g", j->number);
			fprintf(f, "%s%s", num, strpbrk(num, ".e") ? "" : ".0");
		}
		break;
	case JSON_STRING: json_put_string(f, j->string); break;
	case JSON_ARRAY:
	case JSON_OBJECT: {
		size_t n = 0;

		fputc(j->type == JSON_ARRAY ? '[' : '{', f);
		for (const struct json *c = j->child; c; c = c->next, n++) {
			if (n)
				fputc(',', f);
			if (j->type == JSON_OBJECT) {
				CHECK(c->key != NULL);
				json_put_string(f, c->key);
				fputc(':', f);
			}
			emit(f, c);
		}
		CHECK(n == j->count);
		fputc(j->type == JSON_ARRAY ? ']' : '}', f);
		break;
	}
	}
}

static int same(const struct json *a, const struct json *b)
{
	if (a->type != b->type || a->count != b->count)
		return 0;
	if ((a->key || b->key) && (!a->key || !b->key || strcmp(a->key, b->key) != 0))
		return 0;
	switch (a->type) {
	case JSON_BOOL: return a->boolean == b->boolean;
	case JSON_NUMBER:
		return a->integral == b->integral && (a->integral ? a->integer == b->integer
							       : a->number == b->number);
	case JSON_STRING: return strcmp(a->string, b->string) == 0;
	case JSON_ARRAY:
	case JSON_OBJECT:
		for (a = a->child, b = b->child; a && b; a = a->next, b = b->next)
			if (!same(a, b))
				return 0;
		return !a && !b;
	default: return 1;
	}
}

/* A parsed document written out and read again gives the same tree. */
static void round_trip(const struct json *doc)
{
	char *buf = NULL, err[128];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json *again;

	CHECK(f);
	emit(f, doc);
	CHECK(fclose(f) == 0);
	again = json_parse(buf, len, err, sizeof(err));
	CHECK(again && same(doc, again));
	json_free(again);
	free(buf);
}

/* Reading then merging keeps every count, and leaves one record per key. */
static void summaries(const uint8_t *data, size_t size)
{
	struct cua_summaries s;
	char err[256];
	uint64_t calls = 0, launches = 0;

	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 2; i++)
		if (cua_summaries_add(&s, "fuzz.json", (const char *)data, size, err, sizeof(err)) != 0)
			CHECK(err[0] != '\0' && memchr(err, '\0', sizeof(err)));
	for (size_t i = 0; i < s.napis; i++)
		calls += s.apis[i].calls;
	for (size_t i = 0; i < s.nkernels; i++)
		launches += s.kernels[i].launches;
	cua_summaries_merge(&s);
	for (size_t i = 0; i < s.napis; i++) {
		const struct cua_api_rec *r = &s.apis[i];

		calls -= r->calls;
		CHECK(r->timed <= r->calls && r->processes >= 1 && r->processes <= s.ninputs);
		if (i)
			CHECK(r[-1].nested != r->nested || strcmp(r[-1].layer, r->layer) != 0 ||
			      strcmp(r[-1].elf_name, r->elf_name) != 0);
	}
	for (size_t i = 0; i < s.nkernels; i++) {
		launches -= s.kernels[i].launches;
		if (i)
			CHECK(strcmp(s.kernels[i - 1].name, s.kernels[i].name) != 0);
	}
	CHECK(calls == 0 && launches == 0);
	cua_summaries_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[128];
	/* A private copy with no terminator: a read past the end is ASan's to report. */
	char *text = malloc(size ? size : 1);
	struct json *doc;

	CHECK(text);
	memcpy(text, data, size);
	doc = json_parse(text, size, err, sizeof(err));
	if (doc)
		round_trip(doc);
	else
		CHECK(err[0] != '\0');
	json_free(doc);
	summaries((const uint8_t *)text, size);
	free(text);
	return 0;
}
