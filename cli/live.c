/* SPDX-License-Identifier: MIT */
/* cli/live.c: `cuaudit ps`, `cuaudit top` and `cuaudit ctl`: read and steer the live regions of this user's audited processes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "callfmt.h"
#include "demangle.h"
#include "kernelnames.h"
#include "liveconfig.h"
#include "cuaudit.h"
#include "fmt.h"
#include "groups.h"
#include "json.h"
#include "live.h"
#include "livefmt.h"
#include "roles.h"
#include "table.h"
#include "threads.h"
#include "tracefmt.h"

/* A region larger than this is not one cuaudit wrote (128 slots of 4096 calls is ~73 MiB):
   the reader's memory stays bounded whatever the file says. */
#define MAX_REGION (256ull << 20)
#define MAX_REGIONS 4096

enum { ST_RUNNING, ST_STOPPED, ST_DEAD, ST_EXITED, ST_ELSEWHERE };
static const char *const state_names[] = { "running", "stopped", "dead", "exited", "elsewhere" };

/* One region, read whole into memory (never mapped: a file truncated under the reader
   would raise SIGBUS). */
struct region {
	char path[4400];
	char *data;
	size_t size;
	struct cua_live_head head;
	int state;
	int same_table; /* ids and argument structs are this build's */
	int fd;         /* kept open for the second look at each record; -1 when none */
	uint64_t now_ns;
	/* CLOCK_REALTIME less CLOCK_MONOTONIC when read: a recorded time in wall-clock time. */
	int64_t wall_minus_mono;
	/* The writer's clock (the calls' times) less CLOCK_MONOTONIC when read, wrapping: a
	   call's time on this reader's clock (on_mono). */
	uint64_t calls_ahead;
	/* 0: the writer's clock is unknown (its definition was being written at every look, or
	   its writer was killed while writing it; or a TSC clock on a machine whose TSC this
	   reader cannot read): no time of its calls is shown (NO_TIME). */
	int clock_known;
	/* A process that is not running: the latest time recorded in its region (a call's
	   start or end, the region's making), its last sign of life. */
	uint64_t last_sign_ns;
};

/* Records of the region being read that may still be read again from the file, calls in
   flight and history apart (history never takes the budget of the calls in flight): a
   process that is not running writes nothing, and a damaged file full of odd numbers costs a
   bounded number of reads. */
static unsigned flight_rereads, history_rereads;
static unsigned unverified;  /* records left out: they kept changing, or past the budget */
static int region_written;   /* the region's process ran while it was read */

static char live_dir[4096];
static uint64_t sig;

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A time that cannot be told: the writer's clock is unknown (region.clock_known). */
#define NO_TIME UINT64_MAX

/* The writer's clock at mono, a CLOCK_MONOTONIC time read now, from its definition c
   (rt/livefmt.h, struct cua_live_clock): its TSC scale read against this machine's TSC, or
   CLOCK_MONOTONIC and an offset. A long-lived writer's clock has drifted from
   CLOCK_MONOTONIC (some 10 ms an hour): its times are compared on its own clock. 0 where
   it is a TSC this reader cannot read. */
static int writer_clock(const struct cua_live_clock *c, uint64_t mono, uint64_t *now)
{
	if (c->tsc) {
#if defined(__x86_64__)
		*now = c->ns_base + (uint64_t)(((unsigned __int128)(__builtin_ia32_rdtsc() - c->tsc_base) *
						c->mult) >> 32);
		return 1;
#else
		return 0;
#endif
	}
	*now = mono + c->offset_ns;
	return 1;
}

static int pread_clock(void *ctx, struct cua_live_clock *c)
{
	return pread(*(const int *)ctx, c, sizeof(*c), offsetof(struct cua_live_head, clock)) ==
			       (ssize_t)sizeof(*c)
		       ? 0
		       : -1;
}

/* A call's time (the writer's clock) on CLOCK_MONOTONIC, wrapping: a damaged file's time
   is clamped where it is compared with now. NO_TIME where the writer's clock is unknown. */
static uint64_t on_mono(const struct region *r, uint64_t t)
{
	return r->clock_known ? t - r->calls_ahead : NO_TIME;
}

static void choose_dir(const char *opt)
{
	const char *env = getenv("CUAUDIT_LIVE_DIR");

	if (opt)
		snprintf(live_dir, sizeof(live_dir), "%s", opt);
	else if (env && env[0] == '/')
		snprintf(live_dir, sizeof(live_dir), "%s", env);
	else
		cua_liveconfig_default_dir(live_dir, sizeof(live_dir), geteuid());
}

/* "PID-TICKS.live" */
static int parse_name(const char *name, uint64_t *pid, uint64_t *ticks)
{
	const char *p = name;
	uint64_t a = 0, b = 0;
	int da = 0, db = 0;

	for (; *p >= '0' && *p <= '9' && da < 19; p++, da++)
		a = a * 10 + (uint64_t)(*p - '0');
	if (!da || *p++ != '-')
		return -1;
	for (; *p >= '0' && *p <= '9' && db < 19; p++, db++)
		b = b * 10 + (uint64_t)(*p - '0');
	if (!db || strcmp(p, ".live") != 0)
		return -1;
	*pid = a;
	*ticks = b;
	return 0;
}

/* The state letter of /proc/PATH/stat, 0 if unreadable. */
static char stat_state(const char *path)
{
	char buf[512];
	int fd;
	ssize_t n;
	char *p;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* The process's state letter, 0 when it is gone. A zombie (killed or exited, its parent has
   not waited yet) is gone, unless only its main thread ended (pthread_exit) and another
   thread runs: then that thread's state. */
static char proc_state(uint64_t pid)
{
	char path[96];
	char st;
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "/proc/%llu/stat", (unsigned long long)pid);
	st = stat_state(path);
	if (st != 'Z' && st != 'X')
		return st;
	snprintf(path, sizeof(path), "/proc/%llu/task", (unsigned long long)pid);
	if (!(d = opendir(path)))
		return 0;
	st = 0;
	while (!st && (e = readdir(d)) != NULL) {
		char t;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%llu/task/%.20s/stat", (unsigned long long)pid,
			 e->d_name);
		t = stat_state(path);
		if (t && t != 'Z' && t != 'X')
			st = t;
	}
	closedir(d);
	return st;
}

/* Checks a head against the file it came from; NULL when it is sound, else why not. */
static const char *check_head(const struct cua_live_head *h, size_t size, uint64_t pid,
			      uint64_t ticks)
{
	if (memcmp(h->magic, CUA_LIVE_MAGIC, sizeof(CUA_LIVE_MAGIC) - 1) != 0)
		return "not a cuaudit live region (bad magic)";
	if (h->version != CUA_LIVE_VERSION || h->head_size != CUA_LIVE_HEAD_SIZE)
		return "a live region of another version";
	if (h->nslots == 0 || h->nslots > 4096 || h->ncalls == 0 || h->ncalls > CUA_LIVE_CALLS_MAX ||
	    (h->ncalls & (h->ncalls - 1)) || h->nids == 0 || h->nids > 65535 ||
	    h->args_max != CUA_LIVE_ARGS)
		return "damaged head (sizes out of range)";
	if (h->names_max == 0 || h->names_max > 65536 || (h->names_max & (h->names_max - 1)) ||
	    h->names_off != CUA_LIVE_HEAD_SIZE + (uint64_t)h->nslots * h->slot_size)
		return "damaged head (names)";
	if (h->slot_size != cua_live_slot_size(h->ncalls, h->nids) ||
	    h->file_size != h->names_off + (uint64_t)h->names_max * sizeof(struct cua_live_name) ||
	    h->file_size != size || h->file_size > MAX_REGION)
		return "damaged head (sizes disagree with the file)";
	if (h->pid != pid || h->start_ticks != ticks)
		return "damaged head (pid or start time differs from the file name)";
	if (h->slots_used > h->nslots)
		return "damaged head (slots)";
	return NULL;
}

/* The latest time written in a region's records (any state: a record given up or
   half-written still holds a time the process read) and its making: when it was last seen
   alive. A process killed by a signal with its default action (SIGTERM, SIGKILL) runs no
   code at its death: cuaudit installs no handler (that would change the program's own
   behaviour), so the moment of death itself is not recorded; it lies after this. */
/* Whether call time c (the writer's clock) put on CLOCK_MONOTONIC is after t, as a
   difference: a time never written (0, a record's first lap: a call given up before its end,
   or one killed between its number and its start) less a writer's clock ahead wraps to the
   top, and is before the region's making, never after the reading. */
static int later(const struct region *r, uint64_t c, uint64_t t)
{
	return (int64_t)(on_mono(r, c) - t) > 0;
}

static uint64_t last_sign(const struct region *r)
{
	uint64_t t = r->head.created_ns;

	/* No call time can be told: the region's making (CLOCK_MONOTONIC) is the sign. */
	if (!r->clock_known)
		return t < r->now_ns ? t : r->now_ns;
	for (uint32_t i = 0; i < r->head.slots_used; i++) {
		const struct cua_live_slot *s = (const struct cua_live_slot *)(r->data + CUA_LIVE_HEAD_SIZE +
									     i * r->head.slot_size);
		const struct cua_live_call *ring = (const struct cua_live_call *)(s + 1);

		for (uint32_t k = 0; k < r->head.ncalls; k++) {
			if (!ring[k].h.seq)
				continue;
			if (later(r, ring[k].h.t_start, t))
				t = on_mono(r, ring[k].h.t_start);
			if (!cua_live_busy(ring[k].h.seq) && later(r, ring[k].h.t_end, t))
				t = on_mono(r, ring[k].h.t_end);
		}
	}
	/* Never after the reading (a damaged file's times are not believed). */
	return t < r->now_ns ? t : r->now_ns;
}

