/* SPDX-License-Identifier: MIT */
/* hooks/gpu/gpu.h: GPU timing of launches, copies, memsets and graph launches with the driver's events (CUAUDIT_GPU_TIME), and its totals for the renderers. */
#ifndef CUA_GPU_H
#define CUA_GPU_H

#include <stdint.h>
#include "gpu_config.h"
#include "stats.h"

/* Subscribes when CUAUDIT_GPU_TIME is on; from la_version, after the hooks that may skip a
   call and before the summary, so that its exit work (the bounded drain) runs first. */
int cua_gpu_init(const struct cua_gpu_config *own);

/* The owning libcuda is being unloaded: every pool of its events is retired (la_objclose). */
void cua_gpu_driver_closed(void);

/* What a record measured. The memory operations follow nsys' cuda_gpu_mem_*_sum rows. */
enum cua_gpu_op {
	CUA_GPU_KERNEL = 0,
	CUA_GPU_HTOD,
	CUA_GPU_DTOH,
	CUA_GPU_DTOD,
	CUA_GPU_PEER,
	CUA_GPU_HTOH,
	CUA_GPU_COPY, /* unified copy whose direction the driver decided */
	CUA_GPU_MEMSET,
	CUA_GPU_GRAPH,
	CUA_GPU_OPS
};
extern const char *const cua_gpu_op_names[CUA_GPU_OPS];

/* Why a call that should have been timed was not. */
enum cua_gpu_untimed {
	CUA_GPU_POOL_FULL = 0, /* every event of its context's pool was in flight */
	CUA_GPU_CAPTURING,     /* its stream was capturing a graph: the graph launch is timed */
	CUA_GPU_NO_CONTEXT,    /* no current context when it was made */
	CUA_GPU_LOST,          /* the driver refused an event call (a destroyed context, a fault),
				  or a signal handler jumped out of the call */
	CUA_GPU_UNFINISHED,    /* still running at exit, after the bounded wait */
	CUA_GPU_BUSY,          /* the timing's lock was held by its own thread (a signal handler's
				  call, or exit, inside the hook) or by another one too long */
	CUA_GPU_UNTIMED_KINDS
};
extern const char *const cua_gpu_untimed_names[CUA_GPU_UNTIMED_KINDS];

#define CUA_GPU_MAX_DEVICES 64
#define CUA_GPU_MAX_KERNELS 2048

/* The GPU durations of one kernel name or memory operation. A record is exact when its
   stream was busy (the work started when the previous work on it ended: both ends are
   events), bounded otherwise (an idle stream: it started somewhere between the call's entry
   and its return, docs/hooks.md). lo holds each record's least possible duration, hi its
   greatest; an exact record adds the same value to both. */
struct cua_gpu_span {
	struct cua_stat lo, hi;
	uint64_t exact_n, exact_ns; /* the exact records, and their total */
};

/* One kernel name's GPU durations (graph launches are one row, "(CUDA graph launch)"). */
struct cua_gpu_kernel {
	const char *name;
	struct cua_gpu_span time;
};

/* Everything collected in this process; read at exit, after cua_gpu_drain. */
struct cua_gpu_totals {
	uint64_t sample;                      /* 1: every call; N: 1 call in N */
	uint64_t timed, untimed[CUA_GPU_UNTIMED_KINDS];
	unsigned nkernels;
	struct cua_gpu_kernel kernels[CUA_GPU_MAX_KERNELS];
	struct cua_gpu_span mem_time[CUA_GPU_OPS]; /* durations per memory operation */
	struct cua_stat mem_size[CUA_GPU_OPS];     /* bytes per memory operation, in the ns fields */
	/* Union of the device's timed intervals: of the least ones (each from its latest
	   possible start) and of the greatest (from its earliest). */
	uint64_t busy_min_ns[CUA_GPU_MAX_DEVICES], busy_max_ns[CUA_GPU_MAX_DEVICES];
	unsigned ndevices;
	int synthetic; /* the driver is cuaudit's mock: every GPU time is made up */
};

/* The process's totals, or NULL when GPU timing is off or nothing was timed. */
const struct cua_gpu_totals *cua_gpu_totals(void);

/* Harvests every completed record, waiting at most CUA_GPU_DRAIN_NS for the rest: the rest
   is counted unfinished. Runs from the exit work; safe to call twice. */
#define CUA_GPU_DRAIN_NS (200ull * 1000 * 1000)
void cua_gpu_drain(void);
/* Harvests what has finished, without waiting for anything: never for a lock another thread
   holds (that one harvests), never for the GPU. For the compute share, before it judges.
   Returns the devices (bit d: device d) where this process still has timed work not seen
   finished, or whose records another thread was harvesting. */
uint64_t cua_gpu_poll(void);

/* Whether the program's call c (a launch, copy, memset or graph launch) goes into a stream
   that is capturing a graph: it then puts no work on the GPU (the graph's launch does) and
   is not timed. Asks the driver (cuStreamIsCapturing, in the call's stream flavour, which
   no capture mode forbids) only while a capture may be open; 0 for any other call. Keeps
   the program's errno. */
struct cuaudit_call;
int cua_gpu_call_captures(const struct cuaudit_call *c);

/* One completed piece of GPU work, as the trace and the plugins get it. Times are on
   cuaudit's clock (cuaudit_host.now_ns), placed with an anchor event. */
struct cua_gpu_record {
	uint64_t correlation_id; /* the call's, as in its cuaudit_call */
	uint64_t thread_id;
	uint64_t call_ns; /* a time inside the call (its middle when calls are timed) */
	/* start_ns the earliest possible start, start_max_ns the latest; equal when exact. */
	uint64_t start_ns, start_max_ns, end_ns;
	int exact;
	uint64_t bytes;
	const char *name; /* kernel name, or NULL */
	void *stream;     /* as the program passed it (per-thread default: its thread's key) */
	unsigned api_id;
	unsigned device;
	enum cua_gpu_op op;
};
/* Receivers of completed records (the trace, the plugins): called with the collector's
   lock held, on whatever thread harvests; must be quick and must not call CUDA. */
typedef void (*cua_gpu_sink)(const struct cua_gpu_record *r, void *ctx);
#define CUA_GPU_MAX_SINKS 20
int cua_gpu_add_sink(cua_gpu_sink fn, void *ctx);
/* Whether the driver is cuaudit's mock (its device is named "cuaudit mock GPU..."): every
   GPU time is then made up, and the outputs say so. */
int cua_gpu_synthetic(void);
/* Whether CUAUDIT_GPU_TIME is on (records will come). */
int cua_gpu_on(void);

#endif
