/* SPDX-License-Identifier: MIT */
/* hooks/summary/summary_model.h: the summary's statistics as one row model, and the renderers that write it (text, JSON, Prometheus). */
#ifndef CUA_SUMMARY_MODEL_H
#define CUA_SUMMARY_MODEL_H

#include <stdint.h>
#include "dispatch.h"
#include "stats.h"

/* The room for output formats. hooks/summary/summary.c collects: it merges every thread's
   statistics into this model and hands it to the renderer its configuration asks for. A
   renderer reads the model (and process-wide facts: provenance, the library registry),
   never the per-thread statistics, and writes one format; a new format is a new file
   hooks/summary_<format>.c with one function declared here, and a line where summary.c
   chooses. Renderers run at a snapshot or at the finish, never per call. */

/* One API's statistics: id, whether the calls were made inside another intercepted call,
   and the merged statistics (sampled rows already scaled to all their calls). */
struct cua_summary_row {
	unsigned id;
	unsigned nested;
	struct cua_stat s;
	/* Sampled rows: the half-width of the estimated total's 95% interval (0: exact). */
	uint64_t err_ns;
};

/* Launches by kernel name; name NULL for launches whose kernel is unknown. */
struct cua_summary_kernel {
	const char *name;
	uint64_t launches, errors, total_ns;
};

struct cua_summary_model {
	uint64_t pid;
	int snapshot; /* a live snapshot, not the final summary */
	/* Outer rows first, then nested, each by total time (longest first), then by name. */
	const struct cua_summary_row *rows;
	unsigned nrows;
	uint64_t total_ns[2]; /* per section: [0] outer, [1] nested */
	/* By total time, longest first, then by name. */
	const struct cua_summary_kernel *kernels;
	unsigned nkernels;
	/* Calls through each linked-in runtime copy (CUAUDIT_STATIC_RUNTIME): copy k's count of
	   id is entry_counts[k * CUAUDIT_ID_COUNT + id] (NULL when no entry call was made), its
	   total entry_totals[k], its object cua_entry_names[k]. */
	const uint64_t *entry_counts;
	uint64_t entry_totals[CUA_MAX_ENTRY_COPIES];
	/* CUAUDIT_SUMMARY_SAMPLE in force: 0, every call timed; N, a sub-microsecond function's
	   times are estimates from 1 call in N, drawn at random in each block of N calls
	   (counts are always exact). */
	unsigned sample;
};

/* A kernel row's name as every format prints it. */
static inline const char *cua_summary_kernel_name(const struct cua_summary_kernel *k)
{
	return k->name ? k->name : "(unknown)";
}

struct cua_writer;
/* The text table (CUAUDIT_SUMMARY=stderr or a name not ending .json): hooks/summary/summary_text.c. */
void cua_summary_text_write(struct cua_writer *w, const struct cua_summary_model *m);
/* The JSON document, schema cuaudit-summary/1: hooks/summary/summary_json.c. */
void cua_summary_json_write(struct cua_writer *w, const struct cua_summary_model *m);
/* The Prometheus text exposition (CUAUDIT_METRICS), replacing its file: hooks/summary/metrics.c.
   Returns 0 when written. */
int cua_metrics_write(const struct cua_summary_model *m);

#endif
