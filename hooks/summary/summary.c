/* SPDX-License-Identifier: MIT */
/* hooks/summary/summary.c: the CUAUDIT_SUMMARY hook: collects per-API call statistics into the row model its renderers write. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "finish.h"
#include "configs.h"
#include "config.h"
#include "dispatch.h"
#include "hooks.h"
#include "kernelnames.h"
#include "libs.h"
#include "log.h"
#include "metrics.h"
#include "summary_config.h"
#include "nvtx.h"
#include "summary_model.h"
#include "summary_sampler.h"
#include "out.h"
#include "provenance.h"
#include "stats.h"
#include "table.h"
#include "threads.h"
#include "writer.h"

/* Index 0: calls the application made; 1: calls made inside another intercepted call. */
#define OUTER 0
#define NESTED 1
#define STATS_PER_CHUNK 64
/* Each block starts a cache line, so that a call's counters share one (base/stats.h). */
#define STAT_STRIDE ((sizeof(struct cua_stat) + 63) & ~(size_t)63)

/* One thread's statistics. Only its thread writes them; the report reads them at exit. */
struct tstats {
	struct cua_tslot head; /* in the per-thread registry: an ended thread's is reused */
	struct cua_stat *slot[CUAUDIT_ID_COUNT][2]; /* [id][nested]: one index computation */
	char *spare;
	unsigned spare_left;
	struct kstats *kernels; /* launches by kernel name, made at the thread's first launch */
	/* Calls through each linked-in runtime copy by id ([copy * ID_COUNT + id]), made at the
	   thread's first entry call: anonymous memory, so only the pages touched cost. */
	uint64_t *entry;
	/* The sampled summary's choice for each function's next call on this thread, made when
	   its last one was counted: non-zero, count it without times (cua_self.count_skip). */
	uint8_t skip[CUAUDIT_ID_COUNT][2];
};

/* Launches by kernel name, per thread; keyed by the registry's stable name pointer (NULL for
   launches whose kernel has no known name), merged by name at exit. */
#define KSLOTS 1024
struct kstat {
	const char *name;
	uint64_t launches, errors, total_ns;
};
struct kstats {
	unsigned used;
	struct kstat slot[KSLOTS];
};

static struct cua_tslot *all_threads;
/* This hook's slice of the configuration, copied at start. */
static struct {
	char path[CUA_PATH_MAX];    /* CUAUDIT_SUMMARY: "stderr", a template, or empty */
	int metrics;                /* CUAUDIT_METRICS is on: written with each snapshot */
	unsigned sample;            /* CUAUDIT_SUMMARY_SAMPLE */
	uint64_t sample_mask;       /* sample - 1 when a power of two: no division per call */
	uint64_t flush_interval_ns; /* CUAUDIT_FLUSH_INTERVAL */
} cfg;

static uint64_t next_snapshot; /* clock time of the next live snapshot; UINT64_MAX: none */
/* The thread's records, one per level (cua_self.level, base/threads.h): a signal handler's
   calls that interrupted an update use the next level's record. They live in the thread's
   home beside the level (cua_self.level_rec). */
#define mine(l) ((struct tstats *)cua_self.level_rec[l])
static uint64_t lost; /* calls past CUA_LEVELS nested handlers: not counted, reported */

