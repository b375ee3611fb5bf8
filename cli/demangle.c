/* SPDX-License-Identifier: MIT */
/* cli/demangle.c: readable C++ names for the command's outputs, through the C++ runtime's own demangler. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "demangle.h"

int cua_demangle_on = 1;

typedef char *(*cxa_demangle_fn)(const char *mangled, char *out, size_t *len, int *status);

/* The C++ runtime's demangler, looked up once: the command is C and links no C++ runtime,
   so a system without libstdc++ still gets every output, with mangled names. */
static cxa_demangle_fn demangler(void)
{
	static int looked;
	static cxa_demangle_fn fn;
	void *h;

	if (looked)
		return fn;
	looked = 1;
	h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
	if (h)
		*(void **)&fn = dlsym(h, "__cxa_demangle");
	return fn;
}

const char *cua_demangle(const char *name)
{
	static char *last_in, *last_out;
	cxa_demangle_fn fn;
	int status = -1;
	char *out;

	/* Itanium C++ ABI names start with _Z; anything else is a C name already. */
	if (!cua_demangle_on || !name || strncmp(name, "_Z", 2) != 0 || !(fn = demangler()))
		return name;
	if (last_in && strcmp(last_in, name) == 0)
		return last_out;
	out = fn(name, NULL, NULL, &status);
	if (status != 0 || !out) {
		free(out);
		return name;
	}
	free(last_in);
	free(last_out);
	last_in = strdup(name);
	last_out = out;
	if (!last_in) {
		last_out = NULL;
		free(out);
		return name;
	}
	return last_out;
}
