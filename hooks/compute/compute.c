/* SPDX-License-Identifier: MIT */
/* hooks/compute/compute.c: the compute share (CUAUDIT_COMPUTE_LIMIT): charges the group's GPU intervals to the share file and holds a launching thread back while its group is over its share. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"
#include "compiler.h"
#include "compshare.h"
#include "compute.h"
#include "configs.h"
#include "cuaudit_roles.h"
#include "dispatch.h"
#include "fmt.h"
#include "gpu.h"
#include "index.h"
#include "log.h"
#include "out.h"
#include "process.h"
#include "table.h"

#define REAL(elf) ((__typeof__(&elf))cua_index_real(CUAUDIT_ID_##elf))

/* Launches pass without a look at the file for this long after a look found the group
   under its share: the fast path reads a clock and two words. */
#define CHECK_NS (2ull * 1000 * 1000)
/* One wait's sleep, and the most one call is held back in all: never forever. */
#define NAP_NS (2ull * 1000 * 1000)
#define MAX_HOLD_NS (1000ull * 1000 * 1000)
/* The shortest nap, waiting for another group's work to finish at a turn's change. */
#define MIN_NAP_NS (100ull * 1000)

static struct {
	int on;
	uint32_t limit[CUA_COMPUTE_DEVICES];
	char group[CUA_CS_NAME_MAX];
	char dir[CUA_PATH_MAX];
} cfg;

static uint64_t next_check; /* cuaudit clock before which launches pass unlooked */
/* While a thread naps, the end of its nap: every launch looks meanwhile. A time, not a
   count: a thread that never comes back from its nap (cancelled, or jumped out by a signal
   handler's siglongjmp) leaves nothing behind past that nap's end. */
static uint64_t held_until;
/* After a synchronise published the process's idle: the fast path's next_check it took away
   (0: none). Work the next launch puts on the GPU is after that idle, so the launch marks
   the process launched (cua_cs_launching) before it gets next_check back and goes on. */
static uint64_t relaunch;
static int attached;        /* 0 not yet, 1 on, -1 failed (the feature is off) */
static uint64_t attach_lock, rule_lock;
static int last_verdict[CUA_COMPUTE_DEVICES];
static uint64_t last_until[CUA_COMPUTE_DEVICES];
static uint64_t covered[CUA_COMPUTE_DEVICES];

/* A lock word for this process only, never waited on: a thread that finds it taken (by
   another thread, by a signal handler's interrupted call on its own, or by a thread of the
   parent at a fork) does without. */
