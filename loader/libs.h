/* SPDX-License-Identifier: MIT */
/* loader/libs.h: the CUDA libraries the loader has opened, one record each, used as cookies. */
#ifndef CUA_LIBS_H
#define CUA_LIBS_H

#include <link.h>
#include <stdint.h>
#include "cuaudit.h"

#define CUA_MAX_LIBS 16


enum cua_lib_kind {
	CUA_LIB_NONE = -1,
	CUA_LIB_DRIVER = CUAUDIT_LAYER_DRIVER,
	CUA_LIB_RUNTIME = CUAUDIT_LAYER_RUNTIME,
};

#define CUA_LIB_PATH_MAX 1024

/* A record outlives its object: the exit report and the summary read it after la_objclose.
   Only the loader's callbacks write it (one at a time: the loader holds its lock). */
struct cua_lib {
	struct link_map *map; /* NULL once the object is closed: never read after la_objclose */
	char path[CUA_LIB_PATH_MAX]; /* our copy of the loader's name */
	uintptr_t lo, hi;             /* the addresses its segments spanned */
	uint32_t loads;               /* times an object at this path was opened */
	uint8_t layer; /* enum cuaudit_layer */
	uint8_t owner; /* the copy of its layer whose bindings go to the wrappers */
	uint8_t live;  /* between la_objopen and la_objclose */
	uint64_t binds[CUAUDIT_BIND_COUNT];
	uint64_t passthrough; /* bindings of exports without a prototype */
	uint64_t unwrapped;   /* bindings left alone (a second copy, or no trampoline left) */
};

extern struct cua_lib cua_libs[CUA_MAX_LIBS];
extern unsigned cua_nlibs;

/* Records a CUDA library the loader opened (la_objopen): a closed record of the same path is
   taken again, so that a program reloading libcuda keeps one line in the report. It owns
   its layer's wrappers when no live copy does. Returns NULL when every record is in use. */
struct cua_lib *cua_libs_open(struct link_map *map, int layer);
/* Retires what was kept about a library that goes away (la_objclose): its exports in the
   address index, the real pointers of its layer, its pass-through stubs, its link_map. */
void cua_libs_close(struct cua_lib *lib);
/* The live copy that owns a layer's wrappers, or NULL. */
struct cua_lib *cua_libs_owner(unsigned layer);
/* "libcuda" or "libcudart". */
const char *cua_libs_layer_name(unsigned layer);

/* The record behind a loader cookie, or NULL for any object that is not a CUDA library.
   Cookies we never set hold the link_map address, so the check is by range, not by value. */
static inline struct cua_lib *cua_lib_of_cookie(uintptr_t cookie)
{
	uintptr_t base = (uintptr_t)cua_libs;

	if (cookie - base >= sizeof(cua_libs))
		return NULL;
	return (struct cua_lib *)cookie;
}

/* Bindings of one kind to a library, lookups that handed out its pointers included. */
uint64_t cua_lib_binding_count(const struct cua_lib *lib, unsigned kind);

/* The loader's name for an object, "" for the executable. */
static inline const char *cua_lib_path(const struct link_map *map)
{
	return map && map->l_name && map->l_name[0] ? map->l_name : "(executable)";
}


#endif
