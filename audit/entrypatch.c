/* SPDX-License-Identifier: MIT */
/* audit/entrypatch.c: redirects the functions of a statically linked CUDA runtime by patching their entries. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "config.h"
#include "dispatch.h"
#include "entrypatch.h"
#include "filesyms.h"
#include "libs.h"
#include "log.h"
#include "symtab.h"
#include "table.h"
#include "x86.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define MAX_OBJECTS CUA_MAX_ENTRY_COPIES
#define MAX_CANDIDATES 2048
#define MAX_MAPS 128
/* One slot per patched function: the island the entry jumps to (it pushes the copy's index
   on the thread's cua_self.entry_stack, then jumps to the shared entry-kind wrapper, which
   pops it), then the trampoline. */
#define ISLAND_ROOM (CUA_X86_TLS_PUSH_LEN + CUA_X86_ABS_JUMP_LEN)
#define SLOT (ISLAND_ROOM + CUA_X86_TRAMPOLINE_MAX)
/* Trampolines must reach the object's code and data with rel32: keep a margin. */
#define REACH (((uintptr_t)1 << 31) - ((uintptr_t)1 << 24))

struct entry_obj {
	struct link_map *map; /* NULL: a free entry */
	unsigned copy; /* its index in cua_real_entry and cua_entry_names */
	uint8_t *region;
	size_t region_len;
	unsigned patched;
	unsigned changed; /* entries whose bytes differ from the file: left alone */
	unsigned refused[CUA_X86_VERDICTS];
	uint64_t cost_ns;
	uintptr_t entry; /* the first entry patched, 0 if none */
	uint8_t jump[CUA_X86_JMP_LEN]; /* the jump written there */
};

struct cand {
	unsigned id;
	uint8_t *addr;
	size_t size;
	struct cua_x86_entry e;
	int verdict;
};

/* The trampolines of a closed object, kept until its code is known gone: la_objclose also
   comes at exit (the executable's, from _dl_fini) while its code may still run, and a
   dlclosed object's memory is unmapped only after la_objclose. Then reused by a later
   object, or unmapped. */
struct retired {
	uint8_t *region;
	size_t region_len;
	uintptr_t entry; /* one entry the object's code had patched */
	uint8_t jump[CUA_X86_JMP_LEN]; /* what was written there */
};
#define MAX_RETIRED 64

struct map_range {
	uintptr_t start, end;
	int prot;
};

/* la_objopen and la_objclose run under the loader's lock: one object at a time, so these
   need no lock. An entry never moves: its address is the object's loader cookie. */
static struct entry_obj objs[MAX_OBJECTS];
static struct retired retired[MAX_RETIRED];
static unsigned nretired;
static struct cand cands[MAX_CANDIDATES];
static struct map_range maps[MAX_MAPS];
static int writable_code_forbidden;
/* Copy slots: a slot once named keeps its name; a closed object's slot is free for the same
   object when it is opened again, so a name pointer always means one object. */
static uint8_t copy_named[CUA_MAX_ENTRY_COPIES], copy_live[CUA_MAX_ENTRY_COPIES];

/* Where a field of cua_self lies from the thread pointer: initial-exec TLS, so the same
   offset in every thread. */
static int32_t tpoff(const void *field)
{
	uintptr_t tp;

	__asm__("mov %%fs:0, %0" : "=r"(tp));
	return (int32_t)((intptr_t)field - (intptr_t)tp);
}

