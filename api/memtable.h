/* SPDX-License-Identifier: MIT */
/* api/memtable.h: the generated table of calls that allocate, free, report or pool device memory (policy.tsv's memory verbs). */
#ifndef CUA_MEMTABLE_H
#define CUA_MEMTABLE_H

#include <stdint.h>

enum cua_mem_verb { CUA_MEM_ALLOC = 1, CUA_MEM_FREE, CUA_MEM_INFO, CUA_MEM_POOL };

/* What a device function found: no device memory at all, a device ordinal, or a pool. */
enum cua_mem_dev { CUA_MEM_DEV_NONE = 0, CUA_MEM_DEV_GIVEN, CUA_MEM_DEV_POOL };

/* One call the memory limit handles. Functions it does not need are NULL; each reads the
   call's argument struct. */
struct cua_mem_desc {
	unsigned id;
	int verb; /* enum cua_mem_verb */
	/* The address or handle: after success (alloc, pool) or before the call (free). */
	uint64_t (*key)(const void *args);
	/* Bytes asked before the call, and bytes charged after success; UINT64_MAX on overflow. */
	uint64_t (*size)(const void *args);
	uint64_t (*charged)(const void *args);
	/* The device: NULL for the current context's; else an enum cua_mem_dev, with the
	   ordinal or the pool in *out. */
	int (*device)(const void *args, uint64_t *out);
	/* meminfo: clamps the reported free and total to the quota (cua_mem_clamp). */
	void (*info)(void *args, uint64_t limit, uint64_t used);
	/* alloc: VMM physical memory (policy verb memvmm), reported apart in the memory report. */
	int vmm;
};

extern const struct cua_mem_desc cua_mem_table[];
extern const unsigned cua_mem_count;

/* total = min(total, limit); free = min(free, total - used), never below 0. */
void cua_mem_clamp(uint64_t *free, uint64_t *total, uint64_t limit, uint64_t used);

#endif
