/* SPDX-License-Identifier: MIT */
/* tests/cases/nvtx_legacy_prog.c: a program on the legacy libnvToolsExt.so.1 (linked, lazy or bind-now, or through dlopen and dlsym): nested ranges in threads, a domain, a registered string, marks, a start/end range. */
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#define THREADS 2
#define STEPS 100

#ifdef VIA_DLSYM
#include <dlfcn.h>
/* Calls through pointers from dlsym: no binding to the library in this executable. */
static struct {
	__typeof__(nvtxRangePushA) *nvtxRangePushA;
	__typeof__(nvtxRangePushW) *nvtxRangePushW;
	__typeof__(nvtxRangePop) *nvtxRangePop;
	__typeof__(nvtxMarkA) *nvtxMarkA;
	__typeof__(nvtxRangeStartA) *nvtxRangeStartA;
	__typeof__(nvtxRangeEnd) *nvtxRangeEnd;
	__typeof__(nvtxDomainCreateA) *nvtxDomainCreateA;
	__typeof__(nvtxDomainRegisterStringA) *nvtxDomainRegisterStringA;
	__typeof__(nvtxDomainRangePushEx) *nvtxDomainRangePushEx;
	__typeof__(nvtxDomainMarkEx) *nvtxDomainMarkEx;
	__typeof__(nvtxDomainRangePop) *nvtxDomainRangePop;
} f;
#define F(fn) f.fn
#define LOAD(h, fn) \
	do { \
		if (!(*(void **)&f.fn = dlsym(h, #fn))) { \
			fprintf(stderr, "no %s\n", #fn); \
			exit(2); \
		} \
	} while (0)
static void load(void)
{
	void *h = dlopen("libnvToolsExt.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		exit(2);
	}
	LOAD(h, nvtxRangePushA); LOAD(h, nvtxRangePushW); LOAD(h, nvtxRangePop);
	LOAD(h, nvtxMarkA); LOAD(h, nvtxRangeStartA); LOAD(h, nvtxRangeEnd);
	LOAD(h, nvtxDomainCreateA); LOAD(h, nvtxDomainRegisterStringA);
	LOAD(h, nvtxDomainRangePushEx); LOAD(h, nvtxDomainMarkEx); LOAD(h, nvtxDomainRangePop);
}
#else
#define F(fn) fn
static void load(void)
{
}
#endif

static nvtxDomainHandle_t dom;
static nvtxStringHandle_t reg;

static void *worker(void *arg)
{
	nvtxEventAttributes_t a = { 0 };
	int count = 0;

	(void)arg;
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	a.message.registered = reg;
	for (int i = 0; i < STEPS; i++) {
		F(nvtxRangePushA)("lstep");
		F(nvtxRangePushW)(L"lforward");
		cuDeviceGetCount(&count);
		F(nvtxRangePop)();
		F(nvtxDomainRangePushEx)(dom, &a);
		F(nvtxDomainMarkEx)(dom, &a);
		F(nvtxDomainRangePop)(dom);
		F(nvtxRangePop)();
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	nvtxRangeId_t id;
	int count = 0;

	load();
	cuInit(0);
	dom = F(nvtxDomainCreateA)("ldom");
	reg = F(nvtxDomainRegisterStringA)(dom, "lreg");
	F(nvtxMarkA)("lbegin");
	id = F(nvtxRangeStartA)("lacross");
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	F(nvtxRangeEnd)(id);
	/* What the library returns, printed so that the native and audited runs compare. */
	printf("push level %d\n", F(nvtxRangePushA)("louter"));
	printf("push level %d\n", F(nvtxRangePushA)("linner"));
	printf("pop level %d\n", F(nvtxRangePop)());
	printf("pop level %d\n", F(nvtxRangePop)());
	cuDeviceGetCount(&count);
	printf("devices %d\n", count);
	return 0;
}