/* Reads a region: 0, or -1 with *why set (a message for the user). */
static int load(struct region *r, const char *path, const char **why)
{
	uint64_t pid, ticks;
	const char *base = strrchr(path, '/');
	struct stat st;
	int fd, alive_before;
	char state;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	snprintf(r->path, sizeof(r->path), "%s", path);
	base = base ? base + 1 : path;
	if (parse_name(base, &pid, &ticks) != 0) {
		*why = "not named PID-STARTTICKS.live";
		return -1;
	}
	/* O_NONBLOCK: a FIFO planted under the name must not hang the reader. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		*why = errno == ELOOP ? "a symbolic link (refused)" : strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		*why = "not a regular file";
		return -1;
	}
	if (st.st_uid != geteuid()) {
		close(fd);
		*why = "owned by another user (refused)";
		return -1;
	}
	if ((uint64_t)st.st_size < CUA_LIVE_HEAD_SIZE || (uint64_t)st.st_size > MAX_REGION) {
		close(fd);
		*why = "damaged (size out of range)";
		return -1;
	}
	if (pread(fd, &r->head, sizeof(r->head), 0) != (ssize_t)sizeof(r->head) ||
	    (*why = check_head(&r->head, (size_t)st.st_size, pid, ticks)) != NULL) {
		if (!*why)
			*why = "cannot read its head";
		close(fd);
		return -1;
	}
	r->size = (size_t)st.st_size;
	alive_before = proc_state(pid) != 0;
	r->data = malloc(r->size);
	if (!r->data || pread(fd, r->data, r->size, 0) != (ssize_t)r->size) {
		close(fd);
		free(r->data);
		r->data = NULL;
		*why = "cannot read it whole (truncated while read?)";
		return -1;
	}
	r->fd = fd;
	r->head.program[CUA_LIVE_PROGRAM - 1] = '\0';
	/* The clock's definition whole (a seqlock), read again from the file: the copy above
	   may hold halves of two. */
	{
		struct cua_live_clock c = { 0 };
		uint64_t wnow = 0;

		r->clock_known = cua_live_clock_take(pread_clock, &fd, CUA_LIVE_CLOCK_TRIES, &c) == 1;
		r->now_ns = monotonic_ns();
		r->clock_known = r->clock_known && writer_clock(&c, r->now_ns, &wnow);
		r->calls_ahead = wnow - r->now_ns;
	}
	{
		struct timespec wall;

		clock_gettime(CLOCK_REALTIME, &wall);
		r->wall_minus_mono = (int64_t)((uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec) -
				     (int64_t)r->now_ns;
	}
	r->same_table = r->head.table_sig == sig && r->head.nids == CUAUDIT_ID_COUNT;
	state = proc_state(pid);
	if (r->head.state == CUA_LIVE_EXITED)
		r->state = ST_EXITED;
	else if (r->head.pidns && r->head.pidns != cua_live_pidns())
		/* Written in another PID namespace: its pid names nothing here, alive or not. */
		r->state = ST_ELSEWHERE;
	else if (!state || cua_live_start_ticks(pid) != ticks)
		/* Gone, or the pid now names another process (its start time differs). */
		r->state = ST_DEAD;
	else
		r->state = state == 'T' || state == 't' ? ST_STOPPED : ST_RUNNING;
	/* Alive before the copy or after it (killed while it was read, a stopped leader whose
	   other threads run under a tracer): its records may have changed under the copy. */
	region_written = alive_before || r->state == ST_RUNNING || r->state == ST_STOPPED ||
			 r->state == ST_ELSEWHERE;
	flight_rereads = 8192;
	history_rereads = 16384;
	unverified = 0;
	if (r->state != ST_RUNNING && r->state != ST_STOPPED && r->state != ST_ELSEWHERE)
		r->last_sign_ns = last_sign(r);
	return 0;
}

static void unload(struct region *r)
{
	free(r->data);
	r->data = NULL;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

static struct cua_live_slot *slot(const struct region *r, uint32_t i)
{
	return (struct cua_live_slot *)(r->data + CUA_LIVE_HEAD_SIZE + i * r->head.slot_size);
}

/* A record read whole: its sequence number even, and unchanged when read again from the
   file (the process may be writing it while we read). */
static int stable(const struct region *r, const void *rec, size_t len, void *out, unsigned *budget)
{
	off_t at = (off_t)((const char *)rec - r->data);
	uint32_t again;

	memcpy(out, rec, len);
	/* A process that did not run while the region was read wrote nothing: the copy read
	   with the rest is the record, whole if its number is even. */
	if (!region_written)
		return (*(const uint32_t *)out & 1) == 0;
	/* One that ran may have been writing it then: only a copy whose number is even and
	   unchanged when read again counts. */
	if (!*budget || r->fd < 0) {
		unverified++;
		return 0;
	}
	(*budget)--;
	for (int tries = 0; tries < 8; tries++) {
		if (pread(r->fd, out, len, at) != (ssize_t)len)
			break;
		if ((*(uint32_t *)out & 1) == 0 && pread(r->fd, &again, 4, at) == 4 &&
		    again == *(uint32_t *)out)
			return 1;
	}
	unverified++;
	return 0;
}

static struct cua_live_call flight_buf[CUA_LIVE_CALLS_MAX];

/* By start time, then by number: a call nested in another started after it. (Not by the
   numbers' difference alone: 32-bit numbers far apart, or a damaged file's, do not order.) */
static int older_first(const void *x, const void *y)
{
	const struct cua_live_call *a = x, *b = y;

	if (a->h.t_start != b->h.t_start)
		return a->h.t_start < b->h.t_start ? -1 : 1;
	return a->h.seq < b->h.seq ? -1 : a->h.seq > b->h.seq;
}

/* A thread's calls in flight, outermost first: the records of slot s whose number says in
   flight, each read whole. Returns how many, at most CUA_LIVE_CALLS_MAX (the ring's size). */
static unsigned in_flight(const struct region *r, struct cua_live_slot *s,
			  const struct cua_live_call **out)
{
	unsigned n = 0;

	for (uint32_t k = 0; k < r->head.ncalls && n < CUA_LIVE_CALLS_MAX; k++) {
		struct cua_live_call *c = &flight_buf[n];

		if (!cua_live_busy(cua_live_ring(s)[k].h.seq))
			continue; /* ended or unused when the region was read (it only moves on) */
		if (stable(r, &cua_live_ring(s)[k], sizeof(*c), c, &flight_rereads) &&
		    (c->h.seq & 3u) == CUA_LIVE_IN_FLIGHT)
			n++;
	}
	qsort(flight_buf, n, sizeof(flight_buf[0]), older_first);
	*out = flight_buf;
	return n;
}

/* The thread's open NVTX ranges ("step 7 > forward"), read whole, into out; "" when none
   or when they kept changing while read. */
static const char *nvtx_path(const struct region *r, struct cua_live_slot *s, char *out, size_t cap)
{
	struct cua_live_nvtx nv;
	size_t n;

	out[0] = '\0';
	if (!stable(r, cua_live_nvtx(s, r->head.ncalls, r->head.nids), sizeof(nv), &nv, &flight_rereads))
		return out;
	n = nv.len < CUA_LIVE_NVTX_PATH ? nv.len : CUA_LIVE_NVTX_PATH;
	if (n >= cap)
		n = cap - 1;
	memcpy(out, nv.path, n);
	out[n] = '\0';
	/* The program's bytes, shown on a terminal: no control characters. */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = '?';
	return out;
}

/* The record of call 'at' of slot s, read whole, if it holds that call ended (not an older
   call, a newer one, or one still in flight: livefmt.h). The history walks back from the
   slot's count over up to twice the ring: an INDEX passed over (its record was in flight)
   or lost leaves a gap, and the records behind it are still there. */
static int history_entry(const struct region *r, struct cua_live_slot *s, uint64_t at,
			 struct cua_live_call *e)
{
	const struct cua_live_call *rec = &cua_live_ring(s)[at & (r->head.ncalls - 1)];

	/* Read again only a record that held that call, ended, when the region was read. */
	return rec->h.seq == cua_live_seq(at, CUA_LIVE_ENDED) &&
	       stable(r, rec, sizeof(*e), e, &history_rereads) &&
	       e->h.seq == cua_live_seq(at, CUA_LIVE_ENDED);
}

static const char *name_of(const struct region *r, unsigned id, char *buf, size_t cap)
{
	if (r->same_table && id < CUAUDIT_ID_COUNT)
		return cua_api[id].elf_name;
	snprintf(buf, cap, "id%u", id);
	return buf;
}

static void put_duration(FILE *f, uint64_t ns)
{
	if (ns == NO_TIME)
		fputs("?", f);
	else if (ns >= 10000000000ull)
		fprintf(f, "%.1fs", (double)ns / 1e9);
	else if (ns >= 1000000000ull)
		fprintf(f, "%.3fs", (double)ns / 1e9);
	else if (ns >= 1000000)
		fprintf(f, "%.3fms", (double)ns / 1e6);
	else if (ns >= 1000)
		fprintf(f, "%.3fus", (double)ns / 1e3);
	else
		fprintf(f, "%lluns", (unsigned long long)ns);
}

/* A call's GPU time in the history, where GPU timing attached one: " gpu 12.000us", or
   " gpu <=12.000us" where it is only bounded (the work began on an idle stream). */
static void put_gpu(const struct cua_live_call *e)
{
	uint64_t ns;

	switch (cua_live_gpu_of(e, &ns)) {
	case 1:
		fputs(" gpu ", stdout);
		put_duration(stdout, ns);
		break;
	case 2:
		fputs(" gpu <=", stdout);
		put_duration(stdout, ns);
		break;
	}
}

/* How long ago a call's time t was. */
static uint64_t since(const struct region *r, uint64_t t)
{
	if (!r->clock_known)
		return NO_TIME;
	t = on_mono(r, t);
	return r->now_ns > t ? r->now_ns - t : 0;
}

/* Whether the process is gone (dead, or its image replaced): its calls in flight stopped at
   its death, which is not recorded (last_sign). */
static int gone(const struct region *r)
{
	return r->state == ST_DEAD || r->state == ST_EXITED;
}

/* How long a call in flight has been: until now, or for a process that is gone, until its
   last sign of life (a bound from below: it died after that). */
static uint64_t flight_ns(const struct region *r, uint64_t t_start)
{
	uint64_t until = gone(r) ? r->last_sign_ns : r->now_ns;

	if (!r->clock_known)
		return NO_TIME;
	t_start = on_mono(r, t_start);
	return until > t_start ? until - t_start : 0;
}

/* A CLOCK_MONOTONIC time (a call's: on_mono) as nanoseconds since the epoch. In unsigned arithmetic, which
   wraps: t comes from the file, and a damaged one's (8e18) overflowed the signed sum. */
static uint64_t wall_ns(const struct region *r, uint64_t t)
{
	return t == NO_TIME ? NO_TIME : t + (uint64_t)r->wall_minus_mono;
}

/* A time in JSON: its nanoseconds, or null where it cannot be told. */
static void json_ns(uint64_t ns)
{
	if (ns == NO_TIME)
		fputs("null", stdout);
	else
		printf("%llu", (unsigned long long)ns);
}

/* A recorded time as local wall-clock time, to the millisecond. */
static void put_wall(FILE *f, const struct region *r, uint64_t t)
{
	uint64_t w = wall_ns(r, t);
	time_t sec = (time_t)(w / 1000000000u);
	struct tm tm;
	char buf[64];

	if (w == NO_TIME) {
		fputs("?", f);
		return;
	}
	if (!localtime_r(&sec, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)sec);
	fprintf(f, "%s.%03u", buf, (unsigned)(w % 1000000000u / 1000000u));
}

/* Bytes in binary units (KiB, MiB, GiB, TiB), as `cuaudit ps` shows memory; --json keeps
   the exact count. */
static void put_bytes(FILE *f, uint64_t n)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = -1;

	if (n < 1024) {
		fprintf(f, "%llu B", (unsigned long long)n);
		return;
	}
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	fprintf(f, "%.1f %s", v, unit[u]);
}

/* The name the program gave the kernel a launch record launched, as published in the region
   (rt/livefmt.h, struct cua_live_name), readable (demangled); NULL when unknown. */
static const char *kernel_of(const struct region *r, const struct cua_live_call *c)
{
	static struct cua_live_name e;
	_Alignas(16) unsigned char args[CUA_LIVE_ARGS];
	const void *func = NULL;
	int kind = 0;
	uint32_t space;
	unsigned budget = 64;

	if (!r->same_table || c->h.id >= CUAUDIT_ID_COUNT || !cua_role_is(c->h.id, CUAUDIT_ROLE_LAUNCH))
		return NULL;
	memcpy(args, c->args, sizeof(args));
	if (cua_roles_launch_func(c->h.id, args, &func, &kind) != 0 || !func)
		return NULL;
	space = kind == CUAUDIT_FUNC_HOST ? CUA_KERNELNAMES_HOSTS : CUA_KERNELNAMES_HANDLES;
	for (uint32_t j = 0, at = cua_live_name_hash(space, (uint64_t)(uintptr_t)func, r->head.names_max);
	     j < CUA_LIVE_NAME_PROBES && j < r->head.names_max; j++, at = (at + 1) & (r->head.names_max - 1)) {
		const struct cua_live_name *n = (const struct cua_live_name *)(r->data + r->head.names_off) + at;

		if (!n->seq)
			return NULL; /* the probe ends at a never-used entry */
		if (n->space != space || n->key != (uint64_t)(uintptr_t)func)
			continue;
		if (!stable(r, n, sizeof(e), &e, &budget))
			return NULL;
		if (e.space != space || e.key != (uint64_t)(uintptr_t)func)
			continue;
		e.name[CUA_LIVE_NAME_MAX - 1] = '\0';
		return cua_demangle(e.name);
	}
	return NULL;
}

/* The arguments as the log shows them, from the kept bytes of the argument struct. A string
   argument is a pointer into the process and is shown as its address; arguments past the
   kept bytes show as '?'. */
static void format_args(const struct region *r, const struct cua_live_call *f, char *out,
			size_t cap)
{
	struct cua_buf b = { out, 0, cap, 0, NULL, 0 };
	_Alignas(16) unsigned char args[1024];
	const struct cua_api_desc *d;
	struct cuaudit_call c;

	out[0] = '\0';
	if (!r->same_table || f->h.id >= CUAUDIT_ID_COUNT) {
		snprintf(out, cap, "(arguments not shown: written by another cuaudit build)");
		return;
	}
	d = &cua_api[f->h.id];
	memset(args, 0, sizeof(args));
	memcpy(args, f->args, CUA_LIVE_ARGS);
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.id = f->h.id;
	c.elf_name = d->elf_name;
	c.layer = (enum cuaudit_layer)d->layer;
	c.binding = (enum cuaudit_binding)(f->h.binding < CUAUDIT_BIND_COUNT ? f->h.binding : 0);
	c.args = args;
	for (unsigned i = 0; i < d->nargs; i++) {
		const struct cua_arg_desc *a = &d->args[i];

		if (a->fmt == CUA_FMT_SKIP)
			continue;
		if (b.len)
			cua_buf_str(&b, ", ");
		cua_buf_str(&b, a->name);
		cua_buf_char(&b, '=');
		if ((unsigned)a->offset + a->size > CUA_LIVE_ARGS ||
		    (a->fmt == CUA_FMT_XYZ && (unsigned)a->offset + 3u * a->size > CUA_LIVE_ARGS)) {
			cua_buf_char(&b, '?');
		} else if (a->fmt == CUA_FMT_STRING) {
			uint64_t p = 0;

			memcpy(&p, args + a->offset, sizeof(p));
			cua_buf_str(&b, "(string at ");
			cua_buf_hex(&b, p);
			cua_buf_char(&b, ')');
		} else {
			cua_callfmt_arg_value(&b, &c, i, NULL, 0);
		}
	}
	/* As the log names a launch's kernel. */
	{
		const char *k = kernel_of(r, f);

		if (k) {
			cua_buf_str(&b, ", kernel_name=");
			cua_buf_quoted(&b, k, 2048);
		}
	}
	out[b.len < cap ? b.len : cap - 1] = '\0';
}

static void format_result(const struct region *r, const struct cua_live_call *e, char *out,
			  size_t cap)
{
	struct cua_buf b = { out, 0, cap, 0, NULL, 0 };
	struct cuaudit_call c;

	if (!r->same_table || e->h.id >= CUAUDIT_ID_COUNT) {
		snprintf(out, cap, "0x%llx", (unsigned long long)e->h.result);
		return;
	}
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.id = e->h.id;
	c.result = e->h.result;
	cua_callfmt_result(&b, &c);
	out[b.len < cap ? b.len : cap - 1] = '\0';
}

static const char *binding_name(unsigned k)
{
	return cua_binding_names[k < CUAUDIT_BIND_COUNT ? k : 0];
}

/* ---------------------------------------------------------------- listing */

typedef int (*region_fn)(struct region *r, void *ctx);

static int open_live_dir(DIR **out)
{
	struct stat st;
	int fd = open(live_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT)
			return 1; /* nothing audited with the live view yet */
		fprintf(stderr, "cuaudit: cannot open the live directory %s: %s\n", live_dir,
			errno == ELOOP || errno == ENOTDIR ? "a symbolic link or not a directory (refused)"
							   : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		fprintf(stderr, "cuaudit: the live directory %s is not yours with mode 0700: refused\n",
			live_dir);
		close(fd);
		return -1;
	}
	*out = fdopendir(fd);
	return *out ? 0 : -1;
}

/* Calls fn for each sound region in the directory; reports the others. Returns -1 when the
   directory cannot be read, else the number of regions. */
static int each_region(region_fn fn, void *ctx, int quiet)
{
	DIR *d = NULL;
	struct dirent *de;
	int rc = open_live_dir(&d), n = 0;

	if (rc)
		return rc > 0 ? 0 : -1;
	/* Every file: one region is in memory at a time. A cap on the names seen let 4,096
	   dead or damaged files hide a running process (and `ps` said there was none). */
	while ((de = readdir(d)) != NULL) {
		static struct region r;
		char path[4400];
		const char *why = NULL;
		uint64_t a, b;

		if (parse_name(de->d_name, &a, &b) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", live_dir, de->d_name);
		if (load(&r, path, &why) != 0) {
			if (!quiet)
				fprintf(stderr, "cuaudit: skipping %s: %s\n", path, why);
			continue;
		}
		n++;
		fn(&r, ctx);
		unload(&r);
	}
	closedir(d);
	return n;
}

/* The region of a pid: the file of its current incarnation when it runs, else the newest. */
static int find_region(uint64_t pid, struct region *out)
{
	DIR *d = NULL;
	struct dirent *de;
	char best[4400] = "";
	uint64_t best_ticks = 0, live_ticks = cua_live_start_ticks(pid);
	const char *why = NULL;
	int rc = open_live_dir(&d);

	if (rc < 0)
		return -1;
	/* No directory yet: no region, said as such (a silent status 1 told nothing). */
	while (rc == 0 && (de = readdir(d)) != NULL) {
		uint64_t p, t;

		if (parse_name(de->d_name, &p, &t) != 0 || p != pid)
			continue;
		if (!best[0] || t == live_ticks || (best_ticks != live_ticks && t > best_ticks)) {
			snprintf(best, sizeof(best), "%s/%s", live_dir, de->d_name);
			best_ticks = t;
		}
	}
	if (rc == 0)
		closedir(d);
	if (!best[0]) {
		fprintf(stderr, "cuaudit: no live region for process %llu in %s (was it started with "
			"'cuaudit run --live on', or LD_AUDIT and CUAUDIT_LIVE=1, and has it made a "
			"CUDA call?)\n",
			(unsigned long long)pid, live_dir);
		return -1;
	}
	if (load(out, best, &why) != 0) {
		fprintf(stderr, "cuaudit: %s: %s\n", best, why);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- ps */

struct totals {
	uint64_t calls, threads, busy_ns, busy_tid;
	unsigned busy_id;
	int busy;
};

/* Whether the slot's thread still runs: in a running process, a thread that ended (a
   cancelled one, one that jumped out of its call and exited) left its calls in flight for
   good, and they are no call the process waits in. In a stopped or dead process each
   thread's calls are what it was inside. */
static int slot_alive(const struct region *r, const struct cua_live_slot *s)
{
	return r->state != ST_RUNNING || cua_thread_alive(r->head.pid, s->tid);
}

static void totals_of(const struct region *r, struct totals *t)
{
	memset(t, 0, sizeof(*t));
	for (uint32_t i = 0; i < r->head.slots_used; i++) {
		struct cua_live_slot *s = slot(r, i);
		const uint64_t *calls = cua_live_calls(s, r->head.ncalls);
		const struct cua_live_call *f;

		for (uint32_t id = 0; id < r->head.nids; id++)
			t->calls += calls[id];
		/* Threads that run (or ran, in a process that is not running) and their calls. */
		if (!s->tid || !slot_alive(r, s))
			continue;
		if (in_flight(r, s, &f)) {
			/* The outermost call of the thread is what it waits in. */
			if (!t->busy || flight_ns(r, f[0].h.t_start) > t->busy_ns) {
				t->busy = 1;
				t->busy_ns = flight_ns(r, f[0].h.t_start);
				t->busy_id = f[0].h.id;
				t->busy_tid = s->tid;
			}
		}
		t->threads++;
	}
}

struct ps_row {
	uint64_t pid;
	uint64_t calls0;
};

struct ps_ctx {
	struct ps_row rows[MAX_REGIONS];
	unsigned n;
	int second; /* the second pass prints */
	double secs;
	int clean;
	int json;       /* the list as JSON: one object per process */
	unsigned shown; /* objects printed so far */
	unsigned removed;
	unsigned kept;      /* files of processes that are gone, listed */
	uint64_t kept_bytes;
};

static void json_str(const char *s);

static int ps_one(struct region *r, void *vctx)
{
	struct ps_ctx *ctx = vctx;
	struct totals t;
	char nb[32];
	double rate;

	if (ctx->clean) {
		if (r->state == ST_DEAD || r->state == ST_EXITED) {
			if (unlink(r->path) == 0) {
				printf("removed %s (process %llu, %s)\n", r->path,
				       (unsigned long long)r->head.pid, state_names[r->state]);
				ctx->removed++;
			} else {
				fprintf(stderr, "cuaudit: cannot remove %s: %s\n", r->path, strerror(errno));
			}
		}
		return 0;
	}
	totals_of(r, &t);
	if (!ctx->second) {
		/* Rates are for running processes: dead ones do not take the rows. */
		if (r->state == ST_RUNNING && ctx->n < MAX_REGIONS)
			ctx->rows[ctx->n++] = (struct ps_row){ r->head.pid, t.calls };
		return 0;
	}
	{
		uint64_t before = t.calls;
		int found = 0;

		for (unsigned i = 0; i < ctx->n; i++)
			if (ctx->rows[i].pid == r->head.pid) {
				before = ctx->rows[i].calls0;
				found = 1;
			}
		found = r->state == ST_RUNNING && found && ctx->secs > 0;
		rate = found ? (double)(t.calls - (before < t.calls ? before : t.calls)) / ctx->secs : -1;
	}
	if (ctx->json) {
		/* The table's columns, numbers unformatted; null where the table shows '-'. */
		printf("%s{\"pid\":%llu,\"state\":\"%s\",\"threads\":%llu,\"calls\":%llu,"
		       "\"calls_per_s\":", ctx->shown++ ? "," : "", (unsigned long long)r->head.pid,
		       state_names[r->state], (unsigned long long)t.threads,
		       (unsigned long long)t.calls);
		if (rate >= 0)
			printf("%.0f", rate);
		else
			fputs("null", stdout);
		fputs(",\"longest_in_flight\":", stdout);
		if (t.busy) {
			printf("{\"name\":");
			json_str(name_of(r, t.busy_id, nb, sizeof(nb)));
			fputs(",\"elapsed_ns\":", stdout);
			json_ns(t.busy_ns);
			printf(",\"tid\":%llu}", (unsigned long long)t.busy_tid);
		} else {
			fputs("null", stdout);
		}
		if (gone(r))
			printf(",\"last_sign_of_life_unix_ns\":%llu",
			       (unsigned long long)wall_ns(r, r->last_sign_ns));
		fputs(",\"program\":", stdout);
		json_str(r->head.program);
		fputs(",\"region\":", stdout);
		json_str(r->path);
		fputs("}", stdout);
		return 0;
	}
	if (gone(r)) {
		ctx->kept++;
		ctx->kept_bytes += r->size;
	}
	printf("%-8llu %-8s %7llu ", (unsigned long long)r->head.pid, state_names[r->state],
	       (unsigned long long)t.threads);
	if (rate >= 0)
		printf("%9.0f ", rate);
	else
		printf("%9s ", "-");
	if (t.busy) {
		char dur[64];
		FILE *m = fmemopen(dur, sizeof(dur), "w");

		/* Gone: at least this long, until its last sign of life. */
		if (gone(r))
			fputs(">=", m);
		put_duration(m, t.busy_ns);
		fclose(m);
		printf("%-28s %10s %-8llu ", name_of(r, t.busy_id, nb, sizeof(nb)), dur,
		       (unsigned long long)t.busy_tid);
	} else {
		printf("%-28s %10s %-8s ", "-", "-", "-");
	}
	/* The command line is the program's text: escaped for the terminal. */
	printf("%s\n", cli_term(r->head.program));
	return 0;
}

static void print_thread(const struct region *r, struct cua_live_slot *s, unsigned last)
{
	char nb[32], args[2048], res[128], path[CUA_LIVE_NVTX_PATH + 1];
	const struct cua_live_call *f;
	unsigned nf;
	uint64_t done;
	int any = 0;
	int alive = r->state != ST_RUNNING || cua_thread_alive(r->head.pid, s->tid);

	printf("thread %u%s\n", s->tid, alive ? "" : " (ended)");
	nf = in_flight(r, s, &f);
	/* The program's own phases around the call in flight (NVTX ranges, outermost first). */
	if (nvtx_path(r, s, path, sizeof(path))[0])
		printf("  in ranges: %s%s%s\n", path, nf ? " > " : "",
		       nf ? name_of(r, f[0].h.id, nb, sizeof(nb)) : "");
	for (unsigned d = 0; d < nf; d++) {
		any = 1;
		format_args(r, &f[d], args, sizeof(args));
		printf("  %s %s(%s) [%s] ", d ? "  inside:" : "in flight:",
		       name_of(r, f[d].h.id, nb, sizeof(nb)), args, binding_name(f[d].h.binding));
		if (gone(r)) {
			/* It stopped at the death, which came after the last sign of life. */
			fputs("since ", stdout);
			put_wall(stdout, r, on_mono(r, f[d].h.t_start));
			fputs(" until the process died: at least ", stdout);
			put_duration(stdout, flight_ns(r, f[d].h.t_start));
			putchar('\n');
			continue;
		}
		fputs("for ", stdout);
		put_duration(stdout, flight_ns(r, f[d].h.t_start));
		putchar('\n');
	}
	if (!any)
		printf("  not inside a CUDA call\n");
	if (!last)
		return;
	printf("  last calls, newest first:\n");
	done = __atomic_load_n(&s->done, __ATOMIC_ACQUIRE);
	for (unsigned k = 0, shown = 0; shown < last && k < 2ull * r->head.ncalls && k < done; k++) {
		struct cua_live_call e;

		if (!history_entry(r, s, done - 1 - k, &e))
			continue;
		shown++;
		format_result(r, &e, res, sizeof(res));
		format_args(r, &e, args, sizeof(args));
		printf("    %*s%s(%s) -> %s ", 2 * (e.h.depth < 8 ? e.h.depth : 8), "",
		       name_of(r, e.h.id, nb, sizeof(nb)), args, res);
		if (e.h.t_end)
			put_duration(stdout, e.h.t_end >= e.h.t_start ? e.h.t_end - e.h.t_start : 0);
		else
			fputs("-", stdout); /* not timed (a region of format 4) */
		put_gpu(&e);
		printf(" [%s] %s ", binding_name(e.h.binding), e.h.t_end ? "ended" : "started");
		put_duration(stdout, since(r, e.h.t_end ? e.h.t_end : e.h.t_start));
		printf(" ago%s\n", e.h.tid != s->tid ? " (an earlier thread of this slot)" : "");
	}
}

static void json_str(const char *s)
{
	char buf[4096];
	struct cua_buf b = CUA_BUF(buf);

	cua_buf_json_string(&b, s);
	fwrite(buf, 1, b.len < sizeof(buf) ? b.len : sizeof(buf), stdout);
}

static void print_json(const struct region *r, unsigned last)
{
	char nb[32], args[2048], res[128], path[CUA_LIVE_NVTX_PATH + 1];
	const struct cua_live_call *f;
	unsigned nf;
	const char *sep = "";

	printf("{\"pid\":%llu,\"state\":\"%s\",\"program\":", (unsigned long long)r->head.pid,
	       state_names[r->state]);
	json_str(r->head.program);
	printf(",\"region\":");
	json_str(r->path);
	/* A process that is gone: its last sign of life; it died after that (not recorded). */
	if (gone(r))
		printf(",\"last_sign_of_life_unix_ns\":%llu", (unsigned long long)wall_ns(r, r->last_sign_ns));
	printf(",\"untracked_threads\":%u,\"threads\":[", r->head.untracked);
	for (uint32_t i = 0; i < r->head.slots_used; i++) {
		struct cua_live_slot *s = slot(r, i);
		const char *fsep = "";
		uint64_t done;

		if (!s->tid)
			continue;
		/* ended: the thread is gone from a running process; its calls in flight were
		   left so (not counted in the process's list or in top). */
		printf("%s{\"tid\":%u,\"ended\":%s,\"nvtx\":", sep, s->tid,
		       slot_alive(r, s) ? "false" : "true");
		json_str(nvtx_path(r, s, path, sizeof(path)));
		printf(",\"in_flight\":[");
		sep = ",";
		nf = in_flight(r, s, &f);
		for (unsigned d = 0; d < nf; d++) {
			format_args(r, &f[d], args, sizeof(args));
			printf("%s{\"name\":", fsep);
			json_str(name_of(r, f[d].h.id, nb, sizeof(nb)));
			/* level: its place among the thread's calls in flight, 0 the outermost;
			   depth: the dispatch's, as in last_calls (a signal handler's calls start
			   again at 0). */
			/* elapsed_ns: until now, or for a process that is gone, until its last
			   sign of life (at least that long: the death is not recorded). */
			printf(",\"level\":%u,\"depth\":%u,\"binding\":\"%s\",\"elapsed_ns\":", d,
			       f[d].h.depth, binding_name(f[d].h.binding));
			json_ns(flight_ns(r, f[d].h.t_start));
			fputs(",\"started_unix_ns\":", stdout);
			json_ns(wall_ns(r, on_mono(r, f[d].h.t_start)));
			fputs(",\"args\":", stdout);
			json_str(args);
			if (kernel_of(r, &f[d])) {
				printf(",\"kernel\":");
				json_str(kernel_of(r, &f[d]));
			}
			printf("}");
			fsep = ",";
		}
		printf("],\"last_calls\":[");
		fsep = "";
		done = __atomic_load_n(&s->done, __ATOMIC_ACQUIRE);
		for (unsigned k = 0, shown = 0; shown < last && k < 2ull * r->head.ncalls && k < done; k++) {
			struct cua_live_call e;
			uint64_t gpu_ns;

			if (!history_entry(r, s, done - 1 - k, &e))
				continue;
			shown++;
			format_result(r, &e, res, sizeof(res));
			format_args(r, &e, args, sizeof(args));
			printf("%s{\"name\":", fsep);
			json_str(name_of(r, e.h.id, nb, sizeof(nb)));
			printf(",\"args\":");
			json_str(args);
			if (kernel_of(r, &e)) {
				printf(",\"kernel\":");
				json_str(kernel_of(r, &e));
			}
			printf(",\"tid\":%u,\"depth\":%u,\"binding\":\"%s\",\"result\":", e.h.tid, e.h.depth,
			       binding_name(e.h.binding));
			json_str(res);
			/* GPU timing's measure of its work, where harvested while the record
			   still held the call: exact, or only its greatest possible value. */
			switch (cua_live_gpu_of(&e, &gpu_ns)) {
			case 1:
				printf(",\"gpu_ns\":%llu", (unsigned long long)gpu_ns);
				break;
			case 2:
				printf(",\"gpu_ns_max\":%llu", (unsigned long long)gpu_ns);
				break;
			}
			if (e.h.t_end) {
				printf(",\"duration_ns\":%llu,\"ended_ns_ago\":",
				       (unsigned long long)(e.h.t_end >= e.h.t_start ? e.h.t_end - e.h.t_start : 0));
				json_ns(since(r, e.h.t_end));
			} else {
				fputs(",\"duration_ns\":null,\"started_ns_ago\":", stdout);
				json_ns(since(r, e.h.t_start));
			}
			putchar('}');
			fsep = ",";
		}
		printf("]}");
	}
	printf("],\"memory\":[");
	sep = "";
	for (unsigned d = 0; d < CUA_LIVE_DEVICES; d++) {
		if (!r->head.mem_used[d])
			continue;
		printf("%s{\"device\":%u,\"bytes\":%llu}", sep, d, (unsigned long long)r->head.mem_used[d]);
		sep = ",";
	}
	printf("],\"apis\":[");
	sep = "";
	for (uint32_t id = 0; id < r->head.nids; id++) {
		uint64_t calls = 0, errors = 0, ns = 0;

		for (uint32_t i = 0; i < r->head.slots_used; i++) {
			calls += cua_live_calls(slot(r, i), r->head.ncalls)[id];
			ns += cua_live_times(slot(r, i), r->head.ncalls, r->head.nids)[id];
			errors += cua_live_errors(slot(r, i), r->head.ncalls, r->head.nids)[id];
		}
		if (!calls)
			continue;
		printf("%s{\"name\":", sep);
		json_str(name_of(r, id, nb, sizeof(nb)));
		/* total_ns: the calls' times, ended ones (those in flight count once ended). */
		printf(",\"calls\":%llu,\"errors\":%llu,\"total_ns\":%llu}", (unsigned long long)calls,
		       (unsigned long long)errors, (unsigned long long)ns);
		sep = ",";
	}
	/* Records that kept changing while read (or past the reader's budget): not shown. */
	/* false: no time of its calls could be told (the writer's clock was unknown). */
	printf("],\"clock_known\":%s,\"unverified_records\":%u}\n",
	       r->clock_known ? "true" : "false", unverified);
}

static void ps_detail(const struct region *r, unsigned last, int json)
{
	if (json) {
		print_json(r, last);
		return;
	}
	printf("process %llu (%s): %s\n", (unsigned long long)r->head.pid, state_names[r->state],
	       cli_term(r->head.program));
	printf("region %s\n", r->path);
	if (gone(r)) {
		printf("%s: after ", r->state == ST_DEAD ? "died" : "image replaced (exec)");
		put_wall(stdout, r, r->last_sign_ns);
		printf(", its last sign of life (a call's start or end); the moment itself is not "
		       "recorded (a kill runs no code in the process). The file is kept for this "
		       "post-mortem: 'cuaudit ps --clean' removes it.\n");
	}
	if (!r->clock_known)
		printf("note: the writer's clock is unknown (its definition was being written at each "
		       "of %u looks, its writer was killed writing it, or it is a TSC this reader "
		       "cannot read): no time of its calls is shown ('?')%s\n",
		       (unsigned)CUA_LIVE_CLOCK_TRIES,
		       gone(r) ? "; its last sign of life is the region's making" : "");
	if (!r->same_table)
		printf("note: written by another cuaudit build: functions shown by id\n");
	if (r->head.names_lost)
		printf("note: %s%u launched kernel(s) found no room for their names in the region: "
		       "their launches show no kernel_name\n",
		       r->head.names_lost_bound ? "at least " : "", r->head.names_lost);
	if (r->head.untracked)
		printf("note: %u thread(s) found no free slot (those that ended without one included) and are not shown; each asks again at a call 100 ms after its last try\n", r->head.untracked);
	{
		unsigned any = 0;

		for (unsigned d = 0; d < CUA_LIVE_DEVICES; d++)
			if (r->head.mem_used[d]) {
				printf("%s device %u ", any++ ? "," : "device memory held by its calls:", d);
				put_bytes(stdout, r->head.mem_used[d]);
			}
		if (any)
			putchar('\n');
	}
	for (uint32_t i = 0; i < r->head.slots_used; i++)
		if (slot(r, i)->tid)
			print_thread(r, slot(r, i), last);
	if (unverified)
		printf("note: %u record(s) kept changing while read and are not shown\n", unverified);
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!*s || *end || errno || s[0] == '-')
		return -1;
	*out = v;
	return 0;
}

/* The argument that holds the short option getopt just refused (optopt): the one before
   optind where optopt ended it, else the one at optind, whose cluster getopt is still in
   (it steps past an argument at its last letter). NULL where neither holds it. */
static const char *refused_cluster(int argc, char **argv)
{
	const char *a;
	size_t n;

	if (optind > 1 && (a = argv[optind - 1])[0] == '-' && a[1] != '-' &&
	    (n = strlen(a)) > 1 && a[n - 1] == optopt)
		return a;
	if (optind < argc && (a = argv[optind])[0] == '-' && a[1] != '-' && strchr(a + 1, optopt))
		return a;
	return NULL;
}

/* Whether getopt refused a long option of opts given a value it takes none of ("--json=1"):
   then optopt is that option's value and argv[optind - 1] the argument, whole. */
static int refused_value(char **argv, const struct option *opts)
{
	const char *a = argv[optind - 1], *eq;

	if (a[0] != '-' || a[1] != '-' || !(eq = strchr(a, '=')))
		return 0;
	for (; opts->name; opts++)
		if (opts->val == optopt && opts->has_arg == no_argument &&
		    strncmp(opts->name, a + 2, (size_t)(eq - a - 2)) == 0)
			return 1;
	return 0;
}

/* What getopt just refused (opterr off, the option string starting with ':'), in words: an
   option without its value or with one it takes none of, an unknown option (a long one
   whole, a short one as its cluster shows it), or a negative number, which is a process id
   given wrong, not an option. */
static void refused_option(int c, int argc, char **argv, const struct option *opts, char *out,
			   size_t cap)
{
	const char *arg;

	if (c == ':')
		snprintf(out, cap, "option '%s' needs a value", argv[optind - 1]);
	else if (!optopt)
		snprintf(out, cap, "unknown option '%s'", argv[optind - 1]);
	else if (refused_value(argv, opts))
		snprintf(out, cap, "option '%.*s' takes no value", (int)strcspn(argv[optind - 1], "="),
			 argv[optind - 1]);
	else if (!(arg = refused_cluster(argc, argv)))
		snprintf(out, cap, "unknown option '-%c'", optopt);
	else if (arg[1] >= '0' && arg[1] <= '9')
		snprintf(out, cap, "'%s' is not a process id", arg);
	else if (arg[2])
		snprintf(out, cap, "unknown option '-%c' in '%s'", optopt, arg);
	else
		snprintf(out, cap, "unknown option '%s'", arg);
}

/* A refused option of ps or top: what is wrong and where the usage is, not the usage of
   every live command after getopt's own words. */
static int option_refused(const char *cmd, int c, int argc, char **argv,
			  const struct option *opts)
{
	char what[512];

	refused_option(c, argc, argv, opts, what, sizeof(what));
	fprintf(stderr, "cuaudit %s: %s\nTry 'cuaudit %s --help'.\n", cmd, what, cmd);
	return 2;
}

static void live_usage(FILE *f)
{
	fputs("usage: cuaudit ps [--dir DIR] [--json] | ps [--dir DIR] --clean\n"
	      "       cuaudit ps --groups [--share-dir DIR] [--json]\n"
	      "       cuaudit ps [--dir DIR] [--json] [--last N] PID\n"
	      "       cuaudit top [--dir DIR] [-d SECONDS] [-n COUNT] [-b] [-p] [--sort KEY] [PID]\n"
	      "       cuaudit ctl [--dir DIR] PID trace|log start|stop\n"
	      "\n"
	      "ps     this user's processes audited with the live view ('cuaudit run --live on',\n"
	      "       or LD_AUDIT and CUAUDIT_LIVE=1): pid, state, threads, calls per second,\n"
	      "       the longest call in flight; with PID, each thread's calls in flight and\n"
	      "       last calls (--last N of them, 16). --json: the same as JSON.\n"
	      "       --clean removes the files of processes that are gone.\n"
	      "       --groups: each memory group of this user (CUAUDIT_MEM_GROUP) in --share-dir\n"
	      "       (else CUAUDIT_SHARE_DIR, else /dev/shm): quota and use per device, and\n"
	      "       each process's use, alive or dead (dead: not yet taken back); and each\n"
	      "       compute share group (CUAUDIT_COMPUTE_LIMIT): its limit and achieved share\n"
	      "       of each GPU over the last second.\n"
	      "top    per-API rows (layer, calls, errors and time per second, average time, calls\n"
	      "       in flight and the longest), or per-process rows with -p, refreshed every -d\n"
	      "       seconds (1), fitted to the terminal; keys: q quits, p switches the view,\n"
	      "       c t e f a T n sort by calls/s, time/s, errors/s, in flight, average, calls,\n"
	      "       name (--sort calls|time|errors|inflight|avg|total|name). -b (or not a\n"
	      "       terminal): batch, every row, -n samples (1), then exit.\n"
	      "ctl    switches the trace or the verbose log on or off in a running process\n"
	      "       started with it configured and CUAUDIT_CAPTURE=ctl (the trace also with\n"
	      "       profiler-api); it takes effect at each thread's next call.\n"
	      "The directory is --dir, else CUAUDIT_LIVE_DIR, else /tmp/cuaudit-UID.\n",
	      f);
}

static int ps_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'D' }, { "json", no_argument, NULL, 'j' },
		{ "clean", no_argument, NULL, 'c' },     { "last", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },      { "groups", no_argument, NULL, 'g' },
		{ "share-dir", required_argument, NULL, 'S' }, { NULL, 0, NULL, 0 },
	};
	static struct ps_ctx ctx;
	const char *dir = NULL, *share_dir = NULL;
	uint64_t pid = 0, last = 16;
	int json = 0, last_given = 0, groups = 0, c, n;

	optind = 1;
	opterr = 0;
	/* Options before or after the pid (`cuaudit ps 4242 --json`), as GNU tools take them. */
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'D': dir = optarg; break;
		case 'j': json = 1; break;
		case 'c': ctx.clean = 1; break;
		case 'g': groups = 1; break;
		case 'S': share_dir = optarg; break;
		case 'l':
			if (parse_u64(optarg, &last) != 0 || last > CUA_LIVE_CALLS_MAX) {
				fprintf(stderr, "cuaudit ps: --last: '%s' is not a number from 0 to 4096\n", optarg);
				return 2;
			}
			last_given = 1;
			break;
		case 'h': live_usage(stdout); return 0;
		default: return option_refused("ps", c, argc, argv, opts);
		}
	}
	/* An option that cannot be honoured is refused, never dropped in silence. */
	if (groups && (ctx.clean || last_given || dir || optind < argc)) {
		fprintf(stderr, "cuaudit ps: --groups lists the memory groups; it takes only --json"
				" and --share-dir\n");
		return 2;
	}
	if (share_dir && !groups) {
		fprintf(stderr, "cuaudit ps: --share-dir is the directory of --groups\n");
		return 2;
	}
	if (groups)
		return cua_cli_groups(share_dir, json);
	if (ctx.clean && (json || last_given)) {
		fprintf(stderr, "cuaudit ps: --clean removes files and prints what it removed; it takes "
				"no --%s\n", json ? "json" : "last");
		return 2;
	}
	if (last_given && optind >= argc) {
		fprintf(stderr, "cuaudit ps: the list takes no --last (the number of last calls "
				"'cuaudit ps PID' shows for each thread)\n");
		return 2;
	}
	choose_dir(dir);
	if (optind < argc) {
		struct region r;

		if (optind + 1 < argc || parse_u64(argv[optind], &pid) != 0 || !pid) {
			fprintf(stderr, "cuaudit ps: '%s' is not a process id\n", argv[optind]);
			return 2;
		}
		if (ctx.clean) {
			fprintf(stderr, "cuaudit ps: --clean removes the files of every process that is "
					"gone and takes no process id\n");
			return 2;
		}
		if (find_region(pid, &r) != 0)
			return 1;
		ps_detail(&r, (unsigned)last, json);
		unload(&r);
		return 0;
	}
	if (ctx.clean) {
		if (each_region(ps_one, &ctx, 0) < 0)
			return 1;
		printf("%u file(s) removed\n", ctx.removed);
		return 0;
	}
	{
		uint64_t t0 = monotonic_ns();

		if (each_region(ps_one, &ctx, 1) < 0)
			return 1;
		/* Two looks, a fifth of a second apart, give the rates. */
		if (ctx.n)
			usleep(200000);
		ctx.secs = (double)(monotonic_ns() - t0) / 1e9;
		ctx.second = 1;
		ctx.json = json;
		if (json)
			fputs("[", stdout);
		else
			printf("%-8s %-8s %7s %9s %-28s %10s %-8s %s\n", "PID", "STATE", "THREADS",
			       "CALLS/S", "LONGEST CALL IN FLIGHT", "FOR", "TID", "PROGRAM");
		n = each_region(ps_one, &ctx, 0);
		if (json)
			fputs("]\n", stdout);
		else if (ctx.kept) {
			printf("%u file(s) of processes that are gone (", ctx.kept);
			put_bytes(stdout, ctx.kept_bytes);
			printf(") kept for post-mortem: 'cuaudit ps PID' shows what each was inside when "
			       "it died; 'cuaudit ps --clean' removes them\n");
		}
		if (n == 0)
			fprintf(stderr, "cuaudit ps: no live view in %s (processes run with "
				"'cuaudit run --live on PROGRAM', or LD_AUDIT and CUAUDIT_LIVE=1, "
				"make one when they load CUDA)\n", live_dir);
	}
	return n < 0 ? 1 : 0;
}

