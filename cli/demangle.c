/* SPDX-License-Identifier: MIT */
/* cli/demangle.c: readable C++ names for the command's outputs: the module's own demangler first, the C++ runtime's where it fails. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "demangle.h"

typedef char *(*cxa_demangle_fn)(const char *mangled, char *out, size_t *len, int *status);

/* The C++ runtime's demangler, looked up once: the command is C and links no C++ runtime,
   so a system without libstdc++ still gets every output, with what the module's own
   demangler reads and mangled names for the rest. */
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

/* hooks/core/demangle.c first: the module's summary table, log and trace print its text, so
   `report` and `export` print the same names for them. __cxa_demangle only for the
   constructs it does not read (it prints their libstdc++ text, or fails). */
static char *readable(const char *name)
{
	size_t len = strlen(name), cap = len * 8 + 4096, n;
	char *out = malloc(cap);
	cxa_demangle_fn fn;
	int status = -1;

	if (out && (n = cua_demangle_into(out, cap, name, len)) > 0)
		return out;
	free(out);
	out = NULL;
	if ((fn = demangler()))
		out = fn(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		out = NULL;
	}
	return out;
}

const char *cua_demangle(const char *name)
{
	static char *last_in, *last_out;
	char *out;

	/* Itanium C++ ABI names start with _Z; anything else is a C name already. */
	if (!cua_demangle_names || !name || strncmp(name, "_Z", 2) != 0)
		return name;
	if (last_in && strcmp(last_in, name) == 0)
		return last_out ? last_out : name;
	out = readable(name);
	free(last_in);
	free(last_out);
	last_in = strdup(name);
	last_out = out;
	if (!last_in) {
		free(out);
		last_out = NULL;
		return name;
	}
	return last_out ? last_out : name;
}
