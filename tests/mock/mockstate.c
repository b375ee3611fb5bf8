/* SPDX-License-Identifier: MIT */
/* tests/mock/mockstate.c: per-ELF-name call counters shared by the mocks and the test programs. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
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
	mock_spin(elf_name);
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

/* ---------------------------------------------------------------- the host-time oracle */

/* MOCK_SPIN=NAME:NS[/P][,NAME:NS[/P]...]: each call of those ELF names (with /P, each P-th
   call, the calls numbered from 1 in the order the mock sees them) busy-waits NS nanoseconds
   of CLOCK_MONOTONIC inside the mock function, and the mock measures each wait itself. With
   MOCK_TRUTH=FILE it writes, at exit, one line per name: "NAME CALLS TOTAL_NS MIN_NS MAX_NS"
   (CALLS counts every call; the times are those of the waits).
   cuaudit's time of such a call brackets the wait, so these are the true values its outputs
   are checked against (tests/cases/truth.sh). */
#define MAX_SPIN 16
static struct spin {
	char name[64];
	long long ns, period;
	long long seen, calls, total, min, max;
} spins[MAX_SPIN];
static int nspins;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

__attribute__((constructor)) static void spin_setup(void)
{
	const char *p = getenv("MOCK_SPIN");

	while (p && *p && nspins < MAX_SPIN) {
		const char *colon = strchr(p, ':'), *end;
		struct spin *s = &spins[nspins];

		if (!colon || colon - p >= (long)sizeof(s->name))
			break;
		memcpy(s->name, p, (size_t)(colon - p));
		s->ns = strtoll(colon + 1, (char **)&end, 10);
		s->period = *end == '/' ? strtoll(end + 1, (char **)&end, 10) : 1;
		if (s->period < 1)
			s->period = 1;
		s->min = -1;
		nspins++;
		p = *end == ',' ? end + 1 : end;
	}
}

void mock_spin(const char *elf_name)
{
	for (int i = 0; i < nspins; i++) {
		struct spin *s = &spins[i];
		long long t0, t1, d, old;

		if (strcmp(s->name, elf_name) != 0)
			continue;
		__atomic_add_fetch(&s->calls, 1, __ATOMIC_RELAXED);
		if (__atomic_add_fetch(&s->seen, 1, __ATOMIC_RELAXED) % s->period != 0)
			return;
		t0 = now_ns();
		do
			t1 = now_ns();
		while (t1 - t0 < s->ns);
		d = t1 - t0;
		__atomic_add_fetch(&s->total, d, __ATOMIC_RELAXED);
		old = __atomic_load_n(&s->min, __ATOMIC_RELAXED);
		while ((old < 0 || d < old) &&
		       !__atomic_compare_exchange_n(&s->min, &old, d, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
		old = __atomic_load_n(&s->max, __ATOMIC_RELAXED);
		while (d > old &&
		       !__atomic_compare_exchange_n(&s->max, &old, d, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
		return;
	}
}

__attribute__((destructor)) static void truth_write(void)
{
	const char *path = getenv("MOCK_TRUTH");
	char line[160];
	int fd;

	if (!path || !nspins)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		return;
	for (int i = 0; i < nspins; i++) {
		const struct spin *s = &spins[i];
		int n = snprintf(line, sizeof(line), "%s %lld %lld %lld %lld\n", s->name, s->calls,
				 s->total, s->min < 0 ? 0 : s->min, s->max);

		if (write(fd, line, (size_t)n) != n)
			break;
	}
	close(fd);
}