static void *map_zeroed(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static struct tstats *thread_stats(unsigned l)
{
	uint64_t pid;
	struct tstats *t = mine(l);

	/* A forked child starts its own: the parent's calls are the parent's to report. */
	if (CUA_LIKELY(t && t->head.pid == cua_process_id_fast()))
		return t;
	pid = cua_process_id();
	/* An ended thread's statistics carry on under this thread: counts stay exact and
	   memory follows the threads alive at once. */
	t = (struct tstats *)cua_tslot_acquire(&all_threads, sizeof(*t), pid,
					       (uint32_t)cua_thread_id(), l);
	if (!t)
		return NULL;
	cua_self.level_rec[l] = t;
	/* The counter path reads this thread's choices from here (level 0: the calls the
	   thread makes outside a signal handler's). */
	if (cfg.sample && l == 0)
		cua_self.count_skip = &t->skip[0][0];
	return t;
}

static struct cua_stat *stat_of(struct tstats *t, unsigned nested, unsigned id)
{
	struct cua_stat *s = t->slot[id][nested];

	if (CUA_LIKELY(s))
		return s;
	if (!t->spare_left) {
		t->spare = map_zeroed(STAT_STRIDE * STATS_PER_CHUNK);
		if (!t->spare)
			return NULL;
		t->spare_left = STATS_PER_CHUNK;
	}
	s = (struct cua_stat *)(void *)t->spare;
	t->spare += STAT_STRIDE;
	t->spare_left--;
	cua_stats_fresh(s);
	__atomic_store_n(&t->slot[id][nested], s, __ATOMIC_RELEASE);
	return s;
}

static int is_error(const struct cuaudit_call *c)
{
	return cua_failed(c->id, (int)c->result);
}

/* Kept in the thread's statistics, so that a thread that adopts an ended thread's record
   carries its launches on too, and memory follows the threads alive at once. */
static struct kstats *thread_kstats(unsigned l)
{
	struct tstats *t = thread_stats(l);
	struct kstats *k;

	if (CUA_UNLIKELY(!t))
		return NULL;
	if (CUA_LIKELY(t->kernels))
		return t->kernels;
	k = map_zeroed(sizeof(*k));
	if (k)
		__atomic_store_n(&t->kernels, k, __ATOMIC_RELEASE);
	return k;
}

/* A launch the application made (depth 0: the driver launch inside a runtime launch is the
   same kernel). Past KSLOTS names a thread's launches go to the unnamed row. */
static void count_launch(const struct cuaudit_call *c, unsigned l)
{
	struct kstats *k = thread_kstats(l);
	const char *name = cua_kernelnames_of_call(c);
	unsigned h;

	if (!k)
		return;
	h = (unsigned)(((uintptr_t)name >> 3) * 2654435761u) & (KSLOTS - 1);
	for (unsigned i = 0; i < KSLOTS; i++, h = (h + 1) & (KSLOTS - 1)) {
		struct kstat *s = &k->slot[h];

		if (s->launches && s->name != name)
			continue;
		if (!s->launches && k->used == KSLOTS - 1 && name) {
			name = NULL;
			continue;
		}
		k->used += !s->launches;
		s->name = name;
		s->launches++;
		s->errors += is_error(c);
		s->total_ns += cua_call_ns(c);
		return;
	}
}
static void snapshot_due(uint64_t now);

/* The per-copy counters, mapped at the thread's first entry call. */
static CUA_COLD uint64_t *map_entry_counts(struct tstats *t)
{
	uint64_t *e = map_zeroed(sizeof(uint64_t) * CUA_MAX_ENTRY_COPIES * CUAUDIT_ID_COUNT);

	if (e)
		__atomic_store_n(&t->entry, e, __ATOMIC_RELEASE);
	return e;
}

/* A call through a patched entry: counted by the runtime copy it came through. */
static inline void count_entry(struct tstats *t, const struct cuaudit_call *c)
{
	int copy = cua_entry_copy_of(c->object);
	uint64_t *e = t->entry;

	if (CUA_UNLIKELY(!e) && !(e = map_entry_counts(t)))
		return;
	if (copy >= 0)
		e[(size_t)copy * CUAUDIT_ID_COUNT + c->id]++;
}

static void summary_update(const struct cuaudit_call *c, unsigned l)
{
	struct tstats *t = thread_stats(l);
	struct cua_stat *s;

	if (CUA_UNLIKELY(!t))
		return;
	s = stat_of(t, c->depth ? NESTED : OUTER, c->id);
	if (s) {
		uint64_t ns = cua_call_ns(c);

		/* Sampled, a call of the general path may land on its block's pick. */
		if (cfg.sample)
			cua_sampler_note(s, ns);
		cua_stats_add(s, ns, is_error(c), c->binding);
		if (CUA_UNLIKELY(cua_nvtx_calls_on) && c->depth == 0)
			cua_nvtx_call(ns, 1);
	}
	if (c->object)
		count_entry(t, c);
	if (CUA_UNLIKELY(cua_kernelnames_is_launch(c->id)) && c->depth == 0)
		count_launch(c, l);
	if (CUA_UNLIKELY(!cua_provenance_known) && c->depth == 0)
		cua_provenance_poll();
	if (CUA_UNLIKELY(c->t_exit_ns >= __atomic_load_n(&next_snapshot, __ATOMIC_RELAXED)))
		snapshot_due(c->t_exit_ns);
}

static void summary_exit(const struct cuaudit_call *c, void *ctx)
{
	unsigned l = cua_level_enter(), r = l;

	(void)ctx;
	/* In a signal handler, or after a jump out of one: the level it stands at. */
	if (CUA_UNLIKELY(l >= CUA_LEVELS))
		r = cua_level_resolve(&l);
	if (CUA_LIKELY(r < CUA_LEVELS))
		summary_update(c, r);
	else
		__atomic_add_fetch(&lost, 1, __ATOMIC_RELAXED);
	cua_level_leave(l);
}

/* The counter's rare cases through the general update: the thread's first call at this
   level or of this process (fork), a first call of a function, past the nesting levels. */
static CUA_COLD void count_slow(unsigned id, unsigned depth, unsigned binding, uint64_t ns,
				uint64_t t_exit, uint64_t result)
{
	struct cuaudit_call c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.id = id;
	c.depth = depth;
	c.binding = (enum cuaudit_binding)binding;
	c.t_enter_ns = t_exit - ns;
	c.t_exit_ns = t_exit;
	c.result = result;
	summary_exit(&c, NULL);
}

/* The exact summary's counter form (cua_dispatch_counter): what summary_exit does
   for a call through no patched entry that is no launch, from registers, with the thread's
   record and the function's row found by two loads and the fork check one compare. */
/* The counters' common case: the row of (id, nested) in the thread's record at level l,
   found by two loads and the fork check one compare; NULL sends the call to the slow path
   (past the levels, the thread's first call at this level or in this process, the function's
   first call). */
CUA_HOT_INLINE struct cua_stat *fast_row(unsigned l, unsigned id, unsigned depth, struct tstats **tp)
{
	struct tstats *t;

	if (CUA_LIKELY(l < CUA_LEVELS) && CUA_LIKELY((t = mine(l)) != NULL) &&
	    CUA_LIKELY(t->head.pid == *cua_pid_cache)) {
		*tp = t;
		return t->slot[id][depth != 0];
	}
	return NULL;
}

static CUA_SCALAR void summary_count(unsigned id, unsigned depth, unsigned binding, uint64_t ns,
			  uint64_t t_exit, uint64_t result)
{
	unsigned l = cua_level_enter();
	struct tstats *t;
	struct cua_stat *s;

	if (CUA_LIKELY((s = fast_row(l, id, depth, &t)) != NULL)) {
		cua_stats_add_fast(s, ns, cua_failed(id, (int)result), binding);
		if (CUA_UNLIKELY(cua_nvtx_calls_on) && depth == 0)
			cua_nvtx_call(ns, 1);
		if (CUA_UNLIKELY(!cua_provenance_known) && depth == 0)
			cua_provenance_poll();
		if (CUA_UNLIKELY(t_exit >= __atomic_load_n(&next_snapshot, __ATOMIC_RELAXED)))
			snapshot_due(t_exit);
		cua_level_leave(l);
		return;
	}
	cua_level_leave(l);
	count_slow(id, depth, binding, ns, t_exit, result);
}

/* ---------------------------------------------------------------- sampled mode */

/* CUAUDIT_SUMMARY_SAMPLE=N: the counter path times 1 call in N of a fast function, drawn
   at random in each block of N calls (hooks/summary/summary_sampler.h); every other call is timed. */
/* The thread's random numbers (hooks/summary/summary_sampler.h). */
static __thread uint64_t rng __attribute__((tls_model("initial-exec")));

/* Whether the row's next call is timed (hooks/summary/summary_sampler.h). */
static inline int sample_this(struct cua_stat *s)
{
	return cua_sampler_next(s, cfg.sample, &rng);
}

/* The sampled summary's counter form: the common call, in registers, timed or not
   as the thread's choice for the function said at its start (t_exit 0: untimed); the choice
   for the next call is made here, from the row just updated, by the rule of sample_this. */
static CUA_COLD void sampled_count_slow(unsigned id, unsigned depth, unsigned binding, uint64_t ns,
					uint64_t t_exit, uint64_t result)
{
	unsigned l = cua_level_enter(), r = l;
	struct tstats *t;
	struct cua_stat *s;
	int err = cua_failed(id, (int)result);

	if (l >= CUA_LEVELS)
		r = cua_level_resolve(&l);
	if (r < CUA_LEVELS && (t = thread_stats(r)) != NULL && (s = stat_of(t, depth != 0, id)) != NULL) {
		if (t_exit) {
			cua_sampler_note(s, ns);
			cua_stats_add(s, ns, err, binding);
		} else
			cua_stats_count(s, err, binding);
		if (CUA_UNLIKELY(cua_nvtx_calls_on) && depth == 0)
			cua_nvtx_call(ns, t_exit != 0);
		if (r == 0)
			t->skip[id][depth != 0] = !sample_this(s);
	} else if (r >= CUA_LEVELS) {
		__atomic_add_fetch(&lost, 1, __ATOMIC_RELAXED);
	}
	if (CUA_UNLIKELY(!cua_provenance_known) && depth == 0 && r < CUA_LEVELS)
		cua_provenance_poll();
	if (t_exit && CUA_UNLIKELY(t_exit >= __atomic_load_n(&next_snapshot, __ATOMIC_RELAXED)))
		snapshot_due(t_exit);
	cua_level_leave(l);
}

static CUA_SCALAR void sampled_count(unsigned id, unsigned depth, unsigned binding, uint64_t ns,
				     uint64_t t_exit, uint64_t result)
{
	unsigned l = cua_level_enter();
	struct tstats *t;
	struct cua_stat *s;

	if (CUA_LIKELY((s = fast_row(l, id, depth, &t)) != NULL) && CUA_LIKELY(cua_provenance_known)) {
		int err = cua_failed(id, (int)result);

		if (t_exit) {
			cua_sampler_note(s, ns);
			cua_stats_add_fast(s, ns, err, binding);
			if (CUA_UNLIKELY(t_exit >= __atomic_load_n(&next_snapshot, __ATOMIC_RELAXED)))
				snapshot_due(t_exit);
		} else {
			s->calls++;
			s->errors += (unsigned)err;
			s->by_binding[binding]++;
		}
		if (CUA_UNLIKELY(cua_nvtx_calls_on) && depth == 0)
			cua_nvtx_call(ns, t_exit != 0);
		if (l == 0)
			t->skip[id][depth != 0] = !sample_this(s);
		cua_level_leave(l);
		return;
	}
	cua_level_leave(l);
	sampled_count_slow(id, depth, binding, ns, t_exit, result);
}

/* ---------------------------------------------------------------- report */

static int by_total(const void *a, const void *b)
{
	const struct cua_summary_row *x = a, *y = b;

	if (x->nested != y->nested)
		return (int)x->nested - (int)y->nested;
	if (x->s.total_ns != y->s.total_ns)
		return x->s.total_ns > y->s.total_ns ? -1 : 1;
	return strcmp(cua_api[x->id].elf_name, cua_api[y->id].elf_name);
}

/* Merges every thread of this process into one row per (API, nesting). */
static struct cua_summary_row *collect(unsigned *nrows)
{
	size_t cap = 2 * (size_t)CUAUDIT_ID_COUNT;
	struct cua_summary_row *rows = map_zeroed(cap * sizeof(*rows));
	uint64_t pid = cua_process_id();
	unsigned n = 0;

	if (!rows)
		return NULL;
	for (unsigned nested = 0; nested < 2; nested++) {
		for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++) {
			struct cua_summary_row *r = &rows[n];
			double tail = 0;

			for (struct cua_tslot *h = __atomic_load_n(&all_threads, __ATOMIC_ACQUIRE); h;
			     h = h->next) {
				struct tstats *t = (struct tstats *)h;
				struct cua_stat *s = __atomic_load_n(&t->slot[id][nested],
								     __ATOMIC_ACQUIRE);

				if (h->pid == pid && s) {
					cua_stats_merge(&r->s, s);
					tail += cua_sampler_tail(s, cfg.sample);
				}
			}
			if (r->s.calls) {
				r->err_ns = cua_sampler_estimate(&r->s, cfg.sample, tail);
				r->id = id;
				r->nested = nested;
				n++;
			}
		}
	}
	qsort(rows, n, sizeof(*rows), by_total);
	*nrows = n;
	return rows;
}

