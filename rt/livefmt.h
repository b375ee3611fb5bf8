/* SPDX-License-Identifier: MIT */
/* rt/livefmt.h: the live region's file layout (written by the module, read by `cuaudit ps`) and the in-flight store every wrapper makes. */
#ifndef CUA_LIVEFMT_H
#define CUA_LIVEFMT_H

#include <stddef.h>
#include <stdint.h>
#include "cuaudit.h"
#include "callrec.h"
#include "clock.h"

/* The region is one file per process, PID-STARTTICKS.live in the live directory, mapped
   MAP_SHARED by the process: the kernel keeps what the threads stored after a SIGKILL, a
   SIGSEGV or a SIGSTOP, so a reader sees it then as it sees it while the process runs.

   Layout: the head (4 KiB), then CUA_LIVE_SLOTS thread slots of head.slot_size bytes, then
   head.names_max kernel names (struct cua_live_name) from head.names_off. A slot is: struct
   cua_live_slot, then head.ncalls call records (a ring), then head.nids 64-bit call counts,
   then head.nids 64-bit sums of the calls' times (ns), then head.nids 32-bit error counts. Writers are the application threads, each
   in its own slot, with plain stores. A call takes the ring's next record when it starts
   (INDEX: slot.done then, 32 bits kept) and keeps it until it returns, so one record is both
   its in-flight entry and, afterwards, its history entry. The record's sequence number says
   which call it holds and in which state (cua_live_seq):
     4 * INDEX + 1   its start being written;
     4 * INDEX + 2   in flight: function, binding, depth, thread, start and arguments whole;
     4 * INDEX + 4   ended: end time and result whole as well;
   0 for a record never used. A reader copies a record, reads the number again, and keeps
   the copy only if the number is even and unchanged (a seqlock: the writer never waits). A
   record still in flight is never taken again: a call that finds its ring position in use
   takes the next free one, so a call blocked for good stays in view however many calls
   nested in it or made by signal handlers follow. The history is read back from slot.done:
   the record at INDEX's position is that call's only if its number is 4 * INDEX + 4. */
#define CUA_LIVE_MAGIC "cuaudit-live/1\n"
#define CUA_LIVE_VERSION 7 /* kernel names published at a kernel's first launch, names_lost
				   counts launched kernels, names_lost_bound (6: each slot ends with
				   its thread's open NVTX ranges, names published at registration; 5: every ended
				   call timed, per-API time sums, kernel names; 4: the view alone left
				   the end untimed; 3: separate flight records and history) */
#define CUA_LIVE_HEAD_SIZE 4096u
#define CUA_LIVE_SLOTS 128u      /* threads with a slot at once; later ones are counted */
#define CUA_LIVE_ARGS 96u        /* bytes of each call's argument struct kept */
#define CUA_LIVE_CALLS_DEFAULT 64u
#define CUA_LIVE_CALLS_MAX 4096u
#define CUA_LIVE_CALLS_MIN 16u     /* records per slot at least: calls in flight take them too */
/* Records per slot at least with the trace on, which keeps calls in the ring until three
   quarters of it are taken: the quarter left (256) is the room of a signal handler's calls
   while the trace's own update runs (with 64, nested handlers overtook 5 calls in CI). */
#define CUA_LIVE_CALLS_TRACE 1024u
#define CUA_LIVE_PROGRAM 256u
#define CUA_LIVE_DEVICES 64u       /* CUA_MAX_DEVICES */
#define CUA_LIVE_NAMES 1024u       /* kernel names kept (a power of two); later ones are counted */
#define CUA_LIVE_NAME_MAX 240u     /* bytes of a name kept, its NUL included */

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

/* The clock of the calls' times: cuaudit's own (base/clock.h), read once per call on the
   hot path, which drifts against CLOCK_MONOTONIC (some 10 ms an hour). So that a reader
   compares them with its own CLOCK_MONOTONIC, the writer publishes the clock's definition,
   off the hot path: where tsc is 1, ns = ns_base + ((TSC - tsc_base) * mult >> 32), the
   TSC being the machine's, which any process reads alike; where 0, CLOCK_MONOTONIC +
   offset_ns (all 0 in a file of a writer before these fields: CLOCK_MONOTONIC). tsc goes
   from 0 to 1 once, and nothing changes after. seq is a seqlock: odd while the writer
   writes the definition (it may publish it again at a CUDA library's load or a thread's
   attach), even when whole; a reader takes a definition read between two even reads of the
   same seq (cua_live_clock_take). 0 in a file of a writer before it (a padding word then),
   whose definition is read as it lies. 40 bytes, at the head's offset 904 as before. */
