/* SPDX-License-Identifier: MIT */
/* hooks/dispatch.h: what generated wrappers call: the real-function slots and the hook core. */
#ifndef CUA_DISPATCH_H
#define CUA_DISPATCH_H

#include <stdint.h>
#include "cuaudit.h"
#include "cuaudit_ids.h"

#define CUA_LIKELY(x) __builtin_expect(!!(x), 1)
#define CUA_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CUA_COLD __attribute__((noinline, cold))
/* The generator writes each prototype from the parsed header; the compiler confirms it. */
#define CUA_CHECK_PROTOTYPE(elf, pfn)                                                          \
	_Static_assert(__builtin_types_compatible_p(__typeof__(&elf), pfn), #elf " prototype")

#define CUA_KIND_COUNT CUAUDIT_BIND_COUNT

/* The real address of each ELF name, taken from the binding (sym->st_value) or from the
   defining object's own symbol table. Written before the wrapper is handed out. */
extern void *cua_real[CUAUDIT_ID_COUNT];

/* Non-zero when any hook wants calls; set in la_version and constant afterwards. With it zero a
   wrapper is one load, one well-predicted branch and the indirect call. */
extern uint8_t cua_active;

/* cua_entry[kind][id]: the wrapper entry point handed out for a binding of that kind. */
extern const void *const cua_entry[CUA_KIND_COUNT][CUAUDIT_ID_COUNT];

/* One call in flight, on the wrapper's stack. */
struct cua_call {
	uint32_t id;
	uint8_t kind;    /* enum cuaudit_binding */
	uint8_t skipped; /* an enter hook supplied the result; the real function was not called */
	uint16_t depth;  /* calls of ours already in flight on this thread */
	uint64_t corr;   /* unique per call within the process */
	uint64_t t_enter;
	uint64_t t_exit;
	void *args;      /* struct cuaudit_args_<elf_name>, or NULL without parameters */
	uint64_t result; /* the return value, widened */
};

/* A hook of the dispatch core. enter returns 0 to skip the real call (having set c->result). */
struct cua_hook {
	int (*enter)(struct cua_call *c);
	void (*exit)(const struct cua_call *c);
};

/* Registers a hook; only from la_version, before any wrapper runs. Returns 0 or -ENOSPC. */
int cua_dispatch_add(const struct cua_hook *hook);

/* Starts a call: returns 1 if the wrapper must call the real function. */
int cua_dispatch_enter(struct cua_call *c, unsigned id, unsigned kind, void *args);
void cua_dispatch_exit(struct cua_call *c);

/* Monotonic nanoseconds. */
uint64_t cua_clock_ns(void);

#endif
