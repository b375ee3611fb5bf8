/* SPDX-License-Identifier: MIT */
/* cli/json.c: a strict, bounded recursive-descent JSON reader (RFC 8259) for cuaudit summaries. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"
#include "json.h"

struct parser {
	const char *text, *p, *end;
	char *err;
	size_t errcap;
	int depth;
};

static void fail(struct parser *ps, const char *what)
{
	unsigned line = 1, col = 1;

	if (!ps->err || !ps->errcap || ps->err[0])
		return;
	for (const char *q = ps->text; q < ps->p && q < ps->end; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	snprintf(ps->err, ps->errcap, "line %u, column %u: %s", line, col, what);
}

static int at_end(const struct parser *ps)
{
	return ps->p >= ps->end;
}

static void skip_ws(struct parser *ps)
{
	while (!at_end(ps) && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\t' || *ps->p == '\r'))
		ps->p++;
}

static struct json *node(struct parser *ps, enum json_type t)
{
	struct json *j = calloc(1, sizeof(*j));

	if (!j)
		fail(ps, "out of memory");
	else
		j->type = t;
	return j;
}

static int hex4(struct parser *ps, unsigned *v)
{
	*v = 0;
	if (ps->end - ps->p < 4) {
		fail(ps, "\\u needs four hex digits");
		return -1;
	}
	for (int i = 0; i < 4; i++) {
		char h = *ps->p;
		unsigned d;

		if (h >= '0' && h <= '9')
			d = (unsigned)(h - '0');
		else if (h >= 'a' && h <= 'f')
			d = (unsigned)(h - 'a' + 10);
		else if (h >= 'A' && h <= 'F')
			d = (unsigned)(h - 'A' + 10);
		else {
			fail(ps, "\\u needs four hex digits");
			return -1;
		}
		*v = *v * 16 + d;
		ps->p++;
	}
	return 0;
}

static size_t put_utf8(char *out, unsigned cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A \u escape, the backslash and 'u' already read; a surrogate pair takes two escapes. */
static int unicode_escape(struct parser *ps, unsigned *cp)
{
	unsigned lo;

	if (hex4(ps, cp) != 0)
		return -1;
	if (*cp >= 0xdc00 && *cp <= 0xdfff) {
		fail(ps, "lone low surrogate in \\u escape");
		return -1;
	}
	if (*cp >= 0xd800 && *cp <= 0xdbff) {
		if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u') {
			fail(ps, "high surrogate \\u escape without its low half");
			return -1;
		}
		ps->p += 2;
		if (hex4(ps, &lo) != 0)
			return -1;
		if (lo < 0xdc00 || lo > 0xdfff) {
			fail(ps, "high surrogate \\u escape without its low half");
			return -1;
		}
		*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (*cp == 0) {
		fail(ps, "\\u0000 is not accepted in strings");
		return -1;
	}
	return 0;
}

