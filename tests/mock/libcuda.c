/* SPDX-License-Identifier: MIT */
/* tests/mock/libcuda.c: a deterministic libcuda.so.1 with the real ELF names and ABIs, backed by host memory. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <cudaProfiler.h>
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mockstate.h"
#include "mockgpu.h"

#define EXPORT __attribute__((visibility("default")))
#define MOCK_DRIVER_VERSION 13000
#define MOCK_TOTAL_MEM (16ull << 30)
/* Legacy 32-bit allocations get handles from here: distinct from any _v2 pointer. */
#define MOCK_V1_BASE 0x10000000u


static int initialized;
/* MOCK_DEVICE_COUNT=2 gives a second device, for per-device quotas. */
#define MOCK_MAX_DEVICES 2
static struct CUctx_st primary[MOCK_MAX_DEVICES] = { { .device = 0 }, { .device = 1 } };
static __thread CUcontext current;
static unsigned long long allocated;
static unsigned v1_next = MOCK_V1_BASE;

int mock_device_count(void)
{
	const char *n = getenv("MOCK_DEVICE_COUNT");

	return n && n[0] == '2' ? 2 : 1;
}

/* For tests/mock/libcuda_mem.c: the calling thread's device (-1 without a context), and
   the bytes cuMemGetInfo_v2 reports as taken. */
int mock_current_device(void)
{
	return current ? current->device : -1;
}

void mock_account(long long bytes)
{
	allocated += (unsigned long long)bytes;
}

#define COUNT() mock_count(__func__)
#define NEED_INIT()                                                                            \
	do {                                                                                   \
		if (!initialized)                                                              \
			return CUDA_ERROR_NOT_INITIALIZED;                                     \
	} while (0)

