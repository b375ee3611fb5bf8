/* SPDX-License-Identifier: MIT */
/* cli/gpu_report.h: the "gpu" section of JSON summaries (CUAUDIT_GPU_TIME), merged across processes for `cuaudit report --table=gpu-kernels|gpu-mem`. */
#ifndef CLI_GPU_REPORT_H
#define CLI_GPU_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One kernel name or memory operation, merged: counts, totals, extremes and the sum of
   squares (recovered from each input's average and standard deviation), so that the merged
   standard deviation is exact. Medians do not merge: the report leaves them out. */
struct cua_gpu_row {
	char *name;
	uint64_t count, total_ns, min_ns, max_ns, bytes, min_bytes, max_bytes;
	double sumsq;
	unsigned processes;
};

struct cua_gpu_report {
	struct cua_gpu_row *kernels, *mem;
	size_t nkernels, capkernels, nmem, capmem;
	uint64_t timed, untimed[8];
	unsigned inputs; /* summaries that had a "gpu" section */
};

/* Reads the "gpu" section of one summary (text, len bytes), if it has one. Returns 0, or -1
   with a message in err when the section is malformed. */
int cua_gpu_report_add(struct cua_gpu_report *g, const char *text, size_t len, char *err,
		       size_t errcap);
/* Orders kernels and operations by total time, largest first. */
void cua_gpu_report_sort(struct cua_gpu_report *g);
/* table: 0 kernels, 1 memory. */
void cua_gpu_report_text(const struct cua_gpu_report *g, int table, size_t top);
void cua_gpu_report_csv(const struct cua_gpu_report *g, int table, size_t top);
/* Writes ,"gpu":{...} into a merged JSON summary. */
void cua_gpu_report_json(FILE *f, const struct cua_gpu_report *g);
void cua_gpu_report_free(struct cua_gpu_report *g);

#endif
