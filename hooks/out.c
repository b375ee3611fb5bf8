/* SPDX-License-Identifier: MIT */
/* hooks/out.c: opens, reopens after fork, and writes cuaudit's log without stdio. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "fmt.h"
#include "hooks.h"
#include "out.h"

/* Above 1000: the application may close stderr or dup2 over low descriptors. */
#define CUA_FD_MIN 1000

static int stderr_fd = 2;
static char log_template[CUA_PATH_MAX];
static int log_fd = -1;
/* Who opened log_fd and in what state, in one word so a forked child can tell its own state
   from its parent's: (pid << 2) | state, state 0 closed, 1 being opened, 2 open. */
static uint64_t log_word;

static int dup_high(int fd)
{
	int nfd = fcntl(fd, F_DUPFD_CLOEXEC, CUA_FD_MIN);

	/* RLIMIT_NOFILE may be below 1000: a low copy still beats none. */
	if (nfd < 0)
		nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	return nfd;
}

void cua_out_setup(const char *tmpl)
{
	int fd = dup_high(2);

	if (fd >= 0)
		stderr_fd = fd;
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

static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

int cua_out_stderr_fd(void)
{
	return stderr_fd;
}

void cua_out_stderr(const char *buf, size_t len)
{
	int saved = errno;

	write_all(stderr_fd, buf, len);
	errno = saved;
}

static int open_log(int pid)
{
	char path[CUA_PATH_MAX], host[256];

	if (gethostname(host, sizeof(host)) != 0)
		memcpy(host, "unknown", 8);
	host[sizeof(host) - 1] = '\0';
	if (cua_fmt_path(path, sizeof(path), log_template, (unsigned)pid, host) < 0)
		return -1;
	/* O_APPEND keeps whole lines from several processes sharing one file intact. */
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		static const char msg[] = "cuaudit: cannot open CUAUDIT_LOG_FILE; logging to stderr\n";

		write_all(stderr_fd, msg, sizeof(msg) - 1);
		return -1;
	}
	int high = dup_high(fd);
	if (high >= 0) {
		close(fd);
		fd = high;
	}
	return fd;
}

/* Returns the descriptor to log to, opening or reopening (after fork) the file as needed. */
static int log_descriptor(void)
{
	uint64_t pid, word;

	if (!log_template[0])
		return stderr_fd;
	pid = cua_process_id();
	for (;;) {
		word = __atomic_load_n(&log_word, __ATOMIC_ACQUIRE);
		if (word == (pid << 2 | 2))
			break;
		/* State 1 of our own pid: another thread is opening. Anything else (closed, or a
		   parent's state inherited through fork) is ours to replace. */
		if (word == (pid << 2 | 1)) {
			sched_yield();
			continue;
		}
		if (!__atomic_compare_exchange_n(&log_word, &word, pid << 2 | 1, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			continue;
		/* A forked child inherits the parent's descriptor: keep it only if the name does
		   not depend on the pid. */
		if (log_fd >= 0 && (word >> 2) != pid && strstr(log_template, "%p")) {
			close(log_fd);
			log_fd = -1;
		}
		if (log_fd < 0)
			log_fd = open_log((int)pid);
		__atomic_store_n(&log_word, pid << 2 | 2, __ATOMIC_RELEASE);
		break;
	}
	return log_fd >= 0 ? log_fd : stderr_fd;
}

void cua_out_log(const char *buf, size_t len)
{
	int saved = errno;

	write_all(log_descriptor(), buf, len);
	errno = saved;
}
