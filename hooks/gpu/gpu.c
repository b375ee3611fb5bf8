/* SPDX-License-Identifier: MIT */
/* hooks/gpu/gpu.c: GPU timing (CUAUDIT_GPU_TIME): events recorded after each launch, copy, memset and graph launch, harvested without waiting. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "finish.h"
#include "configs.h"
#include "config.h"
#include "dispatch.h"
#include "gpu.h"
#include "cuaudit_roles.h"
#include "index.h"
#include "kernelnames.h"
#include "log.h"
#include "process.h"

/* A context's pool: POOL records in flight at most, each with an end event and a start
   event used only when the stream was idle (or sampling). 2 * POOL events per context. */
#define POOL 512u
#define STREAMS 256u /* streams remembered per context (open addressing) */
#define CTXS 16u     /* contexts timed per process; more are counted as without a pool */
#define HARVEST_EVERY 8u
#define HARVEST_PER_CALL 32u
/* A new anchor event every 50 ms keeps the GPU-to-host mapping within a few microseconds
   of drift (a 50 ppm clock difference is 2.5 us over 50 ms). */
#define ANCHOR_EVERY_NS (50ull * 1000 * 1000)
/* How far the GPU clock may drift from the host clock between anchors, as a fraction: 50
   ppm (1/20000) covers a GPU oscillator's error and the host TSC's calibration (10 ppm). */
#define DRIFT_DIV 20000
/* What an end event may lag the work it follows: the events' resolution (about 0.5 us,
   docs/facts.md) and the GPU's latency to write a timestamp. Taken off each least duration. */
#define EVENT_SLACK_NS 1000
/* How soon after its record call returns an event on an idle stream is stamped, at most: an
   end event stamped later than that was waiting for the work before it, so it is that
   work's end. */
#define SUBMIT_SLACK_NS 20000

const char *const cua_gpu_op_names[CUA_GPU_OPS] = {
	"kernel", "HtoD", "DtoH", "DtoD", "peer", "HtoH", "copy", "memset", "graph",
};
const char *const cua_gpu_untimed_names[CUA_GPU_UNTIMED_KINDS] = {
	"pool_full", "capturing", "no_context", "lost", "unfinished", "busy",
};
static const char graph_name[] = "(CUDA graph launch)";

enum rec_state { R_FREE = 0, R_IN_CALL, R_RECORDED, R_VOID };
enum { OP_ANCHOR = CUA_GPU_OPS };

/* Host times of a record: t_submit when the hook began (before the call into the driver),
   t_after when it saw the call return, t_end_rec when its end event's record call returned;
   an anchor's record call ran between t_submit and t_after. At the call's exit t_submit and
   t_after become the call's own two times (the dispatch's, which lie between the hook's
   reads): the record keeps no other copy of them. */
struct rec {
	uint64_t seq;      /* position in the ring, from 1 */
	uint64_t prev_seq; /* shared start: the end of this record on the same stream; 0: own */
	uint64_t corr, tid, t_submit, t_after, t_end_rec, bytes;
	const char *name;
	void *stream_key;
	/* The call that took it, for its own thread to tell whether a signal handler jumped out
	   of it (left_call): where its record lay on that thread's stack (the address's low 32
	   bits: a thread's stack spans less than 2 GiB), and how
	   many handlers the thread had begun by then. An anchor has tid 0. */
	uint32_t frame;
	uint32_t sig_serial;
	uint32_t id;
	uint8_t op, state;
	/* The live view's record of the call, while the view is on: the harvest attaches the
	   work's time to it if it still holds the call (live_seq, its ended number). */
	uint32_t live_seq;
	struct cua_live_call *live;
	/* 128 bytes a record: the pool's index arithmetic is a shift (docs/performance.md). */
} __attribute__((aligned(128)));

/* A lock (see "The locks"): its holder's process and thread ids, and the holder's mark,
   which only the holder's own thread reads: where the hold began on its stack (the low 32
   bits, bit 0 set: a mark) and how many handlers the thread had begun by then (above bit
   32). The key and the mark are one aligned 16-byte pair, taken with the mark and given
   back in one instruction each (cas_pair): a jump out of a signal handler at any
   instruction finds the lock free, or held with its mark. stale: what a thread that waited
   LOCK_WAIT_NS in vain found (key ^ mark), for the next waiters to give up at once while
   that hold stands (cleared at each release). */
struct glock {
	_Alignas(16) uint64_t key;
	uint64_t mark, stale;
	/* A switch of the holder's capture mode made under this hold (relax): 1 while it is
	   kept here, and the mode to put back. Only the holder's thread reads them. */
	uint32_t switched;
	CUstreamCaptureMode back;
};

/* GPU times are kept in "GPU nanoseconds", a sum of the driver's elapsed times between
   events: durations taken from them never carry an anchor's error. host = gpu + off. */
struct stream_slot {
	void *key;         /* NULL: empty */
	uint64_t last_seq; /* its last record, if it may still be pending; 0 if none or unusable */
	uint64_t done_seq;
	int64_t done_end_gpu;
};

enum { G_RETIRED = -2, G_FAILED = -1, G_UNSET = 0, G_READY = 1 };

struct gctx {
	void *ctx; /* CUcontext; NULL: free */
	/* G_READY set up; G_FAILED (calls on it are counted without a context); G_RETIRED: its
	   context was destroyed or reset, so its events are gone: no driver call names them
	   again, and the context's calls start over on a new pool. */
	int ready;
	unsigned device;
	struct glock lock;
	/* Set where untimed work went on a stream without the lock: the next holder forgets
	   every stream's last record (none may share a start across that work). */
	int dirty;
	/* Its records were counted at an exit that could not take the lock: not again. */
	int abandoned;
	CUstream priv; /* cuaudit's own stream, for anchors only */
	uint64_t head, tail, ref_seq, last_anchor;
	int64_t ref_gpu;   /* the GPU time of the reference event (end[ref_seq % POOL]) */
	int64_t off;       /* host = gpu + off, from the best anchor so far */
	uint64_t off_err;  /* that anchor's uncertainty (half its record call) */
	uint64_t off_at;   /* its host time, from which drift is counted */
	int have_ref, have_off;
	/* A lower bound on the true offset (host = gpu + offset), from every harvested event
	   on its own: no event is stamped before its record call began, so the host time
	   before that call less the event's GPU time is at most the offset (at lo_at, give or
	   take drift since). The greatest such value is kept: it decides what is exact, with
	   no assumption about how soon an event is stamped, and which anchors were stamped
	   late. The anchor that gave it: its middle offset, uncertainty and host time. */
	int64_t lo_off, lo_mid_off;
	uint64_t lo_at, lo_err, lo_mid_at;
	uint64_t calls; /* timed calls, to harvest every HARVEST_EVERY */
	/* The record whose harvest is being committed (its seq; 0: none): a holder that took
	   the lock over from an abandoned one knows the time base may be half written. */
	uint64_t commit;
	CUevent end[POOL], start[POOL];
	struct rec ring[POOL];
	struct stream_slot streams[STREAMS];
};

static struct {
	unsigned sample;
	int on;
	int start_event; /* CUAUDIT_GPU_TIME_START=event */
} cfg;

static struct gctx *ctxs;           /* CTXS of them, mapped at the first timed call */
static struct cua_gpu_totals *tot;  /* mapped with them */
static uint64_t owner_pid;          /* the process the state belongs to */
static struct glock setup_lock, totals_lock;
/* Stream captures begun and not seen ended: a hint that one may be open, never a reason to
   stop timing (a program may abandon a capture). */
static int captures;
static uint64_t covered_min[CUA_GPU_MAX_DEVICES], covered_max[CUA_GPU_MAX_DEVICES];
static struct {
	cua_gpu_sink fn;
	void *ctx;
} sinks[CUA_GPU_MAX_SINKS];
static unsigned nsinks;
/* Kernel name pointer -> index in tot->kernels (deliver, under totals_lock). */
static struct name_hit {
	const char *name;
	unsigned index;
} name_cache[256];
static uint64_t drain_registered_pid;
static __thread uint64_t sample_tick __attribute__((tls_model("initial-exec")));

/* ---------------------------------------------------------------- driver calls */

/* cuaudit's own driver calls go to the real functions (never through a wrapper, so no hook
   sees them) and leave the program's errno as it was: the driver writes the program's
   errno, which is not the audit namespace's. */
#define REAL(elf) ((__typeof__(&elf))cua_index_real(CUAUDIT_ID_##elf))

static int *program_errno_slot(void)
{
	return cua_program_errno ? cua_program_errno() : NULL;
}

