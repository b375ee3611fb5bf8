/* SPDX-License-Identifier: MIT */
/* audit/entrypatch.h: redirects the functions of a statically linked CUDA runtime by patching their entries. */
#ifndef CUA_ENTRYPATCH_H
#define CUA_ENTRYPATCH_H

#include <link.h>

/* With CUAUDIT_STATIC_RUNTIME=1: if the object's file names a CUDA runtime in its .symtab,
   points the entry of each runtime function the generator knows at its wrapper. From
   la_objopen, before any of the object's code can run. */
void cua_entrypatch_object(struct link_map *map);

/* Forgets what was recorded about an object (from la_objclose): its code is gone, so its
   trampolines are freed and a later object may own the entry slots. Patches are never
   undone while the object is loaded. */
void cua_entrypatch_forget(struct link_map *map);

/* At exit, one info line per patched object: how many entries were patched and refused, by
   reason. */
void cua_entrypatch_report(void);

#endif
