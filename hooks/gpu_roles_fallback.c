/* SPDX-License-Identifier: MIT */
/* hooks/gpu_roles_fallback.c: stand-in for issue 20's generated semantics table, for the launches, copies, memsets, graph launches and captures GPU timing needs; removed when that table is merged. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <errno.h>
#include "cuaudit_args.h"
#include "cuaudit_ids.h"
#include "gpu_roles.h"

#ifdef CUA_GPU_ROLES_FALLBACK
#define LEG CUAUDIT_STREAM_LEGACY
#define PT CUAUDIT_STREAM_PER_THREAD
#define A(elf) const struct cuaudit_args_##elf *a = call->args

/* Launches whose grid, block and stream are plain arguments. */
#define LAUNCHES(X)                                                                            \
	X(cuLaunchKernel, f, CUAUDIT_FUNC_CUFUNCTION, LEG, 0)                                  \
	X(cuLaunchKernel_ptsz, f, CUAUDIT_FUNC_CUFUNCTION, PT, 0)                              \
	X(cuLaunchCooperativeKernel, f, CUAUDIT_FUNC_CUFUNCTION, LEG, 1)                       \
	X(cuLaunchCooperativeKernel_ptsz, f, CUAUDIT_FUNC_CUFUNCTION, PT, 1)
#define RT_LAUNCHES(X)                                                                         \
	X(cudaLaunchKernel, func, CUAUDIT_FUNC_HOST, LEG, 0)                                   \
	X(cudaLaunchKernel_ptsz, func, CUAUDIT_FUNC_HOST, PT, 0)                               \
	X(cudaLaunchCooperativeKernel, func, CUAUDIT_FUNC_HOST, LEG, 1)                        \
	X(cudaLaunchCooperativeKernel_ptsz, func, CUAUDIT_FUNC_HOST, PT, 1)                    \
	X(__cudaLaunchKernel, kernel, CUAUDIT_FUNC_CUKERNEL, LEG, 0)                           \
	X(__cudaLaunchKernel_ptsz, kernel, CUAUDIT_FUNC_CUKERNEL, PT, 0)
/* Copies: (elf, dst, src, bytes, kind, flavour, stream field or none). */
#define COPIES(X)                                                                              \
	X(cuMemcpyHtoD_v2, dstDevice, srcHost, ByteCount, CUAUDIT_COPY_HTOD, LEG, 0)            \
	X(cuMemcpyHtoD_v2_ptds, dstDevice, srcHost, ByteCount, CUAUDIT_COPY_HTOD, PT, 0)        \
	X(cuMemcpyDtoH_v2, dstHost, srcDevice, ByteCount, CUAUDIT_COPY_DTOH, LEG, 0)            \
	X(cuMemcpyDtoH_v2_ptds, dstHost, srcDevice, ByteCount, CUAUDIT_COPY_DTOH, PT, 0)        \
	X(cuMemcpyDtoD_v2, dstDevice, srcDevice, ByteCount, CUAUDIT_COPY_DTOD, LEG, 0)          \
	X(cuMemcpyDtoD_v2_ptds, dstDevice, srcDevice, ByteCount, CUAUDIT_COPY_DTOD, PT, 0)      \
	X(cuMemcpy, dst, src, ByteCount, CUAUDIT_COPY_DEFAULT, LEG, 0)                          \
	X(cuMemcpy_ptds, dst, src, ByteCount, CUAUDIT_COPY_DEFAULT, PT, 0)                      \
	X(cuMemcpyPeer, dstDevice, srcDevice, ByteCount, CUAUDIT_COPY_PEER, LEG, 0)             \
	X(cuMemcpyPeer_ptds, dstDevice, srcDevice, ByteCount, CUAUDIT_COPY_PEER, PT, 0)