struct cua_live_clock {
	uint32_t tsc;
	uint32_t seq;
	uint64_t tsc_base, ns_base, mult, offset_ns;
};

struct cua_live_head {
	char magic[16];
	uint32_t version;
	uint32_t head_size;
	uint64_t file_size;
	uint64_t slot_size;
	uint32_t nslots;
	uint32_t ncalls;         /* call records per slot (a power of two) */
	uint32_t nids;           /* counters per slot: CUAUDIT_ID_COUNT of the writer */
	uint32_t args_max;       /* CUA_LIVE_ARGS */
	uint64_t table_sig;      /* which build's ids and argument structs (cua_tracefmt_table_sig) */
	uint64_t pid;
	uint64_t start_ticks;    /* /proc/PID/stat field 22: a reused pid has another */
	uint64_t created_ns;     /* CLOCK_MONOTONIC (the calls' times: clock_* below) */
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
	/* Kernel names (struct cua_live_name), an open-addressed table by launch key. */
	uint64_t names_off;      /* from the file's start */
	uint32_t names_max;      /* CUA_LIVE_NAMES */
	uint32_t names_lost;     /* names that found no entry free within CUA_LIVE_NAME_PROBES */
	/* The clock of the calls' times (struct cua_live_clock). */
	struct cua_live_clock clock;
	/* 1: names_lost is a lower bound (more keys launched than CUA_LIVE_NAMED_FILL); 0 in a
	   writer's before it (its count counted registrations). */
	uint32_t names_lost_bound;
};
_Static_assert(sizeof(struct cua_live_head) <= CUA_LIVE_HEAD_SIZE, "the head fits its page");
_Static_assert(offsetof(struct cua_live_head, clock) == 904 && sizeof(struct cua_live_clock) == 40,
	       "the clock's definition lies where writers before its seq put it");

/* How many times a reader reads the clock's definition again while it finds it being
   written, before it says the writer's clock is unknown. */
#define CUA_LIVE_CLOCK_TRIES 100

/* One whole definition of the writer's clock into *out. get copies the head's clock (0:
   copied), each copy done before the next begins: the seq of one copy, the definition of
   the next and the seq of a third must agree and be even, or it is read again, at most
   tries times. 1: *out is whole; 0: none was (a writer in an update, or killed in one);
   -1: a copy failed. */
static inline int cua_live_clock_take(int (*get)(void *ctx, struct cua_live_clock *c), void *ctx,
				      unsigned tries, struct cua_live_clock *out)
{
	struct cua_live_clock a, b, c;

	if (get(ctx, &a))
		return -1;
	for (unsigned i = 0; i < tries; i++) {
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (get(ctx, &b))
			return -1;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (get(ctx, &c))
			return -1;
		if (!(a.seq & 1) && a.seq == c.seq) {
			*out = b;
			out->seq = a.seq;
			return 1;
		}
		a = c;
	}
	return 0;
}

/* One kernel name: what a launch's function (its key: the first argument's handle, or a
   runtime launch's host function) is called, published at the key's first launch (before
   the call: a first launch that hangs is named), from what the program named it (a
   registration, a look-up) or the driver says, and again where the program names a key
   already published anew (a handle reused by another module). Only launched kernels take
   an entry: a program registers thousands (PyTorch some 20,500) and launches few. The reader reads a launch's key from its
   record's argument bytes (cua_roles_launch_func) and finds its name here. seq is a seqlock:
   odd while written, even when whole, 0 for an entry never used. 256 bytes. */
struct cua_live_name {
	uint32_t seq;
	uint32_t space;          /* CUA_KERNELNAMES_HOSTS or _HANDLES */
	uint64_t key;
	char name[CUA_LIVE_NAME_MAX]; /* mangled as the program gave it; NUL-terminated (cut) */
};
_Static_assert(sizeof(struct cua_live_name) == 256, "name entries of 256 bytes");
#define CUA_LIVE_NAME_PROBES 64u

