/* SPDX-License-Identifier: MIT */
/* hooks/gpu/gpu_trace.h: the trace's GPU tracks, kept from the GPU timing's completed records. */
#ifndef CUA_GPU_TRACE_H
#define CUA_GPU_TRACE_H

#include <stdint.h>

struct cua_writer;

/* The trace's GPU tracks (hooks/gpu/gpu_trace.c): keeps completed records (at most
   CUA_GPU_TRACE_MAX, counted beyond) when the trace is on; at the trace's finish writes one
   track per device and stream, each record an X event, and a flow arrow from its call. */
#define CUA_GPU_TRACE_MAX (1u << 20)
void cua_gpu_trace_setup(void);
void cua_gpu_write_trace(struct cua_writer *w, uint64_t pid);
/* How many GPU intervals process pid keeps for its trace. */
uint64_t cua_gpu_trace_count(uint64_t pid);

#endif
