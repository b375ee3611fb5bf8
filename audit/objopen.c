/* SPDX-License-Identifier: MIT */
/* audit/objopen.c: decides which objects the loader audits and records each CUDA library. */
#include <string.h>
#include "classify.h"
#include "audit.h"
#include "environment.h"
#include "config.h"
#include "libs.h"
#include "dispatch.h"
#include "entrypatch.h"
#include "exec.h"
#include "signals.h"
#include "gotfix.h"
#include "livefmt.h"
#include "log.h"
#include "nvtx.h"
#include "memlimit.h"
#include "gpu.h"
#include "nvml.h"
#include "nvtxlegacy.h"
#include "index.h"
#include "procaddress.h"
#include "symtab.h"
#include "table.h"


static void add_export(void *lib, const char *elf_name, uintptr_t addr)
{
	cua_index_add(elf_name, addr, ((struct cua_lib *)lib)->layer);
}

/* Every function the library exports, by address: pointers the driver hands out at run time
   are matched by identity, so the version and stream flag always pick the variant the driver
   chose. Built before the library can run, so lookups before cuInit work too. */
static void index_exports(struct cua_lib *lib)
{
	if (cua_symtab_each_function(lib->map, add_export, lib) < 0)
		cua_log_msg(CUA_LOG_WARN, "cannot read the symbol table of ", lib->path,
			    "; pointers it hands out are not intercepted", NULL);
	cua_index_seal();
}

static const char *activity_name(unsigned int flag)
{
	switch (flag) {
	case LA_ACT_CONSISTENT: return "consistent";
	case LA_ACT_ADD: return "add";
	case LA_ACT_DELETE: return "delete";
	default: return "other";
	}
}

/* At start-up LA_ACT_CONSISTENT follows relocation; at a dlopen it precedes it (glibc
   elf/dl-open.c, dl_open_worker_begin): only the first one can fix relocated slots. */
CUA_LA_EXPORT void la_activity(uintptr_t *cookie, unsigned int flag)
{
	(void)cookie;
	/* Silent in processes without CUDA, like everything else. */
	if (cua_nlibs)
		cua_log_msg(CUA_LOG_DEBUG, "activity ", activity_name(flag), NULL);
	if (flag == LA_ACT_CONSISTENT) {
		cua_gotfix_run();
		/* The program's C library is relocated, and no code of the program has run. */
		cua_live_watch_forks();
	}
}

/* By file name first; a library renamed by a wheel repair tool (libcudart-1a2b3c4d.so.13)
   by what it exports. The executable is never a CUDA library: static cudart lives there. */
static int classify(struct link_map *map)
{
	int layer = cua_objopen_classify(map->l_name, cua_cfg.libcuda, cua_cfg.libcudart);

	if (layer == CUA_LIB_NONE && map->l_name && map->l_name[0])
		layer = cua_objopen_classify_exports(map);
	return layer;
}

enum { IMPORTS_CUDA = 1, IMPORTS_EXEC = 2, IMPORTS_SIGNALS = 4, IMPORTS_NVML = 8, IMPORTS_NVTX = 16 };

static unsigned import_kind(const char *elf_name)
{
	if (cua_table_find(elf_name) >= 0)
		return IMPORTS_CUDA;
	if (cua_nvml_is_name(elf_name))
		return IMPORTS_NVML;
	if (cua_nvtxlegacy_is_name(elf_name))
		return IMPORTS_NVTX;
	if (cua_exec_is_name(elf_name))
		return IMPORTS_EXEC;
	return cua_signals_is_name(elf_name) ? IMPORTS_SIGNALS : 0;
}

/* The owning driver was unloaded (la_objclose; written under the loader's lock): the next
   one to load takes over nothing the old one handed out. */
static int driver_closed;

/* Only an object with undefined CUDA symbols can bind to CUDA through its PLT or GOT.
   Leaving the others unaudited keeps the loader from calling la_symbind64 for each of their
   bindings: thousands in a PyTorch process. Their dlsym lookups are still seen, because
   libcuda and libcudart carry LA_FLG_BINDTO (docs/facts.md §1.2, §1.3). An object that calls
   exec is audited too, when some output must be written before exec replaces the image. */
