/* SPDX-License-Identifier: MIT */
/* hooks/nvtx/nvtx.h: the program's own NVTX ranges, received from the injection library: per-thread stacks, per-name statistics, their outputs. */
#ifndef CUA_NVTX_H
#define CUA_NVTX_H

#include <link.h>
#include <stdint.h>

/* Bounds (docs/hooks.md, "NVTX ranges"): past them events are counted as dropped, never
   kept in memory that grows. */
#define CUA_NVTX_NAMES 4096u     /* distinct names (ranges, marks and domains together) */
#define CUA_NVTX_NAME_BYTES 96u  /* bytes of a name kept; longer names are cut */
#define CUA_NVTX_DEPTH 64u       /* open push/pop ranges kept per thread */
#define CUA_NVTX_STARTED 1024u   /* start/end ranges open at once in the process */
#define CUA_NVTX_PATHS 4096u     /* distinct paths of open push/pop ranges (outermost first)
				    that CUDA calls or GPU work were attributed to */
#define CUA_NVTX_GPU_RING 65536u /* launches whose range path waits for their GPU time */

/* From la_objopen: if the object is cuaudit's NVTX injection library, hands it the bridge
   (record/nvtxbridge.h) and returns 1; otherwise 0. Nothing is set up before. */
int cua_nvtx_connect(struct link_map *map);

/* For the legacy libnvToolsExt's bindings (audit/nvtxlegacy.c): the module's own bridge,
   the tables made now; NULL when they cannot be. From la_objopen. */
struct cua_nvtx_bridge;
const struct cua_nvtx_bridge *cua_nvtx_bridge_here(void);
/* Around the real legacy function of an event the binding has already counted: the one
   event the injection library reports from inside it (the legacy library loads
   NVTX_INJECTION64_PATH too) is that same call, and is not counted again; a push or pop
   reported there returns level. On the calling thread. */
void cua_nvtx_forward_begin(int level);
void cua_nvtx_forward_end(void);

/* CUAUDIT_CAPTURE=nvtx:NAME[@DOMAIN], from la_version: the trace and the verbose log record
   a thread's calls only while a range of that name (in that domain; any domain when domain
   is "") is open on it, pushed with nvtxRangePush or nvtxDomainRangePushEx. */
void cua_nvtx_capture(const char *name, const char *domain);
/* 1 while such a range is open on the calling thread. */
int cua_nvtx_capturing(void);

/* Whether any NVTX event reached this process (the library was connected). */
int cua_nvtx_connected(void);

/* One name's statistics, merged over every thread of this process. */
struct cua_nvtx_row {
	const char *name;   /* NUL-terminated, cut at CUA_NVTX_NAME_BYTES - 1 */
	const char *domain; /* "" for the default domain */
	uint64_t ranges, total_ns, min_ns, max_ns; /* ended ranges */
	uint64_t marks;
	/* Inclusive: the program's CUDA calls (outermost ones: a runtime call's own driver calls
	   are not counted again) made on a thread while a range of this name was open on it,
	   each counted once per name however often the name is nested; the time of those the
	   summary timed (all unless CUAUDIT_SUMMARY_SAMPLE samples). */
	uint64_t calls, calls_timed, calls_ns;
	/* The GPU time of the kernels and graph launches those calls made (CUAUDIT_GPU_TIME),
	   bounded as the GPU tables' are: each record's least and greatest duration, equal for
	   the exact ones. */
	uint64_t gpu_n, gpu_exact_n, gpu_exact_ns, gpu_min_ns, gpu_max_ns;
};
/* What was counted but not kept (each a count of events). */
struct cua_nvtx_drops {
	uint64_t names;     /* events whose name found the table full: kept under "(other names)" */
	uint64_t depth;     /* pushes past CUA_NVTX_DEPTH on a thread: not timed */
	uint64_t unbalanced; /* pops with no open range of their domain, ends of unknown ids */
	uint64_t started;   /* starts that found the start/end table full */
	uint64_t reentered; /* events from a signal handler that interrupted one on its thread */
	uint64_t paths;     /* calls and GPU records whose range path found the path table full */
	uint64_t gpu;       /* GPU records whose launch's range path was overwritten before
			       their time came (more than CUA_NVTX_GPU_RING launches between) */
};

/* The rows of this process by total time, longest first: *n of them, in memory mapped for
   the caller, released with cua_nvtx_rows_free. NULL when there are none. Not on the hot
   path. */
struct cua_nvtx_row *cua_nvtx_rows(unsigned *n, struct cua_nvtx_drops *drops);
void cua_nvtx_rows_free(struct cua_nvtx_row *rows, unsigned n);


/* Set once the module keeps ranges: the summary then hands every outermost CUDA call of
   the program to cua_nvtx_call (ns: its duration, when timed). */
extern int cua_nvtx_calls_on;
void cua_nvtx_call(uint64_t ns, int timed);
/* From la_version, after cua_gpu_init: with GPU timing on, each kernel's GPU time goes to
   the ranges open on the thread that launched it. */
int cua_nvtx_init(void);

/* Where an ended range goes besides the statistics (level: its nesting level; -1 for a
   start/end range; -2 for a mark, t0 == t1): the
   trace sets it at its start (so calls run trace -> nvtx only). Called on the thread of the
   range's end, never re-entered on one thread. name and domain are NUL-terminated, "" for
   the default domain. */
typedef void (*cua_nvtx_sink)(uint64_t t0, uint64_t t1, int level, const char *name,
			      const char *domain);
void cua_nvtx_set_trace(cua_nvtx_sink sink);

#endif
