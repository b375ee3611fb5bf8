/* SPDX-License-Identifier: MIT */
/* tests/cases/static_rt_multi.c: four runtime copies in one process (its own, two objects linked at start, one dlopened, closed and reopened); each call must reach its own copy. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

int copy_a_run(void);
int copy_b_run(void);

static int own_device(void)
{
	int dev = -1;

	CHECK(cudaGetDevice(&dev) == cudaSuccess);
	printf("executable: cudaGetDevice -> device %d\n", dev);
	CHECK(dev % 100 == MOCK_DEVICE_OFFSET);
	return dev;
}

int main(int argc, char **argv)
{
	own_device();
	copy_a_run();
	copy_b_run();
	for (int round = 1; round <= 2; round++) {
		void *h = dlopen("libstatic_rt_c.so", RTLD_NOW | RTLD_LOCAL);
		int (*run)(void);

		CHECK(h != NULL);
		run = (int (*)(void))dlsym(h, "copy_c_run");
		CHECK(run != NULL);
		printf("round %d: c -> %d\n", round, run());
		/* The others still reach their own copies while c is loaded. */
		copy_b_run();
		own_device();
		CHECK(dlclose(h) == 0);
		h = dlopen("libstatic_rt_c.so", RTLD_NOW | RTLD_NOLOAD);
		printf("round %d: c closed, still loaded %d\n", round, h != NULL);
		if (h)
			dlclose(h);
	}
	copy_a_run();
	own_device();
	if (argc > 1 && strcmp(argv[1], "linger") == 0) {
		/* For a kill with the trace on disk: one call after the flush interval writes
		   this thread's records out, then wait to be killed. */
		fflush(stdout);
		sleep(2);
		own_device();
		printf("flushed\n");
		fflush(stdout);
		sleep(60);
	}
	return 0;
}
