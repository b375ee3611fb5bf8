/* SPDX-License-Identifier: MIT */
/* rt/kernelnames.c: the kernel-name registry: names recorded at registration and look-up, read lock-free at launch. */
#include <string.h>
#include <sys/mman.h>
#include "demangle.h"
#include "kernelnames.h"
#include "roles.h"
#include "table.h"

/* Two open-addressing tables of pointers to entries. An entry is written once and then
   published with a compare-and-swap; a new name for a key publishes a new entry in its
   slot, so readers never see one half-written and never take a lock. Entries and copied
   names come from one arena that is never freed. */
#define SLOTS (1u << 18)
#define ARENA_BYTES (64u << 20)

struct entry {
	uintptr_t key;
	const char *name; /* NULL: the driver could not name it either */
	int stable;       /* name lives as long as the process (copied, or an arena string) */
};

static struct entry **tables[2];
static char *arena;
static size_t arena_used;
/* The driver's own naming of a handle, given by the kernels hook (NULL: none asked). */
static cua_kernelnames_resolver resolver;
static int on;

static void *map_lazily(void **where, size_t size)
{
	void *p = __atomic_load_n(where, __ATOMIC_ACQUIRE), *fresh;

	if (p)
		return p;
	fresh = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		     -1, 0);
	if (fresh == MAP_FAILED)
		return NULL;
	if (!__atomic_compare_exchange_n(where, &p, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		munmap(fresh, size);
		return p;
	}
	return fresh;
}

static void *arena_alloc(size_t n)
{
	char *base = map_lazily((void **)&arena, ARENA_BYTES);
	size_t at;

	if (!base)
		return NULL;
	n = (n + 7) & ~(size_t)7;
	at = __atomic_fetch_add(&arena_used, n, __ATOMIC_RELAXED);
	return at + n <= ARENA_BYTES ? base + at : NULL;
}

static unsigned hash(uintptr_t key)
{
	uint64_t k = (uint64_t)key;

	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (unsigned)k & (SLOTS - 1);
}

static struct entry *find(unsigned space, uintptr_t key)
{
	struct entry **t = __atomic_load_n(&tables[space], __ATOMIC_ACQUIRE);

	if (!t)
		return NULL;
	for (unsigned i = 0, h = hash(key); i < SLOTS; i++, h = (h + 1) & (SLOTS - 1)) {
		struct entry *e = __atomic_load_n(&t[h], __ATOMIC_ACQUIRE);

		if (!e)
			return NULL;
		if (e->key == key)
			return e;
	}
	return NULL;
}

static void publish(unsigned space, struct entry *fresh)
{
	struct entry **t = map_lazily((void **)&tables[space], SLOTS * sizeof(*t));

	if (!t)
		return;
	for (unsigned i = 0, h = hash(fresh->key); i < SLOTS; i++, h = (h + 1) & (SLOTS - 1)) {
		struct entry *e = __atomic_load_n(&t[h], __ATOMIC_ACQUIRE);

		while (!e || e->key == fresh->key) {
			if (__atomic_compare_exchange_n(&t[h], &e, fresh, 0, __ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE))
				return;
		}
	}
}

/* A copied name is preceded by a slot for its readable form (NULL until asked). */
#define SLOT_BYTES sizeof(const char *)

static const char *copy_name(const char *name)
{
	size_t n = strlen(name);
	char *c = arena_alloc(SLOT_BYTES + n + 1);

	if (!c)
		return NULL;
	memset(c, 0, SLOT_BYTES);
	memcpy(c + SLOT_BYTES, name, n + 1);
	return c + SLOT_BYTES;
}

static int in_arena(const char *name)
{
	const char *base = __atomic_load_n(&arena, __ATOMIC_ACQUIRE);

	return base && name >= base + SLOT_BYTES && name < base + ARENA_BYTES;
}

/* One output buffer and parser state for the rare first demangling of a name, instead of
   100 KiB more on an application thread's stack. Never waited for: a thread that finds it taken (by another
   thread, or by the thread a signal interrupted, or forever in a child forked meanwhile)
   gets NULL, prints the mangled name this once and leaves the slot for a later call. */
static char readable_out[64 << 10];
static struct cua_demangle_state readable_state;
static int readable_lock;

static const char *demangle_copy(const char *name)
{
	const char *r = name;
	size_t n;

	if (__atomic_exchange_n(&readable_lock, 1, __ATOMIC_ACQUIRE))
		return NULL;
	n = cua_demangle_with(&readable_state, readable_out, sizeof(readable_out), name, strlen(name));
	if (n) {
		char *c = arena_alloc(n + 1);

		if (c) {
			memcpy(c, readable_out, n + 1);
			r = c;
		}
	}
	__atomic_store_n(&readable_lock, 0, __ATOMIC_RELEASE);
	return r;
}

