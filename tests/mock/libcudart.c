/* SPDX-License-Identifier: MIT */
/* tests/mock/libcudart.c: a libcudart.so.13 that reaches the driver the way the real one does: dlopen, one dlsym, then only cuGetProcAddress. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "mockrt.h"
#include "mockstate.h"

/* Built into the executable for the static-cudart case: nothing to export there. */
#ifdef MOCK_STATIC_CUDART
#define EXPORT
#else
#define EXPORT __attribute__((visibility("default")))
#endif
#define MOCK_CUDART_VERSION 13000

typedef CUresult (*gpa4_fn)(const char *, void **, int, cuuint64_t);
typedef CUresult (*gpa5_fn)(const char *, void **, int, cuuint64_t,
			    CUdriverProcAddressQueryResult *);

static struct {
	gpa5_fn gpa;
	CUresult (*init)(unsigned);
	CUresult (*device_get)(CUdevice *, int);
	CUresult (*retain)(CUcontext *, CUdevice);
	CUresult (*set_current)(CUcontext);
	CUresult (*ctx_get_device)(CUdevice *, CUcontext);
	CUresult (*alloc)(CUdeviceptr *, size_t);
	CUresult (*mfree)(CUdeviceptr);
	CUresult (*mem_info)(size_t *, size_t *);
	CUresult (*htod[2])(CUdeviceptr, const void *, size_t);
	CUresult (*dtoh[2])(void *, CUdeviceptr, size_t);
	CUresult (*launch[2])(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
			      unsigned, unsigned, CUstream, void **, void **);
	cudaError_t status;
} drv;

__attribute__((visibility("hidden"))) struct mock_rt_driver mock_rt_drv;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int lookup(const char *api_name, int version, cuuint64_t flags, void *out)
{
	CUdriverProcAddressQueryResult st;

	return drv.gpa(api_name, (void **)out, version, flags, &st) == CUDA_SUCCESS &&
	       st == CU_GET_PROC_ADDRESS_SUCCESS;
}

/* What ordinary programs need beyond the first few calls: streams, events, copies, pinned
   memory, graphs, properties (tests/mock/libcudart_ext.c). */
static int load_more(void)
{
	struct mock_rt_driver *d = &mock_rt_drv;
	int ok = 1;

	ok &= lookup("cuCtxSynchronize", 2000, 0, &d->ctx_sync);
	ok &= lookup("cuDeviceTotalMem", 3020, 0, &d->total_mem);
	ok &= lookup("cuDeviceGetName", 2000, 0, &d->dev_name);
	ok &= lookup("cuDeviceGetAttribute", 2000, 0, &d->dev_attr);
	ok &= lookup("cuDriverGetVersion", 2020, 0, &d->driver_version);
	ok &= lookup("cuStreamCreate", 2000, 0, &d->stream_create);
	ok &= lookup("cuStreamCreateWithPriority", 5050, 0, &d->stream_create_prio);
	ok &= lookup("cuStreamDestroy", 4000, 0, &d->stream_destroy);
	ok &= lookup("cuEventCreate", 2000, 0, &d->event_create);
	ok &= lookup("cuEventDestroy", 4000, 0, &d->event_destroy);
	ok &= lookup("cuEventQuery", 2000, 0, &d->event_query);
	ok &= lookup("cuEventSynchronize", 2000, 0, &d->event_sync);
	ok &= lookup("cuEventElapsedTime", 12080, 0, &d->event_elapsed);
	ok &= lookup("cuMemHostAlloc", 2020, 0, &d->host_alloc);
	ok &= lookup("cuMemAllocHost", 3020, 0, &d->alloc_host);
	ok &= lookup("cuMemFreeHost", 2000, 0, &d->free_host);
	ok &= lookup("cuMemHostRegister", 6050, 0, &d->host_register);
	ok &= lookup("cuMemHostUnregister", 4000, 0, &d->host_unregister);
	ok &= lookup("cuMemHostGetDevicePointer", 3020, 0, &d->host_devptr);
	ok &= lookup("cuMemAllocManaged", 6000, 0, &d->alloc_managed);
	ok &= lookup("cuGraphInstantiateWithFlags", 11040, 0, &d->graph_instantiate);
	ok &= lookup("cuGraphDestroy", 10000, 0, &d->graph_destroy);
	ok &= lookup("cuGraphExecDestroy", 10000, 0, &d->graph_exec_destroy);
	ok &= lookup("cuGraphGetNodes", 10000, 0, &d->graph_nodes);
	ok &= lookup("cuGraphGetEdges", 12030, 0, &d->graph_edges);
	ok &= lookup("cuGraphNodeGetType", 10000, 0, &d->node_type);
	for (int pt = 0; pt < 2; pt++) {
		cuuint64_t flags = pt ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0;

		ok &= lookup("cuStreamSynchronize", pt ? 7000 : 2000, flags, &d->stream_sync[pt]);
		ok &= lookup("cuStreamQuery", pt ? 7000 : 2000, flags, &d->stream_query[pt]);
		ok &= lookup("cuStreamWaitEvent", pt ? 7000 : 3020, flags, &d->stream_wait[pt]);
		ok &= lookup("cuEventRecord", pt ? 7000 : 2000, flags, &d->event_record[pt]);
		ok &= lookup("cuMemcpy", pt ? 7000 : 4000, flags, &d->copy[pt]);
		ok &= lookup("cuMemcpyAsync", pt ? 7000 : 4000, flags, &d->copy_async[pt]);
		ok &= lookup("cuMemcpyHtoDAsync", pt ? 7000 : 3020, flags, &d->htod_async[pt]);
		ok &= lookup("cuMemcpyDtoHAsync", pt ? 7000 : 3020, flags, &d->dtoh_async[pt]);
		ok &= lookup("cuMemsetD8", pt ? 7000 : 3020, flags, &d->memset8[pt]);
		ok &= lookup("cuMemsetD8Async", pt ? 7000 : 3020, flags, &d->memset8_async[pt]);
		ok &= lookup("cuStreamBeginCapture", 10010, flags, &d->capture_begin[pt]);
		ok &= lookup("cuStreamEndCapture", 10000, flags, &d->capture_end[pt]);
		ok &= lookup("cuStreamIsCapturing", 10000, flags, &d->is_capturing[pt]);
		ok &= lookup("cuGraphLaunch", 10000, flags, &d->graph_launch[pt]);
	}
	return ok;
}

