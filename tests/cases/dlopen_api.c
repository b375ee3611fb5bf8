/* SPDX-License-Identifier: MIT */
/* tests/cases/dlopen_api.c: reaches the driver by dlopen and dlsym or dlvsym, directly or through a helper library. */
#include <dlfcn.h>
#include <string.h>
#include "common.h"
#include "mockstate.h"

/* From libhelper.so: looks a name up on the program's behalf, as ctypes and cuBLAS do. */
void *helper_lookup(const char *library, const char *elf_name);

static const char *library;
static const char *mode;
static void *handle;

static void *lookup(const char *elf_name)
{
	void *p;

	if (strcmp(mode, "helper") == 0)
		p = helper_lookup(library, elf_name);
	else if (strcmp(mode, "dlvsym") == 0)
		/* The driver carries no symbol versions; glibc then accepts any version. */
		p = dlvsym(handle, elf_name, "libcuda.so.1");
	else
		p = dlsym(handle, elf_name);
	CHECK(p != NULL);
	return p;
}

/* The driver from LD_LIBRARY_PATH, then a second copy by path through the helper: each call
   must reach the copy its lookup resolved to. */
static int two_copies(void)
{
	void *first = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	char name1[64] = "", name2[64] = "";

	CHECK(first != NULL);
	handle = first;
	CUresult (*init1)(unsigned) = (CUresult(*)(unsigned))dlsym(first, "cuInit");
	CUresult (*name_of1)(char *, int, CUdevice) =
		(CUresult(*)(char *, int, CUdevice))dlsym(first, "cuDeviceGetName");
	CUresult (*init2)(unsigned) = (CUresult(*)(unsigned))helper_lookup(library, "cuInit");
	CUresult (*name_of2)(char *, int, CUdevice) =
		(CUresult(*)(char *, int, CUdevice))helper_lookup(library, "cuDeviceGetName");
	CHECK(init1 && name_of1 && init2 && name_of2);
	SHOW(init1(0));
	SHOW(init2(0));
	SHOW(name_of1(name1, sizeof(name1), 0));
	SHOW(name_of2(name2, sizeof(name2), 0));
	printf("first copy: %s, second copy: %s\n", name1, name2);
	return 0;
}

int main(int argc, char **argv)
{
	CHECK(argc == 3);
	library = argv[1];
	mode = argv[2];
	if (strcmp(mode, "two") == 0)
		return two_copies();
	if (strcmp(mode, "helper") != 0) {
		handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
		CHECK(handle != NULL);
	}

	CUresult (*init)(unsigned) = (CUresult(*)(unsigned))lookup("cuInit");
	CUresult (*get_count)(int *) = (CUresult(*)(int *))lookup("cuDeviceGetCount");
	CUresult (*alloc_v1)(unsigned *, unsigned) =
		(CUresult(*)(unsigned *, unsigned))lookup("cuMemAlloc");
	CUresult (*alloc)(CUdeviceptr *, size_t) =
		(CUresult(*)(CUdeviceptr *, size_t))lookup("cuMemAlloc_v2");
	CUresult (*mfree)(CUdeviceptr) = (CUresult(*)(CUdeviceptr))lookup("cuMemFree_v2");
	CUresult (*sync)(CUstream) = (CUresult(*)(CUstream))lookup("cuStreamSynchronize");
	CUresult (*sync_ptsz)(CUstream) = (CUresult(*)(CUstream))lookup("cuStreamSynchronize_ptsz");
	int count = -1;
	unsigned small = 0;
	CUdeviceptr big = 0;

	SHOW(init(0));
	SHOW(get_count(&count));
	SHOW(alloc_v1(&small, 4096));
	SHOW(alloc(&big, 4096));
	SHOW(mfree(big));
	SHOW(sync(NULL));
	SHOW(sync_ptsz(NULL));
	printf("count=%d v1 handle=%#x v2 pointer is not a v1 handle: %d\n", count, small,
	       big != (CUdeviceptr)small);
	printf("mock cuMemAlloc=%ld cuMemAlloc_v2=%ld cuStreamSynchronize=%ld _ptsz=%ld\n",
	       mock_calls("cuMemAlloc"), mock_calls("cuMemAlloc_v2"),
	       mock_calls("cuStreamSynchronize"), mock_calls("cuStreamSynchronize_ptsz"));
	return 0;
}
