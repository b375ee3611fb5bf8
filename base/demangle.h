/* SPDX-License-Identifier: MIT */
/* base/demangle.h: readable C++ names from Itanium-mangled ones, without the C++ runtime, safe on any thread. */
#ifndef CUA_DEMANGLE_H
#define CUA_DEMANGLE_H

#include <stddef.h>

/* Writes the readable form of the mangled name name[0, len) (an Itanium C++ ABI name,
   "_Z...", as g++, clang and nvcc write kernel names) into out, NUL-terminated, the way
   libstdc++'s __cxa_demangle prints it. Returns its length, or 0 when the name is not a
   mangled name, uses a construct this demangler does not know, is nested past its depth
   limits, or does not fit in cap: the caller then shows the mangled name. No allocation,
   no locale, no lock; bounded in depth and in work. cua_demangle_into puts the parser's
   tables (40 KiB) on the caller's stack: for the command and tests, never for an
   application thread. */
size_t cua_demangle_into(char *out, size_t cap, const char *name, size_t len);

/* The parser's tables (a node table, substitutions, template arguments, the work stacks):
   for a caller that keeps them off a thread's stack (static behind its own lock). What the
   recursion takes of the stack is then bounded whatever the name: every recursive step
   counts against a depth limit and no frame holds an array. The most measured on hostile
   names, in an optimised build, stays under CUA_DEMANGLE_STACK_MAX (a real kernel name takes
   under 3 KiB): a thread with a 32 KiB stack has room. */
#define CUA_DEMANGLE_STACK_MAX (6u << 10)
#define CUA_DEMANGLE_STATE_BYTES (40u << 10)
struct cua_demangle_state {
	_Alignas(8) unsigned char bytes[CUA_DEMANGLE_STATE_BYTES];
};
size_t cua_demangle_with(struct cua_demangle_state *state, char *out, size_t cap, const char *name,
			 size_t len);

/* Whether the module's outputs show readable names (CUAUDIT_DEMANGLE, on by default); set
   once in la_version, or by the command from its option. */
extern int cua_demangle_names;

#endif
