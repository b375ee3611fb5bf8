/* SPDX-License-Identifier: MIT */
/* hooks/summary/metrics_config.c: the metrics' variables (CUAUDIT_METRICS, CUAUDIT_METRICS_LABELS) and their messages. */
#include <string.h>
#include "metrics_config.h"

static int label_name_ok(const char *n, size_t len)
{
	static const char *const taken[] = { "host", "pid", "program", "api", "layer", "nested",
					     "device" };

	if (len == 0 || len >= 64 || (n[0] >= '0' && n[0] <= '9') || (len >= 2 && n[0] == '_' && n[1] == '_'))
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = n[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return 0;
	}
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
		if (strlen(taken[i]) == len && memcmp(taken[i], n, len) == 0)
			return 0;
	return 1;
}

int cua_metrics_config_parse_labels(const char *s, struct cua_metrics_config *cfg)
{
	unsigned n = 0;

	while (*s) {
		const char *eq = strchr(s, '='), *end = strchr(s, ',');
		size_t nlen, vlen;

		if (!end)
			end = s + strlen(s);
		if (!eq || eq > end || n == CUA_MAX_METRIC_LABELS)
			return -1;
		nlen = (size_t)(eq - s);
		vlen = (size_t)(end - eq - 1);
		if (!label_name_ok(s, nlen) || vlen >= sizeof(cfg->label_values[0]))
			return -1;
		for (unsigned i = 0; i < n; i++)
			if (strlen(cfg->label_names[i]) == nlen &&
			    memcmp(cfg->label_names[i], s, nlen) == 0)
				return -1;
		memcpy(cfg->label_names[n], s, nlen);
		cfg->label_names[n][nlen] = '\0';
		memcpy(cfg->label_values[n], eq + 1, vlen);
		cfg->label_values[n][vlen] = '\0';
		if (vlen && cua_config_check_template(cfg->label_values[n]) != 0)
			return -1;
		n++;
		if (!*end)
			break;
		s = end + 1;
		if (!*s)
			return -1; /* a trailing comma */
	}
	cfg->nlabels = n;
	return 0;
}

static void load_labels(struct cua_metrics_config *cfg, cua_getenv_fn get, cua_diag_fn diag)
{
	const char *v = get("CUAUDIT_METRICS_LABELS");
	int ok;

	if (!v)
		return;
	ok = cua_metrics_config_parse_labels(v, cfg) == 0;
	for (unsigned i = 0; ok && i < cfg->nlabels; i++)
		ok = cua_config_capture_template(cfg->label_values[i], get) == 0;
	if (!ok) {
		cfg->nlabels = 0;
		cua_config_bad_value(diag, "CUAUDIT_METRICS_LABELS", v,
				     "NAME=VALUE pairs separated by commas, at most 8, where NAME is a"
				     " Prometheus label name other than host, pid, program, api, layer, nested"
				     " and device, and VALUE may use %p, %h, %q{NAME} and %%",
				     "The metrics carry host, pid and program only.");
	}
}

void cua_metrics_config_load(struct cua_metrics_config *cfg, cua_getenv_fn get, cua_diag_fn diag,
			     int secure)
{
	memset(cfg, 0, sizeof(*cfg));
	cua_config_load_report(cfg->path, "CUAUDIT_METRICS", 0, get, diag);
	load_labels(cfg, get, diag);
	/* Nothing the environment names is written from a secure process. */
	if (secure) {
		cfg->path[0] = '\0';
		cfg->nlabels = 0;
	}
}
