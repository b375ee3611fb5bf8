/* SPDX-License-Identifier: MIT */
/* tests/unit/test_fmt.c: the locale-free number, string and file-name formatting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "fmt.h"

static char *fmt_with(size_t (*f)(char *, uint64_t), uint64_t v)
{
	static char buf[32];
	size_t n = f(buf, v);

	buf[n] = '\0';
	return buf;
}

static void u64_formats_decimal_including_extremes(void **state)
{
	(void)state;
	assert_string_equal(fmt_with(cua_fmt_u64, 0), "0");
	assert_string_equal(fmt_with(cua_fmt_u64, 7), "7");
	assert_string_equal(fmt_with(cua_fmt_u64, 1234567890), "1234567890");
	assert_string_equal(fmt_with(cua_fmt_u64, UINT64_MAX), "18446744073709551615");
}

static void i64_formats_negative_numbers_and_int64_min(void **state)
{
	char buf[32];

	(void)state;
	buf[cua_fmt_i64(buf, -1)] = '\0';
	assert_string_equal(buf, "-1");
	buf[cua_fmt_i64(buf, INT64_MIN)] = '\0';
	assert_string_equal(buf, "-9223372036854775808");
	buf[cua_fmt_i64(buf, 42)] = '\0';
	assert_string_equal(buf, "42");
}

static void hex_formats_lowercase_without_leading_zeros(void **state)
{
	(void)state;
	assert_string_equal(fmt_with(cua_fmt_hex, 0), "0x0");
	assert_string_equal(fmt_with(cua_fmt_hex, 0xdeadBEEF), "0xdeadbeef");
	assert_string_equal(fmt_with(cua_fmt_hex, UINT64_MAX), "0xffffffffffffffff");
}

static void buffer_truncates_without_overflow(void **state)
{
	char buf[8];
	struct cua_buf b = CUA_BUF(buf);

	(void)state;
	memset(buf, 'x', sizeof(buf));
	cua_buf_str(&b, "abcdef");
	cua_buf_u64(&b, 12345);
	assert_int_equal(b.len, 8);
	assert_true(b.truncated);
	assert_memory_equal(buf, "abcdef12", 8);
}

static void padded_numbers_keep_width(void **state)
{
	char buf[16];
	struct cua_buf b = CUA_BUF(buf);

	(void)state;
	cua_buf_u64_pad(&b, 42, 6);
	assert_int_equal(b.len, 6);
	assert_memory_equal(buf, "000042", 6);
}

static void quoted_strings_escape_and_cut(void **state)
{
	char buf[64];
	struct cua_buf b = CUA_BUF(buf);

	(void)state;
	cua_buf_quoted(&b, "a\"b\\c\n\xe9", 64);
	buf[b.len] = '\0';
	/* A byte that is not UTF-8 becomes U+FFFD; a control character is escaped. */
	assert_string_equal(buf, "\"a\\\"b\\\\c\\x0a\xef\xbf\xbd\"");
	b.len = 0;
	cua_buf_quoted(&b, "abcdef", 3);
	buf[b.len] = '\0';
	assert_string_equal(buf, "\"abc\"...");
	b.len = 0;
	cua_buf_quoted(&b, NULL, 3);
	buf[b.len] = '\0';
	assert_string_equal(buf, "NULL");
}

/* Text from the program is valid UTF-8 in every output: well-formed
   UTF-8 unchanged, each bad byte U+FFFD, controls (C0, DEL, C1) escaped, nothing cut inside a
   character or an escape. */
