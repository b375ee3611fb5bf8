/* SPDX-License-Identifier: MIT */
/* hooks/trace/trace.c: the CUAUDIT_TRACE hook: binary records per call in per-thread buffers, written to a raw file that becomes Chrome trace JSON. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "finish.h"
#include "configs.h"
#include "gpu.h"
#include "gpu_trace.h"
#include "config.h"
#include "dispatch.h"
#include "hooks.h"
#include "trace_config.h"
#include "kernelnames.h"
#include "roles.h"
#include "callfmt.h"
#include "log.h"
#include "nvtx.h"
#include "fd.h"
#include "out.h"
#include "process.h"
#include "provenance.h"
#include "table.h"
#include "threads.h"
#include "tracefmt.h"
#include "writer.h"

/* A call costs a copy of its arguments into the thread's buffer; the JSON is formatted at
   exit, or by `cuaudit trace` from the raw file after a kill. Each thread buffers up to
   1 MiB and writes a full buffer, or one older than CUAUDIT_FLUSH_INTERVAL, to the raw file
   as one block, so memory stays bounded at 1 MiB per live thread that calls CUDA. */
#define TBUF_SIZE (1u << 20)
#define STR_MAX 63

/* A buffer's state and the thread that set it are one word, taken in one compare-and-swap:
   a signal landing between "flushing" and "by whom" made exit wait for its own thread. */
enum { IDLE = 0, FLUSHING = 1, CLOSED = 2 };
#define STATE(w) ((w) & 3u)
#define FLUSHING_BY(tid) ((uint64_t)(tid) << 2 | FLUSHING)
#define FLUSHER(w) ((uint32_t)((w) >> 2))
/* Where the block of a flush in progress lies in the raw file (tbuf.block_at): not taken yet,
   or being taken (the atomic add that takes it is done or not); else its offset, always
   past the raw file's head. */
#define NO_BLOCK 0u
#define TAKING 1u

struct tbuf {
	struct cua_tslot slot; /* slot.busy: a flush is in progress */
	uint64_t state;        /* IDLE, FLUSHING_BY(tid) (its thread writes it out), CLOSED (exit has) */
	int taken;             /* closed by this finish, to be formatted */
	/* What a flush that a signal handler's jump (siglongjmp) left needs to be finished by
	   the thread's next update at its level (take_over): its block's place (NO_BLOCK,
	   TAKING or the offset), and the thread's cancellation state before it (-1: unchanged). */
	uint64_t block_at;
	int cancel_old;
	uint64_t flush_at;     /* write the buffer out at the first call after this time */
	size_t committed;      /* bytes of whole records */
	/* With the live view on (level 0 only): the thread's ring that holds calls for the
	   buffer (NULL: none yet), its first record's address, the INDEX of the first record
	   not yet written out, and the calls since that the ring alone keeps (CUA_LIVE_TRACED;
	   0: the ring need not be written out). */
	struct cua_live_slot *ring;
	uintptr_t ring_at;
	uint64_t drained;
	uint32_t plain;
	/* Of those, the ones a signal handler's calls copied into their own level's buffer while
	   an update of this buffer's could not write the ring out (ring_rescue), and the INDEX
	   their copying reached. Added to by those handlers; set back to 0 with plain, by its
	   owner's writing out (FLUSHING), ring_attach (no call kept then) and exit. */
	uint32_t rescued;
	uint64_t rescued_upto;
	/* Its owner's count of signal handlers run (cua_self.sig_serial) at its last writing
	   out of the ring (seal_ring). */
	uint32_t sig_seen;
	/* While its owner writes the ring out (sealing_on, from before it is marked FLUSHING
	   until seal_ring returns), the last INDEX seal_ring has begun to read (drained - 1
	   before the first): a handler copies from the next one on (ring_rescue). */
	uint64_t sealing;
	uint32_t sealing_on;
	uint32_t ring_gen; /* the ring's owner generation then: another owner may have reused it */
	uint32_t ring_tid; /* the thread whose calls it holds there (an adopter's are its own) */
	/* A writing out of the ring in progress (seal_own): committed once its calls are
	   counted, and the INDEX it wrote up to; sealed_at 0: none. */
	size_t sealed_at;
	uint64_t sealed_upto;
	/* At exit: its records with the calls its ring kept, copied when the finish took it
	   (before the raw file is converted, while its owner may go on calling), and their
	   bytes; NULL: none copied. */
	char *taken_copy;
	size_t taken_n;
	_Alignas(8) char data[];
};

/* This hook's slice of the configuration, copied at start. */
static struct {
	char path[CUA_PATH_MAX];      /* CUAUDIT_TRACE, a template */
	uint64_t max;                 /* CUAUDIT_TRACE_MAX; 0: no bound */
	uint64_t exit_ns;             /* CUAUDIT_TRACE_EXIT_TIME; 0: keep the raw file */
	uint64_t flush_interval_ns;   /* CUAUDIT_FLUSH_INTERVAL; 0: only full buffers */
	int capture;                  /* CUAUDIT_CAPTURE */
} cfg;

static struct cua_tslot *all_buffers;
static __thread struct tbuf *mine[CUA_LEVELS] __attribute__((tls_model("initial-exec")));
static uint64_t lost; /* records past CUA_LEVELS nested handlers: dropped, reported */
/* Records dropped because their thread's buffer was full and could not be written out then
   (the raw file was being made by a thread that did not finish it in time): reported. */
static uint64_t unwritten;
/* Calls whose records the live view's ring took again before the trace wrote them out (a
   signal handler's calls past the window, or a write that failed): reported. */
static uint64_t overtaken;

/* The raw file, one per process image: pid plus a nonce taken at load, since exec keeps
   the pid and the new image must not collide with the old one's file. */
static struct {
	int fd;
	uint64_t pid;   /* the process the file belongs to; 0 before it is made */
	uint64_t opening; /* OPENER(pid, tid, level) of the thread making it; 0 when none */
	int making;     /* the descriptor of the file being made, until it is raw.fd; -1: none */
	int made;       /* the file at path was created by this process image */
	int dead;       /* stopped: cannot create, foreign descriptor, limit, write error */
	int limited;    /* stopped by CUAUDIT_TRACE_MAX */
	int cut;        /* stopped by an error (EFBIG past ulimit -f, ...): events were dropped */
	dev_t dev;
	ino_t ino;
	uint64_t end;   /* next free offset: blocks reserve their place with one atomic add */
	char path[CUA_PATH_MAX + 64];
} raw = { .fd = -1, .making = -1 };
static uint64_t nonce;
static int capturing; /* CUAUDIT_CAPTURE=profiler-api: inside Start..Stop */
/* Fixed per function at start, so that a call does no work for what it lacks:
   the arguments whose pointees a record keeps (cua_callfmt_out_kept, one bit each), and
   whether any argument is a string. */
static uint32_t out_mask[CUAUDIT_ID_COUNT];
static uint8_t has_string[CUAUDIT_ID_COUNT];
/* The bytes of the argument struct its arguments span (the record's room for them is this
   rounded up to 8: cua_trace_args_size). */
static uint16_t args_end[CUAUDIT_ID_COUNT];
/* The process whose trace is finished: a flag would be inherited by a forked child, whose
   trace is its own. */
static uint64_t finished_pid;
/* The claim on making the raw file names its thread and the level of the update that made
   it (base/threads.h), in one word: process ids are below 2^22 (PID_MAX_LIMIT), so the
   level fits above them. */
#define OPENER(pid, tid, l) ((uint64_t)(l) << 56 | (pid) << 32 | (uint32_t)(tid))
#define OPENER_PID(o) ((o) >> 32 & 0xffffffu)
#define OPENER_TID(o) ((uint32_t)(o))
#define OPENER_LEVEL(o) ((unsigned)((o) >> 56))

/* Bytes of a buffer for records: all of it, less the room that one writing out of the ring
   takes with the live view on (ring_room), so that a block stays within TBUF_SIZE, the
   readers' window. Fixed at the first buffer: the view is set up before any call. */
static size_t tbuf_room;
/* References a thread may make before its ring is written out: three quarters of the ring,
   the rest for the calls nested in the one that writes it and for signal handlers'. */
static uint64_t ring_window;
/* Records since the last writing out past which a signal handler's call at a higher level
   copies the calls kept there out of the ring (ring_rescue): halfway through the quarter
   past the window, the rest for the handlers' nested calls. */
static uint64_t ring_rescue_at;
/* The bytes of a ring: a record lies in the buffer's ring when its address less ring_at is
   below this. */
static uintptr_t ring_bytes;
/* tbuf.ring_at while the buffer holds no ring: no record's address, nor 0, less it is below
   ring_bytes (user addresses are below 2^63). */
#define NO_RING ((uintptr_t)1 << 63)

static size_t ring_room(void)
{
	return cua_live_on ? sizeof(struct cua_rec_head) +
				     (size_t)(cua_live_calls_mask + 1) * sizeof(struct cua_live_call)
			   : 0;
}

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Our writes must not be cut short by pthread_cancel: write(2) is a cancellation point,
   and a thread unwound mid-flush would leave its buffer marked busy. The cancellation
   state lives in the thread's descriptor, which both namespaces' libcs share. */
static int nocancel_begin(void)
{
	int old = PTHREAD_CANCEL_ENABLE;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	return old;
}

static void nocancel_end(int old)
{
	pthread_setcancelstate(old, &old);
}

/* The trace file name for this process, and its raw file beside it. */
static int trace_path(char *path, size_t cap)
{

	return cua_fmt_path(path, cap, cfg.path, cua_process_id(), cua_process_host()) < 0 ? -1 : 0;
}

static void stop_raw(const char *why, int err)
{
	if (__atomic_exchange_n(&raw.dead, 1, __ATOMIC_ACQ_REL))
		return;
	__atomic_store_n(&raw.cut, 1, __ATOMIC_RELEASE);
	cua_out_report(why, raw.path, err);
}

/* The program's name, cut to fit the raw file's head: `cuaudit trace` names the process with it. */
static void program_name(char *out, size_t cap)
{
	const char *prog = cua_provenance_program(), *slash;
	size_t n;

	if (!prog)
		return;
	slash = strrchr(prog, '/');
	prog = slash ? slash + 1 : prog;
	n = strlen(prog);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, prog, n);
}

static void remove_ours(const char *path, uint64_t pid);

/* A making of the raw file that a jump out of a signal handler left (raw_file): its
   descriptor closed where it is still the file at name (the program may have taken the
   number since), and the file removed where it is ours (raw.path is name: pid and 64-bit
   nonce), so that it is made again whole. */
