/* SPDX-License-Identifier: MIT */
/* groups/memgroup.c: one process's side of a memory group: making or checking the group's file, its slot, and the charges against the shared quota. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "fmt.h"
#include "memgroup.h"
#include "process.h"

_Static_assert(sizeof(struct cua_group_head) == CUA_GROUP_HEAD_SIZE, "the head is 4096 bytes");
_Static_assert(sizeof(struct cua_group_slot) % 64 == 0, "slots keep to cache lines");

/* A charge that keeps meeting other processes' charges in flight gives up after this many
   tries or this long, refused: a bound, never a wait on another process (one stopped inside
   its charge, say). Each try yields the processor, which on a loaded machine may take a
   scheduler slice. The time allows for a neighbour preempted between the two steps of its
   grant (used raised, trying not yet lowered: counted twice meanwhile) on a loaded machine,
   where a runnable thread may wait tens of milliseconds for a core; 20 ms refused such
   charges with room left (1 round in 400 beside two busy loops). */
#define CONTENDED_TRIES 4096u
#define CONTENDED_NS (250ull * 1000 * 1000)

static struct cua_group_head *head;
static struct cua_group_slot *slots;
/* This process's slot: its pid in the high half, its index + 1 in the low (0: none). A
   forked child finds its parent's pid here and claims its own. */
static uint64_t mine;
static uint64_t quota[CUA_GROUP_DEVICES];
static uint64_t my_ns;
/* The file kept open, and whether it was found cut short: then the mapping is private zero
   pages and the process is in no group (groupfile.h). */
static struct cua_groupfile_kept kept = { .fd = -1 };
static int lost;
static void (*on_lost)(void);

void cua_memgroup_set_on_lost(void (*fn)(void))
{
	on_lost = fn;
}

/* Whether the file may be touched now: it is still whole. The first look that finds it cut
   short puts zero pages in its place and says so, once; the process is then in no group. */
static int whole(void)
{
	if (!head || __atomic_load_n(&lost, __ATOMIC_ACQUIRE))
		return 0;
	if (cua_groupfile_whole(&kept, 0))
		return 1;
	if (!__atomic_exchange_n(&lost, 1, __ATOMIC_ACQ_REL)) {
		cua_groupfile_drop(head, CUA_GROUP_FILE_SIZE, &kept);
		if (on_lost)
			on_lost();
	}
	return 0;
}

/* ---------------------------------------------------------------- files and names */

int cua_memgroup_path(char *out, size_t cap, const char *dir, uint32_t uid, const char *name)
{
	struct cua_buf b = { out, 0, cap, 0, NULL, 0 };

	if (cap == 0)
		return -1;
	cua_buf_str(&b, dir);
	cua_buf_char(&b, '/');
	cua_buf_str(&b, CUA_GROUP_FILE_PREFIX);
	cua_buf_u64(&b, uid);
	cua_buf_char(&b, '-');
	cua_buf_str(&b, name);
	if (b.len >= cap)
		return -1;
	out[b.len] = '\0';
	return 0;
}

const char *cua_memgroup_check_head(const struct cua_group_head *h, uint64_t size, uint32_t uid)
{
	static const uint8_t zero[sizeof(h->reserved)];

	if (size < sizeof(*h) || memcmp(h->magic, CUA_GROUP_MAGIC, 8) != 0)
		return "is no cuaudit memory group file (its magic is wrong), or is truncated";
	if (h->version != CUA_GROUP_VERSION)
		return "has another format version than this cuaudit's (1): a group file of an older"
		       " or newer cuaudit; processes of both versions cannot share a group";
	if (h->head_size != CUA_GROUP_HEAD_SIZE || h->slots != CUA_GROUP_SLOTS ||
	    h->devices != CUA_GROUP_DEVICES || h->slot_size != sizeof(struct cua_group_slot) ||
	    h->file_size != CUA_GROUP_FILE_SIZE)
		return "is corrupt (its sizes are not those of format version 1)";
	if (size != CUA_GROUP_FILE_SIZE)
		return "is truncated or extended (its size is not what its head says)";
	if (h->uid != uid)
		return "names another owner in its head";
	if (h->hwm > CUA_GROUP_SLOTS || memchr(h->name, '\0', sizeof(h->name)) == NULL ||
	    memcmp(h->reserved, zero, sizeof(zero)) != 0)
		return "is corrupt (a field of its head is out of range)";
	return NULL;
}

