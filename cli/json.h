/* SPDX-License-Identifier: MIT */
/* cli/json.h: a small JSON reader for cuaudit's own summary files. */
#ifndef CLI_JSON_H
#define CLI_JSON_H

#include <stddef.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_type type;
	double number;        /* JSON_NUMBER, and 1/0 for JSON_BOOL */
	char *string;         /* JSON_STRING; for members of an object, also the key in 'key' */
	char *key;
	struct json *child;   /* first element or member */
	struct json *next;    /* next sibling */
};

/* Parses text; returns the tree or NULL with a message in err. */
struct json *json_parse(const char *text, char *err, size_t errcap);
void json_free(struct json *j);
/* Member of an object by key, or NULL. */
const struct json *json_get(const struct json *obj, const char *key);
double json_num(const struct json *obj, const char *key, double fallback);
const char *json_str(const struct json *obj, const char *key, const char *fallback);

#endif
