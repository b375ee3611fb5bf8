/* SPDX-License-Identifier: MIT */
/* nvtx/injection.c: libcuaudit-nvtx.so, the NVTX injection library: fills the NVTX core slots, hands each event to the module and to a chained tool. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "nvtxnames.h"

/* The NVTX headers' slot tables and callback ids (nvtxDetail/nvtxTypes.h) are the ABI this
   file follows: each library that uses NVTX calls InitializeInjectionNvtx2 once, with its own
   export table, and we write our functions into its CORE and CORE2 slots. */

#define API __attribute__((visibility("default")))

/* Written by the module at la_objopen (record/nvtxbridge.h); zero when no module or
   NVTX off. Protected: our own reads never go to another object's copy. */
__attribute__((visibility("protected"))) const struct cua_nvtx_bridge *volatile cuaudit_nvtx_bridge_v1;

/* The chained tool's functions: what its InitializeInjectionNvtx2 wrote into the slots. The
   first library to initialise sets them; a tool gives every library the same functions. */
static NvtxFunctionPointer next_core[NVTX_CBID_CORE_SIZE];
static NvtxFunctionPointer next_core2[NVTX_CBID_CORE2_SIZE];
static NvtxInitializeInjectionNvtxFunc_t next_init;
static int chain_state; /* 0 not tried, 1 loaded, -1 none */

static const struct cua_nvtx_bridge *bridge(void)
{
	const struct cua_nvtx_bridge *b = cuaudit_nvtx_bridge_v1;

	return b && b->version == CUA_NVTX_BRIDGE_VERSION && b->size >= sizeof(*b) ? b : NULL;
}

/* ---------------------------------------------------------------- handles */

/* Domains and registered strings: handles into bounded tables here, each keeping the name's
   id and the chained tool's own handle. Past the bound, the chained tool's handle (or a
   shared overflow entry) is returned as it is: a handle outside our table is forwarded
   unchanged and counted under no name. */
#define DOMAINS 256u
#define STRINGS 8192u
struct handle {
	uint32_t name;
	void *next;
};
static struct handle domains[DOMAINS], strings[STRINGS], overflow;
static unsigned ndomains, nstrings;

static struct handle *ours(struct handle *table, unsigned n, const void *h)
{
	uintptr_t off = (uintptr_t)h - (uintptr_t)table;

	if (h == &overflow)
		return &overflow;
	return off < n * sizeof(*table) && off % sizeof(*table) == 0 ? (struct handle *)h : NULL;
}

static uint32_t domain_id(nvtxDomainHandle_t d)
{
	struct handle *h = ours(domains, DOMAINS, d);

	return h ? h->name : 0;
}

static void *domain_next(nvtxDomainHandle_t d)
{
	struct handle *h = ours(domains, DOMAINS, d);

	return h ? h->next : (void *)d;
}

static void *new_handle(struct handle *table, unsigned *n, unsigned max, uint32_t name, void *next)
{
	unsigned i = __atomic_fetch_add(n, 1, __ATOMIC_RELAXED);

	if (i >= max)
		return next ? next : (void *)&overflow;
	table[i].name = name;
	table[i].next = next;
	return &table[i];
}

/* ---------------------------------------------------------------- names */

static uint32_t registered_name(nvtxStringHandle_t r)
{
	struct handle *h = ours(strings, STRINGS, r);

	return h ? h->name : 0;
}

/* The attributes the chained tool must see: its own registered-string handle. */
static const nvtxEventAttributes_t *attr_for_next(const nvtxEventAttributes_t *a, nvtxEventAttributes_t *copy)
{
	struct handle *h;

	if (!a || a->messageType != NVTX_MESSAGE_TYPE_REGISTERED ||
	    a->size < offsetof(nvtxEventAttributes_t, message) + sizeof(a->message) ||
	    !(h = ours(strings, STRINGS, a->message.registered)))
		return a;
	memcpy(copy, a, a->size < sizeof(*copy) ? a->size : sizeof(*copy));
	copy->message.registered = (nvtxStringHandle_t)h->next;
	return copy;
}

#define NEXT(table, id, type) ((type)(table)[id])

