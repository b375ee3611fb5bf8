/* SPDX-License-Identifier: MIT */
/* hooks/errcount/errcount_config.h: the failure counter's configuration (CUAUDIT_ERROR_COUNT), read once in la_version. */
#ifndef CUA_ERRCOUNT_CONFIG_H
#define CUA_ERRCOUNT_CONFIG_H

#include "config.h"

struct cua_errcount_config {
	/* CUAUDIT_ERROR_COUNT: an existing file whose first 8 bytes count failed calls (set by
	   `cuaudit run --error-exitcode`), or empty. */
	char path[CUA_PATH_MAX];
	/* CUAUDIT_ERROR_COUNT_TOKEN: the 128-bit token the command stored at bytes 8..23 of its
	   counter; the module counts only into a file that holds it. */
	uint8_t token[16];
};

/* Reads CUAUDIT_ERROR_COUNT through get. A bad value: one message through diag, and nothing
   counted. In a secure process (AT_SECURE) nothing either. */
void cua_errcount_config_load(struct cua_errcount_config *cfg, cua_getenv_fn get, cua_diag_fn diag,
			      int secure);

#endif