static int take_copy_slot(const char *name)
{
	int fresh = -1;

	for (unsigned k = 0; k < CUA_MAX_ENTRY_COPIES; k++) {
		if (copy_live[k])
			continue;
		if (copy_named[k] && strcmp(cua_entry_names[k], name) == 0)
			return (int)k;
		if (!copy_named[k] && fresh < 0)
			fresh = (int)k;
	}
	if (fresh >= 0) {
		size_t n = strlen(name);

		if (n >= CUA_ENTRY_NAME_MAX)
			name += n - (CUA_ENTRY_NAME_MAX - 1); /* keep the end: the file name */
		memcpy(cua_entry_names[fresh], name, strlen(name) + 1);
		copy_named[fresh] = 1;
	}
	return fresh;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char *file_of(const struct link_map *map)
{
	/* The executable's link_map has no name; a program started as "ld.so prog" has one. */
	return map->l_name && map->l_name[0] ? map->l_name : "/proc/self/exe";
}

/* The loaded object is the file: same program headers, else the symbols may lie. */
static int file_matches(const struct link_map *map, const struct cua_filesyms *f)
{
	unsigned n = 0;
	const ElfW(Phdr) *ph = cua_symtab_phdrs(map, &n);

	return ph && n == f->phnum && memcmp(ph, f->phdr, n * sizeof(*ph)) == 0;
}

/* An executable segment of the object holds [vaddr, vaddr + size). */
static int in_text(const struct cua_filesyms *f, uint64_t vaddr, uint64_t size)
{
	for (unsigned i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *ph = &f->phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && vaddr >= ph->p_vaddr &&
		    size <= ph->p_filesz && vaddr - ph->p_vaddr <= ph->p_filesz - size)
			return 1;
	}
	return 0;
}

/* The object's extent in memory, for the distance check of the trampolines. */
static void extent(const struct link_map *map, const struct cua_filesyms *f, uintptr_t *lo,
		   uintptr_t *hi)
{
	*lo = UINTPTR_MAX;
	*hi = 0;
	for (unsigned i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *ph = &f->phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (map->l_addr + ph->p_vaddr < *lo)
			*lo = map->l_addr + ph->p_vaddr;
		if (map->l_addr + ph->p_vaddr + ph->p_memsz > *hi)
			*hi = map->l_addr + ph->p_vaddr + ph->p_memsz;
	}
}

static int overlaps_earlier(unsigned n, const uint8_t *addr, unsigned len)
{
	for (unsigned i = 0; i < n; i++) {
		const struct cand *c = &cands[i];

		if (c->verdict == CUA_X86_OK && addr < c->addr + c->e.keep + c->e.len &&
		    c->addr < addr + len)
			return 1;
	}
	return 0;
}

static void plan_one(struct link_map *map, const struct cua_filesyms *f, struct entry_obj *o,
		     struct cand *c, const Elf64_Sym *s)
{
	const uint8_t *on_disk;

	/* A forwarding stub has no code of its own to patch: its calls reach whatever its
	   table slot holds (a shared libcudart's function, bound through dlsym, seen there). */
	if (in_text(f, s->st_value, CUA_X86_STUB_LEN) && cua_x86_is_stub(c->addr)) {
		c->verdict = CUA_X86_STUB;
		o->refused[CUA_X86_STUB]++;
		return;
	}
	c->verdict = cua_x86_plan(c->addr, c->size, &c->e);
	if (c->verdict != CUA_X86_OK) {
		o->refused[c->verdict]++;
		cua_log_msg(CUA_LOG_VERBOSE, "entry of ", cua_api[c->id].elf_name, " in ",
			    cua_lib_path(map), " left alone: ", cua_x86_verdict_name((unsigned)c->verdict),
			    NULL);
		return;
	}
	/* Bytes that differ from the file were changed by someone else: never patch twice. */
	on_disk = cua_filesyms_at(f, s->st_value, c->e.keep + c->e.len);
	if (!on_disk || memcmp(on_disk, c->addr, c->e.keep + c->e.len) != 0 ||
	    overlaps_earlier((unsigned)(c - cands), c->addr, c->e.keep + c->e.len)) {
		c->verdict = -1;
		o->changed++;
		cua_log_msg(CUA_LOG_VERBOSE, "entry of ", cua_api[c->id].elf_name, " in ",
			    cua_lib_path(map), " left alone: not as in the file, or shared", NULL);
	}
}

