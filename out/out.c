/* SPDX-License-Identifier: MIT */
/* out/out.c: opens, checks, reopens (after fork, reuse or rotation) and writes cuaudit's log without stdio. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "fd.h"
#include "fmt.h"
#include "process.h"
#include "out.h"


static int stderr_fd = 2;
static char log_template[CUA_PATH_MAX];
static int log_fd = -1;
/* Who opened log_fd and in what state, in one word so a forked child can tell its own state
   from its parent's: (pid << 2) | state, state 0 closed, 1 being opened, 2 open. */
static uint64_t log_word;

static int log_write_failed;

static int dup_high(int fd)
{
	int nfd = fcntl(fd, F_DUPFD_CLOEXEC, CUA_FD_MIN);

	/* RLIMIT_NOFILE may be below 1000: a low copy still beats none. */
	if (nfd < 0)
		nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	return nfd;
}

/* What our copy of stderr refers to, to tell it from a file the program opened under the
   same number after closing ours (close_range, a daemon closing every descriptor). */
static dev_t stderr_dev;
static ino_t stderr_ino;
static int stderr_taken;
static int stderr_ready;

void cua_out_setup(const char *tmpl)
{
	int fd = dup_high(2);
	struct stat st;

	stderr_ready = 1;
	if (fd >= 0 && fstat(fd, &st) == 0) {
		stderr_fd = fd;
		stderr_dev = st.st_dev;
		stderr_ino = st.st_ino;
	} else {
		/* No copy: fd 2 itself, checked the same way. */
		if (fd >= 0)
			close(fd);
		if (fstat(2, &st) == 0) {
			stderr_dev = st.st_dev;
			stderr_ino = st.st_ino;
		} else {
			stderr_taken = 1;
		}
	}
	log_template[0] = '\0';
	if (!tmpl[0])
		return;
	if (tmpl[0] != '/') {
		/* Resolved now: the program may change directory before the first line. */
		if (!getcwd(log_template, sizeof(log_template) - 2))
			log_template[0] = '\0';
		size_t n = strlen(log_template);
		if (n && n + 1 + strlen(tmpl) < sizeof(log_template)) {
			log_template[n] = '/';
			memcpy(log_template + n + 1, tmpl, strlen(tmpl) + 1);
			return;
		}
		log_template[0] = '\0';
		return;
	}
	memcpy(log_template, tmpl, strlen(tmpl) + 1);
}

/* Our copy of stderr while it still is one; -1 once the program has closed it and may have
   opened its own file under the number: that output stops (there is nowhere to say so). */
static int stderr_checked(void)
{
	struct stat st;

	if (!stderr_ready)
		return 2; /* la_version, before cua_out_setup: the configuration's messages */
	if (__atomic_load_n(&stderr_taken, __ATOMIC_RELAXED))
		return -1;
	if (fstat(stderr_fd, &st) == 0 && st.st_dev == stderr_dev && st.st_ino == stderr_ino)
		return stderr_fd;
	__atomic_store_n(&stderr_taken, 1, __ATOMIC_RELAXED);
	return -1;
}

int cua_out_stderr_fd(void)
{
	return stderr_checked();
}

void cua_out_stderr(const char *buf, size_t len)
{
	int saved = errno, fd = stderr_checked();

	if (fd >= 0)
		cua_fd_write_all(fd, buf, len, -1);
	errno = saved;
}

/* Is this existing file ours: empty, or starting with our signature? */
static int ours(int fd, const char *signature)
{
	char head[64];
	size_t want = strlen(signature);
	ssize_t n;

	if (want > sizeof(head))
		want = sizeof(head);
	n = pread(fd, head, want, 0);
	return n == 0 || (n == (ssize_t)want && memcmp(head, signature, want) == 0);
}

/* Takes an existing file of ours for this process: 0, or -1 to pass it over. A file another
   process holds while it runs (a shared flock, cua_writer_commit) is passed over. Checking
   that no other process of the run has it (later) and emptying it are one step under an
   exclusive lock, never waited for: processes started together that all found a previous
   run's file under the name each saw its old time, and each emptied and took it (12 files
   of 20 processes' summaries were left, while 20 were announced). The lock is the claim only
   while it is being made; the fresh time that the emptying gives the file is what the run's
   other processes see afterwards (this_run), so it is set explicitly: emptying a file that
   is empty already need not change it. A file system without flock claims as before. */
