/* SPDX-License-Identifier: MIT */
/* audit/entrypatch.h: redirects the functions of a statically linked CUDA runtime by patching their entries. */
#ifndef CUA_ENTRYPATCH_H
#define CUA_ENTRYPATCH_H

#include <link.h>
#include <stdint.h>

/* With CUAUDIT_STATIC_RUNTIME=1: if the object's file names a CUDA runtime in its .symtab,
   points the entry of each runtime function the generator knows at its wrapper. From
   la_objopen, before any of the object's code can run. Returns 1 when the object was patched
   (it is then recorded until cua_entrypatch_forget), else 0. */
int cua_entrypatch_object(struct link_map *map);

/* A loader cookie for a patched object that has no other record (no undefined CUDA symbols),
   so that la_objclose can find it; 0 if the object is not recorded. */
uintptr_t cua_entrypatch_cookie(const struct link_map *map);
/* The patched object behind such a cookie, or NULL for any other cookie (a range check). */
struct link_map *cua_entrypatch_of_cookie(uintptr_t cookie);

/* Forgets what was recorded about an object (from la_objclose): its code is gone, so its
   trampolines are freed and a later object may own the entry slots. Patches are never
   undone while the object is loaded. */
void cua_entrypatch_forget(struct link_map *map);

/* With CUAUDIT_STATIC_RUNTIME off, when the driver loads (once): one warning naming the
   first object loaded so far whose file holds a statically linked runtime (nvcc's default),
   since its runtime calls are then seen at the driver level only, and naming the option. */
void cua_entrypatch_hint(struct link_map *driver);

/* At exit, one info line per patched object: how many entries were patched and refused, by
   reason. */
void cua_entrypatch_report(void);

#endif
