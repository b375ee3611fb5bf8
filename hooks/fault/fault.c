/* SPDX-License-Identifier: MIT */
/* hooks/fault/fault.c: the CUAUDIT_FAULT hook: makes chosen calls fail on a deterministic schedule. */
#include <string.h>
#include "dispatch.h"
#include "configs.h"
#include "fault_config.h"
#include "hooks.h"

static uint64_t calls[CUA_MAX_FAULTS];

/* splitmix64: the n-th number of the sequence a seed starts, without shared state. */
static uint64_t mix(uint64_t seed, uint64_t n)
{
	uint64_t z = seed + n * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int fires(const struct cua_fault *f, uint64_t n)
{
	switch (f->mode) {
	case CUA_FAULT_EVERY: return n % f->n == 0;
	case CUA_FAULT_AFTER: return n > f->n;
	case CUA_FAULT_PROB: return mix(f->seed, n) % 1000000000u < f->prob_ppb;
	default: return 0;
	}
}

/* This hook's configuration (hooks/fault/fault_config.c), copied at start. */
static struct cua_fault_config cfg;

static int fault_enter(struct cuaudit_call *c, void *ctx)
{
	(void)ctx;
	for (unsigned i = 0; i < cfg.nfaults; i++) {
		const struct cua_fault *f = &cfg.faults[i];

		if (f->id != c->id)
			continue;
		/* The call's number among this function's calls, from 1, over all threads. */
		if (fires(f, __atomic_add_fetch(&calls[i], 1, __ATOMIC_RELAXED))) {
			c->result = (uint64_t)(int64_t)f->error;
			return CUAUDIT_SKIP_REAL;
		}
	}
	return CUAUDIT_CALL_REAL;
}

int cua_fault_init(const struct cua_fault_config *own)
{
	unsigned ids[CUA_MAX_FAULTS];
	CUAUDIT_OPTS(cuaudit_subscription, sub, .enter = fault_enter, .ids = ids,
		     .nids = own->nfaults);

	if (!own->nfaults)
		return 0;
	cfg = *own;
	for (unsigned i = 0; i < cfg.nfaults; i++)
		ids[i] = cfg.faults[i].id;
	return cua_dispatch_subscribe(&sub);
}

/* The registry's entry (hooks/registry.c). */
void cua_fault_start(const struct cua_config *all, struct cua_hook_configs *cfg)
{
	(void)all;
	cua_fault_init(&cfg->fault);
}
