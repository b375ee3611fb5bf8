/* SPDX-License-Identifier: MIT */
/* cli/json.c: a recursive-descent JSON parser, enough for cuaudit's summaries (no \u escapes above 0x7f). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"

struct parser {
	const char *p;
	char *err;
	size_t errcap;
	int depth;
};

static void fail(struct parser *ps, const char *what)
{
	if (ps->err && !ps->err[0])
		snprintf(ps->err, ps->errcap, "%s near '%.20s'", what, ps->p);
}

static void skip_ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\t' || *ps->p == '\r')
		ps->p++;
}

static struct json *value(struct parser *ps);

static char *string(struct parser *ps)
{
	size_t cap = 32, n = 0;
	char *s = malloc(cap);

	if (!s || *ps->p != '"') {
		free(s);
		fail(ps, "expected a string");
		return NULL;
	}
	ps->p++;
	while (*ps->p && *ps->p != '"') {
		char c = *ps->p++;

		if (c == '\\') {
			c = *ps->p++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': {
				unsigned v = 0;

				for (int i = 0; i < 4; i++) {
					char h = *ps->p++;

					v = v * 16 + (unsigned)(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
				}
				c = v < 0x80 ? (char)v : '?';
				break;
			}
			case '"': case '\\': case '/': break;
			default:
				free(s);
				fail(ps, "bad escape");
				return NULL;
			}
		}
		if (n + 2 > cap) {
			char *t = realloc(s, cap *= 2);

			if (!t) {
				free(s);
				return NULL;
			}
			s = t;
		}
		s[n++] = c;
	}
	if (*ps->p != '"') {
		free(s);
		fail(ps, "unterminated string");
		return NULL;
	}
	ps->p++;
	s[n] = '\0';
	return s;
}

static struct json *node(enum json_type t)
{
	struct json *j = calloc(1, sizeof(*j));

	if (j)
		j->type = t;
	return j;
}

static struct json *container(struct parser *ps, int object)
{
	struct json *j = node(object ? JSON_OBJECT : JSON_ARRAY), **tail;
	char close = object ? '}' : ']';

	if (!j)
		return NULL;
	tail = &j->child;
	ps->p++;
	skip_ws(ps);
	if (*ps->p == close) {
		ps->p++;
		return j;
	}
	for (;;) {
		char *key = NULL;
		struct json *v;

		skip_ws(ps);
		if (object) {
			if (!(key = string(ps)))
				goto bad;
			skip_ws(ps);
			if (*ps->p++ != ':') {
				free(key);
				fail(ps, "expected ':'");
				goto bad;
			}
		}
		if (!(v = value(ps))) {
			free(key);
			goto bad;
		}
		v->key = key;
		*tail = v;
		tail = &v->next;
		skip_ws(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == close) {
			ps->p++;
			return j;
		}
		fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
		goto bad;
	}
bad:
	json_free(j);
	return NULL;
}

static struct json *value(struct parser *ps)
{
	struct json *j;

	skip_ws(ps);
	if (++ps->depth > 64) {
		fail(ps, "nested too deeply");
		return NULL;
	}
	switch (*ps->p) {
	case '{': j = container(ps, 1); break;
	case '[': j = container(ps, 0); break;
	case '"':
		j = node(JSON_STRING);
		if (j && !(j->string = string(ps))) {
			free(j);
			j = NULL;
		}
		break;
	case 't': case 'f': case 'n': {
		const char *word = *ps->p == 't' ? "true" : *ps->p == 'f' ? "false" : "null";

		if (strncmp(ps->p, word, strlen(word)) != 0) {
			fail(ps, "unknown word");
			return NULL;
		}
		ps->p += strlen(word);
		j = node(word[0] == 'n' ? JSON_NULL : JSON_BOOL);
		if (j)
			j->number = word[0] == 't';
		break;
	}
	default: {
		char *end;
		double d = strtod(ps->p, &end);

		if (end == ps->p) {
			fail(ps, "unexpected character");
			return NULL;
		}
		ps->p = end;
		j = node(JSON_NUMBER);
		if (j)
			j->number = d;
	}
	}
	ps->depth--;
	return j;
}

struct json *json_parse(const char *text, char *err, size_t errcap)
{
	struct parser ps = { text, err, errcap, 0 };
	struct json *j;

	if (err && errcap)
		err[0] = '\0';
	j = value(&ps);
	skip_ws(&ps);
	if (j && *ps.p) {
		fail(&ps, "trailing text");
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
	for (const struct json *m = obj ? obj->child : NULL; m; m = m->next)
		if (m->key && strcmp(m->key, key) == 0)
			return m;
	return NULL;
}

double json_num(const struct json *obj, const char *key, double fallback)
{
	const struct json *m = json_get(obj, key);

	return m && (m->type == JSON_NUMBER || m->type == JSON_BOOL) ? m->number : fallback;
}

const char *json_str(const struct json *obj, const char *key, const char *fallback)
{
	const struct json *m = json_get(obj, key);

	return m && m->type == JSON_STRING ? m->string : fallback;
}
