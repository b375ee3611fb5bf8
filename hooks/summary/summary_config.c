/* SPDX-License-Identifier: MIT */
/* hooks/summary/summary_config.c: the summary's variables (CUAUDIT_SUMMARY, CUAUDIT_SUMMARY_SAMPLE) and their messages. */
#include <string.h>
#include "summary_config.h"

int cua_summary_config_parse_sample(const char *s, unsigned *out)
{
	uint64_t v;

	if (cua_config_parse_u64(&s, &v) != 0 || *s || v == 1 || v > 1000000)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static void load_sample(struct cua_summary_config *cfg, cua_getenv_fn get, cua_diag_fn diag)
{
	const char *v = get("CUAUDIT_SUMMARY_SAMPLE");

	/* Given, even if bad: a bad value means "every call is timed", as the message says,
	   for the metrics alone too. */
	cfg->sample_set = v != NULL;
	if (v && cua_summary_config_parse_sample(v, &cfg->sample) != 0)
		cua_config_bad_value(diag, "CUAUDIT_SUMMARY_SAMPLE", v,
				     "0 (time every call) or an integer N from 2 to 1000000 (time 1 call in N"
				     " of each sub-microsecond function)",
				     "Every call is timed.");
}

void cua_summary_config_load(struct cua_summary_config *cfg, cua_getenv_fn get, cua_diag_fn diag,
			     int secure)
{
	memset(cfg, 0, sizeof(*cfg));
	cua_config_load_report(cfg->path, "CUAUDIT_SUMMARY", 1, get, diag);
	load_sample(cfg, get, diag);
	if (cfg->path[0] && strcmp(cfg->path, "stderr") != 0 &&
	    cua_config_check_file_path(cfg->path) != 0) {
		cua_config_bad_value(diag, "CUAUDIT_SUMMARY", cfg->path,
				     "stderr, or an absolute path of a file, not of a directory",
				     "It stays off.");
		cfg->path[0] = '\0';
	}
	/* A secure process writes no file the environment names: its summary goes to stderr. */
	if (secure && cfg->path[0])
		memcpy(cfg->path, "stderr", 7);
}
