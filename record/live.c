/* SPDX-License-Identifier: MIT */
/* record/live.c: makes the per-process live region file, checks its directory, and hands each thread its slot. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "fd.h"
#include "fmt.h"
#include "kernelnames.h"
#include "liveconfig.h"
#include "livefmt.h"
#include "out.h"
#include "process.h"
#include "table.h"
#include "clock.h"
#include "threads.h"

struct cua_live_head *volatile cua_live_region;
uint64_t cua_live_region_pid;
uint32_t cua_live_calls_mask;
void (*cua_live_taking)(struct cua_live_slot *s);

/* Fixed in la_version. */
static struct {
	char dir[1024];
	uint32_t ncalls;
	uint32_t caps;
	uint64_t slot_size, file_size;
	struct cua_live_slot *scratch; /* where a thread without a slot writes: read by nobody */
} cfg;

/* Counts of the calls a thread makes while another thread makes the region (those calls
   write the scratch slot, which nobody reads): kept apart for the thread and added to its
   slot at the attach that finds one, so that the totals lose none of them. A pool, each
   entry held by a pid: a forked child's copy of an entry holds its parent's counts, and is
   taken over (cleared) like a free one. */
#define PENDING_MAX 64u
struct pending {
	uint64_t owner; /* the pid whose thread holds it; 0: free */
	uint64_t calls[CUAUDIT_ID_COUNT];
	uint64_t times[CUAUDIT_ID_COUNT];
	uint32_t errors[CUAUDIT_ID_COUNT];
};
static struct pending *pending_pool; /* PENDING_MAX of them, mapped in cua_live_setup */
static void forget_named(void);

/* This process's region: made when a CUDA library loads (cua_live_prepare), or by the first
   thread that calls (a forked child). */
static struct {
	uint64_t pid;     /* the process it belongs to; 0 before it is made */
	uint64_t opening; /* the pid of the process whose thread is making it; 0: none */
	int failed;       /* none for this process (message said) */
	char path[1100];
} region;

static size_t read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;

	if (fd < 0)
		return 0;
	while (n < cap) {
		ssize_t r = read(fd, buf + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	return n;
}

uint32_t cua_live_pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (uint32_t)st.st_ino : 0;
}

