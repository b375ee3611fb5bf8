/* SPDX-License-Identifier: MIT */
/* audit/nvtxlegacy.c: binds the legacy libnvToolsExt's exported NVTX functions to wrappers that hand each event to the module, then call the real function. */
#include "config.h"
#include "nvtx.h"
#include "nvtxlegacy.h"
#include "nvtxnames.h"

/* The legacy library (libnvToolsExt.so.1, NVTX 1 and 2, and NVTX 3 built with
   NVTX_EXPORT_API) exports the NVTX API as ordinary functions: PLT calls, bind-now slots
   and dlsym lookups of them reach la_symbind64 like libcuda's (docs/hooks.md, "NVTX
   ranges"). Only the functions that make an event are wrapped; the others keep their
   binding. */
enum {
	MARK_EX, MARK_A, MARK_W, START_EX, START_A, START_W, END, PUSH_EX, PUSH_A, PUSH_W, POP,
	D_MARK_EX, D_START_EX, D_END, D_PUSH_EX, D_POP, D_REG_A, D_REG_W, D_CREATE_A, D_CREATE_W,
	NWRAPPED
};
static const char *const names[NWRAPPED] = {
	"nvtxMarkEx", "nvtxMarkA", "nvtxMarkW", "nvtxRangeStartEx", "nvtxRangeStartA",
	"nvtxRangeStartW", "nvtxRangeEnd", "nvtxRangePushEx", "nvtxRangePushA", "nvtxRangePushW",
	"nvtxRangePop", "nvtxDomainMarkEx", "nvtxDomainRangeStartEx", "nvtxDomainRangeEnd",
	"nvtxDomainRangePushEx", "nvtxDomainRangePop", "nvtxDomainRegisterStringA",
	"nvtxDomainRegisterStringW", "nvtxDomainCreateA", "nvtxDomainCreateW",
};
static uintptr_t real[NWRAPPED];
static const struct cua_nvtx_bridge *b;
static _Alignas(8) char legacy_cookie; /* its address is the legacy library's loader cookie */

#define REAL(i, type) ((type)__atomic_load_n(&real[i], __ATOMIC_ACQUIRE))

/* ---------------------------------------------------------------- handles */

/* The handles the real library returned for domains and registered strings, with the name
   each was made with; bounded, never deleted (a later create may return the same handle).
   A null handle is not kept: NVTX defines the null domain as the default domain, and
   without a tool the legacy library returns null for every domain and string. */
#define DOMAINS 256u
#define STRINGS 8192u
#define PROBES 16u
struct handle {
	const void *handle; /* NULL: free */
	uint32_t name;
};
static struct handle domains[DOMAINS], strings[STRINGS];

static unsigned slot_of(const void *h, unsigned n)
{
	return (unsigned)(((uintptr_t)h >> 3) * 0x9e3779b97f4a7c15ull >> 40) & (n - 1);
}

