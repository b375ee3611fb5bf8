/* SPDX-License-Identifier: MIT */
/* audit/gotfix.c: turns GOT and data relocations naming CUDA functions into audited JUMP_SLOTs, or fixes the slots after relocation. */
#include <elf.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "dispatch.h"
#include "exec.h"
#include "signals.h"
#include "gotfix.h"
#include "libs.h"
#include "log.h"
#include "index.h"
#include "procaddress.h"
#include "symtab.h"
#include "table.h"

#define MAX_PENDING 4096

static struct cua_ref *pending[MAX_PENDING];
static unsigned npending;
static int overflow_warned;
static int by_relocation;
static int started; /* the start-up LA_ACT_CONSISTENT has passed */

void cua_gotfix_init(unsigned glibc_version)
{
#if defined(__x86_64__)
	by_relocation = glibc_version >= 235;
#else
	(void)glibc_version;
#endif
}

static void note(struct cua_ref *ref)
{
	if (npending < MAX_PENDING) {
		ref->pending = 1;
		pending[npending++] = ref;
		return;
	}
	if (!overflow_warned++)
		cua_log_msg(CUA_LOG_WARN, "too many objects loaded at once; calls through the GOT "
			    "of ", cua_lib_path(ref->map), " and later ones may not be intercepted", NULL);
}

/* One record per live object that references CUDA, taken at its la_objopen and given back
   at its la_objclose; only the loader's callbacks touch the pool. */
#define MAX_REFS 4096
static struct cua_ref refs[MAX_REFS];

static struct cua_ref *take_ref(struct link_map *map)
{
	for (unsigned i = 0; i < MAX_REFS; i++) {
		if (!refs[i].map) {
			memset(&refs[i], 0, sizeof(refs[i]));
			refs[i].map = map;
			return &refs[i];
		}
	}
	return NULL;
}

void cua_gotfix_close(uintptr_t cookie)
{
	struct cua_ref *ref = cua_gotfix_ref(cookie);

	if (!ref)
		return;
	for (unsigned i = 0; ref->pending && i < npending; i++) {
		if (pending[i] == ref) {
			pending[i] = pending[--npending];
			break;
		}
	}
	ref->pending = 0;
	ref->map = NULL;
}

struct relro {
	uintptr_t start, end;
};

static struct relro find_relro(const struct link_map *map)
{
	struct relro r = { 0, 0 };
	unsigned n = 0;
	const ElfW(Phdr) *ph = cua_symtab_phdrs(map, &n);

	for (unsigned i = 0; ph && i < n; i++) {
		if (ph[i].p_type == PT_GNU_RELRO) {
			r.start = map->l_addr + ph[i].p_vaddr;
			r.end = r.start + ph[i].p_memsz;
		}
	}
	return r;
}

/* Writes one slot; RELRO pages are made writable for the write and read-only again. */
static int write_slot(uintptr_t *slot, uintptr_t value, const struct relro *relro)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t base = (uintptr_t)slot & ~(uintptr_t)(page - 1);
	int in_relro = (uintptr_t)slot >= relro->start && (uintptr_t)slot < relro->end;

	if (in_relro && mprotect((void *)base, (size_t)page, PROT_READ | PROT_WRITE) != 0)
		return -1;
	__atomic_store_n(slot, value, __ATOMIC_RELEASE);
	if (in_relro)
		mprotect((void *)base, (size_t)page, PROT_READ);
	return 0;
}

