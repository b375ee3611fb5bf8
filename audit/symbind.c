/* SPDX-License-Identifier: MIT */
/* audit/symbind.c: turns each CUDA binding the loader reports into a wrapper address. */
#include <elf.h>
#include <link.h>
#include "audit.h"
#include "dispatch.h"
#include "exec.h"
#include "gotfix.h"
#include "libs.h"
#include "log.h"
#include "nvml.h"
#include "nvtxlegacy.h"
#include "passthrough.h"
#include "table.h"


static unsigned binding_kind(unsigned int flags)
{
	if (flags & LA_SYMB_DLSYM)
		return CUAUDIT_BIND_DLSYM;
	/* glibc >= 2.35 reports bind-now slots at load time with both NOPLT flags set. */
	if ((flags & (LA_SYMB_NOPLTENTER | LA_SYMB_NOPLTEXIT)) ==
	    (LA_SYMB_NOPLTENTER | LA_SYMB_NOPLTEXIT))
		return CUAUDIT_BIND_BINDNOW;
	return CUAUDIT_BIND_PLT;
}

/* The binding object's name: a CUDA library's record, or the object gotfix keeps, both
   live while the loader reports its bindings. */
static const char *ref_name(uintptr_t refcook)
{
	struct cua_lib *lib = cua_lib_of_cookie(refcook);
	struct cua_ref *ref = cua_gotfix_ref(refcook);

	if (lib)
		return lib->path;
	return ref ? cua_lib_path(ref->map) : "another object";
}

static void log_binding(const char *symname, unsigned kind, uintptr_t refcook, const char *how)
{
	if (!cua_log_on(CUA_LOG_DEBUG))
		return;
	cua_log_msg(CUA_LOG_DEBUG, "bind ", symname, " (", cua_binding_names[kind], ") from ",
		    ref_name(refcook), ": ", how, NULL);
}

static uintptr_t pass_through(struct cua_lib *def, const char *symname, uintptr_t real,
			      unsigned kind)
{
	void *stub = cua_pt_get(symname, (void *)real);

	if (!stub) {
		__atomic_add_fetch(&def->unwrapped, 1, __ATOMIC_RELAXED);
		log_binding(symname, kind, 0, "left unwrapped");
		return real;
	}
	__atomic_add_fetch(&def->passthrough, 1, __ATOMIC_RELAXED);
	log_binding(symname, kind, 0, "no prototype, counting pass-through");
	return (uintptr_t)stub;
}

static uintptr_t redirect(Elf64_Sym *sym, struct cua_lib *def, uintptr_t refcook,
			  unsigned int flags, const char *symname)
{
	struct cua_lib *ref = cua_lib_of_cookie(refcook);
	unsigned type = ELF64_ST_TYPE(sym->st_info);
	unsigned kind = binding_kind(flags);
	int id;

	/* Data symbols, a library's calls to itself and a second copy stay as they are. */
	if ((type != STT_FUNC && type != STT_GNU_IFUNC) || ref == def)
		return sym->st_value;
	if (!def->owner) {
		__atomic_add_fetch(&def->unwrapped, 1, __ATOMIC_RELAXED);
		return sym->st_value;
	}
	id = cua_table_find(symname);
	if (id < 0 || cua_api[id].layer != def->layer)
		return pass_through(def, symname, sym->st_value, kind);
	/* A GOT or data slot that gotfix turned into a JUMP_SLOT, reported at load. */
	if (kind == CUAUDIT_BIND_BINDNOW && cua_gotfix_was_slot(cua_gotfix_ref(refcook), (unsigned)id))
		kind = CUAUDIT_BIND_GOT;
	/* Idempotent: every binding of this name in this object carries the same address. */
	__atomic_store_n(&cua_real[id], (void *)sym->st_value, __ATOMIC_RELEASE);
	__atomic_add_fetch(&def->binds[kind], 1, __ATOMIC_RELAXED);
	log_binding(symname, kind, refcook,
		    cua_entry_kind(kind, id) == CUA_RAW ? "raw entry, no subscription covers it"
							: "wrapped");
	return (uintptr_t)cua_wrapper(kind, id);
}

CUA_LA_EXPORT uintptr_t la_symbind64(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook, uintptr_t *defcook,
		       unsigned int *flags, const char *symname)
{
	struct cua_lib *def = cua_lib_of_cookie(*defcook);

	(void)ndx;
	if (CUA_LIKELY(!def)) {
		if (cua_exec_is_cookie(*defcook))
			return cua_exec_bind(symname, sym->st_value);
		if (cua_nvtxlegacy_is_cookie(*defcook))
			return cua_nvtxlegacy_bind(symname, sym->st_value);
		return cua_nvml_is_cookie(*defcook) ? cua_nvml_bind(symname, sym->st_value)
						    : sym->st_value;
	}
	return redirect(sym, def, *refcook, *flags, symname);
}
