/* SPDX-License-Identifier: MIT */
/* cli/nvtx_report.h: the "nvtx" section of JSON summaries (the program's NVTX ranges), merged across processes for `cuaudit report`. */
#ifndef CLI_NVTX_REPORT_H
#define CLI_NVTX_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "nvtxjson.h"

/* One (name, domain), merged: counts and totals summed, min and max as extremes over the
   inputs that ended such a range; the GPU totals are bounds, summed (docs/hooks.md, "NVTX
   ranges"). */
struct cua_nvtx_rrow {
	char *name, *domain;
	uint64_t ranges, total_ns, min_ns, max_ns, marks, calls, calls_timed, calls_ns;
	uint64_t gpu_n, gpu_exact_n, gpu_exact_ns, gpu_min_ns, gpu_max_ns;
	int has_gpu;
	unsigned processes;
};

struct cua_nvtx_report {
	struct cua_nvtx_rrow *rows;
	size_t n, cap;
	uint64_t dropped[CUA_NVTX_JSON_DROPS_N]; /* in CUA_NVTX_JSON_DROPS's order */
	unsigned inputs;    /* summaries that had an "nvtx" section */
	unsigned processes; /* the processes they describe (a merged summary counts several) */
};

/* Reads the "nvtx" section of one summary (text, len bytes), if it has one. Returns 0, or
   -1 with a message in err when the section is malformed (nothing of it is kept). */
int cua_nvtx_report_add(struct cua_nvtx_report *r, const char *text, size_t len, char *err,
			size_t errcap);
/* Longest total first. */
void cua_nvtx_report_sort(struct cua_nvtx_report *r);
void cua_nvtx_report_text(const struct cua_nvtx_report *r, size_t top);
/* Writes ,"nvtx":{...} into a merged JSON summary, when some input had the section. */
void cua_nvtx_report_json(FILE *f, const struct cua_nvtx_report *r);
void cua_nvtx_report_free(struct cua_nvtx_report *r);

#endif
