/* SPDX-License-Identifier: MIT */
/* hooks/dispatch.c: runs the subscribed callbacks around each intercepted call. */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "dispatch.h"
#include "hooks.h"
#include "table.h"

void *cua_real[CUAUDIT_ID_COUNT];
void *cua_real_entry[CUAUDIT_ID_COUNT];
uint8_t cua_active;
uint8_t cua_plan[CUAUDIT_ID_COUNT];

struct cua_sub cua_subs[CUA_MAX_SUBS];
unsigned cua_nsubs;
static int closed;
static uint64_t thread_serials;
__thread struct cua_thread cua_self __attribute__((tls_model("initial-exec")));

static void cover(struct cua_sub *s, unsigned id, unsigned layers)
{
	if (layers == CUAUDIT_LAYERS_DRIVER && cua_api[id].layer != CUAUDIT_LAYER_DRIVER)
		return;
	if (layers == CUAUDIT_LAYERS_RUNTIME && cua_api[id].layer != CUAUDIT_LAYER_RUNTIME)
		return;
	s->mask[id >> 3] |= (uint8_t)(1u << (id & 7));
}

/* Reads the fields the caller's size covers; rejects non-zero bytes past the ones known. */
static int copy_sized(void *dst, size_t dst_size, const void *src)
{
	size_t size = *(const size_t *)src;

	if (size < sizeof(size_t))
		return -EINVAL;
	for (size_t i = dst_size; i < size; i++)
		if (((const unsigned char *)src)[i])
			return -EINVAL;
	memset(dst, 0, dst_size);
	memcpy(dst, src, size < dst_size ? size : dst_size);
	return 0;
}

/* The union of the subscriptions, per function: what the entry chooser and the clock read. */
static void make_plan(void)
{
	memset(cua_plan, 0, sizeof(cua_plan));
	for (unsigned i = 0; i < cua_nsubs; i++) {
		for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++) {
			if (!(cua_subs[i].mask[id >> 3] & (1u << (id & 7))))
				continue;
			cua_plan[id] |= CUA_PLAN_HOOKED;
			if (cua_subs[i].timed)
				cua_plan[id] |= CUA_PLAN_TIMED;
		}
	}
	cua_active = cua_nsubs > 0;
}

int cua_dispatch_subscribe(const struct cuaudit_subscription *in)
{
	struct cuaudit_subscription sub;
	struct cua_sub *s;
	int rc;

	if (closed)
		return -EPERM;
	if (!in || (rc = copy_sized(&sub, sizeof(sub), in)) != 0)
		return -EINVAL;
	if ((unsigned)sub.layers > CUAUDIT_LAYERS_RUNTIME || (!sub.enter && !sub.exit))
		return -EINVAL;
	if (cua_nsubs == CUA_MAX_SUBS)
		return -ENOSPC;
	s = &cua_subs[cua_nsubs];
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; sub.ids && i < sub.nids; i++) {
		if (sub.ids[i] >= CUAUDIT_ID_COUNT)
			return -EINVAL;
		cover(s, sub.ids[i], sub.layers);
	}
	for (size_t i = 0; sub.elf_names && i < sub.nnames; i++) {
		int id = sub.elf_names[i] ? cua_table_find(sub.elf_names[i]) : -1;

		if (id < 0)
			return -EINVAL;
		cover(s, (unsigned)id, sub.layers);
	}
	if (!sub.ids && !sub.elf_names)
		for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++)
			cover(s, id, sub.layers);
	s->enter = sub.enter;
	s->exit = sub.exit;
	s->ctx = sub.ctx;
	/* A 1.0 subscription stops before flags; it was promised times. */
	s->timed = in->size <= offsetof(struct cuaudit_subscription, flags) ||
		   (sub.flags & CUAUDIT_SUB_TIMES);
	if (sub.flags & ~CUAUDIT_SUB_TIMES)
		return -EINVAL;
	cua_nsubs++;
	make_plan();
	return 0;
}

void cua_dispatch_close(void)
{
	closed = 1;
}

void cua_dispatch_truncate(unsigned first)
{
	if (!closed && first < cua_nsubs)
		cua_nsubs = first;
	make_plan();
}

unsigned cua_dispatch_count(void)
{
	return cua_nsubs;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The TSC, scaled to nanoseconds on the monotonic clock's scale: ns = ns_base +
   ((tsc - tsc_base) * mult) >> 32. Reading it costs a few ns where a clock_gettime in a
   virtual machine can cost 20 or more; each timed call reads the clock twice. */
struct cua_tsc cua_tsc_scale;
#define tsc cua_tsc_scale

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>

static int invariant_tsc(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
		return 0;
	__get_cpuid(0x80000007u, &a, &b, &c, &d);
	return (d >> 8) & 1;
}

void cua_clock_calibrate(void)
{
	uint64_t t0, m0, t1, m1;

	if (tsc.on || !invariant_tsc())
		return;
	/* 2 ms against the monotonic clock: a frequency error of about 1 in 10^5. */
	m0 = monotonic_ns();
	t0 = __rdtsc();
	do
		m1 = monotonic_ns();
	while (m1 - m0 < 2000000u);
	t1 = __rdtsc();
	if (t1 <= t0)
		return;
	tsc.mult = (uint64_t)(((unsigned __int128)(m1 - m0) << 32) / (t1 - t0));
	tsc.tsc_base = t1;
	tsc.ns_base = m1;
	__atomic_store_n(&tsc.on, 1, __ATOMIC_RELEASE);
}

uint64_t cua_clock_slow_ns(void)
{
	return monotonic_ns();
}
#else
void cua_clock_calibrate(void)
{
}

uint64_t cua_clock_slow_ns(void)
{
	return monotonic_ns();
}
#endif

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

volatile uint64_t *cua_pid_cache;
#define pid_cache cua_pid_cache

void cua_process_init(void)
{
	void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED && madvise(p, (size_t)sysconf(_SC_PAGESIZE), MADV_WIPEONFORK) == 0)
		pid_cache = p;
	else if (p != MAP_FAILED)
		munmap(p, (size_t)sysconf(_SC_PAGESIZE));
}

uint64_t cua_process_id(void)
{
	uint64_t pid;

	if (CUA_LIKELY(pid_cache)) {
		pid = *pid_cache;
		if (CUA_LIKELY(pid))
			return pid;
		pid = (uint64_t)getpid();
		*pid_cache = pid;
		return pid;
	}
	/* Without MADV_WIPEONFORK (Linux < 4.14) only the system call is safe. */
	return (uint64_t)getpid();
}

#define MAX_FINISH 16
static void (*finish[MAX_FINISH])(void);
static unsigned nfinish;

void cua_finish_add(void (*fn)(void))
{
	if (nfinish < MAX_FINISH)
		finish[nfinish++] = fn;
}

void cua_finish_run(void)
{
	for (unsigned i = 0; i < nfinish; i++)
		finish[i]();
}

uint64_t cua_thread_id(void)
{
	uint64_t pid = cua_process_id();

	/* A forked child's thread has a new id: the cache is keyed by the process. */
	if (cua_self.tid_pid != pid) {
		cua_self.tid_pid = pid;
		cua_self.tid = (uint64_t)syscall(SYS_gettid);
	}
	return cua_self.tid;
}

uint64_t cua_dispatch_new_thread(void)
{
	return __atomic_add_fetch(&thread_serials, 1, __ATOMIC_RELAXED);
}