const char *cua_kernelnames_readable(const char *name)
{
	const char **slot, *r;

	if (!cua_demangle_names || !name || !in_arena(name))
		return name;
	slot = (const char **)(uintptr_t)(name - SLOT_BYTES);
	r = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (r)
		return r;
	/* Not mangled, or not understood: the name itself, remembered as such. */
	r = name[0] == '_' && name[1] == 'Z' ? demangle_copy(name) : name;
	if (!r)
		return name;
	{
		const char *none = NULL;

		if (!__atomic_compare_exchange_n(slot, &none, r, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			r = none; /* another thread's copy, the same text */
	}
	return r;
}

void cua_kernelnames_add(unsigned space, uintptr_t key, const char *name, int stable)
{
	struct entry *e = arena_alloc(sizeof(*e));

	if (!e || space > CUA_KERNELNAMES_HANDLES)
		return;
	e->key = key;
	e->stable = 1;
	e->name = name;
	if (name && !stable) {
		e->name = copy_name(name);
		if (!e->name)
			return;
	}
	publish(space, e);
}

const char *cua_kernelnames_lookup(unsigned space, uintptr_t key)
{
	struct entry *e = space <= CUA_KERNELNAMES_HANDLES ? find(space, key) : NULL;

	if (!e)
		return NULL;
	if (!e->stable && e->name) {
		/* Registrations keep the caller's pointer (nvcc's string in the registering
		   library) until the first launch: thousands are registered, few launched. */
		const char *c = copy_name(e->name);

		if (c)
			cua_kernelnames_add(space, key, c, 1);
		return c;
	}
	return e->name;
}

/* Registration: __cudaRegisterFunction keeps the pointer; a launch copies it. */
void cua_kernelnames_register(uintptr_t host_fun, const char *device_name)
{
	struct entry *e = arena_alloc(sizeof(*e));

	if (!e || !host_fun || !device_name)
		return;
	e->key = host_fun;
	e->name = device_name;
	e->stable = 0;
	publish(CUA_KERNELNAMES_HOSTS, e);
}

/* A handle that stands for a host function's kernel (__cudaGetKernel, cudaGetKernel,
   cudaGetFuncBySymbol). */
void cua_kernelnames_alias(uintptr_t handle, uintptr_t host_fun)
{
	const char *name = cua_kernelnames_lookup(CUA_KERNELNAMES_HOSTS, host_fun);

	if (handle && name)
		cua_kernelnames_add(CUA_KERNELNAMES_HANDLES, handle, name, 1);
}

/* The launched function's key and its space, or 0. */
static uintptr_t launch_key(const struct cuaudit_call *c, unsigned *space)
{
	CUAUDIT_OPTS(cuaudit_launch, l);

	if (cua_roles_launch(c->id, c->args, &l))
		return 0;
	/* A runtime launch names its host stub; every other form a driver or runtime handle. */
	*space = l.func_kind == CUAUDIT_FUNC_HOST ? CUA_KERNELNAMES_HOSTS : CUA_KERNELNAMES_HANDLES;
	return (uintptr_t)l.func;
}

const char *cua_kernelnames_of_key(unsigned space, uintptr_t key, int may_ask)
{
	const char *name;

	if (!on || !key || space > CUA_KERNELNAMES_HANDLES)
		return NULL;
	if (find(space, key))
		return cua_kernelnames_lookup(space, key);
	if (space != CUA_KERNELNAMES_HANDLES || !may_ask || !resolver)
		return NULL;
	/* A failure is remembered too, so the driver is asked once per handle. */
	name = resolver(key);
	cua_kernelnames_add(CUA_KERNELNAMES_HANDLES, key, name, 0);
	return name ? cua_kernelnames_lookup(CUA_KERNELNAMES_HANDLES, key) : NULL;
}

static __thread struct {
	uint64_t correlation_id;
	const char *name;
} last __attribute__((tls_model("initial-exec")));

const char *cua_kernelnames_of_call(const struct cuaudit_call *c)
{
	unsigned space;
	uintptr_t key;
	const char *name;

	if (!on || !c->args || !cua_kernelnames_is_launch(c->id))
		return NULL;
	if (last.correlation_id == c->correlation_id && c->correlation_id)
		return last.name;
	key = launch_key(c, &space);
	if (!key)
		return NULL;
	/* The driver is asked only after a launch that succeeded: it accepted the handle (the
	   rule's look-up only where the registry does not know the key). */
	if (find(space, key))
		name = cua_kernelnames_lookup(space, key);
	else
		name = cua_kernelnames_of_key(space, key, c->layer == CUAUDIT_LAYER_DRIVER &&
							  cua_table_succeeded(c));
	last.correlation_id = c->correlation_id;
	last.name = name;
	return name;
}

void cua_kernelnames_enable(cua_kernelnames_resolver ask_driver)
{
	resolver = ask_driver;
	on = 1;
}
