/* SPDX-License-Identifier: MIT */
/* tests/cases/ordinary_rt.c: an ordinary runtime program (streams, events, async copies, pinned memory, graphs, properties, a registered kernel, a function the mock lacks), linked as nvcc -cudart shared links it. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The real program checks every call; so does this one, naming the call that failed. */
#define OK(call)                                                                               \
	do {                                                                                   \
		cudaError_t e_ = (call);                                                       \
		if (e_ != cudaSuccess) {                                                       \
			printf("FAILED %s -> %d\n", #call, (int)e_);                           \
			exit(1);                                                               \
		}                                                                              \
	} while (0)
#define EXPECT(cond)                                                                           \
	do {                                                                                   \
		if (!(cond)) {                                                                 \
			printf("FAILED %s:%d %s\n", __FILE__, __LINE__, #cond);                 \
			exit(1);                                                               \
		}                                                                              \
	} while (0)

/* nvcc's host code registers each kernel; on the mock a kernel registered from data that is
   no nvcc fat binary is its host function, run at launch: v[i] += 1 for i < n. */
void **__cudaRegisterFatBinary(void *fat_cubin);
void __cudaRegisterFunction(void **handle, const char *host_fun, char *device_fun,
			    const char *device_name, int thread_limit, uint3 *tid, uint3 *bid,
			    dim3 *bdim, dim3 *gdim, int *wsize);

static void add_one(void **params, unsigned threads)
{
	int *v = *(int **)params[0];
	int n = *(int *)params[1];

	for (int i = 0; i < n && (unsigned)i < threads; i++)
		v[i] += 1;
}

#define N 1024
/* Mock copies take 5 ms + 100 ns per byte of GPU time (tests/mock/libcuda_gpu.c). */
#define BIG (10u << 20)

int main(void)
{
	static int fatbin[4] = { 1, 2, 3, 4 };
	struct cudaDeviceProp prop;
	cudaStream_t s, nb, prio;
	cudaEvent_t start, end;
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	enum cudaStreamCaptureStatus cap;
	int *h, *pinned, *d, *d2, n = N, version = 0;
	char *big_h, *big_d;
	void *args[2];
	float ms = -1;
	static int registered_buf[N];

	void **handle = __cudaRegisterFatBinary(fatbin);
	__cudaRegisterFunction(handle, (const char *)add_one, (char *)"_Z7add_onePii",
			       "_Z7add_onePii", -1, NULL, NULL, NULL, NULL, NULL);

	OK(cudaGetDeviceProperties(&prop, 0));
	OK(cudaDriverGetVersion(&version));
	printf("device %s, %zu MiB, sm_%d%d, driver %d\n", prop.name, prop.totalGlobalMem >> 20,
	       prop.major, prop.minor, version);

	/* Streams. */
	OK(cudaStreamCreate(&s));
	OK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
	OK(cudaStreamCreateWithPriority(&prio, cudaStreamDefault, -1));
	OK(cudaStreamQuery(s));

	/* Pinned host memory: allocated, and registered. */
	OK(cudaMallocHost((void **)&pinned, N * sizeof(int)));
	h = malloc(N * sizeof(int));
	EXPECT(h);
	OK(cudaHostRegister(h, N * sizeof(int), cudaHostRegisterDefault));
	for (int i = 0; i < N; i++)
		pinned[i] = i;

	/* Async copies and memsets, checked after a stream synchronisation. */
	OK(cudaMalloc((void **)&d, N * sizeof(int)));
	OK(cudaMalloc((void **)&d2, N * sizeof(int)));
	OK(cudaMemsetAsync(d2, 0, N * sizeof(int), nb));
	OK(cudaMemcpyAsync(d, pinned, N * sizeof(int), cudaMemcpyHostToDevice, s));
	OK(cudaMemcpyAsync(d2, d, N / 2 * sizeof(int), cudaMemcpyDeviceToDevice, s));
	OK(cudaMemcpyAsync(h, d2, N * sizeof(int), cudaMemcpyDeviceToHost, s));
	OK(cudaStreamSynchronize(s));
	OK(cudaStreamSynchronize(nb));
	EXPECT(h[0] == 0 && h[N / 2 - 1] == N / 2 - 1 && h[N / 2] == 0 && h[N - 1] == 0);
	printf("async copies: h[%d] = %d, h[%d] = %d\n", N / 2 - 1, h[N / 2 - 1], N / 2, h[N / 2]);

	/* Events around a copy queued behind a long one: the elapsed time is the second copy's
	   GPU time exactly, 5 ms + 100 ns per byte. */
	big_h = calloc(1, BIG);
	EXPECT(big_h);
	OK(cudaMalloc((void **)&big_d, BIG));
	OK(cudaEventCreate(&start));
	OK(cudaEventCreateWithFlags(&end, cudaEventBlockingSync));
	OK(cudaMemcpyAsync(big_d, big_h, BIG, cudaMemcpyHostToDevice, s));
	OK(cudaEventRecord(start, s));
	OK(cudaMemcpyAsync(d, pinned, N * sizeof(int), cudaMemcpyHostToDevice, s));
	OK(cudaEventRecord(end, s));
	OK(cudaEventSynchronize(end));
	OK(cudaEventQuery(end));
	OK(cudaEventElapsedTime(&ms, start, end));
	printf("event elapsed %.4f ms\n", ms);
	EXPECT(ms > 5.409 && ms < 5.410);

	/* The registered kernel, launched through cudaLaunchKernel with its host stub. */
	args[0] = &d;
	args[1] = &n;
	OK(cudaLaunchKernel((const void *)add_one, (dim3){ 4, 1, 1 }, (dim3){ 256, 1, 1 }, args, 0,
			    s));
	OK(cudaMemcpy(registered_buf, d, N * sizeof(int), cudaMemcpyDeviceToHost));
	EXPECT(registered_buf[0] == 1 && registered_buf[N - 1] == N);
	printf("cudaLaunchKernel: v[%d] = %d\n", N - 1, registered_buf[N - 1]);

	/* A graph captured from a stream: captured work does not run, the launches do. */
	OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	OK(cudaStreamIsCapturing(s, &cap));
	EXPECT(cap == cudaStreamCaptureStatusActive);
	OK(cudaMemsetAsync(d, 0, N * sizeof(int), s));
	OK(cudaLaunchKernel((const void *)add_one, (dim3){ 4, 1, 1 }, (dim3){ 256, 1, 1 }, args, 0,
			    s));
	OK(cudaStreamEndCapture(s, &graph));
	OK(cudaStreamIsCapturing(s, &cap));
	EXPECT(cap == cudaStreamCaptureStatusNone);
	OK(cudaMemcpy(registered_buf, d, N * sizeof(int), cudaMemcpyDeviceToHost));
	EXPECT(registered_buf[0] == 1);
	OK(cudaGraphInstantiate(&exec, graph, 0));
	for (int i = 0; i < 3; i++)
		OK(cudaGraphLaunch(exec, s));
	OK(cudaStreamSynchronize(s));
	OK(cudaGraphExecDestroy(exec));
	OK(cudaGraphDestroy(graph));
	printf("graph: captured, instantiated, launched 3 times\n");

#ifndef ORDINARY_NO_GAP
	/* A function the mock does not implement: a CUDA error, and the last error says so. */
	struct cudaFuncAttributes fa;
	cudaError_t e = cudaFuncGetAttributes(&fa, (const void *)add_one);
	cudaError_t e2 = cudaFuncGetAttributes(&fa, (const void *)add_one);
	printf("cudaFuncGetAttributes -> %s, again %s, last error %s\n", cudaGetErrorName(e),
	       cudaGetErrorName(e2), cudaGetErrorName(cudaGetLastError()));
	EXPECT(e == cudaErrorNotSupported && e2 == cudaErrorNotSupported);
	EXPECT(cudaGetLastError() == cudaSuccess);
#endif

	OK(cudaEventDestroy(start));
	OK(cudaEventDestroy(end));
	OK(cudaHostUnregister(h));
	OK(cudaFreeHost(pinned));
	OK(cudaFree(d));
	OK(cudaFree(d2));
	OK(cudaFree(big_d));
	OK(cudaStreamDestroy(s));
	OK(cudaStreamDestroy(nb));
	OK(cudaStreamDestroy(prio));
	OK(cudaDeviceSynchronize());
	free(h);
	free(big_h);
	printf("done\n");
	return 0;
}
