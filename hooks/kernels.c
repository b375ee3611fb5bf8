/* SPDX-License-Identifier: MIT */
/* hooks/kernels.c: the kernel-name registry: names recorded at registration and look-up, read lock-free at launch. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <string.h>
#include <sys/mman.h>
#include "config.h"
#include "dispatch.h"
#include "kernels.h"
#include "callfmt.h"
#include "log.h"
#include "index.h"
#include "procaddress.h"
#include "provenance.h"
#include "roles.h"
#include "table.h"

/* Two open-addressing tables of pointers to entries. An entry is written once and then
   published with a compare-and-swap; a new name for a key publishes a new entry in its
   slot, so readers never see one half-written and never take a lock. Entries and copied
   names come from one arena that is never freed. */
#define SLOTS (1u << 18)
#define ARENA_BYTES (64u << 20)
enum { HOST_FUNCTIONS = 0, HANDLES = 1 };

struct entry {
	uintptr_t key;
	const char *name; /* NULL: the driver could not name it either */
	int stable;       /* name lives as long as the process (copied, or an arena string) */
};

static struct entry **tables[2];
static char *arena;
static size_t arena_used;
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

static const char *copy_name(const char *name)
{
	size_t n = strlen(name);
	char *c = arena_alloc(n + 1);

	if (c)
		memcpy(c, name, n + 1);
	return c;
}

void cua_kernels_add(unsigned space, uintptr_t key, const char *name, int stable)
{
	struct entry *e = arena_alloc(sizeof(*e));

	if (!e || space > HANDLES)
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

const char *cua_kernels_lookup(unsigned space, uintptr_t key)
{
	struct entry *e = space <= HANDLES ? find(space, key) : NULL;

	if (!e)
		return NULL;
	if (!e->stable && e->name) {
		/* Registrations keep the caller's pointer (nvcc's string in the registering
		   library) until the first launch: thousands are registered, few launched. */
		const char *c = copy_name(e->name);

		if (c)
			cua_kernels_add(space, key, c, 1);
		return c;
	}
	return e->name;
}

/* Registration: __cudaRegisterFunction keeps the pointer; a launch copies it. */
static void register_host_function(uintptr_t host_fun, const char *device_name)
{
	struct entry *e = arena_alloc(sizeof(*e));

	if (!e || !host_fun || !device_name)
		return;
	e->key = host_fun;
	e->name = device_name;
	e->stable = 0;
	publish(HOST_FUNCTIONS, e);
}

/* A handle that stands for a host function's kernel (__cudaGetKernel, cudaGetKernel,
   cudaGetFuncBySymbol). */
static void alias_handle(uintptr_t handle, uintptr_t host_fun)
{
	const char *name = cua_kernels_lookup(HOST_FUNCTIONS, host_fun);

	if (handle && name)
		cua_kernels_add(HANDLES, handle, name, 1);
}

static uintptr_t handle_at(const void *p)
{
	uintptr_t v = 0;

	if (p)
		memcpy(&v, p, sizeof(v));
	return v;
}

/* What a kernel-name source (role kernel_name) or a version query (role version) says,
   read through the generated table: this file names no CUDA function. */
static void record_name(const struct cuaudit_call *c)
{
	struct cua_kname k = { 0 };
	const char *name;

	if (cua_roles_kname(c->id, c->args, &k))
		return;
	if (k.form == CUA_KNAME_REGISTER) {
		/* The registration's host function is known even when the call fails. */
		if (!c->skipped)
			register_host_function(k.key, k.name);
		return;
	}
	if (!cua_callfmt_succeeded(c))
		return;
	switch (k.form) {
	case CUA_KNAME_ALIAS:
		alias_handle(handle_at(k.out), k.key);
		break;
	case CUA_KNAME_LOOKUP:
		if (k.name)
			cua_kernels_add(HANDLES, handle_at(k.out), k.name, 0);
		break;
	case CUA_KNAME_DERIVE:
		name = cua_kernels_lookup(HANDLES, k.key);
		if (name)
			cua_kernels_add(HANDLES, handle_at(k.out), name, 1);
		break;
	default:
		break;
	}
}

static void record(const struct cuaudit_call *c, void *ctx)
{
	int layer;
	const int *value = NULL;

	(void)ctx;
	if (!c->args)
		return;
	if (cua_role[c->id] == CUAUDIT_ROLE_KERNEL_NAME)
		record_name(c);
	else if (cua_callfmt_succeeded(c) && cua_roles_version(c->id, c->args, &layer, &value) == 0 &&
		 value)
		cua_provenance_note_version((enum cuaudit_layer)layer, *value);
}

/* The launched function's key and its space, or 0. */
static uintptr_t launch_key(const struct cuaudit_call *c, unsigned *space)
{
	CUAUDIT_OPTS(cuaudit_launch, l);

	if (cua_roles_launch(c->id, c->args, &l))
		return 0;
	/* A runtime launch names its host stub; every other form a driver or runtime handle. */
	*space = l.func_kind == CUAUDIT_FUNC_HOST ? HOST_FUNCTIONS : HANDLES;
	return (uintptr_t)l.func;
}

/* A driver handle nobody looked up (a library's own module code): ask the driver, once. */
static const char *ask_driver(uintptr_t f)
{
	CUresult (*get_name)(const char **, CUfunction) =
		(CUresult(*)(const char **, CUfunction))cua_index_real(CUAUDIT_ID_cuFuncGetName);
	const char *name = NULL;

	if (!get_name || get_name(&name, (CUfunction)f) != CUDA_SUCCESS || !name)
		name = NULL;
	/* A failure is remembered too, so the driver is asked once per handle. */
	cua_kernels_add(HANDLES, f, name, 0);
	return name ? cua_kernels_lookup(HANDLES, f) : NULL;
}

static __thread struct {
	uint64_t correlation_id;
	const char *name;
} last __attribute__((tls_model("initial-exec")));

const char *cua_kernels_of_call(const struct cuaudit_call *c)
{
	unsigned space;
	uintptr_t key;
	const char *name;

	if (!on || !c->args || !cua_kernels_is_launch(c->id))
		return NULL;
	if (last.correlation_id == c->correlation_id && c->correlation_id)
		return last.name;
	key = launch_key(c, &space);
	if (!key)
		return NULL;
	if (find(space, key))
		name = cua_kernels_lookup(space, key);
	else if (space == HANDLES && c->layer == CUAUDIT_LAYER_DRIVER && cua_callfmt_succeeded(c))
		/* Only after a launch that succeeded: the driver accepted the handle. */
		name = ask_driver(key);
	else
		name = NULL;
	last.correlation_id = c->correlation_id;
	last.name = name;
	return name;
}

/* The ids whose role is kernel_name or version, found at init. */
static unsigned record_ids[CUAUDIT_ID_COUNT];

int cua_kernels_init(const struct cua_config *all)
{
	size_t n = 0;

	if (!all->trace[0] && !all->summary[0] && !cua_log_on(CUA_LOG_VERBOSE) &&
	    !all->log_errors)
		return 0;
	for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++)
		if (cua_role[id] == CUAUDIT_ROLE_KERNEL_NAME || cua_role[id] == CUAUDIT_ROLE_VERSION)
			record_ids[n++] = id;
	on = 1;
	{
		CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = record, .ids = record_ids, .nids = n);

		return cua_dispatch_subscribe(&sub);
	}
}