/* ---------------------------------------------------------------- core slots */

static void mark_ex(const nvtxEventAttributes_t *a)
{
	const struct cua_nvtx_bridge *b = bridge();
	nvtxEventAttributes_t copy;

	if (b)
		b->mark(cua_nvtx_name_attr(b, a, registered_name), 0);
	if (next_core[NVTX_CBID_CORE_MarkEx])
		NEXT(next_core, NVTX_CBID_CORE_MarkEx, nvtxMarkEx_impl_fntype)(attr_for_next(a, &copy));
}

static void mark_a(const char *m)
{
	const struct cua_nvtx_bridge *b = bridge();

	if (b)
		b->mark(cua_nvtx_name_ascii(b, m), 0);
	if (next_core[NVTX_CBID_CORE_MarkA])
		NEXT(next_core, NVTX_CBID_CORE_MarkA, nvtxMarkA_impl_fntype)(m);
}

static void mark_w(const wchar_t *m)
{
	const struct cua_nvtx_bridge *b = bridge();

	if (b)
		b->mark(cua_nvtx_name_wide(b, m), 0);
	if (next_core[NVTX_CBID_CORE_MarkW])
		NEXT(next_core, NVTX_CBID_CORE_MarkW, nvtxMarkW_impl_fntype)(m);
}

/* Range ids: the chained tool's when there is one (its end must find its own id), else
   ours, counted from 1. */
static uint64_t last_id;

static nvtxRangeId_t started(const struct cua_nvtx_bridge *b, nvtxRangeId_t id, uint32_t name, uint32_t domain)
{
	if (!id)
		id = __atomic_add_fetch(&last_id, 1, __ATOMIC_RELAXED);
	if (b)
		b->start(id, name, domain);
	return id;
}

static nvtxRangeId_t start_ex(const nvtxEventAttributes_t *a)
{
	const struct cua_nvtx_bridge *b = bridge();
	nvtxEventAttributes_t copy;
	nvtxRangeId_t id = 0;

	if (next_core[NVTX_CBID_CORE_RangeStartEx])
		id = NEXT(next_core, NVTX_CBID_CORE_RangeStartEx, nvtxRangeStartEx_impl_fntype)(attr_for_next(a, &copy));
	return started(b, id, b ? cua_nvtx_name_attr(b, a, registered_name) : 0, 0);
}

static nvtxRangeId_t start_a(const char *m)
{
	const struct cua_nvtx_bridge *b = bridge();
	nvtxRangeId_t id = 0;

	if (next_core[NVTX_CBID_CORE_RangeStartA])
		id = NEXT(next_core, NVTX_CBID_CORE_RangeStartA, nvtxRangeStartA_impl_fntype)(m);
	return started(b, id, b ? cua_nvtx_name_ascii(b, m) : 0, 0);
}

static nvtxRangeId_t start_w(const wchar_t *m)
{
	const struct cua_nvtx_bridge *b = bridge();
	nvtxRangeId_t id = 0;

	if (next_core[NVTX_CBID_CORE_RangeStartW])
		id = NEXT(next_core, NVTX_CBID_CORE_RangeStartW, nvtxRangeStartW_impl_fntype)(m);
	return started(b, id, b ? cua_nvtx_name_wide(b, m) : 0, 0);
}

static void range_end(nvtxRangeId_t id)
{
	const struct cua_nvtx_bridge *b = bridge();

	if (b)
		b->end(id);
	if (next_core[NVTX_CBID_CORE_RangeEnd])
		NEXT(next_core, NVTX_CBID_CORE_RangeEnd, nvtxRangeEnd_impl_fntype)(id);
}

/* Push and pop return the chained tool's level when it has one, else ours. */
static int pushed(const struct cua_nvtx_bridge *b, uint32_t name, uint32_t domain, int has_next, int next_level)
{
	int level = b ? b->push(name, domain) : -1;

	return has_next ? next_level : level;
}

