/* SPDX-License-Identifier: MIT */
/* tests/mock/libcuda_mem.c: the mock driver's other memory paths (pitch, async, pools, managed, VMM, IPC, totals), each with results of its own. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <stdint.h>
#include <stdlib.h>
#include "mockstate.h"

#define EXPORT __attribute__((visibility("default")))
#define MOCK_TOTAL_MEM (16ull << 30)
/* The 32-bit forms report this total, so a call routed to the wrong variant shows. */
#define MOCK_TOTAL_V1 0xfffff000u
/* Handles and IPC mappings come from ranges no malloc'd pointer uses. */
#define MOCK_HANDLE_BASE 0x5a0000000000ull
#define MOCK_IPC_BASE 0x6b0000000000ull

int mock_current_device(void);
int mock_device_count(void);
void mock_account(long long bytes);

#define COUNT() mock_count(__func__)

/* The layout libcuda.c's cuMemFree_v2 expects: a size word before the data. */
struct block {
	size_t size;
	unsigned char data[];
};

struct CUmemPoolHandle_st {
	int device;
};

static unsigned long long next_handle = MOCK_HANDLE_BASE, next_ipc = MOCK_IPC_BASE;
static struct CUmemPoolHandle_st default_pools[2] = { { 0 }, { 1 } };

static CUresult take(CUdeviceptr *dptr, size_t bytes)
{
	struct block *b;

	if (mock_current_device() < 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!dptr || bytes == 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (bytes > MOCK_TOTAL_MEM || !(b = malloc(sizeof(*b) + bytes)))
		return CUDA_ERROR_OUT_OF_MEMORY;
	b->size = bytes;
	mock_account((long long)bytes);
	*dptr = (CUdeviceptr)(uintptr_t)b->data;
	return CUDA_SUCCESS;
}

static CUresult give(CUdeviceptr dptr)
{
	struct block *b;

	if (!dptr)
		return CUDA_ERROR_INVALID_VALUE;
	b = (struct block *)((unsigned char *)(uintptr_t)dptr - sizeof(struct block));
	mock_account(-(long long)b->size);
	free(b);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemGetInfo(unsigned int *free_bytes, unsigned int *total)
{
	COUNT();
	*free_bytes = MOCK_TOTAL_V1 - 0x1000u;
	*total = MOCK_TOTAL_V1;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceTotalMem(unsigned int *bytes, CUdevice dev)
{
	COUNT();
	if (dev < 0 || dev >= mock_device_count())
		return CUDA_ERROR_INVALID_DEVICE;
	*bytes = MOCK_TOTAL_V1;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	COUNT();
	if (dev < 0 || dev >= mock_device_count())
		return CUDA_ERROR_INVALID_DEVICE;
	*bytes = MOCK_TOTAL_MEM;
	return CUDA_SUCCESS;
}

/* Rows padded to 512 bytes, as a driver aligns them. */
EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
				   unsigned int elem)
{
	size_t p = (width + 511) & ~(size_t)511;

	COUNT();
	if (!pitch || (elem != 4 && elem != 8 && elem != 16) || height == 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (height > MOCK_TOTAL_MEM / (p ? p : 1))
		return CUDA_ERROR_OUT_OF_MEMORY;
	*pitch = p;
	return take(dptr, p * height);
}

EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned int flags)
{
	COUNT();
	if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
		return CUDA_ERROR_INVALID_VALUE;
	return take(dptr, bytes);
}

EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, CUstream stream)
{
	(void)stream;
	COUNT();
	return take(dptr, bytes);
}

EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUstream stream)
{
	(void)stream;
	COUNT();
	return take(dptr, bytes);
}

EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream)
{
	(void)stream;
	COUNT();
	return give(dptr);
}

EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream)
{
	(void)stream;
	COUNT();
	return give(dptr);
}

EXPORT CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
	struct CUmemPoolHandle_st *p;

	COUNT();
	if (!pool || !props || props->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    props->location.id < 0 || props->location.id >= mock_device_count())
		return CUDA_ERROR_INVALID_VALUE;
	if (!(p = malloc(sizeof(*p))))
		return CUDA_ERROR_OUT_OF_MEMORY;
	p->device = props->location.id;
	*pool = p;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev)
{
	COUNT();
	if (!pool || dev < 0 || dev >= mock_device_count())
		return CUDA_ERROR_INVALID_DEVICE;
	*pool = &default_pools[dev];
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
					CUstream stream)
{
	(void)stream;
	COUNT();
	if (!pool)
		return CUDA_ERROR_INVALID_VALUE;
	return take(dptr, bytes);
}

/* Trimming and thresholds change what a pool caches, never what is allocated. */
EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep)
{
	(void)keep;
	COUNT();
	return pool ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
	(void)attr;
	COUNT();
	return pool && value ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
			    const CUmemAllocationProp *prop, unsigned long long flags)
{
	COUNT();
	if (!handle || !prop || flags || size == 0 || size % (2u << 20))
		return CUDA_ERROR_INVALID_VALUE;
	if (prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
	    (prop->location.id < 0 || prop->location.id >= mock_device_count()))
		return CUDA_ERROR_INVALID_DEVICE;
	*handle = next_handle;
	next_handle += 0x1000;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
	COUNT();
	return handle >= MOCK_HANDLE_BASE && handle < next_handle ? CUDA_SUCCESS
								   : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t align, CUdeviceptr addr,
				    unsigned long long flags)
{
	(void)align, (void)addr, (void)flags;
	COUNT();
	*ptr = next_ipc;
	next_ipc += size;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			 CUmemGenericAllocationHandle handle, unsigned long long flags)
{
	(void)size, (void)offset, (void)flags;
	COUNT();
	return ptr && handle ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle,
					       void *os_handle,
					       CUmemAllocationHandleType type)
{
	(void)os_handle, (void)type;
	COUNT();
	*handle = next_handle;
	next_handle += 0x1000;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *dptr, CUipcMemHandle handle,
				      unsigned int flags)
{
	(void)handle, (void)flags;
	COUNT();
	*dptr = next_ipc;
	next_ipc += 0x100000;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
	COUNT();
	return dptr >= MOCK_IPC_BASE ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