/* ---------------------------------------------------------------- kernels */

static int by_kernel_total(const void *a, const void *b)
{
	const struct cua_summary_kernel *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return strcmp(cua_summary_kernel_name(x), cua_summary_kernel_name(y));
}

/* Every thread's launches of this process, one row per kernel name. */
static struct cua_summary_kernel *collect_kernels(unsigned *nrows, size_t *size)
{
	uint64_t pid = cua_process_id();
	size_t cap = 0;
	unsigned n = 0;
	struct cua_summary_kernel *rows;

	for (struct cua_tslot *h = __atomic_load_n(&all_threads, __ATOMIC_ACQUIRE); h; h = h->next) {
		struct kstats *k = __atomic_load_n(&((struct tstats *)h)->kernels, __ATOMIC_ACQUIRE);

		if (h->pid == pid && k)
			cap += k->used;
	}
	*nrows = 0;
	*size = cap * sizeof(*rows);
	if (!cap || !(rows = map_zeroed(*size)))
		return NULL;
	for (struct cua_tslot *h = __atomic_load_n(&all_threads, __ATOMIC_ACQUIRE); h; h = h->next) {
		struct kstats *k = __atomic_load_n(&((struct tstats *)h)->kernels, __ATOMIC_ACQUIRE);

		for (unsigned i = 0; h->pid == pid && k && i < KSLOTS; i++) {
			const struct kstat *s = &k->slot[i];
			unsigned j;

			if (!s->launches)
				continue;
			for (j = 0; j < n && strcmp(cua_summary_kernel_name(&rows[j]),
						    s->name ? s->name : "(unknown)") != 0; j++)
				;
			if (j == n)
				rows[n++].name = s->name;
			rows[j].launches += s->launches;
			rows[j].errors += s->errors;
			rows[j].total_ns += s->total_ns;
		}
	}
	qsort(rows, n, sizeof(*rows), by_kernel_total);
	*nrows = n;
	return rows;
}

