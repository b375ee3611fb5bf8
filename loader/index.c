/* SPDX-License-Identifier: MIT */
/* loader/index.c: the export index: real CUDA function addresses by id and by address, published whole with one store. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "dispatch.h"
#include "fmt.h"
#include "log.h"
#include "passthrough.h"
#include "index.h"
#include "table.h"

#define MAP_MAX (CUAUDIT_ID_COUNT + 1024)
#define MAX_RETIRED 64

struct entry {
	uintptr_t addr;
	int32_t id; /* -1: an export without a prototype */
	const char *elf_name;
};

/* One version of the index. Application threads search it with no lock, so a version is
   never edited once published: a load or an unload builds the next one off to the side and
   publishes it with one atomic store. */
struct index {
	unsigned used;
	void *real[CUAUDIT_ID_COUNT]; /* by id, for cuaudit's own calls into the driver */
	struct entry map[];
};

static struct index *current;
static struct index *building;
/* Lookups in flight. A replaced version is freed only at a publish that finds none, so no
   reader can still hold it: a reader counts itself before it loads the pointer, and both
   sides use sequentially consistent order (see docs/design.md, "Library lifecycle"). */
static unsigned readers;
static struct index *retired[MAX_RETIRED];
static unsigned nretired;
/* The span of our own wrapper entry points: a pointer in it was wrapped by an inner lookup
   (cudaGetDriverEntryPoint calls the wrapped cuGetProcAddress). Set before the first publish. */
static uintptr_t wrappers_lo, wrappers_hi;


static const struct index *reader_enter(void)
{
	__atomic_add_fetch(&readers, 1, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&current, __ATOMIC_SEQ_CST);
}

static void reader_leave(void)
{
	__atomic_sub_fetch(&readers, 1, __ATOMIC_SEQ_CST);
}

#define VERSION_BYTES (sizeof(struct index) + MAP_MAX * sizeof(struct entry))

/* mmap, not malloc: the module's code keeps off the allocator (see STYLE.md). */
static struct index *new_version(void)
{
	struct index *v = mmap(NULL, VERSION_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (v == MAP_FAILED)
		return NULL;
	v->used = 0;
	return v;
}

static void copy_where(struct index *dst, const struct index *src, uintptr_t lo, uintptr_t hi)
{
	for (unsigned i = 0; src && i < src->used; i++)
		if (src->map[i].addr < lo || src->map[i].addr >= hi)
			dst->map[dst->used++] = src->map[i];
}

void cua_index_add(const char *elf_name, uintptr_t addr, unsigned layer)
{
	int id = cua_table_find(elf_name);

	if (!building) {
		building = new_version();
		if (!building)
			return;
		copy_where(building, current, 0, 0);
	}
	if (building->used == MAP_MAX)
		return;
	if (id >= 0 && cua_api[id].layer != layer)
		id = -1;
	building->map[building->used++] = (struct entry){ addr, id, elf_name };
}

static int by_addr(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	/* Several names at one address: prefer the one with a prototype. */
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (y->id >= 0) - (x->id >= 0);
}

static void find_wrapper_span(void)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	for (unsigned k = 0; k <= CUA_RAW; k++) {
		for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++) {
			uintptr_t a = (uintptr_t)cua_entry[k][id];

			lo = a < lo ? a : lo;
			hi = a > hi ? a : hi;
		}
	}
	wrappers_lo = lo;
	wrappers_hi = hi;
}

static void publish(struct index *v)
{
	struct index *old;

	qsort(v->map, v->used, sizeof(v->map[0]), by_addr);
	memset(v->real, 0, sizeof(v->real));
	for (unsigned i = v->used; i > 0; i--)
		if (v->map[i - 1].id >= 0)
			v->real[v->map[i - 1].id] = (void *)v->map[i - 1].addr;
	if (!wrappers_hi)
		find_wrapper_span();
	old = __atomic_exchange_n(&current, v, __ATOMIC_SEQ_CST);
	if (old && nretired < MAX_RETIRED)
		retired[nretired++] = old;
	/* else: kept, never freed, never read again: bounded by how often a lookup is in
	   flight at MAX_RETIRED publishes in a row. */
	if (__atomic_load_n(&readers, __ATOMIC_SEQ_CST) == 0) {
		for (unsigned i = 0; i < nretired; i++)
			munmap(retired[i], VERSION_BYTES);
		nretired = 0;
	}
}

void cua_index_seal(void)
{
	struct index *v = building;

	building = NULL;
	if (v)
		publish(v);
}

void cua_index_retire(uintptr_t lo, uintptr_t hi)
{
	struct index *v;

	if (!current || hi <= lo || !(v = new_version()))
		return;
	copy_where(v, current, lo, hi);
	publish(v);
}

void *cua_index_real(unsigned id)
{
	const struct index *v = reader_enter();
	void *real = v && id < CUAUDIT_ID_COUNT ? v->real[id] : NULL;

	reader_leave();
	return real;
}

static int find_in(const struct index *v, uintptr_t addr, const char **elf_name)
{
	unsigned lo = 0, hi = v ? v->used : 0;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (v->map[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!v || lo == v->used || v->map[lo].addr != addr)
		return -2;
	*elf_name = v->map[lo].elf_name;
	return v->map[lo].id;
}

int cua_index_find(uintptr_t addr, const char **elf_name)
{
	int id = find_in(reader_enter(), addr, elf_name);

	reader_leave();
	return id;
}

int cua_index_is_wrapper(uintptr_t addr)
{
	return __atomic_load_n(&current, __ATOMIC_ACQUIRE) && addr >= wrappers_lo &&
	       addr <= wrappers_hi;
}
