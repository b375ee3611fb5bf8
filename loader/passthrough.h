/* SPDX-License-Identifier: MIT */
/* loader/passthrough.h: counting trampolines for exports the headers do not describe. */
#ifndef CUA_PASSTHROUGH_H
#define CUA_PASSTHROUGH_H

#include <stdint.h>

#define CUA_PT_COUNT 256
#define CUA_PT_STUB_SIZE 16
#define CUA_PT_NAME_MAX 96

/* Returns a trampoline that counts its calls and jumps to real with every argument register
   untouched; the same one for the same real address. NULL when unsupported or all are used. */
void *cua_pt_get(const char *elf_name, void *real);

/* Forgets the real addresses in [lo, hi), a library that was unloaded: the stub of the same
   name is handed out again when a new copy binds it. */
void cua_pt_retire(void *lo, void *hi);

/* How many trampolines are in use, and each one's name and call count. */
unsigned cua_pt_used(void);
const char *cua_pt_name(unsigned i);
uint64_t cua_pt_calls_of(unsigned i);

#endif