#define ASYNC_COPIES(X)                                                                        \
	X(cuMemcpyHtoDAsync_v2, dstDevice, srcHost, ByteCount, CUAUDIT_COPY_HTOD, LEG, hStream) \
	X(cuMemcpyHtoDAsync_v2_ptsz, dstDevice, srcHost, ByteCount, CUAUDIT_COPY_HTOD, PT,      \
	  hStream)                                                                             \
	X(cuMemcpyDtoHAsync_v2, dstHost, srcDevice, ByteCount, CUAUDIT_COPY_DTOH, LEG, hStream) \
	X(cuMemcpyDtoHAsync_v2_ptsz, dstHost, srcDevice, ByteCount, CUAUDIT_COPY_DTOH, PT,      \
	  hStream)                                                                             \
	X(cuMemcpyDtoDAsync_v2, dstDevice, srcDevice, ByteCount, CUAUDIT_COPY_DTOD, LEG,        \
	  hStream)                                                                             \
	X(cuMemcpyDtoDAsync_v2_ptsz, dstDevice, srcDevice, ByteCount, CUAUDIT_COPY_DTOD, PT,    \
	  hStream)                                                                             \
	X(cuMemcpyAsync, dst, src, ByteCount, CUAUDIT_COPY_DEFAULT, LEG, hStream)               \
	X(cuMemcpyAsync_ptsz, dst, src, ByteCount, CUAUDIT_COPY_DEFAULT, PT, hStream)           \
	X(cuMemcpyPeerAsync, dstDevice, srcDevice, ByteCount, CUAUDIT_COPY_PEER, LEG, hStream)  \
	X(cuMemcpyPeerAsync_ptsz, dstDevice, srcDevice, ByteCount, CUAUDIT_COPY_PEER, PT,       \
	  hStream)
#define RT_COPIES(X)                                                                           \
	X(cudaMemcpy, LEG, 0)                                                                  \
	X(cudaMemcpy_ptds, PT, 0)
#define RT_ASYNC_COPIES(X)                                                                     \
	X(cudaMemcpyAsync, LEG, stream)                                                        \
	X(cudaMemcpyAsync_ptsz, PT, stream)
/* Memsets: (elf, element size, flavour, stream field or none). */
#define MEMSETS(X)                                                                             \
	X(cuMemsetD8_v2, 1, LEG) X(cuMemsetD8_v2_ptds, 1, PT) X(cuMemsetD16_v2, 2, LEG)        \
	X(cuMemsetD16_v2_ptds, 2, PT) X(cuMemsetD32_v2, 4, LEG) X(cuMemsetD32_v2_ptds, 4, PT)
#define ASYNC_MEMSETS(X)                                                                       \
	X(cuMemsetD8Async, 1, LEG) X(cuMemsetD8Async_ptsz, 1, PT) X(cuMemsetD16Async, 2, LEG)  \
	X(cuMemsetD16Async_ptsz, 2, PT) X(cuMemsetD32Async, 4, LEG)                            \
	X(cuMemsetD32Async_ptsz, 4, PT)
#define GRAPH_LAUNCHES(X)                                                                      \
	X(cuGraphLaunch, hGraph, hStream, LEG) X(cuGraphLaunch_ptsz, hGraphExec, hStream, PT)  \
	X(cudaGraphLaunch, graphExec, stream, LEG) X(cudaGraphLaunch_ptsz, graphExec, stream, PT)
#define CAPTURE_BEGINS(X)                                                                      \
	X(cuStreamBeginCapture, hStream, LEG) X(cuStreamBeginCapture_ptsz, hStream, PT)        \
	X(cuStreamBeginCapture_v2, hStream, LEG) X(cuStreamBeginCapture_v2_ptsz, hStream, PT)  \
	X(cuStreamBeginCaptureToGraph, hStream, LEG)                                           \
	X(cuStreamBeginCaptureToGraph_ptsz, hStream, PT) X(cudaStreamBeginCapture, stream, LEG) \
	X(cudaStreamBeginCapture_ptsz, stream, PT)                                             \
	X(cudaStreamBeginCaptureToGraph, stream, LEG)                                          \
	X(cudaStreamBeginCaptureToGraph_ptsz, stream, PT)
