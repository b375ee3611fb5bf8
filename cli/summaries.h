/* SPDX-License-Identifier: MIT */
/* cli/summaries.h: reading cuaudit JSON summaries (docs/summary-schema.json) and merging their records. */
#ifndef CLI_SUMMARIES_H
#define CLI_SUMMARIES_H

#include <stddef.h>
#include <stdint.h>

#include "table.h"

#define CUA_NBIND CUAUDIT_BIND_COUNT

/* One record per (API, layer, nested); after merging, one per key across all inputs. */
struct cua_api_rec {
	char *elf_name;
	char layer[8];              /* "driver" or "runtime" */
	int nested;
	uint64_t calls, timed, errors, total_ns, min_ns, max_ns, p99_max_ns;
	/* total_ns's 95% half-width (0: exact); merged, the root of the inputs' summed squares
	   (independent estimates). */
	uint64_t err_ns;
	uint64_t bindings[CUA_NBIND];
	unsigned processes;         /* inputs that had this record */
	size_t input;               /* index of the input it came from (before merging) */
};

/* Launches by kernel name. */
struct cua_kernel_rec {
	char *name;
	uint64_t launches, errors, total_ns;
	int estimated;              /* from a sampled process: its times are scaled estimates */
	unsigned processes;
	size_t input;
};

/* One input file and where it came from (the summary's "process" object, when present). */
struct cua_input {
	const char *file;
	char *owned_file;                            /* file, when made here (merged inputs) */
	size_t merged_inputs;                        /* while read: inputs a merged file listed */
	long long pid;
	char *host, *command, *start, *end, *version;
	char *image;                                 /* process.image: this exec image's id */
	long long driver_version, runtime_version;   /* -1: unknown */
	int has_process, snapshot, sampled;
	uint64_t calls, errors, total_ns;            /* of the calls the application made */
};

struct cua_summaries {
	struct cua_input *inputs;
	size_t ninputs, capinputs;
	struct cua_api_rec *apis;
	size_t napis, capapis;
	struct cua_kernel_rec *kernels;
	size_t nkernels, capkernels;
	uint64_t comparisons;       /* made while merging: lets a test check O(n log n) */
};

/*
 * Reads one summary from text (len bytes) and appends its records. Returns 0, or -1 with a
 * message naming the field in err; nothing is appended then.
 */
int cua_summaries_add(struct cua_summaries *s, const char *file, const char *text, size_t len,
		      char *err, size_t errcap);
/* Called after cua_summaries_add (napis, nkernels: the counts before it): when the input
   just added describes the same process image as an earlier one (same pid, host and image id
   in its provenance, or start time and command where it has no image id: the same file
   given twice, or a copy of it), drops it and its records and
   returns the earlier input's index; -1 otherwise. Counting one process twice would double
   every figure. */
long cua_summaries_drop_repeat(struct cua_summaries *s, size_t napis, size_t nkernels);
/* Folds records with the same key together by sorting: O(n log n) in the number of records. */
int cua_summaries_merge(struct cua_summaries *s);
void cua_summaries_free(struct cua_summaries *s);

/* The fields the reader reads, for the test that holds them against docs/summary-schema.json. */
enum cua_field_type { CUA_F_STRING, CUA_F_UINT, CUA_F_INT_OR_NULL, CUA_F_BOOL, CUA_F_OBJECT,
		      CUA_F_ARRAY, CUA_F_STRING_OR_NULL };
struct cua_field {
	const char *path;           /* "apis[].calls", "process.host", ... */
	enum cua_field_type type;
	int required;
};
extern const struct cua_field cua_summaries_fields[];
extern const size_t cua_summaries_nfields;

#endif
