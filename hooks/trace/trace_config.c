/* SPDX-License-Identifier: MIT */
/* hooks/trace/trace_config.c: the trace's variables (CUAUDIT_TRACE, CUAUDIT_TRACE_MAX, CUAUDIT_TRACE_EXIT_TIME) and their messages. */
#include <string.h>
#include "trace_config.h"

void cua_trace_config_load(struct cua_trace_config *cfg, cua_getenv_fn get, cua_diag_fn diag,
			   int secure)
{
	const char *v;

	memset(cfg, 0, sizeof(*cfg));
	cua_config_load_report(cfg->path, "CUAUDIT_TRACE", 0, get, diag);
	cua_config_load_size(&cfg->max, "CUAUDIT_TRACE_MAX", get, diag);
	cfg->exit_ns = CUA_TRACE_EXIT_DEFAULT_NS;
	if ((v = get("CUAUDIT_TRACE_EXIT_TIME")) && cua_config_parse_seconds(v, &cfg->exit_ns) != 0) {
		cfg->exit_ns = CUA_TRACE_EXIT_DEFAULT_NS;
		cua_config_bad_value(diag, "CUAUDIT_TRACE_EXIT_TIME", v,
				     "whole seconds (0: keep the raw file at exit, never convert)",
				     "It stays at 5.");
	}
	if (cfg->path[0] && cua_config_check_file_path(cfg->path) != 0) {
		cua_config_bad_value(diag, "CUAUDIT_TRACE", cfg->path,
				     "an absolute path of a file, not of a directory", "It stays off.");
		cfg->path[0] = '\0';
	}
	/* Nothing the environment names is written from a secure process. */
	if (secure)
		cfg->path[0] = '\0';
}
