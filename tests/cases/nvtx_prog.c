/* SPDX-License-Identifier: MIT */
/* tests/cases/nvtx_prog.c: a program using the toolkit's header-only NVTX v3: nested ranges in threads, domains, registered strings, marks, start/end across threads, and hostile use. */
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wchar.h>
#include <nvtx3/nvToolsExt.h>

#define THREADS 3
#define STEPS 200

static nvtxDomainHandle_t dom;
static nvtxStringHandle_t reg;
static nvtxRangeId_t cross;

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
		nvtxRangePushA("step");
		nvtxRangePushA("forward");
		cuDeviceGetCount(&count);
		nvtxRangePop();
		nvtxDomainRangePushEx(dom, &a);
		nvtxDomainMarkEx(dom, &a);
		nvtxDomainRangePop(dom);
		nvtxRangePushW(L"backward");
		nvtxRangePop();
		nvtxRangePop();
	}
	return NULL;
}

/* Levels as nvtxRangePush/Pop return them, printed so the native and audited runs compare. */
static int basic(void)
{
	pthread_t t[THREADS];
	int count = 0;

	cuInit(0);
	dom = nvtxDomainCreateA("dom");
	reg = nvtxDomainRegisterStringA(dom, "registered");
	nvtxMarkA("begin");
	cross = nvtxRangeStartA("across");
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	nvtxRangeEnd(cross); /* started here, but it could be any thread */
	printf("push level %d\n", nvtxRangePushA("outer"));
	printf("push level %d\n", nvtxRangePushA("inner"));
	printf("pop level %d\n", nvtxRangePop());
	printf("pop level %d\n", nvtxRangePop());
	cuDeviceGetCount(&count);
	printf("devices %d\n", count);
	return 0;
}

static void *ender(void *arg)
{
	nvtxRangeEnd(*(nvtxRangeId_t *)arg);
	return NULL;
}

static int hostile(void)
{
	char name[32];
	pthread_t t;
	nvtxRangeId_t id;
	pid_t child;
	int status = 0, count = 0;

	cuInit(0);
	nvtxRangePop(); /* nothing open */
	nvtxRangePop();
	for (int i = 0; i < 200; i++)
		nvtxRangePushA("deep");
	for (int i = 0; i < 200; i++)
		nvtxRangePop();
	/* A name that is no UTF-8, with a control character, a quote and a backslash. */
	nvtxRangePushA("\xff\x01" "bad \"name\\");
	nvtxRangePop();
	for (int i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "name %d", i);
		nvtxRangePushA(name);
		nvtxRangePop();
	}
	nvtxRangeEnd(12345678); /* never started */
	nvtxRangePushA(NULL);
	nvtxRangePop();
	id = nvtxRangeStartA("thread-crossing");
	pthread_create(&t, NULL, ender, &id);
	pthread_join(t, NULL);
	nvtxRangePushA("before fork");
	child = fork();
	if (child == 0) {
		nvtxRangePushA("child");
		nvtxRangePop();
		nvtxRangePop();
		cuDeviceGetCount(&count);
		exit(0);
	}
	waitpid(child, &status, 0);
	nvtxRangePop();
	cuDeviceGetCount(&count);
	printf("child %d devices %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1, count);
	return 0;
}

/* Inside "step 7 > forward", blocked in cuStreamSynchronize while MOCK_BLOCK_FILE exists
   (the mock's), for the live view to see; then the ranges end. */
static int hang(void)
{
	CUstream stream;
	CUcontext ctx;
	CUdevice dev;

	cuInit(0);
	cuDeviceGet(&dev, 0);
	cuDevicePrimaryCtxRetain(&ctx, dev);
	cuCtxSetCurrent(ctx);
	cuStreamCreate(&stream, 0);
	/* Ranges that end before the hang, past a flush interval of 1 s: a killed process's
	   raw trace holds them. */
	nvtxRangePushA("warm-up");
	nvtxRangePop();
	usleep(1100000);
	nvtxRangePushA("warm-up");
	nvtxRangePop();
	nvtxRangePushA("step 7");
	nvtxRangePushA("forward");
	printf("blocking\n");
	fflush(stdout);
	cuStreamSynchronize(stream);
	nvtxRangePop();
	nvtxRangePop();
	printf("done\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "basic";

	if (!strcmp(mode, "hostile"))
		return hostile();
	if (!strcmp(mode, "hang"))
		return hang();
	return basic();
}
