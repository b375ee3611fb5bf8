/* SPDX-License-Identifier: MIT */
/* tests/cases/static_stubs_main.c: runs an object whose runtime functions forward through stubs to the shared libcudart. */
#include "common.h"

int stubs_run(void);

int main(void)
{
	printf("stubs_run -> %d\n", stubs_run());
	printf("stubs_run again -> %d\n", stubs_run());
	return 0;
}