/* Each defined global function of .symtab that the generator knows as a runtime function. */
static unsigned collect(struct link_map *map, const struct cua_filesyms *f, struct entry_obj *o)
{
	static uint8_t seen[CUAUDIT_ID_COUNT];
	unsigned n = 0;

	memset(seen, 0, sizeof(seen));
	for (size_t i = 1; i < f->nsyms && n < MAX_CANDIDATES; i++) {
		const Elf64_Sym *s = &f->symtab[i];
		unsigned bind = ELF64_ST_BIND(s->st_info);
		const char *elf_name;
		int id;

		/* Local too: a shared object that links the runtime in usually hides it. */
		if (s->st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s->st_info) != STT_FUNC ||
		    (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_LOCAL))
			continue;
		if (!(elf_name = cua_filesyms_name(f, i)) || (id = cua_table_find(elf_name)) < 0 ||
		    cua_api[id].layer != CUAUDIT_LAYER_RUNTIME || seen[id])
			continue;
		seen[id] = 1;
		/* A function no hook covers keeps its entry: it costs nothing, as a shared
		   runtime's binding of it costs only the raw entry's jump. */
		if (!(cua_plan[id] & CUA_PLAN_HOOKED))
			continue;
		if (!in_text(f, s->st_value, s->st_size ? s->st_size : 1))
			continue;
		cands[n].id = (unsigned)id;
		cands[n].addr = (uint8_t *)(map->l_addr + s->st_value);
		cands[n].size = s->st_size;
		plan_one(map, f, o, &cands[n], s);
		n++;
	}
	return n;
}

static int reaches(uintptr_t p, size_t len, uintptr_t lo, uintptr_t hi)
{
	uintptr_t a = p < lo ? p : lo, b = p + len > hi ? p + len : hi;

	return b - a < REACH;
}

/* Anonymous memory within rel32 reach of the whole object, below it first: above an
   executable lies the heap, which should stay free to grow. */
static uint8_t *alloc_near(uintptr_t lo, uintptr_t hi, size_t len)
{
	const uintptr_t step = (uintptr_t)16 << 20, page = (uintptr_t)sysconf(_SC_PAGESIZE);

	for (uintptr_t k = 1; k <= 64; k++) {
		uintptr_t hints[2] = { lo > k * step + len + (1u << 20) ? (lo - k * step - len) & ~(page - 1) : 0,
				       (hi + k * step + page - 1) & ~(page - 1) };

		for (unsigned h = 0; h < 2; h++) {
			void *p;

			if (!hints[h])
				continue;
			p = mmap((void *)hints[h], len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (p == MAP_FAILED)
				continue;
			if (reaches((uintptr_t)p, len, lo, hi))
				return p;
			munmap(p, len);
		}
	}
	return NULL;
}

static void forbidden(const char *what)
{
	if (writable_code_forbidden++)
		return;
	cua_log_msg(CUA_LOG_WARN, "CUAUDIT_STATIC_RUNTIME: the system forbids ", what,
		    " (SELinux execmem/execmod?): a statically linked runtime is seen at the"
		    " driver level only", NULL);
}

/* Islands and trampolines, written while the region is writable, then made executable. */
static int build_region(struct entry_obj *o, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct cand *c = &cands[i];
		uint8_t *slot = o->region + (size_t)i * SLOT;
		int len;

		if (c->verdict != CUA_X86_OK)
			continue;
		cua_x86_tls_push32(slot, tpoff(&cua_self.entry_sp), tpoff(&cua_self.entry_stack[0]),
				   CUA_ENTRY_STACK - 1, o->copy);
		cua_x86_abs_jump(slot + CUA_X86_TLS_PUSH_LEN,
				 (uintptr_t)cua_entry[CUAUDIT_BIND_ENTRY][c->id]);
		len = cua_x86_trampoline(c->addr, &c->e, slot + ISLAND_ROOM, SLOT - ISLAND_ROOM);
		if (len < 0) {
			c->verdict = -len;
			o->refused[-len]++;
		}
	}
	if (mprotect(o->region, o->region_len, PROT_READ | PROT_EXEC) != 0) {
		forbidden("executable memory");
		return -1;
	}
	return 0;
}

static int hex_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

/* "start-end perms ..." of /proc/self/maps; our own parser, so no locale is involved. */
static int parse_maps_line(const char *s, size_t n, struct map_range *m)
{
	uintptr_t v[2] = { 0, 0 };
	size_t i = 0;

	for (unsigned k = 0; k < 2; k++, i++) {
		int d;

		while (i < n && (d = hex_digit(s[i])) >= 0)
			v[k] = v[k] << 4 | (uintptr_t)d, i++;
		if (i >= n || s[i] != (k ? ' ' : '-'))
			return -1;
	}
	if (i + 3 > n)
		return -1;
	m->start = v[0];
	m->end = v[1];
	m->prot = (s[i] == 'r' ? PROT_READ : 0) | (s[i + 1] == 'w' ? PROT_WRITE : 0) |
		  (s[i + 2] == 'x' ? PROT_EXEC : 0);
	return 0;
}