EXPORT CUresult cuInit(unsigned int flags)
{
	COUNT();
	if (flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	initialized = 1;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDriverGetVersion(int *version)
{
	COUNT();
	if (!version)
		return CUDA_ERROR_INVALID_VALUE;
	*version = MOCK_DRIVER_VERSION;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetCount(int *count)
{
	COUNT();
	NEED_INIT();
	*count = mock_device_count();
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
	COUNT();
	NEED_INIT();
	if (ordinal < 0 || ordinal >= mock_device_count())
		return CUDA_ERROR_INVALID_DEVICE;
	*device = ordinal;
	return CUDA_SUCCESS;
}

/* A copy of the mock loaded from a folder named copy2 names its device differently, so a call
   that reaches the wrong copy shows in the result. */
static const char *device_name(void)
{
	Dl_info self;

	if (dladdr((void *)cuInit, &self) && self.dli_fname && strstr(self.dli_fname, "/copy2/"))
		return "cuaudit mock GPU (copy2)";
	return "cuaudit mock GPU";
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
	COUNT();
	NEED_INIT();
	if (dev != 0 || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	strncpy(name, device_name(), (size_t)len - 1);
	name[len - 1] = '\0';
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
	COUNT();
	NEED_INIT();
	if (dev != 0)
		return CUDA_ERROR_INVALID_DEVICE;
	/* Deterministic, attribute-dependent values; and errno set on purpose, as a real
	   driver's internal calls may, so tests can check it reaches the caller unchanged. */
	*pi = 1000 + (int)attrib;
	errno = EAGAIN;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	COUNT();
	NEED_INIT();
	if (dev < 0 || dev >= mock_device_count())
		return CUDA_ERROR_INVALID_DEVICE;
	*pctx = &primary[dev];
	return CUDA_SUCCESS;
}

struct CUctx_st *mock_current_context(void)
{
	return current;
}

/* A reset destroys everything made in the primary context (its events die); the handle
   stays the same, as the real driver's does. */
EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
	COUNT();
	NEED_INIT();
	if (dev < 0 || dev >= mock_device_count())
		return CUDA_ERROR_INVALID_DEVICE;
	primary[dev].gen++;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx)
{
	COUNT();
	NEED_INIT();
	*pctx = current;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
	COUNT();
	NEED_INIT();
	current = ctx;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxGetDevice(CUdevice_v1 *device)
{
	COUNT();
	NEED_INIT();
	if (!current)
		return CUDA_ERROR_INVALID_CONTEXT;
	*device = current->device;
	return CUDA_SUCCESS;
}

/* The 13.0 variant takes the context explicitly; its device number is offset by 100 so a
   call routed to the wrong variant shows in the result. */
EXPORT CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
	COUNT();
	NEED_INIT();
	if (!ctx)
		ctx = current;
	if (!ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	*device = ctx->device + 100;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize)
{
	COUNT();
	NEED_INIT();
	if (!dptr || bytesize == 0)
		return CUDA_ERROR_INVALID_VALUE;
	*dptr = v1_next;
	v1_next += (bytesize + 0xfffu) & ~0xfffu;
	allocated += bytesize;
	return CUDA_SUCCESS;
}

struct block {
	size_t size;
	unsigned char data[];
};

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	struct block *b;

	COUNT();
	NEED_INIT();
	if (!dptr || bytesize == 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (bytesize > MOCK_TOTAL_MEM - allocated)
		return CUDA_ERROR_OUT_OF_MEMORY;
	b = malloc(sizeof(*b) + bytesize);
	if (!b)
		return CUDA_ERROR_OUT_OF_MEMORY;
	b->size = bytesize;
	/* Atomic: threaded tests allocate and free at once and then check what is free. */
	__atomic_add_fetch(&allocated, bytesize, __ATOMIC_RELAXED);
	*dptr = (CUdeviceptr)(uintptr_t)b->data;
	return CUDA_SUCCESS;
}

static struct block *block_of(CUdeviceptr p)
{
	return (struct block *)((unsigned char *)(uintptr_t)p - offsetof(struct block, data));
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	COUNT();
	NEED_INIT();
	if (!dptr)
		return CUDA_ERROR_INVALID_VALUE;
	__atomic_sub_fetch(&allocated, block_of(dptr)->size, __ATOMIC_RELAXED);
	free(block_of(dptr));
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
	COUNT();
	NEED_INIT();
	*free_bytes = MOCK_TOTAL_MEM - __atomic_load_n(&allocated, __ATOMIC_RELAXED);
	*total = MOCK_TOTAL_MEM;
	return CUDA_SUCCESS;
}

static CUresult copy(void *dst, const void *src, size_t n)
{
	if (!dst || !src)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(dst, src, n);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
	COUNT();
	NEED_INIT();
	mock_gpu_work(NULL, 0, 5000000 + 100 * n, "memcpy");
	return copy((void *)(uintptr_t)dst, src, n);
}

EXPORT CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void *src, size_t n)
{
	COUNT();
	NEED_INIT();
	return copy((void *)(uintptr_t)dst, src, n);
}

EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
	COUNT();
	NEED_INIT();
	mock_gpu_work(NULL, 0, 5000000 + 100 * n, "memcpy");
	return copy(dst, (const void *)(uintptr_t)src, n);
}

EXPORT CUresult cuMemcpyDtoH_v2_ptds(void *dst, CUdeviceptr src, size_t n)
{
	COUNT();
	NEED_INIT();
	return copy(dst, (const void *)(uintptr_t)src, n);
}

/* Stream-ordered copies run at once here; the mock's counters say how many bytes each form
   moved (mock_add("bytes:cuMemcpyHtoDAsync_v2", n)), so a test can compare a hook's sums. */
static CUresult copy_async(const char *elf_name, void *dst, const void *src, size_t n)
{
	CUresult rc = copy(dst, src, n);

	if (rc == CUDA_SUCCESS)
		mock_add(elf_name, (long)n);
	return rc;
}

EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
	COUNT();
	NEED_INIT();
	/* Captured: a node of the stream's graph, nothing copied (tests/mock/libcuda_gpu.c). */
	if (!mock_gpu_work(s, 0, 5000000 + 100 * n, "memcpy"))
		return CUDA_SUCCESS;
	return copy_async("bytes:cuMemcpyHtoDAsync_v2", (void *)(uintptr_t)dst, src, n);
}

EXPORT CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
	COUNT();
	NEED_INIT();
	/* Captured: a node of the stream's graph, nothing copied (tests/mock/libcuda_gpu.c). */
	if (!mock_gpu_work(s, 1, 5000000 + 100 * n, "memcpy"))
		return CUDA_SUCCESS;
	return copy_async("bytes:cuMemcpyHtoDAsync_v2_ptsz", (void *)(uintptr_t)dst, src, n);
}

EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
	COUNT();
	NEED_INIT();
	/* Captured: a node of the stream's graph, nothing copied (tests/mock/libcuda_gpu.c). */
	if (!mock_gpu_work(s, 0, 5000000 + 100 * n, "memcpy"))
		return CUDA_SUCCESS;
	return copy_async("bytes:cuMemcpyDtoHAsync_v2", dst, (const void *)(uintptr_t)src, n);
}

/* MOCK_BLOCK_FILE=PATH: a synchronisation (and a memset) waits while PATH exists, as a stream whose work
   never ends would (the live view's hung-call cases). */
static void block_while_file(void)
{
	const char *path = getenv("MOCK_BLOCK_FILE");
	struct timespec ts = { 0, 5000000 };

	while (path && access(path, F_OK) == 0)
		nanosleep(&ts, NULL);
}

EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int ui, size_t n, CUstream s)
{
	(void)s;
	COUNT();
	NEED_INIT();
	if (!dst)
		return CUDA_ERROR_INVALID_VALUE;
	/* A call of four arguments that can hang (the live view's in-flight record). */
	block_while_file();
	for (size_t i = 0; i < n; i++)
		((unsigned *)(uintptr_t)dst)[i] = ui;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned int flags)
{
	struct CUstream_st *s;

	COUNT();
	NEED_INIT();
	s = calloc(1, sizeof(*s));
	if (!s)
		return CUDA_ERROR_OUT_OF_MEMORY;
	s->flags = (int)flags;
	*stream = s;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamSynchronize(CUstream stream)
{
	(void)stream;
	COUNT();
	NEED_INIT();
	block_while_file();
	return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamSynchronize_ptsz(CUstream stream)
{
	(void)stream;
	COUNT();
	NEED_INIT();
	block_while_file();
	return CUDA_SUCCESS;
}

/* A "kernel" is a host function: f(kernelParams) runs once per launch. */
typedef void (*mock_kernel)(void **params, unsigned threads);

static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
		       unsigned by, unsigned bz, void **params)
{
	if (!f)
		return CUDA_ERROR_INVALID_HANDLE;
	((mock_kernel)(void *)f)(params, gx * gy * gz * bx * by * bz);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
			       unsigned int bx, unsigned int by, unsigned int bz,
			       unsigned int shmem, CUstream stream, void **params, void **extra)
{
	(void)shmem, (void)extra;
	COUNT();
	NEED_INIT();
	if (!f)
		return CUDA_ERROR_INVALID_HANDLE;
	/* A grid of N blocks takes N milliseconds of mock GPU time (N units: cuMockKernelUnitNs). */
	if (!mock_gpu_work(stream, 0, mock_kernel_unit_ns() * gx * gy * gz, "kernel"))
		return CUDA_SUCCESS;
	return launch(f, gx, gy, gz, bx, by, bz, params);
}

EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy,
				    unsigned int gz, unsigned int bx, unsigned int by,
				    unsigned int bz, unsigned int shmem, CUstream stream,
				    void **params, void **extra)
{
	(void)shmem, (void)extra;
	COUNT();
	NEED_INIT();
	if (!f)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!mock_gpu_work(stream, 1, mock_kernel_unit_ns() * gx * gy * gz, "kernel"))
		return CUDA_SUCCESS;
	return launch(f, gx, gy, gz, bx, by, bz, params);
}

