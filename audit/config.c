/* SPDX-License-Identifier: MIT */
/* audit/config.c: parses the CUAUDIT_* variables into struct cua_config, without locale use. */
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "fmt.h"

struct cua_config cua_cfg = { .log_level = CUA_LOG_WARN };

static const char *const level_names[] = { "off", "error", "warn", "info", "verbose", "debug" };

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static int same_word(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (lower(*a) != lower(*b))
			return 0;
	return *a == *b;
}

int cua_config_parse_level(const char *s)
{
	for (unsigned i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (same_word(s, level_names[i]))
			return (int)i;
	return -1;
}

int cua_config_check_template(const char *tmpl)
{
	if (!*tmpl)
		return -1;
	for (const char *s = tmpl; *s; s++) {
		if (*s != '%')
			continue;
		s++;
		if (*s != 'p' && *s != 'h' && *s != '%')
			return -1;
	}
	return 0;
}

static void bad_value(cua_diag_fn diag, const char *var, const char *value, const char *accepted,
		      const char *fallback)
{
	char msg[CUA_PATH_MAX + 512];
	struct cua_buf b = CUA_BUF(msg);

	cua_buf_str(&b, "cuaudit: ");
	cua_buf_str(&b, var);
	cua_buf_char(&b, '=');
	cua_buf_quoted(&b, value, 200);
	cua_buf_str(&b, " is not valid; accepted: ");
	cua_buf_str(&b, accepted);
	cua_buf_str(&b, ". ");
	cua_buf_str(&b, fallback);
	cua_buf_char(&b, '\n');
	msg[b.len < sizeof(msg) ? b.len : sizeof(msg) - 1] = '\0';
	diag(msg);
}

static int copy_path(char *dst, const char *src)
{
	size_t n = strlen(src);

	if (n >= CUA_PATH_MAX)
		return -1;
	memcpy(dst, src, n + 1);
	return 0;
}

static void load_log(struct cua_config *cfg, cua_getenv_fn get, cua_diag_fn diag)
{
	const char *v = get("CUAUDIT_LOG");

	if (v) {
		int level = cua_config_parse_level(v);

		if (level < 0)
			bad_value(diag, "CUAUDIT_LOG", v, "off, error, warn, info, verbose, debug",
				  "Logging stays at the default, warn.");
		else
			cfg->log_level = level;
	}
	v = get("CUAUDIT_LOG_FILE");
	if (!v)
		return;
	if (cua_config_check_template(v) != 0 || copy_path(cfg->log_file, v) != 0)
		bad_value(diag, "CUAUDIT_LOG_FILE", v,
			  "a non-empty path shorter than 1024 bytes, where %p is the pid, %h the "
			  "host name and %% a percent sign",
			  "The log goes to stderr.");
}

static void load_substitute(char *dst, const char *var, cua_getenv_fn get, cua_diag_fn diag)
{
	const char *v = get(var);

	if (!v)
		return;
	/* A relative path would break in any child that changes directory, and a missing file
	   would make the program's own load fail: refuse both up front. */
	if (v[0] != '/' || access(v, R_OK) != 0 || copy_path(dst, v) != 0)
		bad_value(diag, var, v, "an absolute path to a readable library",
			  "The library is not substituted.");
}

void cua_config_load(struct cua_config *cfg, cua_getenv_fn get, cua_diag_fn diag)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->log_level = CUA_LOG_WARN;
	load_log(cfg, get, diag);
	load_substitute(cfg->libcuda, "CUAUDIT_LIBCUDA", get, diag);
	load_substitute(cfg->libcudart, "CUAUDIT_LIBCUDART", get, diag);
}