static int take(int fd, const char *signature, unsigned append, int (*later)(int fd))
{
	struct stat st;

	if (append)
		return later && later(fd) ? -1 : 0;
	/* An output every writer replaces (the metrics) is emptied whoever holds it. */
	if (!later)
		return ftruncate(fd, 0) == 0 ? 0 : -1;
	/* Another process is claiming it right now, or holds it while it runs (a shared lock,
	   cua_writer_commit). */
	if (flock(fd, LOCK_EX | LOCK_NB) != 0 && (errno == EWOULDBLOCK || errno == EINTR))
		return -1;
	/* Under the lock: the file as the last claimer left it. */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !ours(fd, signature) ||
	    (later && later(fd)) || ftruncate(fd, 0) != 0)
		return -1;
	futimens(fd, NULL);
	flock(fd, LOCK_UN);
	return 0;
}

/* "dir/summary.json", 3 -> "dir/summary.3.json" */
static int numbered(char *out, size_t cap, const char *path, uint64_t k)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
	struct cua_buf b = { out, 0, cap ? cap - 1 : 0, 0, NULL, 0 };

	if (!dot || (slash && dot < slash) || (slash && dot == slash + 1) || dot == path)
		dot = path + strlen(path);
	cua_buf_mem(&b, path, (size_t)(dot - path));
	cua_buf_char(&b, '.');
	cua_buf_u64(&b, k);
	cua_buf_str(&b, dot);
	out[b.len] = '\0';
	return b.truncated ? -1 : 0;
}

static void tell_left_alone(const char *what, const char *foreign, const char *used)
{
	char line[2 * CUA_PATH_MAX + 256];
	struct cua_buf b = CUA_BUF(line);

	if (cua_cfg.log_level < CUA_LOG_WARN)
		return;
	cua_buf_str(&b, "cuaudit: warning: ");
	cua_buf_text(&b, foreign, strlen(foreign), CUA_TEXT_TERM);
	cua_buf_str(&b, " was not written by cuaudit and is left alone; cuaudit writes its ");
	cua_buf_str(&b, what);
	cua_buf_str(&b, " to ");
	cua_buf_text(&b, used, strlen(used), CUA_TEXT_TERM);
	if (b.len == b.cap)
		b.len--;
	line[b.len++] = '\n';
	cua_out_stderr(line, b.len);
}

/* The first name passed over, for the one message. */
static void remember(char *foreign, size_t cap, const char *path)
{
	size_t n = strlen(path);

	if (foreign[0])
		return;
	memcpy(foreign, path, n < cap ? n + 1 : cap);
	foreign[cap - 1] = '\0';
}

int cua_out_choose(const char *what, const char *base, const char *signature, unsigned flags,
		   int (*later)(int fd), char *path, size_t cap)
{
	int append = (flags & CUA_OUT_APPEND) != 0;
	char foreign[CUA_PATH_MAX];
	int fd;

	foreign[0] = '\0';
	/* Ends: each name is a new one, and a directory holds finitely many files. */
	for (uint64_t k = 0;; k++) {
		struct stat st;

		if (k == 0) {
			size_t n = strlen(base);

			if (n >= cap)
				return -1;
			memcpy(path, base, n + 1);
		} else if (numbered(path, cap, base, k) != 0) {
			return -1;
		}
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW |
					(append ? O_APPEND : 0), 0644);
		if (fd >= 0)
			break;
		if (errno != EEXIST)
			return -1;
		/* O_NOCTTY: a terminal named for the log must not become the controlling terminal
		   of a process that has none (a daemon, which would then get its SIGHUP). */
		fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
				(append ? O_APPEND : 0));
		if (fd < 0 && append && errno != ELOOP) {
			/* A FIFO or device the user named for the log: written as it is, never
			   blocking (a FIFO without a reader is refused with ENXIO). */
			fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
			if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode))
				break;
			if (fd >= 0)
				close(fd);
			return -1;
		}
		if (fd < 0) {
			/* A symbolic link, a directory, a file we may not read: not ours. */
			remember(foreign, sizeof(foreign), path);
			continue;
		}
		if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && append) {
			close(fd);
			fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
			if (fd >= 0)
				break;
			return -1;
		}
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ours(fd, signature)) {
			if (take(fd, signature, append, later) == 0)
				break;
			/* cuaudit's, kept for the process or image that wrote or claims it */
		} else {
			remember(foreign, sizeof(foreign), path);
		}
		close(fd);
	}
	if (foreign[0] && !(flags & CUA_OUT_QUIET))
		tell_left_alone(what, foreign, path);
	return cua_fd_high(fd);
}