static void keep(struct handle *table, unsigned n, const void *h, uint32_t name)
{
	unsigned i = slot_of(h, n);

	if (!h)
		return;
	for (unsigned p = 0; p < PROBES; p++, i = (i + 1) & (n - 1)) {
		const void *free_h = NULL;

		if (__atomic_load_n(&table[i].handle, __ATOMIC_ACQUIRE) == h) {
			__atomic_store_n(&table[i].name, name, __ATOMIC_RELAXED);
			return;
		}
		if (__atomic_compare_exchange_n(&table[i].handle, &free_h, h, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			__atomic_store_n(&table[i].name, name, __ATOMIC_RELEASE);
			return;
		}
	}
	/* A full neighbourhood: events on this handle are counted under no name. */
}

static uint32_t find(const struct handle *table, unsigned n, const void *h)
{
	unsigned i = slot_of(h, n);

	if (!h)
		return 0;
	for (unsigned p = 0; p < PROBES; p++, i = (i + 1) & (n - 1)) {
		const void *e = __atomic_load_n(&table[i].handle, __ATOMIC_ACQUIRE);

		if (e == h)
			return __atomic_load_n(&table[i].name, __ATOMIC_ACQUIRE);
		if (!e)
			return 0;
	}
	return 0;
}

static uint32_t domain_of(nvtxDomainHandle_t d)
{
	return find(domains, DOMAINS, d);
}

static uint32_t registered(nvtxStringHandle_t s)
{
	return find(strings, STRINGS, s);
}

static uint32_t attr_name(const nvtxEventAttributes_t *a)
{
	return cua_nvtx_name_attr(b, a, registered);
}

/* ---------------------------------------------------------------- wrappers */

/* The event is counted first (a push's time starts before the real call), then the real
   function runs with the forwarding mark set: an injection library it calls reports the
   same event, which is not counted again. What the real function returns is returned. */
#define FORWARD(level, call) \
	do { \
		cua_nvtx_forward_begin(level); \
		call; \
		cua_nvtx_forward_end(); \
	} while (0)

static void w_mark_ex(const nvtxEventAttributes_t *a)
{
	b->mark(attr_name(a), 0);
	FORWARD(0, REAL(MARK_EX, void (*)(const nvtxEventAttributes_t *))(a));
}

static void w_mark_a(const char *m)
{
	b->mark(cua_nvtx_name_ascii(b, m), 0);
	FORWARD(0, REAL(MARK_A, void (*)(const char *))(m));
}

static void w_mark_w(const wchar_t *m)
{
	b->mark(cua_nvtx_name_wide(b, m), 0);
	FORWARD(0, REAL(MARK_W, void (*)(const wchar_t *))(m));
}

/* A start needs the id the real function returns; an id of 0 (the legacy library without
   a tool) names no range and is counted in dropped.started. */
static nvtxRangeId_t started(nvtxRangeId_t id, uint32_t name, uint32_t domain)
{
	b->start(id, name, domain);
	return id;
}

static nvtxRangeId_t w_start_ex(const nvtxEventAttributes_t *a)
{
	uint32_t name = attr_name(a);
	nvtxRangeId_t id;

	FORWARD(0, id = REAL(START_EX, nvtxRangeId_t (*)(const nvtxEventAttributes_t *))(a));
	return started(id, name, 0);
}

static nvtxRangeId_t w_start_a(const char *m)
{
	uint32_t name = cua_nvtx_name_ascii(b, m);
	nvtxRangeId_t id;

	FORWARD(0, id = REAL(START_A, nvtxRangeId_t (*)(const char *))(m));
	return started(id, name, 0);
}

static nvtxRangeId_t w_start_w(const wchar_t *m)
{
	uint32_t name = cua_nvtx_name_wide(b, m);
	nvtxRangeId_t id;

	FORWARD(0, id = REAL(START_W, nvtxRangeId_t (*)(const wchar_t *))(m));
	return started(id, name, 0);
}

static void w_end(nvtxRangeId_t id)
{
	if (id)
		b->end(id);
	FORWARD(0, REAL(END, void (*)(nvtxRangeId_t))(id));
}

static int w_push_ex(const nvtxEventAttributes_t *a)
{
	int level = b->push(attr_name(a), 0), r;

	FORWARD(level, r = REAL(PUSH_EX, int (*)(const nvtxEventAttributes_t *))(a));
	return r;
}

static int w_push_a(const char *m)
{
	int level = b->push(cua_nvtx_name_ascii(b, m), 0), r;

	FORWARD(level, r = REAL(PUSH_A, int (*)(const char *))(m));
	return r;
}

static int w_push_w(const wchar_t *m)
{
	int level = b->push(cua_nvtx_name_wide(b, m), 0), r;

	FORWARD(level, r = REAL(PUSH_W, int (*)(const wchar_t *))(m));
	return r;
}

static int w_pop(void)
{
	int level = b->pop(0), r;

	FORWARD(level, r = REAL(POP, int (*)(void))());
	return r;
}

static void w_d_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	b->mark(attr_name(a), domain_of(d));
	FORWARD(0, REAL(D_MARK_EX, void (*)(nvtxDomainHandle_t, const nvtxEventAttributes_t *))(d, a));
}

static nvtxRangeId_t w_d_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	uint32_t name = attr_name(a);
	nvtxRangeId_t id;

	FORWARD(0, id = REAL(D_START_EX, nvtxRangeId_t (*)(nvtxDomainHandle_t, const nvtxEventAttributes_t *))(d, a));
	return started(id, name, domain_of(d));
}