/* ---------------------------------------------------------------- processes */

static int read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	ssize_t n;

	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? 0 : -1;
	do
		n = read(fd, buf, cap - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return n == 0 ? 0 : -1;
	buf[n] = '\0';
	return (int)n;
}

static void proc_path(char *out, size_t cap, uint32_t pid, const char *leaf)
{
	struct cua_buf b = { out, 0, cap - 1, 0, NULL, 0 };

	cua_buf_str(&b, "/proc/");
	cua_buf_u64(&b, pid);
	cua_buf_str(&b, leaf);
	out[b.len < cap ? b.len : cap - 1] = '\0';
}

/* Threads of a process from /proc/PID/status; 0 when unknown. */
static uint64_t thread_count(uint32_t pid)
{
	char path[64], buf[4096];
	const char *p;
	uint64_t n = 0;

	proc_path(path, sizeof(path), pid, "/status");
	if (read_small(path, buf, sizeof(buf)) <= 0 || !(p = strstr(buf, "\nThreads:")))
		return 0;
	for (p += 9; *p == ' ' || *p == '\t'; p++)
		;
	for (; *p >= '0' && *p <= '9'; p++)
		n = n * 10 + (uint64_t)(*p - '0');
	return n;
}

int cua_memgroup_proc_start(uint32_t pid, uint64_t *ticks)
{
	char path[64], buf[1024];
	const char *p;
	uint64_t t = 0;
	int r;

	if (pid == 0)
		return 0;
	proc_path(path, sizeof(path), pid, "/stat");
	if ((r = read_small(path, buf, sizeof(buf))) <= 0)
		return r;
	/* The command name may hold spaces and parentheses: fields count from the last ')'. */
	if (!(p = strrchr(buf, ')')) || p[1] != ' ')
		return -1;
	p += 2;
	/* A zombie's device memory is freed; one whose main thread alone ended is not. */
	if ((*p == 'Z' || *p == 'X') && thread_count(pid) <= 1)
		return 0;
	for (unsigned field = 3; field < 22; field++) {
		if (!(p = strchr(p, ' ')))
			return -1;
		p++;
	}
	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++)
		t = t * 10 + (uint64_t)(*p - '0');
	*ticks = t;
	return 1;
}

uint64_t cua_memgroup_pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

int cua_memgroup_slot_alive(uint64_t owner, uint64_t start_ticks, uint64_t slot_ns, uint64_t ns)
{
	uint64_t t = 0;
	int r;

	/* Its pid means another process here: only its own namespace can judge it. */
	if (slot_ns && ns && slot_ns != ns)
		return -1;
	r = cua_memgroup_proc_start(CUA_GROUP_PID(owner), &t);
	if (r <= 0)
		return r;
	/* A process that could not read its own start: alive while its pid is. */
	if (!start_ticks)
		return 1;
	/* The same pid with another start is a new process: the old one is gone. */
	return t == start_ticks ? 1 : 0;
}

/* ---------------------------------------------------------------- slots */

/* Takes the lock of slot i for this process: 1 if held on a description of its own (the slot
   may then say so), 0 if not (the slot is judged as before: by /proc alone). */
static int lock_slot(uint32_t i)
{
	return cua_groupfile_lock_own(&kept, head, CUA_GROUP_SLOT_AT(i));
}

/* Whether slot i, flagged locked, is held by a live process: 1, 0, -1 cannot be told (this
   process's description may be shared with the slot's own: a fork before its reopen). */
