/* SPDX-License-Identifier: MIT */
/* cli/demangle.c: readable C++ names for the command's outputs, with the module's own bounded demangler only. */
#include <stdlib.h>
#include <string.h>
#include "demangle.h"

/* base/demangle.c only: the module's summary table, log and trace print its text, so
   `report` and `export` print the same names for them; a name it does not read stays
   mangled here too. Its time and memory are bounded whatever the name (a fixed node table,
   step and depth bounds, an output buffer of 8 bytes a byte of the name). libstdc++'s __cxa_demangle is not used:
   it has no bound on either (a 217-byte name whose substitutions each name the one before
   three times asks it for gigabytes and minutes, tests/cases/readable.sh), and one name in a
   summary would hang the command. */
static char *readable(const char *name)
{
	size_t len = strlen(name), cap = len * 8 + 4096;
	char *out = malloc(cap);

	if (out && cua_demangle_into(out, cap, name, len) > 0)
		return out;
	free(out);
	return NULL;
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