/* ---------------------------------------------------------------- top */

/* One process's counts at a sample, kept for the next sample's rates, and what its row in the
   process view shows. */
struct top_region {
	uint64_t pid, ticks;
	uint64_t calls[CUAUDIT_ID_COUNT], errors[CUAUDIT_ID_COUNT], times[CUAUDIT_ID_COUNT];
	/* The row: differences against the sample before (the whole counts for a process new
	   in this sample), calls in flight and the longest. */
	uint64_t dcalls, derrors, dtimes, ncalls, inflight, longest_ns, threads;
	unsigned longest_id;
	int has_longest, state;
	char program[CUA_LIVE_PROGRAM];
};

struct top_ctx {
	uint64_t pid;
	/* Per API, summed over the processes. */
	uint64_t *calls, *errors, *times, *inflight, *longest;
	unsigned regions;
	/* The rates are differences per process, each against its own counts at the sample
	   before (prev): a process that exits, or whose file goes, between two samples takes
	   nothing from the others' rates, and one that starts adds its calls since. */
	uint64_t *dcalls, *derrors, *dtimes;
	struct top_region *regs; /* the processes of this sample that are not gone */
	unsigned nregs, cap;
	const struct top_ctx *prev;
	/* CLOCK_MONOTONIC when the sample's reading began and ended: its counts were read
	   somewhere between the two. */
	uint64_t start_ns, end_ns;
};