/* ---------------------------------------------------------------- runtime copies */

#define ENTRY_COUNTS_SIZE (sizeof(uint64_t) * CUA_MAX_ENTRY_COPIES * CUAUDIT_ID_COUNT)

/* Every thread's calls through each linked-in runtime copy, by id: one row of
   CUAUDIT_ID_COUNT counts per copy, and each copy's total. */
static uint64_t *collect_entries(uint64_t *totals)
{
	uint64_t pid = cua_process_id();
	uint64_t *out = NULL;

	memset(totals, 0, sizeof(uint64_t) * CUA_MAX_ENTRY_COPIES);
	for (struct cua_tslot *h = __atomic_load_n(&all_threads, __ATOMIC_ACQUIRE); h; h = h->next) {
		const uint64_t *e = __atomic_load_n(&((struct tstats *)h)->entry, __ATOMIC_ACQUIRE);

		if (h->pid != pid || !e)
			continue;
		if (!out && !(out = map_zeroed(ENTRY_COUNTS_SIZE)))
			return NULL;
		for (size_t i = 0; i < (size_t)CUA_MAX_ENTRY_COPIES * CUAUDIT_ID_COUNT; i++) {
			out[i] += e[i];
			totals[i / CUAUDIT_ID_COUNT] += e[i];
		}
	}
	return out;
}

