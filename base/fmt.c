/* SPDX-License-Identifier: MIT */
/* base/fmt.c: number and string formatting without libc's locale-dependent functions. */
#include <string.h>
#include <errno.h>
#include "fmt.h"

size_t cua_fmt_u64(char *out, uint64_t v)
{
	char tmp[20];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

size_t cua_fmt_i64(char *out, int64_t v)
{
	if (v >= 0)
		return cua_fmt_u64(out, (uint64_t)v);
	out[0] = '-';
	/* Negate in unsigned arithmetic: -INT64_MIN overflows int64_t. */
	return 1 + cua_fmt_u64(out + 1, 0 - (uint64_t)v);
}

size_t cua_fmt_hex(char *out, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	size_t n = 0;

	do {
		tmp[n++] = digits[v & 0xf];
		v >>= 4;
	} while (v);
	out[0] = '0';
	out[1] = 'x';
	for (size_t i = 0; i < n; i++)
		out[2 + i] = tmp[n - 1 - i];
	return n + 2;
}

size_t cua_utf8_cut(const char *s, size_t n, size_t max)
{
	size_t k = max;

	if (n <= max)
		return n;
	/* s[k] is the first byte left out: step back while it continues a character. */
	for (unsigned i = 0; i < 3 && k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80; i++)
		k--;
	return ((unsigned char)s[k] & 0xc0) == 0x80 ? max : k;
}

size_t cua_utf8_whole(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t back = 1; back <= 3 && back <= n; back++) {
		unsigned c = p[n - back], need;

		if (c < 0x80)
			return n;
		if (c < 0xc0)
			continue; /* a continuation byte: its start is further back */
		need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
		return need > back ? n - back : n;
	}
	return n;
}

void cua_buf_mem(struct cua_buf *b, const char *s, size_t n)
{
	for (;;) {
		size_t room = b->cap > b->len ? b->cap - b->len : 0;

		if (n <= room) {
			memcpy(b->p + b->len, s, n);
			b->len += n;
			return;
		}
		if (!b->spill) {
			/* Never the first bytes of a character without the rest. */
			n = b->truncated ? 0 : cua_utf8_cut(s, n, room);
			memcpy(b->p + b->len, s, n);
			b->len += n;
			b->truncated = 1;
			return;
		}
		memcpy(b->p + b->len, s, room);
		b->len += room;
		s += room;
		n -= room;
		b->spill(b);
	}
}

/* An escape or a character: whole, or (in a buffer without spill that is full) not at all. */
static void unit(struct cua_buf *b, const char *s, size_t n)
{
	if (!b->spill && (b->truncated || b->cap - (b->len < b->cap ? b->len : b->cap) < n)) {
		b->truncated = 1;
		return;
	}
	cua_buf_mem(b, s, n);
}

void cua_buf_str(struct cua_buf *b, const char *s)
{
	cua_buf_mem(b, s, strlen(s));
}

void cua_buf_char(struct cua_buf *b, char c)
{
	cua_buf_mem(b, &c, 1);
}

void cua_buf_u64(struct cua_buf *b, uint64_t v)
{
	char tmp[20];

	cua_buf_mem(b, tmp, cua_fmt_u64(tmp, v));
}

void cua_buf_i64(struct cua_buf *b, int64_t v)
{
	char tmp[21];

	cua_buf_mem(b, tmp, cua_fmt_i64(tmp, v));
}

void cua_buf_hex(struct cua_buf *b, uint64_t v)
{
	char tmp[18];

	cua_buf_mem(b, tmp, cua_fmt_hex(tmp, v));
}

void cua_buf_u64_pad(struct cua_buf *b, uint64_t v, unsigned width)
{
	char tmp[20];

	if (width > sizeof(tmp))
		width = sizeof(tmp);
	for (unsigned i = width; i > 0; i--) {
		tmp[i - 1] = (char)('0' + v % 10);
		v /= 10;
	}
	cua_buf_mem(b, tmp, width);
}

void cua_buf_quoted(struct cua_buf *b, const char *s, size_t max)
{
	size_t n = 0;

	if (!s) {
		cua_buf_str(b, "NULL");
		return;
	}
	while (n < max && s[n])
		n++;
	/* Whole characters only: at most 3 bytes more than max to end the last one. */
	while (s[n] && ((unsigned char)s[n] & 0xc0) == 0x80 && n < max + 3)
		n++;
	cua_buf_char(b, '"');
	cua_buf_text(b, s, n, CUA_TEXT_QUOTED);
	cua_buf_char(b, '"');
	if (s[n])
		cua_buf_str(b, "...");
}

/* Environment values that %q{NAME} names, taken once in la_version (cua_fmt_capture). */
#define VARS 8
static struct {
	char name[CUA_FMT_VAR_NAME_MAX + 1];
	char value[CUA_FMT_VAR_VALUE_MAX + 1];
	int set;
} vars[VARS];
static unsigned nvars;

