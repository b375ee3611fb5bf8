/* SPDX-License-Identifier: MIT */
/* tests/mock/libcuda_gpu.c: the mock driver's GPU side: events with deterministic timestamps, stream capture, graphs, async copies, memsets and extra contexts. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "mockgpu.h"
#include "mockstate.h"

#define EXPORT __attribute__((visibility("default")))
#define COUNT() mock_count(__func__)

int mock_current_device(void);

/* The mock GPU clock is CLOCK_MONOTONIC, the host clock cuaudit anchors GPU times to. Each
   piece of work reaches the GPU at one known point inside its call: the clock read in
   mock_gpu_work, after the call's entry and before its return. It starts then if its stream
   is idle (no delay), or when the stream's previous work ends, and lasts exactly the time
   set for it (milliseconds), whatever the host's load: streams run in order, and a duration
   never depends on when the host thread runs. Work does not really run for that long: a
   stream's end may lie in the future. Events take no time: an event is stamped when its
   stream reaches it (at once on an idle stream). MOCK_GPU_TIMELINE=FILE appends each piece
   of work to FILE as "node stream start_ns end_ns" (stream: legacy, per-thread, or the
   handle in hex): the truth a test compares cuaudit's times with. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static struct mock_gpu_stream legacy[2];
static __thread struct mock_gpu_stream per_thread_stream;
static int open_captures, capture_broken;
static __thread int thread_mode; /* CU_STREAM_CAPTURE_MODE_GLOBAL */

struct mock_gpu_stream *mock_gpu_stream(void *handle, int per_thread)
{
	int dev = mock_current_device();

	if ((!handle && per_thread) || handle == (void *)CU_STREAM_PER_THREAD)
		return &per_thread_stream;
	if (!handle || handle == (void *)CU_STREAM_LEGACY)
		return &legacy[dev > 0 ? 1 : 0];
	return &((struct CUstream_st *)handle)->gpu;
}

static void add_node(struct mock_gpu_stream *s, const char *node)
{
	size_t n = strlen(s->graph);

	if (n + strlen(node) + 2 < sizeof(s->graph)) {
		memcpy(s->graph + n, node, strlen(node));
		s->graph[n + strlen(node)] = ';';
		s->graph[n + strlen(node) + 1] = 0;
	}
}

static void timeline(const char *node, const struct mock_gpu_stream *s, void *handle,
		     uint64_t start, uint64_t end)
{
	static int fd = -2;
	char line[128];
	int n;

	if (fd == -2) {
		const char *path = getenv("MOCK_GPU_TIMELINE");

		fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
	}
	if (fd < 0)
		return;
	if (s == &per_thread_stream)
		n = snprintf(line, sizeof(line), "%s per-thread %llu %llu\n", node,
			     (unsigned long long)start, (unsigned long long)end);
	else if (s == &legacy[0] || s == &legacy[1])
		n = snprintf(line, sizeof(line), "%s legacy %llu %llu\n", node,
			     (unsigned long long)start, (unsigned long long)end);
	else
		n = snprintf(line, sizeof(line), "%s %llx %llu %llu\n", node,
			     (unsigned long long)(uintptr_t)handle, (unsigned long long)start,
			     (unsigned long long)end);
	if (n > 0 && write(fd, line, (size_t)n) < 0)
		return;
}

int mock_gpu_work(void *handle, int per_thread, uint64_t ns, const char *node)
{
	struct mock_gpu_stream *s = mock_gpu_stream(handle, per_thread);
	uint64_t start;

	if (s->capturing) {
		add_node(s, node);
		return 0;
	}
	s->had_work = 1;
	start = now_ns();
	if (s->end_ns > start)
		start = s->end_ns;
	s->end_ns = start + ns;
	timeline(node, s, handle, start, s->end_ns);
	return 1;
}

static __thread uint64_t kernel_unit_ns = 1000000;

uint64_t mock_kernel_unit_ns(void)
{
	return kernel_unit_ns;
}

/* Not in any header: what one block of a kernel's grid lasts from now on, on the calling
   thread (a test's short kernels). */
EXPORT CUresult cuMockKernelUnitNs(unsigned long long ns)
{
	kernel_unit_ns = ns;
	return CUDA_SUCCESS;
}

/* Not in any header: when a stream's last work ends on the mock GPU clock
   (CLOCK_MONOTONIC), so that a test can launch while that work is about to end. */
