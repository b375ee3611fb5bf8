/* SPDX-License-Identifier: MIT */
/* audit/objopen.c: decides which objects the loader audits and records each CUDA library. */
#include <string.h>
#include "config.h"
#include "libs.h"
#include "dispatch.h"
#include "entrypatch.h"
#include "gotfix.h"
#include "log.h"
#include "procaddress.h"
#include "symtab.h"

struct cua_lib cua_libs[CUA_MAX_LIBS];
unsigned cua_nlibs;

uint64_t cua_lib_binding_count(const struct cua_lib *lib, unsigned kind)
{
	uint64_t n = __atomic_load_n(&lib->binds[kind], __ATOMIC_RELAXED);

	/* Lookups are counted where they happen, per layer; they belong to the owner. */
	if (kind == CUAUDIT_BIND_PROCADDRESS && lib->owner)
		n += cua_procaddress_handed_out(lib->layer);
	return n;
}

static const char *layer_lib(unsigned layer)
{
	return layer == CUAUDIT_LAYER_DRIVER ? "libcuda" : "libcudart";
}

static struct cua_lib *first_of_layer(unsigned layer)
{
	for (unsigned i = 0; i < cua_nlibs; i++)
		if (cua_libs[i].layer == layer && cua_libs[i].owner)
			return &cua_libs[i];
	return NULL;
}

static struct cua_lib *add_lib(struct link_map *map, int layer)
{
	struct cua_lib *first = first_of_layer((unsigned)layer);
	struct cua_lib *lib;

	if (cua_nlibs == CUA_MAX_LIBS) {
		cua_log_msg(CUA_LOG_WARN, "too many CUDA libraries; not intercepting ",
			    cua_lib_path(map), NULL);
		return NULL;
	}
	lib = &cua_libs[cua_nlibs];
	lib->map = map;
	lib->layer = (uint8_t)layer;
	lib->owner = first == NULL;
	if (!lib->owner)
		/* One set of wrappers serves one copy: calls into this one must reach it
		   unchanged rather than be misrouted to the first. */
		cua_log_msg(CUA_LOG_WARN, "a second ", layer_lib((unsigned)layer), " (",
			    cua_lib_path(map), ") is loaded besides ", cua_lib_path(first->map),
			    "; calls into the second are not intercepted", NULL);
	/* Publish the record before the cookie that points at it. */
	__atomic_store_n(&cua_nlibs, cua_nlibs + 1, __ATOMIC_RELEASE);
	return lib;
}

static void add_export(void *lib, const char *elf_name, uintptr_t addr)
{
	cua_procaddress_add(elf_name, addr, ((struct cua_lib *)lib)->layer);
}

/* Every function the library exports, by address: pointers the driver hands out at run time
   are matched by identity, so the version and stream flag always pick the variant the driver
   chose. Built before the library can run, so lookups before cuInit work too. */
static void index_exports(struct cua_lib *lib)
{
	if (cua_symtab_each_function(lib->map, add_export, lib) < 0)
		cua_log_msg(CUA_LOG_WARN, "cannot read the symbol table of ", cua_lib_path(lib->map),
			    "; pointers it hands out are not intercepted", NULL);
	cua_procaddress_seal();
}

/* GOT and data slots are resolved without la_symbind64: fix them once relocation is done. */
CUA_LA_EXPORT void la_activity(uintptr_t *cookie, unsigned int flag)
{
	(void)cookie;
	if (flag == LA_ACT_CONSISTENT)
		cua_gotfix_run();
}

CUA_LA_EXPORT unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	int layer = cua_objopen_classify(map->l_name, cua_cfg.libcuda, cua_cfg.libcudart);
	struct cua_lib *lib;

	(void)lmid;
	if (layer == CUA_LIB_NONE) {
		*cookie = 0;
		/* Before any of the object's code can run: see docs/design.md, entry patching. */
		if (cua_cfg.static_runtime)
			cua_entrypatch_object(map);
		/* Only an object with undefined CUDA symbols can bind to CUDA through its PLT or
		   GOT. Leaving the others unaudited keeps the loader from calling la_symbind64 for
		   each of their bindings: thousands in a PyTorch process. Their dlsym lookups are
		   still seen, because libcuda and libcudart carry LA_FLG_BINDTO (FACTS 1). */
		if (!cua_symtab_references_cuda(map))
			return 0;
		cua_gotfix_note(map);
		return LA_FLG_BINDFROM;
	}
	cua_version_flush_warnings();
	if (cua_active)
		cua_clock_calibrate();
	lib = add_lib(map, layer);
	*cookie = (uintptr_t)lib;
	if (!lib)
		return LA_FLG_BINDFROM;
	cua_log_msg(CUA_LOG_INFO, layer_lib(lib->layer), " loaded: ", cua_lib_path(map), NULL);
	if (lib->owner)
		index_exports(lib);
	return LA_FLG_BINDFROM | LA_FLG_BINDTO;
}