static void w_d_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
	if (id)
		b->end(id);
	FORWARD(0, REAL(D_END, void (*)(nvtxDomainHandle_t, nvtxRangeId_t))(d, id));
}

static int w_d_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	int level = b->push(attr_name(a), domain_of(d)), r;

	FORWARD(level, r = REAL(D_PUSH_EX, int (*)(nvtxDomainHandle_t, const nvtxEventAttributes_t *))(d, a));
	return r;
}

static int w_d_pop(nvtxDomainHandle_t d)
{
	int level = b->pop(domain_of(d)), r;

	FORWARD(level, r = REAL(D_POP, int (*)(nvtxDomainHandle_t))(d));
	return r;
}

static nvtxStringHandle_t w_d_reg_a(nvtxDomainHandle_t d, const char *s)
{
	nvtxStringHandle_t h = REAL(D_REG_A, nvtxStringHandle_t (*)(nvtxDomainHandle_t, const char *))(d, s);

	keep(strings, STRINGS, h, cua_nvtx_name_ascii(b, s));
	return h;
}

static nvtxStringHandle_t w_d_reg_w(nvtxDomainHandle_t d, const wchar_t *s)
{
	nvtxStringHandle_t h = REAL(D_REG_W, nvtxStringHandle_t (*)(nvtxDomainHandle_t, const wchar_t *))(d, s);

	keep(strings, STRINGS, h, cua_nvtx_name_wide(b, s));
	return h;
}

static nvtxDomainHandle_t w_d_create_a(const char *s)
{
	nvtxDomainHandle_t h = REAL(D_CREATE_A, nvtxDomainHandle_t (*)(const char *))(s);

	keep(domains, DOMAINS, h, cua_nvtx_name_ascii(b, s));
	return h;
}

static nvtxDomainHandle_t w_d_create_w(const wchar_t *s)
{
	nvtxDomainHandle_t h = REAL(D_CREATE_W, nvtxDomainHandle_t (*)(const wchar_t *))(s);

	keep(domains, DOMAINS, h, cua_nvtx_name_wide(b, s));
	return h;
}

#define W(fn) ((uintptr_t)(fn))
static const uintptr_t wrappers[NWRAPPED] = {
	W(w_mark_ex), W(w_mark_a), W(w_mark_w), W(w_start_ex), W(w_start_a), W(w_start_w),
	W(w_end), W(w_push_ex), W(w_push_a), W(w_push_w), W(w_pop), W(w_d_mark_ex),
	W(w_d_start_ex), W(w_d_end), W(w_d_push_ex), W(w_d_pop), W(w_d_reg_a), W(w_d_reg_w),
	W(w_d_create_a), W(w_d_create_w),
};

/* ---------------------------------------------------------------- the loader's side */

static int legacy_index(const char *elf_name)
{
	if (elf_name[0] != 'n' || strncmp(elf_name, "nvtx", 4) != 0)
		return -1;
	for (int i = 0; i < NWRAPPED; i++)
		if (strcmp(elf_name, names[i]) == 0)
			return i;
	return -1;
}

unsigned cua_nvtxlegacy_is_name(const char *elf_name)
{
	return cua_cfg.nvtx && legacy_index(elf_name) >= 0;
}

uintptr_t cua_nvtxlegacy_open(struct link_map *map)
{
	const char *path = map->l_name, *slash = path ? strrchr(path, '/') : NULL;
	const char *base = slash ? slash + 1 : path;

	if (!cua_cfg.nvtx || !base || strncmp(base, "libnvToolsExt.so", 16) != 0 ||
	    (base[16] && base[16] != '.'))
		return 0;
	if (!b && !(b = cua_nvtx_bridge_here()))
		return 0;
	return (uintptr_t)&legacy_cookie;
}

int cua_nvtxlegacy_is_cookie(uintptr_t cookie)
{
	return cookie == (uintptr_t)&legacy_cookie;
}

uintptr_t cua_nvtxlegacy_bind(const char *symname, uintptr_t value)
{
	int i = legacy_index(symname);

	if (i < 0)
		return value;
	/* Idempotent: every binding of the name carries the same address. */
	__atomic_store_n(&real[i], value, __ATOMIC_RELEASE);
	return wrappers[i];
}
