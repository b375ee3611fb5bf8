/* SPDX-License-Identifier: MIT */
/* audit/exec.h: writes a program image's outputs when exec is about to replace it. */
#ifndef CUA_EXEC_H
#define CUA_EXEC_H

#include <link.h>
#include <stdint.h>

/* Whether exec is watched: some output has exit work to do (from la_objopen on). */
int cua_exec_wanted(void);

/* 1 if elf_name is one of the exec functions (execve, execv, ... fexecve, execveat). */
unsigned cua_exec_is_name(const char *elf_name);

/* For the C library of the main namespace: records its exec functions from its own symbol
   table and returns the cookie to give it (with LA_FLG_BINDTO); 0 for any other object. */
uintptr_t cua_exec_open_libc(struct link_map *map, Lmid_t lmid);

/* Whether a cookie is the one cua_exec_open_libc gave. */
int cua_exec_is_cookie(uintptr_t cookie);

/* A binding to the C library: the wrapper for an exec function whose address is the one
   recorded, else value unchanged. */
uintptr_t cua_exec_bind(const char *symname, uintptr_t value);

#endif
