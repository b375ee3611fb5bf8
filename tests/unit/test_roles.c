/* SPDX-License-Identifier: MIT */
/* tests/unit/test_roles.c: the semantics table: every id has a role, and the generated accessors read each role's arguments from every shape of call. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "cuaudit_args.h"
#include "roles.h"

static struct cuaudit_call call_of(unsigned id, void *args)
{
	struct cuaudit_call c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.id = id;
	c.args = args;
	return c;
}

static void every_id_has_one_role_of_the_closed_set(void **state)
{
	(void)state;
	for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++)
		assert_true(cuaudit_role_of(id) < CUAUDIT_ROLE_COUNT);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID_COUNT), CUAUDIT_ROLE_PLAIN);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID_cuLaunchKernel), CUAUDIT_ROLE_LAUNCH);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID___cudaLaunchKernel_ptsz), CUAUDIT_ROLE_LAUNCH);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID_cudaMemcpy3DPeerAsync), CUAUDIT_ROLE_COPY);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID_cuMemsetD2D8_v2_ptds), CUAUDIT_ROLE_MEMSET);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID_cuMemAlloc_v2), CUAUDIT_ROLE_ALLOC);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID_cudaFreeAsync), CUAUDIT_ROLE_FREE);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID_cuMemGetInfo_v2), CUAUDIT_ROLE_MEMINFO);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID_cudaMemPoolCreate), CUAUDIT_ROLE_POOL);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID_cuStreamSynchronize_ptsz), CUAUDIT_ROLE_SYNC);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID_cudaEventRecordWithFlags), CUAUDIT_ROLE_EVENT_RECORD);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID_cuGraphLaunch_ptsz), CUAUDIT_ROLE_GRAPH_LAUNCH);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID_cuStreamBeginCapture_v2), CUAUDIT_ROLE_CAPTURE_BEGIN);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID_cudaStreamEndCapture), CUAUDIT_ROLE_CAPTURE_END);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID___cudaRegisterFunction), CUAUDIT_ROLE_KERNEL_NAME);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID_cuProfilerStop), CUAUDIT_ROLE_PROFILER_STOP);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID_cudaRuntimeGetVersion), CUAUDIT_ROLE_VERSION);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID_cuGraphAddMemcpyNode), CUAUDIT_ROLE_PLAIN);
	assert_int_equal(cuaudit_role_of(CUAUDIT_ID_cuLaunchHostFunc), CUAUDIT_ROLE_PLAIN);
}

static void launch_reads_driver_runtime_ex_and_nvcc_forms(void **state)
{
	CUlaunchAttribute coop = { .id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE, .value.cooperative = 1 };
	CUlaunchConfig cfg = { .gridDimX = 4, .gridDimY = 5, .gridDimZ = 6, .blockDimX = 32,
			       .blockDimY = 1, .blockDimZ = 1, .sharedMemBytes = 128,
			       .hStream = (CUstream)0x50, .attrs = &coop, .numAttrs = 1 };
	struct cuaudit_args_cuLaunchKernelEx_ptsz ex = { &cfg, (CUfunction)0x10, NULL, NULL };
	struct cuaudit_args_cuLaunchKernel drv = { (CUfunction)0x11, 2, 3, 4, 64, 2, 1, 256,
						   (CUstream)0x60, NULL, NULL };
	dim3 g = { 7, 1, 1 }, b = { 128, 1, 1 };
	struct cuaudit_args___cudaLaunchKernel nv = { (cudaKernel_t)0x12, g, b, NULL, 0,
						      (cudaStream_t)0x70 };
	struct cuaudit_args_cudaLaunchKernel_ptsz rt = { (const void *)0x13, g, b, NULL, 8, NULL };
	struct cuaudit_call c;
	CUAUDIT_OPTS(cuaudit_launch, l);

	(void)state;
	c = call_of(CUAUDIT_ID_cuLaunchKernelEx_ptsz, &ex);
	assert_int_equal(cuaudit_call_launch(&c, &l), 0);
	assert_ptr_equal(l.func, (void *)0x10);
	assert_int_equal(l.func_kind, CUAUDIT_FUNC_CUFUNCTION);
	assert_int_equal(l.grid[0] * 100 + l.grid[1] * 10 + l.grid[2], 456);
	assert_int_equal(l.block[0], 32);
	assert_int_equal(l.shared_bytes, 128);
	assert_ptr_equal(l.stream, (void *)0x50);
	assert_int_equal(l.stream_flavour, CUAUDIT_STREAM_PER_THREAD);
	assert_int_equal(l.cooperative, 1);

	c = call_of(CUAUDIT_ID_cuLaunchKernel, &drv);
	assert_int_equal(cuaudit_call_launch(&c, &l), 0);
	assert_int_equal(l.grid[0] * 100 + l.grid[1] * 10 + l.grid[2], 234);
	assert_int_equal(l.block[1], 2);
	assert_int_equal(l.shared_bytes, 256);
	assert_ptr_equal(l.stream, (void *)0x60);
	assert_int_equal(l.stream_flavour, CUAUDIT_STREAM_LEGACY);
	assert_int_equal(l.cooperative, 0);

	c = call_of(CUAUDIT_ID___cudaLaunchKernel, &nv);
	assert_int_equal(cuaudit_call_launch(&c, &l), 0);
	assert_int_equal(l.func_kind, CUAUDIT_FUNC_CUKERNEL);
	assert_int_equal(l.grid[0], 7);
	assert_int_equal(l.block[0], 128);
	assert_ptr_equal(l.stream, (void *)0x70);

	c = call_of(CUAUDIT_ID_cudaLaunchKernel_ptsz, &rt);
	assert_int_equal(cuaudit_call_launch(&c, &l), 0);
	assert_int_equal(l.func_kind, CUAUDIT_FUNC_HOST);
	assert_int_equal(l.shared_bytes, 8);
	assert_int_equal(l.stream_flavour, CUAUDIT_STREAM_PER_THREAD);
	assert_null(l.stream);
}

static void copy_reads_bytes_direction_and_stream_of_each_shape(void **state)
{
	CUDA_MEMCPY2D m2 = { .srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = (void *)0x100,
			     .dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = 0x200,
			     .WidthInBytes = 16, .Height = 4 };
	struct cuaudit_args_cuMemcpy2DAsync_v2 a2 = { &m2, (CUstream)0x9 };
	struct cuaudit_args_cudaMemcpyAsync rt = { (void *)0x1, (const void *)0x2, 1000,
						   cudaMemcpyDeviceToHost, (cudaStream_t)0x8 };
	CUdeviceptr d[2] = { 1, 2 }, s[2] = { 3, 4 };
	size_t sizes[2] = { 10, 32 };
	struct cuaudit_args_cuMemcpyBatchAsync_v2 batch = { d, s, sizes, 2, NULL, NULL, 0,
							    (CUstream)0x7 };
	struct cuaudit_args_cuMemcpyHtoD_v2_ptds sync = { 0x300, (const void *)0x400, 77 };
	struct cuaudit_args_cuMemcpyPeer peer = { 1, NULL, 2, NULL, 5 };
	struct cuaudit_args_cuMemcpy2DAsync_v2 nullp = { NULL, NULL };
	struct cuaudit_call c;
	CUAUDIT_OPTS(cuaudit_copy, o);

	(void)state;
	c = call_of(CUAUDIT_ID_cuMemcpy2DAsync_v2, &a2);
	assert_int_equal(cuaudit_call_copy(&c, &o), 0);
	assert_int_equal(o.bytes, 64);
	assert_int_equal(o.kind, CUAUDIT_COPY_HTOD);
	assert_ptr_equal(o.src, (void *)0x100);
	assert_ptr_equal(o.dst, (void *)0x200);
	assert_ptr_equal(o.stream, (void *)0x9);
	assert_int_equal(o.async, 1);

	c = call_of(CUAUDIT_ID_cudaMemcpyAsync, &rt);
	assert_int_equal(cuaudit_call_copy(&c, &o), 0);
	assert_int_equal(o.bytes, 1000);
	assert_int_equal(o.kind, CUAUDIT_COPY_DTOH);

	c = call_of(CUAUDIT_ID_cuMemcpyBatchAsync_v2, &batch);
	assert_int_equal(cuaudit_call_copy(&c, &o), 0);
	assert_int_equal(o.bytes, 42);
	assert_int_equal(o.kind, CUAUDIT_COPY_UNKNOWN);

	c = call_of(CUAUDIT_ID_cuMemcpyHtoD_v2_ptds, &sync);
	assert_int_equal(cuaudit_call_copy(&c, &o), 0);
	assert_int_equal(o.bytes, 77);
	assert_int_equal(o.async, 0);
	assert_null(o.stream);
	assert_int_equal(o.stream_flavour, CUAUDIT_STREAM_PER_THREAD);

	c = call_of(CUAUDIT_ID_cuMemcpyPeer, &peer);
	assert_int_equal(cuaudit_call_copy(&c, &o), 0);
	assert_int_equal(o.kind, CUAUDIT_COPY_PEER);
	assert_int_equal(o.bytes, 5);

	/* A NULL descriptor the driver will refuse: no bytes, no crash. */
	c = call_of(CUAUDIT_ID_cuMemcpy2DAsync_v2, &nullp);
	assert_int_equal(cuaudit_call_copy(&c, &o), 0);
	assert_int_equal(o.bytes, 0);
}

