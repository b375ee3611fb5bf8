/* SPDX-License-Identifier: MIT */
/* tests/cases/got_slots.c: reaches the driver through slots la_symbind64 never sees: -fno-plt calls, addresses taken in PIE code, pointer tables in RELRO and in writable data. */
#include "common.h"

typedef CUresult (*count_fn)(int *);

/* .data.rel.ro: relocated (R_X86_64_64), then made read-only by the loader. */
static const count_fn const_table[] = { cuDeviceGetCount, cuDeviceGetCount };
/* .data: relocated and left writable. */
static count_fn data_table[] = { cuDeviceGetCount };

/* Keeps the compiler from calling the constant directly. */
static count_fn launder(count_fn f)
{
	__asm__ volatile("" : "+r"(f));
	return f;
}

int main(void)
{
	int n = -1;
	count_fn taken = launder(&cuDeviceGetCount); /* R_X86_64_GLOB_DAT */
	CUdeviceptr d = 0;

	SHOW(cuInit(0)); /* with -fno-plt: a call through the GOT */
	SHOW(launder(const_table[0])(&n));
	SHOW(launder(const_table[1])(&n));
	SHOW(launder(data_table[0])(&n));
	SHOW(taken(&n));
	SHOW(cuMemAlloc(&d, 128));
	SHOW(cuMemFree(d));
	printf("count=%d; the table holds the same pointer as the taken address: %d\n", n,
	       const_table[0] == taken);
	return 0;
}