static int push_ex(const nvtxEventAttributes_t *a)
{
	const struct cua_nvtx_bridge *b = bridge();
	nvtxEventAttributes_t copy;
	int has = next_core[NVTX_CBID_CORE_RangePushEx] != NULL, level = 0;

	if (has)
		level = NEXT(next_core, NVTX_CBID_CORE_RangePushEx, nvtxRangePushEx_impl_fntype)(attr_for_next(a, &copy));
	return pushed(b, b ? cua_nvtx_name_attr(b, a, registered_name) : 0, 0, has, level);
}

static int push_a(const char *m)
{
	const struct cua_nvtx_bridge *b = bridge();
	int has = next_core[NVTX_CBID_CORE_RangePushA] != NULL, level = 0;

	if (has)
		level = NEXT(next_core, NVTX_CBID_CORE_RangePushA, nvtxRangePushA_impl_fntype)(m);
	return pushed(b, b ? cua_nvtx_name_ascii(b, m) : 0, 0, has, level);
}

static int push_w(const wchar_t *m)
{
	const struct cua_nvtx_bridge *b = bridge();
	int has = next_core[NVTX_CBID_CORE_RangePushW] != NULL, level = 0;

	if (has)
		level = NEXT(next_core, NVTX_CBID_CORE_RangePushW, nvtxRangePushW_impl_fntype)(m);
	return pushed(b, b ? cua_nvtx_name_wide(b, m) : 0, 0, has, level);
}

static int range_pop(void)
{
	const struct cua_nvtx_bridge *b = bridge();
	int level = b ? b->pop(0) : -1;

	if (next_core[NVTX_CBID_CORE_RangePop])
		return NEXT(next_core, NVTX_CBID_CORE_RangePop, nvtxRangePop_impl_fntype)();
	return level;
}

static void name_category_a(uint32_t category, const char *name)
{
	if (next_core[NVTX_CBID_CORE_NameCategoryA])
		NEXT(next_core, NVTX_CBID_CORE_NameCategoryA, nvtxNameCategoryA_impl_fntype)(category, name);
}

static void name_category_w(uint32_t category, const wchar_t *name)
{
	if (next_core[NVTX_CBID_CORE_NameCategoryW])
		NEXT(next_core, NVTX_CBID_CORE_NameCategoryW, nvtxNameCategoryW_impl_fntype)(category, name);
}

static void name_thread_a(uint32_t tid, const char *name)
{
	if (next_core[NVTX_CBID_CORE_NameOsThreadA])
		NEXT(next_core, NVTX_CBID_CORE_NameOsThreadA, nvtxNameOsThreadA_impl_fntype)(tid, name);
}

static void name_thread_w(uint32_t tid, const wchar_t *name)
{
	if (next_core[NVTX_CBID_CORE_NameOsThreadW])
		NEXT(next_core, NVTX_CBID_CORE_NameOsThreadW, nvtxNameOsThreadW_impl_fntype)(tid, name);
}

/* ---------------------------------------------------------------- domain slots */

static void d_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	const struct cua_nvtx_bridge *b = bridge();
	nvtxEventAttributes_t copy;

	if (b)
		b->mark(cua_nvtx_name_attr(b, a, registered_name), domain_id(d));
	if (next_core2[NVTX_CBID_CORE2_DomainMarkEx])
		NEXT(next_core2, NVTX_CBID_CORE2_DomainMarkEx, nvtxDomainMarkEx_impl_fntype)(domain_next(d), attr_for_next(a, &copy));
}

static nvtxRangeId_t d_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	const struct cua_nvtx_bridge *b = bridge();
	nvtxEventAttributes_t copy;
	nvtxRangeId_t id = 0;

	if (next_core2[NVTX_CBID_CORE2_DomainRangeStartEx])
		id = NEXT(next_core2, NVTX_CBID_CORE2_DomainRangeStartEx, nvtxDomainRangeStartEx_impl_fntype)(domain_next(d), attr_for_next(a, &copy));
	return started(b, id, b ? cua_nvtx_name_attr(b, a, registered_name) : 0, domain_id(d));
}

static void d_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
	const struct cua_nvtx_bridge *b = bridge();

	if (b)
		b->end(id);
	if (next_core2[NVTX_CBID_CORE2_DomainRangeEnd])
		NEXT(next_core2, NVTX_CBID_CORE2_DomainRangeEnd, nvtxDomainRangeEnd_impl_fntype)(domain_next(d), id);
}

