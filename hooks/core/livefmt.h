/* SPDX-License-Identifier: MIT */
/* hooks/core/livefmt.h: the live region's file layout (written by the module, read by `cuaudit ps`) and the in-flight store every wrapper makes. */
#ifndef CUA_LIVEFMT_H
#define CUA_LIVEFMT_H

#include <stddef.h>
#include <stdint.h>
#include "cuaudit.h"

/* The region is one file per process, PID-STARTTICKS.live in the live directory, mapped
   MAP_SHARED by the process: the kernel keeps what the threads stored after a SIGKILL, a
   SIGSEGV or a SIGSTOP, so a reader sees it then as it sees it while the process runs.

   Layout: the head (4 KiB), then CUA_LIVE_SLOTS thread slots of head.slot_size bytes. A slot
   is: struct cua_live_slot, then head.ncalls history entries, then head.nids 64-bit call
   counts, then head.nids 32-bit error counts. Writers are the application threads, each in
   its own slot, with plain stores; each record carries a sequence number that is odd while
   it is written, so a reader copies a record, reads the number again, and keeps the copy
   only if the number is even and unchanged (a seqlock: the writer never waits). A history
   entry's number says which call it holds as well: 2 * INDEX + 1 while written and
   2 * INDEX + 2 once whole (cua_live_entry_seq), INDEX being the call's place in its slot's
   history (slot.done before the call ended; 32 bits). A reader that finds another number at
   the entry it reads for INDEX is looking at an older call or one being written, and skips
   it. */
#define CUA_LIVE_MAGIC "cuaudit-live/1\n"
#define CUA_LIVE_VERSION 3 /* history entries numbered by index, records of 128 bytes (2: a development format) */
#define CUA_LIVE_HEAD_SIZE 4096u
#define CUA_LIVE_SLOTS 128u      /* threads with a slot at once; later ones are counted */
#define CUA_LIVE_DEPTH 4u        /* nested calls in flight kept per thread (runtime > driver) */
#define CUA_LIVE_ARGS 96u        /* bytes of each call's argument struct kept */
#define CUA_LIVE_CALLS_DEFAULT 64u
#define CUA_LIVE_CALLS_MAX 4096u
#define CUA_LIVE_PROGRAM 256u
#define CUA_LIVE_DEVICES 64u       /* CUA_MAX_DEVICES */

/* The control word (head.ctl), written by `cuaudit ctl` and read by the trace and the log
   with one load per call. */
#define CUA_LIVE_CTL_TRACE 1u
#define CUA_LIVE_CTL_LOG 2u
/* head.caps: what the process can switch on demand (it was started with the output
   configured and CUAUDIT_CAPTURE=ctl, or profiler-api for the trace). */
#define CUA_LIVE_CAP_TRACE 1u
#define CUA_LIVE_CAP_LOG 2u

/* head.state */
enum { CUA_LIVE_RUNNING = 1, CUA_LIVE_EXITED = 2 };

struct cua_live_head {
	char magic[16];
	uint32_t version;
	uint32_t head_size;
	uint64_t file_size;
	uint64_t slot_size;
	uint32_t nslots;
	uint32_t ncalls;         /* history entries per slot */
	uint32_t nids;           /* counters per slot: CUAUDIT_ID_COUNT of the writer */
	uint32_t args_max;       /* CUA_LIVE_ARGS */
	uint64_t table_sig;      /* which build's ids and argument structs (cua_tracefmt_table_sig) */
	uint64_t pid;
	uint64_t start_ticks;    /* /proc/PID/stat field 22: a reused pid has another */
	uint64_t created_ns;     /* CLOCK_MONOTONIC, the clock of every time below */
	uint64_t uid;
	uint32_t state;          /* CUA_LIVE_RUNNING, CUA_LIVE_EXITED */
	uint32_t caps;           /* CUA_LIVE_CAP_* */
	uint32_t ctl;            /* CUA_LIVE_CTL_*, written by `cuaudit ctl` */
	uint32_t untracked;      /* threads that found no free slot */
	char program[CUA_LIVE_PROGRAM];
	uint32_t slots_used;     /* the highest slot index taken, plus one */
	uint32_t pidns;          /* the writer's PID namespace (cua_live_pidns); 0: unknown */
	/* Device memory the process's calls hold, per device ordinal, as the memory hook
	   counts it (allocations minus frees; CUAUDIT_MEM_LIMIT's accounting, kept without a
	   quota while the live view is on). */
	uint64_t mem_used[CUA_LIVE_DEVICES];
};