/* The order the real runtime uses: the empty probe, cuGetProcAddress itself at 11030 and
   12000, then every entry point it needs, stream calls at flags 0 and 2. */
static void load_driver(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	gpa5_fn first;
	gpa4_fn gpa4 = NULL;
	void *probe = NULL, *check = NULL;
	int ok = 1;

	drv.status = cudaErrorInsufficientDriver;
	if (!h || !(first = (gpa5_fn)dlsym(h, "cuGetProcAddress_v2")))
		return;
	first("", &probe, 0, 0, NULL);
	first("cuGetProcAddress", (void **)&gpa4, 11030, 0, NULL);
	first("cuGetProcAddress", (void **)&drv.gpa, 12000, 0, NULL);
	if (!gpa4 || !drv.gpa)
		return;
	/* The 4-argument form is used once, so its wrapper's ABI is exercised too. */
	ok &= gpa4("cuInit", &check, 2000, 0) == CUDA_SUCCESS && check;
	ok &= lookup("cuInit", 2000, 0, &drv.init);
	ok &= lookup("cuDeviceGet", 2000, 0, &drv.device_get);
	ok &= lookup("cuDevicePrimaryCtxRetain", 7000, 0, &drv.retain);
	ok &= lookup("cuCtxSetCurrent", 4000, 0, &drv.set_current);
	ok &= lookup("cuCtxGetDevice", 13000, 0, &drv.ctx_get_device);
	ok &= lookup("cuMemAlloc", 3020, 0, &drv.alloc);
	ok &= lookup("cuMemFree", 3020, 0, &drv.mfree);
	ok &= lookup("cuMemGetInfo", 3020, 0, &drv.mem_info);
	for (int pt = 0; pt < 2; pt++) {
		cuuint64_t flags = pt ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0;

		ok &= lookup("cuMemcpyHtoD", pt ? 7000 : 3020, flags, &drv.htod[pt]);
		ok &= lookup("cuMemcpyDtoH", pt ? 7000 : 3020, flags, &drv.dtoh[pt]);
		ok &= lookup("cuLaunchKernel", pt ? 7000 : 4000, flags, &drv.launch[pt]);
	}
	ok &= load_more();
	if (!ok)
		return;
	CUdevice dev;
	CUcontext ctx;
	if (drv.init(0) || drv.device_get(&dev, 0) || drv.retain(&ctx, dev) ||
	    drv.set_current(ctx))
		return;
	drv.status = cudaSuccess;
}

