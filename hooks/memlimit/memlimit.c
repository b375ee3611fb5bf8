/* SPDX-License-Identifier: MIT */
/* hooks/memlimit/memlimit.c: the CUAUDIT_MEM_LIMIT hook: a per-device quota on device memory, as both layers see it. */
#define __CUDA_API_VERSION_INTERNAL
#include <string.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <sys/mman.h>
#include <unistd.h>
#include "finish.h"
#include "configs.h"
#include "config.h"
#include "cuaudit_args.h"
#include "dispatch.h"
#include "hooks.h"
#include "log.h"
#include "memgroup.h"
#include "memlimit.h"
#include "memtable.h"
#include "index.h"
#include "procaddress.h"
#include "table.h"

/* Live allocations by address (or cuMemCreate handle): open addressing, never resized.
   Keys 0 and 1 mark free slots; no allocation has those addresses. */
#define SLOTS (1u << 16)
#define EMPTY 0
#define TOMBSTONE 1
/* Pools by handle, with the device they were made for. */
#define POOLS 256u

struct slot {
	uint64_t key;
	uint64_t size;
	uint32_t device;
	uint32_t grouped; /* charged to the group too */
};

/* For the exit report: the highest use, what VMM (cuMemCreate, NCCL's path) was charged,
   and the allocations refused, per device. */
static struct {
	uint64_t peak, vmm_bytes, vmm_calls, refused, group_refused;
} seen[CUA_MAX_DEVICES];

static struct slot *live;
static struct slot pools[POOLS];
static uint64_t used[CUA_MAX_DEVICES];
static int full_warned;
/* The table entry of each id, from 1; 0 for ids the hook does not handle. */
static uint8_t entry_of[CUAUDIT_ID_COUNT];

/* What an outer allocation reserved, from its enter to its exit, lives in the call's own
   user slot: size << 9 | grouped << 8 | device << 1 | 1, grouped when the memory group was
   charged too. Not a per-thread record: a signal handler's allocation is an outer call too,
   made while the interrupted one holds its reservation. Sizes of 2^55
   bytes and more are refused: no device has them. */
#define HELD(size, grouped, dev) ((size) << 9 | (uint64_t)(grouped) << 8 | (uint64_t)(dev) << 1 | 1u)
#define HELD_SIZE(u) ((u) >> 9)
#define HELD_GROUPED(u) ((unsigned)((u) >> 8) & 1u)
#define HELD_DEVICE(u) ((unsigned)((u) >> 1) & 0x7fu)

/* This hook's configuration (hooks/memlimit/memlimit_config.c) as it started, for the metrics. */
static struct cua_memlimit_config limits;
/* CUAUDIT_MEM_GROUP names a group, joined when the first CUDA or NVML library opens. */
static int group_wanted;

/* This hook's slice of the configuration, copied at start. */
static struct {
	uint64_t all;                      /* every device's quota, 0 for none */
	uint64_t dev[CUA_MAX_DEVICES];     /* per device; 0 falls back to all */
	int track;                         /* the live view shows the counts: kept without quota */
} cfg;

static uint64_t limit_of(unsigned dev)
{
	uint64_t l;

	if (dev >= CUA_MAX_DEVICES)
		return 0;
	l = cfg.dev[dev];
	return l ? l : cfg.all;
}

uint64_t cua_memlimit_quota(unsigned dev)
{
	return limit_of(dev);
}

uint64_t cua_memlimit_used(unsigned dev)
{
	return dev < CUA_MAX_DEVICES ? __atomic_load_n(&used[dev], __ATOMIC_RELAXED) : 0;
}

void cua_mem_clamp(uint64_t *free, uint64_t *total, uint64_t limit, uint64_t used_bytes)
{
	uint64_t left;

	if (*total > limit)
		*total = limit;
	left = used_bytes < *total ? *total - used_bytes : 0;
	if (*free > left)
		*free = left;
}

static void note_peak(unsigned dev, uint64_t u)
{
	uint64_t p = __atomic_load_n(&seen[dev].peak, __ATOMIC_RELAXED);

	while (u > p && !__atomic_compare_exchange_n(&seen[dev].peak, &p, u, 0, __ATOMIC_RELAXED,
						     __ATOMIC_RELAXED))
		;
}

