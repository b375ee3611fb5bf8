/* SPDX-License-Identifier: MIT */
/* tests/cases/helper.c: a shared library that dlopens the driver and dlsyms for its caller. */
#include <dlfcn.h>
#include <stddef.h>

__attribute__((visibility("default"))) void *helper_lookup(const char *library, const char *elf_name)
{
	void *h = dlopen(library, RTLD_NOW | RTLD_LOCAL);

	return h ? dlsym(h, elf_name) : NULL;
}
