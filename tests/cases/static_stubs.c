/* SPDX-License-Identifier: MIT */
/* tests/cases/static_stubs.c: a shared object whose runtime functions are forwarding stubs to the shared libcudart, as JAX's CUDA plugins are built. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include "common.h"

void **__cudaRegisterFatBinary(void *fat_cubin);
extern void *stub_table[4];
static const char *const stub_names[4] = { "__cudaRegisterFatBinary", "cudaMalloc", "cudaFree",
					   "cudaGetDevice" };
static int fatbin;
static int registered;

/* Called by stub_save_regs_and_resolve on a stub's first call: the shared runtime's address. */
__attribute__((visibility("hidden"))) void stub_resolve(long index)
{
	void *h = dlopen("libcudart.so.13", RTLD_NOW | RTLD_GLOBAL);
	void *f = h ? dlsym(h, stub_names[index]) : NULL;

	CHECK(f != NULL);
	__atomic_store_n(&stub_table[index], f, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void register_fatbin(void)
{
	registered = __cudaRegisterFatBinary(&fatbin) != NULL;
}

__attribute__((visibility("default"))) int stubs_run(void)
{
	int dev = -1;
	void *d = NULL;
	int r = (int)cudaGetDevice(&dev);

	printf("stubs: registered %d, cudaGetDevice -> %d, device %d\n", registered, r, dev);
	printf("stubs: cudaMalloc -> %d\n", (int)cudaMalloc(&d, 16));
	printf("stubs: cudaFree -> %d\n", (int)cudaFree(d));
	return dev;
}
