/* SPDX-License-Identifier: MIT */
/* record/nvtxjson.h: the "nvtx" section of a JSON summary (docs/summary-schema.json): one list of its fields and one writer, for the module that writes it and the command that reads and merges it. */
#ifndef CUA_NVTXJSON_H
#define CUA_NVTXJSON_H

#include <stdint.h>

/* X(key, member): each field's JSON key and the member that holds it in both the module's
   rows (struct cua_nvtx_row) and the command's merged ones (struct cua_nvtx_rrow), in the
   order written. A range record's numbers: */
#define CUA_NVTX_JSON_RANGE(X)                                                                \
	X(ranges, ranges) X(total_ns, total_ns) X(min_ns, min_ns) X(max_ns, max_ns)           \
	X(marks, marks) X(calls, calls) X(calls_timed, calls_timed) X(calls_ns, calls_ns)
/* Its "gpu" object, where GPU timing was on (its "total_ns" follows where every instance was
   exact: then it is total_min_ns). */
#define CUA_NVTX_JSON_GPU(X)                                                                  \
	X(instances, gpu_n) X(exact_instances, gpu_exact_n) X(exact_ns, gpu_exact_ns)         \
	X(total_min_ns, gpu_min_ns) X(total_max_ns, gpu_max_ns)
/* The section's "dropped" object (struct cua_nvtx_drops). */
#define CUA_NVTX_JSON_DROPS(X)                                                                \
	X(names, names) X(depth, depth) X(unbalanced, unbalanced) X(started, started)         \
	X(reentered, reentered) X(paths, paths) X(gpu, gpu)

/* Indexes of the arrays below, CUA_NVTX_JSON_<key>: one enum per list. */
#define CUA_NVTX_JSON_INDEX(key, member) CUA_NVTX_JSON_##key,
enum { CUA_NVTX_JSON_RANGE(CUA_NVTX_JSON_INDEX) CUA_NVTX_JSON_RANGE_N };
enum { CUA_NVTX_JSON_GPU(CUA_NVTX_JSON_INDEX) CUA_NVTX_JSON_GPU_N };
enum { CUA_NVTX_JSON_DROPS(CUA_NVTX_JSON_INDEX) CUA_NVTX_JSON_DROPS_N };

extern const char *const cua_nvtx_json_range_keys[CUA_NVTX_JSON_RANGE_N];
extern const char *const cua_nvtx_json_gpu_keys[CUA_NVTX_JSON_GPU_N];
extern const char *const cua_nvtx_json_drop_keys[CUA_NVTX_JSON_DROPS_N];

struct cua_buf;
/* "dropped":{"names":N,...} from values in CUA_NVTX_JSON_DROPS's order. */
void cua_nvtx_json_drops(struct cua_buf *b, const uint64_t *drops);
/* {"name":...,"domain":...,"ranges":N,...,"calls_ns":N[,"gpu":{...}], open for the caller's
   own fields and its '}': range values in CUA_NVTX_JSON_RANGE's order, gpu in
   CUA_NVTX_JSON_GPU's (NULL: no "gpu" object). */
void cua_nvtx_json_range(struct cua_buf *b, const char *name, const char *domain,
			 const uint64_t *range, const uint64_t *gpu);

#endif
