/* SPDX-License-Identifier: MIT */
/* hooks/core/fmt.c: number and string formatting without libc's locale-dependent functions. */
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

void cua_buf_mem(struct cua_buf *b, const char *s, size_t n)
{
	size_t room = b->cap > b->len ? b->cap - b->len : 0;

	if (n > room) {
		n = room;
		b->truncated = 1;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
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
	static const char digits[] = "0123456789abcdef";
	size_t i;

	if (!s) {
		cua_buf_str(b, "NULL");
		return;
	}
	cua_buf_char(b, '"');
	for (i = 0; s[i] && i < max; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			cua_buf_char(b, '\\');
			cua_buf_char(b, (char)c);
		} else if (c < 0x20 || c >= 0x7f) {
			char esc[4] = { '\\', 'x', digits[c >> 4], digits[c & 0xf] };

			cua_buf_mem(b, esc, sizeof(esc));
		} else {
			cua_buf_char(b, (char)c);
		}
	}
	cua_buf_char(b, '"');
	if (s[i])
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
	struct cua_buf b = { out, 0, cap ? cap - 1 : 0, 0, 0 };

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

void cua_buf_json(struct cua_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			cua_buf_char(b, '\\');
			cua_buf_char(b, (char)c);
		} else if (c < 0x20 || c > 0x7e) {
			/* Bytes above 0x7e too: the output stays valid JSON whatever the bytes. */
			char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

			cua_buf_mem(b, esc, sizeof(esc));
		} else {
			cua_buf_char(b, (char)c);
		}
	}
}

void cua_buf_json_string(struct cua_buf *b, const char *s)
{
	cua_buf_char(b, '"');
	if (s)
		cua_buf_json(b, s, strlen(s));
	cua_buf_char(b, '"');
}
