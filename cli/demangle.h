/* SPDX-License-Identifier: MIT */
/* cli/demangle.h: readable C++ names for the command's outputs (kernel names arrive mangled). */
#ifndef CLI_DEMANGLE_H
#define CLI_DEMANGLE_H

/* Whether readable names are wanted at all (--mangled turns them off); on by default. */
extern int cua_demangle_on;

/* The readable form of a mangled C++ name, or name itself when it is not one, demangling is
   off, or the C++ runtime cannot be found. The result lives until the next call with another
   name from the same thread of the command (a small cache), so copy it to keep it. */
const char *cua_demangle(const char *name);

#endif
