/* SPDX-License-Identifier: MIT */
/* tests/mock/mockstate.c: per-ELF-name call counters shared by the mocks and the test programs. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

/* MOCK_TRIP=ELF_NAME:N:raise=SIG or ELF_NAME:N:sleep=MS: the Nth call of that mock
   function (by anyone: the program or a tool) raises SIG on its thread, or sleeps MS
   milliseconds there, so a test can stop a thread at a known point inside a tool's driver
   call. Each trip adds 1 to the counter "mock_trip" first. */
static struct {
	char name[64];
	long nth, seen;
	int sig;
	long sleep_ms;
} trip;

__attribute__((constructor)) static void read_trip(void)
{
	const char *v = getenv("MOCK_TRIP"), *c1, *c2;
	size_t n;

	if (!v || !(c1 = strchr(v, ':')) || !(c2 = strchr(c1 + 1, ':')))
		return;
	n = (size_t)(c1 - v);
	if (n == 0 || n >= sizeof(trip.name))
		return;
	memcpy(trip.name, v, n);
	trip.nth = atol(c1 + 1);
	if (strncmp(c2 + 1, "raise=", 6) == 0)
		trip.sig = atoi(c2 + 7);
	else if (strncmp(c2 + 1, "sleep=", 6) == 0)
		trip.sleep_ms = atol(c2 + 7);
}

static void maybe_trip(const char *elf_name)
{
	struct timespec ts;

	if (!trip.name[0] || strcmp(trip.name, elf_name) != 0 ||
	    __atomic_add_fetch(&trip.seen, 1, __ATOMIC_ACQ_REL) != trip.nth)
		return;
	mock_add("mock_trip", 1);
	if (trip.sig)
		raise(trip.sig);
	if (trip.sleep_ms > 0) {
		ts.tv_sec = trip.sleep_ms / 1000;
		ts.tv_nsec = trip.sleep_ms % 1000 * 1000000;
		nanosleep(&ts, NULL);
	}
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
	maybe_trip(elf_name);
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