static const struct top_region *top_find(const struct top_ctx *t, uint64_t pid, uint64_t ticks)
{
	for (unsigned i = 0; t && i < t->nregs; i++)
		if (t->regs[i].pid == pid && t->regs[i].ticks == ticks)
			return &t->regs[i];
	return NULL;
}

static uint64_t minus(uint64_t now, uint64_t was)
{
	return now - (was < now ? was : now);
}

static int top_add(struct region *r, void *vctx)
{
	struct top_ctx *t = vctx;
	static struct top_region tmp;
	struct top_region *g;
	const struct top_region *was;

	if ((t->pid && r->head.pid != t->pid) || !r->same_table)
		return 0;
	t->regions++;
	g = &tmp;
	if (!gone(r)) {
		if (t->nregs == t->cap) {
			unsigned cap = t->cap ? 2 * t->cap : 16;
			struct top_region *n = realloc(t->regs, cap * sizeof(*n));

			if (n) {
				t->regs = n;
				t->cap = cap;
			}
		}
		if (t->nregs < t->cap)
			g = &t->regs[t->nregs++];
	}
	memset(g, 0, sizeof(*g));
	g->pid = r->head.pid;
	g->ticks = r->head.start_ticks;
	g->state = r->state;
	snprintf(g->program, sizeof(g->program), "%s", r->head.program);
	for (uint32_t i = 0; i < r->head.slots_used; i++) {
		struct cua_live_slot *s = slot(r, i);

		for (uint32_t id = 0; id < CUAUDIT_ID_COUNT; id++) {
			g->calls[id] += cua_live_calls(s, r->head.ncalls)[id];
			g->times[id] += cua_live_times(s, r->head.ncalls, r->head.nids)[id];
			g->errors[id] += cua_live_errors(s, r->head.ncalls, r->head.nids)[id];
		}
		if (!gone(r) && s->tid && slot_alive(r, s)) {
			const struct cua_live_call *f;
			unsigned nf = in_flight(r, s, &f);

			g->threads++;
			for (unsigned d = 0; d < nf; d++) {
				uint64_t ns = flight_ns(r, f[d].h.t_start);

				if (f[d].h.id >= CUAUDIT_ID_COUNT)
					continue;
				t->inflight[f[d].h.id]++;
				g->inflight++;
				if (ns > t->longest[f[d].h.id])
					t->longest[f[d].h.id] = ns;
				if (!g->has_longest || ns > g->longest_ns) {
					g->has_longest = 1;
					g->longest_ns = ns;
					g->longest_id = f[d].h.id;
				}
			}
		}
	}
	was = top_find(t->prev, g->pid, g->ticks);
	for (uint32_t id = 0; id < CUAUDIT_ID_COUNT; id++) {
		uint64_t dc = 0, de = 0, dt = 0;

		t->calls[id] += g->calls[id];
		t->errors[id] += g->errors[id];
		t->times[id] += g->times[id];
		g->ncalls += g->calls[id];
		/* Known before: what it made since. New and not gone: all it made (it began
		   during the interval, or its file was not readable before). Gone and new: nothing
		   of it falls in the interval that can be told. */
		if (was) {
			dc = minus(g->calls[id], was->calls[id]);
			de = minus(g->errors[id], was->errors[id]);
			dt = minus(g->times[id], was->times[id]);
		} else if (g != &tmp) {
			dc = g->calls[id];
			de = g->errors[id];
			dt = g->times[id];
		}
		t->dcalls[id] += dc;
		t->derrors[id] += de;
		t->dtimes[id] += dt;
		g->dcalls += dc;
		g->derrors += de;
		g->dtimes += dt;
	}
	return 0;
}

