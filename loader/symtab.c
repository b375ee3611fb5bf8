/* SPDX-License-Identifier: MIT */
/* loader/symtab.c: reads function names and addresses from an object's DT_SYMTAB, sized by its hash table. */
#include <elf.h>
#include <stddef.h>
#include <string.h>
#include <sys/auxv.h>
#include "symtab.h"
#include "table.h"

uintptr_t cua_symtab_dyn_ptr(const struct link_map *map, ElfW(Addr) p)
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
	const uint32_t *hash, *gnu_hash;
};

static int find_table(const struct link_map *map, struct table *t)
{
	const uint32_t *hash = NULL, *gnu_hash = NULL;

	t->symtab = NULL;
	t->strtab = NULL;
	for (const ElfW(Dyn) *d = map->l_ld; d && d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB: t->symtab = (const ElfW(Sym) *)cua_symtab_dyn_ptr(map, d->d_un.d_ptr); break;
		case DT_STRTAB: t->strtab = (const char *)cua_symtab_dyn_ptr(map, d->d_un.d_ptr); break;
		case DT_HASH: hash = (const uint32_t *)cua_symtab_dyn_ptr(map, d->d_un.d_ptr); break;
		case DT_GNU_HASH: gnu_hash = (const uint32_t *)cua_symtab_dyn_ptr(map, d->d_un.d_ptr); break;
		default: break;
		}
	}
	if (!t->symtab || !t->strtab || (!hash && !gnu_hash))
		return -1;
	t->hash = hash;
	t->gnu_hash = gnu_hash;
	/* Undefined symbols sit below GNU hash's symoffset; DT_HASH counts them all. */
	t->count = hash ? hash[1] : count_from_gnu_hash(gnu_hash);
	return 0;
}

unsigned cua_symtab_imports(const struct link_map *map, cua_symtab_kind_fn kind, unsigned all)
{
	struct table t;
	unsigned found = 0;

	if (find_table(map, &t) != 0)
		return all; /* cannot tell: assume it imports everything */
	for (uint32_t i = 1; i < t.count && found != all; i++)
		if (t.symtab[i].st_shndx == SHN_UNDEF)
			found |= kind(t.strtab + t.symtab[i].st_name);
	return found;
}

static uint32_t gnu_hash_of(const char *s)
{
	uint32_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static uint32_t sysv_hash_of(const char *s)
{
	uint32_t h = 0, g;

	for (; *s; s++) {
		h = (h << 4) + (unsigned char)*s;
		g = h & 0xf0000000u;
		if (g)
			h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

static int is_defined(const struct table *t, uint32_t i, const char *elf_name, int object)
{
	const ElfW(Sym) *s = &t->symtab[i];
	unsigned type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);
	int kind = object ? type == STT_OBJECT : (type == STT_FUNC || type == STT_GNU_IFUNC);

	return s->st_shndx != SHN_UNDEF && kind &&
	       (bind == STB_GLOBAL || bind == STB_WEAK) &&
	       strcmp(t->strtab + s->st_name, elf_name) == 0;
}

/* The loader's own lookup, through the hash table: objects with 100,000 symbols are common
   and every object is asked at la_objopen. */
static const ElfW(Sym) *lookup_kind(const struct link_map *map, const char *elf_name, int object)
{
	struct table t;

	if (find_table(map, &t) != 0)
		return NULL;
	if (t.gnu_hash) {
		const uint32_t *h = t.gnu_hash;
		uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2];
		const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)(h + 4) + bloom_size);
		const uint32_t *chain = buckets + nbuckets;
		uint32_t hash = gnu_hash_of(elf_name);

		if (nbuckets == 0)
			return NULL;
		for (uint32_t i = buckets[hash % nbuckets]; i >= symoffset && i; i++) {
			if ((chain[i - symoffset] | 1) == (hash | 1) &&
			    is_defined(&t, i, elf_name, object))
				return &t.symtab[i];
			if (chain[i - symoffset] & 1)
				break;
		}
		return NULL;
	}
	uint32_t nbucket = t.hash[0];
	const uint32_t *bucket = t.hash + 2, *chain = bucket + nbucket;

	if (nbucket == 0)
		return NULL;
	for (uint32_t i = bucket[sysv_hash_of(elf_name) % nbucket]; i; i = chain[i])
		if (is_defined(&t, i, elf_name, object))
			return &t.symtab[i];
	return NULL;
}

static const ElfW(Sym) *lookup(const struct link_map *map, const char *elf_name)
{
	return lookup_kind(map, elf_name, 0);
}

uintptr_t cua_symtab_object_address(const struct link_map *map, const char *name, size_t size)
{
	const ElfW(Sym) *s = lookup_kind(map, name, 1);

	return s && s->st_size == size ? map->l_addr + s->st_value : 0;
}

int cua_symtab_defines(const struct link_map *map, const char *elf_name)
{
	return lookup(map, elf_name) != NULL;
}

uintptr_t cua_symtab_function_address(const struct link_map *map, const char *elf_name)
{
	const ElfW(Sym) *s = lookup(map, elf_name);

	return s && ELF64_ST_TYPE(s->st_info) == STT_FUNC ? map->l_addr + s->st_value : 0;
}

const ElfW(Phdr) *cua_symtab_phdrs(const struct link_map *map, unsigned *count)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)map->l_addr;

	if (!map->l_name || !map->l_name[0]) {
		*count = (unsigned)getauxval(AT_PHNUM);
		return (const ElfW(Phdr) *)getauxval(AT_PHDR);
	}
	if (!map->l_addr || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return NULL;
	*count = eh->e_phnum;
	return (const ElfW(Phdr) *)(map->l_addr + eh->e_phoff);
}

int cua_symtab_span(const struct link_map *map, uintptr_t *lo, uintptr_t *hi)
{
	unsigned n = 0;
	const ElfW(Phdr) *ph = cua_symtab_phdrs(map, &n);

	*lo = UINTPTR_MAX;
	*hi = 0;
	for (unsigned i = 0; ph && i < n; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		uintptr_t a = map->l_addr + ph[i].p_vaddr, b = a + ph[i].p_memsz;

		*lo = a < *lo ? a : *lo;
		*hi = b > *hi ? b : *hi;
	}
	return *hi > *lo ? 0 : -1;
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
