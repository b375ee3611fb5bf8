/* SPDX-License-Identifier: MIT */
/* groups/compshare.c: the compute share file: making or checking it, this process's slot and busy buckets, and the rule that says whether a group is over its share. */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "compshare.h"
#include "fmt.h"
#include "memgroup.h"
#include "process.h"

_Static_assert(sizeof(struct cua_cs_head) == CUA_CS_HEAD_SIZE, "the head is 4096 bytes");
_Static_assert(CUA_CS_BUCKET_NS < (1ull << CUA_CS_BUSY_BITS), "a bucket's busy fits its bits");
_Static_assert(CUA_CS_WINDOW_BUCKETS < CUA_CS_BUCKETS, "the window fits the ring");

static struct cua_cs_head *head;
static struct cua_cs_slot *slots;
static uint64_t mine; /* pid << 32 | index + 1, as memgroup.c's */
static char my_group[CUA_CS_NAME_MAX];
static uint32_t my_limit[CUA_CS_DEVICES];
static uint64_t my_ns;
/* The file kept open (groupfile.h), and what became of it: SHARED, DROPPING (found cut
   short: touch nothing) or ALONE (the mapping is private pages holding a file of this
   process alone, so its limit still holds, counting its own time only). */
static struct cua_groupfile_kept kept = { .fd = -1 };
enum { SHARED, DROPPING, ALONE };
static int state;
static void (*on_lost)(int alone);

void cua_cs_set_on_lost(void (*fn)(int alone))
{
	on_lost = fn;
}

static void init_head(void *head, const void *arg);

/* Whether the mapping may be touched now. The first look that finds the file cut short puts
   a private file of this process alone in its place and says so, once. */