static int top_sample(struct top_ctx *t)
{
	size_t n = CUAUDIT_ID_COUNT * sizeof(uint64_t);

	int rc;

	t->start_ns = monotonic_ns();
	memset(t->calls, 0, n);
	memset(t->errors, 0, n);
	memset(t->times, 0, n);
	memset(t->inflight, 0, n);
	memset(t->longest, 0, n);
	memset(t->dcalls, 0, n);
	memset(t->derrors, 0, n);
	memset(t->dtimes, 0, n);
	t->regions = 0;
	t->nregs = 0;
	rc = each_region(top_add, t, 1);
	t->end_ns = monotonic_ns();
	return rc;
}

static volatile sig_atomic_t stop_top;

static void on_int(int s)
{
	(void)s;
	stop_top = 1;
}

/* The sort keys: --sort NAME, or the key in brackets on a terminal. */
enum { SORT_CALLS, SORT_TIME, SORT_ERRORS, SORT_INFLIGHT, SORT_AVG, SORT_TOTAL, SORT_NAME, SORT_N };
static const struct {
	const char *name;
	char key;
	const char *what;
} sorts[SORT_N] = {
	{ "calls", 'c', "calls/s" },     { "time", 't', "time/s" },   { "errors", 'e', "errors/s" },
	{ "inflight", 'f', "in flight" }, { "avg", 'a', "average" },  { "total", 'T', "calls" },
	{ "name", 'n', "name" },
};