static unsigned int open_other(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	/* Before any of the object's code can run: see docs/design.md, entry patching. */
	int patched = cua_cfg.static_runtime && cua_entrypatch_object(map);
	unsigned all = IMPORTS_CUDA | (cua_exec_wanted() ? IMPORTS_EXEC : 0) |
		       (cua_signals_wanted() ? IMPORTS_SIGNALS : 0) |
		       (cua_nvml_wanted() ? IMPORTS_NVML : 0) | (cua_cfg.nvtx ? IMPORTS_NVTX : 0),
		 imports;

	if ((*cookie = cua_exec_open_libc(map, lmid)) != 0)
		return LA_FLG_BINDTO;
	/* cuaudit's NVTX injection library: handed the bridge, and nothing of it is audited. */
	if (cua_cfg.nvtx && cua_nvtx_connect(map))
		return 0;
	/* NVML's memory reports show the quota (audit/nvml.c); its dlsym lookups (nvidia-smi,
	   pynvml) are seen through LA_FLG_BINDTO alone. */
	if ((*cookie = cua_nvml_open(map)) != 0)
		return LA_FLG_BINDTO;
	/* The legacy libnvToolsExt: its exported NVTX functions are bound to wrappers, as
	   libcuda's are; callers that import them get LA_FLG_BINDFROM below. */
	if ((*cookie = cua_nvtxlegacy_open(map)) != 0)
		return LA_FLG_BINDTO;
	/* By the generated table, not by a "cu" prefix: curl_easy_init and cuserid are no CUDA
	   functions, and an object that names none of ours cannot bind to a wrapper. */
	imports = cua_symtab_imports(map, import_kind, all) & all;
	/* A runtime linked into the object, patched: the live view's file is made now, as for a
	   shared runtime. */
	if (patched)
		cua_live_prepare();
	if (!imports) {
		if (patched)
			*cookie = cua_entrypatch_cookie(map);
		return 0;
	}
	/* Its GOT slots of CUDA or exec functions are turned into audited JUMP_SLOTs. */
	*cookie = cua_gotfix_open(map);
	/* Only objects that name CUDA functions: a process that never loads CUDA stays silent,
	   although its C runtime (libubsan, a JVM) imports sigaction or execve. */
	if (imports & IMPORTS_CUDA) {
		struct cua_ref *ref = cua_gotfix_ref(*cookie);

		if (ref)
			ref->cuda = 1;
		cua_log_msg(CUA_LOG_DEBUG, "object opened: ", cua_lib_path(map), NULL);
	}
	return LA_FLG_BINDFROM;
}

CUA_LA_EXPORT unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	int layer = classify(map);
	struct cua_lib *lib;

	if (layer == CUA_LIB_NONE)
		return open_other(map, lmid, cookie);
	cua_environment_flush_warnings();
	if (cua_active)
		cua_clock_calibrate();
	lib = cua_libs_open(map, layer);
	*cookie = (uintptr_t)lib;
	if (!lib)
		return LA_FLG_BINDFROM;
	cua_log_msg(CUA_LOG_INFO, cua_libs_layer_name(lib->layer), " loaded: ", lib->path, NULL);
	if (layer == CUA_LIB_DRIVER && lib->owner && cua_active)
		cua_entrypatch_hint(map);
	/* The live view's file: now, before the first call (the driver, or the runtime that
	   will load it inside its first call). */
	if (lib->owner) {
		cua_live_prepare();
		cua_memlimit_prepare();
		/* What the unloaded driver held went with it. */
		if (layer == CUA_LIB_DRIVER && driver_closed) {
			driver_closed = 0;
			cua_memlimit_driver_reloaded();
		}
	}
	if (lib->owner)
		index_exports(lib);
	return LA_FLG_BINDFROM | LA_FLG_BINDTO;
}

/* The loader is about to free the link_map: after this, nothing of the object is read. */
CUA_LA_EXPORT unsigned int la_objclose(uintptr_t *cookie)
{
	/* The main namespace's C library is closed only by _dl_fini at exit, and stays mapped:
	   its cookie stays, so that an exec bound lazily while another thread exits (after
	   this point) is still seen. Nothing of its link_map is read. */
	if (cua_exec_is_cookie(*cookie))
		return 0;
	struct cua_lib *lib = cua_lib_of_cookie(*cookie);
	struct cua_ref *ref = cua_gotfix_ref(*cookie);
	struct link_map *patched = cua_entrypatch_of_cookie(*cookie);

	/* A patched object's trampolines go with it; one with CUDA references has a cua_ref. */
	if (patched || ref)
		cua_entrypatch_forget(patched ? patched : ref->map);
	if (lib) {
		/* Nothing the driver handed out outlives it: GPU timing's events. */
		if (lib->owner && lib->layer == CUA_LIB_DRIVER) {
			cua_gpu_driver_closed();
			driver_closed = 1;
		}
		cua_libs_close(lib);
	}
	else if (ref && ref->cuda)
		cua_log_msg(CUA_LOG_DEBUG, "object closed: ", cua_lib_path(ref->map), NULL);
	cua_gotfix_close(*cookie);
	*cookie = 0;
	return 0;
}
