/* SPDX-License-Identifier: MIT */
/* hooks/gpu_roles.h: the semantics API GPU timing reads (issue 20's contract), declared here until the generated cuaudit_roles.h exists. */
#ifndef CUA_GPU_ROLES_H
#define CUA_GPU_ROLES_H

#include <stddef.h>
#include <stdint.h>
#include "cuaudit.h"

#if __has_include("cuaudit_roles.h")
#include "cuaudit_roles.h"
#else
/* The names and meanings pinned by /work/contract-roles.md; the generated header replaces
   this block when issue 20's table is merged. */
enum cuaudit_role {
	CUAUDIT_ROLE_PLAIN = 0,
	CUAUDIT_ROLE_LAUNCH,
	CUAUDIT_ROLE_COPY,
	CUAUDIT_ROLE_MEMSET,
	CUAUDIT_ROLE_ALLOC,
	CUAUDIT_ROLE_FREE,
	CUAUDIT_ROLE_MEMINFO,
	CUAUDIT_ROLE_POOL,
	CUAUDIT_ROLE_SYNC,
	CUAUDIT_ROLE_EVENT_RECORD,
	CUAUDIT_ROLE_GRAPH_LAUNCH,
	CUAUDIT_ROLE_CAPTURE_BEGIN,
	CUAUDIT_ROLE_CAPTURE_END,
	CUAUDIT_ROLE_KERNEL_NAME,
	CUAUDIT_ROLE_PROFILER_START,
	CUAUDIT_ROLE_PROFILER_STOP,
	CUAUDIT_ROLE_VERSION,
	CUAUDIT_ROLE_COUNT
};
#define CUAUDIT_STREAM_LEGACY 0
#define CUAUDIT_STREAM_PER_THREAD 1
#define CUAUDIT_FUNC_CUFUNCTION 0
#define CUAUDIT_FUNC_CUKERNEL 1
#define CUAUDIT_FUNC_HOST 2
#define CUAUDIT_COPY_HTOD 0
#define CUAUDIT_COPY_DTOH 1
#define CUAUDIT_COPY_DTOD 2
#define CUAUDIT_COPY_HTOH 3
#define CUAUDIT_COPY_PEER 4
#define CUAUDIT_COPY_DEFAULT 5
#define CUAUDIT_COPY_UNKNOWN 6
struct cuaudit_launch {
	size_t size;
	const void *func;
	int func_kind;
	unsigned grid[3], block[3];
	unsigned shared_bytes;
	void *stream;
	int stream_flavour;
	int cooperative;
};
struct cuaudit_copy {
	size_t size;
	uint64_t bytes;
	int kind;
	const void *dst, *src;
	void *stream;
	int stream_flavour;
	int async;
};
struct cuaudit_memset {
	size_t size;
	uint64_t bytes;
	void *dst;
	void *stream;
	int stream_flavour;
	int async;
};
/* Internal stand-ins (hooks/gpu_roles_fallback.c), not exported: the public names come with
   the generated table. */
#define cuaudit_role_of cua_fb_role_of
#define cuaudit_call_launch cua_fb_call_launch
#define cuaudit_call_copy cua_fb_call_copy
#define cuaudit_call_memset cua_fb_call_memset
#define cuaudit_call_stream cua_fb_call_stream
#define cuaudit_call_graph_exec cua_fb_call_graph_exec
enum cuaudit_role cuaudit_role_of(unsigned id);
int cuaudit_call_launch(const struct cuaudit_call *call, struct cuaudit_launch *out);
int cuaudit_call_copy(const struct cuaudit_call *call, struct cuaudit_copy *out);
int cuaudit_call_memset(const struct cuaudit_call *call, struct cuaudit_memset *out);
int cuaudit_call_stream(const struct cuaudit_call *call, void **stream, int *flavour);
int cuaudit_call_graph_exec(const struct cuaudit_call *call, void **graph_exec);
#define CUA_GPU_ROLES_FALLBACK 1
#endif

#endif