size_t cua_fmt_var_name(const char *s)
{
	size_t n = 0;

	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
		return 0;
	while ((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z') || s[n] == '_' ||
	       (s[n] >= '0' && s[n] <= '9'))
		n++;
	return n <= CUA_FMT_VAR_NAME_MAX && s[n] == '}' ? n : 0;
}

static int var_index(const char *name, size_t n)
{
	for (unsigned i = 0; i < nvars; i++)
		if (strlen(vars[i].name) == n && memcmp(vars[i].name, name, n) == 0)
			return (int)i;
	return -1;
}

int cua_fmt_capture(const char *name, size_t n, const char *value)
{
	int i = var_index(name, n);

	if (n == 0 || n > CUA_FMT_VAR_NAME_MAX || (value && strlen(value) > CUA_FMT_VAR_VALUE_MAX))
		return -1;
	if (i < 0) {
		if (nvars == VARS)
			return -1;
		i = (int)nvars++;
		memcpy(vars[i].name, name, n);
		vars[i].name[n] = '\0';
	}
	vars[i].set = value != NULL;
	if (value)
		memcpy(vars[i].value, value, strlen(value) + 1);
	else
		vars[i].value[0] = '\0';
	return 0;
}

void cua_fmt_forget_vars(void)
{
	nvars = 0;
}

long cua_fmt_path(char *out, size_t cap, const char *tmpl, uint64_t pid, const char *host)
{
	struct cua_buf b = { out, 0, cap ? cap - 1 : 0, 0, NULL, 0 };

	/* An empty template names no file: refuse it, as cua_config_check_template does. */
	if (cap == 0 || !*tmpl)
		return -1;
	for (const char *s = tmpl; *s; s++) {
		size_t n;

		if (*s != '%') {
			cua_buf_char(&b, *s);
			continue;
		}
		s++;
		if (*s == 'p') {
			cua_buf_u64(&b, pid);
		} else if (*s == 'h') {
			cua_buf_str(&b, host);
		} else if (*s == '%') {
			cua_buf_char(&b, '%');
		} else if (*s == 'q' && s[1] == '{' && (n = cua_fmt_var_name(s + 2)) > 0) {
			int i = var_index(s + 2, n);

			/* Unset (or never captured) expands to nothing, as nsys does. */
			if (i >= 0)
				cua_buf_str(&b, vars[i].value);
			s += 2 + n;
		} else {
			return -1;
		}
	}
	out[b.len] = '\0';
	return b.truncated ? -1 : (long)b.len;
}

static const struct {
	int err;
	const char *text;
} errors[] = {
	{ ENOSPC, "ENOSPC (No space left on device)" },
	{ EFBIG, "EFBIG (File too large)" },
	{ EDQUOT, "EDQUOT (Disk quota exceeded)" },
	{ EIO, "EIO (Input/output error)" },
	{ EACCES, "EACCES (Permission denied)" },
	{ EROFS, "EROFS (Read-only file system)" },
	{ ENOENT, "ENOENT (No such file or directory)" },
	{ ENOTDIR, "ENOTDIR (Not a directory)" },
	{ EISDIR, "EISDIR (Is a directory)" },
	{ ENXIO, "ENXIO (No reader on the FIFO)" },
	{ EPIPE, "EPIPE (Broken pipe)" },
	{ EAGAIN, "EAGAIN (Would block)" },
	{ EBADF, "EBADF (Bad file descriptor)" },
	{ EMFILE, "EMFILE (Too many open files)" },
	{ ELOOP, "ELOOP (A symbolic link)" },
	{ EEXIST, "EEXIST (File exists)" },
};

void cua_buf_errno(struct cua_buf *b, int err)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		if (errors[i].err == err) {
			cua_buf_str(b, errors[i].text);
			return;
		}
	}
	cua_buf_str(b, "errno ");
	cua_buf_i64(b, err);
}

unsigned cua_utf8_len(const unsigned char *s, size_t n)
{
	unsigned len;

	if (n == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
						   : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
	if (len == 0 || len > n)
		return 0;
	for (unsigned i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* No overlong forms, no surrogates, nothing above U+10FFFF. */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return len;
}

/* A control character (C0, DEL, or C1 written as U+0080..U+009F) escaped in 'style'. */
static void control(struct cua_buf *b, unsigned cp, enum cua_text style)
{
	static const char hex[] = "0123456789abcdef";
	char esc[6] = { '\\', 'u', '0', '0', hex[cp >> 4], hex[cp & 15] };

	if (style == CUA_TEXT_JSON) {
		unit(b, esc, 6);
	} else {
		esc[1] = 'x';
		esc[2] = hex[cp >> 4];
		esc[3] = hex[cp & 15];
		unit(b, esc, 4);
	}
}

void cua_buf_text(struct cua_buf *b, const char *s, size_t n, enum cua_text style)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		unsigned c = p[i], len = cua_utf8_len(p + i, n - i);

		if (len == 0) {
			if (style == CUA_TEXT_JSON)
				unit(b, "\\ufffd", 6);
			else
				unit(b, "\xef\xbf\xbd", 3);
			i++;
			continue;
		}
		if (len == 2 && c == 0xc2 && p[i + 1] < 0xa0) {
			/* C1: a terminal obeys these as it obeys ESC sequences. */
			if (style == CUA_TEXT_PROM)
				unit(b, (const char *)p + i, 2);
			else
				control(b, p[i + 1], style);
		} else if (len > 1) {
			unit(b, (const char *)p + i, len);
		} else if ((c == '"' || c == '\\') && style != CUA_TEXT_TERM) {
			char esc[2] = { '\\', (char)c };

			unit(b, esc, 2);
		} else if (c == '\n' && style == CUA_TEXT_PROM) {
			unit(b, "\\n", 2);
		} else if ((c < 0x20 || c == 0x7f) && style != CUA_TEXT_PROM) {
			control(b, c, style);
		} else {
			unit(b, (const char *)p + i, 1);
		}
		i += len;
	}
}

void cua_buf_json(struct cua_buf *b, const char *s, size_t n)
{
	cua_buf_text(b, s, n, CUA_TEXT_JSON);
}

void cua_buf_json_string(struct cua_buf *b, const char *s)
{
	cua_buf_char(b, '"');
	if (s)
		cua_buf_json(b, s, strlen(s));
	cua_buf_char(b, '"');
}
