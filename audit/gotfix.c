/* SPDX-License-Identifier: MIT */
/* audit/gotfix.c: after relocation, swaps real CUDA addresses in GOT and data slots for wrappers. */
#include <elf.h>
#include <stddef.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>
#include "dispatch.h"
#include "gotfix.h"
#include "libs.h"
#include "log.h"
#include "procaddress.h"
#include "table.h"

#define MAX_PENDING 4096

static struct link_map *pending[MAX_PENDING];
static unsigned npending;
static int overflow_warned;

void cua_gotfix_note(struct link_map *map)
{
	if (npending < MAX_PENDING) {
		pending[npending++] = map;
		return;
	}
	if (!overflow_warned++)
		cua_log_msg(CUA_LOG_WARN, "too many objects loaded at once; calls through the GOT "
			    "of ", cua_lib_path(map), " and later ones may not be intercepted", NULL);
}

struct relro {
	uintptr_t start, end;
};

static uintptr_t dyn_ptr(const struct link_map *map, ElfW(Addr) p)
{
	return p < map->l_addr ? map->l_addr + p : p;
}

/* The program headers of a loaded object: the executable's from the aux vector, a shared
   object's from its ELF header, mapped at its load address. (dl_iterate_phdr does not list
   the executable yet while the loader is still starting it.) */
const ElfW(Phdr) *cua_gotfix_phdrs(const struct link_map *map, unsigned *count)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)map->l_addr;

	if (!map->l_name || !map->l_name[0]) {
		*count = (unsigned)getauxval(AT_PHNUM);
		return (const ElfW(Phdr) *)getauxval(AT_PHDR);
	}
	if (!map->l_addr || eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_MAG1] != ELFMAG1 ||
	    eh->e_ident[EI_MAG2] != ELFMAG2 || eh->e_ident[EI_MAG3] != ELFMAG3)
		return NULL;
	*count = eh->e_phnum;
	return (const ElfW(Phdr) *)(map->l_addr + eh->e_phoff);
}

static struct relro find_relro(const struct link_map *map)
{
	struct relro r = { 0, 0 };
	unsigned n = 0;
	const ElfW(Phdr) *ph = cua_gotfix_phdrs(map, &n);

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

static struct cua_lib *owner_of(unsigned layer)
{
	for (unsigned i = 0; i < cua_nlibs; i++)
		if (cua_libs[i].owner && cua_libs[i].layer == layer)
			return &cua_libs[i];
	return NULL;
}

static void fix_slot(struct link_map *map, const ElfW(Rela) *r, const struct relro *relro)
{
	uintptr_t *slot = (uintptr_t *)(map->l_addr + r->r_offset);
	const char *elf_name = NULL;
	int id;

	/* R_X86_64_64 may carry an addend (&table[1]); only a plain function address is ours. */
	if (r->r_addend != 0)
		return;
	id = cua_procaddress_find(*slot, &elf_name);
	if (id < 0)
		return;
	__atomic_store_n(&cua_real[id], (void *)*slot, __ATOMIC_RELEASE);
	if (write_slot(slot, (uintptr_t)cua_wrapper(CUAUDIT_BIND_GOT, id), relro) != 0) {
		cua_log_msg(CUA_LOG_WARN, "cannot rewrite the slot of ", elf_name, " in ",
			    cua_lib_path(map), NULL);
		return;
	}
	struct cua_lib *lib = owner_of(cua_api[id].layer);
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
			rela = (const ElfW(Rela) *)dyn_ptr(map, d->d_un.d_ptr);
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
	/* Without a CUDA library there is no address to look for. */
	if (cua_nlibs == 0)
		return;
	for (unsigned i = 0; i < npending; i++)
		scan(pending[i]);
	npending = 0;
}