static void fix_slot(struct link_map *map, const ElfW(Rela) *r, const struct relro *relro)
{
	uintptr_t *slot = (uintptr_t *)(map->l_addr + r->r_offset);
	const char *elf_name = NULL;
	int id;

	/* R_X86_64_64 may carry an addend (&table[1]); only a plain function address is ours. */
	if (r->r_addend != 0)
		return;
	id = cua_index_find(*slot, &elf_name);
	if (id < 0)
		return;
	__atomic_store_n(&cua_real[id], (void *)*slot, __ATOMIC_RELEASE);
	if (write_slot(slot, (uintptr_t)cua_wrapper(CUAUDIT_BIND_GOT, id), relro) != 0) {
		cua_log_msg(CUA_LOG_WARN, "cannot rewrite the slot of ", elf_name, " in ",
			    cua_lib_path(map), NULL);
		return;
	}
	struct cua_lib *lib = cua_libs_owner(cua_api[id].layer);
	if (lib)
		__atomic_add_fetch(&lib->binds[CUAUDIT_BIND_GOT], 1, __ATOMIC_RELAXED);
	cua_log_msg(CUA_LOG_DEBUG, "bind ", elf_name, " (got) from ", cua_lib_path(map),
		    ": wrapped", NULL);
}

static void scan(struct link_map *map)
{
	const ElfW(Rela) *rela = NULL;
	size_t relasz = 0;
	struct relro relro;

	for (const ElfW(Dyn) *d = map->l_ld; d && d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_RELA)
			rela = (const ElfW(Rela) *)cua_symtab_dyn_ptr(map, d->d_un.d_ptr);
		else if (d->d_tag == DT_RELASZ)
			relasz = d->d_un.d_val;
	}
	if (!rela)
		return;
	relro = find_relro(map);
	for (size_t i = 0; i < relasz / sizeof(*rela); i++) {
		unsigned type = ELF64_R_TYPE(rela[i].r_info);

		if ((type == R_X86_64_GLOB_DAT || type == R_X86_64_64) && ELF64_R_SYM(rela[i].r_info))
			fix_slot(map, &rela[i], &relro);
	}
}

void cua_gotfix_run(void)
{
	/* Only the first: at a dlopen, LA_ACT_CONSISTENT comes before relocation. */
	if (started)
		return;
	started = 1;
	for (unsigned i = 0; i < npending; i++) {
		pending[i]->pending = 0;
		if (cua_nlibs)
			scan(pending[i]->map);
	}
	npending = 0;
}

#if defined(__x86_64__)
struct relocs {
	ElfW(Rela) *rela;
	size_t count;
	const ElfW(Sym) *symtab;
	const char *strtab;
};

static int find_relocs(const struct link_map *map, struct relocs *r)
{
	size_t relasz = 0;

	memset(r, 0, sizeof(*r));
	for (const ElfW(Dyn) *d = map->l_ld; d && d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_RELA: r->rela = (ElfW(Rela) *)cua_symtab_dyn_ptr(map, d->d_un.d_ptr); break;
		case DT_RELASZ: relasz = d->d_un.d_val; break;
		case DT_SYMTAB: r->symtab = (const ElfW(Sym) *)cua_symtab_dyn_ptr(map, d->d_un.d_ptr); break;
		case DT_STRTAB: r->strtab = (const char *)cua_symtab_dyn_ptr(map, d->d_un.d_ptr); break;
		default: break;
		}
	}
	r->count = relasz / sizeof(ElfW(Rela));
	return r->rela && r->symtab && r->strtab && r->count ? 0 : -1;
}

#define EXEC_SLOT (-2)

/* A GLOB_DAT, or a 64-bit data relocation with no addend, against an undefined symbol
   that names a function of the generated table: its id. A GLOB_DAT of an exec function
   (a -fno-plt call, when exec is watched): EXEC_SLOT. Else -1. */
static int cuda_slot(const struct relocs *r, const ElfW(Rela) *rel)
{
	unsigned type = ELF64_R_TYPE(rel->r_info);
	size_t sym = ELF64_R_SYM(rel->r_info);
	const char *name;
	int id;

	if (!sym || !(type == R_X86_64_GLOB_DAT || (type == R_X86_64_64 && rel->r_addend == 0)))
		return -1;
	if (r->symtab[sym].st_shndx != SHN_UNDEF)
		return -1;
	name = r->strtab + r->symtab[sym].st_name;
	if ((id = cua_table_find(name)) >= 0)
		return id;
	if (type == R_X86_64_GLOB_DAT && cua_signals_is_name(name) && cua_signals_wanted())
		return EXEC_SLOT;
	return type == R_X86_64_GLOB_DAT && cua_exec_is_name(name) && cua_exec_wanted() ? EXEC_SLOT
										  : -1;
}

