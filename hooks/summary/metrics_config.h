/* SPDX-License-Identifier: MIT */
/* hooks/summary/metrics_config.h: the metrics' configuration (CUAUDIT_METRICS, CUAUDIT_METRICS_LABELS), read once in la_version. */
#ifndef CUA_METRICS_CONFIG_H
#define CUA_METRICS_CONFIG_H

#include "config.h"

#define CUA_MAX_METRIC_LABELS 8

struct cua_metrics_config {
	char path[CUA_PATH_MAX]; /* CUAUDIT_METRICS: a file-name template, or empty (off) */
	/* CUAUDIT_METRICS_LABELS: extra labels of every series, each value a template. */
	unsigned nlabels;
	char label_names[CUA_MAX_METRIC_LABELS][64];
	char label_values[CUA_MAX_METRIC_LABELS][256];
};

/* CUAUDIT_METRICS_LABELS: "NAME=VALUE[,NAME=VALUE...]", at most 8. NAME is a Prometheus
   label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with "__") other than the ones cuaudit
   sets (host, pid, program, api, layer, nested, device), each once; VALUE is a template with
   %p, %h, %q{NAME} and %%, with no comma. Pure: it reads no environment. Returns 0 or -1. */
int cua_metrics_config_parse_labels(const char *s, struct cua_metrics_config *cfg);
/* Reads both variables through get. A bad value: one message through diag, and that part at
   its default (no metrics, no extra label). In a secure process no metrics file either. */
void cua_metrics_config_load(struct cua_metrics_config *cfg, cua_getenv_fn get, cua_diag_fn diag,
			     int secure);

#endif