/* Takes size from the quota unless that would pass the limit; never wraps. */
static int reserve(unsigned dev, uint64_t size, uint64_t limit)
{
	uint64_t u = __atomic_load_n(&used[dev], __ATOMIC_ACQUIRE);

	do {
		if (size > limit || u > limit - size)
			return -1;
	} while (!__atomic_compare_exchange_n(&used[dev], &u, u + size, 0, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	note_peak(dev, u + size);
	if (cfg.track)
		cua_live_note_mem(dev, u + size);
	return 0;
}

/* Adds (up) or gives back bytes, saturating at both ends. */
static void adjust(unsigned dev, uint64_t bytes, int up)
{
	uint64_t u = __atomic_load_n(&used[dev], __ATOMIC_ACQUIRE), v;

	do
		v = up ? (u > UINT64_MAX - bytes ? UINT64_MAX : u + bytes)
		       : (u > bytes ? u - bytes : 0);
	while (!__atomic_compare_exchange_n(&used[dev], &u, v, 0, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE));
	if (cfg.track)
		cua_live_note_mem(dev, v);
}

static unsigned hash(uint64_t key, unsigned mask)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (unsigned)key & mask;
}

static int put(struct slot *t, unsigned n, uint64_t key, uint64_t size, unsigned dev,
	       unsigned grouped)
{
	for (unsigned i = 0, h = hash(key, n - 1); i < n; i++, h = (h + 1) & (n - 1)) {
		uint64_t k = __atomic_load_n(&t[h].key, __ATOMIC_ACQUIRE);

		if ((k == EMPTY || k == TOMBSTONE) &&
		    __atomic_compare_exchange_n(&t[h].key, &k, key, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			t[h].size = size;
			t[h].device = dev;
			t[h].grouped = grouped;
			return 0;
		}
	}
	return -1;
}

/* Finds key; with take, removes it. Returns its slot or NULL. */
static struct slot *find(struct slot *t, unsigned n, uint64_t key, int take)
{
	for (unsigned i = 0, h = hash(key, n - 1); i < n; i++, h = (h + 1) & (n - 1)) {
		uint64_t k = __atomic_load_n(&t[h].key, __ATOMIC_ACQUIRE);

		if (k == EMPTY)
			return NULL;
		if (k == key && (!take || __atomic_compare_exchange_n(&t[h].key, &k, TOMBSTONE, 0,
								      __ATOMIC_ACQ_REL,
								      __ATOMIC_ACQUIRE)))
			return &t[h];
	}
	return NULL;
}

/* The current context's device, through the driver's own cuCtxGetDevice. */
static unsigned current_device(void)
{
	/* Not cached: the driver may be unloaded and loaded again at another address. */
	CUresult (*get_device)(CUdevice *) =
		(CUresult(*)(CUdevice *))cua_index_real(CUAUDIT_ID_cuCtxGetDevice);
	CUdevice dev = 0;

	if (!get_device || get_device(&dev) != CUDA_SUCCESS || dev < 0 || dev >= CUA_MAX_DEVICES)
		return 0;
	return (unsigned)dev;
}

/* The device a call's memory belongs to, or -1 when it is no device memory cuaudit counts
   (a host location, an ordinal out of range). */
static int device_of(const struct cua_mem_desc *d, const void *args)
{
	uint64_t v = 0;
	struct slot *p;

	if (!d->device)
		return (int)current_device();
	switch (d->device(args, &v)) {
	case CUA_MEM_DEV_GIVEN:
		return v < CUA_MAX_DEVICES ? (int)v : -1;
	case CUA_MEM_DEV_POOL:
		p = v > TOMBSTONE ? find(pools, POOLS, v, 0) : NULL;
		return p ? (int)p->device : (int)current_device();
	default:
		return -1;
	}
}

static int out_of_memory(unsigned layer)
{
	return layer == CUAUDIT_LAYER_DRIVER ? (int)CUDA_ERROR_OUT_OF_MEMORY
					     : (int)cudaErrorMemoryAllocation;
}

static const struct cua_mem_desc *desc_of(unsigned id)
{
	return entry_of[id] ? &cua_mem_table[entry_of[id] - 1] : NULL;
}

static int refuse(struct cuaudit_call *c, unsigned dev)
{
	__atomic_add_fetch(&seen[dev].refused, 1, __ATOMIC_RELAXED);
	c->result = (uint64_t)(int64_t)out_of_memory(c->layer);
	return CUAUDIT_SKIP_REAL;
}

static int mem_enter(struct cuaudit_call *c, void *ctx)
{
	const struct cua_mem_desc *d = desc_of(c->id);
	uint64_t size, limit;
	unsigned grouped;
	int dev;

	(void)ctx;
	/* A runtime allocation's own driver allocation is already counted: outer calls only. */
	*c->user = 0;
	if (c->depth || !d || d->verb != CUA_MEM_ALLOC)
		return CUAUDIT_CALL_REAL;
	dev = device_of(d, c->args);
	if (dev < 0)
		return CUAUDIT_CALL_REAL;
	if (!(limit = limit_of((unsigned)dev)) && !(limit = cfg.track ? UINT64_MAX : 0))
		return CUAUDIT_CALL_REAL;
	size = d->size(c->args);
	if (size >> 55 || reserve((unsigned)dev, size, limit) != 0)
		return refuse(c, (unsigned)dev);
	/* The group's share is taken before the real allocation, as this process's is: two
	   processes of the group can never both pass (groups/memgroup.c). */
	grouped = cua_memgroup_quota((unsigned)dev) != 0;
	if (grouped && cua_memgroup_charge((unsigned)dev, size) != 0) {
		adjust((unsigned)dev, size, 0);
		__atomic_add_fetch(&seen[dev].group_refused, 1, __ATOMIC_RELAXED);
		return refuse(c, (unsigned)dev);
	}
	*c->user = HELD(size, grouped, (unsigned)dev);
	return CUAUDIT_CALL_REAL;
}

/* After an allocation: charge what it really took, or give the reservation back when the
   call failed or a hook skipped it (a fault, a plugin). */
static void allocated(const struct cuaudit_call *c, const struct cua_mem_desc *d)
{
	uint64_t held = *c->user;
	unsigned dev = HELD_DEVICE(held);
	uint64_t reserved = HELD_SIZE(held), charged, key;
	unsigned grouped = HELD_GROUPED(held);

	if (!(held & 1))
		return;
	if (c->skipped || (int)c->result != 0) {
		adjust(dev, reserved, 0);
		if (grouped)
			cua_memgroup_adjust(dev, reserved, 0);
		return;
	}
	charged = d->charged(c->args);
	if (charged != reserved) {
		adjust(dev, charged > reserved ? charged - reserved : reserved - charged,
		       charged > reserved);
		if (grouped)
			cua_memgroup_adjust(dev, charged > reserved ? charged - reserved
								    : reserved - charged,
					    charged > reserved);
	}
	if (charged > reserved)
		note_peak(dev, __atomic_load_n(&used[dev], __ATOMIC_RELAXED));
	if (d->vmm) {
		__atomic_add_fetch(&seen[dev].vmm_bytes, charged, __ATOMIC_RELAXED);
		__atomic_add_fetch(&seen[dev].vmm_calls, 1, __ATOMIC_RELAXED);
	}
	key = d->key(c->args);
	/* No address and nothing charged (the runtime's answer to 0 bytes): nothing will be
	   freed, so nothing is tracked; the table is not full. */
	if (key <= TOMBSTONE && charged == 0)
		return;
	/* Untracked, the charge stays: better a quota too full than one that leaks. */
	if (key > TOMBSTONE && put(live, SLOTS, key, charged, dev, grouped) == 0)
		return;
	if (!full_warned++)
		cua_log_msg(CUA_LOG_WARN, "the memory accounting (CUAUDIT_MEM_LIMIT, CUAUDIT_LIVE) tracks"
			    " at most 65536 live allocations; later frees are not credited", NULL);
}

static void mem_exit(const struct cuaudit_call *c, void *ctx)
{
	const struct cua_mem_desc *d = desc_of(c->id);
	struct slot *s;
	uint64_t key;
	int dev;

	(void)ctx;
	if (!d)
		return;
	if (d->verb == CUA_MEM_POOL) {
		/* At any depth: cudaMemPoolCreate's pool is the one its cuMemPoolCreate made. */
		if (!c->skipped && (int)c->result == 0 && (key = d->key(c->args)) > TOMBSTONE &&
		    (dev = device_of(d, c->args)) >= 0) {
			/* A destroyed pool's handle may come back for another device. */
			if ((s = find(pools, POOLS, key, 0)))
				__atomic_store_n(&s->device, (unsigned)dev, __ATOMIC_RELAXED);
			else
				put(pools, POOLS, key, 0, (unsigned)dev, 0);
		}
		return;
	}
	if (c->depth)
		return;
	if (d->verb == CUA_MEM_ALLOC) {
		allocated(c, d);
		return;
	}
	if (c->skipped || (int)c->result != 0)
		return;
	if (d->verb == CUA_MEM_FREE) {
		/* Memory cuaudit never charged (IPC or VMM imports) is not found and gives back
		   nothing. */
		key = d->key(c->args);
		if (key > TOMBSTONE && (s = find(live, SLOTS, key, 1))) {
			adjust(s->device, s->size, 0);
			if (s->grouped)
				cua_memgroup_adjust(s->device, s->size, 0);
		}
	} else if (d->verb == CUA_MEM_INFO && (dev = device_of(d, c->args)) >= 0) {
		uint64_t q, u;

		if (cua_memlimit_view((unsigned)dev, &q, &u))
			d->info(c->args, q, u);
	}
}

void cua_memlimit_driver_reloaded(void)
{
	if (!live)
		return;
	for (unsigned i = 0; i < SLOTS; i++) {
		uint64_t k = __atomic_load_n(&live[i].key, __ATOMIC_ACQUIRE);

		/* Taken as a free takes it: a free racing with the load credits it once. */
		if (k > TOMBSTONE && __atomic_compare_exchange_n(&live[i].key, &k, TOMBSTONE, 0,
								 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			adjust(live[i].device, live[i].size, 0);
			if (live[i].grouped)
				cua_memgroup_adjust(live[i].device, live[i].size, 0);
		}
	}
	/* The old driver's pools went with it; their handles may come back for other devices. */
	for (unsigned i = 0; i < POOLS; i++)
		if (__atomic_load_n(&pools[i].key, __ATOMIC_ACQUIRE) > TOMBSTONE)
			__atomic_store_n(&pools[i].key, TOMBSTONE, __ATOMIC_RELEASE);
}

/* At exit, at info level: one line per device that had a quota and used it. */
static void report(void)
{
	for (unsigned d = 0; d < CUA_MAX_DEVICES; d++) {
		char line[512];
		struct cua_buf b = CUA_BUF(line);

		if (!limit_of(d) || (!seen[d].peak && !seen[d].refused) || !cua_log_on(CUA_LOG_INFO))
			continue;
		cua_log_begin(&b, CUA_LOG_INFO);
		cua_buf_str(&b, "memory limit: device ");
		cua_buf_u64(&b, d);
		cua_buf_str(&b, " quota ");
		cua_buf_u64(&b, limit_of(d));
		cua_buf_str(&b, " in_use ");
		cua_buf_u64(&b, cua_memlimit_used(d));
		cua_buf_str(&b, " peak ");
		cua_buf_u64(&b, seen[d].peak);
		cua_buf_str(&b, " cuMemCreate_bytes ");
		cua_buf_u64(&b, seen[d].vmm_bytes);
		cua_buf_str(&b, " cuMemCreate_calls ");
		cua_buf_u64(&b, seen[d].vmm_calls);
		cua_buf_str(&b, " refused ");
		cua_buf_u64(&b, seen[d].refused);
		if (cua_memgroup_quota(d)) {
			cua_buf_str(&b, " group ");
			cua_buf_str(&b, limits.group);
			cua_buf_str(&b, " group_in_use ");
			cua_buf_u64(&b, cua_memgroup_used(d, 0));
			cua_buf_str(&b, " refused_by_group ");
			cua_buf_u64(&b, seen[d].group_refused);
		}
		cua_log_end(&b);
	}
}

const struct cua_memlimit_config *cua_memlimit_limits(void)
{
	return &limits;
}

int cua_memlimit_view(unsigned dev, uint64_t *quota, uint64_t *in_use)
{
	if (dev >= CUA_MAX_DEVICES || !limit_of(dev))
		return 0;
	*quota = limit_of(dev);
	/* In a group made with another quota, the stricter of the two. */
	if (cua_memgroup_quota(dev) && cua_memgroup_quota(dev) < *quota)
		*quota = cua_memgroup_quota(dev);
	/* The group's use, its dead processes' charges taken back first: what a program sizes
	   its caches from must not shrink for processes that are gone. */
	*in_use = cua_memgroup_quota(dev) ? cua_memgroup_used(dev, 1)
					  : __atomic_load_n(&used[dev], __ATOMIC_ACQUIRE);
	return 1;
}

const char *cua_memlimit_group(void)
{
	return cua_memgroup_on() ? limits.group : NULL;
}

uint64_t cua_memlimit_group_used(unsigned dev)
{
	return cua_memgroup_used(dev, 0);
}

/* "CUAUDIT_MEM_GROUP=NAME: the group's file PATH" into m. */
static void name_file(struct cua_buf *m, const struct cua_memlimit_config *own)
{
	cua_buf_str(m, "CUAUDIT_MEM_GROUP=");
	cua_buf_str(m, own->group);
	cua_buf_str(m, ": the group's file ");
	cua_buf_str(m, own->share_dir);
	cua_buf_str(m, "/" CUA_GROUP_FILE_PREFIX);
	cua_buf_u64(m, (uint64_t)geteuid());
	cua_buf_char(m, '-');
	cua_buf_str(m, own->group);
}

/* The group's file was found cut short under the process (groups/memgroup.h): said once,
   from the thread that found it; its own count goes on under its own limit. */
static void group_lost(void)
{
	char msg[2048];
	struct cua_buf m = CUA_BUF(msg);

	name_file(&m, &limits);
	cua_buf_str(&m, " was cut short (truncated) under this process. It leaves the group:"
		    " CUAUDIT_MEM_LIMIT is its own limit from now on");
	msg[m.len < sizeof(msg) ? m.len : sizeof(msg) - 1] = '\0';
	cua_log_msg(CUA_LOG_WARN, msg, NULL);
}

/* Joins CUAUDIT_MEM_GROUP's group; on any failure, one message and the limit stays this
   process's own, never larger than the quota. */
static void join_group(const struct cua_memlimit_config *own)
{
	uint64_t q[CUA_GROUP_DEVICES];
	char why[1024], msg[2048];
	struct cua_buf w = CUA_BUF(why), m = CUA_BUF(msg);
	int r;

	for (unsigned d = 0; d < CUA_GROUP_DEVICES; d++)
		q[d] = limit_of(d);
	cua_memgroup_set_on_lost(group_lost);
	if ((r = cua_memgroup_attach(own->share_dir, own->group, q, &w)) == 0)
		return;
	why[w.len < sizeof(why) ? w.len : sizeof(why) - 1] = '\0';
	name_file(&m, own);
	cua_buf_char(&m, ' ');
	cua_buf_str(&m, why);
	if (r > 0) {
		msg[m.len < sizeof(msg) ? m.len : sizeof(msg) - 1] = '\0';
		cua_log_msg(CUA_LOG_WARN, msg, NULL);
		return;
	}
	cua_buf_str(&m, ". This process is in no group: CUAUDIT_MEM_LIMIT is its own limit"
		    " (remove the file, or set CUAUDIT_SHARE_DIR, to make a new group)");
	msg[m.len < sizeof(msg) ? m.len : sizeof(msg) - 1] = '\0';
	cua_log_msg(CUA_LOG_WARN, msg, NULL);
}

void cua_memlimit_prepare(void)
{
	static int done;

	if (!group_wanted || done)
		return;
	done = 1;
	join_group(&limits);
}

int cua_memlimit_init(const struct cua_config *all, const struct cua_memlimit_config *own)
{
	static unsigned ids[256];
	unsigned n = 0;
	int any = own->mem_limit != 0;

	limits = *own;
	for (unsigned d = 0; d < CUA_MAX_DEVICES; d++)
		any |= own->mem_limit_dev[d] != 0;
	/* With the live view on, allocations are counted without a quota, for `cuaudit ps`. */
	cfg.track = all->live.on && !all->secure;
	if (!any && !cfg.track)
		return 0;
	cfg.all = own->mem_limit;
	memcpy(cfg.dev, own->mem_limit_dev, sizeof(cfg.dev));
	group_wanted = own->group[0] && any;
	for (unsigned i = 0; i < cua_mem_count && n < 255; i++) {
		entry_of[cua_mem_table[i].id] = (uint8_t)(i + 1);
		ids[n++] = cua_mem_table[i].id;
	}
	CUAUDIT_OPTS(cuaudit_subscription, sub, .enter = mem_enter, .exit = mem_exit, .ids = ids,
		     .nids = n);
	live = mmap(NULL, sizeof(*live) * SLOTS, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (live == MAP_FAILED) {
		live = NULL;
		return -1;
	}
	/* Said at an exec too, and again at exit if the exec failed. */
	cua_finish_add(report, NULL, CUA_FINISH_AT_EXEC);
	return cua_dispatch_subscribe(&sub);
}

/* The registry's entry (hooks/registry.c). */
void cua_memlimit_start(const struct cua_config *all, struct cua_hook_configs *cfg)
{
	cua_memlimit_init(all, &cfg->memlimit);
}
