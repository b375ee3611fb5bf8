/* SPDX-License-Identifier: MIT */
/* hooks/metrics.h: CUAUDIT_METRICS: the summary's counts in the Prometheus text exposition format, for node_exporter's textfile collector. */
#ifndef CUA_METRICS_H
#define CUA_METRICS_H

#include <stdint.h>

struct cua_metric_row {
	unsigned id;
	unsigned nested;
	uint64_t calls, errors, total_ns;
};

struct cua_config;

/* Copies its slice of the configuration and reads the program name; from la_version, on the
   main thread. */
void cua_metrics_setup(const struct cua_config *all);
/* Replaces the metrics file atomically with these rows (from the summary's snapshot or its
   final write). Returns 0 when written. */
int cua_metrics_write(const struct cua_metric_row *rows, unsigned n);

#endif
