/* SPDX-License-Identifier: MIT */
/* hooks/errcount/errcount_config.c: CUAUDIT_ERROR_COUNT, the failure counter's variable, and its message. */
#include <sys/stat.h>
#include "errcount_config.h"

static int parse_token(const char *s, uint8_t out[16])
{
	for (unsigned i = 0; i < 32; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (d < 0)
			return -1;
		out[i / 2] = (uint8_t)(i % 2 ? out[i / 2] | d : d << 4);
	}
	return s[32] ? -1 : 0;
}

void cua_errcount_config_load(struct cua_errcount_config *cfg, cua_getenv_fn get, cua_diag_fn diag,
			      int secure)
{
	const char *v = get("CUAUDIT_ERROR_COUNT"), *t = get("CUAUDIT_ERROR_COUNT_TOKEN");
	struct stat st;

	cfg->path[0] = '\0';
	if (!v)
		return;
	/* The command creates the file; the module only maps one that already exists. Whether
	   it is the command's own is checked by its token when it is mapped (hooks/errcount/errcount.c). */
	if (v[0] != '/' || stat(v, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 24 ||
	    cua_config_copy_path(cfg->path, v) != 0) {
		cua_config_bad_value(diag, "CUAUDIT_ERROR_COUNT", v,
				     "the absolute path of an existing regular file of at least 24 bytes (cuaudit "
				     "run --error-exitcode makes one)",
				     "Failed calls are not counted.");
		cfg->path[0] = '\0';
	} else if (!t || parse_token(t, cfg->token) != 0) {
		cua_config_bad_value(diag, "CUAUDIT_ERROR_COUNT_TOKEN", t ? t : "",
				     "32 lower-case hex digits, set by cuaudit run --error-exitcode with "
				     "CUAUDIT_ERROR_COUNT",
				     "Failed calls are not counted.");
		cfg->path[0] = '\0';
	}
	/* Nothing the environment names is written from a secure process. */
	if (secure)
		cfg->path[0] = '\0';
}
