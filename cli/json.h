/* SPDX-License-Identifier: MIT */
/* cli/json.h: a strict RFC 8259 JSON reader (and the one string escaper) for the cuaudit command. */
#ifndef CLI_JSON_H
#define CLI_JSON_H

#include <stddef.h>
#include <stdio.h>
#include "fmt.h"

/* Containers nest at most this deep; summaries need 4. */
#define JSON_MAX_DEPTH 64

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_type type;
	int boolean;          /* JSON_BOOL */
	int integral;         /* JSON_NUMBER written as an integer that fits in 'integer' */
	long long integer;
	double number;        /* JSON_NUMBER, always finite */
	char *string;         /* JSON_STRING: valid UTF-8 without NUL */
	char *key;            /* the member's name, when the parent is an object */
	struct json *child;   /* first element or member */
	struct json *next;    /* next sibling */
	size_t count;         /* number of elements or members */
};

/*
 * Parses exactly len bytes of text (no terminator needed). Returns the tree, or NULL with
 * "line L, column C: what" in err. Rejects all that RFC 8259 rejects, and also numbers
 * outside the range of a double, lone surrogates, \u0000, duplicate member names and nesting
 * deeper than JSON_MAX_DEPTH: each would be read differently by different readers.
 */
struct json *json_parse(const char *text, size_t len, char *err, size_t errcap);
void json_free(struct json *j);
/* The member of an object named key, or NULL (also when obj is NULL or not an object). */
const struct json *json_get(const struct json *obj, const char *key);
/* A buffer whose appends go on to f (cua_buf's spill), so that the command writes JSON with
   the module's own formatting and escaping (record/nvtxjson.c's writers, for one);
   json_file_end writes what is left. */
struct json_file {
	struct cua_buf b; /* first: the spill finds f from it */
	FILE *f;
	char mem[1024];
};
void json_file_begin(struct json_file *j, FILE *f);
void json_file_end(struct json_file *j);
/* Writes s as a JSON string literal, escaped by the module's own routine (cua_buf_text,
   CUA_TEXT_JSON): valid UTF-8 whatever the bytes, control characters escaped. */
void json_put_string(FILE *f, const char *s);
/* s made safe for a terminal (cua_buf_text, CUA_TEXT_TERM): ESC, other C0 and C1 controls
   and DEL as visible \xNN, bytes that are not UTF-8 as U+FFFD. The result stays valid until
   eight more calls; NULL gives "". */
const char *cli_term(const char *s);

#endif
