/* SPDX-License-Identifier: MIT */
/* hooks/summary/metrics.h: CUAUDIT_METRICS: the summary's counts in the Prometheus text exposition format, for node_exporter's textfile collector. */
#ifndef CUA_METRICS_H
#define CUA_METRICS_H

#include <stdint.h>
#include "metrics_config.h"

/* Copies its own configuration and reads the program name; from la_version, on the
   main thread. */
void cua_metrics_setup(const struct cua_metrics_config *own);
/* 1 call in N of a sub-microsecond function timed when CUAUDIT_METRICS is on without
   CUAUDIT_SUMMARY and CUAUDIT_SUMMARY_SAMPLE is not given. */
#define CUA_METRICS_SAMPLE 64
/* The renderer itself, cua_metrics_write, is declared with the others over the summary's
   row model (summary_model.h). */

#endif