static int slot_held(uint32_t i)
{
	if (!cua_groupfile_own(&kept))
		return -1;
	return cua_groupfile_held(&kept, CUA_GROUP_SLOT_AT(i), 1);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint32_t hwm(void)
{
	uint32_t n = __atomic_load_n(&head->hwm, __ATOMIC_SEQ_CST);

	return n < CUA_GROUP_SLOTS ? n : CUA_GROUP_SLOTS;
}

/* Bytes on dev of every ready slot: granted, and with trying also those in flight. All
   loads sequentially consistent: a charge's own trying add comes before its reads, so of
   two charges at once at least one sees the other (docs/hooks.md). In each slot, trying is
   read before used: a grant adds to used before it takes from trying, so a charge is seen
   once or twice, never not at all. */
static uint64_t sum(unsigned dev, int with_trying)
{
	uint32_t n = hwm();
	uint64_t t = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct cua_group_slot *s = &slots[i];

		if (!(__atomic_load_n(&s->owner, __ATOMIC_SEQ_CST) & CUA_GROUP_READY))
			continue;
		if (with_trying)
			t = sat_add(t, __atomic_load_n(&s->trying[dev], __ATOMIC_SEQ_CST));
		t = sat_add(t, __atomic_load_n(&s->used[dev], __ATOMIC_SEQ_CST));
	}
	return t;
}

static void sub_sat(uint64_t *w, uint64_t bytes)
{
	uint64_t u = __atomic_load_n(w, __ATOMIC_SEQ_CST);

	while (!__atomic_compare_exchange_n(w, &u, u > bytes ? u - bytes : 0, 0, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST))
		;
}

static void add_sat(uint64_t *w, uint64_t bytes)
{
	uint64_t u = __atomic_load_n(w, __ATOMIC_SEQ_CST);

	while (!__atomic_compare_exchange_n(w, &u, sat_add(u, bytes), 0, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST))
		;
}

static uint64_t self_start(void)
{
	uint64_t t = 0;

	return cua_memgroup_proc_start((uint32_t)cua_process_id(), &t) == 1 ? t : 0;
}

