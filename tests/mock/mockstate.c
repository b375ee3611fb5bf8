/* SPDX-License-Identifier: MIT */
/* tests/mock/mockstate.c: per-ELF-name call counters shared by the mocks and the test programs. */
#include <string.h>
#include "mockstate.h"

#define MAX_NAMES 256

static struct {
	char name[64];
	long calls;
} table[MAX_NAMES];
static int lock;
/* A signal handler that calls the mock while its thread holds the lock would spin forever
   (signal_calls): its calls are not counted. Initial-exec: a handler's first touch must not
   allocate the thread's block (__tls_get_addr calls malloc, which the interrupted code may
   be inside). */
static __thread int holding __attribute__((tls_model("initial-exec")));

static int slot(const char *elf_name, int create)
{
	for (int i = 0; i < MAX_NAMES; i++) {
		if (!table[i].name[0]) {
			if (!create)
				return -1;
			strncpy(table[i].name, elf_name, sizeof(table[i].name) - 1);
			return i;
		}
		if (strcmp(table[i].name, elf_name) == 0)
			return i;
	}
	return -1;
}

void mock_count(const char *elf_name)
{
	if (holding)
		return;
	holding = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		;
	int i = slot(elf_name, 1);
	if (i >= 0)
		table[i].calls++;
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	holding = 0;
}

long mock_calls(const char *elf_name)
{
	long n = 0;

	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		;
	int i = slot(elf_name, 0);
	if (i >= 0)
		n = table[i].calls;
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
	return n;
}

void mock_add(const char *name, long n)
{
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		;
	int i = slot(name, 1);
	if (i >= 0)
		table[i].calls += n;
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}