static CUA_COLD void forget_making(const char *name, uint64_t pid)
{
	struct stat a, b;
	int fd = raw.making;

	raw.making = -1;
	if (fd >= 0 && fstat(fd, &a) == 0 && lstat(name, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino)
		close(fd);
	remove_ours(name, pid);
}

/* again: a making of this process that a jump left is taken over. */
static void make_raw(uint64_t pid, int again)
{
	char path[CUA_PATH_MAX], name[sizeof(raw.path)];
	struct cua_buf b = CUA_BUF(name);
	struct cua_raw_head h;
	struct stat st;
	int fd;

	raw.fd = -1;
	raw.dead = 0;
	raw.made = 0;
	raw.end = sizeof(h);
	if (trace_path(path, sizeof(path)) != 0)
		return;
	cua_buf_str(&b, path);
	cua_buf_char(&b, '.');
	cua_buf_u64(&b, pid);
	cua_buf_char(&b, '.');
	cua_buf_hex(&b, nonce);
	cua_buf_str(&b, ".raw");
	name[b.len < sizeof(name) ? b.len : sizeof(name) - 1] = '\0';
	if (again)
		forget_making(name, pid);
	memcpy(raw.path, name, sizeof(name));
	/* O_EXCL: a file already there is not ours to overwrite. */
	fd = open(raw.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	raw.making = fd;
	raw.made = fd >= 0;
	if (fd < 0) {
		stop_raw("cannot create the trace's raw file ", errno);
		return;
	}
	fd = cua_fd_high(fd);
	raw.making = fd;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, CUA_RAW_MAGIC, sizeof(CUA_RAW_MAGIC) - 1);
	h.table_sig = cua_tracefmt_table_sig();
	h.pid = pid;
	h.nonce = nonce;
	program_name(h.program, sizeof(h.program));
	h.start_ticks = cua_live_start_ticks(0);
	h.pidns = cua_live_pidns();
	cua_provenance_anchor(&h.anchor_realtime_ns, &h.anchor_monotonic_ns);
	if (fstat(fd, &st) != 0 || cua_fd_write_all(fd, &h, sizeof(h), 0) != 0) {
		stop_raw("cannot write the trace's raw file ", errno);
		close(fd);
		unlink(raw.path);
		return;
	}
	raw.dev = st.st_dev;
	raw.ino = st.st_ino;
	raw.fd = fd;
}

/* The raw file's descriptor, made at the first block of this process; -1 when there is
   none. A thread that finds another making it waits for that, but never forever: the maker
   runs with cancellation off, and a bounded wait covers the rest. */
/* The raw file this thread was making when a signal handler called exit(): removed if it was
   created (made), or if the signal landed between the open and that mark: a file under our
   name (pid and 64-bit nonce) that is empty, cut inside its head, or holds our head. */
static void remove_cut_raw(uint64_t pid)
{
	if (raw.made || !raw.path[0]) {
		if (raw.made)
			unlink(raw.path);
		return;
	}
	remove_ours(raw.path, pid);
}

/* Removes the file at path (this process's raw file name) if it is empty, cut inside its
   head, or holds our head. */
static void remove_ours(const char *path, uint64_t pid)
{
	struct cua_raw_head h;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return;
	n = pread(fd, &h, sizeof(h), 0);
	close(fd);
	if (n >= 0 && (n < (ssize_t)sizeof(h) || (h.pid == pid && h.nonce == nonce &&
						    memcmp(h.magic, CUA_RAW_MAGIC,
							   sizeof(CUA_RAW_MAGIC) - 1) == 0)))
		unlink(path);
}

/* Waits until no thread of this process is making the raw file: not for itself (a signal
   handler that interrupted the making), not for a thread that ended, not past the deadline. */
static void wait_opening(uint64_t pid, uint32_t self)
{
	uint64_t deadline = cua_wait_deadline();

	for (;;) {
		uint64_t o = __atomic_load_n(&raw.opening, __ATOMIC_ACQUIRE);

		/* Made: a claim still standing is one a jump left after the making. */
		if (!o || OPENER_PID(o) != pid || OPENER_TID(o) == self ||
		    __atomic_load_n(&raw.pid, __ATOMIC_ACQUIRE) == pid ||
		    !cua_thread_alive(pid, OPENER_TID(o)) || !cua_wait_more(deadline))
			return;
	}
}

/* The raw file made under this thread's claim (again: one a jump left, taken over). */
static int make_claimed(uint64_t pid, int again)
{
	if (__atomic_load_n(&raw.pid, __ATOMIC_ACQUIRE) != pid &&
	    __atomic_load_n(&finished_pid, __ATOMIC_ACQUIRE) != pid) {
		int old = raw.fd;

		/* A forked child makes its own file; the parent's descriptor is the parent's.
		   Forgotten before it is closed: a jump between leaks it, never closes it twice. */
		if (old >= 0 && raw.pid) {
			raw.fd = -1;
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
			close(old);
		}
		make_raw(pid, again);
		__atomic_store_n(&raw.pid, pid, __ATOMIC_RELEASE);
	}
	raw.making = -1;
	__atomic_store_n(&raw.opening, 0, __ATOMIC_RELEASE);
	return raw.dead ? -1 : raw.fd;
}

/* The raw file's descriptor for a flush of the calling thread's buffer of level l. A claim
   this thread made at level l or above was left by a jump out of a signal handler
   (siglongjmp) that interrupted the making: at one level of a thread one update runs at a
   time, and a handler's go to the next level (base/threads.h), so nothing at those levels
   runs below this update. It is taken over here (the thread's next record at the level of
   the flush the jump left: that flush is taken over first, trace_append), and the making is
   begun again, its file removed and its descriptor closed. One of a lower level is the
   making this update interrupted: not waited for. */
static int raw_file(unsigned l)
{
	uint64_t pid = cua_process_id(), seen = __atomic_load_n(&raw.pid, __ATOMIC_ACQUIRE);
	uint32_t self;
	uint64_t o;

	if (CUA_LIKELY(seen == pid))
		return raw.dead ? -1 : raw.fd;
	/* After the trace is finished no raw file is made: it would be left behind. */
	if (__atomic_load_n(&finished_pid, __ATOMIC_ACQUIRE) == pid)
		return -1;
	self = (uint32_t)cua_thread_id();
	o = __atomic_load_n(&raw.opening, __ATOMIC_ACQUIRE);
	if (o && OPENER_PID(o) == pid && OPENER_TID(o) == self && OPENER_LEVEL(o) >= l &&
	    __atomic_compare_exchange_n(&raw.opening, &o, OPENER(pid, self, l), 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return make_claimed(pid, 1);
	/* A claim of the parent's (forked while it was making its file) is no claim here. */
	if ((o && OPENER_PID(o) == pid) ||
	    !__atomic_compare_exchange_n(&raw.opening, &o, OPENER(pid, self, l), 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		wait_opening(pid, self);
		return __atomic_load_n(&raw.pid, __ATOMIC_ACQUIRE) == pid && !raw.dead ? raw.fd : -1;
	}
	return make_claimed(pid, 0);
}

/* Is our descriptor still our file? The program may have closed it and opened its own
   file under the same number. If not, reopen ours by name, or stop with one message. */
static int raw_checked(int fd)
{
	struct stat st;
	int again;

	if (fstat(fd, &st) == 0 && st.st_dev == raw.dev && st.st_ino == raw.ino)
		return fd;
	again = open(raw.path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (again >= 0 && fstat(again, &st) == 0 && st.st_dev == raw.dev && st.st_ino == raw.ino) {
		again = cua_fd_high(again);
		/* Never close the old number: it is the program's now. Other threads may still
		   hold it for one more check, which fails, and they reopen too. */
		__atomic_store_n(&raw.fd, again, __ATOMIC_RELEASE);
		return again;
	}
	if (again >= 0)
		close(again);
	stop_raw("the trace's raw file was removed or its descriptor taken; the trace stops at ",
		 EBADF);
	return -1;
}

/* Writes one block at offset at of the raw file on fd; its state is written after its records. */
static int write_block_at(int fd, uint64_t at, const char *data, size_t len)
{
	struct cua_block_head h = { CUA_BLOCK_MAGIC, CUA_BLOCK_WRITING, len };
	uint32_t done = CUA_BLOCK_COMPLETE;

	if (cua_fd_write_all(fd, &h, sizeof(h), (off_t)at) != 0 ||
	    cua_fd_write_all(fd, data, len, (off_t)(at + sizeof(h))) != 0 ||
	    cua_fd_write_all(fd, &done, sizeof(done), (off_t)(at + 4)) != 0) {
		stop_raw("cannot write the trace's raw file ", errno);
		return -1;
	}
	return 0;
}

/* Does a block of len bytes of records at offset at pass CUAUDIT_TRACE_MAX? */
static int past_max(uint64_t at, size_t len)
{
	return cfg.max && at + sizeof(struct cua_block_head) + len > cfg.max + sizeof(struct cua_raw_head);
}

/* Appends one block to the raw file on fd. *placed (NULL: not kept) says where, for a jump
   out of the write (take_over): TAKING from just before its place is taken until the offset
   is stored; a place taken and never written reads as zeros, which the reader skips. */
static int append_block(int fd, const char *data, size_t len, uint64_t *placed)
{
	struct cua_block_head h;
	uint64_t at;

	if (placed) {
		*placed = TAKING;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	}
	at = __atomic_fetch_add(&raw.end, sizeof(h) + len, __ATOMIC_RELAXED);
	if (placed) {
		*placed = at;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	}
	if (past_max(at, len)) {
		struct cua_block_head m = { CUA_BLOCK_MAGIC, CUA_BLOCK_LIMIT, 0 };

		if (!__atomic_exchange_n(&raw.dead, 1, __ATOMIC_ACQ_REL)) {
			raw.limited = 1;
			cua_fd_write_all(fd, &m, sizeof(m), (off_t)at);
			cua_out_report("CUAUDIT_TRACE_MAX reached; the trace stops at ", raw.path, 0);
		}
		return -1;
	}
	return write_block_at(fd, at, data, len);
}

/* Is the block at offset at of the raw file on fd whole? */
static int block_complete(int fd, uint64_t at)
{
	uint32_t state;

	return pread(fd, &state, sizeof(state), (off_t)(at + 4)) == (ssize_t)sizeof(state) &&
	       state == CUA_BLOCK_COMPLETE;
}

/* Writes the buffer's records out as one block. A flush a jump left had taken its place at
   placed (an offset): the block there is whole already, or is written again there whole. */
static int write_block(struct tbuf *t, uint64_t placed)
{
	int fd = raw_file(t->slot.level);

	if (fd < 0 || (fd = raw_checked(fd)) < 0)
		return -1;
	if (placed > TAKING && !past_max(placed, t->committed)) {
		t->block_at = placed;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		return block_complete(fd, placed) ? 0 : write_block_at(fd, placed, t->data, t->committed);
	}
	return append_block(fd, t->data, t->committed, &t->block_at);
}

static void take_over(struct tbuf *t, unsigned l);
static int make_room(struct tbuf *t);

/* Appends a record that is no call (tracefmt.h): the thread's name, or a mark. */
static void append_text(struct tbuf *t, unsigned id, uint64_t ts, const char *text, size_t n)
{
	size_t need = round8(sizeof(struct cua_rec_head) + 1 + n), at;
	struct cua_rec_head *r;
	char *p;

	if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != IDLE ||
	    (t->committed + need > tbuf_room && make_room(t) != 0))
		return;
	at = t->committed;
	r = (struct cua_rec_head *)(t->data + at);
	memset(r, 0, need);
	r->size = (uint32_t)need;
	r->id = (uint16_t)id;
	r->tid = (uint32_t)cua_thread_id_fast();
	r->t_start = r->t_end = ts;
	p = (char *)(r + 1);
	*p = (char)n;
	memcpy(p + 1, text, n);
	__atomic_store_n(&t->committed, at + need, __ATOMIC_RELEASE);
}

/* The thread's name as its first record: a raw file converted after the process ended (the
   thread gone from /proc) still names it. One prctl per thread, not per call. */
static void append_name(struct tbuf *t)
{
	char name[17] = { 0 };
	size_t n = 0;

	if (prctl(PR_GET_NAME, name, 0, 0, 0) != 0)
		return;
	while (n < 16 && name[n])
		n++;
	if (n)
		append_text(t, CUA_TRACE_ID_NAME, cua_clock_ns(), name, n);
}

/* This thread's buffer of level l that a flush holds, if any: found in the list, not in
   mine[] (no more initial-exec TLS for it). Once per thread and level, and after a jump. */
static CUA_COLD struct tbuf *left_flush(unsigned l, uint64_t pid)
{
	uint32_t self = (uint32_t)cua_thread_id();

	for (struct cua_tslot *s = __atomic_load_n(&all_buffers, __ATOMIC_ACQUIRE); s; s = s->next)
		if (s->pid == pid && s->level == l && __atomic_load_n(&s->tid, __ATOMIC_ACQUIRE) == self &&
		    STATE(__atomic_load_n(&((struct tbuf *)s)->state, __ATOMIC_ACQUIRE)) == FLUSHING)
			return (struct tbuf *)s;
	return NULL;
}

static CUA_COLD struct tbuf *new_thread_buffer(unsigned l, uint64_t pid)
{
	struct tbuf *t = mine[l];

	/* Out of mine[] while a flush of it runs (flush_own): a flush a jump left. */
	if (!t && (t = left_flush(l, pid)) != NULL) {
		take_over(t, l);
		return t;
	}
	if (CUA_UNLIKELY(!tbuf_room)) {
		ring_window = (uint64_t)cua_live_calls_mask + 1 - ((uint64_t)cua_live_calls_mask + 1) / 4;
		ring_rescue_at = ring_window + ((uint64_t)cua_live_calls_mask + 1) / 8;
		ring_bytes = ((uintptr_t)cua_live_calls_mask + 1) * sizeof(struct cua_live_call);
		__atomic_store_n(&tbuf_room, TBUF_SIZE - ring_room(), __ATOMIC_RELEASE);
	}
	t = (struct tbuf *)cua_tslot_acquire(&all_buffers, sizeof(*t) + TBUF_SIZE, pid,
					     (uint32_t)cua_thread_id(), l);
	if (!t)
		return NULL;
	/* Adopted from a thread that ended inside a flush: finished here, the cancellation
	   state it had is its own. */
	if (STATE(__atomic_load_n(&t->state, __ATOMIC_ACQUIRE)) == FLUSHING) {
		t->cancel_old = -1;
		take_over(t, l);
	}
	/* New, or adopted with a ring: this thread's first call attaches it anew (ring_attach),
	   after writing out what the ring still holds of the ended thread's calls. */
	t->ring_at = NO_RING;
	t->flush_at = cfg.flush_interval_ns ? cua_clock_ns() + cfg.flush_interval_ns
						: UINT64_MAX;
	mine[l] = t;
	if (l == 0)
		append_name(t);
	return t;
}

/* The calling thread's buffer at level l in this process (made at its first record). */
CUA_HOT_INLINE struct tbuf *thread_buffer(unsigned l)
{
	struct tbuf *t = mine[l];
	uint64_t pid = cua_process_id_fast();

	if (CUA_LIKELY(t && t->slot.pid == pid))
		return t;
	return new_thread_buffer(l, pid);
}

/* The buffer of level l is this thread's again for its updates (thread_buffer). */
static void back_in_mine(struct tbuf *t, unsigned l)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	mine[l] = t;
}

/* One call the ring kept alone (ring_keeps), as the trace's call record (tracefmt.h) at
   dst: the ring record's head and argument bytes up to the tail, in one fixed copy (the
   next record goes over what is past this one), then its size and flags from the tail.
   Returns its bytes, as its tail says (kept_size checks them where the tail may be
   another call's). dst has room for a whole ring record. */
static size_t put_kept(char *dst, const struct cua_live_call *e)
{
	struct cua_rec_head *r = (struct cua_rec_head *)(void *)dst;
	struct cua_ring_tail tail;

	__builtin_memcpy(&tail, e->args + CUA_RING_TAIL_AT, sizeof(tail));
	__builtin_memcpy(dst, e, sizeof(struct cua_rec_head) + CUA_RING_TAIL_AT);
	r->size = tail.size;
	r->flags = tail.flags;
	return tail.size;
}

/* size is one a kept call has (its head and up to 88 bytes more, a multiple of 8): not the
   argument bytes of another call's record, which a handler's calls took again while it was
   read, or which a mark landed on (docs/design.md, "Limits"). */
static inline int kept_size(size_t size)
{
	return size - sizeof(struct cua_rec_head) <= CUA_RING_TAIL_AT && !(size & 7u);
}

/* Whether the ring record e is a call that thread kept alone: its thread and its flags are
   want (the thread's id, CUA_LIVE_TRACED), GPU timing's flag aside; read as one word. */
static inline int kept_by(const struct cua_live_call *e, uint64_t want)
{
	uint64_t w;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	__builtin_memcpy(&w, &e->h.tid, sizeof(w));
#else
	w = e->h.tid | (uint64_t)e->h.flags << 32;
#endif
	return (w & ~((uint64_t)CUA_REC_GPU << 32)) == want;
}

/* seal_ring's reading of the owner's ring from INDEX first to done into out: returns where
   its records end, and adds them to *kept. A signal handler landing here copies the records
   past the one read now (ring_rescue): each INDEX is published before its record is read,
   and the record's number is read again after its copy (a handler's calls may have gone
   round to it meanwhile, and none copies the one read here). checked: a size no kept call
   has is left out too (a mark that landed on another call's record, whose tail may be its
   argument bytes); a constant where it is called, so each way is its own loop. */
static inline __attribute__((always_inline)) char *seal_read(struct tbuf *t,
							     const struct cua_live_call *ring,
							     uint64_t first, uint64_t done,
							     uint64_t want, char *out, uint64_t *kept,
							     int checked)
{
	const struct cua_live_call *e = ring + (first & cua_live_calls_mask),
				   *end = ring + cua_live_calls_mask + 1;
	uint32_t seq = cua_live_seq(first, CUA_LIVE_ENDED);

	/* The record and its ended number step along with the INDEX. */
	for (uint64_t k = first; k < done; k++, seq += 4, e = e + 1 == end ? ring : e + 1) {
		__atomic_store_n(&t->sealing, k, __ATOMIC_RELAXED);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (kept_by(e, want)) {
			size_t size = put_kept(out, e);

			__atomic_signal_fence(__ATOMIC_SEQ_CST);
			if (CUA_LIKELY(__atomic_load_n(&e->h.seq, __ATOMIC_RELAXED) == seq) &&
			    (!checked || kept_size(size))) {
				out += size;
				(*kept)++;
			}
		}
	}
	return out;
}

/* Writes the calls t's ring kept alone since the last time, from INDEX drained on, as call
   records at p[n], within cap; returns their bytes. Only this thread's records marked kept
   and ended as that INDEX: another owner's (a slot taken again), the calls the trace left
   out and records taken again are no call of its. By its owner, into its own buffer (under
   FLUSHING); or at exit into a copy (other: the owner may still be running, so each record
   is copied and read again, and one whose number changed meanwhile is left out; other 2:
   each is claimed too, as ring_rescue does, once the owner's buffer is taken, so that a
   handler of the owner's copying still cannot copy it as well). The calls
   the thread kept that are missing (their records taken again before this: a signal
   handler's burst of calls past the window) are counted. */
static size_t seal_ring(struct tbuf *t, char *p, size_t n, size_t cap, int other, uint64_t *upto,
			uint64_t *found)
{
	struct cua_live_slot *s = t->ring;
	uint64_t ncalls = (uint64_t)cua_live_calls_mask + 1, done, first, kept = 0;
	uint32_t plain = __atomic_load_n(&t->plain, __ATOMIC_ACQUIRE);
	uint32_t rescued = __atomic_load_n(&t->rescued, __ATOMIC_ACQUIRE);
	uint64_t want = t->ring_tid | (uint64_t)CUA_LIVE_TRACED << 32, mask = cua_live_calls_mask;
	struct cua_live_call *ring;
	char *out = p + n;

	if (!s || !plain)
		return 0;
	ring = cua_live_ring(s);
	*upto = done = __atomic_load_n(&s->done, __ATOMIC_ACQUIRE);
	first = t->drained;
	if (CUA_UNLIKELY(done - first > ncalls))
		first = done - ncalls;
	/* Only after a write that failed kept its records in the buffer. */
	if (CUA_UNLIKELY(n + (done - first) * sizeof(struct cua_live_call) > cap)) {
		if (plain > rescued)
			__atomic_add_fetch(&overtaken, plain - rescued, __ATOMIC_RELAXED);
		return 0;
	}
	if (CUA_LIKELY(!other)) {
		/* No signal handler of the ring's thread ran since its last writing out: no mark
		   can have landed on a record another call took (ring_keeps), so each marked
		   record's tail is its own. */
		uint32_t serial = __atomic_load_n(&cua_self.sig_serial, __ATOMIC_RELAXED);

		if (CUA_LIKELY(serial == t->sig_seen && t->ring_tid == cua_live_me.tid))
			out = seal_read(t, ring, first, done, want, out, &kept, 0);
		else
			out = seal_read(t, ring, first, done, want, out, &kept, 1);
		t->sig_seen = serial;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		__atomic_store_n(&t->sealing, done - 1, __ATOMIC_RELAXED);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		/* Those a handler copied meanwhile. */
		rescued = __atomic_load_n(&t->rescued, __ATOMIC_RELAXED);
	} else {
		for (uint64_t k = first; k < done; k++) {
			struct cua_live_call *e = ring + (k & mask), copy;
			uint32_t seq = cua_live_seq(k, CUA_LIVE_ENDED);

			__builtin_memcpy(&copy, e, sizeof(copy));
			/* The copy's loads before the number's second reading (an acquire load
			   orders only what follows it; a plain compiler barrier on x86). */
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			/* Its mark read again too: one its owner's signal handler copied out
			   meanwhile (ring_rescue) is in that handler's buffer. */
			if (kept_by(&copy, want) && copy.h.seq == seq &&
			    __atomic_load_n(&e->h.seq, __ATOMIC_ACQUIRE) == seq && kept_by(e, want) &&
			    (other < 2 ||
			     (__atomic_fetch_and(cua_live_flag_byte(e, CUA_LIVE_TRACED),
						 (uint8_t) ~(uint8_t)(CUA_LIVE_TRACED >> 24), __ATOMIC_ACQ_REL) &
			      (uint8_t)(CUA_LIVE_TRACED >> 24)))) {
				size_t size = put_kept(out, &copy);

				if (kept_size(size)) {
					out += size;
					kept++;
				}
			}
		}
	}
	if (found)
		*found = kept;
	else if (CUA_UNLIKELY(kept + rescued < plain))
		__atomic_add_fetch(&overtaken, plain - kept - rescued, __ATOMIC_RELAXED);
	return (size_t)(out - (p + n));
}

/* Its owner's writing out of the ring is about to read it, none read yet: a signal handler
   may copy kept calls out meanwhile (ring_rescue). Before the buffer leaves mine[] and is
   marked FLUSHING, so that no stretch of the writing out is closed to the handlers. */
static void rescue_open(struct tbuf *t)
{
	t->sealing = t->drained - 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->sealing_on = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* Its writing out read what it reads: no copying by handlers until the next. */
static void rescue_close(struct tbuf *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->sealing_on = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* The owner's writing out of its ring into its buffer, just before the buffer goes out. */
static void seal_own(struct tbuf *t)
{
	uint64_t done = 0;
	size_t n;

	/* (A sealed_at left by a jump after the calls were counted: stale.) */
	if (!t->plain) {
		rescue_close(t);
		t->sealed_at = 0;
		return;
	}
	/* One a jump out of a signal handler left after its calls were counted: finished, not
	   made again (each call would be shown twice). Its thread's next update takes the flush
	   over before it adds a record. The counts before the mark, as below. */
	if (t->sealed_at && t->sealed_at == t->committed) {
		rescue_close(t);
		t->drained = t->sealed_upto;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->rescued = 0;
		t->plain = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->sealed_at = 0;
		return;
	}
	rescue_open(t);
	n = seal_ring(t, t->data, t->committed, TBUF_SIZE, 0, &done, NULL);
	rescue_close(t);
	t->sealed_upto = done;
	t->sealed_at = t->committed + n;
	/* Then the number: a jump before it leaves the calls to be written again in their
	   place. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&t->committed, t->committed + n, __ATOMIC_RELEASE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->drained = done;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* The counts, then the mark: a jump between leaves no count of calls already written
	   (they would be counted as lost), and seal_own clears a stale mark. */
	t->rescued = 0;
	t->plain = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->sealed_at = 0;
}

/* A thread takes the live view's slot of a thread that ended (cua_live_taking), before its
   calls take records there: the ended thread's buffer gets the ring's records its references
   name, so that its last calls are not lost under the new owner's. Not a buffer a living
   thread adopted (base/threads.c): that one writes the ring out itself, at its next
   reference. */
static void ring_taken(struct cua_live_slot *s)
{
	uint64_t pid = cua_process_id();
	uint32_t self = (uint32_t)cua_thread_id();
	/* As an update of the trace's (base/threads.h): a signal handler's calls meanwhile go to
	   the next level's buffers, never to the buffer this thread holds as its owner here
	   (adopted as its own, or its sealing taken over). */
	unsigned l = cua_level_enter();

	for (struct cua_tslot *x = __atomic_load_n(&all_buffers, __ATOMIC_ACQUIRE); x; x = x->next) {
		struct tbuf *t = (struct tbuf *)x;
		uint32_t owner = __atomic_load_n(&x->tid, __ATOMIC_ACQUIRE);
		uint64_t idle = IDLE;

		if (x->pid != pid || x->level != 0 || t->ring != s || cua_thread_alive(pid, owner))
			continue;
		/* Taken as its owner for the while (base/threads.c adopts only an ended thread's
		   buffer): a thread adopting it meanwhile would write where the ring goes. */
		if (!__atomic_compare_exchange_n(&x->tid, &owner, self, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			continue;
		/* Its ring's calls since the last writing out, then no ring: the new owner's
		   calls are not its. */
		if (t->ring == s &&
		    __atomic_compare_exchange_n(&t->state, &idle, FLUSHING_BY(self), 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			seal_own(t);
			t->ring = NULL;
			t->ring_at = NO_RING;
			__atomic_store_n(&t->state, IDLE, __ATOMIC_RELEASE);
		}
		/* The ended thread's again, for a new thread to adopt. */
		__atomic_store_n(&x->tid, owner, __ATOMIC_RELEASE);
	}
	cua_level_leave(l);
}

/* The flush of a buffer this thread has marked FLUSHING_BY itself; placed: where a flush of
   the same records that a jump left had put their block (NO_BLOCK or TAKING: nowhere known).
   Every step can be left by a jump and taken over: the records stay counted in committed
   until their block is whole, the block's place and the cancellation state are kept in the
   buffer, and block_at is NO_BLOCK again before the buffer is IDLE. */
static int flush_held(struct tbuf *t, unsigned l, uint64_t placed)
{
	int rc = 0;

	__atomic_store_n(&t->slot.busy, 1, __ATOMIC_RELEASE);
	t->cancel_old = -1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* The old state straight into the buffer: libc stores it before it changes the state. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &t->cancel_old);
	/* Records are dropped only when the file is gone for good (one message said so). */
	if (t->committed && write_block(t, placed) != 0 && !raw.dead)
		rc = -1;
	nocancel_end(t->cancel_old);
	t->cancel_old = -1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (rc == 0)
		__atomic_store_n(&t->committed, 0, __ATOMIC_RELEASE);
	t->block_at = NO_BLOCK;
	if (cfg.flush_interval_ns)
		t->flush_at = cua_clock_ns() + cfg.flush_interval_ns;
	__atomic_store_n(&t->slot.busy, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&t->state, IDLE, __ATOMIC_RELEASE);
	back_in_mine(t, l);
	return rc;
}

/* Writes this thread's records out as one block. Returns 0 when the buffer may be reused:
   written, or dropped because the file is gone (one message said so). */
static int flush_own(struct tbuf *t)
{
	unsigned l = t->slot.level;
	uint64_t idle = IDLE;

	/* Out of mine[] before it is marked, back after it is IDLE (flush_held): a jump out of
	   any instruction between leaves the thread's next update at this level without a
	   buffer in mine[]; it finds this one in the list and takes the flush over, at no cost
	   to the updates that find theirs. */
	if (t->plain)
		rescue_open(t);
	mine[l] = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_compare_exchange_n(&t->state, &idle, FLUSHING_BY(cua_thread_id()), 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		rescue_close(t);
		back_in_mine(t, l);
		return -1;
	}
	seal_own(t);
	return flush_held(t, l, NO_BLOCK);
}

/* The ring has come three quarters round since its calls were last written out: they go
   into the buffer as call records (seal_own), and the buffer goes out only once it has no
   room for another ring's calls (tbuf_room), so that the raw file gets blocks as large as
   without the view and the ring may stay small (the view's own size). As a flush: marked,
   out of mine[] meanwhile, and taken over after a jump. */
static CUA_COLD void drain_own(struct tbuf *t)
{
	unsigned l = t->slot.level;
	uint64_t idle = IDLE;

	rescue_open(t);
	mine[l] = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_compare_exchange_n(&t->state, &idle, FLUSHING_BY(cua_thread_id()), 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		rescue_close(t);
		back_in_mine(t, l);
		return;
	}
	seal_own(t);
	if (t->committed > tbuf_room) {
		flush_held(t, l, NO_BLOCK);
		return;
	}
	__atomic_store_n(&t->state, IDLE, __ATOMIC_RELEASE);
	back_in_mine(t, l);
}

/* The thread's update at level l found its buffer out of mine[] (flush_own): a flush of it
   was left by a siglongjmp out of a signal handler that interrupted it. It is not running
   below this update: at one level of a thread one update runs at a time, and a handler's go
   to the next level (base/threads.h, cua_level_enter). Nor on another thread: only its
   owner flushes a buffer (or a thread that ended inside the flush, for one adopted). So it
   is finished here: its records are still counted in committed, and go to the place it had
   taken (unless the block there is whole already) or to a new block (a place it may have
   taken reads as zeros, which the reader skips); the cancellation state it had turned off is
   put back. CLOSED: the trace is finished, and the thread's records go. */
static CUA_COLD void take_over(struct tbuf *t, unsigned l)
{
	uint64_t w = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);

	/* A flush by another thread still running (ring_taken) is that thread's to end. */
	if (STATE(w) != FLUSHING ||
	    (FLUSHER(w) != (uint32_t)cua_thread_id() && cua_thread_alive(t->slot.pid, FLUSHER(w))) ||
	    !__atomic_compare_exchange_n(&t->state, &w, FLUSHING_BY(cua_thread_id()), 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		back_in_mine(t, l);
		return;
	}
	if (t->cancel_old >= 0)
		pthread_setcancelstate(t->cancel_old, NULL);
	/* A jump out of the ring's writing (no block place taken yet) left it to do. */
	if (t->block_at == NO_BLOCK)
		seal_own(t);
	flush_held(t, l, t->block_at);
}

/* A record does not fit: the buffer is written out. Returns 0 when it has room; else the
   record is counted (unwritten) and goes. */
static CUA_COLD int make_room(struct tbuf *t)
{
	if (flush_own(t) == 0)
		return 0;
	__atomic_add_fetch(&unwritten, 1, __ATOMIC_RELAXED);
	return -1;
}

static size_t string_len(const char *s)
{
	size_t n = 0;

	while (s && n <= STR_MAX && s[n])
		n++;
	/* A longer string is cut, never inside a UTF-8 character. */
	return n > STR_MAX ? cua_utf8_cut(s, n, STR_MAX) : n;
}

/* `cuaudit ctl PID trace start|stop` as seen by the calls: the first call to see a change
   leaves a mark at its start, so that a stopped stretch is not read as idle time. Returns
   whether ctl has the trace on, as read this once: the call is recorded by that same
   reading, so a call that saw no change is never recorded ahead of the mark. */
static uint32_t ctl_seen;

static uint32_t ctl_mark(struct tbuf *t, const struct cuaudit_call *c)
{
	static const char started[] = "trace started by cuaudit ctl";
	static const char stopped[] = "trace stopped by cuaudit ctl; calls until the next start "
				      "are not recorded";
	uint32_t on = (cua_live_ctl() & CUA_LIVE_CTL_TRACE) != 0;

	if (CUA_LIKELY(__atomic_load_n(&ctl_seen, __ATOMIC_RELAXED) == on) ||
	    __atomic_exchange_n(&ctl_seen, on, __ATOMIC_ACQ_REL) == on)
		return on;
	if (on)
		append_text(t, CUA_TRACE_ID_MARK, c->t_enter_ns, started, sizeof(started) - 1);
	else
		append_text(t, CUA_TRACE_ID_MARK, c->t_enter_ns, stopped, sizeof(stopped) - 1);
	return on;
}

/* CUAUDIT_CAPTURE=profiler-api: Start opens the range (and is recorded), Stop closes it
   (and is recorded). The roles profiler_start and profiler_stop say which calls those are;
   cudaProfilerStart/Stop (cuda_profiler_api.h, not wrapped) call the driver's inside.
   ctl_on: whether `cuaudit ctl` has the trace on, as ctl_mark read it for this call. */
static int captured(unsigned id, uint32_t ctl_on)
{
	int in_range;

	/* CUAUDIT_CAPTURE=nvtx:NAME: inside that range on this thread. */
	if (cfg.capture == CUA_CAPTURE_NVTX)
		return cua_nvtx_capturing();
	/* `cuaudit ctl PID trace start|stop`: the region's control word, read once a call. */
	if (cfg.capture == CUA_CAPTURE_CTL)
		return ctl_on;
	switch (cua_role[id]) {
	case CUAUDIT_ROLE_PROFILER_START:
		__atomic_store_n(&capturing, 1, __ATOMIC_RELAXED);
		return 1;
	case CUAUDIT_ROLE_PROFILER_STOP:
		in_range = __atomic_exchange_n(&capturing, 0, __ATOMIC_RELAXED);
		break;
	default:
		in_range = __atomic_load_n(&capturing, __ATOMIC_RELAXED);
	}
	/* A range opened by `cuaudit ctl` adds to the program's own. */
	return in_range || ctl_on;
}

/* What a record carries beyond its arguments: the values the call wrote through its
   out-parameters (read now, while the caller's memory is live) and the kernel's name, copied
   so that `cuaudit trace` can format a raw file in another process. */
/* String arguments a function has at most (2 in CUDA 13.0's); any past them is kept empty. */
#define TRACE_STRINGS 4u
struct extras {
	uint32_t bits; /* the record's flags: CUA_REC_OUT(i), CUA_REC_KERNEL */
	/* Each string argument's length as measured once, for the record's size and its copy
	   alike: the program may change the string meanwhile (another thread), and a copy
	   measured again would write past the room the record was given. */
	uint8_t slen[TRACE_STRINGS];
	unsigned n;
	uint64_t out[CUA_TRACE_MAX_OUTS][2];
	const char *kernel;
	size_t klen;
};

/* The values the call wrote through its out-parameters: what cua_callfmt_out_value reads,
   with the per-function part of its test made once at start (out_mask). */
CUA_HOT_INLINE void capture_outs(const struct cuaudit_call *c, struct extras *ex)
{
	const struct cua_arg_desc *args = cua_api[c->id].args;

	/* Only after a call that succeeded: it accepted the pointers, so reading them is safe. */
	/* cua_table_succeeded's rule, from the byte la_version filled (no call on the hot
	   path). */
	if (!c->args || c->skipped || !cua_status_ret[c->id] || (int)c->result != 0)
		return;
	for (uint32_t m = out_mask[c->id]; m && ex->n < CUA_TRACE_MAX_OUTS; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctz(m);
		uint64_t *out = ex->out[ex->n];
		const void *ptr;

		memcpy(&ptr, (const char *)c->args + args[i].offset, sizeof(ptr));
		if (!ptr)
			continue;
		out[0] = out[1] = 0;
		/* The common sizes as one load each, not a call to memcpy. */
		if (args[i].out_size == 8)
			memcpy(out, ptr, 8);
		else if (args[i].out_size == 4)
			memcpy(out, ptr, 4);
		else
			memcpy(out, ptr, args[i].out_size);
		ex->bits |= CUA_REC_OUT(i);
		ex->n++;
	}
}

CUA_HOT_INLINE size_t capture_extras(const struct cuaudit_call *c, struct extras *ex)
{
	ex->n = 0;
	if (out_mask[c->id])
		capture_outs(c, ex);
	ex->kernel = cua_kernelnames_is_launch(c->id) ? cua_kernelnames_of_call(c) : NULL;
	ex->klen = 0;
	while (ex->kernel && ex->klen <= 255 && ex->kernel[ex->klen])
		ex->klen++;
	if (ex->klen > 255)
		ex->klen = cua_utf8_cut(ex->kernel, ex->klen, 255);
	if (ex->kernel)
		ex->bits |= CUA_REC_KERNEL;
	return ex->n * CUA_TRACE_OUT_BYTES + (ex->kernel ? 1 + ex->klen : 0);
}

CUA_HOT_INLINE void put_extras(char *p, const struct extras *ex)
{
	/* Two words a value (CUA_TRACE_OUT_BYTES), mostly one value: no call to memcpy. */
	for (unsigned k = 0; k < ex->n; k++)
		__builtin_memcpy(p + CUA_TRACE_OUT_BYTES * k, ex->out[k], CUA_TRACE_OUT_BYTES);
	if (ex->kernel) {
		p += ex->n * CUA_TRACE_OUT_BYTES;
		*p = (char)ex->klen;
		memcpy(p + 1, ex->kernel, ex->klen);
	}
}

/* A ring record's number keeps 30 bits of its INDEX (rt/livefmt.h). */
#define INDEX_MASK ((1u << 30) - 1)

/* The offset of the ended call's INDEX from t's drained (its number's 30 bits of it): below
   2^29 where no writing out of the ring has passed it (else it was in flight then: nested
   in the call that wrote the ring out, or overtaken by a signal handler's calls). */
static inline uint32_t past_drained(const struct tbuf *t, const struct cua_live_call *rec)
{
	uint32_t seq = __atomic_load_n(&rec->h.seq, __ATOMIC_RELAXED);

	return ((seq >> 2) - 1u - (uint32_t)t->drained) & INDEX_MASK;
}

/* ring_record's slow way: the call's record is not in the ring t holds calls in (none yet,
   or the thread's slot changed). Where the record is the call's own still, ended, in the
   thread's slot in this process, t is attached to that slot, the ring it held written out
   first; its first record to write out is then this one. NULL: the call is stored whole. */
static CUA_COLD struct cua_live_call *ring_attach(struct tbuf *t, const struct cuaudit_call *c,
						  struct cua_live_call *rec)
{
	struct cua_live_slot *s = cua_live_me.slot;
	uint64_t done, index;
	uint32_t seq;

	if (!rec || !s || cua_live_me.pid != cua_process_id_fast() ||
	    (uintptr_t)rec - (uintptr_t)cua_live_ring(s) >= ring_bytes || rec->h.t_start != c->t_enter_ns)
		return NULL;
	seq = __atomic_load_n(&rec->h.seq, __ATOMIC_ACQUIRE);
	done = __atomic_load_n(&s->done, __ATOMIC_ACQUIRE);
	/* Ended: 4 * INDEX + 4, in 32 bits. */
	index = done - 1 - (((uint32_t)done - (seq >> 2)) & INDEX_MASK);
	if ((seq & 3u) || index >= done || cua_live_record(s, index) != rec)
		return NULL;
	if (t->plain && flush_own(t) != 0)
		return NULL;
	/* In the ring it held, what was written out stays so: never twice. */
	if (t->ring != s || t->drained < index)
		t->drained = index;
	t->ring = s;
	t->ring_gen = __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE);
	t->ring_tid = cua_live_me.tid;
	t->rescued = 0;
	t->rescued_upto = 0; /* an INDEX of the ring it held, maybe past this one's */
	t->plain = 0;
	/* Last: the hot path takes the ring as held once its address is here. */
	t->ring_at = (uintptr_t)cua_live_ring(s);
	return index >= t->drained ? rec : NULL;
}

/* The call's record in the ring whose records t's next block holds, or NULL: the call is
   stored whole (its record was in flight when the ring was written out, or it has none, or
   a signal handler's calls took it again). */
CUA_HOT_INLINE struct cua_live_call *ring_record(struct tbuf *t, const struct cuaudit_call *c)
{
	struct cua_live_call *rec = cua_call_live_rec(c);

	/* NULL too, and any record while t holds no ring (NO_RING). */
	if (CUA_UNLIKELY((uintptr_t)rec - t->ring_at >= ring_bytes))
		return ring_attach(t, c, rec);
	if (CUA_UNLIKELY(rec->h.t_start != c->t_enter_ns) || CUA_UNLIKELY(past_drained(t, rec) >= 1u << 29))
		return NULL;
	return rec;
}

/* A call's variable part from p on (tracefmt.h): the strings it was passed, then, at the
   next multiple of 8 from base, the values it wrote through its out-parameters and a
   launch's kernel name. */
CUA_HOT_INLINE void put_var(char *p, char *base, const struct cuaudit_call *c,
			    const struct cua_api_desc *d, const struct extras *ex)
{
	for (unsigned i = 0, k = 0; has_string[c->id] && i < d->nargs; i++) {
		if (d->args[i].fmt == CUA_FMT_STRING) {
			const char *s;
			size_t n = k < TRACE_STRINGS ? ex->slen[k] : 0;

			k++;
			memcpy(&s, (const char *)c->args + d->args[i].offset, sizeof(s));
			*p++ = (char)n;
			memcpy(p, s, n);
			p += n;
		}
	}
	if (ex->bits)
		put_extras(base + round8((size_t)(p - base)), ex);
}

/* The ring's record alone keeps the call where what it lacks fits in its room after the
   argument struct (its call record would be need bytes) and the call had no nested calls'
   hook time, no patched entry's copy and no skip (tracefmt.h): the variable part just after
   the arguments, as a call record has it, and the tail; the record is marked so for the writing out (seal_ring), and
   nothing goes into the buffer. The
   marked byte of the flags has no other writer (cua_live_set_flag). Returns 0 when the
   call is to be stored whole. */
CUA_HOT_INLINE int ring_keeps(struct tbuf *t, const struct cuaudit_call *c,
			      const struct cua_api_desc *d, const struct extras *ex, size_t need)
{
	struct cua_ring_tail tail;
	struct cua_live_call *rec;

	if (need > sizeof(struct cua_rec_head) + CUA_RING_TAIL_AT ||
	    (c->hook_ns | (uintptr_t)c->object | c->skipped) || !(rec = ring_record(t, c)))
		return 0;
	tail.size = (uint32_t)need;
	tail.flags = ex->bits;
	__builtin_memcpy(rec->args + CUA_RING_TAIL_AT, &tail, sizeof(tail));
	/* Laid out as in a call record, whose head the ring record's is. */
	put_var((char *)rec->args + cua_trace_args_size[c->id], (char *)rec, c, d, ex);
	/* Counted, then marked after the record's bytes: a signal handler copies a marked
	   record (ring_rescue), and a jump between leaves a call counted as missing, never a
	   marked one that nothing counts (a writing out reads the ring only when plain is
	   not 0). The fences are no instruction. */
	t->plain++;
	__atomic_signal_fence(__ATOMIC_RELEASE);
	*cua_live_flag_byte(rec, CUA_LIVE_TRACED) |= (uint8_t)(CUA_LIVE_TRACED >> 24);
	if (__atomic_load_n(&t->ring->done, __ATOMIC_RELAXED) - t->drained >= ring_window)
		drain_own(t);
	/* Live output: what a kill would lose is at most one interval of this thread. */
	if (CUA_UNLIKELY(c->t_exit_ns >= t->flush_at))
		flush_own(t);
	return 1;
}

/* A call the trace does not record still took a record of its thread's ring: the ring is
   written out before it comes round to what the buffer's references name, whatever the
   calls since (a stopped capture, ids CUAUDIT_INCLUDE leaves out). */
static void ring_check(struct tbuf *t)
{
	if (t->plain && t->ring &&
	    __atomic_load_n(&t->ring->done, __ATOMIC_RELAXED) - t->drained >= ring_window)
		drain_own(t);
}

/* Whether handlers may copy z's kept calls now: z IDLE, or its owner (this thread) writing
   its ring out with the cursor open (*sealing set then). */
static inline int rescue_allowed(struct tbuf *z, int *sealing)
{
	uint64_t w = __atomic_load_n(&z->state, __ATOMIC_ACQUIRE);

	*sealing = (int)__atomic_load_n(&z->sealing_on, __ATOMIC_RELAXED);
	return w == IDLE || (*sealing && w == FLUSHING_BY(cua_thread_id()));
}

/* The calling thread's level-0 buffer in this process that holds its ring: mine[0], or,
   while that buffer writes its ring out (out of mine[] then), the one in the list that the
   thread owns. No thread-local pointer of its own: the module's static TLS is bounded
   (docs/design.md, "Initial-exec TLS is not free"). NULL: none. */
static struct tbuf *ring_home(void)
{
	uint64_t pid = cua_process_id_fast();
	uint32_t self;

	if (mine[0])
		return mine[0];
	self = (uint32_t)cua_thread_id();
	for (struct cua_tslot *x = __atomic_load_n(&all_buffers, __ATOMIC_ACQUIRE); x; x = x->next)
		if (x->pid == pid && x->level == 0 && __atomic_load_n(&x->tid, __ATOMIC_ACQUIRE) == self &&
		    ((struct tbuf *)x)->ring == cua_live_me.slot)
			return (struct tbuf *)x;
	return NULL;
}

/* A signal handler's call at level l > 0 (its buffer t): the update it interrupted, at level
   0 or above it, cannot write the thread's ring out, and the handler's calls go on taking
   its records. Past ring_rescue_at records since the level-0 buffer's last writing out,
   this call copies the calls that buffer kept in the ring, not yet copied, into t as call
   records. Each record is copied, then claimed: its mark cleared in one atomic step, so that
   a deeper handler's copying, the level-0 buffer's own writing out and exit's copy pass it
   over. A claim that finds the mark, with the copy's number the call's, proves the copy
   whole: level 0 is suspended, so nothing marks a record meanwhile, and a call that takes a
   record writes its number, then clears its flags, before its arguments. A record taken
   again before any claim is counted at the writing out (kept less found and copied). Each
   copy counts as rescued for the level-0 buffer. While level 0 writes its ring out
   (sealing_on), only the records past the one it reads. The thread's own ring alone:
   another thread's calls are not taking it round. The readers order a thread's calls by
   time, whichever buffer holds them. */
static CUA_COLD void ring_rescue(struct tbuf *t)
{
	struct tbuf *z = ring_home();
	struct cua_live_slot *s;
	const uint8_t traced = (uint8_t)(CUA_LIVE_TRACED >> 24);
	uint64_t done, from, want, stop, mask = cua_live_calls_mask;
	struct cua_live_call *ring;
	int sealing;

	if (!z || z->slot.pid != cua_process_id_fast() || cua_live_me.pid != z->slot.pid ||
	    !(s = z->ring) || s != cua_live_me.slot || z->ring_tid != cua_live_me.tid ||
	    !__atomic_load_n(&z->plain, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != IDLE)
		return;
	if (!rescue_allowed(z, &sealing))
		return;
	done = __atomic_load_n(&s->done, __ATOMIC_ACQUIRE);
	if (done - z->drained < ring_rescue_at)
		return;
	from = z->drained > z->rescued_upto ? z->drained : z->rescued_upto;
	/* Its writing out has read up to z->sealing (one before drained: nothing yet); as
	   offsets from drained, which do not wrap. */
	if (sealing) {
		uint64_t read = __atomic_load_n(&z->sealing, __ATOMIC_RELAXED) + 1;

		if (read - z->drained > from - z->drained)
			from = read;
	}
	/* (from may be past done: the writing out read up to done.) */
	if (from < done && done - from > mask + 1)
		from = done - (mask + 1);
	want = z->ring_tid | (uint64_t)CUA_LIVE_TRACED << 32;
	ring = cua_live_ring(s);
	stop = done;
	for (uint64_t k = from; k < done; k++) {
		struct cua_live_call *e = ring + (k & mask), copy;
		uint32_t seq = cua_live_seq(k, CUA_LIVE_ENDED), now = __atomic_load_n(&e->h.seq, __ATOMIC_ACQUIRE);

		/* A call still in flight (an outer call) is marked when it ends: the next
		   copying starts here again. */
		if (cua_live_busy(now) && stop == done)
			stop = k;
		if (now != seq || !kept_by(e, want))
			continue;
		__builtin_memcpy(&copy, e, sizeof(copy));
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (!(__atomic_fetch_and(cua_live_flag_byte(e, CUA_LIVE_TRACED), (uint8_t)~traced,
					 __ATOMIC_ACQ_REL) & traced))
			continue;
		/* A call that took the record again and was left by a jump before it cleared
		   the flags: its number tells. This call is then missing (counted at the
		   writing out). */
		if (copy.h.seq != seq)
			continue;
		/* Exit took this buffer or the level-0 one meanwhile: this call and the ones
		   after it stay marked, for exit's copy. */
		if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != IDLE || !rescue_allowed(z, &sealing)) {
			if (__atomic_load_n(&e->h.seq, __ATOMIC_ACQUIRE) == seq)
				*cua_live_flag_byte(e, CUA_LIVE_TRACED) |= traced;
			break;
		}
		/* (make_room counts a record it has no room for.) */
		if (t->committed + sizeof(copy) <= tbuf_room || make_room(t) == 0) {
			size_t size = put_kept(t->data + t->committed, &copy);

			if (!kept_size(size))
				continue; /* not this call: counted at the writing out */
			__atomic_store_n(&t->committed, t->committed + size, __ATOMIC_RELEASE);
		}
		__atomic_add_fetch(&z->rescued, 1, __ATOMIC_RELAXED);
	}
	if (stop > z->rescued_upto)
		z->rescued_upto = stop;
}

/* ring: the live view is on, so calls are in its rings (constant in each caller, so that the
   trace alone pays nothing for it). */
CUA_HOT_INLINE void trace_append(const struct cuaudit_call *c, unsigned l, int ring)
{
	const struct cua_api_desc *d = &cua_api[c->id];
	struct tbuf *t = thread_buffer(l);
	size_t need = sizeof(struct cua_rec_head) + cua_trace_args_size[c->id], at;
	struct cua_rec_head *r;
	struct extras ex;
	char *p;
	int copy;

	ex.bits = 0;
	if (CUA_UNLIKELY(!t))
		return;
	if (CUA_UNLIKELY(cfg.capture)) {
		if (!captured(c->id, ctl_mark(t, c))) {
			if (ring && l == 0)
				ring_check(t);
			else if (ring)
				ring_rescue(t);
			return;
		}
	}
	for (unsigned i = 0, k = 0; has_string[c->id] && i < d->nargs; i++) {
		if (d->args[i].fmt == CUA_FMT_STRING) {
			const char *s;
			size_t n = 0;

			memcpy(&s, (const char *)c->args + d->args[i].offset, sizeof(s));
			if (k < TRACE_STRINGS)
				ex.slen[k] = (uint8_t)(n = string_len(s));
			k++;
			need += 1 + n;
		}
	}
	need = round8(need);
	if (out_mask[c->id] || cua_kernelnames_is_launch(c->id))
		need += round8(capture_extras(c, &ex));
	if (CUA_UNLIKELY(__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != IDLE))
		return;
	/* With the live view on, the call's record is in its thread's ring already (at level 0:
	   a signal handler's calls may pass a writing out of the ring): where what it lacks
	   fits after its arguments, the ring alone keeps the call, else the buffer keeps it
	   whole. A handler's call at a higher level copies out the calls level 0 kept, once
	   the ring is far round (ring_rescue). */
	if (ring) {
		if (CUA_LIKELY(l == 0)) {
			if (ring_keeps(t, c, d, &ex, need))
				return;
		} else {
			ring_rescue(t);
		}
	}
	if (CUA_UNLIKELY(t->committed + need > (ring ? tbuf_room : TBUF_SIZE)) && make_room(t) != 0)
		return;
	at = t->committed;
	r = (struct cua_rec_head *)(t->data + at);
	r->size = (uint32_t)need;
	r->id = (uint16_t)c->id;
	/* The binding kind in the low 3 bits, an entry call's copy above them. */
	copy = cua_entry_copy_of(c->object);
	r->binding = (uint8_t)(c->binding | (copy > 0 ? (unsigned)copy << CUA_REC_KIND_BITS : 0));
	r->depth = (uint8_t)c->depth; /* its low 8 bits, as the ring keeps it (rt/callrec.h) */
	/* The subscription is lean (no thread id in the record): the dispatch's cached one. */
	r->tid = (uint32_t)cua_thread_id_fast();
	/* The dispatch's skipped is 0 or 1 (rt/dispatch.h): CUA_REC_SKIPPED in one shift. */
	r->flags = ex.bits | (uint32_t)c->skipped * CUA_REC_SKIPPED;
	r->t_start = c->t_enter_ns;
	r->t_end = c->t_exit_ns;
	r->result = c->result;
	p = (char *)(r + 1);
	/* Whole words in a short inline loop, then the struct's last bytes (a struct of 4-byte
	   members ends inside a word) into a zeroed word: nothing is read past the struct,
	   and the record's padding is zeros. */
	{
		unsigned end = args_end[c->id], i;

		for (i = 0; i < end / 8u; i++)
			__builtin_memcpy(p + 8 * i, (const char *)c->args + 8 * i, 8);
		if (end & 7u) {
			const char *src = (const char *)c->args + 8 * i;
			unsigned k = 0;
			uint64_t w = 0;

			/* A 4-byte member in one move (the usual tail), then any bytes left:
			   no call to memcpy on the hot path. */
			if ((end & 7u) >= 4) {
				__builtin_memcpy(&w, src, 4);
				k = 4;
			}
			for (; k < (end & 7u); k++)
				((char *)&w)[k] = src[k];
			__builtin_memcpy(p + 8 * i, &w, 8);
		}
	}
	p += cua_trace_args_size[c->id];
	put_var(p, (char *)r, c, d, &ex);
	__atomic_store_n(&t->committed, at + need, __ATOMIC_RELEASE);
	/* A whole record's call took a ring record too: the calls the ring keeps are written
	   out before it comes round to them, whatever calls follow (a run of thousands of
	   registrations with long names, at a program's start). */
	if (ring && l == 0)
		ring_check(t);
	/* Live output: what a kill would lose is at most one interval of this thread. */
	if (CUA_UNLIKELY(c->t_exit_ns >= t->flush_at))
		flush_own(t);
}

CUA_HOT_INLINE void trace_exit_at(const struct cuaudit_call *c, int ring)
{
	/* A signal handler's calls that interrupted an append go to the next level's buffer
	   (base/threads.h), whole. */
	unsigned l = cua_level_enter(), r = l;

	/* In a signal handler, or after a jump out of one: the level it stands at. */
	if (CUA_UNLIKELY(l >= CUA_LEVELS))
		r = cua_level_resolve(&l);
	if (CUA_LIKELY(r < CUA_LEVELS))
		trace_append(c, r, ring);
	else
		__atomic_add_fetch(&lost, 1, __ATOMIC_RELAXED);
	cua_level_leave(l);
}

static void trace_exit(const struct cuaudit_call *c, void *ctx)
{
	(void)ctx;
	trace_exit_at(c, 0);
}

/* With the live view on (cua_trace_init). */
static void trace_exit_ring(const struct cuaudit_call *c, void *ctx)
{
	(void)ctx;
	trace_exit_at(c, 1);
}

/* The ids CUAUDIT_INCLUDE/EXCLUDE leave out of the trace, with the live view on: the trace
   sees every call, records these not, and keeps its ring written out in time. */
static uint8_t untraced[CUAUDIT_ID_COUNT];

static void trace_exit_ring_filtered(const struct cuaudit_call *c, void *ctx)
{
	unsigned l, r;
	struct tbuf *t;

	(void)ctx;
	if (CUA_LIKELY(!untraced[c->id])) {
		trace_exit_at(c, 1);
		return;
	}
	l = cua_level_enter();
	r = l;
	if (CUA_UNLIKELY(l >= CUA_LEVELS))
		r = cua_level_resolve(&l);
	/* Level 0 alone makes references; no buffer is made for a call it does not keep. A
	   handler's call inside an update takes a ring record all the same: its level's
	   buffer is made only when the ring is so far round that it copies (ring_rescue). */
	if (r == 0 && (t = mine[0]) != NULL && t->slot.pid == cua_process_id_fast() &&
	    __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == IDLE)
		ring_check(t);
	else if (r > 0 && r < CUA_LEVELS && (t = ring_home()) != NULL && t->ring &&
		 t->slot.pid == cua_process_id_fast() &&
		 __atomic_load_n(&t->ring->done, __ATOMIC_RELAXED) - t->drained >= ring_rescue_at &&
		 (t = thread_buffer(r)) != NULL)
		ring_rescue(t);
	cua_level_leave(l);
}

/* An NVTX range ended on this thread (hooks/nvtx/nvtx.c): one record on the thread's track. */
static void nvtx_append(uint64_t t0, uint64_t t1, int level, const char *name, const char *domain,
			unsigned l)
{
	struct tbuf *t = thread_buffer(l);
	size_t nlen = string_len(name), dlen = string_len(domain);
	size_t need = round8(sizeof(struct cua_rec_head) + 2 + nlen + dlen), at;
	struct cua_rec_head *r;
	char *p;

	if (!t || __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != IDLE)
		return;
	if (t->committed + need > tbuf_room && make_room(t) != 0)
		return;
	at = t->committed;
	r = (struct cua_rec_head *)(t->data + at);
	memset(r, 0, need);
	r->size = (uint32_t)need;
	r->id = CUA_TRACE_NVTX_ID;
	r->depth = cua_rec_depth((unsigned)level + CUA_TRACE_NVTX_LEVEL0);
	r->tid = (uint32_t)cua_thread_id_fast();
	r->t_start = t0;
	r->t_end = t1;
	p = (char *)(r + 1);
	*p++ = (char)nlen;
	memcpy(p, name, nlen);
	p += nlen;
	*p++ = (char)dlen;
	memcpy(p, domain, dlen);
	__atomic_store_n(&t->committed, at + need, __ATOMIC_RELEASE);
	if (CUA_UNLIKELY(t1 >= t->flush_at))
		flush_own(t);
}

static void trace_nvtx(uint64_t t0, uint64_t t1, int level, const char *name, const char *domain)
{
	unsigned l = cua_level_enter(), r = l;

	if (CUA_UNLIKELY(l >= CUA_LEVELS))
		r = cua_level_resolve(&l);
	if (CUA_LIKELY(r < CUA_LEVELS))
		nvtx_append(t0, t1, level, name, domain, r);
	else
		__atomic_add_fetch(&lost, 1, __ATOMIC_RELAXED);
	cua_level_leave(l);
}

/* ---------------------------------------------------------------- at exit */

/* Takes a buffer from its thread. A flush in progress is waited for, but never forever:
   a flush cut short on this very thread (exit() from a signal handler), by a thread that
   no longer exists, or left by a jump and not yet taken over left the records in memory
   whole; its block in the file is complete (then the records are taken from there), or
   stays marked as being written or empty, and the reader skips it. Returns 1 to format
   the buffer. */
static int take_buffer(struct tbuf *t, uint32_t self, uint64_t pid, uint64_t deadline,
		       unsigned *cut)
{
	for (;;) {
		uint64_t idle = IDLE;

		if (__atomic_compare_exchange_n(&t->state, &idle, CLOSED, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return 1;
		if (idle == CLOSED)
			return 0;
		/* A flush that no longer runs, or past the deadline: cut, and its block, if it
		   is whole, holds the records (taking them from memory too wrote them twice). */
		if (FLUSHER(idle) == self || !cua_thread_alive(pid, FLUSHER(idle)) ||
		    !cua_wait_more(deadline)) {
			(*cut)++;
			__atomic_store_n(&t->state, CLOSED, __ATOMIC_RELEASE);
			return !(t->committed && t->block_at > TAKING && raw.fd >= 0 &&
				 __atomic_load_n(&raw.pid, __ATOMIC_ACQUIRE) == pid &&
				 raw_checked(raw.fd) >= 0 && block_complete(raw.fd, t->block_at));
		}
	}
}

/* Closes every buffer of this process first: a flush in progress then ends (its block is
   whole in the file) before the file is read. */
static void copy_taken(struct tbuf *t, char *a, uint32_t self, uint64_t pid, uint64_t deadline,
		       unsigned *cut);

static void take_buffers(uint64_t pid, unsigned *cut)
{
	uint32_t self = (uint32_t)cua_thread_id();
	/* One deadline for every buffer: exit waits at most CUA_WAIT_MAX_NS here in all. */
	uint64_t deadline = cua_wait_deadline();

	for (struct cua_tslot *s = __atomic_load_n(&all_buffers, __ATOMIC_ACQUIRE); s; s = s->next) {
		struct tbuf *t = (struct tbuf *)s;
		char *a = MAP_FAILED;

		/* The memory for its ring's calls before the take (copy_taken): whatever its
		   count of calls kept now (0 just after a writing out), since its owner may keep
		   more before the take, which only a copy made then saves from the ring. */
		if (s->pid == pid && t->ring)
			a = mmap(NULL, 2 * ring_room(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		t->taken_copy = NULL;
		if (a == MAP_FAILED)
			t->taken = s->pid == pid && take_buffer(t, self, pid, deadline, cut);
		else
			copy_taken(t, a, self, pid, deadline, cut);
	}
}

/* Bytes of the whole records at the start of p[0..n) that fit in room. */
static size_t records_within(const char *p, size_t n, uint64_t room)
{
	size_t at = 0;

	while (n - at >= sizeof(struct cua_rec_head)) {
		const struct cua_rec_head *r = (const struct cua_rec_head *)(const void *)(p + at);

		if (r->size < sizeof(*r) || r->size > n - at || at + r->size > room)
			break;
		at += r->size;
	}
	return at;
}

/* A writing out of the ring that a jump left after counting its calls (seal_own) in a
   buffer taken at exit with n bytes: its calls are in those bytes, and the exit's copy
   begins after them. The buffer is closed: its owner writes it no more. */
static void finish_cut_seal(struct tbuf *t, size_t n)
{
	if (t->sealed_at && t->sealed_at == n) {
		t->drained = t->sealed_upto;
		/* Its calls are counted in the buffer: none is missing. */
		t->rescued = 0;
		t->plain = 0;
		t->sealed_at = 0;
	}
}

/* A buffer taken at exit, as its block must hold it: with the calls its thread's ring kept
   alone since the last writing out (written into a copy: the owner may still be running,
   and its buffer is not the exit's to write), or the buffer itself. Sets *n to its bytes. */
static char *finished_records(struct tbuf *t, size_t *n)
{
	static char area[TBUF_SIZE];
	uint64_t done;

	*n = __atomic_load_n(&t->committed, __ATOMIC_ACQUIRE);
	if (t->taken_copy) {
		/* Nothing kept since the last writing out: the buffer as it is, not copied. */
		if (!t->taken_n || *n > TBUF_SIZE || t->taken_n > TBUF_SIZE - *n)
			return t->data;
		memcpy(area, t->data, *n);
		memcpy(area + *n, t->taken_copy, t->taken_n);
		*n += t->taken_n;
		return area;
	}
	if (!t->ring || !__atomic_load_n(&t->plain, __ATOMIC_ACQUIRE) || *n > TBUF_SIZE)
		return t->data;
	finish_cut_seal(t, *n);
	memcpy(area, t->data, *n);
	*n += seal_ring(t, area, *n, TBUF_SIZE, 2, &done, NULL);
	return area;
}

/* Takes a buffer whose thread's ring the trace uses, and copies the calls it holds for it
   into a (mapped for
   it, twice ring_room() bytes): the ones its ring kept so far while its owner still keeps them
   there (and writes them out itself at three quarters of the ring), then, once the buffer
   is taken (its owner keeps no more), the ones kept meanwhile, the ring's newest. Its owner
   goes on calling, and its calls still take ring records: copied afterwards, the first of
   them would be overwritten. Each kept call missing is counted. finished_records puts them
   after the buffer's records. Left mapped: the process ends, or its image is replaced, soon
   after. */
static void copy_taken(struct tbuf *t, char *a, uint32_t self, uint64_t pid, uint64_t deadline,
		       unsigned *cut)
{
	uint64_t drained = __atomic_load_n(&t->drained, __ATOMIC_ACQUIRE), upto = 0, found = 0, late = 0;
	uint32_t rescued = __atomic_load_n(&t->rescued, __ATOMIC_ACQUIRE), plain;
	size_t cap = 2 * ring_room(), early = seal_ring(t, a, 0, cap, 1, &upto, &found);

	t->taken = take_buffer(t, self, pid, deadline, cut);
	if (!t->taken) {
		munmap(a, cap);
		return;
	}
	finish_cut_seal(t, __atomic_load_n(&t->committed, __ATOMIC_ACQUIRE));
	/* Its owner wrote its ring out meanwhile: the copy so far is in its records. The buffer
	   is closed now: its owner writes drained no more. */
	/* Without a first copy (nothing kept then), drained stays: upto was not read. A signal
	   handler of its owner's copied some out meanwhile (ring_rescue): they may be in the
	   copy too, which is made again, claiming each. */
	if (__atomic_load_n(&t->drained, __ATOMIC_ACQUIRE) != drained || !early ||
	    __atomic_load_n(&t->rescued, __ATOMIC_ACQUIRE) != rescued)
		early = found = 0;
	else
		t->drained = upto;
	plain = __atomic_load_n(&t->plain, __ATOMIC_ACQUIRE);
	t->taken_n = early + seal_ring(t, a, early, cap, 2, &upto, &late);
	/* The ones its handlers copied out are in their buffers (ring_rescue). */
	late += __atomic_load_n(&t->rescued, __ATOMIC_ACQUIRE);
	if (found + late < plain)
		__atomic_add_fetch(&overtaken, plain - found - late, __ATOMIC_RELAXED);
	t->taken_copy = a;
}

/* The records still in the buffers, after the raw file's. They count against
   CUAUDIT_TRACE_MAX as the raw file's blocks do (a short run, or threads that never filled a
   buffer, write none: checked only at the blocks, the bound held nothing back): whole records
   up to the limit, then the limit is said once, naming the trace (path). */
static void format_buffers(struct cua_writer *w, uint64_t pid, const char *path)
{
	uint64_t at = __atomic_load_n(&raw.end, __ATOMIC_ACQUIRE), room = UINT64_MAX;

	/* As one block more at the raw file's end (its head counted once). */
	if (cfg.max) {
		if (at < sizeof(struct cua_raw_head))
			at = sizeof(struct cua_raw_head);
		at += sizeof(struct cua_block_head);
		room = cfg.max + sizeof(struct cua_raw_head) > at ? cfg.max + sizeof(struct cua_raw_head) - at : 0;
	}
	for (struct cua_tslot *s = __atomic_load_n(&all_buffers, __ATOMIC_ACQUIRE); s; s = s->next) {
		struct tbuf *t = (struct tbuf *)s;
		size_t n, k;
		char *data;

		if (!t->taken || raw.limited)
			continue; /* past the limit: the file ended with its marker */
		data = finished_records(t, &n);
		k = records_within(data, n, room);
		room -= k;
		cua_tracefmt_records(w, data, k, pid);
		if (k < n) {
			raw.limited = 1;
			cua_out_report("CUAUDIT_TRACE_MAX reached; the trace stops at ", path, 0);
		}
	}
}

/* Converting at exit passed CUAUDIT_TRACE_EXIT_TIME (its time grows with the file, about
   7 s for 1 s of calls in a loop): the JSON being written goes, the records still in memory
   are appended to the raw file, which ends with an EXITED marker and stays for `cuaudit
   trace`. Exit then takes no longer than the deadline whatever the trace's size. */
static void keep_raw(int rawfd, uint64_t pid)
{
	struct cua_block_head m = { CUA_BLOCK_MAGIC, CUA_BLOCK_EXITED, 0 };
	uint64_t gpu = cua_gpu_trace_count(pid);
	int whole = 1;

	for (struct cua_tslot *s = __atomic_load_n(&all_buffers, __ATOMIC_ACQUIRE); s; s = s->next) {
		struct tbuf *t = (struct tbuf *)s;
		size_t n;
		char *data;

		if (!t->taken || raw.limited)
			continue;
		data = finished_records(t, &n);
		if (!n)
			continue;
		/* Past CUAUDIT_TRACE_MAX: the file ends with the limit's marker, said once (exit
		   stopped the file, so append_block would refuse the block unsaid). */
		if (past_max(__atomic_load_n(&raw.end, __ATOMIC_ACQUIRE), n)) {
			struct cua_block_head lm = { CUA_BLOCK_MAGIC, CUA_BLOCK_LIMIT, 0 };

			raw.limited = 1;
			if (cua_fd_write_all(rawfd, &lm, sizeof(lm),
					     (off_t)__atomic_fetch_add(&raw.end, sizeof(lm), __ATOMIC_RELAXED)) != 0)
				whole = 0;
			else
				cua_out_report("CUAUDIT_TRACE_MAX reached; the trace stops at ", raw.path, 0);
			continue;
		}
		if (append_block(rawfd, data, n, NULL) != 0)
			whole = 0;
	}
	if (!raw.limited && whole &&
	    cua_fd_write_all(rawfd, &m, sizeof(m), (off_t)__atomic_fetch_add(&raw.end, sizeof(m),
									 __ATOMIC_RELAXED)) != 0)
		whole = 0;
	if (!whole) {
		cua_log_msg(CUA_LOG_ERROR, "the trace was not converted within CUAUDIT_TRACE_EXIT_TIME "
			    "and its raw file could not be completed; what it holds stays in ",
			    raw.path, "; convert it with: cuaudit trace ", raw.path, NULL);
		return;
	}
	cua_log_msg(CUA_LOG_WARN, "the trace was not converted at exit (longer than "
		    "CUAUDIT_TRACE_EXIT_TIME); every call it recorded is in ", raw.path,
		    "; convert it with: cuaudit trace ", raw.path, NULL);
	if (gpu)
		cua_log_count(CUA_LOG_WARN, "trace: ", gpu, " GPU intervals are not in the raw file "
			      "and were dropped (the summary and metrics keep their totals)");
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* At exit, from whichever thread calls exit(): the raw file's blocks, then every buffer of
   this process, become the JSON; events after this point are dropped. */
static void trace_finish(void)
{
	static struct cua_writer w;
	uint64_t pid = cua_process_id(), last_ns = 0;
	/* CUAUDIT_TRACE_EXIT_TIME=0: past already (1 ns after the clock's start). */
	uint64_t deadline = cfg.exit_ns ? monotonic_ns() + cfg.exit_ns : 1;
	char path[CUA_PATH_MAX], tmp[CUA_PATH_MAX + 64];
	int fd, rawfd, limited = 0, late = 0, old = nocancel_begin();
	unsigned cut = 0, skipped = 0;

	if (__atomic_exchange_n(&finished_pid, pid, __ATOMIC_ACQ_REL) == pid)
		goto out;
	/* The file stops growing: other threads go on calling during exit() and until an exec
	   replaces the image, and a converter chasing their blocks would never end. A raw file
	   being made now by another thread is waited for (bounded), so that it is converted and
	   removed too. One this thread was making when a signal handler called exit() is
	   cut short: its records are whole in memory, and a file it had created is removed. */
	__atomic_store_n(&raw.dead, 1, __ATOMIC_RELEASE);
	wait_opening(pid, (uint32_t)cua_thread_id());
	{
		uint64_t o = __atomic_load_n(&raw.opening, __ATOMIC_ACQUIRE);

		if (OPENER_PID(o) == pid && OPENER_TID(o) == (uint32_t)cua_thread_id() &&
		    __atomic_load_n(&raw.pid, __ATOMIC_ACQUIRE) != pid)
			remove_cut_raw(pid);
	}
	take_buffers(pid, &cut);
	rawfd = __atomic_load_n(&raw.pid, __ATOMIC_ACQUIRE) == pid && raw.fd >= 0 ? raw_checked(raw.fd) : -1;
	/* The name is chosen (never a file cuaudit did not write), then the JSON is written
	   beside it and renamed over it: a kill while it is written leaves no cut file under
	   the name, and the raw file, which `cuaudit trace` converts. */
	if ((fd = cua_writer_open("trace", cfg.path, CUA_TRACE_SIGNATURE, 0, path, sizeof(path))) < 0) {
		cua_out_report("cannot create the trace CUAUDIT_TRACE=", cfg.path, errno);
		goto out;
	}
	close(fd);
	/* The empty file stays until the rename replaces it: it is this process's claim on the
	   name, which another process of the run given the same name then leaves alone. */
	if (cua_writer_begin_atomic(&w, "trace", path, tmp, sizeof(tmp)) != 0) {
		unlink(path);
		goto out;
	}
	cua_tracefmt_head(&w, pid);
	{
		uint64_t rt, mono;

		cua_provenance_anchor(&rt, &mono);
		cua_tracefmt_clock(&w, pid, rt, mono);
	}
	if (rawfd >= 0) {
		/* The buffers are formatted below, after the file; a fresh window, so that a flush
		   cut short on this thread (its records are still in its buffer) loses nothing. */
		static char window[TBUF_SIZE];

		skipped = cua_tracefmt_raw_until(&w, rawfd, window, sizeof(window), pid, &limited,
						 &last_ns, deadline, &late);
	}
	if (late) {
		/* The JSON begun goes, and so does the claim on its name: `cuaudit trace` takes it. */
		close(w.fd);
		unlink(tmp);
		unlink(path);
		keep_raw(rawfd, pid);
		goto done;
	}
	if (!limited)
		format_buffers(&w, pid, path);
	if (limited || raw.limited)
		cua_tracefmt_marker(&w, pid, last_ns, "CUAUDIT_TRACE_MAX reached; later events were dropped");
	else if (__atomic_load_n(&raw.cut, __ATOMIC_ACQUIRE))
		cua_tracefmt_marker(&w, pid, last_ns, "the trace's raw file could not be written; "
				    "events were dropped");
	if (__atomic_load_n(&lost, __ATOMIC_RELAXED))
		cua_log_count(CUA_LOG_WARN, "trace: ", __atomic_load_n(&lost, __ATOMIC_RELAXED),
			      " calls made from signal handlers nested more than 4 deep in one "
			      "thread were not recorded");
	if (__atomic_load_n(&unwritten, __ATOMIC_RELAXED))
		cua_log_count(CUA_LOG_WARN, "trace: ", __atomic_load_n(&unwritten, __ATOMIC_RELAXED),
			      " calls were not recorded: their thread's buffer was full and the "
			      "trace's raw file could not be written then");
	if (__atomic_load_n(&overtaken, __ATOMIC_RELAXED))
		cua_log_count(CUA_LOG_WARN, "trace: ", __atomic_load_n(&overtaken, __ATOMIC_RELAXED),
			      " calls were not recorded: the live view's ring took their records "
			      "again before the trace wrote them out");
	if (cut)
		cua_log_msg(CUA_LOG_WARN, "a trace buffer flush was cut short (thread ended, or exit "
			    "from a signal handler, or a jump out of one); its records were taken "
			    "from the block it wrote or from memory", NULL);
	if (skipped)
		cua_log_msg(CUA_LOG_WARN, "blocks of the trace's raw file were cut short and skipped",
			    NULL);
	cua_gpu_write_trace(&w, pid);
	cua_tracefmt_names(&w, pid, cua_provenance_program(), cua_provenance_thread_name);
	cua_tracefmt_tail(&w);
	if (cua_writer_commit(&w, tmp, path) == 0) {
		cua_log_generated("trace", path, __atomic_load_n(&raw.cut, __ATOMIC_ACQUIRE) &&
					  !raw.limited);
		if (rawfd >= 0)
			unlink(raw.path);
	} else {
		/* A cut JSON file is no trace: the commit removed it, and the claim goes too; the
		   raw file's whole blocks stay. */
		unlink(path);
		if (rawfd >= 0)
			cua_log_msg(CUA_LOG_ERROR, "the trace's records stay in ", raw.path,
				    "; convert them with: cuaudit trace ", raw.path, NULL);
	}
done:
	/* Events after this point are dropped (a thread that goes on after a failed exec):
	   nothing is written to the raw file again, and its number may be the program's soon. */
	__atomic_store_n(&raw.dead, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&raw.fd, -1, __ATOMIC_RELEASE);
	if (rawfd >= 0)
		close(rawfd);
out:
	nocancel_end(old);
}

int cua_trace_init(const struct cua_config *all, const struct cua_trace_config *own)
{
	static unsigned ids[CUAUDIT_ID_COUNT];
	/* CUAUDIT_INCLUDE/EXCLUDE: the trace records only the ids they leave. */
	int ring = all->live.on && !all->secure;
	/* With the live view on (its setup follows, from the same configuration), a call's
	   record is in its thread's ring: the buffer keeps a reference to it, and the trace
	   sees the calls it does not record too (trace_exit_ring_filtered). */
	CUAUDIT_OPTS(cuaudit_subscription, sub,
		     .exit = !ring ? trace_exit : trace_exit_ring, .ids = ids,
		     .nids = cua_config_filter_ids(all, ids), .flags = CUAUDIT_SUB_TIMES);
	int rc;

	if (!own->path[0])
		return 0;
	/* CUAUDIT_INCLUDE/EXCLUDE leave some out. */
	if (ring && sub.nids < CUAUDIT_ID_COUNT) {
		sub.exit = trace_exit_ring_filtered;
		memset(untraced, 1, sizeof(untraced));
		for (size_t i = 0; i < sub.nids; i++)
			untraced[ids[i]] = 0;
		sub.ids = NULL;
		sub.nids = 0;
	}
	memcpy(cfg.path, own->path, sizeof(cfg.path));
	cfg.max = own->max;
	cfg.exit_ns = own->exit_ns;
	cfg.flush_interval_ns = all->flush_interval_ns;
	cfg.capture = all->capture;
	cua_tracefmt_init();
	/* The raw file's head names the build's table: made here, not at the first block. */
	(void)cua_tracefmt_table_sig();
	if (cua_gpu_on()) /* GPU timing started before the trace (la_version's order) */
		cua_gpu_trace_setup();
	for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++)
		for (unsigned i = 0; i < cua_api[id].nargs; i++) {
			unsigned end = (unsigned)cua_api[id].args[i].offset + cua_api[id].args[i].size;

			if (i < CUA_REC_OUT_ARGS && cua_callfmt_out_kept(id, i))
				out_mask[id] |= 1u << i;
			if (end > args_end[id])
				args_end[id] = (uint16_t)end;
			has_string[id] |= cua_api[id].args[i].fmt == CUA_FMT_STRING;
		}
	if (getrandom(&nonce, sizeof(nonce), GRND_NONBLOCK) != (ssize_t)sizeof(nonce))
		nonce = cua_clock_mono_ns();
	cua_nvtx_set_trace(trace_nvtx);
	if (all->live.on && !all->secure)
		cua_live_taking = ring_taken;
	/* Once: its raw file is converted and removed at the first finish. */
	cua_finish_add(trace_finish, NULL, CUA_FINISH_AT_EXEC | CUA_FINISH_ONCE | CUA_FINISH_OWN_CALLS);
	rc = cua_dispatch_subscribe(&sub);
	/* Its callback reads only what a lean record holds (the thread id is the dispatch's
	   cache; launches keep the whole record, for their kernel names). */
	if (rc == 0)
		cua_dispatch_lean();
	return rc;
}

int cua_trace_on(void)
{
	return cfg.path[0] != '\0';
}

/* The registry's entry (hooks/registry.c). */
void cua_trace_start(const struct cua_config *all, struct cua_hook_configs *cfg)
{
	cua_trace_init(all, &cfg->trace);
}
