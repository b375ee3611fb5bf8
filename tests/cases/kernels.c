/* SPDX-License-Identifier: MIT */
/* tests/cases/kernels.c: launches kernels every way a program names them: nvcc's registration, __cudaGetKernel, module and library look-ups, and a handle only the driver can name. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "mockstate.h"

/* nvcc's entry points, declared only in C++ headers. */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
			    const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
			    dim3 *bDim, dim3 *gDim, int *wSize);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
			       size_t shmem, cudaStream_t stream);
/* A mock export no header declares: cuaudit does not see this look-up. */
CUresult cuMockGetFunction(CUfunction *hfunc, const char *name);

/* The mock's "device code" is the host stub: v[i] *= 3 and v[i] += 5. */
static void scale3(void **params, unsigned threads)
{
	int *v = *(int **)params[0];
	int n = *(int *)params[1];

	for (int i = 0; i < n && (unsigned)i < threads; i++)
		v[i] *= 3;
}

static void add5(void **params, unsigned threads)
{
	int *v = *(int **)params[0];
	int n = *(int *)params[1];

	for (int i = 0; i < n && (unsigned)i < threads; i++)
		v[i] += 5;
}

static void show(const char *what, const int *v, int n)
{
	printf("%s:", what);
	for (int i = 0; i < n; i++)
		printf(" %d", v[i]);
	printf("\n");
}

/* A named thread that makes one call and is still alive when the process exits, so the
   trace can name it from /proc. */
static int worker_ready[2];

static void *worker(void *arg)
{
	int count = 0;
	char c = 1;

	(void)arg;
	pthread_setname_np(pthread_self(), "kern-worker");
	cuDeviceGetCount(&count);
	if (write(worker_ready[1], &c, 1) != 1)
		return NULL;
	for (;;)
		pause();
}

int main(void)
{
	static char fatbin[16];
	static char name_scale[] = "_Z6scale3Pii", name_add[] = "_Z4add5Pii";
	int host[4] = { 1, 2, 3, 4 }, n = 4, version = 0;
	void *d = NULL;
	void **h = __cudaRegisterFatBinary(fatbin);
	cudaKernel_t k = NULL;
	CUfunction f = NULL, f2 = NULL, f3 = NULL;
	CUkernel kern = NULL;
	dim3 grid = { 1, 1, 1 }, block = { 4, 1, 1 };

	__cudaRegisterFunction(h, (const char *)scale3, name_scale, name_scale, -1, NULL, NULL,
			       NULL, NULL, NULL);
	__cudaRegisterFunction(h, (const char *)add5, name_add, name_add, -1, NULL, NULL, NULL,
			       NULL, NULL);
	__cudaRegisterFatBinaryEnd(h);

	CHECK(cudaMalloc(&d, sizeof(host)) == cudaSuccess);
	CHECK(cudaMemcpy(d, host, sizeof(host), cudaMemcpyHostToDevice) == cudaSuccess);
	{
		void *args[] = { &d, &n };

		/* CUDA 12 style: the host stub names the kernel. */
		printf("cudaLaunchKernel -> %d\n",
		       (int)cudaLaunchKernel((const void *)scale3, grid, block, args, 0, NULL));
		/* CUDA 13 style: a kernel handle from the host stub, launched twice. */
		printf("__cudaGetKernel -> %d\n", (int)__cudaGetKernel(&k, (const void *)add5));
		for (int i = 0; i < 2; i++)
			printf("__cudaLaunchKernel -> %d\n",
			       (int)__cudaLaunchKernel(k, grid, block, args, 0, NULL));
	}
	CHECK(cudaMemcpy(host, d, sizeof(host), cudaMemcpyDeviceToHost) == cudaSuccess);
	show("runtime", host, n);
	printf("cudaRuntimeGetVersion -> %d\n", (int)cudaRuntimeGetVersion(&version));
	printf("cuDriverGetVersion -> %d\n", (int)cuDriverGetVersion(&version));

	SHOW(cuModuleGetFunction(&f, NULL, "_Z10vec_doublePiPKii"));
	SHOW(cuLibraryGetKernel(&kern, NULL, "_Z7add_onePii"));
	SHOW(cuKernelGetFunction(&f2, kern));
	SHOW(cuMockGetFunction(&f3, "_Z9mock_onlyPii"));
	{
		int in[4] = { 1, 2, 3, 4 }, out[4] = { 0 };
		int *pin = in, *pout = out;
		void *dbl[] = { &pout, &pin, &n }, *one[] = { &pout, &n };

		SHOW(cuLaunchKernel(f, 2, 1, 1, 4, 1, 1, 0, NULL, dbl, NULL));
		SHOW(cuLaunchKernel(f2, 1, 2, 1, 4, 1, 1, 0, NULL, one, NULL));
		for (int i = 0; i < 2; i++)
			SHOW(cuLaunchKernel(f3, 1, 1, 3, 4, 1, 1, 0, NULL, one, NULL));
		/* A handle the driver refuses: the launch fails and its kernel is unknown. */
		SHOW(cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, one, NULL));
		show("driver", out, n);
	}
	{
		/* The mock's one export table: the log shows its UUID. */
		static const CUuuid id = { { 'c', 'u', 'a', 'u', 'd', 'i', 't', '-', 'm', 'o', 'c',
					     'k', '-', 't', 'b', 'l' } };
		const void *table = NULL;

		SHOW(cuGetExportTable(&table, &id));
	}
	{
		pthread_t t;
		char c;

		CHECK(pipe(worker_ready) == 0);
		CHECK(pthread_create(&t, NULL, worker, NULL) == 0);
		CHECK(read(worker_ready[0], &c, 1) == 1);
	}
	/* What cuaudit asked the driver itself goes to stderr: the outputs must not differ. */
	fprintf(stderr, "mock cuFuncGetName: %ld\n", mock_calls("cuFuncGetName"));
	return 0;
}
