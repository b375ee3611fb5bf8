/* SPDX-License-Identifier: MIT */
/* tests/cases/tls_dlopen.c: dlopens the library named by argv[1] and uses its TLS: status 0, or 1 with the loader's message. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
	char *(*get)(void);

	if (!h) {
		printf("dlopen failed: %s\n", dlerror());
		return 1;
	}
	*(void **)&get = dlsym(h, "tls_ie_get");
	if (!get) {
		printf("no tls_ie_get\n");
		return 1;
	}
	get()[1023] = 1;
	printf("ok\n");
	return 0;
}
