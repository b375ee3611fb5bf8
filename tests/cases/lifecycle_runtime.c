/* SPDX-License-Identifier: MIT */
/* tests/cases/lifecycle_runtime.c: dlopens a runtime at the path it is given (a wheel's renamed copy) and calls it through dlsym. */
#include <dlfcn.h>
#include "common.h"

int main(int argc, char **argv)
{
	void *rt = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
	int (*get_device)(int *), (*alloc)(void **, size_t), (*release)(void *);
	void *p = NULL;
	int dev = -1;

	CHECK(rt != NULL);
	get_device = (int (*)(int *))dlsym(rt, "cudaGetDevice");
	alloc = (int (*)(void **, size_t))dlsym(rt, "cudaMalloc");
	release = (int (*)(void *))dlsym(rt, "cudaFree");
	CHECK(get_device && alloc && release);
	printf("cudaGetDevice %d\n", get_device(&dev));
	printf("cudaMalloc %d\n", alloc(&p, 64));
	printf("cudaFree %d\n", release(p));
	return 0;
}