static void text_keeps_utf8_replaces_bad_bytes_and_escapes_controls(void **state)
{
	char buf[128];
	struct cua_buf b = CUA_BUF(buf);

	(void)state;
	cua_buf_json(&b, "caf\xc3\xa9 \xe4\xb8\xad", 9);
	buf[b.len] = '\0';
	assert_string_equal(buf, "caf\xc3\xa9 \xe4\xb8\xad");
	b.len = 0;
	/* Latin-1 é, a lone continuation byte, an overlong '/', a surrogate, ESC, DEL, C1 CSI. */
	cua_buf_json(&b, "\xe9\x80\xc0\xaf\xed\xa0\x80\x1b\x7f\xc2\x9b", 11);
	buf[b.len] = '\0';
	assert_string_equal(buf, "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd"
				 "\\u001b\\u007f\\u009b");
	b.len = 0;
	cua_buf_text(&b, "\x1b]0;x\x07\xc2\x85\\", 9, CUA_TEXT_TERM);
	buf[b.len] = '\0';
	assert_string_equal(buf, "\\x1b]0;x\\x07\\x85\\");
	b.len = 0;
	cua_buf_text(&b, "a\"\n\xff", 4, CUA_TEXT_PROM);
	buf[b.len] = '\0';
	assert_string_equal(buf, "a\\\"\\n\xef\xbf\xbd");
}

static void full_buffer_never_cuts_a_character_or_an_escape(void **state)
{
	char buf[5];
	struct cua_buf b = CUA_BUF(buf);

	(void)state;
	cua_buf_str(&b, "ab\xe4\xb8\xad"); /* 5 bytes: fits */
	assert_int_equal(b.len, 5);
	b.len = 0;
	cua_buf_str(&b, "abc\xe4\xb8\xad"); /* the character would be cut: left out whole */
	assert_int_equal(b.len, 3);
	assert_true(b.truncated);
	b = (struct cua_buf)CUA_BUF(buf);
	cua_buf_json(&b, "ab\x01", 3); /* \u0001 does not fit: not half of it */
	assert_int_equal(b.len, 2);
	assert_true(b.truncated);
	b = (struct cua_buf)CUA_BUF(buf);
	cua_buf_quoted(&b, "\xe4\xb8\xad\xe4\xb8\xad", 4); /* max inside the second character */
	assert_true(b.truncated);
	assert_int_equal(b.len, 5); /* the first character whole, in its quotes */
	assert_memory_equal(buf, "\"\xe4\xb8\xad\"", 5);
}

static void path_template_expands_pid_host_and_percent(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(cua_fmt_path(out, sizeof(out), "/tmp/cua.%p.%h.100%%", 4321, "gpu7"),
			 strlen("/tmp/cua.4321.gpu7.100%"));
	assert_string_equal(out, "/tmp/cua.4321.gpu7.100%");
}

static void path_template_rejects_unknown_escape_and_overflow(void **state)
{
	char out[8];

	(void)state;
	assert_int_equal(cua_fmt_path(out, sizeof(out), "a%x", 1, "h"), -1);
	assert_int_equal(cua_fmt_path(out, sizeof(out), "a%", 1, "h"), -1);
	assert_int_equal(cua_fmt_path(out, sizeof(out), "", 1, "h"), -1);
	assert_int_equal(cua_fmt_path(out, sizeof(out), "/long/path/%p", 1, "h"), -1);
	assert_int_equal(cua_fmt_path(out, sizeof(out), "1234567", 1, "h"), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(u64_formats_decimal_including_extremes),
		cmocka_unit_test(i64_formats_negative_numbers_and_int64_min),
		cmocka_unit_test(hex_formats_lowercase_without_leading_zeros),
		cmocka_unit_test(buffer_truncates_without_overflow),
		cmocka_unit_test(padded_numbers_keep_width),
		cmocka_unit_test(quoted_strings_escape_and_cut),
		cmocka_unit_test(text_keeps_utf8_replaces_bad_bytes_and_escapes_controls),
		cmocka_unit_test(full_buffer_never_cuts_a_character_or_an_escape),
		cmocka_unit_test(path_template_expands_pid_host_and_percent),
		cmocka_unit_test(path_template_rejects_unknown_escape_and_overflow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
