/* SPDX-License-Identifier: MIT */
/* audit/symtab.c: reads function names and addresses from an object's DT_SYMTAB, sized by its hash table. */
#include <elf.h>
#include <stddef.h>
#include "symtab.h"

/* glibc relocates d_ptr in place on most targets, but not everywhere: accept both forms. */
static uintptr_t dyn_ptr(const struct link_map *map, ElfW(Addr) p)
{
	return p < map->l_addr ? map->l_addr + p : p;
}

static uint32_t count_from_gnu_hash(const uint32_t *h)
{
	uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2];
	const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)(h + 4) + bloom_size);
	const uint32_t *chain = buckets + nbuckets;
	uint32_t last = 0;

	for (uint32_t i = 0; i < nbuckets; i++)
		if (buckets[i] > last)
			last = buckets[i];
	if (last < symoffset)
		return symoffset;
	/* The last chain ends with its low bit set. */
	while (!(chain[last - symoffset] & 1))
		last++;
	return last + 1;
}

struct table {
	const ElfW(Sym) *symtab;
	const char *strtab;
	uint32_t count;
};

static int find_table(const struct link_map *map, struct table *t)
{
	const uint32_t *hash = NULL, *gnu_hash = NULL;

	t->symtab = NULL;
	t->strtab = NULL;
	for (const ElfW(Dyn) *d = map->l_ld; d && d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB: t->symtab = (const ElfW(Sym) *)dyn_ptr(map, d->d_un.d_ptr); break;
		case DT_STRTAB: t->strtab = (const char *)dyn_ptr(map, d->d_un.d_ptr); break;
		case DT_HASH: hash = (const uint32_t *)dyn_ptr(map, d->d_un.d_ptr); break;
		case DT_GNU_HASH: gnu_hash = (const uint32_t *)dyn_ptr(map, d->d_un.d_ptr); break;
		default: break;
		}
	}
	if (!t->symtab || !t->strtab || (!hash && !gnu_hash))
		return -1;
	/* Undefined symbols sit below GNU hash's symoffset; DT_HASH counts them all. */
	t->count = hash ? hash[1] : count_from_gnu_hash(gnu_hash);
	return 0;
}

int cua_symtab_references_cuda(const struct link_map *map)
{
	struct table t;

	if (find_table(map, &t) != 0)
		return 1; /* cannot tell: assume it does */
	for (uint32_t i = 1; i < t.count; i++) {
		const char *n = t.strtab + t.symtab[i].st_name;

		if (t.symtab[i].st_shndx == SHN_UNDEF && n[0] == 'c' && n[1] == 'u')
			return 1;
		if (t.symtab[i].st_shndx == SHN_UNDEF && n[0] == '_' && n[1] == '_' &&
		    n[2] == 'c' && n[3] == 'u' && n[4] == 'd' && n[5] == 'a')
			return 1;
	}
	return 0;
}

long cua_symtab_each_function(const struct link_map *map, cua_symtab_fn each, void *ctx)
{
	struct table t;
	const ElfW(Sym) *symtab;
	const char *strtab;
	uint32_t count;
	long reported = 0;

	if (find_table(map, &t) != 0)
		return -1;
	symtab = t.symtab;
	strtab = t.strtab;
	count = t.count;
	for (uint32_t i = 1; i < count; i++) {
		const ElfW(Sym) *s = &symtab[i];
		unsigned bind = ELF64_ST_BIND(s->st_info);

		/* IFUNC values are resolvers, not the functions callers receive: skip them. */
		if (s->st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s->st_info) != STT_FUNC ||
		    (bind != STB_GLOBAL && bind != STB_WEAK))
			continue;
		each(ctx, strtab + s->st_name, map->l_addr + s->st_value);
		reported++;
	}
	return reported;
}
