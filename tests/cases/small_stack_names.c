/* SPDX-License-Identifier: MIT */
/* tests/cases/small_stack_names.c: registers and launches kernels with deeply nested and explosive mangled names from a thread with a 32 KiB stack, which also calls exit. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
			    const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
			    dim3 *bDim, dim3 *gDim, int *wSize);

/* The mock runs a kernel's host stub as its device code; each name needs its own stub,
   since the stub's address is what names the kernel. */
static int ran;
#define STUB(i)                                                    \
	static void stub##i(void **params, unsigned threads)       \
	{                                                          \
		(void)params, (void)threads;                       \
		ran++;                                             \
	}
STUB(0) STUB(1) STUB(2) STUB(3) STUB(4) STUB(5) STUB(6) STUB(7) STUB(8) STUB(9) STUB(10)
STUB(11) STUB(12) STUB(13)
static void (*const stubs[])(void **, unsigned) = { stub0, stub1, stub2,  stub3,  stub4,
						     stub5, stub6, stub7,  stub8,  stub9,
						     stub10, stub11, stub12, stub13 };
#define NSTUBS (sizeof(stubs) / sizeof(stubs[0]))

/* head, unit n times, middle, close n times. */
static char *nest(const char *head, const char *unit, unsigned n, const char *middle,
		  const char *close)
{
	size_t len = strlen(head) + (strlen(unit) + strlen(close)) * n + strlen(middle) + 1;
	char *s = malloc(len), *p = s;

	CHECK(s != NULL);
	p += sprintf(p, "%s", head);
	for (unsigned i = 0; i < n; i++)
		p += sprintf(p, "%s", unit);
	p += sprintf(p, "%s", middle);
	for (unsigned i = 0; i < n; i++)
		p += sprintf(p, "%s", close);
	return s;
}

/* Each template names the one before three times (S0_, S2_, ...): a text of 3^steps
   copies, should a demangler try to print it. */
static char *tripling(unsigned steps)
{
	static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char *s = malloc(16 + 16 * steps), *p = s;

	CHECK(s != NULL);
	p += sprintf(p, "_Z1f1AIiE");
	for (unsigned j = 0; j < steps; j++) {
		unsigned id = 2 * j;
		char seq[4];

		if (id >= 36)
			sprintf(seq, "%c%c", digits[id / 36], digits[id % 36]);
		else
			sprintf(seq, "%c", digits[id]);
		p += sprintf(p, "1AIS%s_S%s_S%s_E", seq, seq, seq);
	}
	return s;
}

static void *small(void *arg)
{
	static char fatbin[16];
	void **h = __cudaRegisterFatBinary(fatbin);
	char *names[NSTUBS];
	unsigned k = 0;
	dim3 grid = { 1, 1, 1 }, block = { 1, 1, 1 };

	(void)arg;
	/* Templates of templates (A<A<...<int>...>>), 20, 100 and 1000 deep. */
	names[k++] = nest("_Z1f", "1AI", 20, "i", "E");
	names[k++] = nest("_Z1f", "1AI", 100, "i", "E");
	names[k++] = nest("_Z1f", "1AI", 1000, "i", "E");
	/* Pointers to functions taking pointers to functions... */
	names[k++] = nest("_Z1f", "PFv", 20, "i", "E");
	names[k++] = nest("_Z1f", "PFv", 1000, "i", "E");
	/* Entities as template arguments of entities (L_Z...E). */
	names[k++] = nest("_Z1f1AI", "L_Z1gI", 20, "i", "EvE");
	names[k++] = nest("_Z1f1AI", "L_Z1gI", 100, "i", "EvE");
	/* A nested name of 1000 parts, pointers 1000 deep, a pack in packs. */
	names[k++] = nest("_ZN", "1a", 1000, "Ev", "");
	names[k++] = nest("_Z1f", "P", 1000, "i", "");
	names[k++] = nest("_Z1fI", "J", 100, "i", "E");
	/* Substitutions that each name the one before three times. */
	names[k++] = tripling(16);
	names[k++] = tripling(60);
	/* A readable control: the program's own kernel names still read. */
	names[k++] = strdup("_Z6vecAddPKfS0_Pfi");
	names[k++] = nest("_Z1f", "1AI", 5, "i", "E");
	CHECK(k == NSTUBS);
	for (unsigned i = 0; i < k; i++)
		__cudaRegisterFunction(h, (const char *)stubs[i], names[i], names[i], -1, NULL,
				       NULL, NULL, NULL, NULL);
	__cudaRegisterFatBinaryEnd(h);
	for (unsigned i = 0; i < k; i++)
		CHECK(cudaLaunchKernel((const void *)stubs[i], grid, block, NULL, 0, NULL) ==
		      cudaSuccess);
	printf("launched %u kernels, %d ran\n", k, ran);
	fflush(stdout);
	/* The exit work (the summary's table with every name) runs on this small stack too. */
	exit(0);
}

int main(void)
{
	pthread_attr_t attr;
	pthread_t t;

	CHECK(pthread_attr_init(&attr) == 0);
	CHECK(pthread_attr_setstacksize(&attr, 32 << 10) == 0);
	CHECK(pthread_create(&t, &attr, small, NULL) == 0);
	pthread_join(t, NULL);
	return 1; /* not reached: the thread exits */
}
