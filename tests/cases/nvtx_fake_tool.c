/* SPDX-License-Identifier: MIT */
/* tests/cases/nvtx_fake_tool.c: a second NVTX injection library that counts every call it receives and writes the counts at exit, for the chaining tests. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

static unsigned long core[NVTX_CBID_CORE_SIZE], core2[NVTX_CBID_CORE2_SIZE];
static unsigned long bad_handles; /* a handle or string that is not ours */
static int level;
static char my_domain, my_string;
static nvtxRangeId_t next_id = 1000;

#define HIT(t, id) __atomic_fetch_add(&t[id], 1, __ATOMIC_RELAXED)
static void check_attr(const nvtxEventAttributes_t *a)
{
	if (a && a->messageType == NVTX_MESSAGE_TYPE_REGISTERED && a->message.registered != (void *)&my_string)
		__atomic_fetch_add(&bad_handles, 1, __ATOMIC_RELAXED);
}
static void check_dom(nvtxDomainHandle_t d)
{
	if (d && d != (void *)&my_domain)
		__atomic_fetch_add(&bad_handles, 1, __ATOMIC_RELAXED);
}
static void mark_ex(const nvtxEventAttributes_t *a) { check_attr(a); HIT(core, NVTX_CBID_CORE_MarkEx); }
static void mark_a(const char *m) { (void)m; HIT(core, NVTX_CBID_CORE_MarkA); }
static nvtxRangeId_t start_a(const char *m) { (void)m; HIT(core, NVTX_CBID_CORE_RangeStartA); return __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED); }
static void end(nvtxRangeId_t id) { (void)id; HIT(core, NVTX_CBID_CORE_RangeEnd); }
static int push_a(const char *m) { (void)m; HIT(core, NVTX_CBID_CORE_RangePushA); return 77; }
static int push_w(const wchar_t *m) { (void)m; HIT(core, NVTX_CBID_CORE_RangePushW); return 77; }
static int pop(void) { HIT(core, NVTX_CBID_CORE_RangePop); return 78; }
static void d_mark(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) { check_dom(d); check_attr(a); HIT(core2, NVTX_CBID_CORE2_DomainMarkEx); }
static int d_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) { check_dom(d); check_attr(a); HIT(core2, NVTX_CBID_CORE2_DomainRangePushEx); return 5; }
static int d_pop(nvtxDomainHandle_t d) { check_dom(d); HIT(core2, NVTX_CBID_CORE2_DomainRangePop); return 5; }
static nvtxStringHandle_t d_reg(nvtxDomainHandle_t d, const char *s) { (void)s; check_dom(d); HIT(core2, NVTX_CBID_CORE2_DomainRegisterStringA); return (nvtxStringHandle_t)&my_string; }
static nvtxDomainHandle_t d_create(const char *s) { (void)s; HIT(core2, NVTX_CBID_CORE2_DomainCreateA); return (nvtxDomainHandle_t)&my_domain; }

static void set(NvtxGetExportTableFunc_t get, NvtxCallbackModule m, unsigned id, void *fn)
{
	const NvtxExportTableCallbacks *cb = get(NVTX_ETID_CALLBACKS);
	NvtxFunctionTable t = NULL;
	unsigned n = 0;

	if (cb && cb->GetModuleFunctionTable(m, &t, &n) && id < n && t[id])
		*t[id] = (NvtxFunctionPointer)fn;
}

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
	set(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkEx, mark_ex);
	set(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkA, mark_a);
	set(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartA, start_a);
	set(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeEnd, end);
	set(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, push_a);
	set(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushW, push_w);
	set(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, pop);
	set(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainMarkEx, d_mark);
	set(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx, d_push);
	set(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop, d_pop);
	set(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringA, d_reg);
	set(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateA, d_create);
	(void)level;
	return 1;
}

/* FAKE_NVTX_OUT.<pid>: "core ID COUNT" and "core2 ID COUNT" lines, then "bad N". */
__attribute__((destructor)) static void write_counts(void)
{
	const char *base = getenv("FAKE_NVTX_OUT");
	char path[4096];
	FILE *f;

	if (!base)
		return;
	snprintf(path, sizeof(path), "%s.%d", base, (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return;
	for (unsigned i = 1; i < NVTX_CBID_CORE_SIZE; i++)
		if (core[i])
			fprintf(f, "core %u %lu\n", i, core[i]);
	for (unsigned i = 1; i < NVTX_CBID_CORE2_SIZE; i++)
		if (core2[i])
			fprintf(f, "core2 %u %lu\n", i, core2[i]);
	fprintf(f, "bad %lu\n", bad_handles);
	fclose(f);
}
