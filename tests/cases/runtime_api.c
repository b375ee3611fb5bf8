/* SPDX-License-Identifier: MIT */
/* tests/cases/runtime_api.c: a runtime-API program; built against the mock libcudart, with per-thread streams, and with the runtime linked in (static). */
#include <cuda_runtime_api.h>
#include <string.h>
#include "common.h"
#include "mockstate.h"

void *helper_lookup(const char *library, const char *elf_name);

static void show_entry_point(const char *symbol, unsigned version)
{
	enum cudaDriverEntryPointQueryResult status = 99;
	void *fn = (void *)1;
	cudaError_t r = cudaGetDriverEntryPointByVersion(symbol, &fn, version, 0, &status);

	printf("entry point %s@%u -> %d, status %d, %s\n", symbol, version, (int)r, (int)status,
	       fn ? "pointer" : "NULL");
}

/* A second copy of the runtime, loaded by path: its calls must reach it, not the first. */
static int second_copy(const char *path)
{
	cudaError_t (*get_device2)(int *) = (cudaError_t(*)(int *))helper_lookup(path, "cudaGetDevice");
	int d1 = -1, d2 = -1;

	CHECK(get_device2 != NULL);
	int r1 = (int)cudaGetDevice(&d1), r2 = (int)get_device2(&d2);

	printf("first runtime: %d, device %d\n", r1, d1);
	printf("second runtime: %d, device %d\n", r2, d2);
	return 0;
}

#ifdef REGISTER_FATBIN
void **__cudaRegisterFatBinary(void *fat_cubin);
static int fatbin;

/* As nvcc's generated code does: registration from a constructor, before main. */
__attribute__((constructor)) static void register_fatbin(void)
{
	CHECK(__cudaRegisterFatBinary(&fatbin) != NULL);
}
#endif

int main(int argc, char **argv)
{
	int in[8], out[8], n = 8, dev = -1;
	void *d = NULL;
	CUdevice cd = -1;

	if (argc == 2)
		return second_copy(argv[1]);
	for (int i = 0; i < n; i++)
		in[i] = 3 * i + 1;
	int r = (int)cudaGetDevice(&dev);
	printf("cudaGetDevice -> %d, device %d\n", r, dev);
	printf("cudaMalloc -> %d\n", (int)cudaMalloc(&d, sizeof(in)));
	printf("cudaMemcpy H2D -> %d\n", (int)cudaMemcpy(d, in, sizeof(in), cudaMemcpyHostToDevice));
	{
		void *args[] = { &d, &d, &n };
		dim3 grid = { 1, 1, 1 }, block = { 8, 1, 1 };

		printf("cudaLaunchKernel -> %d\n",
		       (int)cudaLaunchKernel((const void *)mock_double_kernel, grid, block, args, 0,
					     NULL));
	}
	memset(out, 0, sizeof(out));
	printf("cudaMemcpy D2H -> %d\n", (int)cudaMemcpy(out, d, sizeof(out), cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++)
		printf("%d ", out[i]);
	printf("\ncudaFree -> %d\n", (int)cudaFree(d));

	/* Driver pointers through the runtime: wrapped, and the version picks the variant. */
	CUresult (*get_dev_v1)(CUdevice *) = NULL;
	CUresult (*get_dev_v2)(CUdevice *, CUcontext) = NULL;
	CUresult (*alloc)(CUdeviceptr *, size_t) = NULL;
	CUdeviceptr p = 0;
	CHECK(cudaGetDriverEntryPointByVersion("cuCtxGetDevice", (void **)&get_dev_v1, 2000, 0, NULL) == cudaSuccess);
	CHECK(cudaGetDriverEntryPointByVersion("cuCtxGetDevice", (void **)&get_dev_v2, 13000, 0, NULL) == cudaSuccess);
	/* Deprecated in CUDA 13 but still exported and used: it must be wrapped too. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	CHECK(cudaGetDriverEntryPoint("cuMemAlloc", (void **)&alloc, 0, NULL) == cudaSuccess);
#pragma GCC diagnostic pop
	r = (int)get_dev_v1(&cd);
	printf("cuCtxGetDevice@2000 -> %d, device %d\n", r, cd);
	r = (int)get_dev_v2(&cd, NULL);
	printf("cuCtxGetDevice@13000 -> %d, device %d\n", r, cd);
	printf("cuMemAlloc via entry point -> %d\n", (int)alloc(&p, 64));
	show_entry_point("cuNoSuchFunction", 13000);
	show_entry_point("cuCtxGetDevice", 1000);
	printf("error string: %s\n", cudaGetErrorString(cudaErrorMemoryAllocation));

	static const char *const names[] = {
		"cuCtxGetDevice", "cuCtxGetDevice_v2", "cuMemAlloc_v2", "cuMemcpyHtoD_v2",
		"cuMemcpyHtoD_v2_ptds", "cuMemcpyDtoH_v2", "cuMemcpyDtoH_v2_ptds",
		"cuLaunchKernel", "cuLaunchKernel_ptsz", "cuGetProcAddress", "cuGetProcAddress_v2",
	};
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		printf("mock %s: %ld\n", names[i], mock_calls(names[i]));
	return 0;
}