#define JSON_SIGNATURE "{\"schema\":\"cuaudit-summary/"
#define TEXT_SIGNATURE "cuaudit summary:"

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The file the summary goes to, chosen once per process: cuaudit_writer_open never
   truncates a file cuaudit did not write, and every later write replaces it whole. */
static char chosen[CUA_PATH_MAX];
static uint64_t chosen_pid;
static int chosen_new; /* we created it empty: removed if nothing could be written */

static int choose_path(int json)
{
	uint64_t pid = cua_process_id();
	int fd;

	if (chosen_pid == pid)
		return chosen[0] ? 0 : -1;
	chosen_pid = pid;
	chosen[0] = '\0';
	fd = cua_writer_open("summary", cfg.path, json ? JSON_SIGNATURE : TEXT_SIGNATURE, 0, chosen,
			     sizeof(chosen));
	if (fd < 0) {
		cua_out_report("cannot create the summary CUAUDIT_SUMMARY=", cfg.path,
				  errno);
		chosen[0] = '\0';
		return -1;
	}
	struct stat st;
	chosen_new = fstat(fd, &st) == 0 && st.st_size == 0;
	close(fd);
	return 0;
}

/* The model of this process's statistics now: rows and kernels merged from every thread. */
struct model_memory {
	uint64_t *entry;
	struct cua_summary_row *rows;
	struct cua_summary_kernel *kernels;
	size_t kernels_size;
};

