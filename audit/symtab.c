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

long cua_symtab_each_function(const struct link_map *map, cua_symtab_fn each, void *ctx)
{
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	const uint32_t *hash = NULL, *gnu_hash = NULL;
	uint32_t count;
	long reported = 0;

	for (const ElfW(Dyn) *d = map->l_ld; d && d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB: symtab = (const ElfW(Sym) *)dyn_ptr(map, d->d_un.d_ptr); break;
		case DT_STRTAB: strtab = (const char *)dyn_ptr(map, d->d_un.d_ptr); break;
		case DT_HASH: hash = (const uint32_t *)dyn_ptr(map, d->d_un.d_ptr); break;
		case DT_GNU_HASH: gnu_hash = (const uint32_t *)dyn_ptr(map, d->d_un.d_ptr); break;
		default: break;
		}
	}
	if (!symtab || !strtab || (!hash && !gnu_hash))
		return -1;
	count = hash ? hash[1] : count_from_gnu_hash(gnu_hash);
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