static cudaError_t ready(void)
{
	pthread_once(&once, load_driver);
	return drv.status;
}

cudaError_t mock_rt_ready(void)
{
	return ready();
}

/* The runtime's last error, per thread, as the real one keeps it: set by a failing runtime
   call, read and cleared by cudaGetLastError. */
static __thread cudaError_t last_error;

static cudaError_t from_cu(CUresult r)
{
	cudaError_t e;

	switch (r) {
	case CUDA_SUCCESS: return cudaSuccess;
	case CUDA_ERROR_INVALID_VALUE: e = cudaErrorInvalidValue; break;
	case CUDA_ERROR_OUT_OF_MEMORY: e = cudaErrorMemoryAllocation; break;
	/* Not an error: the runtime leaves the last error alone. */
	case CUDA_ERROR_NOT_READY: return cudaErrorNotReady;
	case CUDA_ERROR_INVALID_HANDLE: e = cudaErrorInvalidResourceHandle; break;
	case CUDA_ERROR_INVALID_CONTEXT: e = cudaErrorDeviceUninitialized; break;
	case CUDA_ERROR_CONTEXT_IS_DESTROYED: e = cudaErrorContextIsDestroyed; break;
	case CUDA_ERROR_ILLEGAL_STATE: e = cudaErrorIllegalState; break;
	case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: e = cudaErrorStreamCaptureInvalidated; break;
	case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: e = cudaErrorStreamCaptureUnsupported; break;
	case CUDA_ERROR_NOT_SUPPORTED: e = cudaErrorNotSupported; break;
	default: e = cudaErrorUnknown; break;
	}
	last_error = e;
	return e;
}

cudaError_t mock_rt_from_cu(CUresult r)
{
	return from_cu(r);
}

/* Every runtime function the mock does not implement (the generated weak stubs of
   mock_cudart_stubs.c): counted, named once on stderr, and failed with a CUDA error the
   program can test, as a real runtime fails a call its device cannot do. */
cudaError_t mock_rt_unsupported(const char *elf_name, int *said)
{
	static const char head[] = "cuaudit mock libcudart: ", tail[] =
		" is not implemented by this mock runtime (no GPU here); it returns "
		"cudaErrorNotSupported\n";

	mock_count(elf_name);
	if (!__atomic_exchange_n(said, 1, __ATOMIC_RELAXED)) {
		char line[512];
		size_t n = strlen(elf_name), h = sizeof(head) - 1, t = sizeof(tail) - 1;

		if (h + n + t <= sizeof(line)) {
			memcpy(line, head, h);
			memcpy(line + h, elf_name, n);
			memcpy(line + h + n, tail, t);
			if (write(2, line, h + n + t) < 0)
				line[0] = 0;
		}
	}
	last_error = cudaErrorNotSupported;
	return cudaErrorNotSupported;
}

EXPORT cudaError_t cudaGetLastError(void)
{
	cudaError_t e = last_error;

	mock_count(__func__);
	last_error = cudaSuccess;
	return e;
}

EXPORT cudaError_t cudaPeekAtLastError(void)
{
	mock_count(__func__);
	return last_error;
}

/* A copy loaded from a folder named copy2 reports devices from 10 up: a call that reaches
   the wrong copy of the runtime shows in the result. */
static int find_copy_offset(void)
{
	Dl_info self;

#ifdef MOCK_DEVICE_OFFSET
	/* A runtime linked into a shared object: its devices are told apart the same way. */
	return MOCK_DEVICE_OFFSET;
#endif
	return dladdr((void *)ready, &self) && self.dli_fname &&
			       strstr(self.dli_fname, "/copy2/")
		       ? 10
		       : 0;
}

/* Found once: dladdr scans the object's whole symbol table (over 400 exports), which would
   make each cudaGetDevice a microsecond, where the sampler's tests need a fast call. */
static int copy_offset(void)
{
	static int offset = -1;
	int o = __atomic_load_n(&offset, __ATOMIC_RELAXED);

	if (o < 0) {
		o = find_copy_offset();
		__atomic_store_n(&offset, o, __ATOMIC_RELAXED);
	}
	return o;
}