static int usable(void)
{
	int st = __atomic_load_n(&state, __ATOMIC_ACQUIRE), shared = SHARED;

	if (!head || st == DROPPING)
		return 0;
	if (st == ALONE || cua_groupfile_whole(&kept, CUA_GROUPFILE_SHARE_GAP_NS))
		return 1;
	if (!__atomic_compare_exchange_n(&state, &shared, DROPPING, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return shared == ALONE;
	/* Where no private pages could take the mapping's place, the process stays DROPPING:
	   it never touches the file again, and has no compute limit left. */
	if (cua_groupfile_drop(head, CUA_CS_FILE_SIZE, &kept) != 0) {
		if (on_lost)
			on_lost(0);
		return 0;
	}
	init_head(head, NULL);
	__atomic_store_n(&mine, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&state, ALONE, __ATOMIC_RELEASE);
	if (on_lost)
		on_lost(1);
	return 1;
}

/* ---------------------------------------------------------------- the file */

int cua_cs_path(char *out, size_t cap, const char *dir, uint32_t uid)
{
	struct cua_buf b = { out, 0, cap, 0, NULL, 0 };

	if (cap == 0)
		return -1;
	cua_buf_str(&b, dir);
	cua_buf_char(&b, '/');
	cua_buf_str(&b, CUA_CS_FILE_PREFIX);
	cua_buf_u64(&b, uid);
	if (b.len >= cap)
		return -1;
	out[b.len] = '\0';
	return 0;
}

const char *cua_cs_check_head(const struct cua_cs_head *h, uint64_t size, uint32_t uid)
{
	static const uint8_t zero[sizeof(h->reserved)];

	if (size < sizeof(*h) || memcmp(h->magic, CUA_CS_MAGIC, 8) != 0)
		return "is no cuaudit compute share file (its magic is wrong), or is truncated";
	if (h->version != CUA_CS_VERSION)
		return "has another format version than this cuaudit's (2)";
	if (h->head_size != CUA_CS_HEAD_SIZE || h->slots != CUA_CS_SLOTS ||
	    h->devices != CUA_CS_DEVICES || h->slot_size != sizeof(struct cua_cs_slot) ||
	    h->file_size != CUA_CS_FILE_SIZE || h->bucket_ns != CUA_CS_BUCKET_NS ||
	    h->buckets != CUA_CS_BUCKETS || h->window_buckets != CUA_CS_WINDOW_BUCKETS)
		return "is corrupt (its sizes are not those of format version 2)";
	if (size != CUA_CS_FILE_SIZE)
		return "is truncated or extended (its size is not what its head says)";
	if (h->uid != uid)
		return "names another owner in its head";
	if (h->hwm > CUA_CS_SLOTS || memcmp(h->reserved, zero, sizeof(zero)) != 0)
		return "is corrupt (a field of its head is out of range)";
	return NULL;
}

static int fail(struct cua_buf *why, const char *what, int err)
{
	return cua_groupfile_fail(why, what, err);
}

static void init_head(void *head, const void *arg)
{
	struct cua_cs_head *h = head;

	(void)arg;
	memcpy(h->magic, CUA_CS_MAGIC, 8);
	h->version = CUA_CS_VERSION;
	h->head_size = CUA_CS_HEAD_SIZE;
	h->file_size = CUA_CS_FILE_SIZE;
	h->slots = CUA_CS_SLOTS;
	h->devices = CUA_CS_DEVICES;
	h->slot_size = sizeof(struct cua_cs_slot);
	h->uid = (uint32_t)geteuid();
	h->bucket_ns = CUA_CS_BUCKET_NS;
	h->buckets = CUA_CS_BUCKETS;
	h->window_buckets = CUA_CS_WINDOW_BUCKETS;
}

static const char *check_head(const void *head, uint64_t size, uint32_t uid, const void *arg)
{
	(void)arg;
	return cua_cs_check_head(head, size, uid);
}

/* ---------------------------------------------------------------- slots */

static uint32_t hwm(void)
{
	uint32_t n = __atomic_load_n(&head->hwm, __ATOMIC_ACQUIRE);

	return n < CUA_CS_SLOTS ? n : CUA_CS_SLOTS;
}

static uint64_t self_start(void)
{
	uint64_t t = 0;

	return cua_memgroup_proc_start((uint32_t)cua_process_id(), &t) == 1 ? t : 0;
}

/* Takes the lock of slot i (memgroup.c's lock_slot): 1 if held on a description of this
   process's own. */
static int lock_slot(uint32_t i)
{
	return state == SHARED && cua_groupfile_lock_own(&kept, head, CUA_CS_SLOT_AT(i));
}

/* Whether slot i's process is gone: by /proc, or, where /proc here cannot tell (another pid
   namespace), by its lock held by no one. */
static int slot_gone(uint32_t i, uint64_t w)
{
	int a = cua_memgroup_slot_alive(w, __atomic_load_n(&slots[i].start_ticks, __ATOMIC_ACQUIRE),
					__atomic_load_n(&slots[i].pidns, __ATOMIC_ACQUIRE), my_ns);

	if (a >= 0)
		return a == 0;
	return (__atomic_load_n(&slots[i].flags, __ATOMIC_SEQ_CST) & CUA_CS_SLOT_LOCKED) &&
	       state == SHARED &&
	       cua_groupfile_own(&kept) && cua_groupfile_held(&kept, CUA_CS_SLOT_AT(i), 1) == 0;
}

/* Takes back the slots of processes that are gone: their buckets stop growing at their
   death and age out of the window anyway; this only makes room. */
static void reclaim(void)
{
	for (uint32_t i = 0, n = hwm(); i < n; i++) {
		uint64_t w = __atomic_load_n(&slots[i].owner, __ATOMIC_ACQUIRE);

		if (!w || (uint32_t)(mine & 0xffffffffu) == i + 1)
			continue;
		if (slot_gone(i, w) &&
		    __atomic_compare_exchange_n(&slots[i].owner, &w, 0, 0, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			__atomic_add_fetch(&head->reclaimed, 1, __ATOMIC_RELAXED);
	}
}

/* Slots of this process's own images before an exec (its pid, start and namespace): exec
   replaced the image that wrote them and no one else takes them back (the process lives),
   so a process that execs again and again would fill the file. Called at attach, the
   image's first claim, before any other thread of it uses the file. */
static void drop_own_past(uint32_t pid, uint64_t start)
{
	for (uint32_t i = 0, n = hwm(); i < n && start; i++) {
		uint64_t w = __atomic_load_n(&slots[i].owner, __ATOMIC_ACQUIRE);

		if (w && CUA_CS_PID(w) == pid &&
		    __atomic_load_n(&slots[i].start_ticks, __ATOMIC_ACQUIRE) == start &&
		    __atomic_load_n(&slots[i].pidns, __ATOMIC_ACQUIRE) == my_ns &&
		    __atomic_compare_exchange_n(&slots[i].owner, &w, 0, 0, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			__atomic_add_fetch(&head->reclaimed, 1, __ATOMIC_RELAXED);
	}
}

static int try_claim(uint32_t pid, uint64_t start)
{
	for (uint32_t i = 0; i < CUA_CS_SLOTS; i++) {
		struct cua_cs_slot *s = &slots[i];
		uint64_t w = 0, gen;
		uint32_t h;

		if (__atomic_load_n(&s->owner, __ATOMIC_RELAXED))
			continue;
		gen = __atomic_add_fetch(&head->next_gen, 1, __ATOMIC_RELAXED) & 0x7fffffffu;
		if (!__atomic_compare_exchange_n(&s->owner, &w, (uint64_t)pid | gen << 32, 0,
						 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			continue;
		for (unsigned d = 0; d < CUA_CS_DEVICES; d++) {
			__atomic_store_n(&s->wants[d], 0, __ATOMIC_RELAXED);
			__atomic_store_n(&s->held[d], 0, __ATOMIC_RELAXED);
			__atomic_store_n(&s->idle[d], 0, __ATOMIC_RELAXED);
			__atomic_store_n(&s->waiting[d], 0, __ATOMIC_RELAXED);
			__atomic_store_n(&s->limit[d], my_limit[d], __ATOMIC_RELAXED);
			for (unsigned b = 0; b < CUA_CS_BUCKETS; b++)
				__atomic_store_n(&s->bucket[d][b], 0, __ATOMIC_RELAXED);
		}
		__atomic_store_n(&s->launched, 0, __ATOMIC_RELAXED);
		memcpy(s->group, my_group, sizeof(s->group));
		__atomic_store_n(&s->start_ticks, start, __ATOMIC_RELAXED);
		__atomic_store_n(&s->pidns, my_ns, __ATOMIC_RELAXED);
		/* Locked before it says so: a slot that says so and has no holder is dead. */
		__atomic_store_n(&s->flags, lock_slot(i) ? CUA_CS_SLOT_LOCKED : 0, __ATOMIC_SEQ_CST);
		h = __atomic_load_n(&head->hwm, __ATOMIC_SEQ_CST);
		while (h < i + 1 && !__atomic_compare_exchange_n(&head->hwm, &h, i + 1, 0,
								__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			;
		__atomic_store_n(&s->owner, (uint64_t)pid | gen << 32 | CUA_CS_READY,
				 __ATOMIC_RELEASE);
		__atomic_store_n(&mine, (uint64_t)pid << 32 | (i + 1), __ATOMIC_RELEASE);
		return (int)i;
	}
	return -1;
}

/* This process's slot; a forked child claims its own (its parent's is its parent's). */
static struct cua_cs_slot *my_slot(void)
{
	uint64_t m = __atomic_load_n(&mine, __ATOMIC_ACQUIRE);
	uint32_t pid = (uint32_t)cua_process_id();

	if (!usable())
		return NULL;
	m = __atomic_load_n(&mine, __ATOMIC_ACQUIRE);
	if (m && m >> 32 == pid)
		return &slots[(m & 0xffffffffu) - 1];
	if (try_claim(pid, self_start()) < 0) {
		reclaim();
		if (try_claim(pid, self_start()) < 0)
			return NULL;
	}
	m = __atomic_load_n(&mine, __ATOMIC_ACQUIRE);
	return &slots[(m & 0xffffffffu) - 1];
}

int cua_cs_on(void)
{
	return head != NULL && __atomic_load_n(&state, __ATOMIC_ACQUIRE) == SHARED;
}

int cua_cs_attach(const char *dir, const char *group, const uint32_t *limit, struct cua_buf *why)
{
	static const struct cua_groupfile f = { CUA_CS_FILE_SIZE, init_head, check_head, NULL };
	char path[CUA_PATH_MAX_GROUP];
	void *map;

	if (cua_cs_path(path, sizeof(path), dir, (uint32_t)geteuid()) != 0)
		return fail(why, "has too long a path", 0);
	if (!(map = cua_groupfile_map(path, &f, &kept, why)))
		return -1;
	memset(my_group, 0, sizeof(my_group));
	if (group)
		memcpy(my_group, group, strnlen(group, CUA_CS_NAME_MAX - 1));
	memcpy(my_limit, limit, sizeof(my_limit));
	my_ns = cua_memgroup_pidns();
	head = map;
	slots = (struct cua_cs_slot *)((char *)map + CUA_CS_HEAD_SIZE);
	drop_own_past((uint32_t)cua_process_id(), self_start());
	if (!my_slot()) {
		munmap(map, CUA_CS_FILE_SIZE);
		close(kept.fd);
		kept.fd = -1;
		head = NULL;
		slots = NULL;
		return fail(why, "has every one of its 256 process slots taken by live processes", 0);
	}
	return 0;
}

/* ---------------------------------------------------------------- charges */

/* Adds ns to bucket number n of ring r: a word of an older number starts over; one of a
   newer number (the interval is older than the ring) is left. One writer per slot. */
static void add_bucket(uint64_t *r, uint64_t n, uint64_t ns)
{
	uint64_t *w = &r[n % CUA_CS_BUCKETS], v = __atomic_load_n(w, __ATOMIC_RELAXED);
	uint64_t have = v >> CUA_CS_BUSY_BITS, busy = v & ((1ull << CUA_CS_BUSY_BITS) - 1);
	uint64_t tag = n & ((1ull << (64 - CUA_CS_BUSY_BITS)) - 1);

	if (have > tag)
		return;
	if (have < tag)
		busy = 0;
	busy += ns;
	if (busy > CUA_CS_BUCKET_NS)
		busy = CUA_CS_BUCKET_NS;
	__atomic_store_n(w, tag << CUA_CS_BUSY_BITS | busy, __ATOMIC_RELAXED);
}

void cua_cs_charge(unsigned dev, uint64_t start, uint64_t end)
{
	struct cua_cs_slot *s;

	if (dev >= CUA_CS_DEVICES || end <= start || !(s = my_slot()))
		return;
	/* Older than the ring, or absurdly long: only its last ring's worth counts. */
	if (end - start > CUA_CS_BUCKET_NS * CUA_CS_BUCKETS)
		start = end - CUA_CS_BUCKET_NS * CUA_CS_BUCKETS;
	while (start < end) {
		uint64_t n = start / CUA_CS_BUCKET_NS, edge = (n + 1) * CUA_CS_BUCKET_NS;
		uint64_t stop = end < edge ? end : edge;

		add_bucket(s->bucket[dev], n, stop - start);
		start = stop;
	}
}

void cua_cs_want(unsigned dev, uint64_t now, uint64_t held_ns)
{
	struct cua_cs_slot *s;

	if (dev >= CUA_CS_DEVICES || !(s = my_slot()))
		return;
	if (__atomic_load_n(&s->wants[dev], __ATOMIC_RELAXED) < now)
		__atomic_store_n(&s->wants[dev], now, __ATOMIC_RELAXED);
	if (held_ns)
		__atomic_add_fetch(&s->held[dev], held_ns, __ATOMIC_RELAXED);
}

void cua_cs_idle(unsigned dev, uint64_t now)
{
	struct cua_cs_slot *s;

	if (dev >= CUA_CS_DEVICES || !(s = my_slot()))
		return;
	if (__atomic_load_n(&s->idle[dev], __ATOMIC_RELAXED) < now)
		__atomic_store_n(&s->idle[dev], now, __ATOMIC_RELEASE);
}

void cua_cs_launching(uint64_t now)
{
	struct cua_cs_slot *s = my_slot();
	uint64_t l;

	if (!s)
		return;
	/* Raised, never lowered: another thread's go may have stored a later time. */
	l = __atomic_load_n(&s->launched, __ATOMIC_RELAXED);
	while (l <= now && !__atomic_compare_exchange_n(&s->launched, &l, now + 1, 1,
							__ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

int cua_cs_drain_watched(uint64_t (*clock)(void), uint64_t *now)
{
	if (!usable())
		return 0;
	for (unsigned dev = 0; dev < CUA_CS_DEVICES; dev++) {
		uint64_t t, end;

		if (!my_limit[dev] || !(t = __atomic_load_n(&head->turn[dev], __ATOMIC_ACQUIRE)))
			continue;
		/* A word no live process can have written (no slot, an end past any turn's length
		   ahead): no turn, as the judge takes it. */
		end = CUA_CS_TURN_END(t);
		if (!CUA_CS_TURN_SLOT(t) || CUA_CS_TURN_SLOT(t) > CUA_CS_SLOTS)
			continue;
		if (!*now)
			*now = clock();
		if (*now < end + CUA_CS_DRAIN_MAX_NS && end <= *now + CUA_CS_AHEAD_NS)
			return 1;
	}
	return 0;
}

/* ---------------------------------------------------------------- the rule */

/* Per group and bucket of the window: its processes' busy time (the rule's scratch; one
   caller at a time: the hook's refresh, or the command). */
static uint64_t busy[CUA_CS_MAX_GROUPS][CUA_CS_WINDOW_BUCKETS];

static uint64_t bucket_busy(const uint64_t *r, uint64_t n)
{
	uint64_t v = __atomic_load_n(&r[n % CUA_CS_BUCKETS], __ATOMIC_RELAXED);
	uint64_t tag = n & ((1ull << (64 - CUA_CS_BUSY_BITS)) - 1);

	return v >> CUA_CS_BUSY_BITS == tag ? v & ((1ull << CUA_CS_BUSY_BITS) - 1) : 0;
}

static unsigned find_group(struct cua_cs_group *out, unsigned *n, unsigned max,
			   const struct cua_cs_slot *s, uint32_t pid)
{
	unsigned g;

	if (s->group[0])
		for (g = 0; g < *n; g++)
			if (out[g].name[0] && strncmp(out[g].name, s->group, CUA_CS_NAME_MAX) == 0)
				return g;
	if (*n >= max)
		return max;
	g = (*n)++;
	memset(&out[g], 0, sizeof(out[g]));
	memcpy(out[g].name, s->group, CUA_CS_NAME_MAX);
	out[g].name[CUA_CS_NAME_MAX - 1] = '\0';
	out[g].pid = pid;
	memset(busy[g], 0, sizeof(busy[g]));
	return g;
}

/* Bucket b's time shared out among the groups busy in it (see compshare.h). */
static void share_bucket(struct cua_cs_group *out, unsigned n, unsigned b)
{
	unsigned order[CUA_CS_MAX_GROUPS], k = 0;
	uint64_t total = 0;

	for (unsigned g = 0; g < n; g++)
		if (busy[g][b]) {
			total += busy[g][b];
			order[k++] = g;
		}
	if (total <= CUA_CS_BUCKET_NS) {
		for (unsigned i = 0; i < k; i++)
			out[order[i]].charge_ns += busy[order[i]][b];
		return;
	}
	/* Shortest first: each level's time is shared by the groups still busy at it. */
	for (unsigned i = 1; i < k; i++)
		for (unsigned j = i; j > 0 && busy[order[j]][b] < busy[order[j - 1]][b]; j--) {
			unsigned t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (unsigned i = 0; i < k; i++) {
		uint64_t c = 0, prev = 0;

		for (unsigned j = 0; j <= i; j++) {
			uint64_t lvl = busy[order[j]][b];

			c += (lvl - prev) / (k - j);
			prev = lvl;
		}
		out[order[i]].charge_ns += c;
	}
}

/* A time t read from the file, as believed at now: 0 (never) past CUA_CS_AHEAD_NS ahead. */
static uint64_t believed(uint64_t t, uint64_t now)
{
	return t > now + CUA_CS_AHEAD_NS ? 0 : t;
}

unsigned cua_cs_groups(const struct cua_cs_slot *sl, uint32_t n_slots, unsigned dev,
		       uint64_t now, struct cua_cs_group *out, unsigned max)
{
	uint64_t last = now / CUA_CS_BUCKET_NS, first = last + 1 - CUA_CS_WINDOW_BUCKETS;
	unsigned n = 0;

	if (dev >= CUA_CS_DEVICES)
		return 0;
	if (max > CUA_CS_MAX_GROUPS)
		max = CUA_CS_MAX_GROUPS;
	for (uint32_t i = 0; i < n_slots && i < CUA_CS_SLOTS; i++) {
		const struct cua_cs_slot *s = &sl[i];
		uint64_t w = __atomic_load_n(&s->owner, __ATOMIC_ACQUIRE), sum = 0;
		uint64_t wants = believed(__atomic_load_n(&s->wants[dev], __ATOMIC_RELAXED), now);
		uint32_t limit = __atomic_load_n(&s->limit[dev], __ATOMIC_RELAXED);
		uint64_t per[CUA_CS_WINDOW_BUCKETS];
		unsigned g;

		if (!(w & CUA_CS_READY))
			continue;
		for (unsigned b = 0; b < CUA_CS_WINDOW_BUCKETS; b++)
			sum += per[b] = bucket_busy(s->bucket[dev], first + b);
		if (!sum && (!wants || wants + CUA_CS_WINDOW_NS < now))
			continue;
		if ((g = find_group(out, &n, max, s, CUA_CS_PID(w))) >= max)
			continue;
		out[g].processes++;
		if (limit > out[g].limit)
			out[g].limit = limit;
		if (wants && wants + CUA_CS_ACTIVE_NS >= now)
			out[g].active = 1;
		out[g].held_ns += __atomic_load_n(&s->held[dev], __ATOMIC_RELAXED);
		{
			uint64_t wt = believed(__atomic_load_n(&s->waiting[dev], __ATOMIC_RELAXED), now);

			if (wt > out[g].waiting)
				out[g].waiting = wt;
		}
		out[g].busy_ns += sum;
		/* A group's processes may run at once: no more than the bucket each. */
		for (unsigned b = 0; b < CUA_CS_WINDOW_BUCKETS; b++) {
			busy[g][b] += per[b];
			if (busy[g][b] > CUA_CS_BUCKET_NS)
				busy[g][b] = CUA_CS_BUCKET_NS;
		}
	}
	for (unsigned b = 0; b < CUA_CS_WINDOW_BUCKETS; b++)
		share_bucket(out, n, b);
	return n;
}

/* The window's length at now: 99 whole buckets and the current one so far. */
static uint64_t window_at(uint64_t now)
{
	return (CUA_CS_WINDOW_BUCKETS - 1) * CUA_CS_BUCKET_NS + now % CUA_CS_BUCKET_NS;
}

/* What group g may use of a window of w ns: a cap, its percent; a weight, its part by
   weight of what the active capped groups leave unused, each of them counting for the
   lesser of its cap and its charge (so caps that sum to 100 or more still leave the
   weights the time they do not use). */
static uint64_t allowed(const struct cua_cs_group *out, unsigned n, unsigned g, uint64_t w)
{
	uint64_t weights = 0, capped = 0;

	if (!(out[g].limit & CUA_CS_SHARE))
		return w / 100 * CUA_CS_PCT(out[g].limit);
	for (unsigned h = 0; h < n; h++) {
		uint64_t cap;

		if (!out[h].active && h != g)
			continue;
		if (out[h].limit & CUA_CS_SHARE) {
			weights += CUA_CS_PCT(out[h].limit);
			continue;
		}
		cap = w / 100 * CUA_CS_PCT(out[h].limit);
		capped += out[h].charge_ns < cap ? out[h].charge_ns : cap;
	}
	if (capped >= w || !weights)
		return 0;
	return (w - capped) / weights * CUA_CS_PCT(out[g].limit);
}

int cua_cs_over(const struct cua_cs_group *out, unsigned n, unsigned g)
{
	uint64_t now_w = CUA_CS_WINDOW_NS; /* the caller's window: the rule is in proportions */

	if (g >= n || !out[g].limit || out[g].charge_ns <= allowed(out, n, g, now_w))
		return 0;
	if (!(out[g].limit & CUA_CS_SHARE))
		return 1;
	/* A weight yields only to an active group that has less than its own part. */
	for (unsigned h = 0; h < n; h++)
		if (h != g && out[h].active && out[h].limit &&
		    out[h].charge_ns < allowed(out, n, h, now_w))
			return 1;
	return 0;
}

/* The groups of dev at now in out, their charges scaled to a full window, with *me this
   process's group (n when it has none there) and its own limit in it. */
static unsigned look(unsigned dev, uint64_t now, struct cua_cs_group *out, unsigned *me)
{
	uint64_t m = __atomic_load_n(&mine, __ATOMIC_ACQUIRE), w = window_at(now);
	unsigned n = cua_cs_groups(slots, hwm(), dev, now, out, CUA_CS_MAX_GROUPS);

	*me = n;
	for (unsigned i = 0; i < n; i++) {
		/* Charges scaled to a full window: the rule compares proportions. */
		out[i].charge_ns = out[i].charge_ns * CUA_CS_WINDOW_NS / w;
		if (my_group[0] ? strncmp(out[i].name, my_group, CUA_CS_NAME_MAX) == 0
				: !out[i].name[0] && out[i].pid == (uint32_t)(m >> 32))
			*me = i;
	}
	return n;
}

int cua_cs_assess(unsigned dev, uint64_t now, struct cua_cs_group *g)
{
	static struct cua_cs_group out[CUA_CS_MAX_GROUPS];
	unsigned n, me;

	if (!my_slot() || dev >= CUA_CS_DEVICES)
		return 0;
	n = look(dev, now, out, &me);
	if (me >= n) {
		memset(g, 0, sizeof(*g));
		return 0;
	}
	*g = out[me];
	/* Its own limit, whatever another process of the group gave. */
	out[me].limit = my_limit[dev];
	return cua_cs_over(out, n, me);
}

/* ---------------------------------------------------------------- turns */

/* Whether slot i's process is of the same group as slot j's. */
static int same_group(uint32_t i, uint32_t j)
{
	return i == j || (slots[i].group[0] &&
			  strncmp(slots[i].group, slots[j].group, CUA_CS_NAME_MAX) == 0);
}

/* Whether every process of slot h's group that wanted dev lately has seen its work there
   finished since its last go. One that did not want it within CUA_CS_ACTIVE_NS (gone, or
   not using the device) is not waited for. */
static int drained(uint32_t h, unsigned dev, uint64_t now)
{
	for (uint32_t i = 0, n = hwm(); i < n; i++) {
		if (!(__atomic_load_n(&slots[i].owner, __ATOMIC_ACQUIRE) & CUA_CS_READY) ||
		    !same_group(i, h) ||
		    believed(__atomic_load_n(&slots[i].wants[dev], __ATOMIC_RELAXED), now) +
				    CUA_CS_ACTIVE_NS < now)
			continue;
		if (__atomic_load_n(&slots[i].idle[dev], __ATOMIC_ACQUIRE) <
		    __atomic_load_n(&slots[i].launched, __ATOMIC_ACQUIRE))
			return 0;
	}
	return 1;
}

static uint64_t turn_word(uint32_t slot, uint64_t end)
{
	return ((end + 1023) >> 10) << 12 | (slot + 1);
}

static int go(struct cua_cs_slot *s, unsigned dev, uint64_t now, uint64_t until, uint64_t *out)
{
	/* After the idle time this look published: work this go lets through is unfinished
	   until a later look sees it done. */
	__atomic_store_n(&s->launched, now + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&s->waiting[dev], 0, __ATOMIC_RELAXED);
	*out = until;
	return CUA_CS_GO;
}

static int wait_turn(struct cua_cs_slot *s, unsigned dev, uint64_t now, uint64_t again,
		     uint64_t *out)
{
	__atomic_store_n(&s->waiting[dev], now, __ATOMIC_RELAXED);
	*out = again;
	return CUA_CS_WAIT;
}

int cua_cs_judge(unsigned dev, uint64_t now, int pending, uint64_t *until)
{
	static struct cua_cs_group out[CUA_CS_MAX_GROUPS];
	struct cua_cs_slot *s = my_slot();
	uint32_t me_slot, holder;
	uint64_t t, end, len;
	unsigned n, me;
	int others = 0, others_wait = 0, mine;

	*until = now + CUA_CS_TURN_MIN_NS;
	if (!s || dev >= CUA_CS_DEVICES)
		return CUA_CS_GO;
	me_slot = (uint32_t)(s - slots);
	if (!pending)
		__atomic_store_n(&s->idle[dev], now, __ATOMIC_RELEASE);
	n = look(dev, now, out, &me);
	if (me >= n)
		return go(s, dev, now, *until, until);
	out[me].limit = my_limit[dev];
	t = __atomic_load_n(&head->turn[dev], __ATOMIC_ACQUIRE);
	holder = CUA_CS_TURN_SLOT(t);
	end = CUA_CS_TURN_END(t);
	/* A word no live process can have written (no slot, an end past any turn): no turn. */
	if (holder > CUA_CS_SLOTS || end > now + CUA_CS_AHEAD_NS) {
		holder = 0;
		end = 0;
	}
	mine = holder && holder - 1 < CUA_CS_SLOTS && same_group(holder - 1, me_slot);
	if (cua_cs_over(out, n, me)) {
		/* Over its share: its turn ends now, for the others. */
		if (mine && end > now)
			__atomic_compare_exchange_n(&head->turn[dev], &t, turn_word(holder - 1, now), 0,
						    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
		/* Held by its share, it waits for no turn. */
		__atomic_store_n(&s->waiting[dev], 0, __ATOMIC_RELAXED);
		return CUA_CS_OVER;
	}
	for (unsigned h = 0; h < n; h++) {
		if (h == me || !out[h].active)
			continue;
		others = 1;
		if (out[h].waiting + CUA_CS_WAITING_NS >= now)
			others_wait = 1;
	}
	/* Alone on the device: no turn. */
	if (!others)
		return go(s, dev, now, *until, until);
	if (holder && end > now) {
		if (mine)
			return go(s, dev, now, end, until);
		/* Another group's turn: look again at its end. */
		return wait_turn(s, dev, now, end, until);
	}
	/* The turn is up (or none was ever taken). Its group yields to one that waits. */
	if (mine && others_wait)
		return wait_turn(s, dev, now, now + CUA_CS_TURN_MIN_NS / 16, until);
	/* Another group's work may still run: wait until it is seen finished, within bounds. */
	if (holder && !mine && holder - 1 < CUA_CS_SLOTS && now < end + CUA_CS_DRAIN_MAX_NS &&
	    !drained(holder - 1, dev, now))
		return wait_turn(s, dev, now, now + CUA_CS_TURN_MIN_NS / 16, until);
	len = CUA_CS_TURN_NS / 100 * CUA_CS_PCT(my_limit[dev]);
	if (len < CUA_CS_TURN_MIN_NS)
		len = CUA_CS_TURN_MIN_NS;
	if (!__atomic_compare_exchange_n(&head->turn[dev], &t, turn_word(me_slot, now + len), 0,
					 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		/* Another process took it first: look again soon. */
		return wait_turn(s, dev, now, now + CUA_CS_TURN_MIN_NS / 16, until);
	return go(s, dev, now, now + len, until);
}
