/* SPDX-License-Identifier: MIT */
/* hooks/memlimit.c: the CUAUDIT_MEM_LIMIT hook: a per-device quota on device memory, as both layers see it. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <sys/mman.h>
#include "config.h"
#include "cuaudit_args.h"
#include "dispatch.h"
#include "hooks.h"
#include "log.h"
#include "procaddress.h"
#include "table.h"

/* Live allocations by address (or cuMemCreate handle): open addressing, never resized. */
#define SLOTS (1u << 16)
#define EMPTY 0
#define TOMBSTONE 1

struct slot {
	uint64_t key;
	uint64_t size;
	uint32_t device;
};

static struct slot *live;
static uint64_t used[CUA_MAX_DEVICES];
static int full_warned;

static uint64_t limit_of(unsigned dev)
{
	uint64_t l = dev < CUA_MAX_DEVICES ? cua_cfg.mem_limit_dev[dev] : 0;

	return l ? l : cua_cfg.mem_limit;
}

static unsigned hash(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (unsigned)key & (SLOTS - 1);
}

static void remember(uint64_t key, uint64_t size, unsigned dev)
{
	for (unsigned i = 0, h = hash(key); i < SLOTS; i++, h = (h + 1) & (SLOTS - 1)) {
		uint64_t k = __atomic_load_n(&live[h].key, __ATOMIC_ACQUIRE);

		if ((k == EMPTY || k == TOMBSTONE) &&
		    __atomic_compare_exchange_n(&live[h].key, &k, key, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			live[h].size = size;
			live[h].device = dev;
			return;
		}
	}
	if (!full_warned++)
		cua_log_msg(CUA_LOG_WARN, "CUAUDIT_MEM_LIMIT tracks at most 65536 live allocations;"
			    " later frees are not credited", NULL);
}

/* Removes key; returns its size and device, or 0. */
static uint64_t forget(uint64_t key, unsigned *dev)
{
	for (unsigned i = 0, h = hash(key); i < SLOTS; i++, h = (h + 1) & (SLOTS - 1)) {
		uint64_t k = __atomic_load_n(&live[h].key, __ATOMIC_ACQUIRE);

		if (k == EMPTY)
			return 0;
		if (k == key) {
			uint64_t size = live[h].size;

			*dev = live[h].device;
			__atomic_store_n(&live[h].key, TOMBSTONE, __ATOMIC_RELEASE);
			return size;
		}
	}
	return 0;
}

/* The current context's device, through the driver's own cuCtxGetDevice. */
static unsigned current_device(void)
{
	/* Not cached: the driver may be unloaded and loaded again at another address. */
	CUresult (*get_device)(CUdevice *) =
		(CUresult(*)(CUdevice *))cua_procaddress_real(CUAUDIT_ID_cuCtxGetDevice);
	CUdevice dev = 0;

	if (!get_device || get_device(&dev) != CUDA_SUCCESS || dev < 0 || dev >= CUA_MAX_DEVICES)
		return 0;
	return (unsigned)dev;
}

/* What an allocation asks for before the call (pitch calls: the unpadded size). */
static int requested(const struct cuaudit_call *c, uint64_t *size)
{
	switch (c->id) {
#define REQ(elf, expr)                                                                          \
	case CUAUDIT_ID_##elf: {                                                               \
		const struct cuaudit_args_##elf *a = c->args;                                  \
		*size = (uint64_t)(expr);                                                      \
		return 1;                                                                      \
	}
	REQ(cuMemAlloc, a->bytesize)
	REQ(cuMemAlloc_v2, a->bytesize)
	REQ(cuMemAllocPitch, (uint64_t)a->WidthInBytes * a->Height)
	REQ(cuMemAllocPitch_v2, (uint64_t)a->WidthInBytes * a->Height)
	REQ(cuMemAllocAsync, a->bytesize)
	REQ(cuMemAllocAsync_ptsz, a->bytesize)
	REQ(cuMemAllocFromPoolAsync, a->bytesize)
	REQ(cuMemAllocFromPoolAsync_ptsz, a->bytesize)
	REQ(cuMemAllocManaged, a->bytesize)
	REQ(cuMemCreate, a->size)
	REQ(cudaMalloc, a->size)
	REQ(cudaMallocPitch, (uint64_t)a->width * a->height)
	REQ(cudaMalloc3D, (uint64_t)a->extent.width * a->extent.height * a->extent.depth)
	REQ(cudaMallocAsync, a->size)
	REQ(cudaMallocAsync_ptsz, a->size)
	REQ(cudaMallocFromPoolAsync, a->size)
	REQ(cudaMallocFromPoolAsync_ptsz, a->size)
	REQ(cudaMallocManaged, a->size)
#undef REQ
	default:
		return 0;
	}
}