#define BEGIN()                                                                                \
	do {                                                                                   \
		mock_count(__func__);                                                          \
		if (ready() != cudaSuccess)                                                    \
			return drv.status;                                                     \
	} while (0)

EXPORT cudaError_t cudaGetDevice(int *device)
{
	CUdevice dev;
	CUresult r;

	BEGIN();
	r = drv.ctx_get_device(&dev, NULL);
	if (r == CUDA_SUCCESS)
		*device = dev + copy_offset();
	return from_cu(r);
}

EXPORT cudaError_t cudaMalloc(void **ptr, size_t size)
{
	CUdeviceptr d = 0;
	CUresult r;

	BEGIN();
	/* As the runtime does (CUDA 13.0, measured on an H200): 0 bytes succeed, with no
	   address, and the driver is not asked (its cuMemAlloc refuses 0). */
	if (size == 0 && ptr) {
		*ptr = NULL;
		return cudaSuccess;
	}
	r = drv.alloc(&d, size);
	*ptr = (void *)(uintptr_t)d;
	return from_cu(r);
}

EXPORT cudaError_t cudaFree(void *ptr)
{
	BEGIN();
	return from_cu(drv.mfree((CUdeviceptr)(uintptr_t)ptr));
}

EXPORT cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
	BEGIN();
	return from_cu(drv.mem_info(free_bytes, total));
}

static cudaError_t memcpy_on(int pt, void *dst, const void *src, size_t n,
			     enum cudaMemcpyKind kind)
{
	if (kind == cudaMemcpyHostToDevice)
		return from_cu(drv.htod[pt]((CUdeviceptr)(uintptr_t)dst, src, n));
	if (kind == cudaMemcpyDeviceToHost)
		return from_cu(drv.dtoh[pt](dst, (CUdeviceptr)(uintptr_t)src, n));
	/* Unified addressing: the driver's generic copy tells the sides apart. */
	if (kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault ||
	    kind == cudaMemcpyHostToHost)
		return from_cu(mock_rt_drv.copy[pt]((CUdeviceptr)(uintptr_t)dst,
						    (CUdeviceptr)(uintptr_t)src, n));
	last_error = cudaErrorInvalidMemcpyDirection;
	return cudaErrorInvalidMemcpyDirection;
}

EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
	BEGIN();
	return memcpy_on(0, dst, src, n, kind);
}

EXPORT cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t n,
				   enum cudaMemcpyKind kind)
{
	BEGIN();
	return memcpy_on(1, dst, src, n, kind);
}

static cudaError_t launch_on(int pt, const void *func, dim3 grid, dim3 block, void **args,
			     size_t shmem, cudaStream_t stream)
{
	return from_cu(drv.launch[pt]((CUfunction)(uintptr_t)func, grid.x, grid.y, grid.z,
				      block.x, block.y, block.z, (unsigned)shmem,
				      (CUstream)stream, args, NULL));
}

EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
				    size_t shmem, cudaStream_t stream)
{
	BEGIN();
	return launch_on(0, mock_rt_kernel_of(func), grid, block, args, shmem, stream);
}

EXPORT cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 grid, dim3 block, void **args,
					 size_t shmem, cudaStream_t stream)
{
	BEGIN();
	return launch_on(1, mock_rt_kernel_of(func), grid, block, args, shmem, stream);
}

static cudaError_t entry_point(const char *symbol, void **ptr, int version,
			       unsigned long long flags,
			       enum cudaDriverEntryPointQueryResult *status)
{
	CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	CUresult r = drv.gpa(symbol, ptr, version, flags, &st);

	if (status)
		*status = (enum cudaDriverEntryPointQueryResult)st;
	return from_cu(r);
}

EXPORT cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
					   unsigned long long flags,
					   enum cudaDriverEntryPointQueryResult *driverStatus)
{
	BEGIN();
	return entry_point(symbol, funcPtr, MOCK_CUDART_VERSION, flags, driverStatus);
}

EXPORT cudaError_t cudaGetDriverEntryPointByVersion(
	const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
	enum cudaDriverEntryPointQueryResult *driverStatus)
{
	BEGIN();
	return entry_point(symbol, funcPtr, (int)cudaVersion, flags, driverStatus);
}

/* Per-thread builds call these; the default flag then means the per-thread variants. */
static unsigned long long per_thread(unsigned long long flags)
{
	return flags ? flags : CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
}