struct top_view {
	int processes; /* the process view; else the API view */
	int sort;
	int batch;
	unsigned rows, cols; /* the terminal's; 0: no limit (batch) */
	double secs;         /* the interval the rates are over */
};

/* One row of either view, made comparable. */
struct top_row {
	const char *name; /* API, or the program */
	uint64_t pid;
	uint64_t dcalls, derrors, dtimes, inflight, total;
	unsigned idx;
};

static uint64_t avg_of(const struct top_row *r)
{
	return r->dcalls ? r->dtimes / r->dcalls : 0;
}

static int row_cmp(const struct top_row *x, const struct top_row *y, int sort)
{
	uint64_t a = 0, b = 0;

	switch (sort) {
	case SORT_CALLS: a = x->dcalls, b = y->dcalls; break;
	case SORT_TIME: a = x->dtimes, b = y->dtimes; break;
	case SORT_ERRORS: a = x->derrors, b = y->derrors; break;
	case SORT_INFLIGHT: a = x->inflight, b = y->inflight; break;
	case SORT_AVG: a = avg_of(x), b = avg_of(y); break;
	case SORT_TOTAL: a = x->total, b = y->total; break;
	default: {
		int c = strcmp(x->name, y->name);

		return c ? c : (x->pid > y->pid) - (x->pid < y->pid);
	}
	}
	/* Largest first; ties by name, then pid. */
	if (a != b)
		return a > b ? -1 : 1;
	{
		int c = strcmp(x->name, y->name);

		return c ? c : (x->pid > y->pid) - (x->pid < y->pid);
	}
}

