/* SPDX-License-Identifier: MIT */
/* tests/cases/lifecycle_reload.c: dlopens the driver, calls it, dlcloses it until it unloads, with the heap churned in between, N times. */
#include <dlfcn.h>
#include <string.h>
#include "common.h"

typedef CUresult (*gpa5_fn)(const char *, void **, int, cuuint64_t,
			    CUdriverProcAddressQueryResult *);

/* Allocations of the sizes a link_map and its strings take, freed again: the next dlopen
   gets the memory the last one freed, as in a long-running program. */
static void churn(int round)
{
	void *p[64];

	for (int i = 0; i < 64; i++) {
		p[i] = malloc((size_t)(16 + (i * 97 + round * 31) % 2048));
		memset(p[i], 0xa5, 16);
	}
	for (int i = 0; i < 64; i++)
		free(p[i]);
}

static int one_round(const char *lib)
{
	void *h = dlopen(lib, RTLD_NOW);
	CUresult (*init)(unsigned);
	CUresult (*alloc)(CUdeviceptr *, size_t);
	CUresult (*release)(CUdeviceptr);
	CUresult (*count)(int *) = NULL;
	CUresult (*get)(CUdevice *, int);
	CUresult (*retain)(CUcontext *, CUdevice);
	CUresult (*set_current)(CUcontext);
	gpa5_fn gpa;
	CUdeviceptr d = 0;
	CUdevice dev = 0;
	CUcontext ctx = NULL;
	int n = 0, ok;

	CHECK(h != NULL);
	init = (CUresult(*)(unsigned))dlsym(h, "cuInit");
	alloc = (CUresult(*)(CUdeviceptr *, size_t))dlsym(h, "cuMemAlloc_v2");
	release = (CUresult(*)(CUdeviceptr))dlsym(h, "cuMemFree_v2");
	gpa = (gpa5_fn)dlsym(h, "cuGetProcAddress_v2");
	get = (CUresult(*)(CUdevice *, int))dlsym(h, "cuDeviceGet");
	retain = (CUresult(*)(CUcontext *, CUdevice))dlsym(h, "cuDevicePrimaryCtxRetain");
	set_current = (CUresult(*)(CUcontext))dlsym(h, "cuCtxSetCurrent");
	CHECK(init && alloc && release && gpa && get && retain && set_current);
	/* A real driver allocates only in a context; the mock does not mind. */
	ok = init(0) == CUDA_SUCCESS && get(&dev, 0) == CUDA_SUCCESS &&
	     retain(&ctx, dev) == CUDA_SUCCESS && set_current(ctx) == CUDA_SUCCESS &&
	     alloc(&d, 64) == CUDA_SUCCESS &&
	     release(d) == CUDA_SUCCESS &&
	     gpa("cuDeviceGetCount", (void **)&count, 2000, 0, NULL) == CUDA_SUCCESS &&
	     count(&n) == CUDA_SUCCESS && n >= 1;
	CHECK(dlclose(h) == 0);
	return ok;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100, ok = 0, unloaded = 0;
	const char *lib = argc > 2 ? argv[2] : "libcuda.so.1";

	for (int i = 0; i < rounds; i++) {
		ok += one_round(lib);
		/* RTLD_NOLOAD finds nothing once the last reference is gone. */
		unloaded += dlopen(lib, RTLD_NOW | RTLD_NOLOAD) == NULL;
		churn(i);
	}
	printf("rounds %d, all calls succeeded in %d, unloaded after %d\n", rounds, ok, unloaded);
	return ok == rounds ? 0 : 1;
}