/* The current protection of every mapping that overlaps [lo, hi): restored exactly after. */
static unsigned read_maps(uintptr_t lo, uintptr_t hi)
{
	char buf[4096];
	size_t have = 0;
	unsigned n = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	for (;;) {
		ssize_t r = read(fd, buf + have, sizeof(buf) - have);
		size_t start = 0;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
		for (size_t i = 0; i < have; i++) {
			struct map_range m;

			if (buf[i] != '\n')
				continue;
			if (parse_maps_line(buf + start, i - start, &m) == 0 && m.start < hi &&
			    m.end > lo && n < MAX_MAPS)
				maps[n++] = m;
			start = i + 1;
		}
		/* A line longer than the buffer is not one of ours: drop it. */
		have = start ? have - start : 0;
		memmove(buf, buf + start, have);
	}
	close(fd);
	return n;
}

static int set_prot(unsigned nmaps, uintptr_t lo, uintptr_t hi, int add)
{
	for (unsigned i = 0; i < nmaps; i++) {
		uintptr_t s = maps[i].start > lo ? maps[i].start : lo;
		uintptr_t e = maps[i].end < hi ? maps[i].end : hi;

		if (mprotect((void *)s, e - s, maps[i].prot | add) != 0)
			return -1;
	}
	return 0;
}

/* Writes the jumps. The object's code cannot run yet (see docs/design.md), so the bytes
   need no atomic update; each page keeps its exec bit while it is writable. */
static void patch_text(struct entry_obj *o, unsigned n)
{
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	unsigned nmaps;

	for (unsigned i = 0; i < n; i++) {
		if (cands[i].verdict != CUA_X86_OK)
			continue;
		if ((uintptr_t)cands[i].addr < lo)
			lo = (uintptr_t)cands[i].addr;
		if ((uintptr_t)cands[i].addr + cands[i].e.keep + cands[i].e.len > hi)
			hi = (uintptr_t)cands[i].addr + cands[i].e.keep + cands[i].e.len;
	}
	if (lo >= hi)
		return;
	lo &= ~(page - 1);
	hi = (hi + page - 1) & ~(page - 1);
	nmaps = read_maps(lo, hi);
	if (nmaps == 0 || set_prot(nmaps, lo, hi, PROT_WRITE) != 0) {
		set_prot(nmaps, lo, hi, 0);
		forbidden("writing to code pages");
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		struct cand *c = &cands[i];
		uintptr_t tramp = (uintptr_t)o->region + (size_t)i * SLOT + ISLAND_ROOM;

		if (c->verdict != CUA_X86_OK)
			continue;
		/* The slot is filled before the entry that leads to it. */
		__atomic_store_n(&cua_real_entry[o->copy][c->id], (void *)tramp, __ATOMIC_RELEASE);
		if (cua_x86_write_jump(c->addr, &c->e, (uintptr_t)o->region + (size_t)i * SLOT) == 0) {
			if (!o->patched++) {
				o->entry = (uintptr_t)c->addr + c->e.keep;
				memcpy(o->jump, c->addr + c->e.keep, CUA_X86_JMP_LEN);
			}
		} else
			o->refused[CUA_X86_OUT_OF_REACH]++;
	}
	if (set_prot(nmaps, lo, hi, 0) != 0)
		cua_log_msg(CUA_LOG_WARN, "CUAUDIT_STATIC_RUNTIME: cannot restore the protection of"
			    " the code pages of ", cua_lib_path(o->map), "; they stay writable", NULL);
}