static void build_model(struct cua_summary_model *m, struct model_memory *mem, int snapshot)
{
	static const struct cua_summary_row none[1];
	unsigned n = 0;

	memset(m, 0, sizeof(*m));
	memset(mem, 0, sizeof(*mem));
	m->pid = cua_process_id();
	m->snapshot = snapshot;
	m->sample = cfg.sample;
	mem->rows = collect(&n);
	m->rows = mem->rows ? mem->rows : none;
	m->nrows = mem->rows ? n : 0;
	for (unsigned i = 0; i < m->nrows; i++)
		m->total_ns[m->rows[i].nested] += m->rows[i].s.total_ns;
	mem->kernels = collect_kernels(&m->nkernels, &mem->kernels_size);
	m->kernels = mem->kernels;
	mem->entry = collect_entries(m->entry_totals);
	m->entry_counts = mem->entry;
}

static void free_model(struct model_memory *mem)
{
	if (mem->rows)
		munmap(mem->rows, 2 * (size_t)CUAUDIT_ID_COUNT * sizeof(*mem->rows));
	if (mem->kernels)
		munmap(mem->kernels, mem->kernels_size);
	if (mem->entry)
		munmap(mem->entry, ENTRY_COUNTS_SIZE);
}

/* CUAUDIT_METRICS: the same model for Prometheus. */
static void write_metrics(void)
{
	struct cua_summary_model m;
	struct model_memory mem;

	build_model(&m, &mem, 1);
	if (mem.rows)
		cua_metrics_write(&m);
	free_model(&mem);
}

/* The chosen renderer over the model: JSON or the text table. */
static void write_rows(struct cua_writer *w, int json, int snapshot)
{
	struct cua_summary_model m;
	struct model_memory mem;

	build_model(&m, &mem, snapshot);
	if (json)
		cua_summary_json_write(w, &m);
	else
		cua_summary_text_write(w, &m);
	free_model(&mem);
}

/* Writes the summary to its file through a temporary file and a rename: a reader, or a
   kill at any moment, sees a whole summary. Returns 0 when written. */
static int write_file(int snapshot)
{
	static struct cua_writer w;
	char tmp[CUA_PATH_MAX + 64];
	int json = ends_with(cfg.path, ".json");

	if (choose_path(json) != 0)
		return -1;
	if (cua_writer_begin_atomic(&w, "summary", chosen, tmp, sizeof(tmp)) != 0)
		return -1;
	write_rows(&w, json, snapshot);
	if (cua_writer_commit(&w, tmp, chosen) != 0) {
		if (chosen_new && !snapshot)
			unlink(chosen); /* never leave an empty file that looks written */
		return -1;
	}
	chosen_new = 0;
	return 0;
}

/* One writer at a time: a snapshot, or the final summary. The final one never waits for a
   snapshot forever: one in progress on this very thread (exit() from a signal handler), by a
   thread that has ended, or still running at the deadline is abandoned; its temporary file
   is never renamed. The claim is one word, the process and the thread: a forked child is
   not held up by a claim of its parent's (per-process state). */
static uint64_t writer;
static uint64_t final_pid; /* the process whose final summary is written */
#define WRITER(pid, tid) ((pid) << 32 | (uint32_t)(tid))
static uint64_t told_pid; /* the process whose final summary was announced */