static char log_path[CUA_PATH_MAX];
static dev_t log_dev;
static ino_t log_ino;
static uint64_t log_bytes; /* written to the current file, for CUAUDIT_LOG_MAX */
static int log_full;       /* the marker is written, or the file reached RLIMIT_FSIZE: lines
			      are dropped until a new file */

static void say_once(const char *what, int err)
{
	cua_out_report(what, log_path, err);
}

/* Opens the log file: never following a symbolic link, never blocking (a FIFO without a
   reader is refused with ENXIO), at 1000 or above. Remembers its identity. */
static int open_log(int pid)
{
	static int said;
	char base[CUA_PATH_MAX];
	struct stat st;
	int fd;

	if (cua_fmt_path(base, sizeof(base), log_template, (unsigned)pid, cua_process_host()) < 0)
		return -1;
	/* O_APPEND keeps whole lines from several processes sharing one file intact. A file
	   that is not a log of cuaudit's is left alone (cua_out_choose), and said once. */
	fd = cua_out_choose("log", base, "cuaudit", CUA_OUT_APPEND |
			    (__atomic_load_n(&said, __ATOMIC_RELAXED) ? CUA_OUT_QUIET : 0),
			    NULL, log_path, sizeof(log_path));
	if (fd >= 0 && strcmp(base, log_path) != 0)
		__atomic_store_n(&said, 1, __ATOMIC_RELAXED);
	if (fd < 0) {
		if (!log_path[0] || strlen(log_path) >= sizeof(log_path))
			memcpy(log_path, base, sizeof(log_path));
		say_once("cannot open CUAUDIT_LOG_FILE=", errno);
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		close(fd);
		return -1;
	}
	log_dev = st.st_dev;
	log_ino = st.st_ino;
	__atomic_store_n(&log_bytes, S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&log_full, 0, __ATOMIC_RELAXED);
	return fd;
}

/* Does fd still name the file we opened, and does the name still lead to it? A program
   that closed our descriptor and opened its own file in its place fails the first test;
   a log rotated by rename or removal fails the second. */
static int log_still_ours(int fd)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st) != 0 || st.st_dev != log_dev || st.st_ino != log_ino)
		return 0;
	if (!S_ISREG(st.st_mode))
		return 1;
	return stat(log_path, &st) == 0 && st.st_dev == log_dev && st.st_ino == log_ino;
}

/* Returns the descriptor to log to, opening or reopening (after fork, after the program
   closed or reused ours, after a rotation) the file as needed; -2 to drop the line. */
