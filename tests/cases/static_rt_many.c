/* SPDX-License-Identifier: MIT */
/* tests/cases/static_rt_many.c: dlopens every object named on the command line (copies of one with its own runtime) and runs each; more copies than cuaudit has slots for. */
#include <dlfcn.h>
#include "common.h"

int main(int argc, char **argv)
{
	int ok = 0;

	for (int i = 1; i < argc; i++) {
		void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
		int (*run)(void);

		CHECK(h != NULL);
		run = (int (*)(void))dlsym(h, "copy_c_run");
		CHECK(run != NULL);
		ok += run() % 100 == 50;
	}
	printf("%d of %d copies reached their own runtime\n", ok, argc - 1);
	return 0;
}