#define CAPTURE_ENDS(X)                                                                        \
	X(cuStreamEndCapture, hStream, LEG) X(cuStreamEndCapture_ptsz, hStream, PT)            \
	X(cudaStreamEndCapture, stream, LEG) X(cudaStreamEndCapture_ptsz, stream, PT)

enum cuaudit_role cuaudit_role_of(unsigned id)
{
	switch (id) {
#define L(elf, ...) case CUAUDIT_ID_##elf:
		LAUNCHES(L) RT_LAUNCHES(L) case CUAUDIT_ID_cuLaunchKernelEx:
	case CUAUDIT_ID_cuLaunchKernelEx_ptsz:
	case CUAUDIT_ID_cudaLaunchKernelExC:
	case CUAUDIT_ID_cudaLaunchKernelExC_ptsz:
		return CUAUDIT_ROLE_LAUNCH;
		COPIES(L) ASYNC_COPIES(L) RT_COPIES(L) RT_ASYNC_COPIES(L) return CUAUDIT_ROLE_COPY;
		MEMSETS(L) ASYNC_MEMSETS(L) case CUAUDIT_ID_cudaMemset:
	case CUAUDIT_ID_cudaMemset_ptds:
	case CUAUDIT_ID_cudaMemsetAsync:
	case CUAUDIT_ID_cudaMemsetAsync_ptsz:
		return CUAUDIT_ROLE_MEMSET;
		GRAPH_LAUNCHES(L) return CUAUDIT_ROLE_GRAPH_LAUNCH;
		CAPTURE_BEGINS(L) return CUAUDIT_ROLE_CAPTURE_BEGIN;
		CAPTURE_ENDS(L) return CUAUDIT_ROLE_CAPTURE_END;
#undef L
	default:
		return CUAUDIT_ROLE_PLAIN;
	}
}

static void dims(unsigned *g, unsigned x, unsigned y, unsigned z)
{
	g[0] = x, g[1] = y, g[2] = z;
}

int cuaudit_call_launch(const struct cuaudit_call *call, struct cuaudit_launch *out)
{
	struct cuaudit_launch l = { .size = sizeof(l) };

	if (!call || !call->args || !out || out->size < sizeof(l))
		return -EINVAL;
	switch (call->id) {
#define D(elf, fn, fk, fl, coop)                                                               \
	case CUAUDIT_ID_##elf: {                                                               \
		A(elf);                                                                        \
		l.func = (const void *)a->fn, l.func_kind = fk, l.stream_flavour = fl;         \
		l.cooperative = coop;                                                          \
		dims(l.grid, a->gridDimX, a->gridDimY, a->gridDimZ);                           \
		dims(l.block, a->blockDimX, a->blockDimY, a->blockDimZ);                       \
		l.shared_bytes = a->sharedMemBytes, l.stream = (void *)a->hStream;             \
		break;                                                                         \
	}
		LAUNCHES(D)
#undef D
#define R(elf, fn, fk, fl, coop)                                                               \
	case CUAUDIT_ID_##elf: {                                                               \
		A(elf);                                                                        \
		l.func = (const void *)a->fn, l.func_kind = fk, l.stream_flavour = fl;         \
		l.cooperative = coop;                                                          \
		dims(l.grid, a->gridDim.x, a->gridDim.y, a->gridDim.z);                        \
		dims(l.block, a->blockDim.x, a->blockDim.y, a->blockDim.z);                    \
		l.shared_bytes = (unsigned)a->sharedMem, l.stream = (void *)a->stream;         \
		break;                                                                         \
	}
		RT_LAUNCHES(R)
#undef R
#define EX(elf, fl)                                                                            \
	case CUAUDIT_ID_##elf: {                                                               \
		A(elf);                                                                        \
		l.func = (const void *)a->f, l.func_kind = CUAUDIT_FUNC_CUFUNCTION;            \
		l.stream_flavour = fl;                                                         \
		if (a->config) {                                                               \
			dims(l.grid, a->config->gridDimX, a->config->gridDimY,                 \
			     a->config->gridDimZ);                                             \
			dims(l.block, a->config->blockDimX, a->config->blockDimY,              \
			     a->config->blockDimZ);                                            \
			l.stream = (void *)a->config->hStream;                                 \
		}                                                                              \
		break;                                                                         \
	}
		EX(cuLaunchKernelEx, LEG) EX(cuLaunchKernelEx_ptsz, PT)