/* ---------------------------------------------------------------- named kernels */

/* Kernels the mock "module" holds, by mangled name, as real modules do. A CUkernel is a
   pointer to its entry; a CUfunction is the host function itself, as launch() expects. */
static void k_double(void **params, unsigned threads)
{
	int *out = *(int **)params[0];
	const int *in = *(const int **)params[1];
	int n = *(int *)params[2];

	for (int i = 0; i < n && (unsigned)i < threads; i++)
		out[i] = in[i] * 2;
}

static void k_add_one(void **params, unsigned threads)
{
	int *v = *(int **)params[0];
	int n = *(int *)params[1];

	for (int i = 0; i < n && (unsigned)i < threads; i++)
		v[i] += 1;
}

/* The same work under another name, so its CUfunction is its own. */
static void k_mock_only(void **params, unsigned threads)
{
	k_add_one(params, threads);
}

struct CUkern_st {
	const char *name;
	mock_kernel fn;
};

static const struct CUkern_st kernels[] = {
	{ "_Z10vec_doublePiPKii", k_double },
	{ "_Z7add_onePii", k_add_one },
	/* Reached only through cuMockGetFunction, which no header declares: its name comes
	   from cuFuncGetName alone. */
	{ "_Z9mock_onlyPii", k_mock_only },
};

static const struct CUkern_st *kernel_named(const char *name)
{
	for (unsigned i = 0; name && i < sizeof(kernels) / sizeof(kernels[0]); i++)
		if (strcmp(kernels[i].name, name) == 0)
			return &kernels[i];
	return NULL;
}

EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
	const struct CUkern_st *k = kernel_named(name);

	(void)hmod;
	COUNT();
	NEED_INIT();
	if (!hfunc || !k || k == &kernels[2])
		return CUDA_ERROR_NOT_FOUND;
	*hfunc = (CUfunction)(void *)k->fn;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
	const struct CUkern_st *k = kernel_named(name);

	(void)library;
	COUNT();
	NEED_INIT();
	if (!pKernel || !k || k == &kernels[2])
		return CUDA_ERROR_NOT_FOUND;
	*pKernel = (CUkernel)k;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
	COUNT();
	NEED_INIT();
	if (!pFunc || !kernel)
		return CUDA_ERROR_INVALID_HANDLE;
	*pFunc = (CUfunction)(void *)kernel->fn;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuFuncGetName(const char **name, CUfunction hfunc)
{
	COUNT();
	NEED_INIT();
	for (unsigned i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++) {
		if ((void *)kernels[i].fn == (void *)hfunc) {
			*name = kernels[i].name;
			return CUDA_SUCCESS;
		}
	}
	return CUDA_ERROR_INVALID_HANDLE;
}

/* No header declares it: cuaudit passes it through unseen, so a kernel found here is named
   by the cuFuncGetName fallback or not at all. */
EXPORT CUresult cuMockGetFunction(CUfunction *hfunc, const char *name)
{
	const struct CUkern_st *k = kernel_named(name);

	COUNT();
	if (!hfunc || !k)
		return CUDA_ERROR_NOT_FOUND;
	*hfunc = (CUfunction)(void *)k->fn;
	return CUDA_SUCCESS;
}