static void memset_counts_bytes_of_wide_elements(void **state)
{
	struct cuaudit_args_cuMemsetD2D32Async_ptsz m = { 0x10, 64, 0, 3, 2, (CUstream)0x5 };
	struct cuaudit_args_cudaMemset r = { (void *)0x20, 0, 9 };
	struct cuaudit_call c;
	CUAUDIT_OPTS(cuaudit_memset, o);

	(void)state;
	c = call_of(CUAUDIT_ID_cuMemsetD2D32Async_ptsz, &m);
	assert_int_equal(cuaudit_call_memset(&c, &o), 0);
	assert_int_equal(o.bytes, 24);
	assert_ptr_equal(o.stream, (void *)0x5);
	assert_int_equal(o.async, 1);
	c = call_of(CUAUDIT_ID_cudaMemset, &r);
	assert_int_equal(cuaudit_call_memset(&c, &o), 0);
	assert_int_equal(o.bytes, 9);
	assert_ptr_equal(o.dst, (void *)0x20);
}

static void accessors_refuse_other_roles_and_respect_the_callers_size(void **state)
{
	struct cuaudit_args_cuMemcpyHtoD_v2 h = { 0x1, (const void *)0x2, 3 };
	struct cuaudit_args_cuEventRecord ev = { (CUevent)0x33, (CUstream)0x44 };
	struct cuaudit_args_cudaGraphLaunch gl = { (cudaGraphExec_t)0x55, (cudaStream_t)0x66 };
	struct cuaudit_call c = call_of(CUAUDIT_ID_cuMemcpyHtoD_v2, &h);
	struct cuaudit_copy shortc;
	struct cuaudit_launch l = { .size = sizeof(l) };
	void *p = NULL;
	int flavour = -1;

	(void)state;
	assert_int_equal(cuaudit_call_launch(&c, &l), -EINVAL);
	assert_int_equal(cuaudit_call_stream(&c, &p, &flavour), -EINVAL);
	/* A caller that knows only size and bytes gets those, and nothing past them. */
	memset(&shortc, 0xee, sizeof(shortc));
	shortc.size = offsetof(struct cuaudit_copy, kind);
	assert_int_equal(cuaudit_call_copy(&c, &shortc), 0);
	assert_int_equal(shortc.bytes, 3);
	assert_int_equal(shortc.kind, (int)0xeeeeeeee);
	shortc.size = 0;
	assert_int_equal(cuaudit_call_copy(&c, &shortc), -EINVAL);

	c = call_of(CUAUDIT_ID_cuEventRecord, &ev);
	assert_int_equal(cuaudit_call_event(&c, &p), 0);
	assert_ptr_equal(p, (void *)0x33);
	assert_int_equal(cuaudit_call_stream(&c, &p, &flavour), 0);
	assert_ptr_equal(p, (void *)0x44);
	assert_int_equal(flavour, CUAUDIT_STREAM_LEGACY);
	c = call_of(CUAUDIT_ID_cudaGraphLaunch, &gl);
	assert_int_equal(cuaudit_call_graph_exec(&c, &p), 0);
	assert_ptr_equal(p, (void *)0x55);
	assert_int_equal(cuaudit_call_event(&c, &p), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_id_has_one_role_of_the_closed_set),
		cmocka_unit_test(launch_reads_driver_runtime_ex_and_nvcc_forms),
		cmocka_unit_test(copy_reads_bytes_direction_and_stream_of_each_shape),
		cmocka_unit_test(memset_counts_bytes_of_wide_elements),
		cmocka_unit_test(accessors_refuse_other_roles_and_respect_the_callers_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