/* One call in flight. 128 bytes, so that a record is found with a shift. */
struct cua_live_flight {
	uint32_t seq;            /* odd while written */
	uint16_t id;
	uint8_t binding;         /* enum cuaudit_binding */
	uint8_t active;          /* 1 from the call's start (set with the odd number, in one
				    store) until it returns; cleared with one store, outside the
				    sequence number (the rest stays put) */
	uint64_t t_start;
	_Alignas(8) unsigned char args[CUA_LIVE_ARGS];
	unsigned char reserved1[16]; /* to 128 bytes */
};

/* One finished call in the history ring. */
struct cua_live_entry {
	uint32_t seq;            /* odd while written */
	uint16_t id;
	uint8_t binding;
	uint8_t depth;
	uint32_t tid;            /* the thread that made it: a slot outlives its threads */
	uint32_t reserved0;
	uint64_t t_start, t_end, result;
};

struct cua_live_slot {
	uint32_t tid;            /* the owner thread; 0: free */
	uint32_t reserved0;
	uint64_t done;           /* calls finished in this slot, all owners: the next history
				    index, taken before the entry is written */
	unsigned char reserved1[48]; /* the records start a cache line of their own; the file
					asks no alignment of its reader's copy (8 bytes) */
	struct cua_live_flight flight[CUA_LIVE_DEPTH];
};

/* cua_live_put_head writes the sequence number and the next three fields as one word. */
_Static_assert(offsetof(struct cua_live_flight, id) == 4 && offsetof(struct cua_live_flight, binding) == 6 &&
		       offsetof(struct cua_live_flight, active) == 7 && offsetof(struct cua_live_flight, t_start) == 8,
	       "a flight record's first word");
_Static_assert(sizeof(struct cua_live_flight) == 128 && offsetof(struct cua_live_slot, flight) == 64,
	       "flight records of two cache lines each");
_Static_assert(offsetof(struct cua_live_entry, id) == 4 && offsetof(struct cua_live_entry, binding) == 6 &&
		       offsetof(struct cua_live_entry, depth) == 7 && offsetof(struct cua_live_entry, tid) == 8 &&
		       offsetof(struct cua_live_entry, reserved0) == 12,
	       "a history entry's first two words");

/* The sequence number of history entry 'index' once whole (one less while written). */
static inline uint32_t cua_live_entry_seq(uint64_t index)
{
	return (uint32_t)index * 2u + 2u;
}

/* Pieces of a slot, for writer and reader alike. */
static inline struct cua_live_entry *cua_live_history(struct cua_live_slot *s)
{
	return (struct cua_live_entry *)(s + 1);
}

static inline uint64_t *cua_live_calls(struct cua_live_slot *s, uint32_t ncalls)
{
	return (uint64_t *)(cua_live_history(s) + ncalls);
}

static inline uint32_t *cua_live_errors(struct cua_live_slot *s, uint32_t ncalls, uint32_t nids)
{
	return (uint32_t *)(cua_live_calls(s, ncalls) + nids);
}

static inline uint64_t cua_live_slot_size(uint32_t ncalls, uint32_t nids)
{
	uint64_t n = sizeof(struct cua_live_slot) + (uint64_t)ncalls * sizeof(struct cua_live_entry) +
		     (uint64_t)nids * (sizeof(uint64_t) + sizeof(uint32_t));

	return (n + 63) & ~(uint64_t)63; /* a cache line each: threads do not share one */
}

/* ---- the writer's side, in the module ---- */

/* The calling thread's slot, and the process it was taken in (a forked child's threads
   find another pid and take a slot in the child's own region). */
struct cua_live_me {
	struct cua_live_slot *slot;
	uint64_t pid;
	/* Calls of this thread in flight, for the view: the flight record a call takes. Not the
	   dispatch's depth, which a signal handler's calls restart at 0 (they count as calls
	   of their own): here a handler's call takes the record above the call it interrupted,
	   which stays in flight. */
	unsigned level;
	/* The slot's per-API call and error counts (cua_live_calls, cua_live_errors), found
	   once at attach. */
	uint64_t *calls;
	uint32_t *errors;
};
extern __thread struct cua_live_me cua_live_me __attribute__((tls_model("initial-exec")));
/* Non-zero when the live region is on: fixed in la_version. */
extern uint8_t cua_live_on;
/* 1 where the id returns a CUresult or a cudaError_t: a non-zero result counts as an error. */
extern uint8_t cua_live_may_fail[];

/* The first word of a flight record or a history entry: the sequence number and the three
   small fields after it (a 16-bit and two 8-bit ones), in one store where the byte order
   allows. The caller orders it before the record's other stores (a release fence). */
