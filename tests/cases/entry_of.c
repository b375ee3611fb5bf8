/* SPDX-License-Identifier: MIT */
/* tests/cases/entry_of.c: prints, for each name on the command line, the object and offset of the address dlsym returns for it from libcuda. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW);

	if (!lib) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		void *p = dlsym(lib, argv[i]);
		Dl_info info;

		if (!p || !dladdr(p, &info)) {
			printf("%s none\n", argv[i]);
			continue;
		}
		/* The offset, so that it can be matched with nm's value of the entry symbol. */
		printf("%s %s %lx\n", argv[i], strrchr(info.dli_fname, '/') ?
		       strrchr(info.dli_fname, '/') + 1 : info.dli_fname,
		       (unsigned long)((uintptr_t)p - (uintptr_t)info.dli_fbase));
	}
	return 0;
}
