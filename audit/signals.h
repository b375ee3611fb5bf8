/* SPDX-License-Identifier: MIT */
/* audit/signals.h: signal handlers the program installs run as calls of their own, not nested in the call they interrupt. */
#ifndef CUA_SIGNALS_H
#define CUA_SIGNALS_H

#include <link.h>
#include <stdint.h>

/* Whether handler installation is watched: some hook sees calls (from la_objopen on). */
int cua_signals_wanted(void);

/* 1 if elf_name is sigaction or signal. */
unsigned cua_signals_is_name(const char *elf_name);

/* For the main namespace's C library: records its sigaction and signal from its own symbol
   table. Returns 1 when both were found. */
int cua_signals_open_libc(struct link_map *map);

/* A binding to the C library: our wrapper for sigaction or signal when value is the address
   recorded, else value unchanged. */
uintptr_t cua_signals_bind(const char *symname, uintptr_t value);

#endif
