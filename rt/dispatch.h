/* SPDX-License-Identifier: MIT */
/* rt/dispatch.h: what generated wrappers call: the real-function slots and the hook core. */
#ifndef CUA_DISPATCH_H
#define CUA_DISPATCH_H

#include <stdint.h>
#include "cuaudit.h"
#include "cuaudit_ids.h"
#include "table.h"
#include "clock.h"
#include "compiler.h"
#include "process.h"
#include "livefmt.h"

/* The generator writes each prototype from the parsed header; the compiler confirms it. */
#define CUA_CHECK_PROTOTYPE(elf, pfn)                                                          \
	_Static_assert(__builtin_types_compatible_p(__typeof__(&elf), pfn), #elf " prototype")

#define CUA_KIND_COUNT CUAUDIT_BIND_COUNT
#define CUA_MAX_SUBS 16

/* The real address of each ELF name, taken from the binding (sym->st_value) or from the
   defining object's own symbol table. Written before the wrapper is handed out. */
extern void *cua_real[CUAUDIT_ID_COUNT];
/* The real functions of each statically linked runtime whose entries were patched (issues
   14, 23): trampolines to their relocated first instructions, one table per copy, so that a
   call through copy K reaches copy K's code. Apart from cua_real, so that a shared libcudart
   in the same process keeps its own. Read by the entry-kind wrappers only. */
#define CUA_MAX_ENTRY_COPIES 32
extern void *cua_real_entry[CUA_MAX_ENTRY_COPIES][CUAUDIT_ID_COUNT];
/* Each copy's object, as calls name it (struct cuaudit_call.object): "(executable)" or the
   path. A slot keeps its name for the life of the process (a reopened object takes its old
   slot back), so a name pointer stays valid and means one object. */
#define CUA_ENTRY_NAME_MAX 256
extern char cua_entry_names[CUA_MAX_ENTRY_COPIES][CUA_ENTRY_NAME_MAX];
/* The kind an entry-kind wrapper passes on carries the copy above the binding kind's bits. */
#define CUA_KIND_BITS 8
#define CUA_KIND_OF(k) ((k) & ((1u << CUA_KIND_BITS) - 1))
#define CUA_COPY_OF(k) ((k) >> CUA_KIND_BITS)
#define CUA_REAL_OF(kind, id)                                                                  \
	(CUA_KIND_OF(kind) == CUAUDIT_BIND_ENTRY ? cua_real_entry[CUA_COPY_OF(kind)][id] : cua_real[id])
_Static_assert((CUA_MAX_ENTRY_COPIES & (CUA_MAX_ENTRY_COPIES - 1)) == 0, "a mask of copies");
/* The copy a patched entry's island pushed (base/process.h), popped: first thing in
   the entry-kind wrapper, so that from here on the copy lives in the wrapper's frame (its
   kind argument), where no signal handler can reach it. The read comes before the pop, so
   that a handler running in between pushes above it. */
static inline unsigned cua_entry_take(void)
{
	uint32_t top = cua_self.entry_sp - 1;
	unsigned copy = cua_self.entry_stack[top & (CUA_ENTRY_STACK - 1)];

	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	cua_self.entry_sp = top;
	/* In range whatever a stray longjmp left: the tables have CUA_MAX_ENTRY_COPIES rows. */
	return copy & (CUA_MAX_ENTRY_COPIES - 1);
}
/* The copy index of a call's object name, or -1 when it names none. */
static inline int cua_entry_copy_of(const char *object)
{
	uintptr_t off = (uintptr_t)object - (uintptr_t)cua_entry_names;

	return object && off < sizeof(cua_entry_names) ? (int)(off / CUA_ENTRY_NAME_MAX) : -1;
}

/* Non-zero when any subscription exists; set before the program runs and constant after.
   With it zero a wrapper is one load, one well-predicted branch and the indirect call. */
extern uint8_t cua_active;

/* cua_plan[id]: what the subscriptions ask of one function. Subscriptions are made in
   la_version (built-in hooks, then the plugins' init functions) and registration closes
   before the first binding, so the plan is fixed before any entry is handed out. */
#define CUA_PLAN_HOOKED 1u /* some subscription covers it: hand out the full wrapper */
#define CUA_PLAN_TIMED 2u  /* one of those asked for times: read the clock around the call */
/* Exactly one subscription covers it (summary alone, metrics alone, one plugin: the common
   case): its index is in the high bits, and dispatch calls it directly, with no loop, no mask
   test and one user slot. */
#define CUA_PLAN_ONE 4u
/* With CUA_PLAN_ONE: that subscription is a built-in one marked lean (cua_dispatch_lean);
   without: no subscription covers it (the live view alone, cua_dispatch_cover_all). Either
   way the record's fields no subscriber reads are not filled. */
#define CUA_PLAN_LEAN 8u
/* With CUA_PLAN_ONE and CUA_PLAN_LEAN: that subscription has a counter form
   (cua_dispatch_counter): dispatch fills no record for its callbacks, reads the clock at both
   ends and hands the counter the call's id, depth, binding, duration, end and result. */
#define CUA_PLAN_COUNT 16u
/* No subscription covers it; only the live view runs (cua_dispatch_cover_all): dispatch
   fills what the view reads, reads the clock at both ends and calls no callback. */
#define CUA_PLAN_BARE 32u
#define CUA_PLAN_SUB_SHIFT 8
extern uint16_t cua_plan[CUAUDIT_ID_COUNT];

/* cua_entry[kind][id]: the wrapper entry point handed out for a binding of that kind;
   cua_entry[CUA_RAW][id] forwards with no hook check at all. */
#define CUA_RAW CUA_KIND_COUNT
extern const void *const cua_entry[CUA_KIND_COUNT + 1][CUAUDIT_ID_COUNT];

/* The one chooser of the entry to hand out for a binding (la_symbind64, GOT fix-ups,
   cuGetProcAddress pointers): a function no subscription covers gets the raw entry, which
   costs only its indirect jump, whatever else is subscribed. */
static inline unsigned cua_entry_kind(unsigned kind, unsigned id)
{
	return cua_plan[id] & CUA_PLAN_HOOKED ? kind : CUA_RAW;
}

static inline const void *cua_wrapper(unsigned kind, unsigned id)
{
	return cua_entry[cua_entry_kind(kind, id)][id];
}

/* A call's time, as every output reads it (docs/design.md, "A call's time"): between the
   dispatch's two clock reads, less cuaudit's hooks of the calls made inside it. */
static inline uint64_t cua_call_ns(const struct cuaudit_call *c)
{
	return c->t_exit_ns - c->t_enter_ns - c->hook_ns;
}

/* One call in flight, on the wrapper's stack: the public record and each subscription's
   user slot. */
struct cua_call {
	struct cuaudit_call pub;
	uint64_t user[CUA_MAX_SUBS];
	/* The live view's record of the call, ended (NULL: none, or the view is off): set on
	   the general path before the exit callbacks run, for the built-in hooks that keep
	   their part of a call in it (cua_call_live_rec). */
	struct cua_live_call *live_rec;
};

/* The live view's record of a call, for a built-in hook's exit callback while the view is
   on: the record the call's start took in its thread's ring, ended and not yet taken again
   by another call unless a signal handler made a ring's worth of calls since (compare its
   start with the call's). NULL where the call had none (every record was in flight) or
   ended in another process than it began (a fork inside it). Every exit callback is
   handed the public part of a struct cua_call. */
static inline struct cua_live_call *cua_call_live_rec(const struct cuaudit_call *c)
{
	return ((const struct cua_call *)(const void *)c)->live_rec;
}

/* What enter hands exit apart from the record, also on the wrapper's stack. Its address is
   never given to a callback (the record's is), so the compiler keeps it in registers across
   the real call instead of storing and reloading it. */
struct cua_frame {
	/* The function's plan as enter read it, CUA_PLAN_COUNT kept only where the counter
	   path was taken: exit reads it back instead of the table. */
	unsigned plan;
	/* The call, on the counter and the bare paths (their record is not filled). */
	unsigned id, binding, depth;
	/* The call's start: on the general path read even where no subscriber times the
	   call, when the call is nested (its hooks' cost is counted, below). */
	uint64_t t_enter_ns;
	/* cua_self.hook_ns at the start: what inner calls' hooks add during the call is
	   taken off its time. */
	uint64_t hook0;
	/* A nested call on the general path: the clock when its wrapper began (0: not
	   nested), so that its hooks' time outside its own two reads is added to hook_ns. */
	uint64_t t_top;
	/* The live view's record of the call (cua_live_begin), given back to cua_live_end
	   whatever happened in between. */
	struct cua_live_took live;
};

/* A counter form of a built-in subscription: what the summary needs of a call,
   in registers. 'binding' is the binding kind (never the entry kind: a call through a
   patched entry takes the general path, which names its object). t_exit_ns 0 (and ns 0): a
   call the thread's cua_self.count_skip said to count without times. Its counter must leave
   errno alone and may be called from a signal handler, like any callback. */
typedef void (*cua_count_fn)(unsigned id, unsigned depth, unsigned binding, uint64_t ns,
			     uint64_t t_exit_ns, uint64_t result);
/* The one counter in use (the summary's: exact, or sampled); NULL when none. */
extern cua_count_fn cua_counter __attribute__((visibility("hidden")));

/* Adds a subscription (the public struct, size-checked). Only while registration is open:
   from la_version and the plugins' init functions. Returns 0 or a negative errno value. */
int cua_dispatch_subscribe(const struct cuaudit_subscription *sub);
/* Ends registration; subscriptions are read-only afterwards. */
void cua_dispatch_close(void);
/* Drops the subscriptions made from index 'first' on (a plugin whose init failed). */
void cua_dispatch_truncate(unsigned first);
unsigned cua_dispatch_count(void);
/* Marks the last subscription lean: a built-in hook (never a plugin) whose callbacks read only
   the record's id, binding, object, args, result, depth, skipped, user and times. Where it is
   a function's lone subscription, dispatch leaves size, elf_name, layer, correlation_id and
   thread_id unfilled, and takes no correlation number. Launches keep the whole
   record: naming the kernel reads the layer and the correlation id. */
void cua_dispatch_lean(void);
/* Every function gets the full wrapper, subscribed or not: the live view, which the dispatch
   runs itself (cua_live_begin, cua_live_end). */
void cua_dispatch_cover_all(void);
/* Gives the last subscription, a lean built-in one, a counter form: where it is a function's
   lone subscription, dispatch calls 'count' at the end of the call instead of its exit
   callback, and fills no record for it. Its enter callback, if any, is not run on that path:
   the clock is read at both ends unless the thread's cua_self.count_skip says otherwise.
   Launches keep the general path (they are never lean). */
void cua_dispatch_counter(cua_count_fn count);

/* One subscription, as dispatch runs it: a bit per id it covers. */
#define CUA_MASK_BYTES ((CUAUDIT_ID_COUNT + 7) / 8)
struct cua_sub {
	cuaudit_enter_fn enter;
	cuaudit_exit_fn exit;
	void *ctx;
	uint8_t timed; /* reads t_enter_ns and t_exit_ns */
	uint8_t lean;  /* built in, reads only the fields cua_dispatch_lean names */
	cua_count_fn count; /* its counter form (cua_dispatch_counter), or NULL */
	uint8_t mask[CUA_MASK_BYTES];
};
extern struct cua_sub cua_subs[CUA_MAX_SUBS];
extern unsigned cua_nsubs;

/* Two or more subscriptions on one function: each in order, with a user slot each. */
CUA_HOT_INLINE void cua_dispatch_loop_enter(struct cua_call *c, unsigned id, int *call_real_out)
{
	struct cuaudit_call *p = &c->pub;
	int call_real = 1;

	for (unsigned i = 0; i < cua_nsubs; i++) {
		const struct cua_sub *s = &cua_subs[i];

		if (!(s->mask[id >> 3] & (1u << (id & 7))))
			continue;
		c->user[i] = 0;
		if (s->enter) {
			p->user = &c->user[i];
			p->t_enter_ns = 0;
			/* A later enter callback sees an earlier one's skip (GPU timing records
			   nothing for a call the memory limit or a fault skipped). */
			p->skipped = !call_real;
			if (s->enter(p, s->ctx) == CUAUDIT_SKIP_REAL)
				call_real = 0;
		}
	}
	*call_real_out = call_real;
}

/* Inline in each wrapper body: with hooks on, this runs on every call. */
/* args_bytes: sizeof the argument struct, a constant in each wrapper, so that the live view's
   copy of it is a few moves. */
CUA_HOT_INLINE int cua_dispatch_enter(struct cua_call *c, struct cua_frame *f, unsigned id,
				      unsigned kind, void *args, size_t args_bytes)
{
	struct cuaudit_call *p = &c->pub;
	unsigned plan = cua_plan[id];
	int call_real = 1;

	/* The counter path: the exact summary alone on this function. Only the
	   fields the live view and the counter read are filled, no callback runs at the start,
	   and the real function is always called. */
	if (CUA_LIKELY(plan & CUA_PLAN_COUNT) && CUA_LIKELY(CUA_KIND_OF(kind) != CUAUDIT_BIND_ENTRY)) {
		f->plan = plan;
		f->id = id;
		f->binding = CUA_KIND_OF(kind);
		f->depth = cua_self.depth++;
		f->hook0 = cua_self.hook_ns;
		p->result = 0; /* a function returning void leaves it */
		/* The sampled summary's untimed calls read no clock (0: untimed). The start is
		   read last, after the live view's store (docs/design.md, "A call's time"). */
		{
			const uint8_t *skip = cua_self.count_skip;
			int untimed = skip && skip[id * 2 + (f->depth != 0)];

			if (CUA_UNLIKELY(cua_live_on)) {
				uint64_t t = cua_live_begin(id, f->binding, f->depth, args, args_bytes,
							    *cua_pid_cache, &f->live);

				f->t_enter_ns = untimed ? 0 : t;
			} else {
				f->t_enter_ns = untimed ? 0 : cua_clock_ns();
			}
		}
		return 1;
	}
	/* The live view alone on this function: its in-flight record and the
	   clock, nothing else (the end is read in cua_dispatch_exit). */
	if (plan & CUA_PLAN_BARE) {
		f->plan = plan;
		f->id = id;
		f->binding = CUA_KIND_OF(kind);
		f->depth = cua_self.depth++;
		p->result = 0;
		(void)cua_live_begin(id, f->binding, f->depth, args, args_bytes, *cua_pid_cache, &f->live);
		return 1;
	}
	/* A nested call's hooks are cuaudit's work inside its caller's time: their cost is
	   measured (two more clock reads, on the general path only) and taken off the caller. */
	f->t_top = cua_self.depth ? cua_clock_ns() : 0;
	/* A call through a patched entry names its object: summary_exit counts it by copy. */
	f->plan = plan & ~CUA_PLAN_COUNT;
	if (!(plan & CUA_PLAN_LEAN)) {
		if (CUA_UNLIKELY(!cua_self.serial))
			cua_self.serial = cua_process_new_thread();
		p->size = sizeof(*p);
		p->elf_name = cua_api[id].elf_name;
		p->layer = (enum cuaudit_layer)cua_api[id].layer;
		/* Thread serial in the high bits: unique without a shared counter on the hot
		   path. */
		p->correlation_id = cua_self.serial << 40 | ++cua_self.calls;
		p->thread_id = cua_thread_id_fast();
	}
	p->id = id;
	p->binding = (enum cuaudit_binding)CUA_KIND_OF(kind);
	p->object = CUA_KIND_OF(kind) == CUAUDIT_BIND_ENTRY ? cua_entry_names[CUA_COPY_OF(kind)] : NULL;
	p->args = args;
	p->result = 0;
	p->t_exit_ns = 0;
	p->depth = cua_self.depth++;
	p->skipped = 0;
	if (CUA_LIKELY(plan & CUA_PLAN_ONE)) {
		const struct cua_sub *s = &cua_subs[plan >> CUA_PLAN_SUB_SHIFT];

		c->user[0] = 0;
		p->user = &c->user[0];
		p->t_enter_ns = 0;
		if (s->enter && s->enter(p, s->ctx) == CUAUDIT_SKIP_REAL)
			call_real = 0;
	} else {
		cua_dispatch_loop_enter(c, id, &call_real);
	}
	p->skipped = !call_real;
	/* The call's start is the last thing read before the real call: every enter callback
	   and the live view's store come before it (docs/design.md, "A call's time"). The live
	   view is no subscription (a second one would send every call through the loop): the
	   dispatch runs it on every function (cua_dispatch_cover_all), with the pid cache's pid
	   and the thread id it kept at attach, so the record may stay lean; it reads the clock
	   itself, last, and that read is the call's start. No subscriber on this function
	   wants times and the view is off: no clock is read at all. */
	if (CUA_UNLIKELY(cua_live_on))
		f->t_enter_ns = cua_live_begin(id, p->binding, p->depth, args, args_bytes,
					       *cua_pid_cache, &f->live);
	else
		f->t_enter_ns = plan & CUA_PLAN_TIMED || f->t_top ? cua_clock_ns() : 0;
	p->t_enter_ns = plan & CUA_PLAN_TIMED ? f->t_enter_ns : 0;
	f->hook0 = cua_self.hook_ns;
	return call_real;
}

/* The live view's end of a call: its record gets the end time and the result and is marked
   ended, with plain stores into the thread's own slot (rt/livefmt.h); the per-API
   counters and time sums go up. */
CUA_HOT_INLINE struct cua_live_call *cua_live_end(const struct cua_frame *fr, unsigned id,
						  uint64_t result, uint64_t t_end)
{
	struct cua_live_call *r = fr->live.rec;

	/* Only in the process the call began in: a call that began in the parent and ends in a
	   child forked meanwhile (by a signal handler, or inside the call) leaves the parent's
	   slot, shared through the mapping, alone, and counts nowhere. In the process it
	   began in, the record is the thread's own: its slot, or the private scratch slot where
	   the call began before the thread had one. */
	uint64_t pid = *cua_pid_cache;

	/* The cache is 0 in a child that has not read its pid yet (and where the kernel keeps
	   none): then the pid is read. */
	if (CUA_UNLIKELY(pid != fr->live.pid) && (pid || cua_process_id() != fr->live.pid))
		return NULL;
	if (CUA_LIKELY(r != NULL)) {
		/* The record is this call's alone until it is marked ended (a call never
		   takes a record in flight): no odd number is needed, a reader ignores the end
		   fields of a record in flight. */
		r->h.t_end = t_end;
		r->h.result = result;
		__atomic_store_n(&r->h.seq, fr->live.seq + (CUA_LIVE_ENDED - CUA_LIVE_IN_FLIGHT),
				 __ATOMIC_RELEASE);
	}
	/* Per thread, summed by the reader: no shared atomic on the hot path. A thread that
	   took a slot of the region during the call counts there. */
	cua_live_me.calls[id]++;
	cua_live_me.times[id] += t_end - fr->live.t_start;
	/* The rule's byte is read only for a non-zero result, the rare case. */
	if (CUA_UNLIKELY((int)result != 0) && cua_failed(id, (int)result))
		cua_live_me.errors[id]++;
	return r;
}

/* The frame's counter fields are set only where enter took the counter path, and read only
   there; GCC cannot tell from the plan bit, and zeroing them on the general path cost every
   launch 4 to 7 instructions. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
CUA_HOT_INLINE void cua_dispatch_exit(struct cua_call *c, struct cua_frame *f)
{
	struct cuaudit_call *p = &c->pub;
	unsigned plan = f->plan;

	if (CUA_LIKELY(plan & CUA_PLAN_COUNT)) {
		uint64_t t, hook = cua_self.hook_ns - f->hook0;

		cua_self.depth--;
		/* cua_live_on is set before the first call and never changes: enter marked the
		   call in flight. The view times every call, the sampled summary's untimed ones
		   too (its history shows each call's time); the counter still gets no time for
		   those. */
		if (CUA_UNLIKELY(cua_live_on)) {
			uint64_t end = cua_clock_ns();

			cua_live_end(f, f->id, p->result, end - hook);
			t = f->t_enter_ns ? end : 0;
		} else {
			t = f->t_enter_ns ? cua_clock_ns() : 0;
		}
		cua_counter(f->id, f->depth, f->binding, t - f->t_enter_ns - hook, t, p->result);
		return;
	}
	if (plan & CUA_PLAN_BARE) {
		cua_self.depth--;
		/* The end read too: the history shows each call's time, and a thread
		   that hangs in a call is told from one that made a slow one. */
		cua_live_end(f, f->id, p->result, cua_clock_ns());
		return;
	}
	uint64_t t_exit = plan & CUA_PLAN_TIMED || f->t_top || cua_live_on ? cua_clock_ns() : 0;

	p->t_exit_ns = plan & CUA_PLAN_TIMED ? t_exit : 0;
	p->hook_ns = cua_self.hook_ns - f->hook0;
	cua_self.depth--;
	/* The general path (launches, the memory functions, several subscribers, plugins): the
	   view reads the end itself where no subscriber timed the call, so that a recent call's
	   duration is known (one clock read, on calls of a microsecond or more mostly). The
	   record keeps t_exit_ns 0: a subscriber that asked for no times sees none. */
	if (CUA_UNLIKELY(cua_live_on))
		c->live_rec = cua_live_end(f, p->id, p->result, t_exit - p->hook_ns);
	if (CUA_LIKELY(plan & CUA_PLAN_ONE)) {
		const struct cua_sub *s = &cua_subs[plan >> CUA_PLAN_SUB_SHIFT];

		if (s->exit) {
			p->user = &c->user[0];
			s->exit(p, s->ctx);
		}
	} else {
		for (unsigned i = cua_nsubs; i > 0; i--) {
			const struct cua_sub *s = &cua_subs[i - 1];

			if (!s->exit || !(s->mask[p->id >> 3] & (1u << (p->id & 7))))
				continue;
			p->user = &c->user[i - 1];
			s->exit(p, s->ctx);
		}
	}
	/* A nested call: its hooks' time outside its own two reads is cuaudit's work inside
	   its caller's. */
	if (CUA_UNLIKELY(f->t_top))
		cua_self.hook_ns += f->t_enter_ns - f->t_top + cua_clock_ns() - t_exit;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif
