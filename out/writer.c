/* SPDX-License-Identifier: MIT */
/* out/writer.c: a small buffered writer on top of write(2), and report-file opening. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h> /* rename only: no stream is used */
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "config.h"
#include "fd.h"
#include "out.h"
#include "process.h"
#include "writer.h"


/* A full buffer is written out and the append goes on: an item longer than the room asked
   for (a command line of 1,600 CJK characters) is never cut. */
static void spill(struct cua_buf *b)
{
	cua_writer_flush((struct cua_writer *)((char *)b - offsetof(struct cua_writer, b)));
}

void cua_writer_init(struct cua_writer *w, int fd)
{
	w->fd = fd;
	w->failed = fd < 0;
	w->err = fd < 0 ? EBADF : 0;
	w->written = 0;
	w->b = (struct cua_buf){ w->mem, 0, sizeof(w->mem), 0, spill, 0 };
}

void cua_writer_flush(struct cua_writer *w)
{
	const char *p = w->mem;
	size_t left = w->b.len;

	if (left && !w->failed) {
		if (cua_fd_write_all(w->fd, p, left, -1) != 0) {
			w->failed = 1;
			w->err = errno;
		} else {
			w->written += (uint64_t)left;
		}
	}
	w->b.len = 0;
	w->b.truncated = 0;
}

struct cua_buf *cua_writer_room(struct cua_writer *w, size_t need)
{
	if (w->b.cap - w->b.len < need)
		cua_writer_flush(w);
	return &w->b;
}

/* Files written as an image ends at exec carry a mark in their modification time, so that the
   next image of the process (exec keeps the pid) does not overwrite them: the nanoseconds
   encode the process's start (/proc/self/stat field 22, clock ticks since boot, which exec
   keeps), and the seconds are the time of writing. See docs/design.md, "exec". */
/* The process marking (0: none): a child forked by another thread meanwhile is not. */
static int marking;

struct start {
	uint64_t ticks;    /* 0: unknown */
	int64_t real_sec;  /* about when, in CLOCK_REALTIME seconds */
};

static struct start process_start(void)
{
	struct start st = { 0, 0 };
	char stat[1024];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, stat, sizeof(stat) - 1) : -1;
	long tick = sysconf(_SC_CLK_TCK);
	struct timespec real, boot;
	const char *p;
	int field = 2;

	if (fd >= 0)
		close(fd);
	if (n <= 0 || tick <= 0)
		return st;
	stat[n] = '\0';
	p = strrchr(stat, ')'); /* the command name may hold spaces and parentheses */
	for (; p && *p && field < 22; p++)
		if (*p == ' ')
			field++;
	if (!p || *p < '0' || *p > '9')
		return st;
	for (; *p >= '0' && *p <= '9'; p++)
		st.ticks = st.ticks * 10 + (uint64_t)(*p - '0');
	if (clock_gettime(CLOCK_REALTIME, &real) != 0 || clock_gettime(CLOCK_BOOTTIME, &boot) != 0) {
		st.ticks = 0;
		return st;
	}
	st.real_sec = real.tv_sec - boot.tv_sec + (int64_t)(st.ticks / (uint64_t)tick);
	return st;
}

/* Whole microseconds, never 0: file systems that keep microseconds keep the mark too. */
static long mark_nsec(uint64_t ticks)
{
	return (long)(ticks % 999983u + 1) * 1000;
}

void cua_writer_mark_images(int on)
{
	marking = on ? (int)getpid() : 0;
}

/* Marks a file this image finished at exec (the descriptor is still open). */
static void mark(int fd)
{
	struct start st;
	struct timespec t[2];

	if (marking != (int)getpid() || fd < 0 || (st = process_start()).ticks == 0 ||
	    clock_gettime(CLOCK_REALTIME, &t[1]) != 0)
		return;
	t[0].tv_sec = 0;
	t[0].tv_nsec = UTIME_OMIT;
	/* Never in the future: the mark's nanoseconds within the last second. */
	if (mark_nsec(st.ticks) > t[1].tv_nsec)
		t[1].tv_sec--;
	t[1].tv_nsec = mark_nsec(st.ticks);
	futimens(fd, t);
}

/* An existing file of ours that an earlier image of this process finished at its exec. */
static int earlier_image(int fd)
{
	struct start st = process_start();
	struct stat s;

	return st.ticks && fstat(fd, &s) == 0 && s.st_mtim.tv_nsec == mark_nsec(st.ticks) &&
	       s.st_mtim.tv_sec >= st.real_sec - 2;
}

/* How far a file's modification time may lag the moment it was written: the coarse clock
   the kernel stamps files with advances once a tick (1 to 10 ms). */
#define COARSE_LAG_NS 10000000u

/* This process's start in CLOCK_REALTIME ns (which exec keeps), less the margins below;
   0: unknown. */
static uint64_t own_start_ns(void)
{
	struct start st = process_start();
	struct timespec real, boot;
	long tick = sysconf(_SC_CLK_TCK);
	uint64_t own = 0, real_ns, boot_ns, since_boot;

	if (st.ticks && tick > 0 && clock_gettime(CLOCK_REALTIME, &real) == 0 &&
	    clock_gettime(CLOCK_BOOTTIME, &boot) == 0) {
		real_ns = (uint64_t)real.tv_sec * 1000000000u + (uint64_t)real.tv_nsec;
		boot_ns = (uint64_t)boot.tv_sec * 1000000000u + (uint64_t)boot.tv_nsec;
		/* Clock ticks are 10 ms and the start rounds down; a further 10 ms covers the file
		   system's coarse clock, which lags by up to a tick (HZ 100 or more): a file a
		   concurrent process wrote just after this one started is kept rather than lost. */
		since_boot = st.ticks / (uint64_t)tick * 1000000000u +
			     st.ticks % (uint64_t)tick * (1000000000u / (uint64_t)tick);
		if (boot_ns >= since_boot && real_ns >= boot_ns - since_boot)
			own = real_ns - (boot_ns - since_boot);
		own = own > COARSE_LAG_NS ? own - COARSE_LAG_NS : 0;
	}
	return own;
}

/* The start of the process that loaded this image (la_version): a forked child keeps its
   parent's, so that children forked one after the other are processes of one run. With each
   child's own start, each took the summary and trace of the sibling that ended before it
   as an earlier run's and replaced them (plain LD_AUDIT, a worker forked per task). */
static uint64_t image_start;

void cua_writer_setup(void)
{
	image_start = own_start_ns();
}

/* When this run of cuaudit began, in CLOCK_REALTIME ns: `cuaudit run` passes its own start
   (CUAUDIT_SESSION_START), so that every process it runs shares one; without it, the start
   of the process that loaded this image (which exec keeps; a forked child has its
   parent's). 0: unknown. */
static uint64_t session_start_ns(void)
{
	uint64_t own = image_start ? image_start : own_start_ns(), run;
	struct timespec now;

	if (!cua_cfg.session_start_ns)
		return own;
	/* The run's start; every process of the run started after it. Less the coarse clock's
	   lag, should whoever set it have read a precise clock. */
	run = cua_cfg.session_start_ns > COARSE_LAG_NS ? cua_cfg.session_start_ns - COARSE_LAG_NS
						       : 1;
	/* A run cannot have begun after this process did, nor in the future: such a value
	   (set by hand) would take every file of the run for an earlier run's, and each
	   process would replace the one before it. */
	if (own && own < run)
		return own;
	if (clock_gettime(CLOCK_REALTIME, &now) == 0 &&
	    run > (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec)
		return own;
	return run;
}

/* A file of ours changed since this run began: another process of the run (several processes
   given one name without %p), or an earlier image of this one, claimed or wrote it. Its data
   is kept; this process takes the next numbered name. */
static int this_run(int fd)
{
	uint64_t start = session_start_ns(), changed;
	struct stat s;

	if (!start || fstat(fd, &s) != 0)
		return 0;
	/* The later of the modification and the change time: a modification time may lie in
	   the past (the exec mark above goes up to a second back; cp -p, rsync -t and tar keep
	   an old one), while the change time is the kernel's, set at the last write, rename or
	   time change. A launcher's summary written at its exec less than a second after the
	   run began was taken for an earlier run's and replaced by a sibling process's. */
	changed = (uint64_t)s.st_mtim.tv_sec * 1000000000u + (uint64_t)s.st_mtim.tv_nsec;
	if ((uint64_t)s.st_ctim.tv_sec * 1000000000u + (uint64_t)s.st_ctim.tv_nsec > changed)
		changed = (uint64_t)s.st_ctim.tv_sec * 1000000000u + (uint64_t)s.st_ctim.tv_nsec;
	return changed >= start;
}

/* A file to pass over: an earlier image of this process finished it at its exec, or another
   process of this run (or an earlier image) claimed or wrote it since the run began. */
static int not_ours_now(int fd)
{
	return earlier_image(fd) || this_run(fd);
}

/* A file to pass over for an output that replaces its own process's earlier images (the
   metrics): another process of this run (a forked child, ranks given one name) claimed or
   wrote it; one an earlier image of this very process finished at its exec is replaced. */
static int other_process_now(int fd)
{
	return !earlier_image(fd) && this_run(fd);
}

int cua_writer_open(const char *what, const char *tmpl, const char *signature, unsigned flags,
		    char *path, size_t cap)
{
	char base[CUA_PATH_MAX];

	if (cua_fmt_path(base, sizeof(base), tmpl, (unsigned)getpid(), cua_process_host()) < 0)
		return -1;
	/* Files that an earlier image or another process of this run wrote stay, unless this
	   output replaces its own process's earlier images (the metrics: a live view, one per
	   process); another process's stay for it too (replaced, only the last writer's counts
	   were left). */
	return cua_out_choose(what, base, signature, 0,
			      (flags & CUA_WRITER_REPLACE_IMAGES) ? other_process_now : not_ours_now,
			      path, cap);
}

/* Flushes, marks (at an exec) and closes the descriptor; a failure of any is kept in w. */
static void close_fd(struct cua_writer *w)
{
	cua_writer_flush(w);
	if (!w->failed)
		mark(w->fd);
	if (w->fd >= 0 && close(w->fd) != 0 && !w->failed) {
		w->failed = 1;
		w->err = errno;
	}
	w->fd = -1;
}

int cua_writer_close(struct cua_writer *w, const char *path)
{
	close_fd(w);
	if (!w->failed)
		return 0;
	cua_out_report("cannot write ", path, w->err);
	return -1;
}

/* Lets the held file go: closed only while the number still names it (the program may have
   closed ours and opened its own file under it). */
static void release(struct cua_writer *w)
{
	struct stat st;
	int fd = w->held_fd - 1;

	if (!w->held_fd)
		return;
	w->held_fd = 0;
	if (fstat(fd, &st) == 0 && (uint64_t)st.st_dev == w->held_dev &&
	    (uint64_t)st.st_ino == w->held_ino)
		close(fd);
}

/* Holds the regular file 'path' leads to (when 'want' is given, only if it is that file)
   with a shared flock, never waited for. A process that finds a report file under its name
   while the process that wrote it still runs (a service writing snapshots, a long trace
   conversion after the claim) passes it over: the time rule alone (this_run) let a process
   started after the writer's last snapshot take the name, and the writer's next snapshot
   replaced the other's summary. Without flock, or with every descriptor closed by the
   program, the time rule is all there is. */
static void hold(struct cua_writer *w, const char *path, const struct stat *want)
{
	int fd = cua_fd_high(open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
	struct stat st;

	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (want && (st.st_dev != want->st_dev || st.st_ino != want->st_ino)) ||
	    flock(fd, LOCK_SH | LOCK_NB) != 0) {
		close(fd);
		return;
	}
	release(w);
	w->held_fd = fd + 1;
	w->held_dev = (uint64_t)st.st_dev;
	w->held_ino = (uint64_t)st.st_ino;
}

static int open_temp(const char *path, char *tmp, size_t cap)
{
	const char *slash = strrchr(path, '/');
	struct cua_buf b = { tmp, 0, cap ? cap - 1 : 0, 0, NULL, 0 };
	int fd;

	/* DIR/.NAME.PID.tmp: hidden, in the same file system so that rename is atomic. */
	cua_buf_mem(&b, path, slash ? (size_t)(slash - path + 1) : 0);
	cua_buf_char(&b, '.');
	cua_buf_str(&b, slash ? slash + 1 : path);
	cua_buf_char(&b, '.');
	cua_buf_u64(&b, (uint64_t)getpid());
	cua_buf_str(&b, ".tmp");
	if (b.truncated)
		return -1;
	tmp[b.len] = '\0';
	unlink(tmp); /* a crashed image of this pid (exec keeps it) may have left one */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	return cua_fd_high(fd);
}

int cua_writer_begin_atomic(struct cua_writer *w, const char *what, const char *path, char *tmp,
			    size_t cap)
{
	int fd = open_temp(path, tmp, cap);
	char why[64];
	struct cua_buf b = CUA_BUF(why);

	if (fd < 0) {
		int err = errno;

		cua_buf_str(&b, "cannot write the ");
		cua_buf_str(&b, what);
		cua_buf_str(&b, " beside ");
		why[b.len < sizeof(why) ? b.len : sizeof(why) - 1] = '\0';
		cua_out_report(why, path, err);
		return -1;
	}
	cua_writer_init(w, fd);
	/* The claim (or this process's last file) stays held while the new one is written. */
	hold(w, path, NULL);
	return 0;
}

int cua_writer_commit(struct cua_writer *w, const char *tmp, const char *path)
{
	struct stat st;
	int known = w->fd >= 0 && fstat(w->fd, &st) == 0;

	close_fd(w);
	if (!w->failed && rename(tmp, path) != 0) {
		w->failed = 1;
		w->err = errno;
	}
	if (!w->failed) {
		if (known)
			hold(w, path, &st);
		return 0;
	}
	release(w);
	unlink(tmp);
	cua_out_report("cannot write ", path, w->err);
	return -1;
}