static void log_result(const struct entry_obj *o)
{
	char line[512];
	struct cua_buf b = CUA_BUF(line);

	if (!cua_log_on(CUA_LOG_INFO))
		return;
	cua_log_begin(&b, CUA_LOG_INFO);
	cua_buf_str(&b, cua_lib_path(o->map));
	cua_buf_str(&b, " (static runtime, copy ");
	cua_buf_u64(&b, o->copy);
	cua_buf_str(&b, "): entries patched=");
	cua_buf_u64(&b, o->patched);
	for (unsigned v = 1; v < CUA_X86_VERDICTS; v++) {
		cua_buf_char(&b, ' ');
		cua_buf_str(&b, cua_x86_verdict_name(v));
		cua_buf_char(&b, '=');
		cua_buf_u64(&b, o->refused[v]);
	}
	cua_buf_str(&b, " changed=");
	cua_buf_u64(&b, o->changed);
	cua_buf_str(&b, " in ");
	cua_buf_u64(&b, o->cost_ns / 1000);
	cua_buf_str(&b, " us");
	cua_log_end(&b);
}

static void too_many(const struct link_map *map)
{
	cua_log_msg(CUA_LOG_WARN, "CUAUDIT_STATIC_RUNTIME: more than 32 statically linked"
		    " runtimes; ", cua_lib_path(map), "'s runtime calls are seen at the driver"
		    " level only", NULL);
}

/* Whether a closed object's code still jumps to its trampolines: read through
   /proc/self/mem, which answers EIO for memory no longer mapped instead of faulting. 1 also
   when that cannot be told: the trampolines then stay. */
static int still_patched(const struct retired *r)
{
	uint8_t now[CUA_X86_JMP_LEN];
	ssize_t got;
	int err, fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 1;
	do
		got = pread(fd, now, sizeof(now), (off_t)r->entry);
	while (got < 0 && errno == EINTR);
	err = errno;
	close(fd);
	if (got < 0)
		return err != EIO && err != EFAULT;
	return got != (ssize_t)sizeof(now) || memcmp(now, r->jump, sizeof(now)) == 0;
}

/* The trampolines of a closed object whose code is gone, within reach of [lo, hi) and at
   least len long, made writable again; the others whose code is gone are unmapped, so that
   objects opened and closed again and again keep a constant number of mappings. */
static uint8_t *reuse_region(uintptr_t lo, uintptr_t hi, size_t *len)
{
	uint8_t *found = NULL;

	for (unsigned i = 0; i < nretired;) {
		struct retired *r = &retired[i];

		if (still_patched(r)) {
			i++;
			continue;
		}
		if (!found && r->region_len >= *len && reaches((uintptr_t)r->region, r->region_len, lo, hi) &&
		    mprotect(r->region, r->region_len, PROT_READ | PROT_WRITE) == 0) {
			found = r->region;
			*len = r->region_len;
			/* What the slots past the new object's held traps. */
			memset(found, 0xcc, *len);
		} else {
			munmap(r->region, r->region_len);
		}
		*r = retired[--nretired];
	}
	return found;
}

static struct entry_obj *free_entry(void)
{
	for (unsigned i = 0; i < MAX_OBJECTS; i++)
		if (!objs[i].map)
			return &objs[i];
	return NULL;
}

/* Returns 1 when the object was patched. */
static int patch_into(struct entry_obj *o, struct link_map *map, const struct cua_filesyms *f,
		      uint64_t t0)
{
	uintptr_t lo, hi;
	unsigned n;
	int copy;

	n = collect(map, f, o);
	if (n && o->refused[CUA_X86_STUB] == n) {
		/* Implib.so-style trampolines (XLA's cudart stub in JAX's plugins): no runtime of
		   its own, every call forwards to a shared libcudart. */
		char num[24];
		struct cua_buf nb = CUA_BUF(num);

		cua_buf_u64(&nb, n);
		cua_buf_char(&nb, '\0');
		cua_log_msg(CUA_LOG_INFO, cua_lib_path(map), " has no runtime of its own: its ", num,
			    " runtime functions are forwarding stubs (an indirect jump through a table"
			    " that dlsym fills from a shared libcudart); its calls are seen as that"
			    " library's dlsym bindings", NULL);
		return 0;
	}
	if ((copy = take_copy_slot(cua_lib_path(map))) < 0) {
		too_many(map);
		return 0;
	}
	o->copy = (unsigned)copy;
	extent(map, f, &lo, &hi);
	o->region_len = ((size_t)n * SLOT + (size_t)sysconf(_SC_PAGESIZE) - 1) &
			~((size_t)sysconf(_SC_PAGESIZE) - 1);
	if (n && !(o->region = reuse_region(lo, hi, &o->region_len)) &&
	    !(o->region = alloc_near(lo, hi, o->region_len))) {
		cua_log_msg(CUA_LOG_WARN, "CUAUDIT_STATIC_RUNTIME: no memory near ",
			    cua_lib_path(map), " for trampolines; its runtime calls are seen at the"
			    " driver level only", NULL);
		return 0;
	}
	if (n && build_region(o, n) != 0) {
		munmap(o->region, o->region_len);
		return 0;
	}
	if (n)
		patch_text(o, n);
	o->cost_ns = now_ns() - t0;
	return 1;
}