EXPORT CUresult cuMockStreamEnd(CUstream stream, unsigned long long *end)
{
	if (!end)
		return CUDA_ERROR_INVALID_VALUE;
	*end = mock_gpu_stream(stream, 0)->end_ns;
	return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- events */

struct CUevent_st {
	struct CUctx_st *ctx; /* made in it, at its generation gen */
	unsigned gen;
	unsigned flags;
	int recorded;
	uint64_t t;
	long pending; /* queries still answered "not ready"; -1: never ready */
};

/* MOCK_EVENT_PENDING=N: an event answers "not ready" to its first N queries; "never": to
   every query (work that never finishes). */
static long pending_setting(void)
{
	const char *v = getenv("MOCK_EVENT_PENDING");

	if (!v)
		return 0;
	return strcmp(v, "never") == 0 ? -1 : atol(v);
}

EXPORT CUresult cuEventCreate(CUevent *ev, unsigned int flags)
{
	COUNT();
	if (!ev)
		return CUDA_ERROR_INVALID_VALUE;
	*ev = calloc(1, sizeof(**ev));
	if (!*ev)
		return CUDA_ERROR_OUT_OF_MEMORY;
	(*ev)->flags = flags;
	(*ev)->ctx = mock_current_context();
	(*ev)->gen = (*ev)->ctx ? (*ev)->ctx->gen : 0;
	return CUDA_SUCCESS;
}

/* An event of a context since reset or destroyed: the call is counted (mock_dead_handle),
   and refused as the driver would. */
static int dead(CUevent ev)
{
	if (!ev || !ev->ctx || ev->ctx->gen == ev->gen)
		return 0;
	mock_count("mock_dead_handle");
	return 1;
}

EXPORT CUresult cuEventDestroy_v2(CUevent ev)
{
	COUNT();
	free(ev);
	return CUDA_SUCCESS;
}

/* Set by cuMockDelayNextRecordUs: the calling thread's next event record call takes that
   long before the event reaches its stream, as where the thread was preempted between a
   launch's return and a tool's end event (which is then stamped after the work ended). */
static __thread long record_delay_us;

/* Not in any header: delays the calling thread's next event record by us microseconds. */
EXPORT CUresult cuMockDelayNextRecordUs(long us)
{
	record_delay_us = us;
	return CUDA_SUCCESS;
}

static void record_delay(void)
{
	struct timespec ts;

	if (record_delay_us <= 0)
		return;
	ts.tv_sec = record_delay_us / 1000000;
	ts.tv_nsec = record_delay_us % 1000000 * 1000;
	record_delay_us = 0;
	nanosleep(&ts, NULL);
}

static CUresult record(CUevent ev, CUstream stream, int per_thread)
{
	struct mock_gpu_stream *s;

	if (!ev)
		return CUDA_ERROR_INVALID_HANDLE;
	if (dead(ev))
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	s = mock_gpu_stream(stream, per_thread);
	if (s->capturing) {
		add_node(s, "event");
		return CUDA_SUCCESS;
	}
	record_delay();
	ev->recorded = 1;
	ev->t = now_ns();
	if (s->end_ns > ev->t)
		ev->t = s->end_ns;
	if (ev->t > s->end_ns)
		s->end_ns = ev->t;
	/* MOCK_LATE_ANCHOR_NS=N: every second event (the 2nd, 4th...) recorded on a
	   non-blocking stream that never ran work (cuaudit's anchor stream) is stamped N ns
	   late, as a GPU time-sliced with another context stamps it when its slice comes; the
	   stream's later events are not held back by it. */
	{
		static long late = -1;
		static unsigned tick;

		if (late < 0) {
			const char *v = getenv("MOCK_LATE_ANCHOR_NS");

			late = v ? atol(v) : 0;
		}
		if (late > 0 && !s->had_work && stream && stream != CU_STREAM_LEGACY &&
		    stream != CU_STREAM_PER_THREAD &&
		    (((struct CUstream_st *)stream)->flags & CU_STREAM_NON_BLOCKING) &&
		    (++tick & 1) == 0)
			ev->t += (uint64_t)late;
	}
	ev->pending = pending_setting();
	return CUDA_SUCCESS;
}

/* For cuStreamWaitEvent (libcuda_rt.c): when the event's stream reaches it. */
uint64_t mock_event_time(CUevent ev, int *recorded)
{
	*recorded = ev->recorded;
	return ev->t;
}

EXPORT CUresult cuEventRecord(CUevent ev, CUstream stream)
{
	COUNT();
	return record(ev, stream, 0);
}

EXPORT CUresult cuEventRecord_ptsz(CUevent ev, CUstream stream)
{
	COUNT();
	return record(ev, stream, 1);
}

static int done(CUevent ev)
{
	return !ev->recorded || ev->pending == 0;
}

EXPORT CUresult cuEventQuery(CUevent ev)
{
	COUNT();
	if (!ev)
		return CUDA_ERROR_INVALID_HANDLE;
	if (dead(ev))
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	/* Stricter than the driver is documented to be: a query during a global-mode capture
	   ends the capture, so a test shows any tool that queries then; not from a thread in
	   the relaxed mode (cuThreadExchangeStreamCaptureMode). */
	if (open_captures && thread_mode != CU_STREAM_CAPTURE_MODE_RELAXED)
		capture_broken = 1;
	if (done(ev))
		return CUDA_SUCCESS;
	if (ev->pending > 0)
		ev->pending--;
	return CUDA_ERROR_NOT_READY;
}

EXPORT CUresult cuEventSynchronize(CUevent ev)
{
	COUNT();
	if (!ev)
		return CUDA_ERROR_INVALID_HANDLE;
	ev->pending = 0;
	return CUDA_SUCCESS;
}

/* MOCK_ELAPSED_SLEEP_MS=N: each elapsed-time call takes N ms of host time, as a slow or
   contended driver's would (a harvest before an anchor then takes that long). */
static void elapsed_sleep(void)
{
	const char *v = getenv("MOCK_ELAPSED_SLEEP_MS");
	struct timespec ts;
	long n = v ? atol(v) : 0;

	if (n <= 0)
		return;
	ts.tv_sec = n / 1000;
	ts.tv_nsec = n % 1000 * 1000000;
	nanosleep(&ts, NULL);
}

static CUresult elapsed(float *ms, CUevent a, CUevent b)
{
	elapsed_sleep();
	if (!ms || !a || !b)
		return CUDA_ERROR_INVALID_HANDLE;
	if (dead(a) || dead(b))
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!a->recorded || !b->recorded)
		return CUDA_ERROR_INVALID_HANDLE;
	/* Time runs forward: an event timed no later than a completed one has completed
	   (a start event before its stream's done end), though no query said so yet. */
	if (done(a) && !done(b) && b->t <= a->t)
		b->pending = 0;
	if (done(b) && !done(a) && a->t <= b->t)
		a->pending = 0;
	/* As documented: not ready while either event is (where cuEventQuery would say so),
	   and the call counts as that query (MOCK_EVENT_PENDING). */
	if (!done(a) || !done(b)) {
		if (!done(a) && a->pending > 0)
			a->pending--;
		if (!done(b) && b->pending > 0)
			b->pending--;
		return CUDA_ERROR_NOT_READY;
	}
	*ms = (float)(((double)b->t - (double)a->t) / 1e6);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
	COUNT();
	return elapsed(ms, a, b);
}

EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b)
{
	COUNT();
	return elapsed(ms, a, b);
}

/* ---------------------------------------------------------------- capture and graphs */

struct CUgraph_st {
	char desc[512];
};
struct CUgraphExec_st {
	char desc[512];
};

static CUresult begin(CUstream stream, int per_thread, CUstreamCaptureMode mode)
{
	struct mock_gpu_stream *s = mock_gpu_stream(stream, per_thread);

	if (s->capturing)
		return CUDA_ERROR_ILLEGAL_STATE;
	s->capturing = 1;
	s->capture_mode = (int)mode;
	s->graph[0] = 0;
	open_captures++;
	capture_broken = 0;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamBeginCapture_v2(CUstream stream, CUstreamCaptureMode mode)
{
	COUNT();
	return begin(stream, 0, mode);
}

EXPORT CUresult cuStreamBeginCapture_v2_ptsz(CUstream stream, CUstreamCaptureMode mode)
{
	COUNT();
	return begin(stream, 1, mode);
}

static CUresult end(CUstream stream, int per_thread, CUgraph *graph)
{
	struct mock_gpu_stream *s = mock_gpu_stream(stream, per_thread);

	if (!s->capturing || !graph)
		return CUDA_ERROR_ILLEGAL_STATE;
	s->capturing = 0;
	open_captures--;
	if (capture_broken) {
		*graph = NULL;
		return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
	}
	*graph = calloc(1, sizeof(**graph));
	if (!*graph)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memcpy((*graph)->desc, s->graph, sizeof(s->graph));
	return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph)
{
	COUNT();
	return end(stream, 0, graph);
}

EXPORT CUresult cuStreamEndCapture_ptsz(CUstream stream, CUgraph *graph)
{
	COUNT();
	return end(stream, 1, graph);
}

static CUresult is_capturing(CUstream stream, int per_thread, CUstreamCaptureStatus *st)
{
	if (!st)
		return CUDA_ERROR_INVALID_VALUE;
	*st = mock_gpu_stream(stream, per_thread)->capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE
							      : CU_STREAM_CAPTURE_STATUS_NONE;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamIsCapturing(CUstream stream, CUstreamCaptureStatus *st)
{
	COUNT();
	return is_capturing(stream, 0, st);
}

EXPORT CUresult cuStreamIsCapturing_ptsz(CUstream stream, CUstreamCaptureStatus *st)
{
	COUNT();
	return is_capturing(stream, 1, st);
}

EXPORT CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
	int old = thread_mode;

	COUNT();
	if (!mode)
		return CUDA_ERROR_INVALID_VALUE;
	thread_mode = (int)*mode;
	*mode = (CUstreamCaptureMode)old;
	return CUDA_SUCCESS;
}

/* Not in any header: the captured graph's nodes, so a test can compare graphs. */
EXPORT CUresult cuMockGraphDescribe(CUgraph graph, const char **desc)
{
	if (!graph || !desc)
		return CUDA_ERROR_INVALID_VALUE;
	*desc = graph->desc;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph,
					    unsigned long long flags)
{
	(void)flags;
	COUNT();
	if (!exec || !graph)
		return CUDA_ERROR_INVALID_VALUE;
	*exec = calloc(1, sizeof(**exec));
	if (!*exec)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memcpy((*exec)->desc, graph->desc, sizeof(graph->desc));
	return CUDA_SUCCESS;
}

/* A captured graph's nodes, in capture order, are a chain: node i depends on node i - 1.
   A node handle names its type only (one per type), which is all a program can ask of it
   here. */
struct CUgraphNode_st {
	CUgraphNodeType type;
};
static struct CUgraphNode_st node_types[] = {
	{ CU_GRAPH_NODE_TYPE_KERNEL }, { CU_GRAPH_NODE_TYPE_MEMCPY },
	{ CU_GRAPH_NODE_TYPE_MEMSET }, { CU_GRAPH_NODE_TYPE_EVENT_RECORD },
	{ CU_GRAPH_NODE_TYPE_GRAPH },  { CU_GRAPH_NODE_TYPE_EMPTY },
};

static CUgraphNode node_named(const char *name, size_t len)
{
	static const char *const names[] = { "kernel", "memcpy", "memset", "event", "graph" };

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return &node_types[i];
	return &node_types[5];
}

/* Fills nodes[0..*max) (when nodes) and returns how many the graph has. */
static size_t graph_nodes(CUgraph graph, CUgraphNode *nodes, size_t max)
{
	size_t n = 0;

	for (const char *p = graph->desc, *semi; (semi = strchr(p, ';')); p = semi + 1, n++)
		if (nodes && n < max)
			nodes[n] = node_named(p, (size_t)(semi - p));
	return n;
}

EXPORT CUresult cuGraphGetNodes(CUgraph graph, CUgraphNode *nodes, size_t *num)
{
	size_t n;

	COUNT();
	if (!graph || !num)
		return CUDA_ERROR_INVALID_VALUE;
	n = graph_nodes(graph, nodes, nodes ? *num : 0);
	for (size_t i = n; nodes && i < *num; i++)
		nodes[i] = NULL;
	*num = n;
	return CUDA_SUCCESS;
}

static CUresult edges(CUgraph graph, CUgraphNode *from, CUgraphNode *to, CUgraphEdgeData *data,
		      size_t *num)
{
	CUgraphNode list[64];
	size_t n, e;

	if (!graph || !num || (!from != !to))
		return CUDA_ERROR_INVALID_VALUE;
	n = graph_nodes(graph, list, 64);
	e = n > 1 ? n - 1 : 0;
	for (size_t i = 0; from && i < *num; i++) {
		from[i] = i < e && i + 1 < 64 ? list[i] : NULL;
		to[i] = i < e && i + 1 < 64 ? list[i + 1] : NULL;
		if (data)
			memset(&data[i], 0, sizeof(data[i]));
	}
	*num = e;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuGraphGetEdges(CUgraph graph, CUgraphNode *from, CUgraphNode *to, size_t *num)
{
	COUNT();
	return edges(graph, from, to, NULL, num);
}

EXPORT CUresult cuGraphGetEdges_v2(CUgraph graph, CUgraphNode *from, CUgraphNode *to,
				   CUgraphEdgeData *data, size_t *num)
{
	COUNT();
	return edges(graph, from, to, data, num);
}

EXPORT CUresult cuGraphNodeGetType(CUgraphNode node, CUgraphNodeType *type)
{
	COUNT();
	if (!node || !type)
		return CUDA_ERROR_INVALID_VALUE;
	*type = node->type;
	return CUDA_SUCCESS;
}

/* A graph launch takes 5 ms of mock GPU time. */
EXPORT CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream)
{
	COUNT();
	if (!exec)
		return CUDA_ERROR_INVALID_HANDLE;
	mock_gpu_work(stream, 0, 5000000, "graph");
	return CUDA_SUCCESS;
}

EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec exec, CUstream stream)
{
	COUNT();
	if (!exec)
		return CUDA_ERROR_INVALID_HANDLE;
	mock_gpu_work(stream, 1, 5000000, "graph");
	return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- async copies, memsets */

/* (The other async copies are in libcuda.c.) A copy of n bytes takes 5 ms + 100 ns per byte, a memset 5 ms + 50 ns per byte. */
#define COPY_ASYNC(elf, pt, D, S, dexpr, sexpr)                                                \
	EXPORT CUresult elf(D dst, S src, size_t n, CUstream stream)                           \
	{                                                                                      \
		COUNT();                                                                       \
		if (!dst || !src)                                                              \
			return CUDA_ERROR_INVALID_VALUE;                                       \
		if (mock_gpu_work(stream, pt, 5000000 + 100 * n, "memcpy"))                              \
			memcpy(dexpr, sexpr, n);                                               \
		return CUDA_SUCCESS;                                                           \
	}
COPY_ASYNC(cuMemcpyDtoHAsync_v2_ptsz, 1, void *, CUdeviceptr, dst, (const void *)(uintptr_t)src)

EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n)
{
	COUNT();
	if (!dst)
		return CUDA_ERROR_INVALID_VALUE;
	mock_gpu_work(NULL, 0, 5000000 + 50 * n, "memset");
	memset((void *)(uintptr_t)dst, v, n);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream stream)
{
	COUNT();
	if (!dst)
		return CUDA_ERROR_INVALID_VALUE;
	if (mock_gpu_work(stream, 0, 5000000 + 50 * n, "memset"))
		memset((void *)(uintptr_t)dst, v, n);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemsetD8Async_ptsz(CUdeviceptr dst, unsigned char v, size_t n, CUstream stream)
{
	COUNT();
	if (!dst)
		return CUDA_ERROR_INVALID_VALUE;
	if (mock_gpu_work(stream, 1, 5000000 + 50 * n, "memset"))
		memset((void *)(uintptr_t)dst, v, n);
	return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- contexts, streams */

/* A destroyed context's memory, which the next creation reuses: a new context may have a
   destroyed one's handle. */
static CUcontext destroyed;

EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx)
{
	COUNT();
	if (!ctx || destroyed)
		return CUDA_ERROR_INVALID_VALUE;
	ctx->gen++;
	destroyed = ctx;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags,
			       CUdevice dev)
{
	(void)params, (void)flags;
	COUNT();
	if (!pctx || dev < 0 || dev > 1)
		return CUDA_ERROR_INVALID_VALUE;
	if (destroyed) {
		*pctx = destroyed;
		destroyed = NULL;
		(*pctx)->device = dev;
		return CUDA_SUCCESS;
	}
	*pctx = calloc(1, sizeof(**pctx));
	if (!*pctx)
		return CUDA_ERROR_OUT_OF_MEMORY;
	(*pctx)->device = dev;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamDestroy_v2(CUstream stream)
{
	COUNT();
	/* A capture the program abandons ends with its stream. */
	if (stream && stream->gpu.capturing)
		open_captures--;
	free(stream);
	return CUDA_SUCCESS;
}
