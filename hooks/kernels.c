/* SPDX-License-Identifier: MIT */
/* hooks/kernels.c: the kernel-name registry: names recorded at registration and look-up, read lock-free at launch. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <string.h>
#include <sys/mman.h>
#include "config.h"
#include "cuaudit_args.h"
#include "dispatch.h"
#include "kernels.h"
#include "callfmt.h"
#include "log.h"
#include "index.h"
#include "procaddress.h"
#include "provenance.h"
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

uint8_t cua_kernels_launch_mask[(CUAUDIT_ID_COUNT + 7) / 8];
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

#define ARGS(elf) const struct cuaudit_args_##elf *a = c->args

static void record(const struct cuaudit_call *c, void *ctx)
{
	(void)ctx;
	if (c->id == CUAUDIT_ID___cudaRegisterFunction) {
		ARGS(__cudaRegisterFunction);
		if (!c->skipped)
			register_host_function((uintptr_t)a->hostFun, a->deviceName);
		return;
	}
	if (!cua_callfmt_succeeded(c))
		return;
	switch (c->id) {
	case CUAUDIT_ID___cudaGetKernel: {
		ARGS(__cudaGetKernel);
		alias_handle(handle_at(a->arg0), (uintptr_t)a->arg1);
		break;
	}
	case CUAUDIT_ID_cudaGetKernel: {
		ARGS(cudaGetKernel);
		alias_handle(handle_at(a->kernelPtr), (uintptr_t)a->entryFuncAddr);
		break;
	}
	case CUAUDIT_ID_cudaGetFuncBySymbol: {
		ARGS(cudaGetFuncBySymbol);
		alias_handle(handle_at(a->functionPtr), (uintptr_t)a->symbolPtr);
		break;
	}
	case CUAUDIT_ID_cuModuleGetFunction: {
		ARGS(cuModuleGetFunction);
		if (a->name)
			cua_kernels_add(HANDLES, handle_at(a->hfunc), a->name, 0);
		break;
	}
	case CUAUDIT_ID_cuLibraryGetKernel: {
		ARGS(cuLibraryGetKernel);
		if (a->name)
			cua_kernels_add(HANDLES, handle_at(a->pKernel), a->name, 0);
		break;
	}
	case CUAUDIT_ID_cuKernelGetFunction: {
		ARGS(cuKernelGetFunction);
		const char *name = cua_kernels_lookup(HANDLES, (uintptr_t)a->kernel);

		if (name)
			cua_kernels_add(HANDLES, handle_at(a->pFunc), name, 1);
		break;
	}
	case CUAUDIT_ID_cuDriverGetVersion: {
		ARGS(cuDriverGetVersion);
		if (a->driverVersion)
			cua_provenance_note_version(CUAUDIT_LAYER_DRIVER, *a->driverVersion);
		break;
	}
	case CUAUDIT_ID_cudaDriverGetVersion: {
		ARGS(cudaDriverGetVersion);
		if (a->driverVersion)
			cua_provenance_note_version(CUAUDIT_LAYER_DRIVER, *a->driverVersion);
		break;
	}
	case CUAUDIT_ID_cudaRuntimeGetVersion: {
		ARGS(cudaRuntimeGetVersion);
		if (a->runtimeVersion)
			cua_provenance_note_version(CUAUDIT_LAYER_RUNTIME, *a->runtimeVersion);
		break;
	}
	default:
		break;
	}
}

/* The launched function's key and its space, or 0. */
static uintptr_t launch_key(const struct cuaudit_call *c, unsigned *space)
{
	*space = HANDLES;
	switch (c->id) {
#define KEY(elf, field, sp)                                                                     \
	case CUAUDIT_ID_##elf: {                                                               \
		ARGS(elf);                                                                     \
		*space = sp;                                                                   \
		return (uintptr_t)a->field;                                                    \
	}
	KEY(cudaLaunchKernel, func, HOST_FUNCTIONS)
	KEY(cudaLaunchKernel_ptsz, func, HOST_FUNCTIONS)
	KEY(cudaLaunchCooperativeKernel, func, HOST_FUNCTIONS)
	KEY(cudaLaunchCooperativeKernel_ptsz, func, HOST_FUNCTIONS)
	KEY(cudaLaunchKernelExC, func, HOST_FUNCTIONS)
	KEY(cudaLaunchKernelExC_ptsz, func, HOST_FUNCTIONS)
	KEY(__cudaLaunchKernel, kernel, HANDLES)
	KEY(__cudaLaunchKernel_ptsz, kernel, HANDLES)
	KEY(cuLaunchKernel, f, HANDLES)
	KEY(cuLaunchKernel_ptsz, f, HANDLES)
	KEY(cuLaunchKernelEx, f, HANDLES)
	KEY(cuLaunchKernelEx_ptsz, f, HANDLES)
	KEY(cuLaunchCooperativeKernel, f, HANDLES)
	KEY(cuLaunchCooperativeKernel_ptsz, f, HANDLES)
	KEY(cuLaunch, f, HANDLES)
	KEY(cuLaunchGrid, f, HANDLES)
	KEY(cuLaunchGridAsync, f, HANDLES)
#undef KEY
	default:
		return 0;
	}
}

static const unsigned launch_ids[] = {
	CUAUDIT_ID_cudaLaunchKernel, CUAUDIT_ID_cudaLaunchKernel_ptsz,
	CUAUDIT_ID_cudaLaunchCooperativeKernel, CUAUDIT_ID_cudaLaunchCooperativeKernel_ptsz,
	CUAUDIT_ID_cudaLaunchKernelExC, CUAUDIT_ID_cudaLaunchKernelExC_ptsz,
	CUAUDIT_ID___cudaLaunchKernel, CUAUDIT_ID___cudaLaunchKernel_ptsz,
	CUAUDIT_ID_cuLaunchKernel, CUAUDIT_ID_cuLaunchKernel_ptsz, CUAUDIT_ID_cuLaunchKernelEx,
	CUAUDIT_ID_cuLaunchKernelEx_ptsz, CUAUDIT_ID_cuLaunchCooperativeKernel,
	CUAUDIT_ID_cuLaunchCooperativeKernel_ptsz, CUAUDIT_ID_cuLaunch, CUAUDIT_ID_cuLaunchGrid,
	CUAUDIT_ID_cuLaunchGridAsync,
};

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

static const unsigned record_ids[] = {
	CUAUDIT_ID___cudaRegisterFunction, CUAUDIT_ID___cudaGetKernel, CUAUDIT_ID_cudaGetKernel,
	CUAUDIT_ID_cudaGetFuncBySymbol, CUAUDIT_ID_cuModuleGetFunction,
	CUAUDIT_ID_cuLibraryGetKernel, CUAUDIT_ID_cuKernelGetFunction,
	CUAUDIT_ID_cuDriverGetVersion, CUAUDIT_ID_cudaDriverGetVersion,
	CUAUDIT_ID_cudaRuntimeGetVersion,
};

int cua_kernels_init(const struct cua_config *all)
{
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = record, .ids = record_ids,
		     .nids = sizeof(record_ids) / sizeof(record_ids[0]));

	if (!all->trace[0] && !all->summary[0] && !cua_log_on(CUA_LOG_VERBOSE) &&
	    !all->log_errors && !all->gpu_time)
		return 0;
	for (unsigned i = 0; i < sizeof(launch_ids) / sizeof(launch_ids[0]); i++)
		cua_kernels_launch_mask[launch_ids[i] >> 3] |= (uint8_t)(1u << (launch_ids[i] & 7));
	on = 1;
	return cua_dispatch_subscribe(&sub);
}