/* The keys this process has launched and published (or found no entry for, counted once in
   names_lost), private to the process: a launch's only cost while the view is on is one
   look at its key's place here (cua_live_launch). Open-addressed by cua_live_named_at; a
   tag is the key with the space in its top bit, 0 for a free place (a host key 0 is never
   named: it reads as published). Mapped in cua_live_setup, emptied in a forked child that
   makes its own region. At most CUA_LIVE_NAMED_FILL keys are kept; a key past that is looked
   up and published at each of its launches, and names_lost then counts no more (set
   names_lost_bound: the count is a lower bound). */
#define CUA_LIVE_NAMED (1u << 15)
#define CUA_LIVE_NAMED_FILL (1u << 14)
extern uint64_t *cua_live_named;
static inline uint64_t cua_live_named_tag(unsigned space, uint64_t key)
{
	return key ^ ((uint64_t)space << 63);
}
static inline uint32_t cua_live_named_at(uint64_t tag)
{
	return (uint32_t)((tag * 0x9e3779b97f4a7c15ull) >> 49); /* 15 bits: CUA_LIVE_NAMED */
}
/* The first entry a key is looked for in (then the next ones, CUA_LIVE_NAME_PROBES in all). */
static inline uint32_t cua_live_name_hash(uint32_t space, uint64_t key, uint32_t names_max)
{
	uint64_t h = (key ^ ((uint64_t)space << 61)) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 40) & (names_max - 1);
}

/* One call: in flight from its start, then ended (the ring's records). The head
   (rt/callrec.h): h.seq is cua_live_seq (4 * INDEX + 1, + 2, + 4); h.flags is 0 from the
   call's start (stored with h.tid) and gets CUA_REC_GPU once GPU timing attached a time to
   gpu below for this call (cua_live_put_gpu); h.t_end and h.result are whole once ended. 144
   bytes. */
struct cua_live_call {
	struct cua_rec_head h;
	_Alignas(8) unsigned char args[CUA_LIVE_ARGS]; /* the argument struct's first bytes */
	/* GPU timing's measure of the call's work (cua_live_put_gpu), one word: 0, or a writer's
	   before this field (nothing), or the check of the call it belongs to with the time. */
	uint64_t gpu;
};

struct cua_live_slot {
	union {
		struct {
			uint32_t tid; /* the owner thread; 0: free */
			uint32_t gen; /* owners so far: taken with the tid in one compare-and-swap,
					 so that two takers who saw one ended owner (a thread id
					 the kernel gave again) cannot both win */
		};
		uint64_t owner; /* tid and gen, as one word */
	};
	uint64_t done;           /* calls begun in this slot, all owners (and ring records
				    passed over because still in flight): the next INDEX, taken
				    before the record is written */
	unsigned char reserved1[48]; /* the ring starts a cache line of its own; the file asks
					no alignment of its reader's copy (8 bytes) */
};

/* cua_live_put_head writes the sequence number and the next three fields as one word (the
   head asserts their places); the arguments follow the head as in a version-5 writer's. */
_Static_assert(offsetof(struct cua_live_call, h) == 0 && offsetof(struct cua_live_call, args) == 40,
	       "a call record's head, then its arguments");
_Static_assert(sizeof(struct cua_live_call) == 144 && sizeof(struct cua_live_slot) == 64,
	       "records of 144 bytes after a 64-byte slot head");

/* A record's states (the low two bits of its number): 1 starting, 2 in flight, 0 ended
   (4 * INDEX + 4), 3 given up (a call of a thread that ended, reset when its slot was taken
   again: odd, so never read, and free). */
enum { CUA_LIVE_STARTING = 1, CUA_LIVE_IN_FLIGHT = 2, CUA_LIVE_ENDED = 4, CUA_LIVE_GIVEN_UP = 3 };
/* The number of the record of call 'index' in state st. */
static inline uint32_t cua_live_seq(uint64_t index, unsigned st)
{
	return (uint32_t)index * 4u + st;
}
/* Non-zero while a record's call has not ended (starting or in flight). */
static inline int cua_live_busy(uint32_t seq)
{
	return ((seq - 1u) & 3u) < 2u;
}