/* The protection of the segment that holds an address, to restore after our write. */
static int segment_prot(const struct link_map *map, uintptr_t addr)
{
	unsigned n = 0;
	const ElfW(Phdr) *ph = cua_symtab_phdrs(map, &n);

	for (unsigned i = 0; ph && i < n; i++) {
		uintptr_t a = map->l_addr + ph[i].p_vaddr;

		if (ph[i].p_type == PT_LOAD && addr >= a && addr < a + ph[i].p_memsz)
			return (ph[i].p_flags & PF_R ? PROT_READ : 0) |
			       (ph[i].p_flags & PF_W ? PROT_WRITE : 0) |
			       (ph[i].p_flags & PF_X ? PROT_EXEC : 0);
	}
	return -1;
}

/* Turns the object's CUDA GOT and data relocations into R_X86_64_JUMP_SLOTs before the
   loader applies them. The loader resolves a JUMP_SLOT exactly as it resolves a GLOB_DAT
   (same symbol, same scope, same errors; only executables' PLT addresses are skipped), and
   in the never-lazy DT_RELA range it reports each one to la_symbind64, whose answer it
   stores in the slot (glibc elf/do-rel.h, since 2.35). Returns how many it turned, or -1. */
static long rewrite(struct cua_ref *ref)
{
	struct relocs r;
	long page = sysconf(_SC_PAGESIZE), turned = 0;
	uintptr_t first = 0, last = 0;
	int prot;

	if (find_relocs(ref->map, &r) != 0)
		return 0;
	for (size_t i = 0; i < r.count; i++) {
		if (cuda_slot(&r, &r.rela[i]) == -1)
			continue;
		first = first ? first : (uintptr_t)&r.rela[i];
		last = (uintptr_t)&r.rela[i + 1];
	}
	if (!first)
		return 0;
	prot = segment_prot(ref->map, first);
	first &= ~(uintptr_t)(page - 1);
	/* Relocations that share pages with code (-z noseparate-code): making those writable
	   and executable again is what SELinux's execmod denies. Leave them to the fallback. */
	if (prot < 0 || (prot & PROT_EXEC) || mprotect((void *)first, last - first, PROT_READ | PROT_WRITE) != 0)
		return -1;
	for (size_t i = 0; i < r.count; i++) {
		int id = cuda_slot(&r, &r.rela[i]);

		if (id == -1)
			continue;
		r.rela[i].r_info = ELF64_R_INFO(ELF64_R_SYM(r.rela[i].r_info), R_X86_64_JUMP_SLOT);
		if (id >= 0)
			ref->got[id >> 3] |= (uint8_t)(1u << (id & 7));
		turned++;
	}
	mprotect((void *)first, last - first, prot);
	return turned;
}
#else
static long rewrite(struct cua_ref *ref)
{
	(void)ref;
	return -1;
}
#endif

uintptr_t cua_gotfix_open(struct link_map *map)
{
	struct cua_ref *ref = take_ref(map);

	if (!ref) {
		cua_log_msg(CUA_LOG_WARN, "too many objects reference CUDA; calls through the GOT "
			    "of ", cua_lib_path(map), " may not be intercepted", NULL);
		return 0;
	}
	if (by_relocation && rewrite(ref) >= 0)
		return (uintptr_t)ref | 1;
	if (started)
		/* Loaded by dlopen: its slots are written after every audit callback. */
		cua_log_msg(CUA_LOG_INFO, "GOT and data slots of ", cua_lib_path(map),
			    " are not intercepted (needs glibc 2.35 or later on x86-64)", NULL);
	else
		note(ref);
	return (uintptr_t)ref | 1;
}
