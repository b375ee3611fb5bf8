/* SPDX-License-Identifier: MIT */
/* base/fmt.h: locale-free formatting into bounded buffers, safe on any application thread. */
#ifndef CUA_FMT_H
#define CUA_FMT_H

#include <stddef.h>
#include <stdint.h>

/* A bounded output buffer. Appends past cap are dropped and set 'truncated', never cutting a
   UTF-8 character or an escape in two. A buffer with 'spill' (a writer's) never drops: when it
   is full, spill empties it (writes it out) and the append goes on, so no output is cut
   because of its length. */
struct cua_buf {
	char *p;
	size_t len;
	size_t cap;
	int truncated;
	void (*spill)(struct cua_buf *b);
	int quiet; /* cua_log_begin of a level that is off: cua_log_end writes nothing */
};

#define CUA_BUF(arr) { (arr), 0, sizeof(arr), 0, NULL, 0 }

/* Write v in decimal to out (at least 20 bytes); returns the length. No NUL is written. */
size_t cua_fmt_u64(char *out, uint64_t v);
/* Write v in decimal with a leading '-' when negative (at least 21 bytes). */
size_t cua_fmt_i64(char *out, int64_t v);
/* Write v as 0x followed by lowercase hex digits, no leading zeros (at least 18 bytes). */
size_t cua_fmt_hex(char *out, uint64_t v);

void cua_buf_mem(struct cua_buf *b, const char *s, size_t n);
void cua_buf_str(struct cua_buf *b, const char *s);
void cua_buf_char(struct cua_buf *b, char c);
void cua_buf_u64(struct cua_buf *b, uint64_t v);
void cua_buf_i64(struct cua_buf *b, int64_t v);
void cua_buf_hex(struct cua_buf *b, uint64_t v);
/* Append v with exactly 'width' digits, zero-padded (width <= 20). */
void cua_buf_u64_pad(struct cua_buf *b, uint64_t v, unsigned width);
/* Append a C string in double quotes, as CUA_TEXT_QUOTED, at most about 'max' bytes of it
   (never cutting a character), then "..." if it was longer. NULL is written as NULL. */
void cua_buf_quoted(struct cua_buf *b, const char *s, size_t max);

/* Expand a file-name template: %p is the pid, %h the host name, %% a percent sign, and
   %q{NAME} the value of environment variable NAME as cua_fmt_capture recorded it (empty when
   unset or never captured). Returns the length written (NUL-terminated) or -1 if it does not
   fit or has another %. Safe on any thread: it reads only the captured values. */
long cua_fmt_path(char *out, size_t cap, const char *tmpl, uint64_t pid, const char *host);

#define CUA_FMT_VAR_NAME_MAX 63
#define CUA_FMT_VAR_VALUE_MAX 255
/* The length of the NAME of "NAME}" at s ([A-Za-z_][A-Za-z0-9_]*, at most 63 bytes, closed
   by '}'), or 0 if s does not start one. */
size_t cua_fmt_var_name(const char *s);
/* Records NAME's value (NULL: unset) for %q{NAME}; from la_version only, before any thread
   expands a template. At most 8 names, values up to 255 bytes. Returns 0 or -1. */
int cua_fmt_capture(const char *name, size_t n, const char *value);
/* Drops every captured value (for tests). */
void cua_fmt_forget_vars(void);

/* "ENOSPC (No space left on device)" for the errors an output meets; the number otherwise.
   Locale-free: strerror may crash on application threads. */
void cua_buf_errno(struct cua_buf *b, int err);

/* How text from the program (names, paths, command lines, environment values) is written.
   Every style writes valid UTF-8: well-formed UTF-8 passes through unchanged, each byte that
   is not part of a well-formed sequence becomes U+FFFD, and control characters (C0, DEL and
   C1, U+0080..U+009F) are escaped where the style says so. The one escaping routine of
   cuaudit: the module and the command use it for every output. */
enum cua_text {
	CUA_TEXT_JSON,   /* inside a JSON string: \" \\ and \u00XX for controls, \ufffd */
	CUA_TEXT_QUOTED, /* inside "..." in a log line: \" \\ and \xNN for controls */
	CUA_TEXT_PROM,   /* a Prometheus label value: \\ \" \n escaped, the rest as is */
	CUA_TEXT_TERM,   /* for a terminal: controls as \xNN, nothing else escaped */
};
/* Appends s[0, n) in the given style. */
void cua_buf_text(struct cua_buf *b, const char *s, size_t n, enum cua_text style);
/* The length of the well-formed UTF-8 sequence at s[0, n) (1 to 4), or 0 if there is none. */
unsigned cua_utf8_len(const unsigned char *s, size_t n);
/* n less a last character that s[0, n) holds only the start of (text read into a buffer that
   was too small, a name the kernel cut at 15 bytes). */
size_t cua_utf8_whole(const char *s, size_t n);
/* The longest prefix of s[0, n) of at most max bytes that ends on a character boundary. */
size_t cua_utf8_cut(const char *s, size_t n, size_t max);

/* Appends s[0, n) escaped for a JSON string (CUA_TEXT_JSON); cua_buf_json_string adds the
   quotes around a C string. */
void cua_buf_json(struct cua_buf *b, const char *s, size_t n);
void cua_buf_json_string(struct cua_buf *b, const char *s);

#endif