#undef EX
#define EXC(elf, fl)                                                                           \
	case CUAUDIT_ID_##elf: {                                                               \
		A(elf);                                                                        \
		l.func = a->func, l.func_kind = CUAUDIT_FUNC_HOST, l.stream_flavour = fl;      \
		if (a->config) {                                                               \
			dims(l.grid, a->config->gridDim.x, a->config->gridDim.y,               \
			     a->config->gridDim.z);                                            \
			dims(l.block, a->config->blockDim.x, a->config->blockDim.y,            \
			     a->config->blockDim.z);                                           \
			l.stream = (void *)a->config->stream;                                  \
		}                                                                              \
		break;                                                                         \
	}
		EXC(cudaLaunchKernelExC, LEG) EXC(cudaLaunchKernelExC_ptsz, PT)
#undef EXC
	default:
		return -EINVAL;
	}
	*out = l;
	return 0;
}

static int rt_kind(int k)
{
	switch (k) {
	case cudaMemcpyHostToHost: return CUAUDIT_COPY_HTOH;
	case cudaMemcpyHostToDevice: return CUAUDIT_COPY_HTOD;
	case cudaMemcpyDeviceToHost: return CUAUDIT_COPY_DTOH;
	case cudaMemcpyDeviceToDevice: return CUAUDIT_COPY_DTOD;
	case cudaMemcpyDefault: return CUAUDIT_COPY_DEFAULT;
	default: return CUAUDIT_COPY_UNKNOWN;
	}
}

int cuaudit_call_copy(const struct cuaudit_call *call, struct cuaudit_copy *out)
{
	struct cuaudit_copy c = { .size = sizeof(c) };

	if (!call || !call->args || !out || out->size < sizeof(c))
		return -EINVAL;
	switch (call->id) {
#define S(elf, d, s, n, k, fl, st)                                                             \
	case CUAUDIT_ID_##elf: {                                                               \
		A(elf);                                                                        \
		c.dst = (const void *)(uintptr_t)a->d, c.src = (const void *)(uintptr_t)a->s;  \
		c.bytes = a->n, c.kind = k, c.stream_flavour = fl;                             \
		break;                                                                         \
	}
		COPIES(S)
#undef S
#define AS(elf, d, s, n, k, fl, st)                                                            \
	case CUAUDIT_ID_##elf: {                                                               \
		A(elf);                                                                        \
		c.dst = (const void *)(uintptr_t)a->d, c.src = (const void *)(uintptr_t)a->s;  \
		c.bytes = a->n, c.kind = k, c.stream_flavour = fl;                             \
		c.stream = (void *)a->st, c.async = 1;                                         \
		break;                                                                         \
	}
		ASYNC_COPIES(AS)
#undef AS
#define RS(elf, fl, st)                                                                        \
	case CUAUDIT_ID_##elf: {                                                               \
		A(elf);                                                                        \
		c.dst = a->dst, c.src = a->src, c.bytes = a->count, c.kind = rt_kind(a->kind); \
		c.stream_flavour = fl;                                                         \
		break;                                                                         \
	}
		RT_COPIES(RS)
#undef RS
#define RAS(elf, fl, st)                                                                       \
	case CUAUDIT_ID_##elf: {                                                               \
		A(elf);                                                                        \
		c.dst = a->dst, c.src = a->src, c.bytes = a->count, c.kind = rt_kind(a->kind); \
		c.stream_flavour = fl, c.stream = (void *)a->st, c.async = 1;                  \
		break;                                                                         \
	}
		RT_ASYNC_COPIES(RAS)
#undef RAS
	default:
		return -EINVAL;
	}
	*out = c;
	return 0;
}