/* The GPU time of a call's work, attached to its record by GPU timing (hooks/gpu) when it
   harvests the work, which is after the call returned, on whichever thread harvests: one
   word, stored at once, so that no reader and no second writer can see half of it. Bits
   0-39: the duration (ns), exact where bit 63 is set, else its greatest possible value (the
   work ran on an idle stream and started somewhere inside the call: a bound). Bits 40-62: a
   check of the record's number when the call ended. A record taken again by a newer call
   keeps the word but not CUA_REC_GPU, whose flags the call's start clears (with the thread
   id, no store more): the reader shows a time only where the flag is set and the check is
   the record's own. The check alone is not enough: 23 bits of a 32-bit number are the same
   again some rounds of the ring later (583783488 calls with 64 records), and the number
   itself after 2^30 calls. The flag alone is not either: a harvest that read the record's
   number just before the newer call took it stores after, and then the check is another
   call's. Work longer than 2^40 ns (18 minutes) is attached nowhere. */
#define CUA_LIVE_GPU_EXACT (1ull << 63)
#define CUA_LIVE_GPU_NS_MAX ((1ull << 40) - 1)
static inline uint64_t cua_live_gpu_check(uint32_t seq)
{
	return (uint64_t)((seq * 0x9e3779b1u) >> 9) << 40;
}

/* A ring record's flags have two writers once the call ended: GPU timing, on any thread,
   sets CUA_REC_GPU; the trace, on the call's own thread, sets CUA_LIVE_TRACED. Each stores
   only the byte its bit is in, so that neither needs a locked instruction and neither undoes
   the other's. */
#define CUA_LIVE_TRACED (1u << 24) /* the trace keeps the call as this record alone
				      (hooks/trace/trace.c); never in a trace's own records */
static inline uint8_t *cua_live_flag_byte(struct cua_live_call *r, uint32_t bit)
{
	unsigned byte = (unsigned)__builtin_ctz(bit) / 8;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (uint8_t *)&r->h.flags + byte;
#else
	return (uint8_t *)&r->h.flags + 3 - byte;
#endif
}
static inline void cua_live_set_flag(struct cua_live_call *r, uint32_t bit)
{
	uint8_t *b = cua_live_flag_byte(r, bit);

	__atomic_store_n(b, (uint8_t)(__atomic_load_n(b, __ATOMIC_RELAXED) |
				      (uint8_t)(bit >> (8 * ((unsigned)__builtin_ctz(bit) / 8)))),
			 __ATOMIC_RELEASE);
}

/* Attaches a duration to the record that held call 'seq' (its ended number); nothing when
   the record has been taken again since or the duration does not fit. */
static inline void cua_live_put_gpu(struct cua_live_call *r, uint32_t seq, uint64_t ns, int exact)
{
	if (ns > CUA_LIVE_GPU_NS_MAX || __atomic_load_n(&r->h.seq, __ATOMIC_ACQUIRE) != seq)
		return;
	__atomic_store_n(&r->gpu, (exact ? CUA_LIVE_GPU_EXACT : 0) | cua_live_gpu_check(seq) | ns,
			 __ATOMIC_RELEASE);
	cua_live_set_flag(r, CUA_REC_GPU);
}

/* A record read whole (the reader's copy): 0 without a GPU time of its own call, 1 with an
   exact one, 2 with a bound (*ns the greatest possible duration). */
static inline int cua_live_gpu_of(const struct cua_live_call *e, uint64_t *ns)
{
	if (!(e->h.flags & CUA_REC_GPU) || !e->gpu ||
	    (e->gpu & ~CUA_LIVE_GPU_EXACT & ~CUA_LIVE_GPU_NS_MAX) != cua_live_gpu_check(e->h.seq))
		return 0;
	*ns = e->gpu & CUA_LIVE_GPU_NS_MAX;
	return e->gpu & CUA_LIVE_GPU_EXACT ? 1 : 2;
}

/* Pieces of a slot, for writer and reader alike. */
static inline struct cua_live_call *cua_live_ring(struct cua_live_slot *s)
{
	return (struct cua_live_call *)(s + 1);
}