EXPORT cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
						unsigned long long flags,
						enum cudaDriverEntryPointQueryResult *driverStatus)
{
	BEGIN();
	return entry_point(symbol, funcPtr, MOCK_CUDART_VERSION, per_thread(flags), driverStatus);
}

EXPORT cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
	const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
	enum cudaDriverEntryPointQueryResult *driverStatus)
{
	BEGIN();
	return entry_point(symbol, funcPtr, (int)cudaVersion, per_thread(flags), driverStatus);
}

/* ---------------------------------------------------------------- nvcc's registration */

/* What nvcc's host code calls: the fat binary's registration, one __cudaRegisterFunction per
   kernel (host stub -> mangled device name), then, since CUDA 13, __cudaGetKernel and
   __cudaLaunchKernel for each <<<>>>. The mock's "device code" is the host stub itself. */
struct CUkern_st {
	const void *host_fun;
	const char *name;
	int nvcc; /* registered by nvcc's own code: its host stub is no mock kernel */
};

/* A fat binary wrapper as nvcc emits it (__fatBinC_Wrapper_t): a program built by nvcc
   registers one with this magic; the mock's own cases register other data. */
#define NVCC_FATBIN_MAGIC 0x466243b1u
static int nvcc_fatbin;

/* What a kernel of an nvcc program does on the mock: nothing (there is no device); the launch
   still goes through the driver, as on a GPU. */
static void nvcc_kernel(void **params, unsigned threads)
{
	(void)params, (void)threads;
}

/* <<<grid, block, shmem, stream>>> as nvcc's host code hands it over: pushed before the
   arguments are evaluated, popped by the kernel's host stub. */
static __thread struct {
	dim3 grid, block;
	size_t shmem;
	void *stream;
	int pushed;
} call_config;

#define MAX_REGISTERED 64
static struct CUkern_st registered[MAX_REGISTERED];
static unsigned nregistered;
static void *fatbin_handle[1];

/* nvcc's generated constructors call this first. With the runtime linked in, its name in the
   symbol table identifies a static runtime; exported by a shared runtime, it and
   cudaGetDriverEntryPoint identify a renamed libcudart-<hash>.so.13. */
EXPORT void **__cudaRegisterFatBinary(void *fatCubin)
{
	mock_count(__func__);
	fatbin_handle[0] = fatCubin;
	nvcc_fatbin = fatCubin && *(const unsigned *)fatCubin == NVCC_FATBIN_MAGIC;
	return fatbin_handle;
}

/* nvcc's generated code calls this once per translation unit after registering. */
EXPORT char __cudaInitModule(void **fatCubinHandle)
{
	(void)fatCubinHandle;
	mock_count(__func__);
	return 1;
}

EXPORT unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
					    void *stream)
{
	mock_count(__func__);
	call_config.grid = gridDim;
	call_config.block = blockDim;
	call_config.shmem = sharedMem;
	call_config.stream = stream;
	call_config.pushed = 1;
	return 0;
}

EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
					      void *stream)
{
	mock_count(__func__);
	if (!call_config.pushed)
		return cudaErrorMissingConfiguration;
	*gridDim = call_config.grid;
	*blockDim = call_config.block;
	*sharedMem = call_config.shmem;
	*(void **)stream = call_config.stream;
	call_config.pushed = 0;
	return cudaSuccess;
}

EXPORT void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
			      const char *deviceName, int ext, size_t size, int constant,
			      int global)
{
	(void)fatCubinHandle, (void)hostVar, (void)deviceAddress, (void)deviceName, (void)ext;
	(void)size, (void)constant, (void)global;
	mock_count(__func__);
}

EXPORT void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
				     char *deviceAddress, const char *deviceName, int ext,
				     size_t size, int constant, int global)
{
	(void)fatCubinHandle, (void)hostVarPtrAddress, (void)deviceAddress, (void)deviceName;
	(void)ext, (void)size, (void)constant, (void)global;
	mock_count(__func__);
}

/* The rest of what a first CUDA program calls: no device, so synchronising waits for nothing
   and memory set stays as it is. */
EXPORT cudaError_t cudaDeviceSynchronize(void)
{
	BEGIN();
	return from_cu(mock_rt_drv.ctx_sync());
}

EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	BEGIN();
	return from_cu(mock_rt_drv.stream_sync[0]((CUstream)stream));
}

EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
	BEGIN();
	return from_cu(mock_rt_drv.stream_sync[1]((CUstream)stream));
}