static void sort_rows(struct top_row *rows, unsigned n, int sort)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && row_cmp(&rows[j - 1], &rows[j], sort) > 0; j--) {
			struct top_row x = rows[j - 1];

			rows[j - 1] = rows[j];
			rows[j] = x;
		}
}

/* A duration in three significant digits and its unit (at most 6 characters): top's
   columns stay narrow enough for an 80-column terminal. */
static const char *dur_str(char *buf, size_t cap, uint64_t ns)
{
	static const char *const unit[] = { "us", "ms", "s" };
	double v = (double)ns;
	int u = -1;

	if (ns == NO_TIME) {
		snprintf(buf, cap, "?");
		return buf;
	}
	if (ns < 1000) {
		snprintf(buf, cap, "%lluns", (unsigned long long)ns);
		return buf;
	}
	while (u < 2 && v >= 999.5) {
		v /= 1000;
		u++;
	}
	snprintf(buf, cap, v < 9.995 ? "%.2f%s" : v < 99.95 ? "%.1f%s" : "%.0f%s", v, unit[u]);
	return buf;
}

/* Prints one line, cut to the terminal's width (a cut never splits a UTF-8 sequence: the
   command lines are escaped for the terminal, ASCII). */
static void top_line(const struct top_view *v, const char *line)
{
	size_t n = strlen(line);

	if (v->cols && n > v->cols)
		n = v->cols;
	fwrite(line, 1, n, stdout);
	fputs(v->batch ? "\n" : "\033[K\n", stdout);
}

static void top_render(const struct top_ctx *t, const struct top_view *v)
{
	static struct top_row rows[CUAUDIT_ID_COUNT > 4096 ? CUAUDIT_ID_COUNT : 4096];
	char line[1024], a[32], b[32], c[32];
	unsigned n = 0, shown, room;
	uint64_t all_calls = 0, all_errors = 0, all_times = 0, all_inflight = 0;
	time_t now = time(NULL);
	struct tm tm;
	char clock[16] = "";

	if (v->processes) {
		for (unsigned i = 0; i < t->nregs && n < sizeof(rows) / sizeof(rows[0]); i++) {
			const struct top_region *g = &t->regs[i];

			rows[n++] = (struct top_row){ g->program, g->pid, g->dcalls, g->derrors, g->dtimes,
						      g->inflight, g->ncalls, i };
		}
	} else {
		for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++)
			if (t->calls[id] || t->inflight[id])
				rows[n++] = (struct top_row){ cua_api[id].elf_name, 0, t->dcalls[id],
							      t->derrors[id], t->dtimes[id], t->inflight[id],
							      t->calls[id], id };
	}
	for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++) {
		all_calls += t->dcalls[id];
		all_errors += t->derrors[id];
		all_times += t->dtimes[id];
		all_inflight += t->inflight[id];
	}
	sort_rows(rows, n, v->sort);
	if (localtime_r(&now, &tm))
		strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	if (!v->batch)
		fputs("\033[H", stdout);
	snprintf(line, sizeof(line), "cuaudit top - %s, %u process(es), every %.1fs, %s view, sorted by %s%s",
		 clock, t->regions, v->secs, v->processes ? "process" : "API", sorts[v->sort].what,
		 v->batch ? "" : " (keys: q quit, p processes/APIs, c t e f a T n sort)");
	top_line(v, line);
	snprintf(line, sizeof(line), "calls/s %.0f, errors/s %.0f, time/s %s, in flight %llu",
		 (double)all_calls / v->secs, (double)all_errors / v->secs,
		 dur_str(a, sizeof(a), (uint64_t)((double)all_times / v->secs)),
		 (unsigned long long)all_inflight);
	top_line(v, line);
	/* TIME/S: the calls' time in the interval per second (the share of a thread's second
	   spent in them); AVG: their mean time; INFLT: calls in flight now, LONGEST the longest
	   of them. The name comes last, as top's command: a narrow terminal cuts only it. */
	if (v->processes)
		snprintf(line, sizeof(line), "%-7s %-8s %4s %8s %6s %6s %6s %5s %7s %s", "PID", "STATE",
			 "THR", "CALLS/S", "ERR/S", "TIME/S", "AVG", "INFLT", "LONGEST", "PROGRAM");
	else
		snprintf(line, sizeof(line), "%-7s %8s %6s %6s %6s %5s %7s %9s %s", "LAYER", "CALLS/S",
			 "ERR/S", "TIME/S", "AVG", "INFLT", "LONGEST", "CALLS", "API");
	top_line(v, line);
	/* On a terminal the rows fit its height: the three lines above, the rows, one that
	   says how many were left out, and the last line left empty (a full screen scrolls). */
	room = v->rows ? (v->rows > 5 ? v->rows - 5 : 0) : n;
	shown = n <= room + (v->rows ? 1 : 0) ? n : room;
	for (unsigned i = 0; i < shown; i++) {
		const struct top_row *r = &rows[i];

		dur_str(a, sizeof(a), (uint64_t)((double)r->dtimes / v->secs));
		if (r->dcalls)
			dur_str(b, sizeof(b), avg_of(r));
		else
			snprintf(b, sizeof(b), "-");
		if (v->processes) {
			const struct top_region *g = &t->regs[r->idx];

			if (g->has_longest)
				dur_str(c, sizeof(c), g->longest_ns);
			else
				snprintf(c, sizeof(c), "-");
			snprintf(line, sizeof(line), "%-7llu %-8s %4llu %8.0f %6.0f %6s %6s %5llu %7s %s",
				 (unsigned long long)g->pid, state_names[g->state],
				 (unsigned long long)g->threads, (double)r->dcalls / v->secs,
				 (double)r->derrors / v->secs, a, b, (unsigned long long)r->inflight, c,
				 cli_term(g->program));
		} else {
			unsigned id = r->idx;

			if (t->inflight[id])
				dur_str(c, sizeof(c), t->longest[id]);
			else
				snprintf(c, sizeof(c), "-");
			snprintf(line, sizeof(line), "%-7s %8.0f %6.0f %6s %6s %5llu %7s %9llu %s",
				 cua_api[id].layer == CUAUDIT_LAYER_RUNTIME ? "runtime" : "driver",
				 (double)r->dcalls / v->secs, (double)r->derrors / v->secs, a, b,
				 (unsigned long long)r->inflight, c, (unsigned long long)r->total,
				 cua_api[id].elf_name);
		}
		top_line(v, line);
	}
	if (shown < n) {
		snprintf(line, sizeof(line), "... %u more row(s), sorted by %s: a taller terminal, or -b, shows them",
			 n - shown, sorts[v->sort].what);
		top_line(v, line);
	}
	if (!v->batch)
		fputs("\033[J", stdout);
	fflush(stdout);
}

/* The terminal's size, 0 x 0 when stdout is none. */
static void term_size(struct top_view *v)
{
	struct winsize ws;

	v->rows = v->cols = 0;
	if (!v->batch && ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
		v->rows = ws.ws_row;
		v->cols = ws.ws_col;
	}
}

static struct termios saved_tio;
static int tio_saved;

static void restore_tty(void)
{
	if (tio_saved)
		tcsetattr(0, TCSANOW, &saved_tio);
	tio_saved = 0;
}

/* A key on the terminal changes the view; returns 1 to quit, 2 to show again now. */
static int top_key(struct top_view *v, char k)
{
	if (k == 'q' || k == 'Q')
		return 1;
	if (k == 'p' || k == 'P') {
		v->processes = !v->processes;
		return 2;
	}
	for (int i = 0; i < SORT_N; i++)
		if (sorts[i].key == k) {
			v->sort = i;
			return 2;
		}
	return 0;
}

