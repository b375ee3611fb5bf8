/* SPDX-License-Identifier: MIT */
/* hooks/summary/summary_config.h: the summary's configuration (CUAUDIT_SUMMARY, CUAUDIT_SUMMARY_SAMPLE), read once in la_version. */
#ifndef CUA_SUMMARY_CONFIG_H
#define CUA_SUMMARY_CONFIG_H

#include "config.h"

struct cua_summary_config {
	char path[CUA_PATH_MAX]; /* "stderr", a file-name template, or empty (off) */
	/* CUAUDIT_SUMMARY_SAMPLE, 0 for exact timing, else N: once a function's mean is known on
	   a thread, a sub-microsecond function is timed 1 call in N. */
	unsigned sample;
	int sample_set; /* CUAUDIT_SUMMARY_SAMPLE was given (0 and bad values included) */
};

/* CUAUDIT_SUMMARY_SAMPLE: "0" (exact) or an integer N from 2 to 1000000. Returns 0 or -1. */
int cua_summary_config_parse_sample(const char *s, unsigned *out);
/* Reads both variables through get. A bad value: one message through diag, and that part at
   its default (no summary, every call timed). In a secure process a summary goes to stderr. */
void cua_summary_config_load(struct cua_summary_config *cfg, cua_getenv_fn get, cua_diag_fn diag,
			     int secure);

#endif