/* Where a call record may lie above another of the same thread's calls made from the same
   place in the program: wrappers' frames differ by less than this. A signal handler's
   calls lie below the signal frame the kernel pushed, more than 1 KiB on x86-64 and
   AArch64. */
#define CALL_FRAME_SLACK 256u

/* Whether something this thread began at stack address frame (its low 32 bits) when it
   had begun serial handlers (a timed call's record, a hold of a lock) was left by a jump
   out of a signal handler, seen from code of the same thread at here: no handler begun
   since is still running (cua_sig_settle first forgets those a jump has left), and here
   lies at or above frame, so that frame is gone. What is still in progress is never taken
   for left: a handler the trampoline runs inside it is counted, and any other handler's
   code lies below it on the same stack; one left for code deeper in the stack waits for
   code from higher up. */
static int left_since(uint32_t frame, uint32_t serial, uintptr_t here)
{
	unsigned n = cua_sig_settle(here);

	if (n > CUA_SIG_FRAMES || (n && (int32_t)(cua_self.sig[n - 1].serial - serial) > 0))
		return 0;
	return (int32_t)((uint32_t)here - frame) + (int32_t)CALL_FRAME_SLACK >= 0;
}

/* The locks. No lock here may be met by a signal handler or exit on the thread that
   holds it, and none may be held by a thread a forked child lacks: a lock word holds its
   holder's process and thread ids, and a child takes over a lock a thread of its parent
   held at the fork. A thread that finds its own id there asks the holder's mark, as a
   timed record's own thread does (left_since): a holder still running below it (a
   handler's call, or exit, interrupting the hook) is given up on at once; a hold a jump
   out of a handler left (siglongjmp) is taken over, and its taker makes what it guarded
   consistent (LOCK_TAKEN_OVER). A hold is never unmarked: it begins and ends with one
   instruction that writes the key and the mark together (cas_pair). Another thread's lock is waited for at most LOCK_WAIT_NS; other
   threads cannot see the holder's stack, so an abandoned hold stands until its own
   thread's next call here takes it over, and the first waiter that waits in vain marks
   the hold stale: later waiters give it up without waiting while the same hold stands.
   Whoever gives up counts the call untimed (busy). */
#define LOCK_WAIT_NS (20ull * 1000 * 1000)

enum { LOCK_NOT = 0, LOCK_TAKEN = 1, LOCK_TAKEN_OVER = 2 };

static uint64_t lock_key(void)
{
	return cua_process_id_fast() << 32 | (cua_thread_id_fast() & 0xffffffffu);
}

/* The mark of a hold beginning at here: an address in the caller's frame (its call record
   where it has one). */
static uint64_t mark_at(uintptr_t here)
{
	return (uint64_t)cua_self.sig_serial << 32 | ((uint32_t)here | 1u);
}

/* A hold of this thread's taken over: only this thread writes the mark while the key is its
   own, and a jump before this store leaves the old mark, which still says left. */
static void mark(struct glock *l, uintptr_t here)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&l->mark, mark_at(here), __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

#if !defined(__x86_64__)
#error "the GPU timing's locks take their key and mark in one cmpxchg16b: x86-64 only"
#endif
/* Where l's key and mark are *key and *mark, makes them nkey and nmark, in one locked
   instruction: 1. Else 0, with *key and *mark the pair as it was, read in that instruction. */
static int cas_pair(struct glock *l, uint64_t *key, uint64_t *mark, uint64_t nkey,
		    uint64_t nmark)
{
	unsigned char ok;

	__asm__ volatile("lock cmpxchg16b %1\n\tsetz %0"
			 : "=q"(ok), "+m"(l->key), "+m"(l->mark), "+a"(*key), "+d"(*mark)
			 : "b"(nkey), "c"(nmark)
			 : "memory", "cc");
	return ok;
}

/* A hold of this thread's, marked m, that a jump left. */
static CUA_COLD int hold_left(uint64_t m, uintptr_t here)
{
	return (m & 1) && here && left_since((uint32_t)m & ~1u, (uint32_t)(m >> 32), here);
}

/* A hold of this thread's that a jump left is taken over: a switch of its capture mode made
   under it (relax) is undone. */
static CUA_COLD void switch_left(struct glock *l)
{
	CUresult (*exchange)(CUstreamCaptureMode *) = REAL(cuThreadExchangeStreamCaptureMode);

	if (!l->switched)
		return;
	if (l->back != CU_STREAM_CAPTURE_MODE_RELAXED && exchange)
		exchange(&l->back);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	l->switched = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* LOCK_TAKEN, LOCK_TAKEN_OVER (from an abandoned hold of this thread), or LOCK_NOT: held
   by this thread below, or by another past wait_ns (or a hold already found stale). */
static int lock_within(struct glock *l, uint64_t wait_ns, uintptr_t here)
{
	uint64_t me = lock_key(), m = mark_at(here), held, hmark, deadline = 0, now, seen = 0;

	for (unsigned spins = 0;; spins++) {
		held = hmark = 0;
		if (cas_pair(l, &held, &hmark, me, m))
			return LOCK_TAKEN;
		if (held == me) {
			if (!hold_left(hmark, here))
				return LOCK_NOT;
			mark(l, here);
			switch_left(l);
			return LOCK_TAKEN_OVER;
		}
		/* Held at a fork by a thread of the parent: it will never be released here. */
		if (held >> 32 != me >> 32) {
			if (!cas_pair(l, &held, &hmark, me, m))
				continue;
			/* A switch of a thread of the parent's: not this thread's mode. */
			l->switched = 0;
			return LOCK_TAKEN;
		}
		seen = held ^ hmark;
		if (!spins && seen == __atomic_load_n(&l->stale, __ATOMIC_RELAXED))
			return LOCK_NOT;
		if (spins < 100) {
			__builtin_ia32_pause();
			continue;
		}
		now = cua_clock_ns();
		if (!deadline) {
			deadline = now + wait_ns;
		} else if (now >= deadline) {
			if (wait_ns >= LOCK_WAIT_NS &&
			    (__atomic_load_n(&l->key, __ATOMIC_RELAXED) ^
			     __atomic_load_n(&l->mark, __ATOMIC_RELAXED)) == seen)
				__atomic_store_n(&l->stale, seen, __ATOMIC_RELAXED);
			return LOCK_NOT;
		}
		/* The holder may be preempted on a loaded machine: let it run. */
		sched_yield();
	}
}

/* stale first: a later hold may carry the same key and mark (the same thread, from the same
   place, with no handler run between). Then the key and the mark together: the pair is this
   thread's, and a handler running on it meanwhile gives it back as it found it. */
static void unlock(struct glock *l)
{
	uint64_t key = l->key, m = l->mark;

	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&l->stale, 0, __ATOMIC_RELAXED);
	cas_pair(l, &key, &m, 0, 0);
}