/* One UTF-8 sequence of raw text, copied; rejects overlong forms, surrogates and > U+10FFFF. */
static int utf8_sequence(struct parser *ps, char *out, size_t *n)
{
	static const unsigned min_cp[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	unsigned char c = (unsigned char)*ps->p;
	unsigned len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0, cp;

	if (!len || c > 0xf4 || (size_t)(ps->end - ps->p) < len) {
		fail(ps, "invalid UTF-8");
		return -1;
	}
	cp = c & (0x7f >> len);
	for (unsigned i = 1; i < len; i++) {
		unsigned char k = (unsigned char)ps->p[i];

		if ((k & 0xc0) != 0x80) {
			fail(ps, "invalid UTF-8");
			return -1;
		}
		cp = cp << 6 | (k & 0x3f);
	}
	if (cp < min_cp[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
		fail(ps, "invalid UTF-8");
		return -1;
	}
	memcpy(out + *n, ps->p, len);
	*n += len;
	ps->p += len;
	return 0;
}

static int escape(struct parser *ps, char *out, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *hit;
	unsigned cp;

	if (at_end(ps)) {
		fail(ps, "unterminated string");
		return -1;
	}
	if (*ps->p == 'u') {
		ps->p++;
		if (unicode_escape(ps, &cp) != 0)
			return -1;
		*n += put_utf8(out + *n, cp);
		return 0;
	}
	hit = *ps->p ? strchr(from, *ps->p) : NULL;
	if (!hit) {
		fail(ps, "unknown escape");
		return -1;
	}
	out[(*n)++] = to[hit - from];
	ps->p++;
	return 0;
}

/* The decoded text is never longer than the literal, so one allocation of its length will do. */
static size_t literal_length(const struct parser *ps)
{
	const char *q = ps->p + 1;

	while (q < ps->end && *q != '"')
		q += *q == '\\' ? 2 : 1;
	return (size_t)((q < ps->end ? q : ps->end) - ps->p);
}

static char *string(struct parser *ps)
{
	char *s;
	size_t n = 0;

	if (at_end(ps) || *ps->p != '"') {
		fail(ps, "expected a string");
		return NULL;
	}
	s = malloc(literal_length(ps) + 1);
	if (!s) {
		fail(ps, "out of memory");
		return NULL;
	}
	ps->p++;
	for (;;) {
		unsigned char c;

		if (at_end(ps)) {
			fail(ps, "unterminated string");
			break;
		}
		c = (unsigned char)*ps->p;
		if (c == '"') {
			ps->p++;
			s[n] = '\0';
			return s;
		}
		if (c < 0x20) {
			fail(ps, "control character in string (must be escaped)");
			break;
		}
		if (c == '\\') {
			ps->p++;
			if (escape(ps, s, &n) != 0)
				break;
		} else if (c >= 0x80) {
			if (utf8_sequence(ps, s, &n) != 0)
				break;
		} else {
			s[n++] = (char)c;
			ps->p++;
		}
	}
	free(s);
	return NULL;
}

static int digits(struct parser *ps)
{
	const char *start = ps->p;

	while (!at_end(ps) && *ps->p >= '0' && *ps->p <= '9')
		ps->p++;
	return ps->p > start;
}

/* Exact integer value of an integer literal, when it fits in a long long. */
static int integer_value(const char *s, const char *end, long long *out)
{
	int neg = *s == '-';
	uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;

	for (s += neg; s < end; s++) {
		if (v > (limit - (uint64_t)(*s - '0')) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = neg ? (long long)(0 - v) : (long long)v;
	return 1;
}

/* number = [ "-" ] ( "0" / digit1-9 *digit ) [ "." 1*digit ] [ ( "e" / "E" ) [ "+" / "-" ] 1*digit ] */
static struct json *number(struct parser *ps)
{
	const char *start = ps->p;
	int plain = 1;
	char small[64], *copy;
	size_t n;
	struct json *j;

	if (!at_end(ps) && *ps->p == '-')
		ps->p++;
	if (!at_end(ps) && *ps->p == '0')
		ps->p++;
	else if (at_end(ps) || *ps->p < '1' || *ps->p > '9' || !digits(ps)) {
		fail(ps, "expected a value");
		return NULL;
	}
	if (!at_end(ps) && *ps->p == '.') {
		plain = 0;
		ps->p++;
		if (!digits(ps)) {
			fail(ps, "expected a digit after '.'");
			return NULL;
		}
	}
	if (!at_end(ps) && (*ps->p == 'e' || *ps->p == 'E')) {
		plain = 0;
		ps->p++;
		if (!at_end(ps) && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (!digits(ps)) {
			fail(ps, "expected a digit in the exponent");
			return NULL;
		}
	}
	if (!at_end(ps) && *ps->p >= '0' && *ps->p <= '9') {
		fail(ps, "leading zero in a number");
		return NULL;
	}
	/* The grammar is checked; strtod only converts, from a terminated copy. */
	n = (size_t)(ps->p - start);
	copy = n < sizeof(small) ? small : malloc(n + 1);
	if (!copy || !(j = node(ps, JSON_NUMBER))) {
		if (copy != small)
			free(copy);
		fail(ps, "out of memory");
		return NULL;
	}
	memcpy(copy, start, n);
	copy[n] = '\0';
	j->number = strtod(copy, NULL);
	if (copy != small)
		free(copy);
	if (!isfinite(j->number)) {
		ps->p = start;
		fail(ps, "number out of range");
		free(j);
		return NULL;
	}
	j->integral = plain && integer_value(start, ps->p, &j->integer);
	return j;
}

static int by_key(const void *a, const void *b)
{
	return strcmp((*(const struct json *const *)a)->key, (*(const struct json *const *)b)->key);
}

/* Sorting a copy of the member list finds a repeated name in O(n log n). */
static int has_duplicate_key(struct parser *ps, const struct json *obj)
{
	const struct json **m;
	size_t i = 0;
	int dup = 0;

	if (obj->count < 2)
		return 0;
	if (obj->count <= 8) {
		/* Small objects, as in summaries: comparing pairs costs less than sorting. */
		for (const struct json *a = obj->child; a && !dup; a = a->next)
			for (const struct json *b = a->next; b && !dup; b = b->next)
				dup = strcmp(a->key, b->key) == 0;
		goto out;
	}
	m = malloc(obj->count * sizeof(*m));
	if (!m) {
		fail(ps, "out of memory");
		return 1;
	}
	for (const struct json *c = obj->child; c; c = c->next)
		m[i++] = c;
	qsort(m, obj->count, sizeof(*m), by_key);
	for (i = 1; i < obj->count && !dup; i++)
		dup = strcmp(m[i - 1]->key, m[i]->key) == 0;
	free(m);
out:
	if (dup)
		fail(ps, "an object repeats a member name");
	return dup;
}

static struct json *value(struct parser *ps);

static struct json *member(struct parser *ps, int object)
{
	char *key = NULL;
	struct json *v;

	skip_ws(ps);
	if (object) {
		if (!(key = string(ps)))
			return NULL;
		skip_ws(ps);
		if (at_end(ps) || *ps->p != ':') {
			free(key);
			fail(ps, "expected ':'");
			return NULL;
		}
		ps->p++;
	}
	v = value(ps);
	if (v)
		v->key = key;
	else
		free(key);
	return v;
}

static struct json *container(struct parser *ps, int object)
{
	struct json *j, **tail;
	char close = object ? '}' : ']';

	if (ps->depth >= JSON_MAX_DEPTH) {
		fail(ps, "nested too deeply");
		return NULL;
	}
	if (!(j = node(ps, object ? JSON_OBJECT : JSON_ARRAY)))
		return NULL;
	ps->depth++;
	tail = &j->child;
	ps->p++;
	skip_ws(ps);
	if (!at_end(ps) && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return j;
	}
	for (;;) {
		struct json *v = member(ps, object);

		if (!v)
			break;
		*tail = v;
		tail = &v->next;
		j->count++;
		skip_ws(ps);
		if (!at_end(ps) && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (!at_end(ps) && *ps->p == close) {
			ps->p++;
			ps->depth--;
			if (object && has_duplicate_key(ps, j))
				break;
			return j;
		}
		fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
		break;
	}
	json_free(j);
	return NULL;
}

static struct json *word(struct parser *ps)
{
	static const char *const words[] = { "true", "false", "null" };

	for (int i = 0; i < 3; i++) {
		size_t n = strlen(words[i]);
		struct json *j;

		if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, words[i], n) != 0)
			continue;
		ps->p += n;
		if ((j = node(ps, i == 2 ? JSON_NULL : JSON_BOOL)))
			j->boolean = i == 0;
		return j;
	}
	fail(ps, "expected a value");
	return NULL;
}

static struct json *value(struct parser *ps)
{
	struct json *j;

	skip_ws(ps);
	if (at_end(ps)) {
		fail(ps, "expected a value");
		return NULL;
	}
	switch (*ps->p) {
	case '{':
		return container(ps, 1);
	case '[':
		return container(ps, 0);
	case '"':
		if (!(j = node(ps, JSON_STRING)))
			return NULL;
		if (!(j->string = string(ps))) {
			free(j);
			return NULL;
		}
		return j;
	case 't': case 'f': case 'n':
		return word(ps);
	default:
		return number(ps);
	}
}

struct json *json_parse(const char *text, size_t len, char *err, size_t errcap)
{
	struct parser ps = { text, text, text + len, err, errcap, 0 };
	struct json *j;

	if (err && errcap)
		err[0] = '\0';
	j = value(&ps);
	skip_ws(&ps);
	if (j && !at_end(&ps)) {
		fail(&ps, "text after the JSON value");
		json_free(j);
		return NULL;
	}
	return j;
}

void json_free(struct json *j)
{
	while (j) {
		struct json *next = j->next;

		json_free(j->child);
		free(j->string);
		free(j->key);
		free(j);
		j = next;
	}
}

const struct json *json_get(const struct json *obj, const char *key)
{
	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	for (const struct json *m = obj->child; m; m = m->next)
		if (strcmp(m->key, key) == 0)
			return m;
	return NULL;
}

static void spill_to_file(struct cua_buf *b)
{
	fwrite(b->p, 1, b->len, ((struct json_file *)b)->f);
	b->len = 0;
}

void json_file_begin(struct json_file *j, FILE *f)
{
	j->b = (struct cua_buf){ j->mem, 0, sizeof(j->mem), 0, spill_to_file, 0 };
	j->f = f;
}

void json_file_end(struct json_file *j)
{
	spill_to_file(&j->b);
}

void json_put_string(FILE *f, const char *s)
{
	struct json_file j;

	json_file_begin(&j, f);
	cua_buf_char(&j.b, '"');
	cua_buf_text(&j.b, s, strlen(s), CUA_TEXT_JSON);
	cua_buf_char(&j.b, '"');
	json_file_end(&j);
}

const char *cli_term(const char *s)
{
	static char *ring[8];
	static unsigned next;
	size_t n = s ? strlen(s) : 0;
	char *out;
	struct cua_buf b;

	/* Each byte becomes at most 4 ("\x1b"). */
	out = malloc(4 * n + 1);
	if (!out)
		return "?";
	b = (struct cua_buf){ out, 0, 4 * n, 0, NULL, 0 };
	if (s)
		cua_buf_text(&b, s, n, CUA_TEXT_TERM);
	out[b.len] = '\0';
	free(ring[next]);
	ring[next] = out;
	next = (next + 1) % 8;
	return out;
}