/* Returns 1 when the object was patched and recorded. */
static int patch_object(struct link_map *map, const struct cua_filesyms *f, uint64_t t0)
{
	struct entry_obj *o = free_entry();

	if (!o) {
		too_many(map);
		return 0;
	}
	memset(o, 0, sizeof(*o));
	o->map = map;
	if (!patch_into(o, map, f, t0)) {
		o->map = NULL;
		return 0;
	}
	copy_live[o->copy] = 1;
	log_result(o);
	return 1;
}

/* The loader would rewrite such an object's code after us. */
static int has_textrel(const struct link_map *map)
{
	for (const ElfW(Dyn) *d = map->l_ld; d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_TEXTREL || (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_TEXTREL)))
			return 1;
	return 0;
}

static int recognised(const struct cua_filesyms *f)
{
	return cua_filesyms_find_function(f, "__cudaRegisterFatBinary") >= 0 &&
	       cua_filesyms_find_function(f, "cudaMalloc") >= 0;
}

static int examine(struct link_map *map, const struct cua_filesyms *f, uint64_t t0)
{
	if (!f->symtab) {
		/* Device code registered by a runtime that the object does not import: its own. */
		if (f->has_fatbin && !f->imports_runtime)
			cua_log_msg(CUA_LOG_INFO, cua_lib_path(map), " has no symbol table (stripped):"
				    " its runtime calls are seen at the driver level only", NULL);
		return 0;
	}
	if (!recognised(f))
		return 0;
	if (!cua_active) {
		cua_log_msg(CUA_LOG_INFO, "static runtime in ", cua_lib_path(map),
			    " left alone: no hook is on", NULL);
		return 0;
	}
	/* Each copy gets its own real-function table; once the system refused
	   writable code, it refuses it for every copy. */
	if (writable_code_forbidden)
		return 0;
	if (has_textrel(map)) {
		cua_log_msg(CUA_LOG_WARN, "CUAUDIT_STATIC_RUNTIME: ", cua_lib_path(map), " has text"
			    " relocations; not patched", NULL);
		return 0;
	}
	if (!file_matches(map, f)) {
		cua_log_msg(CUA_LOG_WARN, "CUAUDIT_STATIC_RUNTIME: ", file_of(map), " differs from"
			    " the loaded ", cua_lib_path(map), "; not patched", NULL);
		return 0;
	}
	return patch_object(map, f, t0);
}

/* x86-64 with the Zydis decoder only. */
static int can_patch(void)
{
#if !defined(__x86_64__) || !defined(CUA_HAVE_ZYDIS)
	return 0;
#else
	return 1;
#endif
}

/* The same, where CUAUDIT_STATIC_RUNTIME asked for it: elsewhere one message, and the
   driver level. */
static int supported(void)
{
#if !defined(__x86_64__) || !defined(CUA_HAVE_ZYDIS)
	static int said;

	if (!said++)
		cua_log_msg(CUA_LOG_WARN, "CUAUDIT_STATIC_RUNTIME: "
#if !defined(__x86_64__)
			    "entry patching works on x86-64 only"
#else
			    "this cuaudit was built without the Zydis decoder"
#endif
			    "; a statically linked runtime is seen at the driver level only", NULL);
	return 0;
#else
	return 1;
#endif
}