static int log_descriptor(void)
{
	uint64_t pid, word;

	if (!log_template[0])
		return stderr_checked();
	pid = cua_process_id();
	for (;;) {
		word = __atomic_load_n(&log_word, __ATOMIC_ACQUIRE);
		if (word == (pid << 2 | 2)) {
			int fd = __atomic_load_n(&log_fd, __ATOMIC_ACQUIRE);

			if (fd < 0 || log_still_ours(fd))
				break;
			/* Reopen: claim the word back from the open state. */
			if (!__atomic_compare_exchange_n(&log_word, &word, pid << 2 | 1, 0,
							 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				continue;
			/* Not closed: the number may be the program's own file now. */
			log_fd = open_log((int)pid);
			__atomic_store_n(&log_word, pid << 2 | 2, __ATOMIC_RELEASE);
			break;
		}
		/* State 1 of our own pid: another thread is opening. Never wait for it (it may
		   have been cancelled or interrupted): this line goes to stderr. */
		if (word == (pid << 2 | 1))
			return stderr_checked();
		if (!__atomic_compare_exchange_n(&log_word, &word, pid << 2 | 1, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			continue;
		/* A forked child inherits the parent's descriptor: keep it only if the name does
		   not depend on the pid. */
		if (log_fd >= 0 && (word >> 2) != pid && strstr(log_template, "%p")) {
			close(log_fd);
			log_fd = -1;
		}
		if (log_fd < 0 || !log_still_ours(log_fd))
			log_fd = open_log((int)pid);
		__atomic_store_n(&log_word, pid << 2 | 2, __ATOMIC_RELEASE);
		break;
	}
	if (log_fd < 0)
		return stderr_checked();
	if (__atomic_load_n(&log_full, __ATOMIC_RELAXED))
		return -2;
	return log_fd;
}

static const char limit_marker[] =
	"cuaudit: warning: CUAUDIT_LOG_MAX reached; no more lines are written to this file\n";

/* Lines within this many bytes of CUAUDIT_LOG_MAX ask whether another process sharing the
   file has already ended it with the marker (longer lines than this may follow a marker
   written by a process whose own line did not fit). */
#define LOG_MARK_WINDOW 16384u

/* Does the log file (fd, or its name where fd cannot be read) end with the marker? */
static int log_marked(int fd, uint64_t size)
{
	char tail[sizeof(limit_marker) - 1];
	struct stat st;
	ssize_t got = -1;
	int rd;

	if (size < sizeof(tail))
		return 0;
	got = pread(fd, tail, sizeof(tail), (off_t)(size - sizeof(tail)));
	if (got < 0 && errno == EBADF &&
	    (rd = open(log_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)) >= 0) {
		if (fstat(rd, &st) == 0 && st.st_dev == log_dev && st.st_ino == log_ino)
			got = pread(rd, tail, sizeof(tail), (off_t)(size - sizeof(tail)));
		close(rd);
	}
	return got == (ssize_t)sizeof(tail) && memcmp(tail, limit_marker, sizeof(tail)) == 0;
}

/* Counts the line against CUAUDIT_LOG_MAX: the file's own size counts, not only this
   process's lines (processes sharing one file, a forked child that kept it, each counted
   their own: the file grew to a multiple of the limit, a marker from each). The first line
   past it is replaced by the marker, written once to the file, and one message goes to
   stderr. Returns 0 to write the line. */
static int log_room(int fd, size_t len)
{
	uint64_t before;
	struct stat st;
	int shared;

	if (!cua_cfg.log_max || fd == stderr_fd)
		return 0;
	before = __atomic_fetch_add(&log_bytes, len, __ATOMIC_RELAXED);
	shared = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	if (shared && (uint64_t)st.st_size > before)
		before = (uint64_t)st.st_size;
	if (before + len <= cua_cfg.log_max &&
	    !(shared && before + len + LOG_MARK_WINDOW > cua_cfg.log_max &&
	      log_marked(fd, (uint64_t)st.st_size)))
		return 0;
	if (__atomic_exchange_n(&log_full, 1, __ATOMIC_ACQ_REL))
		return -1;
	if (!(shared && log_marked(fd, (uint64_t)st.st_size)))
		cua_fd_write_all(fd, limit_marker, sizeof(limit_marker) - 1, -1);
	say_once("CUAUDIT_LOG_MAX reached; the log stops at ", 0);
	return -1;
}

void cua_out_log(const char *buf, size_t len)
{
	int saved = errno;
	int fd = log_descriptor();

	if (fd >= 0 && log_room(fd, len) == 0 && cua_fd_write_all(fd, buf, len, -1) != 0 && fd != stderr_fd) {
		/* The file size limit (ulimit -f) is no passing failure: the log stops, said once. */
		if (errno == EFBIG && !__atomic_exchange_n(&log_full, 1, __ATOMIC_ACQ_REL))
			say_once("the log reached the file size limit (ulimit -f) and stops; it is cut "
				 "short at ", EFBIG);
		else if (errno != EFBIG && !__atomic_exchange_n(&log_write_failed, 1, __ATOMIC_ACQ_REL))
			say_once("cannot write the log to ", errno);
	}
	errno = saved;
}

void cua_out_report(const char *what, const char *path, int err)
{
	char line[CUA_PATH_MAX + 256];
	struct cua_buf b = CUA_BUF(line);

	if (cua_cfg.log_level < CUA_LOG_ERROR)
		return;
	cua_buf_str(&b, "cuaudit: error: ");
	cua_buf_str(&b, what);
	cua_buf_text(&b, path, strlen(path), CUA_TEXT_TERM);
	if (err) {
		cua_buf_str(&b, ": ");
		cua_buf_errno(&b, err);
	}
	if (b.len == b.cap)
		b.len--;
	line[b.len++] = '\n';
	cua_out_stderr(line, b.len);
}
