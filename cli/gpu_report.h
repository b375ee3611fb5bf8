/* SPDX-License-Identifier: MIT */
/* cli/gpu_report.h: the "gpu" section of JSON summaries (CUAUDIT_GPU_TIME), merged across processes for `cuaudit report --table=gpu-kernels|gpu-mem`. */
#ifndef CLI_GPU_REPORT_H
#define CLI_GPU_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One kernel name or memory operation, merged. Durations are bounds (docs/hooks.md, "GPU
   times"): each figure as its least and greatest value, summed or taken as extremes across
   inputs, with the exact part apart. The sum of squares (recovered from each input's average
   and standard deviation) makes an exact merged standard deviation, kept only while every
   input's records were all exact. Medians do not merge: the report leaves them out. */
struct cua_gpu_row {
	char *name;
	uint64_t count, exact_n, exact_ns, total_min, total_max, shortest_min, shortest_max,
		longest_min, longest_max, bytes, min_bytes, max_bytes;
	double sumsq;
	int all_exact;
	unsigned processes;
};

struct cua_gpu_report {
	struct cua_gpu_row *kernels, *mem;
	size_t nkernels, capkernels, nmem, capmem;
	uint64_t timed, untimed[8];
	unsigned inputs; /* summaries that had a "gpu" section */
	int synthetic;   /* one of them came from cuaudit's mock driver: made-up times */
};

/* Reads the "gpu" section of one summary (text, len bytes), if it has one. Returns 0, or -1
   with a message in err when the section is malformed. */
int cua_gpu_report_add(struct cua_gpu_report *g, const char *text, size_t len, char *err,
		       size_t errcap);
/* Orders kernels and operations by greatest total time, largest first. */
void cua_gpu_report_sort(struct cua_gpu_report *g);
/* table: 0 kernels, 1 memory. */
void cua_gpu_report_text(const struct cua_gpu_report *g, int table, size_t top);
void cua_gpu_report_csv(const struct cua_gpu_report *g, int table, size_t top);
/* Writes ,"gpu":{...} into a merged JSON summary. */
void cua_gpu_report_json(FILE *f, const struct cua_gpu_report *g);
void cua_gpu_report_free(struct cua_gpu_report *g);

#endif