/* After a successful allocation: its key and actual size. */
static uint64_t allocated(const struct cuaudit_call *c, uint64_t *size)
{
	switch (c->id) {
#define GOT(elf, key, expr)                                                                     \
	case CUAUDIT_ID_##elf: {                                                               \
		const struct cuaudit_args_##elf *a = c->args;                                  \
		*size = (uint64_t)(expr);                                                      \
		return (uint64_t)(key);                                                        \
	}
	GOT(cuMemAlloc, *a->dptr, a->bytesize)
	GOT(cuMemAlloc_v2, *a->dptr, a->bytesize)
	GOT(cuMemAllocPitch, *a->dptr, (uint64_t)*a->pPitch * a->Height)
	GOT(cuMemAllocPitch_v2, *a->dptr, (uint64_t)*a->pPitch * a->Height)
	GOT(cuMemAllocAsync, *a->dptr, a->bytesize)
	GOT(cuMemAllocAsync_ptsz, *a->dptr, a->bytesize)
	GOT(cuMemAllocFromPoolAsync, *a->dptr, a->bytesize)
	GOT(cuMemAllocFromPoolAsync_ptsz, *a->dptr, a->bytesize)
	GOT(cuMemAllocManaged, *a->dptr, a->bytesize)
	GOT(cuMemCreate, *a->handle, a->size)
	GOT(cudaMalloc, (uintptr_t)*a->devPtr, a->size)
	GOT(cudaMallocPitch, (uintptr_t)*a->devPtr, (uint64_t)*a->pitch * a->height)
	GOT(cudaMalloc3D, (uintptr_t)a->pitchedDevPtr->ptr,
	    (uint64_t)a->pitchedDevPtr->pitch * a->extent.height * a->extent.depth)
	GOT(cudaMallocAsync, (uintptr_t)*a->devPtr, a->size)
	GOT(cudaMallocAsync_ptsz, (uintptr_t)*a->devPtr, a->size)
	GOT(cudaMallocFromPoolAsync, (uintptr_t)*a->ptr, a->size)
	GOT(cudaMallocFromPoolAsync_ptsz, (uintptr_t)*a->ptr, a->size)
	GOT(cudaMallocManaged, (uintptr_t)*a->devPtr, a->size)
#undef GOT
	default:
		return 0;
	}
}

/* The key a free releases, or 0 if the call is no free. */
static uint64_t freed(const struct cuaudit_call *c)
{
	switch (c->id) {
#define FREE(elf, key)                                                                          \
	case CUAUDIT_ID_##elf: {                                                               \
		const struct cuaudit_args_##elf *a = c->args;                                  \
		return (uint64_t)(key);                                                        \
	}
	FREE(cuMemFree, a->dptr)
	FREE(cuMemFree_v2, a->dptr)
	FREE(cuMemFreeAsync, a->dptr)
	FREE(cuMemFreeAsync_ptsz, a->dptr)
	FREE(cuMemRelease, a->handle)
	FREE(cudaFree, (uintptr_t)a->devPtr)
	FREE(cudaFreeAsync, (uintptr_t)a->devPtr)
	FREE(cudaFreeAsync_ptsz, (uintptr_t)a->devPtr)
#undef FREE
	default:
		return 0;
	}
}

static int out_of_memory(unsigned layer)
{
	return layer == CUAUDIT_LAYER_DRIVER ? (int)CUDA_ERROR_OUT_OF_MEMORY
					     : (int)cudaErrorMemoryAllocation;
}

/* user slot: (device << 56) | reserved bytes, kept from enter to exit. */
static int mem_enter(struct cuaudit_call *c, void *ctx)
{
	uint64_t size, limit;
	unsigned dev;

	(void)ctx;
	/* A runtime allocation's own driver allocation is already counted: outer calls only. */
	if (c->depth || !requested(c, &size))
		return CUAUDIT_CALL_REAL;
	dev = current_device();
	limit = limit_of(dev);
	if (!limit)
		return CUAUDIT_CALL_REAL;
	if (__atomic_add_fetch(&used[dev], size, __ATOMIC_ACQ_REL) > limit) {
		__atomic_sub_fetch(&used[dev], size, __ATOMIC_ACQ_REL);
		c->result = (uint64_t)(int64_t)out_of_memory(c->layer);
		return CUAUDIT_SKIP_REAL;
	}
	*c->user = (uint64_t)dev << 56 | size;
	return CUAUDIT_CALL_REAL;
}

