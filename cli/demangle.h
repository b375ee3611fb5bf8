/* SPDX-License-Identifier: MIT */
/* cli/demangle.h: readable C++ names for the command's outputs (kernel names arrive mangled). */
#ifndef CLI_DEMANGLE_H
#define CLI_DEMANGLE_H

/* cua_demangle_names (base/demangle.h) says whether readable names are wanted at all:
   --mangled turns it off; on by default. */
#include "../base/demangle.h"

/* The readable form of a mangled C++ name, or name itself when it is not one, demangling is
   off, or the module's demangler does not read it (no other is used: no other has a bound
   on its time and memory). The result lives until the next call with another name (a
   small cache), so copy it to keep it. */
const char *cua_demangle(const char *name);

#endif
