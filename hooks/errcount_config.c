/* SPDX-License-Identifier: MIT */
/* hooks/errcount_config.c: CUAUDIT_ERROR_COUNT, the failure counter's variable, and its message. */
#include <sys/stat.h>
#include "errcount_config.h"

void cua_errcount_config_load(struct cua_errcount_config *cfg, cua_getenv_fn get, cua_diag_fn diag,
			      int secure)
{
	const char *v = get("CUAUDIT_ERROR_COUNT");
	struct stat st;

	cfg->path[0] = '\0';
	if (!v)
		return;
	/* The command creates the file; the module only maps one that already exists. */
	if (v[0] != '/' || stat(v, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 8 ||
	    cua_config_copy_path(cfg->path, v) != 0)
		cua_config_bad_value(diag, "CUAUDIT_ERROR_COUNT", v,
				     "the absolute path of an existing regular file of at least 8 bytes (cuaudit "
				     "run --error-exitcode makes one)",
				     "Failed calls are not counted.");
	/* Nothing the environment names is written from a secure process. */
	if (secure)
		cfg->path[0] = '\0';
}