static int d_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	const struct cua_nvtx_bridge *b = bridge();
	nvtxEventAttributes_t copy;
	int has = next_core2[NVTX_CBID_CORE2_DomainRangePushEx] != NULL, level = 0;

	if (has)
		level = NEXT(next_core2, NVTX_CBID_CORE2_DomainRangePushEx, nvtxDomainRangePushEx_impl_fntype)(domain_next(d), attr_for_next(a, &copy));
	return pushed(b, b ? cua_nvtx_name_attr(b, a, registered_name) : 0, domain_id(d), has, level);
}

static int d_pop(nvtxDomainHandle_t d)
{
	const struct cua_nvtx_bridge *b = bridge();
	int level = b ? b->pop(domain_id(d)) : -1;

	if (next_core2[NVTX_CBID_CORE2_DomainRangePop])
		return NEXT(next_core2, NVTX_CBID_CORE2_DomainRangePop, nvtxDomainRangePop_impl_fntype)(domain_next(d));
	return level;
}

static nvtxResourceHandle_t d_resource_create(nvtxDomainHandle_t d, nvtxResourceAttributes_t *attr)
{
	if (next_core2[NVTX_CBID_CORE2_DomainResourceCreate])
		return NEXT(next_core2, NVTX_CBID_CORE2_DomainResourceCreate, nvtxDomainResourceCreate_impl_fntype)(domain_next(d), attr);
	return NULL;
}

static void d_resource_destroy(nvtxResourceHandle_t r)
{
	if (next_core2[NVTX_CBID_CORE2_DomainResourceDestroy])
		NEXT(next_core2, NVTX_CBID_CORE2_DomainResourceDestroy, nvtxDomainResourceDestroy_impl_fntype)(r);
}

static void d_name_category_a(nvtxDomainHandle_t d, uint32_t category, const char *name)
{
	if (next_core2[NVTX_CBID_CORE2_DomainNameCategoryA])
		NEXT(next_core2, NVTX_CBID_CORE2_DomainNameCategoryA, nvtxDomainNameCategoryA_impl_fntype)(domain_next(d), category, name);
}

static void d_name_category_w(nvtxDomainHandle_t d, uint32_t category, const wchar_t *name)
{
	if (next_core2[NVTX_CBID_CORE2_DomainNameCategoryW])
		NEXT(next_core2, NVTX_CBID_CORE2_DomainNameCategoryW, nvtxDomainNameCategoryW_impl_fntype)(domain_next(d), category, name);
}

static nvtxStringHandle_t d_register_a(nvtxDomainHandle_t d, const char *s)
{
	const struct cua_nvtx_bridge *b = bridge();
	void *next = NULL;

	if (next_core2[NVTX_CBID_CORE2_DomainRegisterStringA])
		next = NEXT(next_core2, NVTX_CBID_CORE2_DomainRegisterStringA, nvtxDomainRegisterStringA_impl_fntype)(domain_next(d), s);
	return new_handle(strings, &nstrings, STRINGS, b ? cua_nvtx_name_ascii(b, s) : 0, next);
}

static nvtxStringHandle_t d_register_w(nvtxDomainHandle_t d, const wchar_t *s)
{
	const struct cua_nvtx_bridge *b = bridge();
	void *next = NULL;

	if (next_core2[NVTX_CBID_CORE2_DomainRegisterStringW])
		next = NEXT(next_core2, NVTX_CBID_CORE2_DomainRegisterStringW, nvtxDomainRegisterStringW_impl_fntype)(domain_next(d), s);
	return new_handle(strings, &nstrings, STRINGS, b ? cua_nvtx_name_wide(b, s) : 0, next);
}

static nvtxDomainHandle_t d_create_a(const char *s)
{
	const struct cua_nvtx_bridge *b = bridge();
	void *next = NULL;

	if (next_core2[NVTX_CBID_CORE2_DomainCreateA])
		next = NEXT(next_core2, NVTX_CBID_CORE2_DomainCreateA, nvtxDomainCreateA_impl_fntype)(s);
	return new_handle(domains, &ndomains, DOMAINS, b ? cua_nvtx_name_ascii(b, s) : 0, next);
}