/* Frees slot i if its owner word is still w; 1 if this call freed it. */
static int take_back(uint32_t i, uint64_t w)
{
	if (!__atomic_compare_exchange_n(&slots[i].owner, &w, 0, 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		return 0;
	__atomic_add_fetch(&head->reclaimed, 1, __ATOMIC_RELAXED);
	return 1;
}

static uint32_t my_index(void)
{
	uint64_t m = __atomic_load_n(&mine, __ATOMIC_ACQUIRE);

	if (m && m >> 32 == (cua_process_id() & 0xffffffffu))
		return (uint32_t)(m & 0xffffffffu);
	return 0;
}

unsigned cua_memgroup_reclaim(void)
{
	uint32_t n, me;
	unsigned count = 0;

	if (!head)
		return 0;
	if (!whole())
		return 0;
	n = hwm();
	me = my_index();
	for (uint32_t i = 0; i < n; i++) {
		struct cua_group_slot *s;
		uint64_t w, t = 0;

		/* A look at /proc per slot is long: the file may be cut short meanwhile. */
		if (!whole())
			return count;
		s = &slots[i];
		w = __atomic_load_n(&s->owner, __ATOMIC_ACQUIRE);

		if (!w || i + 1 == me)
			continue;
		if (!(w & CUA_GROUP_READY)) {
			/* A claim in progress, or one whose process died before it finished: its
			   counters do not count; free it once its pid is gone. */
			if (cua_memgroup_proc_start(CUA_GROUP_PID(w), &t) == 0)
				count += (unsigned)take_back(i, w);
			continue;
		}
		switch (cua_memgroup_slot_alive(w, __atomic_load_n(&s->start_ticks, __ATOMIC_ACQUIRE),
						__atomic_load_n(&s->pidns, __ATOMIC_ACQUIRE), my_ns)) {
		case 0:
			count += (unsigned)take_back(i, w);
			break;
		case -1:
			/* Not to be told from /proc here (another pid namespace, perhaps one gone
			   with its container): dead when no one holds its lock. */
			if ((__atomic_load_n(&s->flags, __ATOMIC_SEQ_CST) & CUA_GROUP_SLOT_LOCKED) &&
			    slot_held(i) == 0)
				count += (unsigned)take_back(i, w);
			break;
		}
	}
	return count;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The cheap look between full ones: one kill(pid, 0) per slot of this pid namespace takes
   back those whose pid is gone (ESRCH). A zombie or a reused pid waits for a full look. */
static unsigned reclaim_gone(void)
{
	uint32_t n = hwm(), me = my_index();
	unsigned count = 0;

	for (uint32_t i = 0; i < n && whole(); i++) {
		uint64_t w = __atomic_load_n(&slots[i].owner, __ATOMIC_ACQUIRE);
		uint64_t ns = __atomic_load_n(&slots[i].pidns, __ATOMIC_ACQUIRE);

		if (!w || i + 1 == me || (ns && my_ns && ns != my_ns) || !CUA_GROUP_PID(w))
			continue;
		if (kill((pid_t)CUA_GROUP_PID(w), 0) != 0 && errno == ESRCH)
			count += (unsigned)take_back(i, w);
	}
	return count;
}

unsigned cua_memgroup_reclaim_soon(void)
{
	uint64_t now, last;

	if (!whole())
		return 0;
	now = now_ns();
	last = __atomic_load_n(&head->scan_ns, __ATOMIC_RELAXED);
	/* A stamp in the future is another clock's (a time namespace): look anyway. */
	if ((last <= now && now - last < CUA_GROUP_SCAN_NS) ||
	    !__atomic_compare_exchange_n(&head->scan_ns, &last, now, 0, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		return reclaim_gone();
	return cua_memgroup_reclaim();
}

/* Slots left by this process's own image before an exec (same pid, same start): exec
   replaced the image, so the driver freed what they charged. */
static void drop_own_past(uint64_t start)
{
	uint32_t pid = (uint32_t)cua_process_id();

	for (uint32_t i = 0, n = hwm(); i < n; i++) {
		uint64_t w = __atomic_load_n(&slots[i].owner, __ATOMIC_ACQUIRE);

		if (w && CUA_GROUP_PID(w) == pid &&
		    __atomic_load_n(&slots[i].start_ticks, __ATOMIC_ACQUIRE) == start &&
		    __atomic_load_n(&slots[i].pidns, __ATOMIC_ACQUIRE) == my_ns)
			take_back(i, w);
	}
}

/* Claims a free slot for pid: its index, its ready owner word in *word; -1 if none. */
static int try_claim(uint32_t pid, uint64_t start, uint64_t *word)
{
	for (uint32_t i = 0; i < CUA_GROUP_SLOTS; i++) {
		struct cua_group_slot *s = &slots[i];
		uint64_t w = 0, gen;
		uint32_t h;

		if (__atomic_load_n(&s->owner, __ATOMIC_RELAXED))
			continue;
		gen = __atomic_add_fetch(&head->next_gen, 1, __ATOMIC_RELAXED) & 0x7fffffffu;
		if (!__atomic_compare_exchange_n(&s->owner, &w, (uint64_t)pid | gen << 32, 0,
						 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			continue;
		for (unsigned d = 0; d < CUA_GROUP_DEVICES; d++) {
			__atomic_store_n(&s->trying[d], 0, __ATOMIC_RELAXED);
			__atomic_store_n(&s->used[d], 0, __ATOMIC_RELAXED);
		}
		__atomic_store_n(&s->start_ticks, start, __ATOMIC_RELAXED);
		__atomic_store_n(&s->pidns, my_ns, __ATOMIC_RELAXED);
		/* Locked before it says so: a slot that says so and has no holder is dead. */
		__atomic_store_n(&s->flags, lock_slot(i) ? CUA_GROUP_SLOT_LOCKED : 0,
				 __ATOMIC_SEQ_CST);
		/* The sums must read this slot before it counts (memgroup.h, hwm). */
		h = __atomic_load_n(&head->hwm, __ATOMIC_SEQ_CST);
		while (h < i + 1 && !__atomic_compare_exchange_n(&head->hwm, &h, i + 1,
								0, __ATOMIC_SEQ_CST,
								__ATOMIC_SEQ_CST))
			;
		*word = (uint64_t)pid | gen << 32 | CUA_GROUP_READY;
		__atomic_store_n(&s->owner, *word, __ATOMIC_SEQ_CST);
		return (int)i;
	}
	return -1;
}

/* Claims this process's slot. Threads of a forked child (or a signal handler inside a
   claim) that find no slot of their pid claim at once: the first to publish its slot in
   mine wins, and the others give theirs back, never charged, so that the process has one
   slot and no charge goes to a slot it has dropped. Lock-free: nobody waits for another. */
static int claim(void)
{
	uint32_t pid = (uint32_t)cua_process_id();
	uint64_t start = self_start(), word = 0;
	uint64_t seen = __atomic_load_n(&mine, __ATOMIC_ACQUIRE), want;
	int i;

	if (seen >> 32 == pid && (seen & 0xffffffffu))
		return 0;
	if ((i = try_claim(pid, start, &word)) < 0) {
		cua_memgroup_reclaim();
		if ((i = try_claim(pid, start, &word)) < 0)
			return -1;
	}
	want = (uint64_t)pid << 32 | (uint32_t)(i + 1);
	while (!__atomic_compare_exchange_n(&mine, &seen, want, 0, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE)) {
		if (seen >> 32 == pid && (seen & 0xffffffffu)) {
			__atomic_store_n(&slots[i].flags, 0, __ATOMIC_SEQ_CST);
			cua_groupfile_lock(&kept, CUA_GROUP_SLOT_AT(i), F_UNLCK);
			__atomic_compare_exchange_n(&slots[i].owner, &word, 0, 0, __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST);
			return 0;
		}
	}
	return 0;
}

static struct cua_group_slot *my_slot(void)
{
	uint32_t i = my_index();

	if (!i && claim() != 0)
		return NULL;
	i = my_index();
	return i ? &slots[i - 1] : NULL;
}

/* ---------------------------------------------------------------- charges */

int cua_memgroup_on(void)
{
	return head != NULL && !__atomic_load_n(&lost, __ATOMIC_ACQUIRE);
}

uint64_t cua_memgroup_quota(unsigned dev)
{
	return dev < CUA_GROUP_DEVICES && quota[dev] && whole() ? quota[dev] : 0;
}

/* Whether a slot before index i has a charge in flight on dev: of charges that meet, the
   one in the first slot goes on and the others step aside, so that they never all step
   aside together, again and again. */
static int earlier_trying(unsigned dev, uint32_t i)
{
	for (uint32_t k = 0; k < i; k++)
		if ((__atomic_load_n(&slots[k].owner, __ATOMIC_SEQ_CST) & CUA_GROUP_READY) &&
		    __atomic_load_n(&slots[k].trying[dev], __ATOMIC_SEQ_CST))
			return 1;
	return 0;
}

int cua_memgroup_charge(unsigned dev, uint64_t size)
{
	struct cua_group_slot *s;
	uint64_t q = cua_memgroup_quota(dev), since = 0;
	int reclaimed = 0, in_flight = 0;

	if (!q)
		return 0;
	if (size > q || !(s = my_slot()))
		return -1;
	for (unsigned tries = 0;; tries++) {
		/* The file was cut short: no group any more, the process's own limit holds. */
		if (tries && !whole())
			return 0;
		if (!in_flight) {
			add_sat(&s->trying[dev], size);
			in_flight = 1;
		}
		if (sum(dev, 1) <= q) {
			add_sat(&s->used[dev], size);
			sub_sat(&s->trying[dev], size);
			return 0;
		}
		/* Refused for good only when the granted bytes leave no room: charges in flight
		   may yet be refused themselves, so meeting them means trying again. */
		if (sum(dev, 0) > q - size) {
			sub_sat(&s->trying[dev], size);
			in_flight = 0;
			if (reclaimed++ || !cua_memgroup_reclaim_soon())
				return -1;
			continue;
		}
		if (!since)
			since = now_ns();
		/* A charge in flight that never ends is a process that died inside one (between
		   its trying and its grant): only taking its slot back ends the wait. Looked for
		   soon, then now and then, and once more, unthrottled, before giving up. */
		if (tries % 256 == 15 && cua_memgroup_reclaim_soon()) {
			/* Room freed: the bound counts from here. */
			since = now_ns();
			continue;
		}
		if (tries >= CONTENDED_TRIES || (tries % 16 == 15 && now_ns() - since > CONTENDED_NS)) {
			if (!reclaimed++ && cua_memgroup_reclaim()) {
				tries = 0;
				since = now_ns();
				continue;
			}
			if (in_flight)
				sub_sat(&s->trying[dev], size);
			return -1;
		}
		if (earlier_trying(dev, (uint32_t)(s - slots))) {
			sub_sat(&s->trying[dev], size);
			in_flight = 0;
		}
		sched_yield();
	}
}

void cua_memgroup_adjust(unsigned dev, uint64_t bytes, int up)
{
	struct cua_group_slot *s;

	if (!cua_memgroup_quota(dev) || !bytes || !(s = my_slot()))
		return;
	if (up)
		add_sat(&s->used[dev], bytes);
	else
		sub_sat(&s->used[dev], bytes);
}

uint64_t cua_memgroup_used(unsigned dev, int reclaim)
{
	if (!cua_memgroup_quota(dev))
		return 0;
	if (reclaim)
		cua_memgroup_reclaim_soon();
	return sum(dev, 0);
}

/* ---------------------------------------------------------------- attaching */

static int fail(struct cua_buf *why, const char *what, int err)
{
	return cua_groupfile_fail(why, what, err);
}

/* What a group's file is made with, and what every process of the group must give. */
struct making {
	const char *name;
	const uint64_t *quota;
};

static void init_head(void *head, const void *arg)
{
	const struct making *m = arg;
	struct cua_group_head *h = head;

	memcpy(h->magic, CUA_GROUP_MAGIC, 8);
	h->version = CUA_GROUP_VERSION;
	h->head_size = CUA_GROUP_HEAD_SIZE;
	h->file_size = CUA_GROUP_FILE_SIZE;
	h->slots = CUA_GROUP_SLOTS;
	h->devices = CUA_GROUP_DEVICES;
	h->slot_size = sizeof(struct cua_group_slot);
	h->uid = (uint32_t)geteuid();
	memcpy(h->quota, m->quota, sizeof(h->quota));
	memcpy(h->name, m->name, strlen(m->name) + 1);
}

/* Any quota is accepted here: attach decides what a file of another one means. */
static const char *check_head(const void *head, uint64_t size, uint32_t uid, const void *arg)
{
	(void)arg;
	return cua_memgroup_check_head(head, size, uid);
}

/* Whether some process may still use the mapped file: a slot not known dead (by /proc, or,
   where /proc here cannot tell, by its lock held by no one). */
static int anyone_there(void)
{
	for (uint32_t i = 0, n = hwm(); i < n; i++) {
		struct cua_group_slot *s = &slots[i];
		uint64_t w = __atomic_load_n(&s->owner, __ATOMIC_SEQ_CST), t = 0;
		int a;

		if (!w)
			continue;
		if (!(w & CUA_GROUP_READY)) {
			if (cua_memgroup_proc_start(CUA_GROUP_PID(w), &t) != 0)
				return 1;
			continue;
		}
		a = cua_memgroup_slot_alive(w, __atomic_load_n(&s->start_ticks, __ATOMIC_SEQ_CST),
					    __atomic_load_n(&s->pidns, __ATOMIC_SEQ_CST), my_ns);
		if (a == 0 || (a < 0 &&
			       (__atomic_load_n(&s->flags, __ATOMIC_SEQ_CST) & CUA_GROUP_SLOT_LOCKED) &&
			       slot_held(i) == 0))
			continue;
		return 1;
	}
	return 0;
}

static void unmap_file(void)
{
	munmap(head, CUA_GROUP_FILE_SIZE);
	close(kept.fd);
	kept.fd = -1;
	head = NULL;
	slots = NULL;
}

int cua_memgroup_attach(const char *dir, const char *name, const uint64_t *q, struct cua_buf *why)
{
	char path[CUA_PATH_MAX_GROUP];
	const struct making m = { name, q };
	const struct cua_groupfile f = { CUA_GROUP_FILE_SIZE, init_head, check_head, &m };
	struct timespec nap = { 0, 0 };
	void *map;
	int other;

	if (cua_memgroup_path(path, sizeof(path), dir, (uint32_t)geteuid(), name) != 0)
		return fail(why, "has too long a path", 0);
	my_ns = cua_memgroup_pidns();
	for (unsigned round = 0; round < 50; round++) {
		/* Between 1 and 5 ms, by pid and round: two processes that each wait for the
		   other's shared hold to make the file anew do not meet again and again. */
		nap.tv_nsec = (long)(1 + (cua_process_id() + round) % 5) * 1000000L;
		if (round)
			nanosleep(&nap, NULL);
		if (!(map = cua_groupfile_map(path, &f, &kept, why)))
			return -1;
		head = map;
		slots = (struct cua_group_slot *)((char *)map + CUA_GROUP_HEAD_SIZE);
		/* Joining holds byte 0 shared, making the file anew holds it alone: no process
		   joins a file while it is replaced. The name is looked at under the lock. */
		if (cua_groupfile_lock(&kept, 0, F_RDLCK) != 0 || !cua_groupfile_named(path, &kept)) {
			unmap_file();
			continue;
		}
		other = memcmp(head->quota, q, sizeof(quota)) != 0;
		if (other && !anyone_there()) {
			/* Made with another CUAUDIT_MEM_LIMIT, and none of its processes is left:
			   made anew with this one, unless a process joins it meanwhile. */
			if (cua_groupfile_lock(&kept, 0, F_WRLCK) == 0 && !anyone_there() &&
			    cua_groupfile_named(path, &kept) && cua_groupfile_replace(path, &f, why) != 0) {
				unmap_file();
				return -1;
			}
			unmap_file();
			continue;
		}
		/* Live processes use another quota: this one joins under the file's, and keeps its
		   own limit too (the hook's), so the stricter of the two holds. */
		memcpy(quota, other ? head->quota : q, sizeof(quota));
		drop_own_past(self_start());
		if (claim() != 0) {
			unmap_file();
			return fail(why, "has every one of its 1024 process slots taken by live processes",
				    0);
		}
		cua_groupfile_lock(&kept, 0, F_UNLCK);
		if (!other)
			return 0;
		cua_buf_str(why, "was made with another CUAUDIT_MEM_LIMIT, and live processes use it."
			    " This process joins the group under the file's quota and keeps its own"
			    " CUAUDIT_MEM_LIMIT as well, so the stricter of the two holds (every process"
			    " of a group should give the same; once none of its processes is left, the"
			    " next one makes the file anew with its own)");
		return 1;
	}
	return fail(why, "cannot be joined: it keeps being replaced", 0);
}
