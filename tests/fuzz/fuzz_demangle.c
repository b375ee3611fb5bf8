/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_demangle.c: libFuzzer target for the module's C++ demangler, with libstdc++'s __cxa_demangle as the oracle. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "demangle.h"

#define CHECK(cond)                                                                            \
	do {                                                                                   \
		if (!(cond))                                                                   \
			abort();                                                               \
	} while (0)

typedef char *(*cxa_demangle_fn)(const char *mangled, char *out, size_t *len, int *status);

static cxa_demangle_fn oracle(void)
{
	static int looked;
	static cxa_demangle_fn fn;

	if (!looked) {
		void *h = dlopen("libstdc++.so.6", RTLD_NOW);

		looked = 1;
		if (h)
			*(void **)&fn = dlsym(h, "__cxa_demangle");
	}
	return fn;
}

/* The name is read from data[0, size) exactly (not NUL-terminated: ASan sees a read past
   it); the output stays within its cap, is NUL-terminated and as long as returned. When the
   demangler reads a name, libstdc++ reads it the same, or cannot read it at all (it fails
   on some long names that LLVM's demangler reads as ours does). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[1 << 16];
	char *name = malloc(size ? size : 1), *copy;
	size_t n;

	CHECK(name);
	memcpy(name, data, size);
	memset(out, 'X', sizeof(out));
	n = cua_demangle_into(out, 4096, name, size);
	CHECK(out[4096] == 'X');
	if (n) {
		CHECK(n < 4096 && out[n] == '\0' && strlen(out) == n);
		/* A name with a NUL inside is never read: the oracle sees the same bytes. */
		copy = malloc(size + 1);
		CHECK(copy);
		memcpy(copy, data, size);
		copy[size] = '\0';
		if (oracle() && strlen(copy) == size) {
			int status = -1;
			char *want = oracle()(copy, NULL, NULL, &status);

			CHECK(status != 0 || strcmp(want, out) == 0);
			free(want);
		}
		free(copy);
	}
	free(name);
	return 0;
}