static inline uint64_t *cua_live_calls(struct cua_live_slot *s, uint32_t ncalls)
{
	return (uint64_t *)(cua_live_ring(s) + ncalls);
}

/* Each API's calls' times summed (ns): the end less the start, as the history shows them. */
static inline uint64_t *cua_live_times(struct cua_live_slot *s, uint32_t ncalls, uint32_t nids)
{
	return cua_live_calls(s, ncalls) + nids;
}

static inline uint32_t *cua_live_errors(struct cua_live_slot *s, uint32_t ncalls, uint32_t nids)
{
	return (uint32_t *)(cua_live_times(s, ncalls, nids) + nids);
}

/* The thread's open NVTX ranges as "a > b > c" (hooks/nvtx/nvtx.c), after the error counts. The
   writer makes seq odd, changes the bytes and len, then makes seq even again; a reader keeps
   a copy whose seq was even and unchanged around it. Cut at CUA_LIVE_NVTX_PATH bytes. */
#define CUA_LIVE_NVTX_PATH 248u
struct cua_live_nvtx {
	uint32_t seq;
	uint32_t len;
	char path[CUA_LIVE_NVTX_PATH];
};

static inline struct cua_live_nvtx *cua_live_nvtx(struct cua_live_slot *s, uint32_t ncalls, uint32_t nids)
{
	uintptr_t p = (uintptr_t)(cua_live_errors(s, ncalls, nids) + nids);

	return (struct cua_live_nvtx *)((p + 7) & ~(uintptr_t)7);
}

static inline uint64_t cua_live_slot_size(uint32_t ncalls, uint32_t nids)
{
	uint64_t n = sizeof(struct cua_live_slot) + (uint64_t)ncalls * sizeof(struct cua_live_call) +
		     (uint64_t)nids * (2 * sizeof(uint64_t) + sizeof(uint32_t)) + 8 +
		     sizeof(struct cua_live_nvtx);

	return (n + 63) & ~(uint64_t)63; /* a cache line each: threads do not share one */
}

/* ---- the writer's side, in the module ---- */

/* The calling thread's slot, and the process it was taken in (a forked child's threads
   find another pid and take a slot in the child's own region). */
struct cua_live_me {
	struct cua_live_slot *slot;
	uint64_t pid;
	uint32_t tid; /* the thread's kernel id in that process */
	/* The slot's per-API call and error counts (cua_live_calls, cua_live_errors), found
	   once at attach. */
	uint64_t *calls;
	uint64_t *times;
	uint32_t *errors;
	/* Where calls and errors point while another thread makes the region (a pool entry of
	   live.c), added to the slot at the attach that finds one; NULL otherwise. */
	void *pending;
	uint64_t pending_pid; /* the process it was taken in (a forked child's copy is not its) */
	/* Found no free slot in this process's region (0: not so): counted once in the head,
	   and asked again at a call CUA_LIVE_RETRY_NS after the last try. */
	uint64_t untracked_pid;
	uint64_t untracked_at;
};
#define CUA_LIVE_RETRY_NS 100000000ull
/* cua_live_me.pid of a thread that has not attached: matches no pid, nor 0. */
#define CUA_LIVE_NO_PID (~(uint64_t)0)
extern __thread struct cua_live_me cua_live_me __attribute__((tls_model("initial-exec")));
/* Non-zero when the live region is on: fixed in la_version. */
extern uint8_t cua_live_on;

/* The first word of a call record: the sequence number and the three small fields after it
   (a 16-bit and two 8-bit ones), in one store where the byte order allows. The caller
   orders it before the record's other stores (a release fence). */
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
/* The slot of the calling thread in this process's region, taken at its first call (and the
   region made then if it is not yet: a forked child's); a private scratch slot when there is
   none (no region, another thread making it, every slot taken). Sets *pid to the calling
   process's. */
struct cua_live_slot *cua_live_attach(uint64_t *pid);
/* Before an exec (this process's own image, never a vfork child): the region is marked
   exited, not removed, so that a failed exec keeps it (cua_live_exec_failed marks it
   running again); the new image removes it when it sets up the view, or replaces it with
   its own (`cuaudit ps --clean` removes what an image without the view left). */
