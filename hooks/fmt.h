/* SPDX-License-Identifier: MIT */
/* hooks/fmt.h: locale-free formatting into bounded buffers, safe on any application thread. */
#ifndef CUA_FMT_H
#define CUA_FMT_H

#include <stddef.h>
#include <stdint.h>

/* A bounded output buffer. Appends past cap are dropped and set 'truncated'. */
struct cua_buf {
	char *p;
	size_t len;
	size_t cap;
	int truncated;
};

#define CUA_BUF(arr) { (arr), 0, sizeof(arr), 0 }

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
/* Append a C string in double quotes, escaping quotes, backslashes, control bytes and bytes above 0x7e, at most
   'max' bytes of it, then "..." if it was longer. NULL is written as NULL. */
void cua_buf_quoted(struct cua_buf *b, const char *s, size_t max);

/* Expand a file-name template: %p is the pid, %h the host name, %% a percent sign.
   Returns the length written (NUL-terminated) or -1 if it does not fit or has another %. */
long cua_fmt_path(char *out, size_t cap, const char *tmpl, uint64_t pid, const char *host);

#endif