EXPORT cudaError_t cudaDeviceReset(void)
{
	BEGIN();
	return cudaSuccess;
}

EXPORT cudaError_t cudaGetDeviceCount(int *count)
{
	BEGIN();
	*count = 1;
	return cudaSuccess;
}

EXPORT cudaError_t cudaSetDevice(int device)
{
	BEGIN();
	return device == copy_offset() ? cudaSuccess : cudaErrorInvalidDevice;
}

EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
	BEGIN();
	return from_cu(mock_rt_drv.memset8[0]((CUdeviceptr)(uintptr_t)devPtr, (unsigned char)value,
					      count));
}

EXPORT cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count)
{
	BEGIN();
	return from_cu(mock_rt_drv.memset8[1]((CUdeviceptr)(uintptr_t)devPtr, (unsigned char)value,
					      count));
}

EXPORT const char *cudaGetErrorName(cudaError_t error)
{
	mock_count(__func__);
	switch (error) {
	case cudaSuccess: return "cudaSuccess";
	case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
	case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
	case cudaErrorInvalidDeviceFunction: return "cudaErrorInvalidDeviceFunction";
	case cudaErrorNotSupported: return "cudaErrorNotSupported";
	case cudaErrorNotReady: return "cudaErrorNotReady";
	case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
	case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
	case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
	default: return "cudaErrorUnknown";
	}
}


EXPORT void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
	(void)fatCubinHandle;
	mock_count(__func__);
}

EXPORT void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
	(void)fatCubinHandle;
	mock_count(__func__);
}

EXPORT void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
				   const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
				   dim3 *bDim, dim3 *gDim, int *wSize)
{
	(void)fatCubinHandle, (void)deviceFun, (void)thread_limit, (void)tid, (void)bid;
	(void)bDim, (void)gDim, (void)wSize;
	mock_count(__func__);
	if (nregistered < MAX_REGISTERED)
		registered[nregistered++] = (struct CUkern_st){ hostFun, deviceName, nvcc_fatbin };
}

EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
	mock_count(__func__);
	for (unsigned i = 0; i < nregistered; i++) {
		if (registered[i].host_fun == hostFun) {
			*kernel = &registered[i];
			return cudaSuccess;
		}
	}
	return cudaErrorInvalidDeviceFunction;
}

EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
				      size_t shmem, cudaStream_t stream)
{
	BEGIN();
	if (!kernel)
		return cudaErrorInvalidDeviceFunction;
	return launch_on(0, kernel->nvcc ? (const void *)nvcc_kernel : kernel->host_fun, grid,
			 block, args, shmem, stream);
}

/* nvcc's <<<>>> under --default-stream per-thread. */
EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
					   void **args, size_t shmem, cudaStream_t stream)
{
	BEGIN();
	if (!kernel)
		return cudaErrorInvalidDeviceFunction;
	return launch_on(1, kernel->nvcc ? (const void *)nvcc_kernel : kernel->host_fun, grid,
			 block, args, shmem, stream);
}

/* cudaLaunchKernel((void *)kernel, ...) passes nvcc's host stub: it names the registered
   kernel, as __cudaGetKernel finds it. */
const void *mock_rt_kernel_of(const void *func)
{
	for (unsigned i = 0; i < nregistered; i++)
		if (registered[i].host_fun == func)
			return registered[i].nvcc ? (const void *)nvcc_kernel : func;
	return func;
}

/* Constants: answered without starting the driver, as the real runtime does. */
EXPORT cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
	mock_count(__func__);
	if (!runtimeVersion)
		return cudaErrorInvalidValue;
	*runtimeVersion = MOCK_CUDART_VERSION;
	return cudaSuccess;
}

#ifdef MOCK_STATIC_CUDART
/* What nvcc puts into every object with device code; it survives strip. */
__attribute__((used, section(".nvFatBinSegment"))) static const char fatbin_segment[24];
#endif

EXPORT const char *cudaGetErrorString(cudaError_t error)
{
	mock_count(__func__);
	switch (error) {
	case cudaSuccess: return "no error";
	case cudaErrorMemoryAllocation: return "out of memory";
	case cudaErrorInvalidValue: return "invalid argument";
	case cudaErrorNotSupported: return "operation not supported";
	case cudaErrorNotReady: return "device not ready";
	default: return "unknown error";
	}
}

