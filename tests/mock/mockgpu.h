/* SPDX-License-Identifier: MIT */
/* tests/mock/mockgpu.h: the mock driver's GPU timeline: streams, their capture state and deterministic work durations. */
#ifndef MOCKGPU_H
#define MOCKGPU_H

#include <stdint.h>

struct mock_gpu_stream {
	uint64_t end_ns;   /* when the stream's last work ends, on the mock GPU clock */
	int capturing;     /* 1 while a capture is open on it */
	int had_work;      /* work ran on it (cuaudit's anchor stream has only events) */
	int capture_mode;
	char graph[512];   /* the nodes captured so far, as text */
};

struct CUctx_st {
	int device;
	unsigned gen; /* one more at each reset or destroy: its events are then dead */
};
/* The calling thread's current context, or NULL. */
struct CUctx_st *mock_current_context(void);
struct CUstream_st {
	int flags;
	struct mock_gpu_stream gpu;
};

/* The stream a handle names: NULL and CU_STREAM_LEGACY the legacy stream (or the calling
   thread's per-thread stream when per_thread), CU_STREAM_PER_THREAD that one. */
struct mock_gpu_stream *mock_gpu_stream(void *handle, int per_thread);
/* Puts work of 'ns' nanoseconds on a stream: returns 1 if it ran (or was queued), 0 if the
   stream is capturing, in which case a node named 'node' was added to its graph instead. */
int mock_gpu_work(void *handle, int per_thread, uint64_t ns, const char *node);
/* What one block of a kernel's grid lasts on the calling thread (1 ms unless the program set
   another with cuMockKernelUnitNs). */
uint64_t mock_kernel_unit_ns(void);

#endif