static int sort_by_name(const char *s)
{
	for (int i = 0; i < SORT_N; i++)
		if (strcmp(s, sorts[i].name) == 0)
			return i;
	return -1;
}

static int top_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'D' },  { "help", no_argument, NULL, 'h' },
		{ "sort", required_argument, NULL, 's' }, { "processes", no_argument, NULL, 'p' },
		{ "batch", no_argument, NULL, 'b' },      { NULL, 0, NULL, 0 },
	};
	static uint64_t a[8][CUAUDIT_ID_COUNT], b[8][CUAUDIT_ID_COUNT];
	struct top_ctx ctx[2] = {
		{ 0, a[0], a[1], a[2], a[3], a[4], 0, a[5], a[6], a[7], NULL, 0, 0, NULL, 0, 0 },
		{ 0, b[0], b[1], b[2], b[3], b[4], 0, b[5], b[6], b[7], NULL, 0, 0, NULL, 0, 0 },
	};
	struct top_ctx *t0 = &ctx[0], *t1 = &ctx[1];
	struct top_view v = { 0, SORT_CALLS, 0, 0, 0, 1 };
	const char *dir = NULL;
	double secs = 1;
	uint64_t count = 0;
	int c, keys;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hd:n:s:pb", opts, NULL)) != -1) {
		switch (c) {
		case 'D': dir = optarg; break;
		case 'd': {
			char *end;

			secs = strtod(optarg, &end);
			if (*end || !(secs >= 0.1 && secs <= 3600)) {
				fprintf(stderr, "cuaudit top: -d: '%s' is not a number of seconds from 0.1 to 3600\n", optarg);
				return 2;
			}
			break;
		}
		case 'n':
			if (parse_u64(optarg, &count) != 0 || !count) {
				fprintf(stderr, "cuaudit top: -n: '%s' is not a positive number\n", optarg);
				return 2;
			}
			break;
		case 's':
			if ((v.sort = sort_by_name(optarg)) < 0) {
				fprintf(stderr, "cuaudit top: --sort: '%s' is not calls, time, errors, inflight, "
						"avg, total or name\n", optarg);
				return 2;
			}
			break;
		case 'p': v.processes = 1; break;
		case 'b': v.batch = 1; break;
		case 'h': live_usage(stdout); return 0;
		default: return option_refused("top", c, argc, argv, opts);
		}
	}
	if (optind < argc && (optind + 1 < argc || parse_u64(argv[optind], &t0->pid) != 0 ||
			      !t0->pid)) {
		fprintf(stderr, "cuaudit top: '%s' is not a process id\n",
			optind + 1 < argc ? argv[optind + 1] : argv[optind]);
		return 2;
	}
	t1->pid = t0->pid;
	/* Not on a terminal: a batch, as -b. */
	if (!isatty(1))
		v.batch = 1;
	if (!count)
		count = v.batch ? 1 : UINT64_MAX;
	v.secs = secs;
	choose_dir(dir);
	signal(SIGINT, on_int);
	signal(SIGTERM, on_int);
	signal(SIGHUP, on_int);
	if (top_sample(t0) < 0)
		return 1;
	/* A pid with no region: rows of nothing, refreshed for ever, would look like an idle
	   process. The message is find_region's. */
	if (t0->pid && !t0->regions) {
		struct region r;

		if (find_region(t0->pid, &r) != 0)
			return 1;
		unload(&r);
	}
	/* Keys from the terminal, read a key at a time without echo; the terminal is given
	   back as it was at the end. */
	keys = !v.batch && isatty(0) && tcgetattr(0, &saved_tio) == 0;
	if (keys) {
		struct termios raw = saved_tio;

		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		tio_saved = tcsetattr(0, TCSANOW, &raw) == 0;
		atexit(restore_tty);
	}
	if (!v.batch)
		fputs("\033[H\033[2J", stdout);
	for (uint64_t round = 0; round < count && !stop_top; round++) {
		uint64_t t_wait = monotonic_ns(), left_ns = (uint64_t)(secs * 1e9);
		int quit = 0;

		/* The wait: keys answered at once, on the sample shown (none before the first). */
		while (!stop_top && !quit) {
			uint64_t gone_ns = monotonic_ns() - t_wait;
			struct pollfd p = { 0, POLLIN, 0 };
			char k;

			if (gone_ns >= left_ns)
				break;
			if (!keys) {
				usleep((useconds_t)((left_ns - gone_ns) / 1000));
				break;
			}
			if (poll(&p, 1, (int)((left_ns - gone_ns + 999999) / 1000000)) <= 0)
				continue;
			if (read(0, &k, 1) != 1)
				continue;
			switch (top_key(&v, k)) {
			case 1: quit = 1; break;
			case 2:
				if (round) {
					term_size(&v);
					top_render(t0, &v);
				}
				break;
			default: break;
			}
		}
		if (quit || stop_top)
			break;
		t1->prev = t0;
		if (top_sample(t1) < 0)
			break;
		/* The interval the rates are over: from the start of the sample before to the end
		   of this one, the longest the counts' differences can span, so that a rate is never
		   overstated (a read slowed by a loaded machine made a thread's time per second
		   1.01 s). */
		v.secs = (double)(t1->end_ns - t0->start_ns) / 1e9;
		if (v.secs < 0.001)
			v.secs = 0.001;
		term_size(&v);
		if (v.batch && round)
			putchar('\n');
		top_render(t1, &v);
		/* This sample is the next one's before. */
		{
			struct top_ctx *x = t0;

			t0 = t1;
			t1 = x;
		}
	}
	restore_tty();
	free(ctx[0].regs);
	free(ctx[1].regs);
	return 0;
}

/* ---------------------------------------------------------------- ctl */

#define CTL_USAGE "usage: cuaudit ctl [--dir DIR] PID trace|log start|stop\n"

/* A refusal of ctl's: what is wrong, then ctl's own usage line (not the one of ps and top). */
__attribute__((format(printf, 1, 2))) static int ctl_refuse(const char *fmt, ...)
{
	va_list ap;

	fputs("cuaudit ctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n" CTL_USAGE, stderr);
	return 2;
}

static int ctl_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'D' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *what, *verb;
	struct region r;
	uint64_t pid;
	uint32_t bit, cap, was;
	int c, fd, on;
	off_t at = (off_t)offsetof(struct cua_live_head, ctl);
	struct stat st = { 0 };
	void *map;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'D': dir = optarg; break;
		case 'h': live_usage(stdout); return 0;
		default: {
			char what[512];

			refused_option(c, argc, argv, opts, what, sizeof(what));
			return ctl_refuse("%s", what);
		}
		}
	}
	if (argc - optind != 3)
		return ctl_refuse("%s", argc - optind < 3 ? "too few arguments" : "too many arguments");
	if (parse_u64(argv[optind], &pid) != 0 || !pid)
		return ctl_refuse("'%s' is not a process id", argv[optind]);
	what = argv[optind + 1];
	verb = argv[optind + 2];
	if (strcmp(what, "trace") == 0) {
		bit = CUA_LIVE_CTL_TRACE;
		cap = CUA_LIVE_CAP_TRACE;
	} else if (strcmp(what, "log") == 0) {
		bit = CUA_LIVE_CTL_LOG;
		cap = CUA_LIVE_CAP_LOG;
	} else {
		fprintf(stderr, "cuaudit ctl: '%s' is not trace or log\n", what);
		return 2;
	}
	if (strcmp(verb, "start") != 0 && strcmp(verb, "stop") != 0) {
		fprintf(stderr, "cuaudit ctl: '%s' is not start or stop\n", verb);
		return 2;
	}
	on = verb[2] == 'a';
	choose_dir(dir);
	if (find_region(pid, &r) != 0)
		return 1;
	if (r.state != ST_RUNNING && r.state != ST_STOPPED) {
		fprintf(stderr, "cuaudit ctl: process %llu is %s\n", (unsigned long long)pid,
			state_names[r.state]);
		unload(&r);
		return 1;
	}
	if (!(r.head.caps & cap)) {
		fprintf(stderr, "cuaudit ctl: process %llu cannot switch its %s: it must be started with %s "
			"and CUAUDIT_CAPTURE=ctl%s\n", (unsigned long long)pid, what,
			bit == CUA_LIVE_CTL_TRACE ? "CUAUDIT_TRACE" : "CUAUDIT_LOG=verbose (or errors)",
			bit == CUA_LIVE_CTL_TRACE ? " (or profiler-api)" : "");
		unload(&r);
		return 1;
	}
	/* The word is changed in a shared mapping of the file's head (one page cache with the
	   process's), with one atomic or/and: two `cuaudit ctl` at once (trace and log) each
	   keep the other's bit. Only `cuaudit ctl` writes this word. */
	fd = open(r.path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < (off_t)CUA_LIVE_HEAD_SIZE ||
	    (map = mmap(NULL, CUA_LIVE_HEAD_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		fprintf(stderr, "cuaudit ctl: cannot open %s: %s\n", r.path,
			fd >= 0 && st.st_size < (off_t)CUA_LIVE_HEAD_SIZE ? "shorter than its head" : strerror(errno));
		if (fd >= 0)
			close(fd);
		unload(&r);
		return 1;
	}
	close(fd);
	/* The word before the change tells a second start (or stop) from the first. */
	if (on)
		was = __atomic_fetch_or((uint32_t *)((char *)map + at), bit, __ATOMIC_SEQ_CST);
	else
		was = __atomic_fetch_and((uint32_t *)((char *)map + at), ~bit, __ATOMIC_SEQ_CST);
	munmap(map, CUA_LIVE_HEAD_SIZE);
	if (!(was & bit) == !on)
		printf("%s was already %s in process %llu: nothing changed\n", what,
		       on ? "on" : "off", (unsigned long long)pid);
	else
		printf("%s %s in process %llu (from each thread's next call)\n", what,
		       on ? "started" : "stopped", (unsigned long long)pid);
	unload(&r);
	return 0;
}

int cua_cli_live_main(int argc, char **argv)
{
	cua_tracefmt_init();
	sig = cua_tracefmt_table_sig();
	if (strcmp(argv[0], "ps") == 0)
		return ps_main(argc, argv);
	if (strcmp(argv[0], "top") == 0)
		return top_main(argc, argv);
	return ctl_main(argc, argv);
}