static int try_take(uint64_t *l)
{
	uint64_t held = 0, me = cua_process_id();

	if (__atomic_compare_exchange_n(l, &held, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 1;
	return held != me && __atomic_compare_exchange_n(l, &held, me, 0, __ATOMIC_ACQUIRE,
							  __ATOMIC_RELAXED);
}

static void give(uint64_t *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* The share file was found cut short under the process (groups/compshare.h): said once. */
static void share_lost(int alone)
{
	char msg[2048];
	struct cua_buf m = CUA_BUF(msg);

	cua_buf_str(&m, "CUAUDIT_COMPUTE_LIMIT: the compute share file ");
	cua_buf_str(&m, cfg.dir);
	cua_buf_str(&m, "/" CUA_CS_FILE_PREFIX);
	cua_buf_u64(&m, (uint64_t)geteuid());
	cua_buf_str(&m, alone ? " was cut short (truncated) under this process. Its limit now"
				" counts this process alone, as a group of its own"
			      : " was cut short (truncated) under this process, and no memory was"
				" left to count it alone: no compute limit is applied to it any more");
	msg[m.len < sizeof(msg) ? m.len : sizeof(msg) - 1] = '\0';
	cua_log_msg(CUA_LOG_WARN, msg, NULL);
}

static void attach(void)
{
	char why[1024], msg[2048];
	struct cua_buf w = CUA_BUF(why), m = CUA_BUF(msg);

	if (__atomic_load_n(&attached, __ATOMIC_ACQUIRE) || !try_take(&attach_lock))
		return;
	if (!attached) {
		cua_cs_set_on_lost(share_lost);
		if (cua_cs_attach(cfg.dir, cfg.group, cfg.limit, &w) == 0) {
			__atomic_store_n(&attached, 1, __ATOMIC_RELEASE);
		} else {
			why[w.len < sizeof(why) ? w.len : sizeof(why) - 1] = '\0';
			cua_buf_str(&m, "CUAUDIT_COMPUTE_LIMIT: the compute share file ");
			cua_buf_str(&m, cfg.dir);
			cua_buf_str(&m, "/" CUA_CS_FILE_PREFIX);
			cua_buf_u64(&m, (uint64_t)geteuid());
			cua_buf_char(&m, ' ');
			cua_buf_str(&m, why);
			cua_buf_str(&m, ". No compute limit is applied to this process (remove the"
				    " file, or set CUAUDIT_SHARE_DIR)");
			msg[m.len < sizeof(msg) ? m.len : sizeof(msg) - 1] = '\0';
			cua_log_msg(CUA_LOG_WARN, msg, NULL);
			__atomic_store_n(&attached, -1, __ATOMIC_RELEASE);
			__atomic_store_n(&next_check, UINT64_MAX, __ATOMIC_RELEASE);
		}
	}
	give(&attach_lock);
}

/* The device of the calling thread's current context, or -1. */
static int current_device(void)
{
	CUresult (*get)(CUdevice *) = REAL(cuCtxGetDevice);
	CUdevice d = -1;

	if (!get || get(&d) != CUDA_SUCCESS || d < 0 || (unsigned)d >= CUA_COMPUTE_DEVICES)
		return -1;
	return d;
}

/* Whether this process may submit to dev now (compshare.h's verdict): a fresh look, or the
   last one where another thread is looking. */
static int judge(unsigned dev, uint64_t now, int pending, uint64_t *until)
{
	int v;

	if (!try_take(&rule_lock)) {
		*until = __atomic_load_n(&last_until[dev], __ATOMIC_RELAXED);
		return __atomic_load_n(&last_verdict[dev], __ATOMIC_RELAXED);
	}
	v = cua_cs_judge(dev, now, pending, until);
	__atomic_store_n(&last_verdict[dev], v, __ATOMIC_RELAXED);
	__atomic_store_n(&last_until[dev], *until, __ATOMIC_RELAXED);
	give(&rule_lock);
	return v;
}

/* Raises *w to t, never lowers it (another thread may nap longer, or have looked later). */
static void raise_to(uint64_t *w, uint64_t t)
{
	uint64_t h = __atomic_load_n(w, __ATOMIC_RELAXED);

	while (h < t && !__atomic_compare_exchange_n(w, &h, t, 1, __ATOMIC_RELAXED,
						     __ATOMIC_RELAXED))
		;
}

/* The slow path: looks at the file and, while the group is over its share of the device
   the launch goes to or another group has its turn, sleeps (no lock held) at most
   MAX_HOLD_NS in all. Every time it gives or compares with the file is CLOCK_MONOTONIC
   (mono), the same in every process; the fast path's words are on this process's own
   clock (now, cuaudit's TSC clock), so the turn's end comes back to it as a distance. */
static void hold(uint64_t now)
{
	int *err = cua_program_errno ? cua_program_errno() : NULL, saved = err ? *err : 0;
	uint64_t mono = cua_clock_mono_ns(), deadline = mono + MAX_HOLD_NS;
	uint64_t until = mono + CHECK_NS, left;
	int dev;

	attach();
	if (__atomic_load_n(&attached, __ATOMIC_ACQUIRE) != 1)
		goto out;
	dev = current_device();
	if (dev < 0 || !cfg.limit[dev]) {
		__atomic_store_n(&next_check, now + CHECK_NS, __ATOMIC_RELAXED);
		goto out;
	}
	cua_cs_want((unsigned)dev, mono, 0);
	for (;;) {
		struct timespec nap = { 0, (long)NAP_NS };
		uint64_t t, pending;
		int v;

		/* What finished since the last look counts now, not at the next launch; what
		   has not tells the next group whether this one's work still runs. */
		pending = cua_gpu_poll();
		v = judge((unsigned)dev, mono, (int)(pending >> dev & 1), &until);
		if (v == CUA_CS_GO || mono >= deadline)
			break;
		/* Waiting for a turn: look again when it may come, within a nap. */
		if (v == CUA_CS_WAIT && until > mono && until - mono < NAP_NS)
			nap.tv_nsec = (long)(until - mono > MIN_NAP_NS ? until - mono : MIN_NAP_NS);
		raise_to(&held_until, cua_clock_ns() + (uint64_t)nap.tv_nsec);
		nanosleep(&nap, NULL);
		t = cua_clock_mono_ns();
		cua_cs_want((unsigned)dev, t, t > mono ? t - mono : 0);
		mono = t;
	}
	/* Launches pass unlooked until the next check or the end of the group's turn. */
	left = until > mono && until < mono + CHECK_NS ? until - mono : CHECK_NS;
	__atomic_store_n(&next_check, cua_clock_ns() + left, __ATOMIC_RELAXED);
out:
	if (err)
		*err = saved;
}

static int compute_enter(struct cuaudit_call *c, void *ctx)
{
	uint64_t now;

	(void)ctx;
	/* Only the program's own call: a runtime call's driver calls are inside it. */
	if (c->depth || c->skipped)
		return CUAUDIT_CALL_REAL;
	now = cua_clock_ns();
	if (CUA_LIKELY(now < __atomic_load_n(&next_check, __ATOMIC_RELAXED) &&
		       now >= __atomic_load_n(&held_until, __ATOMIC_RELAXED)))
		return CUAUDIT_CALL_REAL;
	/* Into a capturing stream the call only adds a node to a graph: no GPU work to hold
	   back or to charge (the graph's launch is both). Asked as GPU timing asks, never with
	   a call a capture forbids; before any look at the file or poll of events. */
	if (cua_gpu_call_captures(c))
		return CUAUDIT_CALL_REAL;
	/* The first launch after a synchronise published idle, within the last look's leave. */
	if (__atomic_load_n(&relaunch, __ATOMIC_RELAXED)) {
		uint64_t r = __atomic_exchange_n(&relaunch, 0, __ATOMIC_RELAXED);

		if (now < r && now >= __atomic_load_n(&held_until, __ATOMIC_RELAXED)) {
			int *err = cua_program_errno ? cua_program_errno() : NULL, saved = err ? *err : 0;

			cua_cs_launching(cua_clock_mono_ns());
			raise_to(&next_check, r);
			if (err)
				*err = saved;
			return CUAUDIT_CALL_REAL;
		}
	}
	hold(now);
	return CUAUDIT_CALL_REAL;
}

/* What to add to a time of this process's clock to put it on CLOCK_MONOTONIC, the file's
   clock: measured again every SHIFT_EVERY_NS (the TSC's drift meanwhile: some 0.3 us), so a
   charge costs a TSC read, not a clock_gettime per record. Two harvesting threads may both
   measure; either value is right. */
#define SHIFT_EVERY_NS (100ull * 1000 * 1000)
static uint64_t shift_value, shift_at;

static uint64_t mono_shift(void)
{
	uint64_t local = cua_clock_ns(), at = __atomic_load_n(&shift_at, __ATOMIC_ACQUIRE), v;

	if (at && local - at < SHIFT_EVERY_NS)
		return __atomic_load_n(&shift_value, __ATOMIC_RELAXED);
	v = cua_clock_mono_ns() - local;
	__atomic_store_n(&shift_value, v, __ATOMIC_RELAXED);
	__atomic_store_n(&shift_at, local, __ATOMIC_RELEASE);
	return v;
}

/* Each finished interval, from GPU timing's harvest (one thread at a time, under its lock):
   exact ones as they are; a bounded one from the middle of its possible starts (error: at
   most half the bound's width, docs/hooks.md). The process's own intervals are charged as
   their union per device: work of two streams at once is charged once. */
static void charge(const struct cua_gpu_record *r, void *ctx)
{
	uint64_t start, end = r->end_ns, shift;

	(void)ctx;
	if (r->op == CUA_GPU_HTOH || r->device >= CUA_COMPUTE_DEVICES ||
	    __atomic_load_n(&attached, __ATOMIC_ACQUIRE) != 1)
		return;
	start = r->exact ? r->start_ns : r->start_ns + (r->start_max_ns - r->start_ns) / 2;
	if (end <= covered[r->device])
		return;
	if (start < covered[r->device])
		start = covered[r->device];
	covered[r->device] = end;
	shift = mono_shift();
	cua_cs_charge(r->device, start + shift, end + shift);
}

/* A synchronise of the program's that returned: its work may all have finished. Published
   now (GPU timing's poll says so, without waiting), not at the process's next look: a
   process that synchronises and then stops launching would otherwise be waited for up to
   CUA_CS_DRAIN_MAX_NS at every turn's change. Only while a turn is in effect: no one waits
   for the idle of a group that takes no turn, and a process's next look publishes it anyway
   (the poll: 2,000 to 6,500 instructions a synchronise, docs/performance.md). */
static void compute_sync_exit(const struct cuaudit_call *c, void *ctx)
{
	int *err, saved, published = 0;
	uint64_t pending, mono = 0, leave;

	(void)ctx;
	if (c->depth || c->skipped || !cua_table_succeeded(c) ||
	    __atomic_load_n(&attached, __ATOMIC_ACQUIRE) != 1)
		return;
	/* The idle is the time before the poll (the gate's clock read): a launch after it may
	   not be in what the poll saw. The gate makes no call of the program's namespace: its
	   errno is saved only for the poll's driver calls. */
	if (!cua_cs_drain_watched(cua_clock_mono_ns, &mono))
		return;
	err = cua_program_errno ? cua_program_errno() : NULL;
	saved = err ? *err : 0;
	pending = cua_gpu_poll();
	for (unsigned dev = 0; dev < CUA_COMPUTE_DEVICES; dev++)
		if (cfg.limit[dev] && !(pending >> dev & 1)) {
			cua_cs_idle(dev, mono);
			published = 1;
		}
	/* The next launch takes the slow path, to mark its work as after this idle. */
	if (published && (leave = __atomic_exchange_n(&next_check, 0, __ATOMIC_RELAXED)))
		raise_to(&relaunch, leave);
	if (err)
		*err = saved;
}

int cua_compute_on(void)
{
	return cfg.on;
}

int cua_compute_view(unsigned dev, uint32_t *limit, uint64_t *achieved, const char **group)
{
	struct cua_cs_group g;
	uint64_t now = cua_clock_mono_ns();

	if (!cfg.on || dev >= CUA_COMPUTE_DEVICES || !cfg.limit[dev] ||
	    __atomic_load_n(&attached, __ATOMIC_ACQUIRE) != 1 || !try_take(&rule_lock))
		return 0;
	cua_cs_assess(dev, now, &g);
	give(&rule_lock);
	/* Only the devices the group used or wanted within the window. */
	if (!g.processes)
		return 0;
	*limit = cfg.limit[dev];
	*achieved = g.charge_ns / (CUA_CS_WINDOW_NS / 1000);
	*group = cfg.group;
	return 1;
}

static unsigned ids[CUAUDIT_ID_COUNT], sync_ids[CUAUDIT_ID_COUNT];

int cua_compute_init(const struct cua_compute_config *own, const char *group, const char *dir)
{
	unsigned n = 0, nsync = 0;

	if (!own->on)
		return 0;
	memcpy(cfg.limit, own->limit, sizeof(cfg.limit));
	if (group)
		memcpy(cfg.group, group, strnlen(group, sizeof(cfg.group) - 1));
	memcpy(cfg.dir, dir, strnlen(dir, sizeof(cfg.dir) - 1));
	cfg.on = 1;
	for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++) {
		enum cuaudit_role r = cuaudit_role_of(id);

		if (r == CUAUDIT_ROLE_LAUNCH || r == CUAUDIT_ROLE_COPY || r == CUAUDIT_ROLE_MEMSET ||
		    r == CUAUDIT_ROLE_GRAPH_LAUNCH)
			ids[n++] = id;
		else if (r == CUAUDIT_ROLE_SYNC)
			sync_ids[nsync++] = id;
	}
	if (cua_gpu_add_sink(charge, NULL) != 0)
		return -1;
	CUAUDIT_OPTS(cuaudit_subscription, sub, .enter = compute_enter, .ids = ids, .nids = n);
	CUAUDIT_OPTS(cuaudit_subscription, syncs, .exit = compute_sync_exit, .ids = sync_ids,
		     .nids = nsync);
	if (cua_dispatch_subscribe(&sub) != 0)
		return -1;
	return nsync ? cua_dispatch_subscribe(&syncs) : 0;
}

static void say(const char *message)
{
	cua_out_stderr(message, strlen(message));
}

/* The registry's entry (hooks/registry.c): after the memory limit, whose group and share
   directory the share uses, and before GPU timing, so that a launch held back is timed from
   when it goes on. */
void cua_compute_start(const struct cua_config *all, struct cua_hook_configs *cfg)
{
	(void)all;
	/* A bad CUAUDIT_SHARE_DIR: its one message says that no compute limit is applied. */
	if (cfg->compute.on && !cfg->memlimit.share_dir[0])
		cfg->compute.on = 0;
	if (cfg->compute.on && cfg->compute.test_clock_offset_ns)
		cua_clock_set_test_offset(cfg->compute.test_clock_offset_ns);
	cua_compute_init(&cfg->compute, cfg->memlimit.group, cfg->memlimit.share_dir);
	/* The share charges GPU intervals: every launch, copy and memset is timed. */
	if (cua_compute_on() && cfg->gpu.gpu_time != 1) {
		if (cfg->gpu.gpu_time > 1)
			say("cuaudit: CUAUDIT_COMPUTE_LIMIT times every GPU call: its"
			    " CUAUDIT_GPU_TIME sampling is set aside.\n");
		cfg->gpu.gpu_time = 1;
	}
}
