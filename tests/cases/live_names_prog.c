/* SPDX-License-Identifier: MIT */
/* tests/cases/live_names_prog.c: registers far more kernels than the live view's name table holds (as PyTorch does), launches a few (its forked child one again) or many, then waits to be read by `cuaudit ps`. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

/* nvcc's entry points, declared only in C++ headers. */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
			    const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
			    dim3 *bDim, dim3 *gDim, int *wSize);

/* The mock's "device code" is the host stub (tests/mock/libcuda.c). */
static void scale3(void **params, unsigned threads)
{
	(void)params, (void)threads;
}

static void add5(void **params, unsigned threads)
{
	(void)params, (void)threads;
}

static void last_one(void **params, unsigned threads)
{
	(void)params, (void)threads;
}

#define NREG 5000
#define NREG_MAX 20000
/* Host "functions" the mock never runs: addresses in an array, one each. */
static char fake[NREG_MAX];
static char names[NREG_MAX][32];

static void ready_then_wait(const char *path, const char *wait_path);

/* many NREG NLAUNCH: NREG kernels registered (fake ones), the first NLAUNCH of them each
   launched once into a capturing stream (the mock runs no kernel there). */
static int many(char **argv)
{
	static char fatbin[16];
	void **h = __cudaRegisterFatBinary(fatbin);
	unsigned nreg = (unsigned)atoi(argv[3]), nlaunch = (unsigned)atoi(argv[4]);
	dim3 grid = { 1, 1, 1 }, block = { 1, 1, 1 };
	CUstream s = NULL;
	void *d = NULL;

	CHECK(nreg <= NREG_MAX && nlaunch <= nreg);
	for (unsigned i = 0; i < nreg; i++) {
		snprintf(names[i], sizeof(names[i]), "_Z6unusedILi%uEEvv", i);
		__cudaRegisterFunction(h, fake + i, names[i], names[i], -1, NULL, NULL, NULL, NULL,
				       NULL);
	}
	__cudaRegisterFatBinaryEnd(h);
	CHECK(cudaMalloc(&d, sizeof(int)) == cudaSuccess);
	CHECK(cuStreamCreate(&s, 0) == CUDA_SUCCESS);
	CHECK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED) == CUDA_SUCCESS);
	for (unsigned i = 0; i < nlaunch; i++)
		CHECK(cudaLaunchKernel(fake + i, grid, block, NULL, 0, (cudaStream_t)s) == cudaSuccess);
	ready_then_wait(argv[2], argv[5]);
	return 0;
}

/* Writes path's file and waits while wait_path exists. */
static void ready_then_wait(const char *path, const char *wait_path)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	fclose(f);
	while (access(wait_path, F_OK) == 0)
		usleep(10000);
}

int main(int argc, char **argv)
{
	static char fatbin[16];
	static char n_scale[] = "_Z6scale3Pii", n_add[] = "_Z4add5Pii", n_last[] = "_Z8last_onePii";
	void **h = __cudaRegisterFatBinary(fatbin);
	dim3 grid = { 1, 1, 1 }, block = { 1, 1, 1 };
	CUfunction f = NULL;
	CUdeviceptr d = 0;
	int n = 1;
	void *params[] = { &d, &n };
	pid_t child;

	if (argc == 6 && strcmp(argv[1], "many") == 0)
		return many(argv);
	if (argc != 4) {
		fprintf(stderr, "usage: live_names_prog READY CHILD_READY WAIT_FILE\n"
				"       live_names_prog many READY NREG NLAUNCH WAIT_FILE\n");
		return 2;
	}
	/* The launched ones among the 5,000, the last one registered last: none fits a table of
	   1,024 filled at registration. */
	for (unsigned i = 0; i < NREG; i++) {
		const char *host = fake + i;
		char *name = names[i];

		snprintf(names[i], sizeof(names[i]), "_Z6unusedILi%uEEvv", i);
		if (i == 1500)
			host = (const char *)scale3, name = n_scale;
		else if (i == 3000)
			host = (const char *)add5, name = n_add;
		else if (i == NREG - 1)
			host = (const char *)last_one, name = n_last;
		__cudaRegisterFunction(h, host, name, name, -1, NULL, NULL, NULL, NULL, NULL);
	}
	__cudaRegisterFatBinaryEnd(h);
	CHECK(cudaLaunchKernel((const void *)scale3, grid, block, params, 0, NULL) == cudaSuccess);
	CHECK(cudaLaunchKernel((const void *)add5, grid, block, params, 0, NULL) == cudaSuccess);
	CHECK(cudaLaunchKernel((const void *)last_one, grid, block, params, 0, NULL) == cudaSuccess);
	CHECK(cudaLaunchKernel((const void *)scale3, grid, block, params, 0, NULL) == cudaSuccess);
	/* A driver look-up after the registrations, launched twice. */
	CHECK(cuModuleGetFunction(&f, NULL, "_Z7add_onePii") == CUDA_SUCCESS);
	CHECK(cuMemAlloc(&d, sizeof(int)) == CUDA_SUCCESS);
	for (int i = 0; i < 2; i++)
		CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL) == CUDA_SUCCESS);
	fflush(stdout);
	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		/* The parent's kernels, launched again in the child's own region. */
		CHECK(cudaLaunchKernel((const void *)add5, grid, block, params, 0, NULL) == cudaSuccess);
		CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL) == CUDA_SUCCESS);
		ready_then_wait(argv[2], argv[3]);
		_exit(0);
	}
	ready_then_wait(argv[1], argv[3]);
	{
		int st = 0;

		CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	printf("child %d done\n", (int)child);
	return 0;
}