void cua_live_exec_begin(void);
void cua_live_exec_failed(void);
/* Makes this process's region now, where a CUDA library is loaded or a linked-in runtime
   patched (la_objopen), rather than at the first call: threads whose first calls come
   together then find it made. A process forked later makes its own at its first call. */
void cua_live_prepare(void);
/* Registers the forked child's handler through the program's C library (once; from the
   start-up's consistent state, before any program code runs). */
void cua_live_watch_forks(void);
/* The region's head in this process (or the parent's, in a forked child that has not made
   its own yet), NULL before it is made (cua_live_prepare, or a first call). */
extern struct cua_live_head *volatile cua_live_region;
/* The process the region belongs to (a forked child still maps its parent's). */
extern uint64_t cua_live_region_pid;
/* The memory hook's count of device dev changed to bytes: published for the readers. */
void cua_live_note_mem(unsigned dev, uint64_t bytes);
/* Key (in space, CUA_KERNELNAMES_*) is called name: published in this process's region for
   the readers (lock-free; any thread; once per launched key). 1: written or there already;
   0: no entry free (counted in names_lost); -1: no region of this process. */
int cua_live_note_name(unsigned space, uint64_t key, const char *name);
/* A launch of key (in space) is about to be made: its kernel's name is published at its
   first launch (cua_live_name_launched). may_ask: a driver launch (an unnamed handle is
   asked of the driver). Called only while the view is on, before the call's record. */
void cua_live_name_launched(unsigned space, uint64_t key, int may_ask);
static inline __attribute__((always_inline)) void cua_live_launch(unsigned space, uint64_t key,
								  int may_ask)
{
	uint64_t tag = cua_live_named_tag(space, key);

	if (__builtin_expect(__atomic_load_n(&cua_live_named[cua_live_named_at(tag)], __ATOMIC_RELAXED) !=
				     tag, 0))
		cua_live_name_launched(space, key, may_ask);
}
/* The program named key anew (a registration, a look-up): published again where the key was
   launched already (rewritten only where the name changed), else nothing until its launch. */
void cua_live_renamed(unsigned space, uint64_t key, const char *name);
/* The control word: one load. */
static inline uint32_t cua_live_ctl(void)
{
	struct cua_live_head *h = cua_live_region;

	return h ? __atomic_load_n(&h->ctl, __ATOMIC_RELAXED) : 0;
}
/* Set up from la_version by hooks/live/live.c: the directory, call records per slot (a power
   of two), what `cuaudit ctl` may switch. Returns 0, or -1 when no memory (the view stays off). */
int cua_live_setup(const char *dir, uint32_t ncalls, uint32_t caps);
/* Removes this process's region file (normal exit, exec); the mapping stays for threads
   still running. */
void cua_live_remove(void);
/* call records per slot - 1 */
extern uint32_t cua_live_calls_mask;
/* Called by a thread that takes the slot of a thread that ended, before any of its calls
   takes a record there (the trace writes out what it still needs of the ring: the ended
   thread's last calls are in it). NULL: nothing needs them. */
extern void (*cua_live_taking)(struct cua_live_slot *s);

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

/* No record: the ring's next records are all in flight. */
#define CUA_LIVE_NONE (~(uint64_t)0)
/* Takes the slot's next n INDEXes and returns the first: one instruction, so that a signal
   handler's call on the same thread never takes the same one (no lock prefix: no other
   thread writes the slot). */
static inline __attribute__((always_inline)) uint64_t cua_live_take_n(uint64_t *done, uint64_t n)
{
#if defined(__x86_64__)
	__asm__ volatile("xaddq %0, %1" : "+r"(n), "+m"(*done));
	return n;
#else
	/* A read-modify-write that a signal on this thread cannot split (LL/SC retries). */
	return __atomic_fetch_add(done, n, __ATOMIC_RELAXED);
#endif
}
/* The record of INDEX 'at', just taken, is in flight (a call nested deeper than the ring
   goes round, or abandoned): takes the next INDEX whose record is free among the next
   CUA_LIVE_SCAN (a thread whose abandoned calls filled its ring pays no more per call), or
   returns CUA_LIVE_NONE. */
#define CUA_LIVE_SCAN 32u
uint64_t cua_live_next_free(struct cua_live_slot *s, uint64_t at);

