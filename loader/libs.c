/* SPDX-License-Identifier: MIT */
/* loader/libs.c: the library registry: one record per CUDA library, from la_objopen to la_objclose and after. */
#include <string.h>
#include "dispatch.h"
#include "libs.h"
#include "log.h"
#include "passthrough.h"
#include "index.h"
#include "procaddress.h"
#include "symtab.h"
#include "table.h"

struct cua_lib cua_libs[CUA_MAX_LIBS];
unsigned cua_nlibs;

const char *cua_libs_layer_name(unsigned layer)
{
	return layer == CUAUDIT_LAYER_DRIVER ? "libcuda" : "libcudart";
}

struct cua_lib *cua_libs_owner(unsigned layer)
{
	for (unsigned i = 0; i < cua_nlibs; i++)
		if (cua_libs[i].live && cua_libs[i].owner && cua_libs[i].layer == layer)
			return &cua_libs[i];
	return NULL;
}

/* A closed record of the same path and layer, else a new one, else any closed one. */
static struct cua_lib *take_record(const char *path, unsigned layer)
{
	for (unsigned i = 0; i < cua_nlibs; i++)
		if (!cua_libs[i].live && cua_libs[i].layer == layer &&
		    strcmp(cua_libs[i].path, path) == 0)
			return &cua_libs[i];
	if (cua_nlibs < CUA_MAX_LIBS) {
		struct cua_lib *lib = &cua_libs[cua_nlibs];

		memset(lib, 0, sizeof(*lib));
		/* Publish the record before the cookie that points at it. */
		__atomic_store_n(&cua_nlibs, cua_nlibs + 1, __ATOMIC_RELEASE);
		return lib;
	}
	for (unsigned i = 0; i < cua_nlibs; i++)
		if (!cua_libs[i].live) {
			memset(&cua_libs[i], 0, sizeof(cua_libs[i]));
			return &cua_libs[i];
		}
	return NULL;
}

static void copy_path(char *dst, const char *src)
{
	size_t n = strlen(src);

	if (n >= CUA_LIB_PATH_MAX)
		n = CUA_LIB_PATH_MAX - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

struct cua_lib *cua_libs_open(struct link_map *map, int layer)
{
	const char *path = cua_lib_path(map);
	struct cua_lib *first = cua_libs_owner((unsigned)layer);
	struct cua_lib *lib = take_record(path, (unsigned)layer);

	if (!lib) {
		cua_log_msg(CUA_LOG_WARN, "too many CUDA libraries; not intercepting ", path, NULL);
		return NULL;
	}
	copy_path(lib->path, path);
	if (cua_symtab_span(map, &lib->lo, &lib->hi) != 0)
		lib->lo = lib->hi = 0;
	lib->layer = (uint8_t)layer;
	lib->owner = first == NULL;
	lib->loads++;
	lib->map = map;
	__atomic_store_n(&lib->live, 1, __ATOMIC_RELEASE);
	if (!lib->owner)
		/* One set of wrappers serves one copy: calls into this one must reach it
		   unchanged rather than be misrouted to the first. */
		cua_log_msg(CUA_LOG_WARN, "a second ", cua_libs_layer_name((unsigned)layer), " (",
			    path, ") is loaded besides ", first->path,
			    "; calls into the second are not intercepted", NULL);
	return lib;
}

/* Nothing may keep pointing into the unmapped code: a later load can reuse the addresses,
   and a wrapper still routed there would call into whatever lands at them. */
/* The index forgets the library's addresses, so no later lookup can match them, and its
   pass-through stubs become free for the next copy. cua_real[] keeps the addresses: a wrapper
   handed out before the close still reaches what the program itself would have reached.
   That matters at exit, where _dl_fini calls la_objclose for libcuda while the objects stay
   mapped and libcudart's destructors still call the driver (a NULL there crashed every
   program that closes the driver before the runtime: bench/calls on the H200). After a real
   unmap, such a call fails as it would natively; every binding of a new copy sets its own. */
static void retire_owner(struct cua_lib *lib)
{
	cua_index_retire(lib->lo, lib->hi);
	cua_pt_retire((void *)lib->lo, (void *)lib->hi);
}

void cua_libs_close(struct cua_lib *lib)
{
	cua_log_msg(CUA_LOG_INFO, cua_libs_layer_name(lib->layer), " unloaded: ", lib->path, NULL);
	if (lib->owner)
		retire_owner(lib);
	lib->map = NULL;
	__atomic_store_n(&lib->live, 0, __ATOMIC_RELEASE);
}

uint64_t cua_lib_binding_count(const struct cua_lib *lib, unsigned kind)
{
	uint64_t n = __atomic_load_n(&lib->binds[kind], __ATOMIC_RELAXED);

	/* Lookups are counted where they happen, per layer; they belong to the owner. */
	if (kind == CUAUDIT_BIND_PROCADDRESS && lib->owner)
		n += cua_procaddress_handed_out(lib->layer);
	return n;
}