static void adjust_info(const struct cuaudit_call *c)
{
	unsigned dev = current_device();
	uint64_t limit = limit_of(dev), u, left;

	if (!limit)
		return;
	u = __atomic_load_n(&used[dev], __ATOMIC_ACQUIRE);
	left = u < limit ? limit - u : 0;
	switch (c->id) {
	case CUAUDIT_ID_cuMemGetInfo: {
		const struct cuaudit_args_cuMemGetInfo *a = c->args;

		if (*a->free > left)
			*a->free = (unsigned)left;
		*a->total = (unsigned)(limit > 0xffffffffu ? 0xffffffffu : limit);
		break;
	}
	case CUAUDIT_ID_cuMemGetInfo_v2: {
		const struct cuaudit_args_cuMemGetInfo_v2 *a = c->args;

		if (*a->free > left)
			*a->free = left;
		*a->total = limit;
		break;
	}
	case CUAUDIT_ID_cudaMemGetInfo: {
		const struct cuaudit_args_cudaMemGetInfo *a = c->args;

		if (*a->free > left)
			*a->free = left;
		*a->total = limit;
		break;
	}
	default:
		break;
	}
}

static void mem_exit(const struct cuaudit_call *c, void *ctx)
{
	uint64_t size = 0, key;
	unsigned dev;

	(void)ctx;
	if (c->depth || c->skipped)
		return;
	if ((int)c->result != 0) {
		/* A failed allocation gives its reservation back. */
		if (*c->user)
			__atomic_sub_fetch(&used[*c->user >> 56], *c->user & ((1ull << 56) - 1),
					   __ATOMIC_ACQ_REL);
		return;
	}
	if (*c->user) {
		uint64_t reserved = *c->user & ((1ull << 56) - 1);

		dev = (unsigned)(*c->user >> 56);
		key = allocated(c, &size);
		/* Pitch allocations may pad: charge what was really given. */
		if (size != reserved)
			__atomic_add_fetch(&used[dev], size - reserved, __ATOMIC_ACQ_REL);
		remember(key, size, dev);
		return;
	}
	key = freed(c);
	if (key && (size = forget(key, &dev)))
		__atomic_sub_fetch(&used[dev], size, __ATOMIC_ACQ_REL);
	else if (c->id == CUAUDIT_ID_cuMemGetInfo || c->id == CUAUDIT_ID_cuMemGetInfo_v2 ||
		 c->id == CUAUDIT_ID_cudaMemGetInfo)
		adjust_info(c);
}

int cua_memlimit_init(void)
{
	static const char *const names[] = {
		"cuMemAlloc", "cuMemAlloc_v2", "cuMemAllocPitch", "cuMemAllocPitch_v2",
		"cuMemAllocAsync", "cuMemAllocAsync_ptsz", "cuMemAllocFromPoolAsync",
		"cuMemAllocFromPoolAsync_ptsz", "cuMemAllocManaged", "cuMemCreate",
		"cudaMalloc", "cudaMallocPitch", "cudaMalloc3D", "cudaMallocAsync",
		"cudaMallocAsync_ptsz", "cudaMallocFromPoolAsync", "cudaMallocFromPoolAsync_ptsz",
		"cudaMallocManaged",
		"cuMemFree", "cuMemFree_v2", "cuMemFreeAsync", "cuMemFreeAsync_ptsz", "cuMemRelease",
		"cudaFree", "cudaFreeAsync", "cudaFreeAsync_ptsz",
		"cuMemGetInfo", "cuMemGetInfo_v2", "cudaMemGetInfo",
	};
	CUAUDIT_OPTS(cuaudit_subscription, sub, .enter = mem_enter, .exit = mem_exit,
		     .elf_names = names, .nnames = sizeof(names) / sizeof(names[0]));
	int any = cua_cfg.mem_limit != 0;

	for (unsigned d = 0; d < CUA_MAX_DEVICES; d++)
		any |= cua_cfg.mem_limit_dev[d] != 0;
	if (!any)
		return 0;
	live = mmap(NULL, sizeof(*live) * SLOTS, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (live == MAP_FAILED) {
		live = NULL;
		return -1;
	}
	return cua_dispatch_subscribe(&sub);
}