static int claim_writer(int final)
{
	uint64_t pid = cua_process_id(), deadline = 0;
	uint32_t self = (uint32_t)cua_thread_id();

	for (;;) {
		uint64_t owner = __atomic_load_n(&writer, __ATOMIC_ACQUIRE);

		if ((!owner || owner >> 32 != pid) &&
		    __atomic_compare_exchange_n(&writer, &owner, WRITER(pid, self), 0,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return 0;
		if (!final)
			return -1;
		if (!owner || owner >> 32 != pid)
			continue;
		if ((uint32_t)owner == self || !cua_thread_alive(pid, (uint32_t)owner) ||
		    (deadline && !cua_wait_more(deadline))) {
			__atomic_store_n(&writer, WRITER(pid, self), __ATOMIC_RELEASE);
			return 0;
		}
		if (!deadline)
			deadline = cua_wait_deadline();
	}
}

/* From summary_exit on the thread that noticed the interval passed: no thread and no
   signal handler of our own. */
static void snapshot_due(uint64_t now)
{
	uint64_t due = __atomic_load_n(&next_snapshot, __ATOMIC_RELAXED);

	if (now < due || !__atomic_compare_exchange_n(&next_snapshot, &due,
						      now + cfg.flush_interval_ns, 0,
						      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	if (claim_writer(0) != 0)
		return;
	if (__atomic_load_n(&final_pid, __ATOMIC_ACQUIRE) != cua_process_id()) {
		int old = PTHREAD_CANCEL_ENABLE;

		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
		if (cfg.path[0] && strcmp(cfg.path, "stderr") != 0)
			write_file(1);
		if (cfg.metrics)
			write_metrics();
		pthread_setcancelstate(old, &old);
	}
	__atomic_store_n(&writer, 0, __ATOMIC_RELEASE);
}

static void summary_finish(void)
{
	static struct cua_writer w;

	claim_writer(1);
	__atomic_store_n(&final_pid, cua_process_id(), __ATOMIC_RELEASE);
	if (__atomic_load_n(&lost, __ATOMIC_RELAXED))
		cua_log_count(CUA_LOG_WARN, "summary: ", __atomic_load_n(&lost, __ATOMIC_RELAXED),
			      " calls made from signal handlers nested more than 4 deep in one "
			      "thread were not counted");
	if (cfg.metrics)
		write_metrics();
	if (!cfg.path[0])
		return;
	if (strcmp(cfg.path, "stderr") == 0) {
		cua_writer_init(&w, cua_out_stderr_fd());
		write_rows(&w, 0, 0);
		cua_writer_flush(&w);
		return;
	}
	if (write_file(0) == 0 && told_pid != cua_process_id()) {
		/* Once per file: a failed exec writes it again at exit. */
		told_pid = cua_process_id();
		cua_log_generated("summary", chosen, 0);
	}
}

/* After an exec that failed: the program goes on, and so do the snapshots; the summary is
   written again at exit, with every call. */
static void summary_resume(void)
{
	__atomic_store_n(&final_pid, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&writer, 0, __ATOMIC_RELEASE);
}

int cua_summary_on(void)
{
	return cfg.path[0] != '\0';
}

int cua_summary_init(const struct cua_config *all, const struct cua_summary_config *own,
		     const struct cua_metrics_config *metrics)
{
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = summary_exit, .flags = CUAUDIT_SUB_TIMES);
	/* Sampled, the general path is timed by the dispatch like the exact summary's: its
	   calls (launches, calls other hooks see) are all timed and counted by summary_exit. */
	CUAUDIT_OPTS(cuaudit_subscription, sampled, .exit = summary_exit, .flags = CUAUDIT_SUB_TIMES);
	int rc;

	if (!own->path[0] && !metrics->path[0])
		return 0;
	memcpy(cfg.path, own->path, sizeof(cfg.path));
	cfg.metrics = metrics->path[0] != 0;
	cfg.sample = own->sample;
	/* Sampled unless CUAUDIT_SUMMARY_SAMPLE says otherwise (0: exact): counts exact, the
	   sub-microsecond functions timed 1 call in 64 once their mean is known, the rest every
	   call. Timing every call cost the launch-bound PyTorch loop 16% on the H100 against
	   none for the sampled summary (docs/performance.md). */
	if (!own->sample_set)
		cfg.sample = CUA_METRICS_SAMPLE;
	cfg.sample_mask = cfg.sample > 1 && !(cfg.sample & (cfg.sample - 1)) ? cfg.sample - 1 : 0;
	cfg.flush_interval_ns = all->flush_interval_ns;
	if (cfg.metrics)
		cua_metrics_setup(metrics);
	next_snapshot = cfg.flush_interval_ns &&
				(strcmp(cfg.path, "stderr") != 0 || cfg.metrics)
				? cua_clock_ns() + cfg.flush_interval_ns
				: UINT64_MAX;
	cua_finish_add(summary_finish, summary_resume, CUA_FINISH_AT_EXEC | CUA_FINISH_OWN_CALLS);
	rc = cua_dispatch_subscribe(cfg.sample ? &sampled : &sub);
	/* Its callbacks read only the fields cua_dispatch_lean names. */
	if (rc == 0)
		cua_dispatch_lean();
	/* Where the summary is a function's lone subscription, dispatch hands the call to the
	   counter instead of filling a record for summary_exit or sampled_enter/_exit; sampled,
	   the counter path reads no clock for a call the thread's choice leaves untimed. */
	if (rc == 0)
		cua_dispatch_counter(cfg.sample ? sampled_count : summary_count);
	return rc;
}

/* The registry's entry (hooks/registry.c). */
void cua_summary_start(const struct cua_config *all, struct cua_hook_configs *cfg)
{
	cua_summary_init(all, &cfg->summary, &cfg->metrics);
}
