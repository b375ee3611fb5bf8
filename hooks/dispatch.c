/* SPDX-License-Identifier: MIT */
/* hooks/dispatch.c: runs the registered hooks around each intercepted call. */
#include <errno.h>
#include <time.h>
#include "dispatch.h"

#define CUA_MAX_HOOKS 16

void *cua_real[CUAUDIT_ID_COUNT];
uint8_t cua_active;

static struct cua_hook hooks[CUA_MAX_HOOKS];
static unsigned nhooks;
static uint64_t thread_serials;

struct cua_thread {
	uint64_t serial; /* 0 until the thread's first call */
	uint64_t calls;
	uint16_t depth;
};

static __thread struct cua_thread self;

int cua_dispatch_add(const struct cua_hook *hook)
{
	if (nhooks == CUA_MAX_HOOKS)
		return -ENOSPC;
	hooks[nhooks++] = *hook;
	cua_active = 1;
	return 0;
}

uint64_t cua_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int cua_dispatch_enter(struct cua_call *c, unsigned id, unsigned kind, void *args)
{
	int call_real = 1;

	if (CUA_UNLIKELY(!self.serial))
		self.serial = __atomic_add_fetch(&thread_serials, 1, __ATOMIC_RELAXED);
	c->id = id;
	c->kind = (uint8_t)kind;
	c->skipped = 0;
	c->depth = self.depth++;
	/* Thread serial in the high bits: unique without a shared counter on the hot path. */
	c->corr = self.serial << 40 | ++self.calls;
	c->args = args;
	c->result = 0;
	for (unsigned i = 0; i < nhooks; i++)
		if (hooks[i].enter && !hooks[i].enter(c))
			call_real = 0;
	c->skipped = !call_real;
	c->t_enter = cua_clock_ns();
	return call_real;
}

void cua_dispatch_exit(struct cua_call *c)
{
	c->t_exit = cua_clock_ns();
	self.depth--;
	for (unsigned i = nhooks; i > 0; i--)
		if (hooks[i - 1].exit)
			hooks[i - 1].exit(c);
}
