/* SPDX-License-Identifier: MIT */
/* loader/classify.c: tells from a loaded object's path or exports whether it is libcuda, libcudart or neither. */
#include <string.h>
#include "classify.h"
#include "libs.h"
#include "symtab.h"

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static int has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* libcuda.so, libcuda.so.1 and libcuda.so.<driver version>; likewise libcudart. */
static int names_library(const char *base, const char *stem)
{
	size_t n = strlen(stem);

	return strncmp(base, stem, n) == 0 && (base[n] == '\0' || base[n] == '.');
}

int cua_objopen_classify(const char *path, const char *sub_driver, const char *sub_runtime)
{
	const char *base;

	if (!path || !path[0])
		return CUA_LIB_NONE;
	if (sub_driver && sub_driver[0] && strcmp(path, sub_driver) == 0)
		return CUA_LIB_DRIVER;
	if (sub_runtime && sub_runtime[0] && strcmp(path, sub_runtime) == 0)
		return CUA_LIB_RUNTIME;
	base = base_name(path);
	if (!has_prefix(base, "libcuda"))
		return CUA_LIB_NONE;
	if (names_library(base, "libcuda.so"))
		return CUA_LIB_DRIVER;
	if (names_library(base, "libcudart.so"))
		return CUA_LIB_RUNTIME;
	return CUA_LIB_NONE;
}


/* What only the driver exports: the lookup every runtime starts with, and cuInit. What only
   a runtime exports: the fat binary registration nvcc emits and the driver entry point. */
int cua_objopen_classify_exports(const struct link_map *map)
{
	if (cua_symtab_defines(map, "cuGetProcAddress_v2") && cua_symtab_defines(map, "cuInit"))
		return CUA_LIB_DRIVER;
	if (cua_symtab_defines(map, "__cudaRegisterFatBinary") &&
	    cua_symtab_defines(map, "cudaGetDriverEntryPoint"))
		return CUA_LIB_RUNTIME;
	return CUA_LIB_NONE;
}
