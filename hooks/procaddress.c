/* SPDX-License-Identifier: MIT */
/* hooks/procaddress.c: hands out wrappers for the driver pointers cuGetProcAddress and its kin return. */
#include <stdlib.h>
#include "dispatch.h"
#include "fmt.h"
#include "log.h"
#include "passthrough.h"
#include "procaddress.h"
#include "table.h"

#define MAP_MAX (CUAUDIT_ID_COUNT + 1024)

struct entry {
	uintptr_t addr;
	int32_t id; /* -1: an export without a prototype */
	const char *elf_name;
};

static struct entry map[MAP_MAX];
static unsigned used;
/* The span of our own wrapper entry points: a pointer in it was wrapped by an inner lookup
   (cudaGetDriverEntryPoint calls the wrapped cuGetProcAddress). */
static uintptr_t wrappers_lo, wrappers_hi;
static uint64_t handed_out[2];

uint64_t cua_procaddress_handed_out(unsigned layer)
{
	return layer < 2 ? __atomic_load_n(&handed_out[layer], __ATOMIC_RELAXED) : 0;
}

void cua_procaddress_add(const char *elf_name, uintptr_t addr, unsigned layer)
{
	int id = cua_table_find(elf_name);

	if (used == MAP_MAX)
		return;
	if (id >= 0 && cua_api[id].layer != layer)
		id = -1;
	map[used++] = (struct entry){ addr, id, elf_name };
}

static int by_addr(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	/* Several names at one address: prefer the one with a prototype. */
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (y->id >= 0) - (x->id >= 0);
}

void cua_procaddress_seal(void)
{
	qsort(map, used, sizeof(map[0]), by_addr);
	wrappers_lo = UINTPTR_MAX;
	for (unsigned k = 0; k <= CUA_RAW; k++) {
		for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++) {
			uintptr_t a = (uintptr_t)cua_entry[k][id];

			wrappers_lo = a < wrappers_lo ? a : wrappers_lo;
			wrappers_hi = a > wrappers_hi ? a : wrappers_hi;
		}
	}
}

void *cua_procaddress_real(unsigned id)
{
	for (unsigned i = 0; i < used; i++)
		if (map[i].id == (int32_t)id)
			return (void *)map[i].addr;
	return NULL;
}

int cua_procaddress_find(uintptr_t addr, const char **elf_name)
{
	unsigned lo = 0, hi = used;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (map[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == used || map[lo].addr != addr)
		return -2;
	*elf_name = map[lo].elf_name;
	return map[lo].id;
}

static void log_lookup(const char *symbol, long version, uint64_t flags, int result,
		       const char *outcome, const char *elf_name)
{
	char line[512];
	struct cua_buf b = CUA_BUF(line);

	cua_log_begin(&b, CUA_LOG_DEBUG);
	cua_buf_str(&b, "lookup ");
	cua_buf_quoted(&b, symbol, 128);
	if (version >= 0) {
		cua_buf_str(&b, " version ");
		cua_buf_i64(&b, version);
	}
	cua_buf_str(&b, " flags ");
	cua_buf_u64(&b, flags);
	cua_buf_str(&b, " result ");
	cua_buf_i64(&b, result);
	cua_buf_str(&b, ": ");
	cua_buf_str(&b, outcome);
	if (elf_name) {
		cua_buf_char(&b, ' ');
		cua_buf_str(&b, elf_name);
	}
	cua_log_end(&b);
}

void cua_procaddress_wrap(const char *symbol, long version, uint64_t flags, void **pointer,
			  int result)
{
	const char *elf_name = NULL;
	int id;

	if (result != 0 || !pointer || !*pointer) {
		if (cua_log_on(CUA_LOG_DEBUG))
			log_lookup(symbol, version, flags, result, "no pointer", NULL);
		return;
	}
	if ((uintptr_t)*pointer >= wrappers_lo && (uintptr_t)*pointer <= wrappers_hi) {
		if (cua_log_on(CUA_LOG_DEBUG))
			log_lookup(symbol, version, flags, result, "already wrapped", NULL);
		return;
	}
	id = cua_procaddress_find((uintptr_t)*pointer, &elf_name);
	if (id >= 0) {
		__atomic_store_n(&cua_real[id], *pointer, __ATOMIC_RELEASE);
		*pointer = (void *)cua_wrapper(CUAUDIT_BIND_PROCADDRESS, id);
		__atomic_add_fetch(&handed_out[cua_api[id].layer], 1, __ATOMIC_RELAXED);
		if (cua_log_on(CUA_LOG_DEBUG))
			log_lookup(symbol, version, flags, result, "wrapped", elf_name);
		return;
	}
	if (id == -1) {
		void *stub = cua_pt_get(elf_name, *pointer);

		if (stub)
			*pointer = stub;
		if (cua_log_on(CUA_LOG_DEBUG))
			log_lookup(symbol, version, flags, result,
				   stub ? "no prototype, counting pass-through" : "passed through",
				   elf_name);
		return;
	}
	if (cua_log_on(CUA_LOG_DEBUG))
		log_lookup(symbol, version, flags, result, "passed through, not an export", NULL);
}
