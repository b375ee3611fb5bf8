/* SPDX-License-Identifier: MIT */
/* tests/cases/lifecycle_exit.c: links the driver before a library whose destructor calls it, so glibc closes the driver first at exit. */
#include <stdio.h>

void lifecycle_late_keep(void);

int main(void)
{
	lifecycle_late_keep();
	printf("main done\n");
	return 0;
}