int cua_entrypatch_object(struct link_map *map)
{
	struct cua_filesyms f;
	uint64_t t0;
	int patched;

	if (!supported())
		return 0;
	t0 = now_ns();
	if (cua_filesyms_open(&f, file_of(map)) != 0)
		return 0;
	patched = examine(map, &f, t0);
	cua_filesyms_close(&f);
	return patched;
}

void cua_entrypatch_hint(struct link_map *driver)
{
	static int hinted;

	/* Silent where patching is not built in: the warning about that is for a process
	   that asked for CUAUDIT_STATIC_RUNTIME, not for every process that loads the driver. */
	if (hinted || cua_cfg.static_runtime || !cua_log_on(CUA_LOG_WARN) || !can_patch())
		return;
	hinted = 1;
	/* The objects loaded before the driver, the program first: a static runtime loads the
	   driver itself, so its object is among them. Their link_maps are alive: we are inside
	   the loader's la_objopen of the driver. */
	for (struct link_map *m = driver->l_prev; m; m = m->l_prev) {
		struct cua_filesyms f;
		int found;

		if (cua_filesyms_open(&f, file_of(m)) != 0)
			continue;
		found = f.symtab && f.has_fatbin && recognised(&f);
		cua_filesyms_close(&f);
		if (found) {
			char exe[CUA_PATH_MAX];
			ssize_t n = m->l_name && m->l_name[0] ? -1
							      : readlink("/proc/self/exe", exe, sizeof(exe) - 1);

			if (n > 0)
				exe[n] = '\0';
			cua_log_msg(CUA_LOG_WARN, n > 0 ? exe : file_of(m), " holds a statically linked CUDA runtime"
				    " (nvcc's default): its runtime calls are seen at the driver level"
				    " only; CUAUDIT_STATIC_RUNTIME=1 (cuaudit run --static-runtime on)"
				    " shows them", NULL);
			return;
		}
	}
}

uintptr_t cua_entrypatch_cookie(const struct link_map *map)
{
	for (unsigned i = 0; map && i < MAX_OBJECTS; i++)
		if (objs[i].map == map)
			return (uintptr_t)&objs[i];
	return 0;
}

struct link_map *cua_entrypatch_of_cookie(uintptr_t cookie)
{
	uintptr_t base = (uintptr_t)objs;

	if (cookie - base >= sizeof(objs) || (cookie - base) % sizeof(objs[0]))
		return NULL;
	return ((struct entry_obj *)cookie)->map;
}

void cua_entrypatch_forget(struct link_map *map)
{
	for (unsigned i = 0; map && i < MAX_OBJECTS; i++) {
		struct entry_obj *o = &objs[i];

		if (o->map != map)
			continue;
		/* The link_map is not read after this. cua_real_entry keeps the copy's targets:
		   a call still in flight in the copy (the program's bug) finds trampolines, not
		   a NULL. */
		copy_live[o->copy] = 0;
		o->map = NULL;
		if (!o->region)
			return;
		if (!o->entry) {
			/* Nothing of the object's code leads to them. */
			munmap(o->region, o->region_len);
		} else if (nretired < MAX_RETIRED) {
			struct retired *r = &retired[nretired++];

			r->region = o->region;
			r->region_len = o->region_len;
			r->entry = o->entry;
			memcpy(r->jump, o->jump, sizeof(r->jump));
		}
		/* Else, with MAX_RETIRED closed objects' code still in place, they stay mapped:
		   kept, never unmapped under code that may jump to them. */
		return;
	}
}

void cua_entrypatch_report(void)
{
	for (unsigned i = 0; i < MAX_OBJECTS; i++) {
		char line[512];
		struct cua_buf b = CUA_BUF(line);
		unsigned refused = objs[i].changed;

		if (!objs[i].map)
			continue;
		for (unsigned v = 1; v < CUA_X86_VERDICTS; v++)
			refused += objs[i].refused[v];
		cua_log_begin(&b, CUA_LOG_INFO);
		cua_buf_str(&b, cua_lib_path(objs[i].map));
		cua_buf_str(&b, " (static runtime): bindings entry=");
		cua_buf_u64(&b, objs[i].patched);
		cua_buf_str(&b, " refused=");
		cua_buf_u64(&b, refused);
		cua_log_end(&b);
	}
}
