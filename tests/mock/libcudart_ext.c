/* SPDX-License-Identifier: MIT */
/* tests/mock/libcudart_ext.c: the mock runtime's streams, events, async copies and memsets, pinned host memory, graphs and device properties, each forwarded to the mock driver as the real runtime forwards it. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <string.h>
#include "mockrt.h"
#include "mockstate.h"

#define EXPORT __attribute__((visibility("default")))
#define BEGIN() MOCK_RT_BEGIN()
#define D (&mock_rt_drv)
#define DP(p) ((CUdeviceptr)(uintptr_t)(p))

static cudaError_t cu(CUresult r)
{
	return mock_rt_from_cu(r);
}

/* ---------------------------------------------------------------- streams */

EXPORT cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
	BEGIN();
	if (!stream)
		return cu(CUDA_ERROR_INVALID_VALUE);
	return cu(D->stream_create((CUstream *)stream, 0));
}

EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
	BEGIN();
	if (!stream)
		return cu(CUDA_ERROR_INVALID_VALUE);
	return cu(D->stream_create((CUstream *)stream, flags));
}

EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags,
						int priority)
{
	BEGIN();
	return cu(D->stream_create_prio((CUstream *)stream, flags, priority));
}

EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	BEGIN();
	return cu(D->stream_destroy((CUstream)stream));
}

EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream)
{
	BEGIN();
	return cu(D->stream_query[0]((CUstream)stream));
}

EXPORT cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream)
{
	BEGIN();
	return cu(D->stream_query[1]((CUstream)stream));
}

EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
	BEGIN();
	return cu(D->stream_wait[0]((CUstream)stream, (CUevent)event, flags));
}

EXPORT cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
					    unsigned int flags)
{
	BEGIN();
	return cu(D->stream_wait[1]((CUstream)stream, (CUevent)event, flags));
}

EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
	BEGIN();
	if (least)
		*least = 0;
	if (greatest)
		*greatest = -5;
	return cudaSuccess;
}

/* ---------------------------------------------------------------- events */

EXPORT cudaError_t cudaEventCreate(cudaEvent_t *event)
{
	BEGIN();
	return cu(D->event_create((CUevent *)event, 0));
}

EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	BEGIN();
	return cu(D->event_create((CUevent *)event, flags));
}

EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event)
{
	BEGIN();
	return cu(D->event_destroy((CUevent)event));
}

EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	BEGIN();
	return cu(D->event_record[0]((CUevent)event, (CUstream)stream));
}

EXPORT cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
	BEGIN();
	return cu(D->event_record[1]((CUevent)event, (CUstream)stream));
}

EXPORT cudaError_t cudaEventQuery(cudaEvent_t event)
{
	BEGIN();
	return cu(D->event_query((CUevent)event));
}

EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	BEGIN();
	return cu(D->event_sync((CUevent)event));
}

/* The mock GPU timeline's time between the events (tests/mock/libcuda_gpu.c). */
EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	BEGIN();
	return cu(D->event_elapsed(ms, (CUevent)start, (CUevent)end));
}

/* ---------------------------------------------------------------- async copies, memsets */

static cudaError_t copy_async(int pt, void *dst, const void *src, size_t n,
			      enum cudaMemcpyKind kind, cudaStream_t stream)
{
	switch (kind) {
	case cudaMemcpyHostToDevice:
		return cu(D->htod_async[pt](DP(dst), src, n, (CUstream)stream));
	case cudaMemcpyDeviceToHost:
		return cu(D->dtoh_async[pt](dst, DP(src), n, (CUstream)stream));
	case cudaMemcpyDeviceToDevice:
	case cudaMemcpyHostToHost:
	case cudaMemcpyDefault:
		return cu(D->copy_async[pt](DP(dst), DP(src), n, (CUstream)stream));
	default:
		return cudaErrorInvalidMemcpyDirection;
	}
}

EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n,
				   enum cudaMemcpyKind kind, cudaStream_t stream)
{
	BEGIN();
	return copy_async(0, dst, src, n, kind, stream);
}

EXPORT cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t n,
					enum cudaMemcpyKind kind, cudaStream_t stream)
{
	BEGIN();
	return copy_async(1, dst, src, n, kind, stream);
}

EXPORT cudaError_t cudaMemsetAsync(void *dst, int value, size_t n, cudaStream_t stream)
{
	BEGIN();
	return cu(D->memset8_async[0](DP(dst), (unsigned char)value, n, (CUstream)stream));
}

EXPORT cudaError_t cudaMemsetAsync_ptsz(void *dst, int value, size_t n, cudaStream_t stream)
{
	BEGIN();
	return cu(D->memset8_async[1](DP(dst), (unsigned char)value, n, (CUstream)stream));
}

/* ---------------------------------------------------------------- pinned host memory */

EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
	BEGIN();
	return cu(D->alloc_host(ptr, size));
}

EXPORT cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
	BEGIN();
	return cu(D->host_alloc(ptr, size, flags));
}

EXPORT cudaError_t cudaFreeHost(void *ptr)
{
	BEGIN();
	return cu(D->free_host(ptr));
}

EXPORT cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
	BEGIN();
	return cu(D->host_register(ptr, size, flags));
}

