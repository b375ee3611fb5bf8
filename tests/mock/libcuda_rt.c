/* SPDX-License-Identifier: MIT */
/* tests/mock/libcuda_rt.c: the mock driver's calls the mock runtime forwards to for ordinary programs: stream priority, query and wait, generic copies, pinned host memory, graph teardown, context synchronisation. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "mockgpu.h"
#include "mockstate.h"

#define EXPORT __attribute__((visibility("default")))
#define COUNT() mock_count(__func__)

int mock_current_device(void);

EXPORT CUresult cuStreamCreateWithPriority(CUstream *stream, unsigned int flags, int priority)
{
	struct CUstream_st *s;

	(void)priority;
	COUNT();
	if (!stream)
		return CUDA_ERROR_INVALID_VALUE;
	s = calloc(1, sizeof(*s));
	if (!s)
		return CUDA_ERROR_OUT_OF_MEMORY;
	s->flags = (int)flags;
	*stream = s;
	return CUDA_SUCCESS;
}

/* Done at once, as the mock's events are (libcuda_gpu.c): work is never really running. A
   capturing stream may not be queried. */
static CUresult query(CUstream stream, int per_thread)
{
	return mock_gpu_stream(stream, per_thread)->capturing
		       ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
		       : CUDA_SUCCESS;
}

EXPORT CUresult cuStreamQuery(CUstream stream)
{
	COUNT();
	return query(stream, 0);
}

EXPORT CUresult cuStreamQuery_ptsz(CUstream stream)
{
	COUNT();
	return query(stream, 1);
}

/* The stream's later work starts no earlier than the event's time. */
uint64_t mock_event_time(CUevent ev, int *recorded);

static CUresult wait_event(CUstream stream, int per_thread, CUevent ev)
{
	struct mock_gpu_stream *s = mock_gpu_stream(stream, per_thread);
	int recorded = 0;
	uint64_t t;

	if (!ev)
		return CUDA_ERROR_INVALID_HANDLE;
	t = mock_event_time(ev, &recorded);
	if (recorded && t > s->end_ns)
		s->end_ns = t;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamWaitEvent(CUstream stream, CUevent ev, unsigned int flags)
{
	(void)flags;
	COUNT();
	return wait_event(stream, 0, ev);
}

EXPORT CUresult cuStreamWaitEvent_ptsz(CUstream stream, CUevent ev, unsigned int flags)
{
	(void)flags;
	COUNT();
	return wait_event(stream, 1, ev);
}

/* Unified addressing: device and host pointers are both host memory here. A copy of n
   bytes takes 5 ms + 100 ns per byte, as the other copies do. */
static CUresult copy_on(CUstream stream, int per_thread, CUdeviceptr dst, CUdeviceptr src,
			size_t n)
{
	if (!dst || !src)
		return CUDA_ERROR_INVALID_VALUE;
	if (mock_gpu_work(stream, per_thread, 5000000 + 100 * n, "memcpy"))
		memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
	COUNT();
	return copy_on(NULL, 0, dst, src, n);
}

EXPORT CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
	COUNT();
	return copy_on(NULL, 1, dst, src, n);
}

EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream stream)
{
	COUNT();
	return copy_on(stream, 0, dst, src, n);
}

EXPORT CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream stream)
{
	COUNT();
	return copy_on(stream, 1, dst, src, n);
}

EXPORT CUresult cuMemsetD8_v2_ptds(CUdeviceptr dst, unsigned char v, size_t n)
{
	COUNT();
	if (!dst)
		return CUDA_ERROR_INVALID_VALUE;
	mock_gpu_work(NULL, 1, 5000000 + 50 * n, "memset");
	memset((void *)(uintptr_t)dst, v, n);
	return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- pinned host memory */

/* Page-locked memory is ordinary memory here; its pointer is its device pointer. */
static CUresult host_alloc(void **p, size_t bytes)
{
	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	if (mock_current_device() < 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	*p = bytes ? calloc(1, bytes) : NULL;
	return bytes && !*p ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
}

EXPORT CUresult cuMemAllocHost_v2(void **p, size_t bytes)
{
	COUNT();
	return host_alloc(p, bytes);
}

EXPORT CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned int flags)
{
	(void)flags;
	COUNT();
	return host_alloc(p, bytes);
}

EXPORT CUresult cuMemFreeHost(void *p)
{
	COUNT();
	free(p);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemHostRegister_v2(void *p, size_t bytes, unsigned int flags)
{
	(void)flags;
	COUNT();
	return p && bytes ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuMemHostUnregister(void *p)
{
	COUNT();
	return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *dptr, void *p, unsigned int flags)
{
	COUNT();
	if (!dptr || !p || flags)
		return CUDA_ERROR_INVALID_VALUE;
	*dptr = (CUdeviceptr)(uintptr_t)p;
	return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- graphs, contexts */

EXPORT CUresult cuGraphDestroy(CUgraph graph)
{
	COUNT();
	if (!graph)
		return CUDA_ERROR_INVALID_VALUE;
	free(graph);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuGraphExecDestroy(CUgraphExec exec)
{
	COUNT();
	if (!exec)
		return CUDA_ERROR_INVALID_VALUE;
	free(exec);
	return CUDA_SUCCESS;
}

/* Nothing to wait for: the mock's work is done when it is queued (its end time is only the
   timeline's). */
EXPORT CUresult cuCtxSynchronize(void)
{
	COUNT();
	return mock_current_device() < 0 ? CUDA_ERROR_INVALID_CONTEXT : CUDA_SUCCESS;
}