static void *map_zeroed(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* ---------------------------------------------------------------- state */

/* A forked child starts empty: its parent's events and records are not its own. The old
   mappings are kept (the parent's memory, copied), never reused. The setup lock may have
   been held at the fork: the child takes it over (lock_within); one a jump left half
   done is done again (what was mapped before is left). */
static CUA_COLD int make_state(uintptr_t here)
{
	uint64_t pid = cua_process_id();

	if (!lock_within(&setup_lock, LOCK_WAIT_NS, here))
		return 0;
	if (owner_pid != pid || !ctxs) {
		struct gctx *c = map_zeroed(CTXS * sizeof(*c));
		struct cua_gpu_totals *t = map_zeroed(sizeof(*t));

		if (!c || !t) {
			unlock(&setup_lock);
			return 0;
		}
		t->sample = cfg.sample;
		memset(covered_min, 0, sizeof(covered_min));
		memset(covered_max, 0, sizeof(covered_max));
		memset(name_cache, 0, sizeof(name_cache));
		captures = 0;
		/* A thread of the parent may have held it: this process's state is new. */
		memset(&totals_lock, 0, sizeof(totals_lock));
		tot = t;
		__atomic_store_n(&ctxs, c, __ATOMIC_RELEASE);
		__atomic_store_n(&owner_pid, pid, __ATOMIC_RELEASE);
	}
	unlock(&setup_lock);
	return 1;
}

CUA_HOT_INLINE int own_state(uintptr_t here)
{
	if (CUA_LIKELY(__atomic_load_n(&owner_pid, __ATOMIC_ACQUIRE) == cua_process_id_fast() &&
		       ctxs))
		return 1;
	return make_state(here);
}

/* Without a lock: a handler or exit may count while its thread is inside the hook. */
static void count_untimed(unsigned why)
{
	__atomic_add_fetch(&tot->untimed[why], 1, __ATOMIC_RELAXED);
}

/* A hold of the pool's lock that a jump out of a signal handler left (lock_within): what
   it may have left half done is made consistent. Every stream's last record is forgotten
   (the holder may have been forgetting them, or taking one). A harvest caught between a
   record's first update of the time base and the record's leaving the ring leaves the time
   base unknown: it starts over at an anchor recorded at once, and the records harvested
   before that anchor are counted lost. An anchor still in its record call will never be
   marked: it is void. Lock held. */
static CUA_COLD void repair(struct gctx *g)
{
	__atomic_store_n(&g->dirty, 1, __ATOMIC_RELEASE);
	if (g->commit && g->commit == g->tail) {
		g->have_ref = g->have_off = 0;
		g->lo_at = 0;
		g->last_anchor = 0;
	}
	g->commit = 0;
	for (uint64_t q = g->tail; q < g->head; q++) {
		struct rec *r = &g->ring[q % POOL];

		if (r->seq == q && !r->tid && __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == R_IN_CALL)
			__atomic_store_n(&r->state, R_VOID, __ATOMIC_RELEASE);
	}
}

/* The pool's lock (lock_within), made consistent where it was taken over. 1: held. */
static int pool_lock(struct gctx *g, uint64_t wait_ns, uintptr_t here)
{
	int r = lock_within(&g->lock, wait_ns, here);

	if (CUA_UNLIKELY(r == LOCK_TAKEN_OVER))
		repair(g);
	return r != LOCK_NOT;
}

static void anchor(struct gctx *g, uint64_t now);

static void drain_at_program_exit(void *arg)
{
	(void)arg;
	cua_gpu_drain();
}

/* The drain must run while the driver and its contexts still exist: the module's own exit
   work runs after the program's libraries are finalized (and the runtime has destroyed its
   contexts). Registered with the program's C library after the first context is seen, so
   it runs before the runtime's exit teardown, which registered earlier. */
static void register_drain(void)
{
	uint64_t pid = cua_process_id();

	if (drain_registered_pid != pid && cua_program_cxa_atexit) {
		drain_registered_pid = pid;
		cua_program_cxa_atexit(drain_at_program_exit, NULL, NULL);
	}
}

static int setup(struct gctx *g)
{
	CUresult (*create)(CUevent *, unsigned) = REAL(cuEventCreate);
	CUresult (*screate)(CUstream *, unsigned) = REAL(cuStreamCreate);
	CUresult (*getdev)(CUdevice_v1 *) = REAL(cuCtxGetDevice);
	CUresult (*getname)(char *, int, CUdevice_v1) = REAL(cuDeviceGetName);
	static const char mock[] = "cuaudit mock GPU";
	char name[64] = "";
	CUdevice_v1 dev = 0;
	unsigned n;

	if (!create || !screate || !REAL(cuEventRecord) || !REAL(cuEventQuery))
		return -1;

	if (getdev && getdev(&dev) == CUDA_SUCCESS && dev >= 0 && dev < CUA_GPU_MAX_DEVICES)
		g->device = (unsigned)dev;
	/* tests/mock names its device so: its GPU times are made up, and every output that
	   carries them says so. */
	if (getname && getname(name, sizeof(name), dev) == CUDA_SUCCESS &&
	    strncmp(name, mock, sizeof(mock) - 1) == 0)
		__atomic_store_n(&tot->synthetic, 1, __ATOMIC_RELAXED);
	if (screate(&g->priv, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
		return -1;
	for (unsigned i = 0; i < POOL; i++)
		if (create(&g->end[i], CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
		    create(&g->start[i], CU_EVENT_DEFAULT) != CUDA_SUCCESS)
			return -1;
	n = __atomic_load_n(&tot->ndevices, __ATOMIC_RELAXED);
	while (g->device + 1 > n && !__atomic_compare_exchange_n(&tot->ndevices, &n, g->device + 1, 0,
								  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	return 0;
}

/* While a capture may be open (one was begun and its end not yet seen; a program may also
   abandon one), cuaudit's own calls that a global-mode capture forbids (a stream
   creation, an event query) run in the relaxed capture mode, which no capture forbids: they
   neither end the program's capture nor wait for its end to be seen. 1 or 2: relaxed
   (unrelax restores the mode); 0: no capture seen; -1: the mode cannot be changed, so the
   caller makes none of those calls. l: the lock the caller holds, which every switch is
   made under.

   The mode is the thread's, and a jump out of a signal handler (siglongjmp) between the
   switch and its undoing would leave the program's thread relaxed: its later captures
   would accept calls they must refuse. So a switch keeps the mode to put back in the held
   lock (switched, back), where the driver writes it itself, in and out (the exchange's
   pointer): at every instruction back holds what the thread's mode must become (RELAXED:
   nothing to undo). A hold a jump left is taken over by its thread's next take of that
   lock (lock_within), which puts the mode back (switch_left). No TLS: the module's static
   TLS is at its bound. */
static int relax(struct glock *l, CUstreamCaptureMode *mode)
{
	CUresult (*exchange)(CUstreamCaptureMode *) = REAL(cuThreadExchangeStreamCaptureMode);
	CUresult rc;

	if (!__atomic_load_n(&captures, __ATOMIC_ACQUIRE))
		return 0;
	if (!exchange)
		return -1;
	*mode = CU_STREAM_CAPTURE_MODE_RELAXED;
	if (l->switched)
		return exchange(mode) == CUDA_SUCCESS ? 1 : -1;
	l->back = CU_STREAM_CAPTURE_MODE_RELAXED;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	l->switched = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rc = exchange(&l->back);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (rc == CUDA_SUCCESS)
		return 2;
	l->switched = 0;
	return -1;
}

static void unrelax(struct glock *l, int relaxed, CUstreamCaptureMode *mode)
{
	if (relaxed == 1)
		REAL(cuThreadExchangeStreamCaptureMode)(mode);
	if (relaxed != 2)
		return;
	REAL(cuThreadExchangeStreamCaptureMode)(&l->back);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	l->switched = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* Whether an event call's failure says the pool's context is gone (destroyed, reset, a
   sticky error): anything but "not ready" and the capture errors. */
static int pool_dead(CUresult rc)
{
	return rc != CUDA_SUCCESS && rc != CUDA_ERROR_NOT_READY &&
	       !(rc >= CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED && rc <= CUDA_ERROR_CAPTURED_EVENT);
}

/* A pool whose context is gone: no driver call names its events again, and its context's
   next call sets up a new pool (after a device reset, timing would otherwise go on calling
   the destroyed context's events and stop for good). */
static void retire(struct gctx *g)
{
	int ready = G_READY;

	__atomic_compare_exchange_n(&g->ready, &ready, G_RETIRED, 0, __ATOMIC_ACQ_REL,
				    __ATOMIC_RELAXED);
}

/* The driver that made every pool's events is being unloaded (la_objclose of the owning
   libcuda): its events, streams and contexts die with it, and a driver loaded again may hand
   out the same context handle. Every pool is retired, so that no event of the old driver is
   named again (a new driver's elapsed time between an old and a new event would time the
   new work from the old work's end: a kernel shown exact at 0 ns) and the context's next
   call sets up a new pool; a pool whose setup failed is retired too (the new driver may set
   one up). Records not yet harvested are counted lost at the next harvest or claim. */
void cua_gpu_driver_closed(void)
{
	struct gctx *all = __atomic_load_n(&ctxs, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; all && i < CTXS; i++) {
		struct gctx *g = &all[i];
		int ready = __atomic_load_n(&g->ready, __ATOMIC_ACQUIRE);

		if (ready == G_READY || ready == G_FAILED)
			__atomic_compare_exchange_n(&g->ready, &ready, G_RETIRED, 0, __ATOMIC_ACQ_REL,
						    __ATOMIC_RELAXED);
	}
}

/* A retired pool's records, counted lost without a driver call, up to the first call still
   in flight (its exit counts it). Lock held. */
static void drop(struct gctx *g)
{
	while (g->tail < g->head) {
		struct rec *r = &g->ring[g->tail % POOL];
		uint8_t st = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);

		if (r->seq != g->tail || st == R_IN_CALL)
			break;
		/* Out of the ring before it is counted: a jump in between loses a count, never
		   makes two. */
		g->tail++;
		r->state = R_FREE;
		if (st == R_RECORDED && r->op != OP_ANCHOR)
			count_untimed(CUA_GPU_LOST);
	}
}

/* A slot for a new pool: a free one, or a retired one with no call in flight, emptied.
   Setup lock held. A free slot is emptied too: a setup a jump left may have begun there. */
static struct gctx *claim(uintptr_t here)
{
	for (unsigned i = 0; i < CTXS; i++)
		if (!__atomic_load_n(&ctxs[i].ctx, __ATOMIC_ACQUIRE)) {
			struct gctx *g = &ctxs[i];

			__atomic_store_n(&g->ready, G_UNSET, __ATOMIC_RELEASE);
			g->dirty = g->abandoned = 0;
			memset(&g->priv, 0, sizeof(*g) - offsetof(struct gctx, priv));
			return g;
		}
	for (unsigned i = 0; i < CTXS; i++) {
		struct gctx *g = &ctxs[i];

		if (__atomic_load_n(&g->ready, __ATOMIC_ACQUIRE) != G_RETIRED ||
		    !pool_lock(g, 0, here))
			continue;
		drop(g);
		if (g->tail == g->head) {
			/* A thread that found it before it was retired checks, under the lock,
			   that it is still its context's and ready. */
			__atomic_store_n(&g->ctx, NULL, __ATOMIC_RELEASE);
			__atomic_store_n(&g->ready, G_UNSET, __ATOMIC_RELEASE);
			g->dirty = g->abandoned = 0;
			memset(&g->priv, 0, sizeof(*g) - offsetof(struct gctx, priv));
			unlock(&g->lock);
			return g;
		}
		unlock(&g->lock);
	}
	return NULL;
}

/* The pool of the current context (*ctx_out), set up at its first timed call; NULL without
   one, and *why says why. */
static struct gctx *context(void **ctx_out, unsigned *why, uintptr_t here)
{
	CUresult (*current)(CUcontext *) = REAL(cuCtxGetCurrent);
	CUcontext ctx = NULL;
	CUstreamCaptureMode mode;
	struct gctx *g = NULL;
	int relaxed;

	*why = CUA_GPU_NO_CONTEXT;
	if (!current || current(&ctx) != CUDA_SUCCESS || !ctx)
		return NULL;
	*ctx_out = ctx;
	for (unsigned i = 0; i < CTXS; i++) {
		void *c = __atomic_load_n(&ctxs[i].ctx, __ATOMIC_ACQUIRE);
		int ready = __atomic_load_n(&ctxs[i].ready, __ATOMIC_ACQUIRE);

		if (c == (void *)ctx && ready != G_RETIRED)
			return ready == G_READY ? &ctxs[i] : NULL;
	}
	if (!lock_within(&setup_lock, LOCK_WAIT_NS, here)) {
		*why = CUA_GPU_BUSY;
		return NULL;
	}
	for (unsigned i = 0; i < CTXS && !g; i++)
		if (ctxs[i].ctx == (void *)ctx &&
		    __atomic_load_n(&ctxs[i].ready, __ATOMIC_ACQUIRE) != G_RETIRED)
			g = &ctxs[i];
	/* A stream created while another thread captures in the global mode would end that
	   capture: relaxed, or not at all. */
	if (!g && (relaxed = relax(&setup_lock, &mode)) >= 0) {
		g = claim(here);
		if (g) {
			int ready = setup(g) == 0 ? G_READY : G_FAILED;

			if (ready == G_READY) {
				anchor(g, cua_clock_ns());
				register_drain();
			}
			__atomic_store_n(&g->ready, ready, __ATOMIC_RELEASE);
			__atomic_store_n(&g->ctx, (void *)ctx, __ATOMIC_RELEASE);
		}
		unrelax(&setup_lock, relaxed, &mode);
	}
	unlock(&setup_lock);
	return g && __atomic_load_n(&g->ready, __ATOMIC_ACQUIRE) == G_READY ? g : NULL;
}

/* The handle to record on, and a key naming the stream: the per-thread default stream is
   one per thread. */
static void *stream_key(void *stream, int flavour, CUstream *handle)
{
	uintptr_t s = (uintptr_t)stream;

	if ((s == 0 && flavour == CUAUDIT_STREAM_PER_THREAD) || s == (uintptr_t)CU_STREAM_PER_THREAD) {
		*handle = CU_STREAM_PER_THREAD;
		return (void *)(uintptr_t)(cua_thread_id_fast() << 4 | 2);
	}
	if (s == 0 || s == (uintptr_t)CU_STREAM_LEGACY) {
		*handle = CU_STREAM_LEGACY;
		return (void *)(uintptr_t)1;
	}
	*handle = (CUstream)stream;
	return stream;
}

static struct stream_slot *stream_of(struct gctx *g, void *key)
{
	uint64_t k = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;

	for (unsigned i = 0, h = (unsigned)(k >> 40) & (STREAMS - 1); i < STREAMS;
	     i++, h = (h + 1) & (STREAMS - 1)) {
		if (g->streams[h].key == key)
			return &g->streams[h];
		if (!g->streams[h].key) {
			g->streams[h].key = key;
			return &g->streams[h];
		}
	}
	return NULL;
}

/* ---------------------------------------------------------------- harvesting */

/* One duration into a row: its least and greatest values, and whether they are one. */
static void add_span(struct cua_gpu_span *sp, uint64_t dmin, uint64_t dmax, int exact)
{
	cua_stats_add(&sp->lo, dmin, 0, CUAUDIT_BIND_COUNT);
	cua_stats_add(&sp->hi, dmax, 0, CUAUDIT_BIND_COUNT);
	if (exact) {
		sp->exact_n++;
		sp->exact_ns += dmax;
	}
}

/* Busy time: the union of intervals, in the order they are harvested. */
static void add_busy(uint64_t *busy, uint64_t *cov, uint64_t start, uint64_t end)
{
	if (start >= *cov)
		*busy += end - start;
	else if (end > *cov)
		*busy += end - *cov;
	if (end > *cov)
		*cov = end;
}

static void deliver(struct gctx *g, const struct rec *r, uint64_t start, uint64_t start_max,
		    uint64_t end, int exact)
{
	struct cua_gpu_record out = {
		.correlation_id = r->corr, .thread_id = r->tid,
		/* Inside the call's slice on the trace, for the flow arrow's start: the middle
		   of the call's own two times, which the record's bounds are (gpu_exit). */
		.call_ns = r->t_submit + (r->t_after - r->t_submit) / 2,
		.start_ns = start, .start_max_ns = start_max, .end_ns = end, .exact = exact,
		.bytes = r->bytes, .name = r->name, .stream = r->stream_key, .api_id = r->id,
		.device = g->device, .op = (enum cua_gpu_op)r->op,
	};
	uint64_t dmax = end - start, dmin = end - start_max;
	int taken = lock_within(&totals_lock, LOCK_WAIT_NS, (uintptr_t)&out);

	if (!taken) {
		count_untimed(CUA_GPU_BUSY);
		return;
	}
	/* A jump out of a handler left a delivery here (this thread's): it was not counted
	   timed (that comes last), and what it added may be half added. */
	if (CUA_UNLIKELY(taken == LOCK_TAKEN_OVER))
		count_untimed(CUA_GPU_LOST);
	if (r->op == CUA_GPU_KERNEL || r->op == CUA_GPU_GRAPH) {
		const char *name = r->op == CUA_GPU_GRAPH ? graph_name : r->name ? r->name : "(unknown)";
		unsigned i;

		/* The registry's names live as long as the process, one pointer a name: a
		   pointer-keyed cache answers most records without a scan of strcmp. */
		unsigned h = (unsigned)(((uintptr_t)name >> 4) * 0x9e3779b1u) >> 24;

		if (name_cache[h].name == name)
			i = name_cache[h].index;
		else {
			for (i = 0; i < tot->nkernels && strcmp(tot->kernels[i].name, name) != 0; i++)
				;
			/* The name before the count: an exit on this thread may read them. */
			if (i == tot->nkernels && i < CUA_GPU_MAX_KERNELS) {
				tot->kernels[i].name = name;
				__atomic_store_n(&tot->nkernels, i + 1, __ATOMIC_RELEASE);
			}
			if (i < CUA_GPU_MAX_KERNELS)
				name_cache[h] = (struct name_hit){ name, i };
		}
		if (i < CUA_GPU_MAX_KERNELS)
			add_span(&tot->kernels[i].time, dmin, dmax, exact);
	} else {
		add_span(&tot->mem_time[r->op], dmin, dmax, exact);
		cua_stats_add(&tot->mem_size[r->op], r->bytes, 0, CUAUDIT_BIND_COUNT);
	}
	add_busy(&tot->busy_min_ns[g->device], &covered_min[g->device], start_max, end);
	add_busy(&tot->busy_max_ns[g->device], &covered_max[g->device], start, end);
	/* r->live is set only while the view is on (fixed before the first call). */
	if (CUA_UNLIKELY(cua_live_on) && r->live)
		cua_live_put_gpu(r->live, r->live_seq, dmax, exact);
	for (unsigned i = 0; i < nsinks; i++)
		sinks[i].fn(&out, sinks[i].ctx);
	tot->timed++;
	unlock(&totals_lock);
}

/* The GPU time of event ev, from the last harvested event: CUDA_SUCCESS, or the driver's
   error (CUDA_ERROR_NOT_READY while ev has not completed: the elapsed-time call answers for
   the query it makes unnecessary). */
static CUresult time_of(struct gctx *g, CUevent ev, int64_t *gpu)
{
	CUresult (*elapsed)(float *, CUevent, CUevent) = REAL(cuEventElapsedTime_v2);
	float ms = 0;
	CUresult rc;

	if (!elapsed)
		elapsed = REAL(cuEventElapsedTime);
	if (!elapsed)
		return CUDA_ERROR_NOT_SUPPORTED;
	if (!g->have_ref)
		return CUDA_ERROR_INVALID_HANDLE;
	rc = elapsed(&ms, g->end[g->ref_seq % POOL], ev);
	if (rc == CUDA_SUCCESS)
		*gpu = g->ref_gpu + (int64_t)((double)ms * 1e6);
	return rc;
}

/* How far a host time read from the GPU clock may be off at host time t. */
static uint64_t uncertainty(const struct gctx *g, uint64_t t)
{
	uint64_t since = t > g->off_at ? t - g->off_at : g->off_at - t;

	return g->off_err + since / DRIFT_DIV;
}

static uint64_t drift(uint64_t a, uint64_t b)
{
	return (a > b ? a - b : b - a) / DRIFT_DIV;
}

/* An event whose record call began at host time t0, returned at t1, and which the GPU
   stamped at gpu. */
static void note_lo(struct gctx *g, uint64_t t0, uint64_t t1, int64_t gpu)
{
	int64_t cand = (int64_t)t0 - gpu;

	if (!g->lo_at || cand >= g->lo_off - (int64_t)drift(t0, g->lo_at)) {
		g->lo_off = cand;
		g->lo_at = t0;
		g->lo_mid_at = t0 + (t1 - t0) / 2;
		g->lo_mid_off = (int64_t)g->lo_mid_at - gpu;
		g->lo_err = (t1 - t0 + 1) / 2;
	}
}

/* The lower bound of the offset at host time t: lo_off less the drift since. */
static int64_t lower_bound(const struct gctx *g, uint64_t t)
{
	return g->lo_off - (int64_t)drift(t, g->lo_at);
}

/* A host time no later than the true host time of GPU time gpu (lo_off, less the drift
   allowed since it was taken). */
static uint64_t host_lo(const struct gctx *g, int64_t gpu)
{
	int64_t h = gpu + g->lo_off;
	uint64_t hu = h > 0 ? (uint64_t)h : 0;

	return hu > drift(hu, g->lo_at) ? hu - drift(hu, g->lo_at) : 0;
}

/* A harvested anchor: the reference from now on, and the host-to-GPU mapping if it is at
   least as certain as the one in use (with that one's drift since): an anchor whose record
   call was preempted moves nothing. An event is stamped no earlier than its record call
   began, but a GPU time-sliced with another context may stamp it a slice late (intervals
   placed by such an anchor would end too early): an anchor whose whole uncertainty lies
   below the greatest lower bound of the offset seen is late and is never the mapping, and a
   mapping found late by a later anchor gives way to the anchor of that bound. */
static void take_anchor(struct gctx *g, const struct rec *r, int64_t gpu)
{
	uint64_t mid = r->t_submit + (r->t_after - r->t_submit) / 2;
	uint64_t err = (r->t_after - r->t_submit + 1) / 2;
	int64_t off = (int64_t)mid - gpu, bound;
	int late;

	note_lo(g, r->t_submit, r->t_after, gpu);
	bound = lower_bound(g, mid);
	late = off + (int64_t)err < bound;
	if (!late && (!g->have_off || err <= uncertainty(g, mid))) {
		g->off = off;
		g->off_err = err;
		g->off_at = mid;
		g->have_off = 1;
	} else if (g->have_off && g->off + (int64_t)uncertainty(g, mid) < bound) {
		g->off = g->lo_mid_off;
		g->off_err = g->lo_err;
		g->off_at = g->lo_mid_at;
	}
	g->ref_seq = g->tail;
	g->ref_gpu = gpu;
	g->have_ref = 1;
}

static uint64_t host_of(const struct gctx *g, int64_t gpu)
{
	int64_t h = gpu + g->off;

	return h > 0 ? (uint64_t)h : 0;
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* A record's duration, from its end event at GPU time end and p, the GPU time its stream
   reached it (the previous record's end, or its own start event; p_known 0: unknown), with
   the host times of the call's entry and return and of its end event's record:
   - exact by stream order where p lies after the end event's record returned: the stream
     was still busy with earlier work, so the work ran from p to its end event (its error:
     the GPU's gap between the earlier command and the work, and the events' resolution);
   - the start: where the stream was still busy when the call returned (p after it), the
     work started at p; otherwise no earlier than max(p, entry) and no later than max(p,
     return): the launch reaches the GPU inside the call (docs/hooks.md, docs/facts.md 9);
   - the end: where the stream was still busy when the end event was recorded (the event
     stamped well after its record), the event is the work's end; otherwise the work may
     have ended any time before it (a short kernel ends before its launch returns), and
     the least duration is 0.
   Exact where both are. Host and GPU times are compared with the mapping's uncertainty
   on the safe side. */
static int bound(const struct gctx *g, const struct rec *r, int64_t end, int64_t p, int p_known,
		 uint64_t *dmin, uint64_t *dmax)
{
	uint64_t end_h = host_of(g, end), eps = uncertainty(g, end_h);
	uint64_t dp = p_known && end > p ? (uint64_t)(end - p) : 0;
	/* What is proven is read through host_lo, never later than the truth. */
	int start_exact = p_known && host_lo(g, p) > r->t_after;
	int end_exact = host_lo(g, end) > r->t_end_rec + SUBMIT_SLACK_NS;
	/* Stream order: the work before it was still running when the end event's record
	   returned, so the work and its end event were both queued behind it: the work started
	   at p and the event is its end, whatever the submission latency. */
	int queued = p_known && host_lo(g, p) > r->t_end_rec;

	if (queued || (start_exact && end_exact)) {
		*dmin = *dmax = dp;
		return 1;
	}
	*dmax = start_exact ? dp : sub0(end_h + eps, r->t_submit);
	if (p_known && dp < *dmax)
		*dmax = dp;
	*dmin = 0;
	if (end_exact) {
		*dmin = sub0(end_h, r->t_after + eps + EVENT_SLACK_NS);
		if (p_known && dp < *dmin)
			*dmin = dp;
	}
	if (*dmin > *dmax)
		*dmin = *dmax;
	return 0;
}

/* A record still in its call whose thread has left that call: a signal handler jumped
   out of it (siglongjmp) between its enter and exit callbacks, which no exit will now
   mark. Only its own thread can tell (left_since), at a later timed call whose record
   lies at here. */
static int left_call(const struct rec *r, uintptr_t here)
{
	if (!here || !r->tid || r->tid != cua_thread_id_fast())
		return 0;
	return left_since(r->frame, r->sig_serial, here);
}

/* The record at the tail, still in its call, when its call was abandoned (left_call):
   counted untimed, since whether its work ran is not known, and the next call on its
   stream does not start where it ends. 1: it was, and the harvest moves on. Lock held. */
static CUA_COLD int give_up_tail(struct gctx *g, uintptr_t here)
{
	struct rec *r = &g->ring[g->tail % POOL];
	struct stream_slot *s;

	if (r->seq != g->tail || __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != R_IN_CALL ||
	    !left_call(r, here))
		return 0;
	s = stream_of(g, r->stream_key);
	if (s && s->last_seq == r->seq)
		s->last_seq = 0;
	g->tail++;
	r->state = R_FREE;
	count_untimed(CUA_GPU_LOST);
	return 1;
}

/* One record at the tail: 1 harvested (or dropped), 0 not done yet, -1 the pool's context
   is gone (the record stays, for drop to count). Lock held. A timed
   record costs one driver call when done (its end's elapsed time from the reference, which
   says "not ready" where a query would), and one while not done: the elapsed-time call is
   the query (a query and an elapsed time per record would cost two). */
static int harvest_one(struct gctx *g, CUresult (*query)(CUevent))
{
	struct rec *r = &g->ring[g->tail % POOL];
	unsigned slot = (unsigned)(g->tail % POOL);
	int64_t end = 0, p = 0;
	uint64_t dmin, dmax, end_h;
	int p_known = 0, exact;
	struct stream_slot *s;
	CUresult q;
	/* Written by the call's exit without the lock: its fields before its state. */
	uint8_t st = r->seq == g->tail ? __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) : R_IN_CALL;

	if (st == R_IN_CALL)
		return 0;
	if (st == R_VOID) {
		g->tail++;
		r->state = R_FREE;
		return 1;
	}
	/* The first anchor has no reference to be timed from: it is GPU time 0. */
	q = r->op == OP_ANCHOR && !g->have_ref ? query(g->end[slot]) : time_of(g, g->end[slot], &end);
	if (q == CUDA_ERROR_NOT_READY)
		return 0;
	if (pool_dead(q))
		return -1;
	if (q != CUDA_SUCCESS || (r->op != OP_ANCHOR && !g->have_off)) {
		g->tail++;
		r->state = R_FREE;
		if (r->op != OP_ANCHOR)
			count_untimed(CUA_GPU_LOST);
		return 1;
	}
	if (r->op == OP_ANCHOR) {
		/* The time base is updated from here until the record leaves the ring (repair). */
		g->commit = g->tail;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		take_anchor(g, r, end);
		g->tail++;
		r->state = R_FREE;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		g->commit = 0;
		return 1;
	}
	if (!r->prev_seq) {
		p_known = time_of(g, g->start[slot], &p) == CUDA_SUCCESS;
	} else {
		s = stream_of(g, r->stream_key);
		p_known = s && s->done_seq == r->prev_seq;
		p = p_known ? s->done_end_gpu : 0;
	}
	g->commit = g->tail;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* Its end event's record call began after the call returned (t_after). */
	note_lo(g, r->t_after, r->t_end_rec > r->t_after ? r->t_end_rec : r->t_after, end);
	exact = bound(g, r, end, p, p_known, &dmin, &dmax);
	g->ref_seq = g->tail;
	g->ref_gpu = end;
	s = stream_of(g, r->stream_key);
	if (s) {
		s->done_seq = r->seq;
		s->done_end_gpu = end;
	}
	end_h = host_of(g, end);
	/* Out of the ring before it is delivered: a jump in between loses it, never counts
	   it twice; one inside the delivery is counted there (deliver). The slot is not taken
	   again while the lock is held. */
	g->tail++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	deliver(g, r, sub0(end_h, dmax), sub0(end_h, dmin), end_h, exact);
	r->state = R_FREE;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	g->commit = 0;
	return 1;
}

/* Harvests up to max completed records in order; never waits. Lock held; here: the
   calling thread's own timed call, whose record lies there on its stack (0: none), to
   give up a record of its thread at the tail whose call it has left (give_up_tail). */
static void harvest(struct gctx *g, unsigned max, uintptr_t here)
{
	CUresult (*query)(CUevent) = REAL(cuEventQuery);
	CUstreamCaptureMode mode;
	int relaxed, r = 1;

	if (__atomic_load_n(&g->ready, __ATOMIC_ACQUIRE) == G_RETIRED) {
		drop(g);
		return;
	}
	/* An event query while a stream captures in the global mode may end that capture. */
	if (!query || (relaxed = relax(&g->lock, &mode)) < 0)
		return;
	for (unsigned i = 0; i < max && g->tail < g->head; i++)
		if ((r = harvest_one(g, query)) <= 0 && (r < 0 || !here || !give_up_tail(g, here)))
			break;
	unrelax(&g->lock, relaxed, &mode);
	if (r < 0) {
		retire(g);
		drop(g);
	}
}

/* A free slot, or 0 when the pool is full; the reference event's slot stays in use.
   frame: where the call's record lies on its thread's stack (left_call); 0 for an
   anchor. */
static uint64_t take_slot(struct gctx *g, uintptr_t frame, uint64_t tid)
{
	uint64_t seq;

	if (g->head - (g->ref_seq ? g->ref_seq : 1) + 1 >= POOL)
		return 0;
	seq = g->head;
	g->ring[seq % POOL] = (struct rec){ .seq = seq, .state = R_IN_CALL };
	if (frame) {
		g->ring[seq % POOL].frame = (uint32_t)frame;
		g->ring[seq % POOL].tid = tid;
		g->ring[seq % POOL].sig_serial = cua_self.sig_serial;
	}
	/* In the ring once whole (what it is for, tid 0 for an anchor, included): a jump
	   never leaves a record a harvest cannot tell. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	g->head = seq + 1;
	return seq;
}

/* An event on cuaudit's own stream, read as "now" on the host clock when it completes.
   Lock held, or the context not yet published. */
static void anchor(struct gctx *g, uint64_t now)
{
	CUresult (*record)(CUevent, CUstream) = REAL(cuEventRecord);
	uint64_t seq, t0;
	struct rec *r;
	CUresult rc;

	if (!g->head)
		g->head = g->tail = 1;
	seq = take_slot(g, 0, 0);
	if (!seq)
		return;
	r = &g->ring[seq % POOL];
	r->op = OP_ANCHOR;
	/* The host time of the record call itself, not of the caller's earlier clock read: a
	   harvest or a wait for the lock in between would put every GPU time after this anchor
	   that much too early. */
	t0 = cua_clock_ns();
	r->t_submit = t0;
	rc = record(g->end[seq % POOL], g->priv);
	if (pool_dead(rc))
		retire(g);
	r->state = rc == CUDA_SUCCESS ? R_RECORDED : R_VOID;
	r->t_after = cua_clock_ns();
	if (r->state == R_RECORDED)
		g->last_anchor = now;
}

/* ---------------------------------------------------------------- the calls */

/* What the enter callback leaves for the exit callback in call->user: the context's index
   + 1 in the top byte and the sequence number below, or an untimed reason. */
#define USER_UNTIMED (1ull << 63)
#define USER_CTX_SHIFT 48

struct what {
	enum cua_gpu_op op;
	uint64_t bytes;
	void *stream;
	int flavour;
};

static int classify(const struct cuaudit_call *c, struct what *w)
{
	struct cuaudit_launch l = { .size = sizeof(l) };
	struct cuaudit_copy cp = { .size = sizeof(cp) };
	struct cuaudit_memset m = { .size = sizeof(m) };
	static const enum cua_gpu_op kinds[] = {
		[CUAUDIT_COPY_HTOD] = CUA_GPU_HTOD, [CUAUDIT_COPY_DTOH] = CUA_GPU_DTOH,
		[CUAUDIT_COPY_DTOD] = CUA_GPU_DTOD, [CUAUDIT_COPY_HTOH] = CUA_GPU_HTOH,
		[CUAUDIT_COPY_PEER] = CUA_GPU_PEER, [CUAUDIT_COPY_DEFAULT] = CUA_GPU_COPY,
		[CUAUDIT_COPY_UNKNOWN] = CUA_GPU_COPY,
	};

	switch (cuaudit_role_of(c->id)) {
	case CUAUDIT_ROLE_LAUNCH:
		if (cuaudit_call_launch(c, &l) != 0)
			return -1;
		*w = (struct what){ CUA_GPU_KERNEL, 0, l.stream, l.stream_flavour };
		return 0;
	case CUAUDIT_ROLE_COPY:
		if (cuaudit_call_copy(c, &cp) != 0)
			return -1;
		*w = (struct what){ cp.kind >= 0 && cp.kind <= CUAUDIT_COPY_UNKNOWN ? kinds[cp.kind]
									 : CUA_GPU_COPY,
				    cp.bytes, cp.stream, cp.stream_flavour };
		return 0;
	case CUAUDIT_ROLE_MEMSET:
		if (cuaudit_call_memset(c, &m) != 0)
			return -1;
		*w = (struct what){ CUA_GPU_MEMSET, m.bytes, m.stream, m.stream_flavour };
		return 0;
	case CUAUDIT_ROLE_GRAPH_LAUNCH:
		w->op = CUA_GPU_GRAPH;
		w->bytes = 0;
		return cuaudit_call_stream(c, &w->stream, &w->flavour);
	default:
		return -1;
	}
}

static CUA_COLD int capturing_now(void *stream, int flavour)
{
	CUresult (*is)(CUstream, CUstreamCaptureStatus *) = REAL(cuStreamIsCapturing);
	CUresult (*is_pt)(CUstream, CUstreamCaptureStatus *) = REAL(cuStreamIsCapturing_ptsz);
	CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
	CUresult r;

	/* Asked of the same stream the call names, in the call's own flavour. */
	if (flavour == CUAUDIT_STREAM_PER_THREAD && is_pt)
		r = is_pt((CUstream)stream, &st);
	else if (is)
		r = is((CUstream)stream, &st);
	else
		return 1;
	return r != CUDA_SUCCESS || st != CU_STREAM_CAPTURE_STATUS_NONE;
}

/* Whether the call's stream may be capturing. */
CUA_HOT_INLINE int capturing(void *stream, int flavour)
{
	if (CUA_LIKELY(!__atomic_load_n(&captures, __ATOMIC_ACQUIRE)))
		return 0;
	return capturing_now(stream, flavour);
}

int cua_gpu_call_captures(const struct cuaudit_call *c)
{
	int *err = program_errno_slot(), saved = err ? *err : 0, r;
	struct what w;

	if (!__atomic_load_n(&captures, __ATOMIC_ACQUIRE) || classify(c, &w) != 0)
		return 0;
	r = capturing(w.stream, w.flavour);
	if (err)
		*err = saved;
	return r;
}

/* CUAUDIT_GPU_TIME_START=event: whether the stream's last timed work (record last) may have
   finished, so that the stream is idle and a start event recorded before the call bounds
   the work's start on the GPU's clock. Asks the driver without waiting (its end event's
   query), in the relaxed capture mode while a capture may be open; where the question
   cannot be asked, the answer is "busy" (no event). Lock held. */
static int may_be_idle(struct gctx *g, uint64_t last)
{
	CUresult (*query)(CUevent) = REAL(cuEventQuery);
	const struct rec *r = &g->ring[last % POOL];
	CUstreamCaptureMode mode;
	int relaxed;
	CUresult rc;

	/* Harvested: done. Not yet recorded (another thread's call), or void: unknown. */
	if (last < g->tail || r->seq != last ||
	    __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != R_RECORDED)
		return 1;
	if (!query || (relaxed = relax(&g->lock, &mode)) < 0)
		return 0;
	rc = query(g->end[last % POOL]);
	unrelax(&g->lock, relaxed, &mode);
	return rc != CUDA_ERROR_NOT_READY;
}

static int gpu_enter(struct cuaudit_call *c, void *ctx)
{
	enum cuaudit_role role = cuaudit_role_of(c->id);
	CUresult (*record)(CUevent, CUstream) = REAL(cuEventRecord);
	int *err = program_errno_slot(), saved = err ? *err : 0;
	struct stream_slot *s;
	struct what w;
	struct gctx *g;
	CUstream handle;
	uint64_t seq, now;
	int own;

	(void)ctx;
	/* Only the call the program made: a runtime call's own driver calls are inside it. A
	   call an earlier hook skipped (a fault, the memory limit) puts nothing on the GPU. */
	if (c->depth || c->skipped || role == CUAUDIT_ROLE_CAPTURE_BEGIN ||
	    role == CUAUDIT_ROLE_CAPTURE_END || !own_state((uintptr_t)c))
		return CUAUDIT_CALL_REAL;
	if (cfg.sample > 1 && ++sample_tick % cfg.sample)
		return CUAUDIT_CALL_REAL;
	if (classify(c, &w) != 0)
		return CUAUDIT_CALL_REAL;
	if (capturing(w.stream, w.flavour)) {
		*c->user = USER_UNTIMED | CUA_GPU_CAPTURING;
		goto out;
	}
	/* Twice at most: a pool found retired (its context reset or destroyed) gives way to
	   a new one on the context now current. */
	for (int tries = 0;; tries++) {
		void *cur = NULL;
		unsigned why;

		g = context(&cur, &why, (uintptr_t)c);
		if (!g) {
			*c->user = USER_UNTIMED | why;
			goto out;
		}
		now = cua_clock_ns();
		if (!pool_lock(g, LOCK_WAIT_NS, (uintptr_t)c)) {
			/* Its untimed work goes on a stream the pool may know. */
			__atomic_store_n(&g->dirty, 1, __ATOMIC_RELEASE);
			*c->user = USER_UNTIMED | CUA_GPU_BUSY;
			goto out;
		}
		if (__atomic_load_n(&g->ready, __ATOMIC_ACQUIRE) == G_READY && g->ctx == cur) {
			if (__atomic_exchange_n(&g->dirty, 0, __ATOMIC_ACQ_REL))
				for (unsigned i = 0; i < STREAMS; i++)
					g->streams[i].last_seq = 0;
			if (++g->calls % HARVEST_EVERY == 0 || g->head - g->tail > POOL / 2)
				harvest(g, HARVEST_PER_CALL, (uintptr_t)c);
			if (now - g->last_anchor > ANCHOR_EVERY_NS) {
				CUstreamCaptureMode mode;
				int relaxed = relax(&g->lock, &mode);

				if (relaxed >= 0)
					anchor(g, now);
				unrelax(&g->lock, relaxed, &mode);
			}
			if (__atomic_load_n(&g->ready, __ATOMIC_ACQUIRE) == G_READY)
				break;
		}
		unlock(&g->lock);
		if (tries) {
			*c->user = USER_UNTIMED | CUA_GPU_LOST;
			goto out;
		}
	}
	s = stream_of(g, stream_key(w.stream, w.flavour, &handle));
	seq = s ? take_slot(g, (uintptr_t)c, c->thread_id) : 0;
	if (!seq) {
		/* Untimed work goes on the stream: the next record cannot start where the last
		   timed one ended. */
		if (s)
			s->last_seq = 0;
		unlock(&g->lock);
		*c->user = USER_UNTIMED | CUA_GPU_POOL_FULL;
		goto out;
	}
	/* Shared start: the stream's previous work was timed by cuaudit, so this work starts
	   where that one's end event says, or when the program submitted it if the stream had
	   gone idle by then: one event per call. A start event of its own only where the
	   stream's previous work is unknown (its first timed call, untimed work since, or
	   sampling): it then says when the earlier work ended; and with
	   CUAUDIT_GPU_TIME_START=event where the stream may be idle: the work starts after the
	   event is stamped, a bound on the GPU's own clock. */
	own = cfg.sample > 1 || !s->last_seq || (cfg.start_event && may_be_idle(g, s->last_seq));
	g->ring[seq % POOL].prev_seq = own ? 0 : s->last_seq;
	g->ring[seq % POOL].stream_key = s->key;
	g->ring[seq % POOL].op = (uint8_t)w.op;
	g->ring[seq % POOL].bytes = w.bytes;
	g->ring[seq % POOL].t_submit = now;
	s->last_seq = seq;
	unlock(&g->lock);
	if (own && record(g->start[seq % POOL], handle) != CUDA_SUCCESS) {
		/* Unstarted: made void at exit. */
		g->ring[seq % POOL].prev_seq = UINT64_MAX;
	}
	*c->user = (uint64_t)(g - ctxs + 1) << USER_CTX_SHIFT | seq;
out:
	if (err)
		*err = saved;
	return CUAUDIT_CALL_REAL;
}

static void capture_edge(const struct cuaudit_call *c, enum cuaudit_role role)
{
	if (c->depth || c->skipped || !own_state((uintptr_t)c))
		return;
	if (role == CUAUDIT_ROLE_CAPTURE_BEGIN && cua_table_succeeded(c))
		__atomic_add_fetch(&captures, 1, __ATOMIC_ACQ_REL);
	else if (role == CUAUDIT_ROLE_CAPTURE_END) {
		int n = __atomic_load_n(&captures, __ATOMIC_ACQUIRE);

		while (n > 0 && !__atomic_compare_exchange_n(&captures, &n, n - 1, 0, __ATOMIC_ACQ_REL,
							      __ATOMIC_ACQUIRE))
			;
	}
}

/* A call that put untimed work on its stream: the next record there must not start where
   the last timed one ended. */
static CUA_COLD void forget_stream(struct gctx *g, void *key, uint64_t seq, uintptr_t here)
{
	struct stream_slot *s;

	if (!pool_lock(g, LOCK_WAIT_NS, here)) {
		__atomic_store_n(&g->dirty, 1, __ATOMIC_RELEASE);
		return;
	}
	s = stream_of(g, key);
	if (s && s->last_seq == seq)
		s->last_seq = 0;
	unlock(&g->lock);
}

/* Takes no lock where the call was timed: the record is the call's own until its state
   says otherwise (a handler or exit on this thread may hold the pool's lock). */
static void gpu_exit(const struct cuaudit_call *c, void *ctx)
{
	enum cuaudit_role role = cuaudit_role_of(c->id);
	CUresult (*record)(CUevent, CUstream) = REAL(cuEventRecord);
	uint64_t u = *c->user, seq;
	int *err = program_errno_slot(), saved = err ? *err : 0;
	struct what w;
	struct gctx *g;
	struct rec *r;
	CUstream handle;
	CUresult rc;
	int ok, ran;

	(void)ctx;
	if (role == CUAUDIT_ROLE_CAPTURE_BEGIN || role == CUAUDIT_ROLE_CAPTURE_END) {
		capture_edge(c, role);
		return;
	}
	if (!u || !own_state((uintptr_t)c))
		return;
	if (u & USER_UNTIMED) {
		if (cua_table_succeeded(c))
			count_untimed((unsigned)(u & 0xff));
		return;
	}
	g = &ctxs[(u >> USER_CTX_SHIFT) - 1];
	seq = u & ((1ull << USER_CTX_SHIFT) - 1);
	r = &g->ring[seq % POOL];
	r->t_after = cua_clock_ns();
	/* The call's own times bound when its work reached the GPU: the dispatch's start read
	   is the last moment before the call into the driver (after every enter callback and
	   the start event: a thread preempted in between adds nothing to the bound), its end
	   read the first after it. They lie between the hook's own reads (the subscription
	   asks for times), so the record's bounds become the call's two times. */
	if (c->t_enter_ns > r->t_submit && c->t_enter_ns <= r->t_after)
		r->t_submit = c->t_enter_ns;
	if (c->t_exit_ns >= r->t_submit && c->t_exit_ns <= r->t_after)
		r->t_after = c->t_exit_ns;
	ran = cua_table_succeeded(c);
	/* A retired pool's events belong to a context that is gone: not named again. */
	ok = ran && r->prev_seq != UINT64_MAX && classify(c, &w) == 0 &&
	     __atomic_load_n(&g->ready, __ATOMIC_ACQUIRE) == G_READY;
	if (ok) {
		stream_key(w.stream, w.flavour, &handle);
		rc = record(g->end[seq % POOL], handle);
		r->t_end_rec = cua_clock_ns();
		ok = rc == CUDA_SUCCESS;
		if (pool_dead(rc))
			retire(g);
	}
	if (ok) {
		r->corr = c->correlation_id;
		r->id = c->id;
		r->name = r->op == CUA_GPU_KERNEL ? cua_kernelnames_of_call(c) : NULL;
		/* The view's record of the call, as the dispatch hands it: its own still where
		   its start is the call's (the dispatch's read) and it is ended. */
		if (CUA_UNLIKELY(cua_live_on)) {
			struct cua_live_call *lr = cua_call_live_rec(c);

			r->live = NULL;
			if (lr && lr->h.t_start == c->t_enter_ns) {
				r->live_seq = __atomic_load_n(&lr->h.seq, __ATOMIC_ACQUIRE);
				if ((r->live_seq & 3u) == 0 && lr->h.id == c->id)
					r->live = lr;
			}
		}
	} else {
		/* Work that ran untimed is counted; where nothing ran, the next call on the
		   stream must not start where this one ends either. */
		if (ran)
			count_untimed(CUA_GPU_LOST);
		forget_stream(g, r->stream_key, seq, (uintptr_t)c);
	}
	__atomic_store_n(&r->state, ok ? R_RECORDED : R_VOID, __ATOMIC_RELEASE);
	if (err)
		*err = saved;
}

/* ---------------------------------------------------------------- exit */

static int drained(const struct gctx *g)
{
	int ready = __atomic_load_n(&g->ready, __ATOMIC_ACQUIRE);

	return (ready != G_READY && ready != G_RETIRED) ||
	       __atomic_load_n(&g->abandoned, __ATOMIC_ACQUIRE);
}

/* What is left at exit is counted unfinished. Where the lock cannot be had (this thread
   holds it: exit from a signal handler that interrupted the hook; or another thread, past
   the drain's time), the ring is read, not changed, and counted once. */
static void count_unfinished(struct gctx *g, uintptr_t here)
{
	if (pool_lock(g, 0, here)) {
		for (; g->tail < g->head; g->tail++) {
			struct rec *r = &g->ring[g->tail % POOL];

			if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == R_RECORDED &&
			    r->op != OP_ANCHOR)
				count_untimed(CUA_GPU_UNFINISHED);
			r->state = R_FREE;
		}
		unlock(&g->lock);
		return;
	}
	__atomic_store_n(&g->abandoned, 1, __ATOMIC_RELEASE);
	for (uint64_t q = g->tail, head = g->head; q < head; q++) {
		const struct rec *r = &g->ring[q % POOL];

		if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == R_RECORDED && r->op != OP_ANCHOR)
			count_untimed(CUA_GPU_UNFINISHED);
	}
}

/* Never waits for a lock past its deadline, and not at all for one this thread holds. */
void cua_gpu_drain(void)
{
	uint64_t deadline = cua_clock_ns() + CUA_GPU_DRAIN_NS, now;
	int *err = program_errno_slot(), saved = err ? *err : 0;
	struct timespec nap = { 0, 100 * 1000 };
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	int pending;

	if (!cfg.on || !ctxs || __atomic_load_n(&owner_pid, __ATOMIC_ACQUIRE) != cua_process_id())
		return;
	do {
		pending = 0;
		for (unsigned i = 0; i < CTXS; i++) {
			struct gctx *g = &ctxs[i];

			now = cua_clock_ns();
			if (drained(g) || !pool_lock(g, deadline > now ? deadline - now : 0, here))
				continue;
			harvest(g, POOL, 0);
			pending |= g->tail < g->head;
			unlock(&g->lock);
		}
		if (pending && cua_clock_ns() < deadline)
			nanosleep(&nap, NULL);
	} while (pending && cua_clock_ns() < deadline);
	for (unsigned i = 0; i < CTXS; i++)
		if (!drained(&ctxs[i]))
			count_unfinished(&ctxs[i], here);
	if (err)
		*err = saved;
}

uint64_t cua_gpu_poll(void)
{
	int *err = program_errno_slot(), saved = err ? *err : 0;
	uint64_t pending = 0;

	if (!cfg.on || !ctxs || __atomic_load_n(&owner_pid, __ATOMIC_ACQUIRE) != cua_process_id())
		return 0;
	for (unsigned i = 0; i < CTXS; i++) {
		struct gctx *g = &ctxs[i];
		uint64_t bit = g->device < 64 ? 1ull << g->device : 0;

		if (__atomic_load_n(&g->ready, __ATOMIC_ACQUIRE) != G_READY)
			continue;
		/* Another thread harvests: what it holds is not known finished. */
		if (!pool_lock(g, 0, (uintptr_t)__builtin_frame_address(0))) {
			pending |= bit;
			continue;
		}
		harvest(g, HARVEST_PER_CALL, 0);
		if (g->tail < g->head)
			pending |= bit;
		unlock(&g->lock);
	}
	if (err)
		*err = saved;
	return pending;
}

static void gpu_finish(void)
{
	cua_gpu_drain();
}

const struct cua_gpu_totals *cua_gpu_totals(void)
{
	if (!cfg.on || !tot || __atomic_load_n(&owner_pid, __ATOMIC_ACQUIRE) != cua_process_id())
		return NULL;
	return tot;
}

int cua_gpu_synthetic(void)
{
	const struct cua_gpu_totals *t = cua_gpu_totals();

	return t && t->synthetic;
}

int cua_gpu_on(void)
{
	return cfg.on;
}

int cua_gpu_add_sink(cua_gpu_sink fn, void *ctx)
{
	if (nsinks >= sizeof(sinks) / sizeof(sinks[0]))
		return -ENOSPC;
	sinks[nsinks].fn = fn;
	sinks[nsinks++].ctx = ctx;
	return 0;
}

static unsigned ids[CUAUDIT_ID_COUNT];

int cua_gpu_init(const struct cua_gpu_config *own)
{
	unsigned n = 0;

	if (!own->gpu_time)
		return 0;
	cfg.sample = own->gpu_time;
	cfg.start_event = own->start_event;
	cfg.on = 1;
	for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++) {
		enum cuaudit_role r = cuaudit_role_of(id);

		if (r == CUAUDIT_ROLE_LAUNCH || r == CUAUDIT_ROLE_COPY || r == CUAUDIT_ROLE_MEMSET ||
		    r == CUAUDIT_ROLE_GRAPH_LAUNCH || r == CUAUDIT_ROLE_CAPTURE_BEGIN ||
		    r == CUAUDIT_ROLE_CAPTURE_END)
			ids[n++] = id;
	}
	/* With the call's times: they bound an idle stream's start (two clock reads a call). */
	CUAUDIT_OPTS(cuaudit_subscription, sub, .enter = gpu_enter, .exit = gpu_exit, .ids = ids,
		     .nids = n, .flags = CUAUDIT_SUB_TIMES);
	cua_finish_add(gpu_finish, NULL, CUA_FINISH_AT_EXEC);
	return cua_dispatch_subscribe(&sub);
}

/* The registry's entry (hooks/registry.c). */
void cua_gpu_start(const struct cua_config *all, struct cua_hook_configs *cfg)
{
	(void)all;
	cua_gpu_init(&cfg->gpu);
}
