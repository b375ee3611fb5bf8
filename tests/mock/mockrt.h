/* SPDX-License-Identifier: MIT */
/* tests/mock/mockrt.h: what the mock runtime's files share: the driver entry points it looked up, and its error and readiness helpers. */
#ifndef MOCKRT_H
#define MOCKRT_H

#include <cuda.h>
#include <cuda_runtime_api.h>

/* Each entry point the runtime looked up through cuGetProcAddress when it started, as the
   real one does; [1] is the per-thread-stream variant. */
struct mock_rt_driver {
	CUresult (*ctx_sync)(void);
	CUresult (*total_mem)(size_t *, CUdevice);
	CUresult (*dev_name)(char *, int, CUdevice);
	CUresult (*dev_attr)(int *, CUdevice_attribute, CUdevice);
	CUresult (*driver_version)(int *);
	CUresult (*stream_create)(CUstream *, unsigned);
	CUresult (*stream_create_prio)(CUstream *, unsigned, int);
	CUresult (*stream_destroy)(CUstream);
	CUresult (*stream_sync[2])(CUstream);
	CUresult (*stream_query[2])(CUstream);
	CUresult (*stream_wait[2])(CUstream, CUevent, unsigned);
	CUresult (*event_create)(CUevent *, unsigned);
	CUresult (*event_destroy)(CUevent);
	CUresult (*event_record[2])(CUevent, CUstream);
	CUresult (*event_query)(CUevent);
	CUresult (*event_sync)(CUevent);
	CUresult (*event_elapsed)(float *, CUevent, CUevent);
	CUresult (*copy[2])(CUdeviceptr, CUdeviceptr, size_t);
	CUresult (*copy_async[2])(CUdeviceptr, CUdeviceptr, size_t, CUstream);
	CUresult (*htod_async[2])(CUdeviceptr, const void *, size_t, CUstream);
	CUresult (*dtoh_async[2])(void *, CUdeviceptr, size_t, CUstream);
	CUresult (*memset8[2])(CUdeviceptr, unsigned char, size_t);
	CUresult (*memset8_async[2])(CUdeviceptr, unsigned char, size_t, CUstream);
	CUresult (*host_alloc)(void **, size_t, unsigned);
	CUresult (*alloc_host)(void **, size_t);
	CUresult (*free_host)(void *);
	CUresult (*host_register)(void *, size_t, unsigned);
	CUresult (*host_unregister)(void *);
	CUresult (*host_devptr)(CUdeviceptr *, void *, unsigned);
	CUresult (*alloc_managed)(CUdeviceptr *, size_t, unsigned);
	CUresult (*capture_begin[2])(CUstream, CUstreamCaptureMode);
	CUresult (*capture_end[2])(CUstream, CUgraph *);
	CUresult (*is_capturing[2])(CUstream, CUstreamCaptureStatus *);
	CUresult (*graph_instantiate)(CUgraphExec *, CUgraph, unsigned long long);
	CUresult (*graph_launch[2])(CUgraphExec, CUstream);
	CUresult (*graph_destroy)(CUgraph);
	CUresult (*graph_exec_destroy)(CUgraphExec);
	CUresult (*graph_nodes)(CUgraph, CUgraphNode *, size_t *);
	CUresult (*graph_edges)(CUgraph, CUgraphNode *, CUgraphNode *, CUgraphEdgeData *, size_t *);
	CUresult (*node_type)(CUgraphNode, CUgraphNodeType *);
};

/* Filled by tests/mock/libcudart.c when the runtime starts (mock_rt_ready). */
extern struct mock_rt_driver mock_rt_drv;

/* Starts the runtime once (the driver loaded, the primary context current): cudaSuccess, or
   the error every call then returns. */
cudaError_t mock_rt_ready(void);
/* A driver result as the runtime reports it; a failure becomes the thread's last error. */
cudaError_t mock_rt_from_cu(CUresult r);
/* What a runtime launch of host function 'func' runs: the kernel nvcc's registration names
   for it, or the function itself (the mock's own cases pass mock kernels directly). */
const void *mock_rt_kernel_of(const void *func);

/* Counts the call and returns at once if the runtime cannot start (the calls' prologue). */
#define MOCK_RT_BEGIN()                                                                        \
	do {                                                                                   \
		cudaError_t mock_rt_e_;                                                        \
		mock_count(__func__);                                                          \
		if ((mock_rt_e_ = mock_rt_ready()) != cudaSuccess)                             \
			return mock_rt_e_;                                                     \
	} while (0)

#endif