static nvtxDomainHandle_t d_create_w(const wchar_t *s)
{
	const struct cua_nvtx_bridge *b = bridge();
	void *next = NULL;

	if (next_core2[NVTX_CBID_CORE2_DomainCreateW])
		next = NEXT(next_core2, NVTX_CBID_CORE2_DomainCreateW, nvtxDomainCreateW_impl_fntype)(s);
	return new_handle(domains, &ndomains, DOMAINS, b ? cua_nvtx_name_wide(b, s) : 0, next);
}

/* Our entries stay (the table is bounded and a later create may want the name again). */
static void d_destroy(nvtxDomainHandle_t d)
{
	if (next_core2[NVTX_CBID_CORE2_DomainDestroy])
		NEXT(next_core2, NVTX_CBID_CORE2_DomainDestroy, nvtxDomainDestroy_impl_fntype)(domain_next(d));
}

static void d_initialize(const void *reserved)
{
	if (next_core2[NVTX_CBID_CORE2_Initialize])
		NEXT(next_core2, NVTX_CBID_CORE2_Initialize, nvtxInitialize_impl_fntype)(reserved);
}

/* ---------------------------------------------------------------- initialisation */

#define F(fn) ((NvtxFunctionPointer)(fn))
static const NvtxFunctionPointer our_core[NVTX_CBID_CORE_SIZE] = {
	[NVTX_CBID_CORE_MarkEx] = F(mark_ex), [NVTX_CBID_CORE_MarkA] = F(mark_a),
	[NVTX_CBID_CORE_MarkW] = F(mark_w), [NVTX_CBID_CORE_RangeStartEx] = F(start_ex),
	[NVTX_CBID_CORE_RangeStartA] = F(start_a), [NVTX_CBID_CORE_RangeStartW] = F(start_w),
	[NVTX_CBID_CORE_RangeEnd] = F(range_end), [NVTX_CBID_CORE_RangePushEx] = F(push_ex),
	[NVTX_CBID_CORE_RangePushA] = F(push_a), [NVTX_CBID_CORE_RangePushW] = F(push_w),
	[NVTX_CBID_CORE_RangePop] = F(range_pop), [NVTX_CBID_CORE_NameCategoryA] = F(name_category_a),
	[NVTX_CBID_CORE_NameCategoryW] = F(name_category_w), [NVTX_CBID_CORE_NameOsThreadA] = F(name_thread_a),
	[NVTX_CBID_CORE_NameOsThreadW] = F(name_thread_w),
};
static const NvtxFunctionPointer our_core2[NVTX_CBID_CORE2_SIZE] = {
	[NVTX_CBID_CORE2_DomainMarkEx] = F(d_mark_ex), [NVTX_CBID_CORE2_DomainRangeStartEx] = F(d_start_ex),
	[NVTX_CBID_CORE2_DomainRangeEnd] = F(d_end), [NVTX_CBID_CORE2_DomainRangePushEx] = F(d_push_ex),
	[NVTX_CBID_CORE2_DomainRangePop] = F(d_pop), [NVTX_CBID_CORE2_DomainResourceCreate] = F(d_resource_create),
	[NVTX_CBID_CORE2_DomainResourceDestroy] = F(d_resource_destroy),
	[NVTX_CBID_CORE2_DomainNameCategoryA] = F(d_name_category_a),
	[NVTX_CBID_CORE2_DomainNameCategoryW] = F(d_name_category_w),
	[NVTX_CBID_CORE2_DomainRegisterStringA] = F(d_register_a),
	[NVTX_CBID_CORE2_DomainRegisterStringW] = F(d_register_w),
	[NVTX_CBID_CORE2_DomainCreateA] = F(d_create_a), [NVTX_CBID_CORE2_DomainCreateW] = F(d_create_w),
	[NVTX_CBID_CORE2_DomainDestroy] = F(d_destroy), [NVTX_CBID_CORE2_Initialize] = F(d_initialize),
};

struct module_table {
	NvtxFunctionTable slots;
	unsigned size;
};

