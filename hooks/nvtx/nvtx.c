/* SPDX-License-Identifier: MIT */
/* hooks/nvtx/nvtx.c: receives the program's NVTX events from the injection library and keeps per-thread range stacks and per-name statistics in bounded memory. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "cuaudit_ids.h"
#include "cuaudit_roles.h"
#include "configs.h"
#include "dispatch.h"
#include "gpu.h"
#include "nvtx.h"
#include "nvtxbridge.h"
#include "clock.h"
#include "compiler.h"
#include "livefmt.h"
#include "process.h"
#include "symtab.h"
#include "threads.h"

/* A name, interned once: state 0 free, 1 being written, 2 whole. Slot i has id i + 1. */
struct name {
	uint32_t state, hash, len, domain;
	char text[CUA_NVTX_NAME_BYTES];
};
/* A name's statistics on one thread, written by that thread alone (no atomic operation,
   no cache line shared between threads); the rows add up every thread's. */
struct stat {
	uint64_t ranges, total_ns, min_ns, max_ns, marks;
};
/* The CUDA calls made under one range path on one thread. */
struct cstat {
	uint64_t calls, timed, ns;
};
/* The GPU records of one range path (written by the GPU sink, under its lock). */
struct gstat {
	uint64_t n, exact_n, exact_ns, min_ns, max_ns;
};
/* A range path: the open ranges' names, outermost first, as a tree of (parent, name); state
   as a name's. Slot i has id i + 1; 0 is the empty path. */
struct path {
	uint32_t state, parent, name;
};
#define PATH_NONE UINT32_MAX /* the path table was full */
struct frame {
	uint32_t name, domain;
	uint32_t path; /* the path ending here; 0 until a call needs it */
	uint64_t t0;
	uint32_t path_start; /* where its name starts in the live view's path */
	uint32_t captures;   /* it is a range of CUAUDIT_CAPTURE=nvtx:NAME */
};
struct nthread {
	struct cua_tslot head;
	uint32_t busy;  /* an update is in progress: a signal handler's event is dropped */
	uint32_t depth; /* open pushes, kept or not */
	uint32_t capturing; /* open frames that are capture ranges */
	/* The legacy library's binding counted an event and forwards the call: the one event
	   the injection library reports from inside it is the same one (cua_nvtx_forward_begin);
	   a push or pop reported there returns fwd_level. */
	uint32_t fwd_skip;
	int fwd_level;
	uint64_t live_pid; /* the process whose live slot 'live' is in; 0: none yet */
	struct cua_live_slot *live_of; /* that slot (the thread may get another one later) */
	struct cua_live_nvtx *live;
	struct frame stack[CUA_NVTX_DEPTH];
	struct stat stats[CUA_NVTX_NAMES + 1]; /* [0]: "(other names)"; pages touched as used */
	struct cstat calls[CUA_NVTX_PATHS + 1]; /* by path id */
};
struct started {
	uint64_t id; /* 0: free */
	uint32_t name, domain;
	uint64_t t0;
};

/* CUAUDIT_CAPTURE=nvtx:NAME[@DOMAIN] (cua_nvtx_capture): interned first, so that its one id
   is the only one the name ever has. */
static int capture_on;
static char capture_name[CUA_NVTX_NAME_BYTES], capture_domain[CUA_NVTX_NAME_BYTES];
static uint32_t capture_name_id, capture_domain_id;

static struct name *names;   /* CUA_NVTX_NAMES */
static struct path *paths;   /* CUA_NVTX_PATHS */
static struct gstat *path_gpu; /* CUA_NVTX_PATHS + 1, with GPU timing on */
int cua_nvtx_calls_on;
static struct started *open_ranges; /* CUA_NVTX_STARTED */
static struct cua_tslot *threads;
static uint64_t stats_pid;   /* the process the statistics belong to */
static struct cua_nvtx_drops drops;
static __thread struct nthread *me __attribute__((tls_model("initial-exec")));
_Static_assert((CUA_NVTX_NAMES & (CUA_NVTX_NAMES - 1)) == 0, "a power of two");
_Static_assert((CUA_NVTX_STARTED & (CUA_NVTX_STARTED - 1)) == 0, "a power of two");