static inline __attribute__((always_inline)) void cua_live_put_head(uint32_t *rec, uint32_t seq,
								    uint16_t a, uint8_t b, uint8_t c)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w = (uint64_t)seq | (uint64_t)a << 32 | (uint64_t)b << 48 | (uint64_t)c << 56;

	__builtin_memcpy(rec, &w, sizeof(w));
#else
	unsigned char *p = (unsigned char *)rec;

	__atomic_store_n(rec, seq, __ATOMIC_RELAXED);
	__builtin_memcpy(p + 4, &a, 2);
	p[6] = b;
	p[7] = c;
#endif
}
/* The slot of the calling thread in this process's region, made at its first call; a
   private scratch slot when there is none (no region, every slot taken). */
struct cua_live_slot *cua_live_attach(uint64_t pid);
/* The region's head in this process (or the parent's, in a forked child that has not made
   its own yet), NULL before the first call. */
extern struct cua_live_head *volatile cua_live_region;
/* The process the region belongs to (a forked child still maps its parent's). */
extern uint64_t cua_live_region_pid;
/* The memory hook's count of device dev changed to bytes: published for the readers. */
void cua_live_note_mem(unsigned dev, uint64_t bytes);
/* The control word: one load. */
static inline uint32_t cua_live_ctl(void)
{
	struct cua_live_head *h = cua_live_region;

	return h ? __atomic_load_n(&h->ctl, __ATOMIC_RELAXED) : 0;
}
/* Set up from la_version by hooks/live.c: the directory, history entries per slot (a power
   of two), what `cuaudit ctl` may switch. Returns 0, or -1 when no memory (the view stays off). */
int cua_live_setup(const char *dir, uint32_t ncalls, uint32_t caps);
/* Removes this process's region file (normal exit, exec); the mapping stays for threads
   still running. */
void cua_live_remove(void);
/* history entries per slot - 1 */
extern uint32_t cua_live_calls_mask;

/* ---- shared by the module and the command ---- */
/* Field 22 of /proc/PID/stat (start time in clock ticks since boot), or 0 if unreadable.
   pid 0: this process. No stdio, no strto*: safe on any thread. */
uint64_t cua_live_start_ticks(uint64_t pid);
/* The calling process's PID namespace: the low 32 bits of /proc/self/ns/pid's inode, 0 if
   unknown. A pid means this process only inside the namespace that wrote it: a reader in
   another (a host beside a container that shares the directory) cannot tell a running
   process from a dead one. */
uint32_t cua_live_pidns(void);
/* The file name of a region: PID-STARTTICKS.live. Returns its length. */
size_t cua_live_file_name(char *out, size_t cap, uint64_t pid, uint64_t start_ticks);

/* Called by the dispatch after it read the call's start time: the call is in flight. pid is
   the calling process (the dispatch's thread cache, current after cua_thread_id_fast).
   Returns the flight record's index (CUA_LIVE_DEPTH and above: none) and, in *slot_out, the
   slot it is in, for cua_live_end: a thread that takes another slot during the call (its
   first call found no region yet) ends the call in the slot it began in. */
static inline __attribute__((always_inline)) unsigned cua_live_begin(unsigned id, unsigned binding,
								     const void *args, size_t args_bytes,
								     uint64_t pid, uint64_t t_start,
								     struct cua_live_slot **slot_out)
{
	struct cua_live_slot *s = cua_live_me.slot;
	struct cua_live_flight *f;
	unsigned idx;
	uint32_t seq;

	if (__builtin_expect(!s || cua_live_me.pid != pid, 0))
		s = cua_live_attach(pid);
	*slot_out = s;
	/* A handler that interrupts this increment ends its own calls before it returns and
	   puts the level back: both calls may take one record, one after the other. */
	idx = cua_live_me.level++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(idx >= CUA_LIVE_DEPTH, 0))
		return idx;
	f = &s->flight[idx];
	seq = f->seq;
	/* The odd number with the id, the binding and the in-flight mark, in one store. */
	cua_live_put_head(&f->seq, seq + 1, (uint16_t)id, (uint8_t)binding, 1);
	/* A plain compiler barrier on x86 (stores are not reordered there); a store fence
	   elsewhere: the odd number is seen before the fields change. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	f->t_start = t_start;
	/* The argument struct's own bytes (its size is a constant where this is inlined: a few
	   moves); the reader reads only these, by each argument's offset and size. */
	if (args_bytes) /* none for a function without arguments: args is NULL */
		__builtin_memcpy(f->args, args, args_bytes < CUA_LIVE_ARGS ? args_bytes : CUA_LIVE_ARGS);
	__atomic_store_n(&f->seq, seq + 2, __ATOMIC_RELEASE);
	return idx;
}

#endif