uint64_t cua_live_start_ticks(uint64_t pid)
{
	char path[64], buf[1024];
	struct cua_buf b = CUA_BUF(path);
	size_t n, i, close_paren = 0, field = 2;
	uint64_t v = 0;

	if (pid) {
		cua_buf_str(&b, "/proc/");
		cua_buf_u64(&b, pid);
		cua_buf_str(&b, "/stat");
	} else {
		cua_buf_str(&b, "/proc/self/stat");
	}
	path[b.len < sizeof(path) ? b.len : sizeof(path) - 1] = '\0';
	n = read_small(path, buf, sizeof(buf));
	/* The command name may hold spaces and parentheses: fields count from the last ')'. */
	for (i = 0; i < n; i++)
		if (buf[i] == ')')
			close_paren = i + 1;
	if (!close_paren)
		return 0;
	for (i = close_paren; i < n && field < 22; i++)
		if (buf[i] == ' ')
			field++;
	for (; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
		v = v * 10 + (uint64_t)(buf[i] - '0');
	return field == 22 ? v : 0;
}

size_t cua_live_file_name(char *out, size_t cap, uint64_t pid, uint64_t start_ticks)
{
	struct cua_buf b = { out, 0, cap, 0, NULL, 0 };

	cua_buf_u64(&b, pid);
	cua_buf_char(&b, '-');
	cua_buf_u64(&b, start_ticks);
	cua_buf_str(&b, ".live");
	if (cap)
		out[b.len < cap ? b.len : cap - 1] = '\0';
	return b.len;
}

/* A file already under our name that is this process's own region from before an exec
   (same pid, same start time, this PID namespace; marked exited where exited_only) is
   removed: returns 0. Anything else is left alone (-1): a process of another PID namespace
   sharing the directory whose pid and start time happen to be ours keeps its view. */
static int remove_own(int dirfd, const char *name, uint64_t pid, uint64_t start, int exited_only)
{
	struct cua_live_head h;
	struct stat st;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	int ours;

	if (fd < 0)
		return -1;
	ours = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	       pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	       memcmp(h.magic, CUA_LIVE_MAGIC, sizeof(CUA_LIVE_MAGIC) - 1) == 0 &&
	       h.pid == pid && h.start_ticks == start && (!exited_only || h.state == CUA_LIVE_EXITED) &&
	       (h.pidns == 0 || h.pidns == cua_live_pidns());
	close(fd);
	return ours ? unlinkat(dirfd, name, 0) : -1;
}

/* A new image after an exec: the file its process's old image left marked exited goes,
   whether or not this image makes one. */
static void forget_old_image(void)
{
	char name[64];
	uint64_t start = cua_live_start_ticks(0);
	int dirfd;

	if (!start || (dirfd = open(cfg.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return;
	cua_live_file_name(name, sizeof(name), cua_process_id(), start);
	(void)remove_own(dirfd, name, cua_process_id(), start, 1);
	close(dirfd);
}

int cua_live_setup(const char *dir, uint32_t ncalls, uint32_t caps)
{
	void *p;

	memcpy(cfg.dir, dir, strnlen(dir, sizeof(cfg.dir) - 1));
	cfg.ncalls = ncalls;
	cfg.caps = caps;
	cua_live_calls_mask = ncalls - 1;
	cfg.slot_size = cua_live_slot_size(ncalls, CUAUDIT_ID_COUNT);
	cfg.file_size = CUA_LIVE_HEAD_SIZE + CUA_LIVE_SLOTS * cfg.slot_size +
			CUA_LIVE_NAMES * (uint64_t)sizeof(struct cua_live_name);
	p = mmap(NULL, cfg.slot_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	cfg.scratch = p;
	p = mmap(NULL, CUA_LIVE_NAMED * sizeof(uint64_t), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	cua_live_named = p;
	/* Its records all in flight: a call in it takes none (cua_live_next_free). */
	for (uint32_t k = 0; k < ncalls; k++)
		cua_live_record(cfg.scratch, k)->h.seq = CUA_LIVE_IN_FLIGHT;
	/* Pages are touched only where a thread's first calls meet another's making the
	   region. No pool: such counts go to the scratch slot (and are lost from the totals). */
	p = mmap(NULL, PENDING_MAX * sizeof(struct pending), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pending_pool = p == MAP_FAILED ? NULL : p;
	forget_old_image();
	cua_live_on = 1;
	return 0;
}

static void say_off(const char *what, const char *path, int err)
{
	cua_out_report(what, path, err);
}

/* The directory (cua_liveconfig_open_dir). Returns its descriptor or -1 (said). */
static int open_dir(void)
{
	char what[160];
	struct cua_buf b = CUA_BUF(what);
	const char *why;
	int err, fd = cua_liveconfig_open_dir(cfg.dir, &why, &err);

	if (fd >= 0)
		return fd;
	cua_buf_str(&b, "the live view is off: ");
	cua_buf_str(&b, why);
	what[b.len < sizeof(what) ? b.len : sizeof(what) - 1] = '\0';
	say_off(what, cfg.dir, err);
	return -1;
}

/* The definition of cuaudit's clock (rt/livefmt.h, struct cua_live_clock), at the
   region's making, at each CUDA library's load and at each thread's attach (off the hot
   path, with the thread's signals blocked: no handler's jump leaves seq odd): the TSC is
   calibrated at the first CUDA library, which may load after a linked-in runtime's object
   made the region. Written inside the seqlock, by one thread at a time (one that finds
   another writing returns: they write the same definition), and only where it changes. */
static void publish_clock(struct cua_live_head *h)
{
	struct cua_live_clock *c = &h->clock;
	int on = __atomic_load_n(&cua_tsc_scale.on, __ATOMIC_ACQUIRE);
	uint32_t seq;

	if (__atomic_load_n(&c->tsc, __ATOMIC_ACQUIRE) ||
	    (!on && __atomic_load_n(&c->offset_ns, __ATOMIC_RELAXED) == cua_tsc_scale.test_offset))
		return;
	seq = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);
	if ((seq & 1) || !__atomic_compare_exchange_n(&c->seq, &seq, seq + 1, 0, __ATOMIC_RELAXED,
						      __ATOMIC_RELAXED))
		return;
	/* seq odd before any of the definition changes. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (!on) {
		__atomic_store_n(&c->offset_ns, cua_tsc_scale.test_offset, __ATOMIC_RELAXED);
	} else {
		__atomic_store_n(&c->tsc_base, cua_tsc_scale.tsc_base, __ATOMIC_RELAXED);
		__atomic_store_n(&c->ns_base, cua_tsc_scale.ns_base, __ATOMIC_RELAXED);
		__atomic_store_n(&c->mult, cua_tsc_scale.mult, __ATOMIC_RELAXED);
		__atomic_store_n(&c->tsc, 1, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&c->seq, seq + 2, __ATOMIC_RELEASE);
}

static void fill_head(struct cua_live_head *h, uint64_t pid, uint64_t start)
{
	char cmd[CUA_LIVE_PROGRAM];
	struct timespec ts;
	size_t n = read_small("/proc/self/cmdline", cmd, sizeof(cmd) - 1);

	for (size_t i = 0; i < n; i++)
		if (cmd[i] == '\0' || cmd[i] == '\n')
			cmd[i] = ' ';
	while (n && cmd[n - 1] == ' ')
		n--;
	memcpy(h->program, cmd, n);
	h->version = CUA_LIVE_VERSION;
	h->head_size = CUA_LIVE_HEAD_SIZE;
	h->file_size = cfg.file_size;
	h->slot_size = cfg.slot_size;
	h->nslots = CUA_LIVE_SLOTS;
	h->ncalls = cfg.ncalls;
	h->nids = CUAUDIT_ID_COUNT;
	h->args_max = CUA_LIVE_ARGS;
	h->table_sig = cua_table_sig();
	h->pid = pid;
	h->start_ticks = start;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	h->created_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	publish_clock(h);
	h->uid = geteuid();
	h->pidns = cua_live_pidns();
	h->caps = cfg.caps;
	h->names_off = CUA_LIVE_HEAD_SIZE + CUA_LIVE_SLOTS * cfg.slot_size;
	h->names_max = CUA_LIVE_NAMES;
	h->state = CUA_LIVE_RUNNING;
	/* The magic last: a reader never takes a half-made head for a region. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(h->magic, CUA_LIVE_MAGIC, sizeof(CUA_LIVE_MAGIC) - 1);
}

static struct cua_live_head *make_region(uint64_t pid)
{
	char name[64];
	uint64_t start = cua_live_start_ticks(0);
	struct cua_buf b = CUA_BUF(region.path);
	void *p;
	int dirfd, fd, err;

	if (!start) {
		say_off("the live view is off: cannot read ", "/proc/self/stat", errno ? errno : ENOENT);
		return NULL;
	}
	if ((dirfd = open_dir()) < 0)
		return NULL;
	cua_live_file_name(name, sizeof(name), pid, start);
	cua_buf_str(&b, cfg.dir);
	cua_buf_char(&b, '/');
	cua_buf_str(&b, name);
	region.path[b.len < sizeof(region.path) ? b.len : sizeof(region.path) - 1] = '\0';
	/* O_EXCL and O_NOFOLLOW: never a file (or a link) cuaudit did not make for us. */
	fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST && remove_own(dirfd, name, pid, start, 0) == 0)
		fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	err = errno;
	close(dirfd);
	if (fd < 0) {
		say_off("the live view is off: cannot create ", region.path, err);
		return NULL;
	}
	/* Blocks reserved now: a store into a sparse page of a full file system would raise
	   SIGBUS in the program. */
	err = cua_fd_grow(fd, (off_t)cfg.file_size, 1);
	if (err) {
		say_off("the live view is off: no room for ", region.path, err);
		close(fd);
		unlink(region.path);
		return NULL;
	}
	p = mmap(NULL, cfg.file_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	err = errno;
	/* The mapping keeps the file: no descriptor stays open for the program to close. */
	close(fd);
	if (p == MAP_FAILED) {
		say_off("the live view is off: cannot map ", region.path, err);
		unlink(region.path);
		return NULL;
	}
	fill_head(p, pid, start);
	return p;
}

/* In a forked child, in the program's fork before it returns: the parent's region, which the
   child shares through the mapping, is replaced by private memory at the same address, so
   that whatever the child's thread was writing when it forked (a signal handler forked in the
   middle of a call's start or end) lands there, not in the parent's file. Only the parent's:
   another child handler that ran first may have made a call, and with it the child's own
   region. The child makes its own region at its next call. errno is the program's: kept. */
static void child_after_fork(void)
{
	struct cua_live_head *h = cua_live_region;
	int saved = errno;

	if (h && __atomic_load_n(&cua_live_region_pid, __ATOMIC_ACQUIRE) != (uint64_t)getpid())
		(void)mmap(h, cfg.file_size, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
	/* The parent's launched keys: the child's launches of them are named in its region. */
	forget_named();
	errno = saved;
}

/* Once per process image, from the start-up's consistent state (the main thread, before the
   program's code runs: __register_atfork takes a lock, which a signal handler's first call
   could find held); a forked child inherits the registration. Without the program's
   __register_atfork (another C library), or for a child made without the C library's fork
   (_Fork, clone, a fork system call), a fork during a call's start or end can leave that one
   record in the parent's file. */
void cua_live_watch_forks(void)
{
	static int registered;

	if (cua_live_on && !registered && cua_program_register_atfork) {
		registered = 1;
		(void)cua_program_register_atfork(NULL, NULL, child_after_fork, NULL);
	}
}

/* This process's region, made now if it is not yet (when a CUDA library loads, or at the
   first call of a forked child); NULL when there is none. A thread that finds another making it
   gets none this time (*retry) and asks again next call. */
static struct cua_live_head *region_of(uint64_t pid, int *retry)
{
	uint64_t claim;
	struct cua_live_head *h;

	*retry = 0;
	if (__atomic_load_n(&region.pid, __ATOMIC_ACQUIRE) == pid)
		return region.failed ? NULL : cua_live_region;
	/* A claim of another process is a parent's, forked while one of its threads made its
	   region: that thread does not exist here, so the claim is taken over. */
	claim = __atomic_load_n(&region.opening, __ATOMIC_ACQUIRE);
	if (claim == pid || !__atomic_compare_exchange_n(&region.opening, &claim, pid, 0,
							 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		*retry = 1;
		return NULL;
	}
	if (__atomic_load_n(&region.pid, __ATOMIC_ACQUIRE) != pid) {
		/* A forked child: the parent's mapping stays (its threads are not here), the
		   child gets its own file. */
		forget_named();
		h = make_region(pid);
		region.failed = h == NULL;
		if (h) {
			cua_live_region = h;
			__atomic_store_n(&cua_live_region_pid, pid, __ATOMIC_RELEASE);
		}
		__atomic_store_n(&region.pid, pid, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&region.opening, 0, __ATOMIC_RELEASE);
	return region.failed ? NULL : cua_live_region;
}

static struct cua_live_slot *slot_at(struct cua_live_head *h, uint32_t i)
{
	return (struct cua_live_slot *)((char *)h + CUA_LIVE_HEAD_SIZE + i * cfg.slot_size);
}

/* A slot is taken with one compare-and-swap of its owner: one this thread id owns already
   (a thread that ended with this id), then a free one, then one whose owner thread has ended
   (its counts and history stay: the totals never go down). */
static struct cua_live_slot *take_slot(struct cua_live_head *h, uint64_t pid, uint32_t tid)
{
	for (int pass = 0; pass < 3; pass++) {
		for (uint32_t i = 0; i < CUA_LIVE_SLOTS; i++) {
			struct cua_live_slot *s = slot_at(h, i);
			union { uint64_t w; struct { uint32_t tid, gen; } f; } was, now;
			uint32_t owner;

			was.w = __atomic_load_n(&s->owner, __ATOMIC_ACQUIRE);
			owner = was.f.tid;

			if (pass == 0 ? owner != tid :
			    pass == 1 ? owner != 0 : cua_thread_alive(pid, owner))
				continue;
			/* Every pass takes the slot the same way, the generation moved on with
			   the tid (own: this id's ended thread): a taker that saw the same
			   owner loses. Calls of this thread in flight are never in a slot it
			   attaches to (a call's record is taken after its attach): what is in
			   flight there is an ended thread's. */
			now.f.tid = tid;
			now.f.gen = was.f.gen + 1;
			if (!__atomic_compare_exchange_n(&s->owner, &was.w, now.w, 0, __ATOMIC_ACQ_REL,
							 __ATOMIC_ACQUIRE))
				continue; /* another thread took it first */
			/* The ended owner's last calls may still be wanted by the trace. */
			if (owner && cua_live_taking)
				cua_live_taking(s);
			/* The ended owner's calls in flight are over: their records are given
			   up (one store each, an odd number: a reader's copy of one fails its
			   check, and no INDEX's ended number matches it), so that the ring
			   takes them again. */
			for (uint32_t k = 0; k < cfg.ncalls; k++) {
				struct cua_live_call *r = cua_live_ring(s) + k;
				uint32_t seq = __atomic_load_n(&r->h.seq, __ATOMIC_RELAXED);

				if (cua_live_busy(seq))
					__atomic_store_n(&r->h.seq, (seq & ~3u) | CUA_LIVE_GIVEN_UP,
							 __ATOMIC_RELEASE);
			}
			/* The ended owner's open NVTX ranges went with it. */
			{
				struct cua_live_nvtx *nv = cua_live_nvtx(s, cfg.ncalls, CUAUDIT_ID_COUNT);
				uint32_t seq = __atomic_load_n(&nv->seq, __ATOMIC_RELAXED);

				__atomic_store_n(&nv->seq, (seq | 1u) + 2u, __ATOMIC_RELEASE);
				__atomic_store_n(&nv->len, 0, __ATOMIC_RELEASE);
				__atomic_store_n(&nv->seq, (seq | 1u) + 3u, __ATOMIC_RELEASE);
			}
			for (uint32_t used = __atomic_load_n(&h->slots_used, __ATOMIC_RELAXED);
			     used < i + 1 && !__atomic_compare_exchange_n(&h->slots_used, &used, i + 1, 1,
									 __ATOMIC_RELAXED, __ATOMIC_RELAXED);)
				;
			return s;
		}
	}
	return NULL;
}

/* An entry of the pool for the calling thread of process pid, cleared; NULL when all are
   held. Under the attach's signal mask. */
static struct pending *pending_take(uint64_t pid)
{
	for (unsigned i = 0; pending_pool && i < PENDING_MAX; i++) {
		struct pending *p = &pending_pool[i];
		uint64_t was = __atomic_load_n(&p->owner, __ATOMIC_ACQUIRE);

		/* Held by another thread of this process; free, or its parent's (copied by fork). */
		if (was == pid || !__atomic_compare_exchange_n(&p->owner, &was, pid, 0, __ATOMIC_ACQ_REL,
							       __ATOMIC_ACQUIRE))
			continue;
		memset(p->calls, 0, sizeof(p->calls));
		memset(p->times, 0, sizeof(p->times));
		memset(p->errors, 0, sizeof(p->errors));
		return p;
	}
	return NULL;
}

/* The thread's pending counts go into slot s (NULL: nowhere, the view is off or the thread
   untracked), and its entry back to the pool. One it took in its parent, copied into a
   forked child with the thread, is left alone: it counted the parent's calls, and another
   thread of the child may hold it now. */
static void pending_give(struct cua_live_slot *s, uint64_t pid)
{
	struct pending *p = cua_live_me.pending;

	cua_live_me.pending = NULL;
	if (!p || cua_live_me.pending_pid != pid)
		return;
	if (s) {
		uint64_t *calls = cua_live_calls(s, cua_live_calls_mask + 1);
		uint64_t *times = cua_live_times(s, cua_live_calls_mask + 1, CUAUDIT_ID_COUNT);
		uint32_t *errors = cua_live_errors(s, cua_live_calls_mask + 1, CUAUDIT_ID_COUNT);

		for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++) {
			if (p->calls[id])
				calls[id] += p->calls[id];
			if (p->times[id])
				times[id] += p->times[id];
			if (p->errors[id])
				errors[id] += p->errors[id];
		}
	}
	__atomic_store_n(&p->owner, 0, __ATOMIC_RELEASE);
}

static struct cua_live_head *own_region(void);

void cua_live_prepare(void)
{
	int saved = errno, retry;
	sigset_t all, old;

	if (!cua_live_on)
		return;
	/* Made already (by a linked-in runtime's object): a driver loaded since may have
	   calibrated the TSC the calls are now stamped with. */
	if (__atomic_load_n(&region.pid, __ATOMIC_ACQUIRE) == cua_process_id()) {
		struct cua_live_head *h = own_region();

		if (h) {
			sigfillset(&all);
			sigprocmask(SIG_BLOCK, &all, &old);
			publish_clock(h);
			sigprocmask(SIG_SETMASK, &old, NULL);
		}
		errno = saved;
		return;
	}
	/* As an attach: no handler's call races the claim. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	(void)region_of(cua_process_id(), &retry);
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = saved;
}

struct cua_live_slot *cua_live_attach(uint64_t *pidp)
{
	int saved = errno, retry;
	struct cua_live_head *h;
	struct cua_live_slot *s = NULL;
	uint64_t pid = cua_process_id();
	sigset_t all, old;

	*pidp = pid;
	/* Attached already in this process: a signal handler's call did it while this call
	   began. */
	if (cua_live_me.pid == pid && cua_live_me.slot) {
		errno = saved;
		return cua_live_me.slot;
	}
	/* No signal handler runs while the thread attaches: one that made a call would race it
	   for a slot (the thread could hold two), and one that jumped out of it would leave the
	   region half claimed. Two system calls, once per thread and process. One that lands
	   before the mask attaches whole first, and this attach then finds its slot (the first
	   pass of take_slot). */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	h = region_of(pid, &retry);
	if (h) {
		publish_clock(h);
		s = take_slot(h, pid, (uint32_t)cua_thread_id());
	}
	/* A mark copied from a parent by fork is not this process's: cleared, so that a process
	   that got the pid of an ancestor (pid reuse down a chain of forks) never takes one
	   off a count it never added (the head's count would wrap to 4294967295). */
	if (cua_live_me.untracked_pid != pid)
		cua_live_me.untracked_pid = 0;
	/* A thread with no free slot is counted once in the head, and no more once it has
	   one; it asks again CUA_LIVE_RETRY_NS after this try (cua_live_next_free). */
	if (h && !s) {
		if (cua_live_me.untracked_pid != pid)
			__atomic_add_fetch(&h->untracked, 1, __ATOMIC_RELAXED);
		cua_live_me.untracked_pid = pid;
		cua_live_me.untracked_at = cua_clock_ns();
	} else if (h && cua_live_me.untracked_pid == pid) {
		__atomic_sub_fetch(&h->untracked, 1, __ATOMIC_RELAXED);
		cua_live_me.untracked_pid = 0;
	}
	cua_live_me.slot = s ? s : cfg.scratch;
	cua_live_me.tid = (uint32_t)cua_thread_id();
	/* While another thread makes the region the calls are counted apart, and added to the
	   slot once there is one. */
	if (retry) {
		struct pending *p = cua_live_me.pending;

		/* Not one the thread took in its parent: another thread of this child may take
		   that over (the entry's owner is no thread's own mark). */
		if (!p || cua_live_me.pending_pid != pid) {
			cua_live_me.pending = p = pending_take(pid);
			cua_live_me.pending_pid = pid;
		}
		if (p) {
			cua_live_me.calls = p->calls;
			cua_live_me.times = p->times;
			cua_live_me.errors = p->errors;
		}
	} else {
		pending_give(s, pid);
	}
	if (!cua_live_me.pending) {
		cua_live_me.calls = cua_live_calls(cua_live_me.slot, cua_live_calls_mask + 1);
		cua_live_me.times = cua_live_times(cua_live_me.slot, cua_live_calls_mask + 1,
						   CUAUDIT_ID_COUNT);
		cua_live_me.errors = cua_live_errors(cua_live_me.slot, cua_live_calls_mask + 1,
						     CUAUDIT_ID_COUNT);
	}
	/* The pid last: a call that finds it set finds the slot set. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* Asked again at the next call while another thread makes the region. */
	cua_live_me.pid = retry ? CUA_LIVE_NO_PID : pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return cua_live_me.slot;
}

uint64_t cua_live_next_free(struct cua_live_slot *s, uint64_t at)
{
	uint64_t t_start = cua_clock_ns();

	/* The scratch slot's records are all marked in flight (cua_live_setup): every call of
	   a thread without a slot comes here, and takes none. One that found every slot taken
	   asks again now and then: threads end and give theirs up. */
	if (s == cfg.scratch) {
		/* Signed: the try's time may be read after this one (a signal handler's call
		   attached in between), so the first call after it can be "before" it. Only a
		   try of this process: a forked child's copy of its parent's says nothing. */
		if (cua_live_me.untracked_pid && cua_live_me.untracked_pid == cua_live_me.pid &&
		    (int64_t)(t_start - cua_live_me.untracked_at) >= (int64_t)CUA_LIVE_RETRY_NS)
			cua_live_me.pid = CUA_LIVE_NO_PID; /* the next call attaches */
		return CUA_LIVE_NONE;
	}
	/* Calls in flight on one thread are its nesting depth plus its signal handlers' calls,
	   and calls a handler left by siglongjmp: a run of CUA_LIVE_SCAN of them is a program
	   that nests that deep or abandoned that many. The records after 'at' are looked at, not
	   taken: a call that finds none took only 'at', so the history behind stays in reach. */
	for (uint32_t j = 1; j < CUA_LIVE_SCAN && j < cfg.ncalls; j++) {
		uint64_t mine;

		if (cua_live_busy(__atomic_load_n(&cua_live_record(s, at + j)->h.seq, __ATOMIC_RELAXED)))
			continue;
		/* Takes at + 1 ... at + j in one instruction; a signal handler's call that took
		   some in between moved them: then the record found may be another's. */
		mine = cua_live_take_n(&s->done, j) + j - 1;
		if (mine == at + j || !cua_live_busy(__atomic_load_n(&cua_live_record(s, mine)->h.seq,
								     __ATOMIC_RELAXED)))
			return mine;
		return CUA_LIVE_NONE;
	}
	return CUA_LIVE_NONE;
}

/* This process's own region (not a forked child's view of its parent's), or NULL. The pid
   first: a forked child's thread that makes the region sets the pointer before the pid, so a
   pointer read after a matching pid is the child's, never the parent's (shared where the
   child was made without the C library's fork, so no atfork handler replaced it). */
static struct cua_live_head *own_region(void)
{
	if (__atomic_load_n(&region.pid, __ATOMIC_ACQUIRE) != cua_process_id() || region.failed)
		return NULL;
	return cua_live_region;
}

void cua_live_remove(void)
{
	struct cua_live_head *h = own_region();

	if (!h)
		return;
	__atomic_store_n(&h->state, CUA_LIVE_EXITED, __ATOMIC_RELEASE);
	unlink(region.path);
}

void cua_live_exec_begin(void)
{
	struct cua_live_head *h = own_region();

	if (h)
		__atomic_store_n(&h->state, CUA_LIVE_EXITED, __ATOMIC_RELEASE);
}

void cua_live_exec_failed(void)
{
	struct cua_live_head *h = own_region();
	uint32_t was = CUA_LIVE_EXITED;

	if (h)
		__atomic_compare_exchange_n(&h->state, &was, CUA_LIVE_RUNNING, 0, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE);
}

void cua_live_note_mem(unsigned dev, uint64_t bytes)
{
	struct cua_live_head *h;

	/* Not into the parent's region from a forked child that has no region of its own: the
	   pid first (set after the pointer), so the pointer read after it is this process's. */
	if (dev >= CUA_LIVE_DEVICES ||
	    __atomic_load_n(&cua_live_region_pid, __ATOMIC_ACQUIRE) != cua_process_id())
		return;
	h = cua_live_region;
	if (h)
		__atomic_store_n(&h->mem_used[dev], bytes, __ATOMIC_RELAXED);
}

/* Open addressing from the key's hash: the key's own entry (a name given again: rewritten
   only when it changed, a handle reused by another module), else the first free one. An
   entry is taken with one compare-and-swap of its number and written under an odd one.
   1: written or there; 0: no entry free within CUA_LIVE_NAME_PROBES. */
static int put_name(struct cua_live_head *h, unsigned space, uint64_t key, const char *name)
{
	struct cua_live_name *names;
	size_t n = strnlen(name, CUA_LIVE_NAME_MAX - 1);

	/* The offset this process wrote, not the head's (another process of the user may write
	   the file). */
	names = (struct cua_live_name *)((char *)h + CUA_LIVE_HEAD_SIZE + CUA_LIVE_SLOTS * cfg.slot_size);
	for (uint32_t j = 0, at = cua_live_name_hash(space, key, CUA_LIVE_NAMES); j < CUA_LIVE_NAME_PROBES;
	     j++, at = (at + 1) & (CUA_LIVE_NAMES - 1)) {
		struct cua_live_name *e = &names[at];
		uint32_t seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);

		if (seq & 1u)
			continue; /* being written by another thread: its key is not known yet */
		if (seq && !(e->space == space && e->key == key))
			continue;
		if (seq && strncmp(e->name, name, n) == 0 && e->name[n] == '\0')
			return 1; /* known already */
		if (!__atomic_compare_exchange_n(&e->seq, &seq, seq + 1, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			continue;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		e->space = space;
		e->key = key;
		memcpy(e->name, name, n);
		e->name[n] = '\0';
		__atomic_store_n(&e->seq, seq + 2, __ATOMIC_RELEASE);
		return 1;
	}
	return 0;
}

int cua_live_note_name(unsigned space, uint64_t key, const char *name)
{
	struct cua_live_head *h = own_region();

	if (!h)
		return -1;
	if (!key || !name)
		return 1;
	if (put_name(h, space, key, name))
		return 1;
	__atomic_add_fetch(&h->names_lost, 1, __ATOMIC_RELAXED);
	return 0;
}

/* The launched keys (rt/livefmt.h, CUA_LIVE_NAMED): the set, and how many it keeps. */
uint64_t *cua_live_named;
static uint32_t named_kept;

/* A forked child's copy holds its parent's keys, published in the parent's region, not in
   the child's: emptied (zero pages again) in the child's fork handler, and again before the
   child's region is published (a child made without the C library's fork runs no handler:
   its launches of its parent's kernels are named from their first launch after its region
   is made). No key is added while this process has no region (cua_live_name_launched). */
static void forget_named(void)
{
	if (__atomic_load_n(&named_kept, __ATOMIC_RELAXED)) {
		(void)madvise(cua_live_named, CUA_LIVE_NAMED * sizeof(uint64_t), MADV_DONTNEED);
		__atomic_store_n(&named_kept, 0, __ATOMIC_RELAXED);
	}
}

/* The first launch of a key (or one whose place in the set another key holds): the key is
   kept in the set, by the one thread whose compare-and-swap put it there, which then
   publishes its name, so that a key found no entry is counted once. */
void cua_live_name_launched(unsigned space, uint64_t key, int may_ask)
{
	uint64_t tag = cua_live_named_tag(space, key);
	uint64_t *set = cua_live_named;
	struct cua_live_head *h = own_region();
	const char *name;
	int saved = errno;

	if (!set || !key)
		return;
	/* None for this process (its file could not be made, said once): the view is off here,
	   and a launch there costs the look and these few tests, never an attach. */
	if (!h && __atomic_load_n(&region.pid, __ATOMIC_ACQUIRE) == cua_process_id())
		return;
	/* No region yet (a forked child's first call is this launch): the thread attaches now,
	   as the call would next, and so makes the child's region. */
	if (!h) {
		uint64_t pid;

		(void)cua_live_attach(&pid);
		h = own_region();
		if (!h) {
			errno = saved;
			return; /* none (another thread makes it): asked again at the next launch */
		}
	}
	for (uint32_t j = 0, at = cua_live_named_at(tag); j < CUA_LIVE_NAMED;
	     j++, at = (at + 1) & (CUA_LIVE_NAMED - 1)) {
		uint64_t t = __atomic_load_n(&set[at], __ATOMIC_ACQUIRE);

		if (t == tag)
			return; /* kept further on (its place is another key's) */
		if (t)
			continue;
		if (__atomic_load_n(&named_kept, __ATOMIC_RELAXED) >= CUA_LIVE_NAMED_FILL)
			break;
		if (!__atomic_compare_exchange_n(&set[at], &t, tag, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			if (t == tag)
				return; /* another thread's launch of it, just now */
			continue;
		}
		__atomic_add_fetch(&named_kept, 1, __ATOMIC_RELAXED);
		name = cua_kernelnames_of_key(space, (uintptr_t)key, may_ask);
		if (name)
			(void)cua_live_note_name(space, key, name);
		errno = saved;
		return;
	}
	/* The set is full: looked up at each launch, and a loss no longer counted. */
	name = cua_kernelnames_of_key(space, (uintptr_t)key, may_ask);
	if (name && !put_name(h, space, key, name))
		__atomic_store_n(&h->names_lost_bound, 1, __ATOMIC_RELAXED);
	errno = saved;
}

void cua_live_renamed(unsigned space, uint64_t key, const char *name)
{
	uint64_t tag = cua_live_named_tag(space, key);
	uint64_t *set = cua_live_named;
	struct cua_live_head *h = own_region();

	if (!set || !key || !name || !h)
		return;
	for (uint32_t j = 0, at = cua_live_named_at(tag); j < CUA_LIVE_NAMED;
	     j++, at = (at + 1) & (CUA_LIVE_NAMED - 1)) {
		uint64_t t = __atomic_load_n(&set[at], __ATOMIC_ACQUIRE);

		if (!t)
			return; /* not launched yet: named at its first launch */
		if (t == tag) {
			/* A loss was counted at its launch already. */
			(void)put_name(h, space, key, name);
			return;
		}
	}
}
