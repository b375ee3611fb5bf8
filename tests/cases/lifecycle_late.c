/* SPDX-License-Identifier: MIT */
/* tests/cases/lifecycle_late.c: keeps a driver pointer from cuGetProcAddress and calls it from a destructor, as libcudart does at exit. */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>

typedef CUresult (*count_fn)(int *);
typedef CUresult (*gpa_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
static count_fn count;

void lifecycle_late_keep(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	gpa_fn gpa = h ? (gpa_fn)dlsym(h, "cuGetProcAddress_v2") : NULL;

	if (gpa)
		gpa("cuDeviceGetCount", (void **)&count, 12000, 0, NULL);
}

/* At exit glibc's _dl_fini closes libcuda (la_objclose) before this runs: the object it
   calls is still mapped, so the call must work as it does natively. */
__attribute__((destructor)) static void lifecycle_late_call(void)
{
	int n = -1;
	CUresult r = count ? count(&n) : (CUresult)999;

	printf("destructor: cuDeviceGetCount -> %d, count %d\n", (int)r, n);
	fflush(stdout);
}
