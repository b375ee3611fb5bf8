/* SPDX-License-Identifier: MIT */
/* hooks/live.c: the CUAUDIT_LIVE hook: each finished call goes into its thread's history ring and per-API counters in the live region. */
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "dispatch.h"
#include "finish.h"
#include "hooks.h"
#include "livefmt.h"
#include "process.h"
#include "table.h"

static uint32_t ncalls; /* history entries per slot, a power of two */

static int failed(const struct cuaudit_call *c)
{
	unsigned ret = cua_api[c->id].ret;

	return (ret == CUA_RET_CURESULT || ret == CUA_RET_CUDAERROR) && (int)c->result != 0;
}

/* The dispatch marked the call in flight (cua_live_begin) with its start time; here it
   ends: plain stores into the thread's own slot, each record under its sequence number. */
static void live_exit(const struct cuaudit_call *c, void *ctx)
{
	struct cua_live_slot *s = cua_live_me.slot;
	struct cua_live_entry *e;
	uint64_t done, t_start = c->t_enter_ns;
	uint32_t seq;

	(void)ctx;
	if (CUA_UNLIKELY(!s))
		return;
	if (CUA_LIKELY(c->depth < CUA_LIVE_DEPTH)) {
		struct cua_live_flight *f = &s->flight[c->depth];

		seq = f->seq;
		if (!t_start)
			t_start = f->t_start;
		__atomic_store_n(&f->seq, seq + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		f->active = 0;
		__atomic_store_n(&f->seq, seq + 2, __ATOMIC_RELEASE);
	}
	done = s->done;
	e = cua_live_history(s) + (done & cua_live_calls_mask);
	seq = e->seq;
	__atomic_store_n(&e->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	e->id = (uint16_t)c->id;
	e->binding = (uint8_t)c->binding;
	e->depth = (uint8_t)c->depth;
	e->tid = (uint32_t)c->thread_id;
	e->t_start = t_start;
	/* 0 when no subscriber times the call: the view alone reads the clock once, at the
	   start, and a finished call's duration is not known. */
	e->t_end = c->t_exit_ns;
	e->result = c->result;
	__atomic_store_n(&e->seq, seq + 2, __ATOMIC_RELEASE);
	__atomic_store_n(&s->done, done + 1, __ATOMIC_RELEASE);
	/* Per thread, summed by the reader: no shared atomic on the hot path. */
	cua_live_calls(s, ncalls)[c->id]++;
	if (failed(c))
		cua_live_errors(s, ncalls, CUAUDIT_ID_COUNT)[c->id]++;
}

static void live_finish(void)
{
	cua_live_remove();
}

int cua_live_init(const struct cua_config *all)
{
	/* Every function: the view shows what each thread is inside, whatever the filters. Not
	   timed: it takes the summary's or the trace's clock reads where they run, and alone
	   reads the clock once, at the start (cua_live_begin), for the call in flight. */
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = live_exit, .flags = 0);
	char dir[CUA_PATH_MAX];
	uint32_t caps = 0;

	if (!all->live.on || all->secure)
		return 0;
	if (all->live.dir[0])
		memcpy(dir, all->live.dir, sizeof(all->live.dir));
	else
		cua_liveconfig_default_dir(dir, sizeof(dir), geteuid());
	if (cua_trace_on() && all->capture != CUA_CAPTURE_ALL) /* the trace started first */
		caps |= CUA_LIVE_CAP_TRACE;
	if (all->capture == CUA_CAPTURE_CTL && (all->log_level >= CUA_LOG_VERBOSE || all->log_errors))
		caps |= CUA_LIVE_CAP_LOG;
	ncalls = all->live.calls;
	if (cua_live_setup(dir, ncalls, caps) != 0)
		return -1;
	/* At exit and at exec the file goes (a failed exec's process keeps no view). */
	cua_finish_add(live_finish, NULL, CUA_FINISH_AT_EXEC | CUA_FINISH_ONCE);
	return cua_dispatch_subscribe(&sub);
}
