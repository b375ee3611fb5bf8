/* SPDX-License-Identifier: MIT */
/* hooks/dispatch.h: what generated wrappers call: the real-function slots and the hook core. */
#ifndef CUA_DISPATCH_H
#define CUA_DISPATCH_H

#include <stdint.h>
#include "cuaudit.h"
#include "cuaudit_ids.h"

#define CUA_LIKELY(x) __builtin_expect(!!(x), 1)
#define CUA_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CUA_COLD __attribute__((noinline))
/* The generator writes each prototype from the parsed header; the compiler confirms it. */
#define CUA_CHECK_PROTOTYPE(elf, pfn)                                                          \
	_Static_assert(__builtin_types_compatible_p(__typeof__(&elf), pfn), #elf " prototype")

#define CUA_KIND_COUNT CUAUDIT_BIND_COUNT
#define CUA_MAX_SUBS 16

/* The real address of each ELF name, taken from the binding (sym->st_value) or from the
   defining object's own symbol table. Written before the wrapper is handed out. */
extern void *cua_real[CUAUDIT_ID_COUNT];

/* Non-zero when any subscription exists; set before the program runs and constant after.
   With it zero a wrapper is one load, one well-predicted branch and the indirect call. */
extern uint8_t cua_active;

/* cua_entry[kind][id]: the wrapper entry point handed out for a binding of that kind;
   cua_entry[CUA_RAW][id] forwards with no hook check at all. */
#define CUA_RAW CUA_KIND_COUNT
extern const void *const cua_entry[CUA_KIND_COUNT + 1][CUAUDIT_ID_COUNT];

/* The entry to hand out for a binding: with no subscription there is nothing to run, and
   the raw entry costs only its indirect jump. */
static inline const void *cua_wrapper(unsigned kind, unsigned id)
{
	return cua_entry[cua_active ? kind : CUA_RAW][id];
}

/* One call in flight, on the wrapper's stack: the public record and each subscription's
   user slot. */
struct cua_call {
	struct cuaudit_call pub;
	uint64_t user[CUA_MAX_SUBS];
};

/* Adds a subscription (the public struct, size-checked). Only while registration is open:
   from la_version and the plugins' init functions. Returns 0 or a negative errno value. */
int cua_dispatch_subscribe(const struct cuaudit_subscription *sub);
/* Ends registration; subscriptions are read-only afterwards. */
void cua_dispatch_close(void);
/* Drops the subscriptions made from index 'first' on (a plugin whose init failed). */
void cua_dispatch_truncate(unsigned first);
unsigned cua_dispatch_count(void);

/* Starts a call: returns 1 if the wrapper must call the real function. */
int cua_dispatch_enter(struct cua_call *c, unsigned id, unsigned kind, void *args);
void cua_dispatch_exit(struct cua_call *c);

/* Monotonic nanoseconds: the TSC once calibrated, clock_gettime before or without one. */
uint64_t cua_clock_ns(void);
/* Calibrates the TSC against CLOCK_MONOTONIC (2 ms of spinning). Called once at the first
   CUDA library, only when a hook times calls, so processes without CUDA pay nothing. */
void cua_clock_calibrate(void);
/* The calling thread's kernel id, cached; correct in a forked child too. */
uint64_t cua_thread_id(void);

#endif