static inline __attribute__((always_inline)) struct cua_live_call *cua_live_record(struct cua_live_slot *s,
										     uint64_t at)
{
	return cua_live_ring(s) + (at & cua_live_calls_mask);
}

/* What cua_live_begin hands cua_live_end, kept in the wrapper's frame. */
struct cua_live_took {
	struct cua_live_call *rec; /* NULL: none (every record of the ring in flight) */
	uint64_t pid;              /* the process the call began in */
	uint64_t t_start;          /* its start (the record's) */
	uint32_t seq;              /* its number while in flight */
};

/* Called by the dispatch just before the real call: the call is in flight. Reads the clock
   last, after every store but the one that publishes the record, and returns that time: the
   call's start (docs/design.md, "A call's time"), so that the view's own work, a first call's
   attach included, falls before it. pid is what the pid cache holds (*cua_pid_cache: 0 in a
   child that has not read its pid yet, which no attached thread's pid matches). Fills *took
   with the record it took, for cua_live_end: a call that began before its thread had a slot
   (its first call found no region yet) ends in the private scratch slot it began in. */
static inline __attribute__((always_inline)) uint64_t cua_live_begin(unsigned id, unsigned binding,
								     unsigned depth, const void *args,
								     size_t args_bytes, uint64_t pid,
								     struct cua_live_took *took)
{
	uint64_t t_start;
	struct cua_live_slot *s;
	struct cua_live_call *r;
	uint64_t at, tid, mine = cua_live_me.pid;
	uint32_t seq;

	/* The pid, the slot, the pid again: the slot is set before the pid (cua_live_attach),
	   so an unchanged pid that matches means the slot is this thread's in this process,
	   even where a signal handler's call attached in between, or forked and attached in the
	   child. A thread with no slot yet (CUA_LIVE_NO_PID) attaches, and so does one whose cache
	   reads 0. The attach reads the process's pid itself (the caller's may be the parent's,
	   or 0). */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	s = cua_live_me.slot;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(mine != pid || cua_live_me.pid != mine, 0)) {
		uint64_t now; /* apart from pid, which then need not live in memory */

		s = cua_live_attach(&now);
		pid = now;
	}
	took->pid = pid;
	/* Taken, in one instruction, before it is written: a signal handler's call landing
	   anywhere here takes another INDEX, so no two calls ever write one record under the
	   same numbers. */
	at = cua_live_take_n(&s->done, 1);
	r = cua_live_record(s, at);
	if (__builtin_expect(cua_live_busy(__atomic_load_n(&r->h.seq, __ATOMIC_RELAXED)), 0)) {
		at = cua_live_next_free(s, at);
		if (at == CUA_LIVE_NONE) {
			took->rec = NULL;
			return took->t_start = cua_clock_ns();
		}
		r = cua_live_record(s, at);
	}
	took->rec = r;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	seq = cua_live_seq(at, CUA_LIVE_STARTING);
	took->seq = seq + 1;
	/* The odd number with the id, the binding and the depth, in one store. */
	cua_live_put_head(&r->h.seq, seq, (uint16_t)id, (uint8_t)binding, (uint8_t)depth);
	/* A plain compiler barrier on x86 (stores are not reordered there); a store fence
	   elsewhere: the odd number is seen before the fields change. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	/* The thread and the flags (0: no GPU time of this call yet), in one store where the byte
	   order allows. */
	tid = cua_live_me.tid;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	__builtin_memcpy(&r->h.tid, &tid, sizeof(tid));
#else
	r->h.tid = (uint32_t)tid;
	r->h.flags = 0;
#endif
	/* The argument struct's own bytes (its size is a constant where this is inlined: a few
	   moves); the reader reads only these, by each argument's offset and size. */
	if (args_bytes) /* none for a function without arguments: args is NULL */
		__builtin_memcpy(r->args, args, args_bytes < CUA_LIVE_ARGS ? args_bytes : CUA_LIVE_ARGS);
	t_start = cua_clock_ns();
	r->h.t_start = t_start;
	took->t_start = t_start;
	__atomic_store_n(&r->h.seq, seq + 1, __ATOMIC_RELEASE);
	return t_start;
}

#endif