static int get_table(NvtxGetExportTableFunc_t get, NvtxCallbackModule module, struct module_table *t)
{
	const NvtxExportTableCallbacks *cb = get(NVTX_ETID_CALLBACKS);

	t->slots = NULL;
	t->size = 0;
	return cb && cb->struct_size >= sizeof(*cb) && cb->GetModuleFunctionTable &&
	       cb->GetModuleFunctionTable(module, &t->slots, &t->size) && t->slots ? 0 : -1;
}

API int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get);

/* The tool named by CUAUDIT_NVTX_CHAIN (`cuaudit run` puts there what NVTX_INJECTION64_PATH
   named before): loaded once, never ourselves, nor another copy of this library (another
   install's): the module connects every copy (it has the bridge symbol), so a chained copy
   would report each event a second time. */
static NvtxInitializeInjectionNvtxFunc_t chained(void)
{
	const char *path;
	void *h;

	if (chain_state)
		return next_init;
	chain_state = -1;
	path = getenv("CUAUDIT_NVTX_CHAIN");
	if (!path || !path[0])
		return NULL;
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return NULL;
	next_init = (NvtxInitializeInjectionNvtxFunc_t)dlsym(h, "InitializeInjectionNvtx2");
	if (!next_init || next_init == InitializeInjectionNvtx2 ||
	    dlsym(h, CUA_NVTX_BRIDGE_SYMBOL)) {
		next_init = NULL;
		return NULL;
	}
	chain_state = 1;
	return next_init;
}

/* What the chained tool wrote over the value a slot had before it ran. */
static void take_next(struct module_table *t, NvtxFunctionPointer *before, NvtxFunctionPointer *next, unsigned n)
{
	for (unsigned i = 1; i < n && i < t->size; i++)
		if (t->slots[i] && *t->slots[i] != before[i] && !next[i])
			next[i] = *t->slots[i];
}

static void install(struct module_table *t, const NvtxFunctionPointer *ours_tab, unsigned n)
{
	for (unsigned i = 1; i < n && i < t->size; i++)
		if (t->slots[i] && ours_tab[i])
			*t->slots[i] = ours_tab[i];
}

/* Called once by each library's NVTX instance, on the thread of its first NVTX call, under
   that instance's own once-only guard. Returns 0 (NVTX stays a no-op there) only when
   neither the module nor a chained tool wants the events. */
API int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
	static __thread int inside; /* a chained tool that calls NVTX while it starts */
	struct module_table core, core2;
	NvtxFunctionPointer before_core[NVTX_CBID_CORE_SIZE] = { 0 }, before_core2[NVTX_CBID_CORE2_SIZE] = { 0 };
	NvtxInitializeInjectionNvtxFunc_t next;
	const NvtxExportTableVersionInfo *v;
	int next_ok = 0;

	if (!get || inside || get_table(get, NVTX_CB_MODULE_CORE, &core) != 0 ||
	    get_table(get, NVTX_CB_MODULE_CORE2, &core2) != 0)
		return 0;
	inside = 1;
	next = chained();
	for (unsigned i = 1; i < NVTX_CBID_CORE_SIZE && i < core.size; i++)
		before_core[i] = core.slots[i] ? *core.slots[i] : NULL;
	for (unsigned i = 1; i < NVTX_CBID_CORE2_SIZE && i < core2.size; i++)
		before_core2[i] = core2.slots[i] ? *core2.slots[i] : NULL;
	if (next && next(get)) {
		next_ok = 1;
		take_next(&core, before_core, next_core, NVTX_CBID_CORE_SIZE);
		take_next(&core2, before_core2, next_core2, NVTX_CBID_CORE2_SIZE);
	}
	inside = 0;
	if (!bridge())
		return next_ok; /* no module: the chained tool alone, untouched */
	v = get(NVTX_ETID_VERSIONINFO);
	if (v && v->struct_size >= sizeof(*v) && v->SetInjectionNvtxVersion)
		v->SetInjectionNvtxVersion(NVTX_VERSION);
	install(&core, our_core, NVTX_CBID_CORE_SIZE);
	install(&core2, our_core2, NVTX_CBID_CORE2_SIZE);
	return 1;
}
