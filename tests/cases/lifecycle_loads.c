/* SPDX-License-Identifier: MIT */
/* tests/cases/lifecycle_loads.c: failed probes, a dlopened and dlclosed object with driver references, then the driver and a -fno-plt library, by dlopen. */
#include <dlfcn.h>
#include <string.h>
#include "common.h"

static void probe(const char *when)
{
	void *h = dlopen("liblifecycle_probe.so", RTLD_NOW);

	printf("probe %s: %s\n", when, h ? "loaded" : "failed");
	if (h)
		dlclose(h);
}

#define HOLD 64
static void *held[HOLD];

int main(void)
{
	void *lazy, *drv, *refs;
	int (*lazy_count)(void), (*refs_run)(void);

	probe("before the driver");
	lazy = dlopen("liblifecycle_notcuda.so", RTLD_LAZY);
	CHECK(lazy != NULL);
	CHECK(dlclose(lazy) == 0);
	/* Undefined driver symbols, lazily bound, never called: loads without the driver. */
	lazy = dlopen("liblifecycle_lazyref.so", RTLD_LAZY);
	CHECK(lazy != NULL);
	CHECK(dlclose(lazy) == 0);
	/* The freed link_maps' memory, taken and filled with garbage while the driver loads:
	   whatever still points at them reads 0xff bytes. */
	for (int i = 0; i < HOLD; i++) {
		held[i] = malloc((size_t)(32 + 64 * i));
		memset(held[i], 0xff, (size_t)(32 + 64 * i));
	}
	drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	CHECK(drv != NULL);
	for (int i = 0; i < HOLD; i++)
		free(held[i]);
	probe("after the driver");
	lazy = dlopen("liblifecycle_lazyref.so", RTLD_LAZY);
	CHECK(lazy != NULL);
	lazy_count = (int (*)(void))dlsym(lazy, "lazyref_count");
	printf("lazy library counts %d device(s)\n", lazy_count());
	refs = dlopen("liblifecycle_refs.so", RTLD_LAZY);
	CHECK(refs != NULL);
	refs_run = (int (*)(void))dlsym(refs, "refs_run");
	printf("GOT and table calls succeed: %d\n", refs_run());
	CHECK(dlclose(refs) == 0);
	CHECK(dlclose(lazy) == 0);
	return 0;
}
