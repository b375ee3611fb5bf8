/* SPDX-License-Identifier: MIT */
/* audit/gotfix.h: rewrites CUDA addresses in GOT and data slots that the loader never audits. */
#ifndef CUA_GOTFIX_H
#define CUA_GOTFIX_H

#include <link.h>

/* Remembers an object whose GLOB_DAT and 64-bit relocations are to be checked once the
   loader reports the namespace consistent. From la_objopen. */
void cua_gotfix_note(struct link_map *map);

/* Rewrites the slots of every noted object that hold a real CUDA function address with the
   wrapper of that function. From la_activity(LA_ACT_CONSISTENT). */
void cua_gotfix_run(void);

/* The program headers of a loaded object (the executable's from the aux vector), or NULL;
   *count gets their number. */
const ElfW(Phdr) *cua_gotfix_phdrs(const struct link_map *map, unsigned *count);

#endif