static const struct {
	CUresult code;
	const char *name;
	const char *text;
} errors[] = {
	{ CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
	{ CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
	{ CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
	{ CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
	{ CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
	{ CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
	{ CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle" },
	{ CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
};

static int error_index(CUresult code)
{
	for (unsigned i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].code == code)
			return (int)i;
	return -1;
}

EXPORT CUresult cuGetErrorName(CUresult error, const char **pstr)
{
	int i = error_index(error);

	COUNT();
	*pstr = i < 0 ? NULL : errors[i].name;
	return i < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

EXPORT CUresult cuGetErrorString(CUresult error, const char **pstr)
{
	int i = error_index(error);

	COUNT();
	*pstr = i < 0 ? NULL : errors[i].text;
	return i < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

/* One export table: a size word, then function pointers, as the real ones are laid out. */
static CUresult table_fn(int *out)
{
	*out = 42;
	return CUDA_SUCCESS;
}

static const struct {
	size_t size;
	CUresult (*fn)(int *);
} export_table = { sizeof(export_table), table_fn };

static const CUuuid known_table = { { 'c', 'u', 'a', 'u', 'd', 'i', 't', '-', 'm', 'o', 'c', 'k',
				      '-', 't', 'b', 'l' } };

EXPORT CUresult cuGetExportTable(const void **table, const CUuuid *id)
{
	COUNT();
	if (!table || !id)
		return CUDA_ERROR_INVALID_VALUE;
	if (memcmp(id, &known_table, sizeof(*id)) != 0) {
		*table = NULL;
		return CUDA_ERROR_INVALID_VALUE;
	}
	*table = &export_table;
	return CUDA_SUCCESS;
}

/* An export no CUDA header declares, as a newer driver would have: eight integer arguments
   and two doubles, so a pass-through that disturbs any register shows. */
/* cudaProfiler.h: the capture range of CUAUDIT_CAPTURE=profiler-api. */
EXPORT CUresult cuProfilerStart(void)
{
	COUNT();
	return CUDA_SUCCESS;
}

EXPORT CUresult cuProfilerStop(void)
{
	COUNT();
	return CUDA_SUCCESS;
}

EXPORT long cuMockFutureCall(long a, long b, long c, long d, long e, long f, long g, long h,
			     double x, double y)
{
	COUNT();
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + (long)(x * 10 + y);
}

/* ---------------------------------------------------------------- cuGetProcAddress */

enum { LEGACY = 0, PER_THREAD = 1 };

struct proc {
	const char *api_name;
	int version;
	int flavour;
	void *fn;
};

#define P(api, ver, fl, elf) { #api, ver, fl, (void *)elf }

CUresult cuGetProcAddress(const char *, void **, int, cuuint64_t);
CUresult cuGetProcAddress_v2(const char *, void **, int, cuuint64_t,
			     CUdriverProcAddressQueryResult *);

static const struct proc procs[] = {
	P(cuInit, 2000, LEGACY, cuInit),
	P(cuDriverGetVersion, 2020, LEGACY, cuDriverGetVersion),
	P(cuDeviceGet, 2000, LEGACY, cuDeviceGet),
	P(cuDeviceGetCount, 2000, LEGACY, cuDeviceGetCount),
	P(cuDeviceGetName, 2000, LEGACY, cuDeviceGetName),
	P(cuDeviceGetAttribute, 2000, LEGACY, cuDeviceGetAttribute),
	P(cuDevicePrimaryCtxRetain, 7000, LEGACY, cuDevicePrimaryCtxRetain),
	P(cuCtxGetCurrent, 4000, LEGACY, cuCtxGetCurrent),
	P(cuCtxSetCurrent, 4000, LEGACY, cuCtxSetCurrent),
	P(cuCtxGetDevice, 2000, LEGACY, cuCtxGetDevice),
	P(cuCtxGetDevice, 13000, LEGACY, cuCtxGetDevice_v2),
	P(cuMemAlloc, 2000, LEGACY, cuMemAlloc),
	P(cuMemAlloc, 3020, LEGACY, cuMemAlloc_v2),
	P(cuMemFree, 3020, LEGACY, cuMemFree_v2),
	P(cuMemAllocManaged, 6000, LEGACY, cuMemAllocManaged),
	P(cuMemGetInfo, 3020, LEGACY, cuMemGetInfo_v2),
	P(cuMemcpyHtoD, 3020, LEGACY, cuMemcpyHtoD_v2),
	P(cuMemcpyHtoD, 7000, PER_THREAD, cuMemcpyHtoD_v2_ptds),
	P(cuMemcpyDtoH, 3020, LEGACY, cuMemcpyDtoH_v2),
	P(cuMemcpyDtoH, 7000, PER_THREAD, cuMemcpyDtoH_v2_ptds),
	P(cuMemcpyHtoDAsync, 3020, LEGACY, cuMemcpyHtoDAsync_v2),
	P(cuMemcpyHtoDAsync, 7000, PER_THREAD, cuMemcpyHtoDAsync_v2_ptsz),
	P(cuMemcpyDtoHAsync, 3020, LEGACY, cuMemcpyDtoHAsync_v2),
	P(cuMemsetD32Async, 3020, LEGACY, cuMemsetD32Async),
	P(cuStreamCreate, 2000, LEGACY, cuStreamCreate),
	P(cuStreamSynchronize, 2000, LEGACY, cuStreamSynchronize),
	P(cuStreamSynchronize, 7000, PER_THREAD, cuStreamSynchronize_ptsz),
	P(cuLaunchKernel, 4000, LEGACY, cuLaunchKernel),
	P(cuLaunchKernel, 7000, PER_THREAD, cuLaunchKernel_ptsz),
	/* What the mock runtime forwards to for streams, events, copies, pinned memory and
	   graphs (libcuda_gpu.c, libcuda_rt.c). */
	P(cuCtxSynchronize, 2000, LEGACY, cuCtxSynchronize),
	P(cuDeviceTotalMem, 3020, LEGACY, cuDeviceTotalMem_v2),
	P(cuStreamCreateWithPriority, 5050, LEGACY, cuStreamCreateWithPriority),
	P(cuStreamDestroy, 4000, LEGACY, cuStreamDestroy_v2),
	P(cuStreamQuery, 2000, LEGACY, cuStreamQuery),
	P(cuStreamQuery, 7000, PER_THREAD, cuStreamQuery_ptsz),
	P(cuStreamWaitEvent, 3020, LEGACY, cuStreamWaitEvent),
	P(cuStreamWaitEvent, 7000, PER_THREAD, cuStreamWaitEvent_ptsz),
	P(cuEventCreate, 2000, LEGACY, cuEventCreate),
	P(cuEventDestroy, 4000, LEGACY, cuEventDestroy_v2),
	P(cuEventRecord, 2000, LEGACY, cuEventRecord),
	P(cuEventRecord, 7000, PER_THREAD, cuEventRecord_ptsz),
	P(cuEventQuery, 2000, LEGACY, cuEventQuery),
	P(cuEventSynchronize, 2000, LEGACY, cuEventSynchronize),
	P(cuEventElapsedTime, 2000, LEGACY, cuEventElapsedTime),
	P(cuEventElapsedTime, 12080, LEGACY, cuEventElapsedTime_v2),
	P(cuMemcpy, 4000, LEGACY, cuMemcpy),
	P(cuMemcpy, 7000, PER_THREAD, cuMemcpy_ptds),
	P(cuMemcpyAsync, 4000, LEGACY, cuMemcpyAsync),
	P(cuMemcpyAsync, 7000, PER_THREAD, cuMemcpyAsync_ptsz),
	P(cuMemcpyDtoHAsync, 7000, PER_THREAD, cuMemcpyDtoHAsync_v2_ptsz),
	P(cuMemsetD8, 3020, LEGACY, cuMemsetD8_v2),
	P(cuMemsetD8, 7000, PER_THREAD, cuMemsetD8_v2_ptds),
	P(cuMemsetD8Async, 3020, LEGACY, cuMemsetD8Async),
	P(cuMemsetD8Async, 7000, PER_THREAD, cuMemsetD8Async_ptsz),
	P(cuMemAllocHost, 3020, LEGACY, cuMemAllocHost_v2),
	P(cuMemHostAlloc, 2020, LEGACY, cuMemHostAlloc),
	P(cuMemFreeHost, 2000, LEGACY, cuMemFreeHost),
	P(cuMemHostRegister, 6050, LEGACY, cuMemHostRegister_v2),
	P(cuMemHostUnregister, 4000, LEGACY, cuMemHostUnregister),
	P(cuMemHostGetDevicePointer, 3020, LEGACY, cuMemHostGetDevicePointer_v2),
	P(cuStreamBeginCapture, 10010, LEGACY, cuStreamBeginCapture_v2),
	P(cuStreamBeginCapture, 10010, PER_THREAD, cuStreamBeginCapture_v2_ptsz),
	P(cuStreamEndCapture, 10000, LEGACY, cuStreamEndCapture),
	P(cuStreamEndCapture, 10000, PER_THREAD, cuStreamEndCapture_ptsz),
	P(cuStreamIsCapturing, 10000, LEGACY, cuStreamIsCapturing),
	P(cuStreamIsCapturing, 10000, PER_THREAD, cuStreamIsCapturing_ptsz),
	P(cuGraphInstantiateWithFlags, 11040, LEGACY, cuGraphInstantiateWithFlags),
	P(cuGraphLaunch, 10000, LEGACY, cuGraphLaunch),
	P(cuGraphLaunch, 10000, PER_THREAD, cuGraphLaunch_ptsz),
	P(cuGraphDestroy, 10000, LEGACY, cuGraphDestroy),
	P(cuGraphExecDestroy, 10000, LEGACY, cuGraphExecDestroy),
	P(cuGraphGetNodes, 10000, LEGACY, cuGraphGetNodes),
	P(cuGraphGetEdges, 10000, LEGACY, cuGraphGetEdges),
	P(cuGraphGetEdges, 12030, LEGACY, cuGraphGetEdges_v2),
	P(cuGraphNodeGetType, 10000, LEGACY, cuGraphNodeGetType),
	P(cuGetErrorName, 6000, LEGACY, cuGetErrorName),
	P(cuGetErrorString, 6000, LEGACY, cuGetErrorString),
	P(cuGetExportTable, 3000, LEGACY, cuGetExportTable),
	P(cuGetProcAddress, 11030, LEGACY, cuGetProcAddress),
	P(cuGetProcAddress, 12000, LEGACY, cuGetProcAddress_v2),
};

/* The documented search: the newest variant at or below the requested version; with the
   per-thread flag a per-thread variant wins over a legacy one of any version. */
static CUresult lookup(const char *symbol, void **pfn, int version, cuuint64_t flags,
		       CUdriverProcAddressQueryResult *status)
{
	const struct proc *best = NULL;
	int known = 0;
	int want_pt = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;

	if (!symbol || !pfn)
		return CUDA_ERROR_INVALID_VALUE;
	if (version > MOCK_DRIVER_VERSION)
		return CUDA_ERROR_INVALID_VALUE;
	*pfn = NULL;
	for (unsigned i = 0; i < sizeof(procs) / sizeof(procs[0]); i++) {
		const struct proc *p = &procs[i];

		if (strcmp(p->api_name, symbol) != 0)
			continue;
		known = 1;
		if (p->version > version || (p->flavour == PER_THREAD && !want_pt))
			continue;
		if (!best || (p->flavour > best->flavour) ||
		    (p->flavour == best->flavour && p->version > best->version))
			best = p;
	}
	if (status)
		*status = best    ? CU_GET_PROC_ADDRESS_SUCCESS
			  : known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
				  : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	if (best)
		*pfn = best->fn;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
	COUNT();
	return lookup(symbol, pfn, version, flags, NULL);
}

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
				    cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
	COUNT();
	return lookup(symbol, pfn, version, flags, status);
}