int cuaudit_call_memset(const struct cuaudit_call *call, struct cuaudit_memset *out)
{
	struct cuaudit_memset m = { .size = sizeof(m) };

	if (!call || !call->args || !out || out->size < sizeof(m))
		return -EINVAL;
	switch (call->id) {
#define M(elf, w, fl)                                                                          \
	case CUAUDIT_ID_##elf: {                                                               \
		A(elf);                                                                        \
		m.dst = (void *)(uintptr_t)a->dstDevice, m.bytes = (uint64_t)a->N * w;         \
		m.stream_flavour = fl;                                                         \
		break;                                                                         \
	}
		MEMSETS(M)
#undef M
#define AM(elf, w, fl)                                                                         \
	case CUAUDIT_ID_##elf: {                                                               \
		A(elf);                                                                        \
		m.dst = (void *)(uintptr_t)a->dstDevice, m.bytes = (uint64_t)a->N * w;         \
		m.stream_flavour = fl, m.stream = (void *)a->hStream, m.async = 1;             \
		break;                                                                         \
	}
		ASYNC_MEMSETS(AM)
#undef AM
	case CUAUDIT_ID_cudaMemset: {
		A(cudaMemset);
		m.dst = a->devPtr, m.bytes = a->count, m.stream_flavour = LEG;
		break;
	}
	case CUAUDIT_ID_cudaMemset_ptds: {
		A(cudaMemset_ptds);
		m.dst = a->devPtr, m.bytes = a->count, m.stream_flavour = PT;
		break;
	}
	case CUAUDIT_ID_cudaMemsetAsync: {
		A(cudaMemsetAsync);
		m.dst = a->devPtr, m.bytes = a->count, m.stream_flavour = LEG;
		m.stream = (void *)a->stream, m.async = 1;
		break;
	}
	case CUAUDIT_ID_cudaMemsetAsync_ptsz: {
		A(cudaMemsetAsync_ptsz);
		m.dst = a->devPtr, m.bytes = a->count, m.stream_flavour = PT;
		m.stream = (void *)a->stream, m.async = 1;
		break;
	}
	default:
		return -EINVAL;
	}
	*out = m;
	return 0;
}

int cuaudit_call_graph_exec(const struct cuaudit_call *call, void **graph_exec)
{
	if (!call || !call->args || !graph_exec)
		return -EINVAL;
	switch (call->id) {
#define G(elf, ex, st, fl)                                                                     \
	case CUAUDIT_ID_##elf: {                                                               \
		A(elf);                                                                        \
		*graph_exec = (void *)a->ex;                                                   \
		return 0;                                                                      \
	}
		GRAPH_LAUNCHES(G)
#undef G
	default:
		return -EINVAL;
	}
}

int cuaudit_call_stream(const struct cuaudit_call *call, void **stream, int *flavour)
{
	struct cuaudit_launch l = { .size = sizeof(l) };
	struct cuaudit_copy c = { .size = sizeof(c) };
	struct cuaudit_memset m = { .size = sizeof(m) };

	if (!call || !call->args || !stream || !flavour)
		return -EINVAL;
	if (cuaudit_call_launch(call, &l) == 0)
		return *stream = l.stream, *flavour = l.stream_flavour, 0;
	if (cuaudit_call_copy(call, &c) == 0)
		return *stream = c.stream, *flavour = c.stream_flavour, 0;
	if (cuaudit_call_memset(call, &m) == 0)
		return *stream = m.stream, *flavour = m.stream_flavour, 0;
	switch (call->id) {
#define G(elf, ex, st, fl)                                                                     \
	case CUAUDIT_ID_##elf: {                                                               \
		A(elf);                                                                        \
		return *stream = (void *)a->st, *flavour = fl, 0;                              \
	}
		GRAPH_LAUNCHES(G)
#undef G
#define C(elf, st, fl)                                                                         \
	case CUAUDIT_ID_##elf: {                                                               \
		A(elf);                                                                        \
		return *stream = (void *)a->st, *flavour = fl, 0;                              \
	}
		CAPTURE_BEGINS(C) CAPTURE_ENDS(C)
#undef C
	default:
		return -EINVAL;
	}
}
#endif