static void count(uint64_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

/* A forked child reports its own ranges: the first event in a new process clears what the
   parent had counted (names stay: ids in the child's open stacks still mean them). */
static CUA_COLD void new_process(uint64_t pid)
{
	/* The records copied from the parent: only the forking thread runs in the child. */
	for (struct cua_tslot *r = __atomic_load_n(&threads, __ATOMIC_ACQUIRE); r; r = r->next) {
		memset(((struct nthread *)r)->stats, 0, sizeof(((struct nthread *)r)->stats));
		memset(((struct nthread *)r)->calls, 0, sizeof(((struct nthread *)r)->calls));
	}
	if (path_gpu)
		memset(path_gpu, 0, (CUA_NVTX_PATHS + 1) * sizeof(*path_gpu));
	memset(&drops, 0, sizeof(drops));
	__atomic_store_n(&stats_pid, pid, __ATOMIC_RELEASE);
}

static inline void check_process(void)
{
	uint64_t pid = cua_process_id_fast();

	if (CUA_UNLIKELY(__atomic_load_n(&stats_pid, __ATOMIC_ACQUIRE) != pid))
		new_process(pid);
}

/* Eight bytes a step: names from emit_nvtx() run to 100 bytes, and a byte-at-a-time hash
   of one cost more than the rest of the push. */
static uint32_t hash_of(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__builtin_memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	/* The last 0 to 7 bytes in at most three loads, none past the name. */
	w = 0;
	if (n - i >= 4) {
		uint32_t v;

		__builtin_memcpy(&v, s + i, 4);
		w = v;
		i += 4;
	}
	if (n - i >= 2) {
		uint16_t v;

		__builtin_memcpy(&v, s + i, 2);
		w = w << 16 | v;
		i += 2;
	}
	if (n - i)
		w = w << 8 | (unsigned char)s[i];
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return (uint32_t)(h ^ h >> 32);
}

/* A full table must not make every new name walk all of it: a name that finds no place in
   this many slots is dropped (counted). A name kept is always found again within them, since
   nothing is ever deleted. */
#define NAME_PROBES 64u

/* Open addressing, linear probes, no deletion: a slot being written by another thread (or
   by the code a signal handler interrupted) is passed over, never waited for; at worst a
   name gets two slots, which the rows merge. */
static uint32_t bridge_name(const char *text, size_t len)
{
	uint32_t h, i;

	check_process();
	if (!text)
		return 0;
	if (len > CUA_NVTX_NAME_BYTES - 1)
		len = CUA_NVTX_NAME_BYTES - 1;
	h = hash_of(text, len);
	i = h & (CUA_NVTX_NAMES - 1);
	for (unsigned probes = 0; probes < NAME_PROBES; probes++, i = (i + 1) & (CUA_NVTX_NAMES - 1)) {
		struct name *e = &names[i];
		uint32_t state = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE), free_state = 0;

		if (state == 2) {
			if (e->hash == h && e->len == len && memcmp(e->text, text, len) == 0)
				return i + 1;
			continue;
		}
		if (state == 1)
			continue;
		if (!__atomic_compare_exchange_n(&e->state, &free_state, 1, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			continue;
		memcpy(e->text, text, len);
		e->text[len] = 0;
		e->len = (uint32_t)len;
		e->hash = h;
		__atomic_store_n(&e->state, 2, __ATOMIC_RELEASE);
		return i + 1;
	}
	count(&drops.names);
	return 0;
}

static struct nthread *thread_record(void)
{
	struct nthread *t = me;

	if (CUA_LIKELY(t))
		return t;
	t = (struct nthread *)cua_tslot_acquire(&threads, sizeof(*t), cua_process_id(),
						 (uint32_t)cua_thread_id(), 0);
	if (!t)
		return NULL;
	/* A record adopted from an ended thread: its open ranges ended with it. */
	t->depth = 0;
	t->capturing = 0;
	t->live_pid = 0;
	t->fwd_skip = 0;
	me = t;
	return t;
}

/* Consumes the forwarded call's event: 1 if this one is it. */
static inline int forwarded(struct nthread *t)
{
	if (CUA_LIKELY(!t || !t->fwd_skip))
		return 0;
	t->fwd_skip = 0;
	return 1;
}

static cua_nvtx_sink trace_sink;

void cua_nvtx_set_trace(cua_nvtx_sink sink)
{
	trace_sink = sink;
}

static const char *name_text(uint32_t id);

static const char *domain_text(uint32_t id)
{
	return id ? names[id - 1].text : "";
}

static void ended(struct nthread *t, uint32_t name, uint32_t domain, uint64_t t0, uint64_t t1,
		  int level)
{
	struct stat *s = &t->stats[name];
	uint64_t ns = t1 - t0;

	if (trace_sink)
		trace_sink(t0, t1, level, name_text(name), domain_text(domain));

	/* The first domain a name is seen in is the one its row shows. */
	if (name && !names[name - 1].domain && domain)
		names[name - 1].domain = domain;
	s->ranges++;
	s->total_ns += ns;
	/* min_ns holds the minimum plus one, so that 0 means none yet. */
	if (!s->min_ns || ns + 1 < s->min_ns)
		s->min_ns = ns + 1;
	if (ns > s->max_ns)
		s->max_ns = ns;
}

/* ---- the live view: the thread's open ranges in its slot (cua_live_nvtx) ---- */

static void live_write(struct cua_live_nvtx *nv, uint32_t at, const char *s, size_t n)
{
	if (at >= CUA_LIVE_NVTX_PATH)
		return;
	if (n > CUA_LIVE_NVTX_PATH - at)
		n = CUA_LIVE_NVTX_PATH - at;
	memcpy(nv->path + at, s, n);
}

static void live_begin(struct cua_live_nvtx *nv)
{
	__atomic_store_n(&nv->seq, nv->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void live_end(struct cua_live_nvtx *nv, uint32_t len)
{
	__atomic_store_n(&nv->len, len < CUA_LIVE_NVTX_PATH ? len : CUA_LIVE_NVTX_PATH, __ATOMIC_RELAXED);
	__atomic_store_n(&nv->seq, nv->seq + 1, __ATOMIC_RELEASE);
}

static uint32_t name_len(uint32_t id)
{
	return id ? names[id - 1].len : (uint32_t)strlen(name_text(0));
}

/* Where the path ends below frame k: the end of frame k - 1's text. */
static uint32_t path_end(const struct nthread *t, unsigned k)
{
	if (!k)
		return 0;
	return t->stack[k - 1].path_start + (k > 1 ? 3 : 0) + name_len(t->stack[k - 1].name);
}

/* Appends frame k's name to the path; returns the path's new length. */
static uint32_t live_append(struct cua_live_nvtx *nv, struct frame *f, unsigned k)
{
	const char *s = name_text(f->name);
	size_t n = name_len(f->name);
	uint32_t at = f->path_start;

	if (k) {
		live_write(nv, at, " > ", 3);
		at += 3;
	}
	live_write(nv, at, s, n);
	return at + (uint32_t)n;
}

/* The slot of this thread in this process's region: attached here if the thread has made
   no CUDA call yet. A new slot, or one in a forked child, gets the whole path again. */
static struct cua_live_nvtx *live_slot(struct nthread *t, uint64_t pid)
{
	uint64_t got;

	if (!cua_live_on)
		return NULL;
	if (CUA_LIKELY(t->live_pid == pid && cua_live_me.pid == pid && cua_live_me.slot == t->live_of))
		return t->live;
	if (cua_live_me.pid != pid)
		cua_live_attach(&got);
	if (!cua_live_me.slot)
		return NULL;
	t->live_of = cua_live_me.slot;
	t->live = cua_live_nvtx(cua_live_me.slot, cua_live_calls_mask + 1, CUAUDIT_ID_COUNT);
	t->live_pid = pid;
	{
		uint32_t len = 0;

		live_begin(t->live);
		for (unsigned k = 0; k < t->depth && k < CUA_NVTX_DEPTH; k++) {
			t->stack[k].path_start = len;
			len = live_append(t->live, &t->stack[k], k);
		}
		live_end(t->live, len);
	}
	return NULL; /* written whole already */
}

static int bridge_push(uint32_t name, uint32_t domain)
{
	struct nthread *t;
	int level;

	check_process();
	t = thread_record();
	if (forwarded(t))
		return t->fwd_level;
	if (!t || t->busy) {
		count(&drops.reentered);
		return -1;
	}
	t->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	level = (int)t->depth;
	if (t->depth < CUA_NVTX_DEPTH) {
		struct frame *f = &t->stack[t->depth];
		struct cua_live_nvtx *nv;

		f->name = name;
		f->domain = domain;
		f->path = 0;
		f->captures = capture_on && capture_name_id && name == capture_name_id &&
			      (!capture_domain[0] || domain == capture_domain_id);
		t->capturing += f->captures;
		f->path_start = path_end(t, t->depth);
		t->depth++;
		if ((nv = live_slot(t, cua_process_id_fast()))) {
			live_begin(nv);
			live_end(nv, live_append(nv, f, t->depth - 1));
		}
		f->t0 = cua_clock_ns();
	} else {
		count(&drops.depth);
		t->depth++;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
	return level;
}

/* The path after a pop: cut back to the popped frame's start (the top one, the usual
   case), or written again from there (a range of another domain stays above it). */
static void live_popped(struct nthread *t, unsigned k)
{
	struct cua_live_nvtx *nv = live_slot(t, cua_process_id_fast());
	uint32_t len;

	if (!nv)
		return;
	len = path_end(t, k);
	live_begin(nv);
	for (unsigned j = k; j < t->depth; j++) {
		t->stack[j].path_start = len;
		len = live_append(nv, &t->stack[j], j);
	}
	live_end(nv, len);
}

/* The innermost open range of the domain ends; ranges of other domains above it stay. */
static int bridge_pop(uint32_t domain)
{
	uint64_t now = cua_clock_ns();
	struct nthread *t;
	int level = -1;

	check_process();
	t = thread_record();
	if (forwarded(t))
		return t->fwd_level;
	if (!t || t->busy) {
		count(&drops.reentered);
		return -1;
	}
	t->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (t->depth > CUA_NVTX_DEPTH) {
		/* One of the untimed ones past the bound. */
		level = (int)--t->depth;
	} else {
		for (int k = (int)t->depth - 1; k >= 0; k--) {
			if (t->stack[k].domain != domain)
				continue;
			ended(t, t->stack[k].name, domain, t->stack[k].t0, now, k);
			t->capturing -= t->stack[k].captures;
			/* Mostly the top one: nothing to move. */
			if ((unsigned)k + 1 < t->depth) {
				memmove(&t->stack[k], &t->stack[k + 1],
					(t->depth - 1 - (unsigned)k) * sizeof(t->stack[0]));
				/* The ranges above it now have another path. */
				for (unsigned j = (unsigned)k; j + 1 < t->depth; j++)
					t->stack[j].path = 0;
			}
			t->depth--;
			level = k;
			live_popped(t, (unsigned)k);
			break;
		}
		if (level < 0)
			count(&drops.unbalanced);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
	return level;
}

/* Start/end: a small table of open ranges, probed a few slots from the id's hash; a full
   neighbourhood drops the start (counted), so the table never grows. */
#define STARTED_PROBES 16u

static void bridge_start(uint64_t id, uint32_t name, uint32_t domain)
{
	uint32_t i = (uint32_t)(id * 0x9e3779b97f4a7c15ull >> 40) & (CUA_NVTX_STARTED - 1);
	uint64_t t0 = cua_clock_ns();

	if (forwarded(me))
		return;
	check_process();
	if (!id) {
		count(&drops.started);
		return;
	}
	for (unsigned p = 0; p < STARTED_PROBES; p++, i = (i + 1) & (CUA_NVTX_STARTED - 1)) {
		struct started *s = &open_ranges[i];
		uint64_t free_id = 0;

		if (!__atomic_compare_exchange_n(&s->id, &free_id, ~0ull, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		s->name = name;
		s->domain = domain;
		s->t0 = t0;
		__atomic_store_n(&s->id, id, __ATOMIC_RELEASE);
		return;
	}
	count(&drops.started);
}

static void bridge_end(uint64_t id)
{
	uint32_t i = (uint32_t)(id * 0x9e3779b97f4a7c15ull >> 40) & (CUA_NVTX_STARTED - 1);
	uint64_t now = cua_clock_ns();
	struct nthread *t;

	check_process();
	t = thread_record();
	if (forwarded(t))
		return;
	if (!t || t->busy) {
		count(&drops.reentered);
		return;
	}
	for (unsigned p = 0; id && id != ~0ull && p < STARTED_PROBES; p++, i = (i + 1) & (CUA_NVTX_STARTED - 1)) {
		struct started *s = &open_ranges[i];
		uint64_t want = id;

		if (__atomic_load_n(&s->id, __ATOMIC_ACQUIRE) != id)
			continue;
		struct started copy = *s;

		/* Two ends of one id: only one takes it. */
		if (!__atomic_compare_exchange_n(&s->id, &want, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		t->busy = 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		ended(t, copy.name, copy.domain, copy.t0, now, -1);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->busy = 0;
		return;
	}
	count(&drops.unbalanced);
}

static void bridge_mark(uint32_t name, uint32_t domain)
{
	struct nthread *t;

	check_process();
	t = thread_record();
	if (forwarded(t))
		return;
	if (!t || t->busy) {
		count(&drops.reentered);
		return;
	}
	if (name && !names[name - 1].domain && domain)
		names[name - 1].domain = domain;
	t->stats[name].marks++;
	if (trace_sink) {
		uint64_t now = cua_clock_ns();

		trace_sink(now, now, -2, name_text(name), domain_text(domain));
	}
}

/* ---- CUDA calls and GPU time per range (inclusive, by range path) ---- */

/* Open addressing as for names; a path that finds no place is PATH_NONE, and what is
   attributed to it is counted in dropped.paths. */
static uint32_t path_intern(uint32_t parent, uint32_t name)
{
	uint64_t key = (uint64_t)parent << 32 | name;
	uint32_t i = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 40) & (CUA_NVTX_PATHS - 1);

	for (unsigned probes = 0; probes < NAME_PROBES; probes++, i = (i + 1) & (CUA_NVTX_PATHS - 1)) {
		struct path *e = &paths[i];
		uint32_t state = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE), free_state = 0;

		if (state == 2) {
			if (e->parent == parent && e->name == name)
				return i + 1;
			continue;
		}
		if (state == 1 || !__atomic_compare_exchange_n(&e->state, &free_state, 1, 0,
								 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			continue;
		e->parent = parent;
		e->name = name;
		__atomic_store_n(&e->state, 2, __ATOMIC_RELEASE);
		return i + 1;
	}
	return PATH_NONE;
}

/* The path of the thread's open ranges (0: none). Found when a call needs it, not at the
   push: pushes and pops cost nothing more. Known paths are a prefix of the stack. */
static uint32_t path_of(struct nthread *t)
{
	unsigned top = t->depth < CUA_NVTX_DEPTH ? t->depth : CUA_NVTX_DEPTH, k = top;
	uint32_t p;

	while (k > 0 && !t->stack[k - 1].path)
		k--;
	p = k ? t->stack[k - 1].path : 0;
	for (; k < top; k++)
		t->stack[k].path = p = p == PATH_NONE ? PATH_NONE : path_intern(p, t->stack[k].name);
	return p;
}

void cua_nvtx_call(uint64_t ns, int timed)
{
	struct nthread *t = me;
	struct cstat *c;
	uint32_t p;

	if (!t || !t->depth || t->busy)
		return;
	check_process();
	if ((p = path_of(t)) == PATH_NONE) {
		count(&drops.paths);
		return;
	}
	c = &t->calls[p];
	c->calls++;
	if (timed) {
		c->timed++;
		c->ns += ns;
	}
}

/* Launch correlation id -> the launching thread's range path, until the GPU record comes
   back: written at the launch's entry, read by the GPU sink. A slot reused before its record
   came back is seen by the id, and counted in dropped.gpu. */
struct launch {
	uint64_t corr;
	uint32_t path;
};
static struct launch *launches;
static uint64_t first_corr; /* launches before it were made before NVTX was seen */

static int launch_enter(struct cuaudit_call *c, void *ctx)
{
	struct launch *l = __atomic_load_n(&launches, __ATOMIC_ACQUIRE), *e;
	struct nthread *t = me;
	uint64_t none = 0;

	(void)ctx;
	if (!l)
		return CUAUDIT_CALL_REAL;
	if (CUA_UNLIKELY(!__atomic_load_n(&first_corr, __ATOMIC_RELAXED)))
		__atomic_compare_exchange_n(&first_corr, &none, c->correlation_id, 0, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
	e = &l[c->correlation_id & (CUA_NVTX_GPU_RING - 1)];
	__atomic_store_n(&e->path, t && t->depth && !t->busy ? path_of(t) : 0, __ATOMIC_RELAXED);
	__atomic_store_n(&e->corr, c->correlation_id, __ATOMIC_RELEASE);
	return CUAUDIT_CALL_REAL;
}

/* Under the GPU collector's lock: one writer at a time. */
static void gpu_sink(const struct cua_gpu_record *r, void *ctx)
{
	const struct launch *e;
	struct gstat *g;
	uint32_t p;

	(void)ctx;
	if ((r->op != CUA_GPU_KERNEL && r->op != CUA_GPU_GRAPH) || !launches || !path_gpu)
		return;
	e = &launches[r->correlation_id & (CUA_NVTX_GPU_RING - 1)];
	if (__atomic_load_n(&e->corr, __ATOMIC_ACQUIRE) != r->correlation_id) {
		uint64_t first = __atomic_load_n(&first_corr, __ATOMIC_RELAXED);

		if (first && r->correlation_id >= first)
			count(&drops.gpu);
		return;
	}
	p = __atomic_load_n(&e->path, __ATOMIC_RELAXED);
	if (__atomic_load_n(&e->corr, __ATOMIC_ACQUIRE) != r->correlation_id) {
		count(&drops.gpu);
		return;
	}
	if (!p)
		return;
	if (p == PATH_NONE) {
		count(&drops.paths);
		return;
	}
	g = &path_gpu[p];
	g->n++;
	g->min_ns += r->end_ns - r->start_max_ns;
	g->max_ns += r->end_ns - r->start_ns;
	if (r->exact) {
		g->exact_n++;
		g->exact_ns += r->end_ns - r->start_ns;
	}
}

static unsigned launch_ids[CUAUDIT_ID_COUNT];

int cua_nvtx_init(void)
{
	unsigned n = 0;

	if (!cua_gpu_on())
		return 0;
	for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++) {
		enum cuaudit_role r = cuaudit_role_of(id);

		if (r == CUAUDIT_ROLE_LAUNCH || r == CUAUDIT_ROLE_GRAPH_LAUNCH)
			launch_ids[n++] = id;
	}
	CUAUDIT_OPTS(cuaudit_subscription, sub, .enter = launch_enter, .ids = launch_ids, .nids = n);
	if (cua_gpu_add_sink(gpu_sink, NULL) != 0)
		return -1;
	return cua_dispatch_subscribe(&sub);
}

static const struct cua_nvtx_bridge bridge = {
	.size = sizeof(struct cua_nvtx_bridge),
	.version = CUA_NVTX_BRIDGE_VERSION,
	.name = bridge_name,
	.push = bridge_push,
	.pop = bridge_pop,
	.start = bridge_start,
	.end = bridge_end,
	.mark = bridge_mark,
};

static int connected;

int cua_nvtx_connected(void)
{
	return __atomic_load_n(&connected, __ATOMIC_ACQUIRE);
}

static void *map_zeroed(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int is_library(const char *path)
{
	size_t n = path ? strlen(path) : 0, k = sizeof(CUA_NVTX_LIB_NAME) - 1;

	return n >= k && memcmp(path + n - k, CUA_NVTX_LIB_NAME, k) == 0 &&
	       (n == k || path[n - k - 1] == '/');
}

/* The tables are made when the library is opened (a dlopen, on the program's thread that
   made the first NVTX call): a program that never calls NVTX gets none of it. */
/* The shared tables, once: NULL-safe on failure (the caller then keeps nothing). */
static int setup(void)
{
	if (!names) {
		struct started *o = map_zeroed(CUA_NVTX_STARTED * sizeof(*open_ranges));
		struct name *n = map_zeroed(CUA_NVTX_NAMES * sizeof(*names));
		struct path *pt = map_zeroed(CUA_NVTX_PATHS * sizeof(*paths));

		if (!n || !o || !pt)
			return -1;
		open_ranges = o;
		paths = pt;
		/* Pages touched as launches come. */
		if (cua_gpu_on() && (path_gpu = map_zeroed((CUA_NVTX_PATHS + 1) * sizeof(*path_gpu))))
			__atomic_store_n(&launches, map_zeroed(CUA_NVTX_GPU_RING * sizeof(*launches)),
					 __ATOMIC_RELEASE);
		stats_pid = cua_process_id();
		names = n;
		if (capture_on) {
			capture_name_id = bridge_name(capture_name, strlen(capture_name));
			capture_domain_id = capture_domain[0] ? bridge_name(capture_domain, strlen(capture_domain)) : 0;
		}
	}
	/* Ranges are timed with the TSC, as calls are: a program that calls NVTX before it loads
	   CUDA (or never does) would read the clock with clock_gettime twice a pair. */
	cua_clock_calibrate();
	__atomic_store_n(&cua_nvtx_calls_on, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&connected, 1, __ATOMIC_RELEASE);
	return 0;
}

int cua_nvtx_connect(struct link_map *map)
{
	uintptr_t slot;

	if (!is_library(map->l_name))
		return 0;
	slot = cua_symtab_object_address(map, CUA_NVTX_BRIDGE_SYMBOL, sizeof(void *));
	if (!slot)
		return 0;
	if (setup() != 0)
		return 0; /* the library then only forwards */
	/* Its .bss, before relocation and before its code runs: nothing else writes it. */
	*(const struct cua_nvtx_bridge **)slot = &bridge;
	return 1;
}

const struct cua_nvtx_bridge *cua_nvtx_bridge_here(void)
{
	return setup() == 0 ? &bridge : NULL;
}

void cua_nvtx_forward_begin(int level)
{
	struct nthread *t;

	check_process();
	if ((t = thread_record()) != NULL) {
		t->fwd_level = level;
		t->fwd_skip = 1;
	}
}

void cua_nvtx_forward_end(void)
{
	struct nthread *t = me;

	if (t)
		t->fwd_skip = 0;
}

void cua_nvtx_capture(const char *name, const char *domain)
{
	size_t n = strlen(name), d = strlen(domain);

	if (!n || n >= sizeof(capture_name) || d >= sizeof(capture_domain))
		return;
	memcpy(capture_name, name, n + 1);
	memcpy(capture_domain, domain, d + 1);
	capture_on = 1;
}

int cua_nvtx_capturing(void)
{
	struct nthread *t = me;

	return t && t->capturing;
}

static const char *name_text(uint32_t id)
{
	return id ? names[id - 1].text : "(other names)";
}

static int by_total(const void *a, const void *b)
{
	const struct cua_nvtx_row *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_name(const void *a, const void *b)
{
	const struct cua_nvtx_row *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->domain, y->domain);
}

/* A name's inclusive CUDA calls and GPU time, from the paths that hold it. */
struct incl {
	struct cstat c;
	struct gstat g;
};

/* Each path's own calls (every thread's) and GPU records go to every distinct name on it. */
static void add_paths(struct incl *by_name, struct cstat *per_path)
{
	for (struct cua_tslot *r = __atomic_load_n(&threads, __ATOMIC_ACQUIRE); r; r = r->next) {
		const struct cstat *tc = ((const struct nthread *)r)->calls;

		for (uint32_t p = 1; p <= CUA_NVTX_PATHS; p++) {
			per_path[p].calls += tc[p].calls;
			per_path[p].timed += tc[p].timed;
			per_path[p].ns += tc[p].ns;
		}
	}
	for (uint32_t p = 1; p <= CUA_NVTX_PATHS; p++) {
		const struct cstat *c = &per_path[p];
		const struct gstat *g = path_gpu ? &path_gpu[p] : NULL;
		uint32_t seen[CUA_NVTX_DEPTH], nseen = 0;

		if (!c->calls && !(g && g->n))
			continue;
		for (uint32_t q = p; q && q <= CUA_NVTX_PATHS && nseen < CUA_NVTX_DEPTH; q = paths[q - 1].parent) {
			uint32_t name = paths[q - 1].name, k = 0;
			struct incl *x = &by_name[name];

			while (k < nseen && seen[k] != name)
				k++;
			if (k < nseen)
				continue; /* a name nested in itself: once */
			seen[nseen++] = name;
			x->c.calls += c->calls;
			x->c.timed += c->timed;
			x->c.ns += c->ns;
			if (g) {
				x->g.n += g->n;
				x->g.exact_n += g->exact_n;
				x->g.exact_ns += g->exact_ns;
				x->g.min_ns += g->min_ns;
				x->g.max_ns += g->max_ns;
			}
		}
	}
}

static void merge_row(struct cua_nvtx_row *r, const struct cua_nvtx_row *x)
{
	if (x->ranges && (!r->ranges || x->min_ns < r->min_ns))
		r->min_ns = x->min_ns;
	r->max_ns = x->max_ns > r->max_ns ? x->max_ns : r->max_ns;
	r->ranges += x->ranges;
	r->total_ns += x->total_ns;
	r->marks += x->marks;
	r->calls += x->calls;
	r->calls_timed += x->calls_timed;
	r->calls_ns += x->calls_ns;
	r->gpu_n += x->gpu_n;
	r->gpu_exact_n += x->gpu_exact_n;
	r->gpu_exact_ns += x->gpu_exact_ns;
	r->gpu_min_ns += x->gpu_min_ns;
	r->gpu_max_ns += x->gpu_max_ns;
}

#define ROWS_BYTES ((CUA_NVTX_NAMES + 1) * sizeof(struct cua_nvtx_row))
#define SUM_BYTES ((CUA_NVTX_NAMES + 1) * sizeof(struct stat))
#define INCL_BYTES ((CUA_NVTX_NAMES + 1) * sizeof(struct incl))
#define PER_PATH_BYTES ((CUA_NVTX_PATHS + 1) * sizeof(struct cstat))

struct cua_nvtx_row *cua_nvtx_rows(unsigned *n, struct cua_nvtx_drops *out)
{
	struct cua_nvtx_row *rows;
	struct stat *sum;
	struct incl *incl;
	struct cstat *per_path;
	unsigned k = 0, m = 0;

	*n = 0;
	memset(out, 0, sizeof(*out));
	if (!cua_nvtx_connected() || stats_pid != cua_process_id())
		return NULL;
	*out = drops;
	rows = map_zeroed(ROWS_BYTES);
	sum = map_zeroed(SUM_BYTES);
	incl = map_zeroed(INCL_BYTES);
	per_path = map_zeroed(PER_PATH_BYTES);
	if (!rows || !sum || !incl || !per_path) {
		cua_nvtx_rows_free(rows, 0);
		rows = NULL;
		goto out;
	}
	/* Every thread's, ended ones' included (their records stay, or a new thread took them
	   over with their counts). */
	for (struct cua_tslot *r = __atomic_load_n(&threads, __ATOMIC_ACQUIRE); r; r = r->next) {
		const struct stat *ts = ((const struct nthread *)r)->stats;

		for (uint32_t id = 0; id <= CUA_NVTX_NAMES; id++) {
			const struct stat *x = &ts[id];
			struct stat *y = &sum[id];

			if (!x->ranges && !x->marks)
				continue;
			y->ranges += x->ranges;
			y->total_ns += x->total_ns;
			y->marks += x->marks;
			if (x->min_ns && (!y->min_ns || x->min_ns < y->min_ns))
				y->min_ns = x->min_ns;
			if (x->max_ns > y->max_ns)
				y->max_ns = x->max_ns;
		}
	}
	add_paths(incl, per_path);
	for (uint32_t id = 0; id <= CUA_NVTX_NAMES; id++) {
		const struct stat *s = &sum[id];
		const struct incl *x = &incl[id];

		if (!s->ranges && !s->marks && !x->c.calls && !x->g.n)
			continue;
		if (id && __atomic_load_n(&names[id - 1].state, __ATOMIC_ACQUIRE) != 2)
			continue;
		rows[k].name = name_text(id);
		rows[k].domain = id && names[id - 1].domain ? names[names[id - 1].domain - 1].text : "";
		rows[k].ranges = s->ranges;
		rows[k].total_ns = s->total_ns;
		rows[k].min_ns = s->min_ns ? s->min_ns - 1 : 0;
		rows[k].max_ns = s->max_ns;
		rows[k].marks = s->marks;
		rows[k].calls = x->c.calls;
		rows[k].calls_timed = x->c.timed;
		rows[k].calls_ns = x->c.ns;
		rows[k].gpu_n = x->g.n;
		rows[k].gpu_exact_n = x->g.exact_n;
		rows[k].gpu_exact_ns = x->g.exact_ns;
		rows[k].gpu_min_ns = x->g.min_ns;
		rows[k].gpu_max_ns = x->g.max_ns;
		k++;
	}
	/* A name interned twice (two threads at once) is one row. */
	qsort(rows, k, sizeof(*rows), by_name);
	for (unsigned i = 0; i < k; i++) {
		if (m && by_name(&rows[m - 1], &rows[i]) == 0) {
			merge_row(&rows[m - 1], &rows[i]);
			continue;
		}
		rows[m++] = rows[i];
	}
	qsort(rows, m, sizeof(*rows), by_total);
	*n = m;
out:
	if (sum)
		munmap(sum, SUM_BYTES);
	if (incl)
		munmap(incl, INCL_BYTES);
	if (per_path)
		munmap(per_path, PER_PATH_BYTES);
	return rows;
}

void cua_nvtx_rows_free(struct cua_nvtx_row *rows, unsigned n)
{
	(void)n;
	if (rows)
		munmap(rows, ROWS_BYTES);
}

/* The registry's entry (hooks/registry.c), after GPU timing: the kernels' GPU time per
   range, for the summary's table. */
void cua_nvtx_start(const struct cua_config *all, struct cua_hook_configs *cfg)
{
	if (all->nvtx && cfg->summary.path[0])
		cua_nvtx_init();
}
