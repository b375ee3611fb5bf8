/* SPDX-License-Identifier: MIT */
/* rt/dispatch.c: keeps the subscriptions and the per-function plan the wrappers and the entry chooser read. */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "dispatch.h"
#include "roles.h"
#include "table.h"

/* The home of each thread's call in flight and its counters, which every wrapper writes
   (rt/livefmt.h): the live view's region (record/live.c) is where it is shown. pid starts as
   no process's (nor 0, what the pid cache holds in a child that has not read its pid yet): a
   thread's first call attaches. */
__thread struct cua_live_me cua_live_me __attribute__((tls_model("initial-exec"))) = {
	.pid = CUA_LIVE_NO_PID};
uint8_t cua_live_on;

void *cua_real[CUAUDIT_ID_COUNT];
void *cua_real_entry[CUA_MAX_ENTRY_COPIES][CUAUDIT_ID_COUNT];
char cua_entry_names[CUA_MAX_ENTRY_COPIES][CUA_ENTRY_NAME_MAX];
uint8_t cua_active;
uint16_t cua_plan[CUAUDIT_ID_COUNT];
cua_count_fn cua_counter;

struct cua_sub cua_subs[CUA_MAX_SUBS];
unsigned cua_nsubs;
static int closed;
static int cover_all; /* cua_dispatch_cover_all */

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
	_Static_assert(CUA_MAX_SUBS <= 65536 >> CUA_PLAN_SUB_SHIFT, "a subscription index fits the plan");
	memset(cua_plan, 0, sizeof(cua_plan));
	cua_counter = NULL;
	for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++) {
		unsigned n = 0, last = 0;

		if (cover_all)
			cua_plan[id] |= CUA_PLAN_HOOKED;

		for (unsigned i = 0; i < cua_nsubs; i++) {
			if (!(cua_subs[i].mask[id >> 3] & (1u << (id & 7))))
				continue;
			n++;
			last = i;
			cua_plan[id] |= CUA_PLAN_HOOKED;
			if (cua_subs[i].timed)
				cua_plan[id] |= CUA_PLAN_TIMED;
		}
		if (n == 0 && cover_all) /* the live view alone: no subscriber reads the record */
			cua_plan[id] |= CUA_PLAN_LEAN | CUA_PLAN_BARE;
		if (n == 1 && cua_subs[last].lean && cua_role[id] != CUAUDIT_ROLE_LAUNCH) {
			cua_plan[id] |= CUA_PLAN_LEAN;
			/* One counter form exists (the exact summary): the wrappers call it
			   through one pointer. */
			if (cua_subs[last].count) {
				cua_plan[id] |= CUA_PLAN_COUNT;
				cua_counter = cua_subs[last].count;
			}
		}
		if (n == 1)
			cua_plan[id] |= (uint16_t)(CUA_PLAN_ONE | last << CUA_PLAN_SUB_SHIFT);
	}
	cua_active = cua_nsubs > 0 || cover_all;
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
	if (sub.roles >> CUAUDIT_ROLE_COUNT)
		return -EINVAL;
	for (unsigned id = 0; sub.roles && id < CUAUDIT_ID_COUNT; id++)
		if (sub.roles & CUAUDIT_ROLE_BIT(cua_role[id]))
			cover(s, id, sub.layers);
	if (!sub.ids && !sub.elf_names && !sub.roles)
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

void cua_dispatch_lean(void)
{
	if (!closed && cua_nsubs) {
		cua_subs[cua_nsubs - 1].lean = 1;
		make_plan();
	}
}

void cua_dispatch_counter(cua_count_fn count)
{
	if (!closed && cua_nsubs && cua_subs[cua_nsubs - 1].lean) {
		cua_subs[cua_nsubs - 1].count = count;
		make_plan();
	}
}

void cua_dispatch_cover_all(void)
{
	if (!closed) {
		cover_all = 1;
		make_plan();
	}
}

unsigned cua_dispatch_count(void)
{
	return cua_nsubs;
}