EXPORT cudaError_t cudaHostUnregister(void *ptr)
{
	BEGIN();
	return cu(D->host_unregister(ptr));
}

EXPORT cudaError_t cudaHostGetDevicePointer(void **dptr, void *ptr, unsigned int flags)
{
	BEGIN();
	return cu(D->host_devptr((CUdeviceptr *)dptr, ptr, flags));
}

EXPORT cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags)
{
	BEGIN();
	/* 0 bytes: success with no address, as cudaMalloc (measured). */
	if (size == 0 && ptr) {
		*ptr = NULL;
		return cudaSuccess;
	}
	return cu(D->alloc_managed((CUdeviceptr *)ptr, size, flags));
}

/* ---------------------------------------------------------------- capture and graphs */

EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
	BEGIN();
	return cu(D->capture_begin[0]((CUstream)stream, (CUstreamCaptureMode)mode));
}

EXPORT cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream,
					       enum cudaStreamCaptureMode mode)
{
	BEGIN();
	return cu(D->capture_begin[1]((CUstream)stream, (CUstreamCaptureMode)mode));
}

EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph)
{
	BEGIN();
	return cu(D->capture_end[0]((CUstream)stream, (CUgraph *)graph));
}

EXPORT cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *graph)
{
	BEGIN();
	return cu(D->capture_end[1]((CUstream)stream, (CUgraph *)graph));
}

EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
					 enum cudaStreamCaptureStatus *status)
{
	BEGIN();
	return cu(D->is_capturing[0]((CUstream)stream, (CUstreamCaptureStatus *)status));
}

EXPORT cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
					      enum cudaStreamCaptureStatus *status)
{
	BEGIN();
	return cu(D->is_capturing[1]((CUstream)stream, (CUstreamCaptureStatus *)status));
}

EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
					unsigned long long flags)
{
	BEGIN();
	return cu(D->graph_instantiate((CUgraphExec *)exec, (CUgraph)graph, flags));
}

EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *exec, cudaGraph_t graph,
						 unsigned long long flags)
{
	BEGIN();
	return cu(D->graph_instantiate((CUgraphExec *)exec, (CUgraph)graph, flags));
}

EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream)
{
	BEGIN();
	return cu(D->graph_launch[0]((CUgraphExec)exec, (CUstream)stream));
}

EXPORT cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t exec, cudaStream_t stream)
{
	BEGIN();
	return cu(D->graph_launch[1]((CUgraphExec)exec, (CUstream)stream));
}

EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
	BEGIN();
	return cu(D->graph_destroy((CUgraph)graph));
}

EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec)
{
	BEGIN();
	return cu(D->graph_exec_destroy((CUgraphExec)exec));
}

EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *num)
{
	BEGIN();
	return cu(D->graph_nodes((CUgraph)graph, (CUgraphNode *)nodes, num));
}

EXPORT cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from,
				     cudaGraphNode_t *to, cudaGraphEdgeData *data, size_t *num)
{
	BEGIN();
	return cu(D->graph_edges((CUgraph)graph, (CUgraphNode *)from, (CUgraphNode *)to,
				 (CUgraphEdgeData *)data, num));
}

/* The runtime's node types have the driver's values. */
EXPORT cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *type)
{
	BEGIN();
	return cu(D->node_type((CUgraphNode)node, (CUgraphNodeType *)type));
}

/* ---------------------------------------------------------------- the device */

EXPORT cudaError_t cudaDriverGetVersion(int *version)
{
	BEGIN();
	return cu(D->driver_version(version));
}

/* The driver's own answer: the mock gives attribute A the value 1000 + A. */
EXPORT cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
	BEGIN();
	return cu(D->dev_attr(value, (CUdevice_attribute)attr, device));
}

/* The name and memory are the driver's; the rest are fixed values of an sm_90 part, so
   that a program sizing its grids from them gets sensible numbers. */
EXPORT cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
	CUresult r;

	BEGIN();
	if (!prop)
		return cu(CUDA_ERROR_INVALID_VALUE);
	memset(prop, 0, sizeof(*prop));
	r = D->dev_name(prop->name, (int)sizeof(prop->name), device);
	if (r == CUDA_SUCCESS)
		r = D->total_mem(&prop->totalGlobalMem, device);
	if (r != CUDA_SUCCESS)
		return cu(r);
	prop->major = 9;
	prop->minor = 0;
	prop->multiProcessorCount = 132;
	prop->warpSize = 32;
	prop->maxThreadsPerBlock = 1024;
	prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
	prop->maxThreadsDim[2] = 64;
	prop->maxGridSize[0] = 0x7fffffff;
	prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
	prop->sharedMemPerBlock = 48 << 10;
	prop->regsPerBlock = 65536;
	prop->maxThreadsPerMultiProcessor = 2048;
	prop->memoryBusWidth = 5120;
	prop->l2CacheSize = 50 << 20;
	prop->totalConstMem = 64 << 10;
	prop->concurrentKernels = 1;
	prop->asyncEngineCount = 2;
	prop->unifiedAddressing = 1;
	prop->managedMemory = 1;
	prop->canMapHostMemory = 1;
	prop->pciDeviceID = device;
	return cudaSuccess;
}
