/* SPDX-License-Identifier: MIT */
/* record/nvtxbridge.h: the one ABI between the NVTX injection library (nvtx/) and the module. */
#ifndef CUA_NVTXBRIDGE_H
#define CUA_NVTXBRIDGE_H

#include <stddef.h>
#include <stdint.h>

/* The injection library lives in the application's namespace and cannot name the module's
   symbols (docs/facts.md §11). It exports one pointer of this name, zero in its .bss (so no
   relocation ever writes it); the module finds it in the library's own symbol table at
   la_objopen and stores the address of its bridge there, before any of the library's code
   runs. A library that finds it still zero is under no module (or one with NVTX off): it
   only forwards to a chained tool. */
#define CUA_NVTX_BRIDGE_SYMBOL "cuaudit_nvtx_bridge_v1"
#define CUA_NVTX_LIB_NAME "libcuaudit-nvtx.so"
#define CUA_NVTX_BRIDGE_VERSION 1u

/* Name ids: 0 is "no name" (a full name table, an unnamed range); a domain id of 0 is the
   default domain. Every function runs on application threads, never blocks, never
   allocates, and is safe from a signal handler. */
struct cua_nvtx_bridge {
	uint32_t size;    /* sizeof(struct cua_nvtx_bridge) of the module */
	uint32_t version; /* CUA_NVTX_BRIDGE_VERSION */
	/* The id of a name of len bytes (not NUL-terminated), interned on first sight in a
	   bounded table; 0 once the table is full (counted as dropped). */
	uint32_t (*name)(const char *text, size_t len);
	/* A range pushed on the calling thread; returns its nesting level (0 for outermost),
	   as nvtxRangePush returns, or -1 when it could not be kept (counted). */
	int (*push)(uint32_t name, uint32_t domain);
	/* Ends the innermost range of that domain open on the thread; returns its level, or -1
	   when none is open (an unbalanced pop, counted). */
	int (*pop)(uint32_t domain);
	/* A range that may end on another thread: id is what nvtxRangeStart returned. */
	void (*start)(uint64_t id, uint32_t name, uint32_t domain);
	void (*end)(uint64_t id);
	/* An instant event. */
	void (*mark)(uint32_t name, uint32_t domain);
};

#endif
