/* SPDX-License-Identifier: MIT */
/* tests/cases/signal_rawfile.c: a signal handler that jumps out of the making of the trace's raw file, at one instruction after another of it, each in a new process. */
#include <dirent.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ucontext.h>
#include "common.h"
#include "trapflag.h"

/* signal_rawfile DIR WIDTH STRIDE COUNTFILE, under CUAUDIT_TRACE=DIR/t.%p.json: the raw file
   is made at a process's first block, by the call whose record no longer fits in its
   thread's buffer (1 MiB). A forked child makes its own: each round is a child whose
   thread makes P - 1 calls (cuDriverGetVersion, records of one size), then the P-th
   single-stepped (the x86 trap flag), which writes the buffer out. P is measured by the
   first child (calls until its raw file appears), whose stepped call has no jump and
   reports its instructions: the system calls (the file's openat, the fstat and pwrites)
   and the atomic (lock-prefixed) instructions. The making lies from the last atomic
   instruction before the openat (the claim) to the fstat after the first pwrite (the
   check of the descriptor once it is made). Then one child per chosen instruction k
   (every STRIDE-th, the WIDTH up to that fstat, and every one within 3 of a mark in the
   first or last 200 instructions of the making; between them the head's fields are
   formatted), whose SIGTRAP handler makes one call and jumps out with siglongjmp at the
   k-th instruction. After the jump the child checks that its thread writes its records
   out: its next call (which finishes the flush the jump left) leaves a raw file, and P
   calls more make it grow; then another thread fills its own buffer (P calls), none of
   which may take 500 ms (the wait for a claim whose thread is alive is 1 s), and the file
   grows again. Status 1 or 2 says which failed. COUNTFILE gets: the rounds, the failed
   ones, P, the instructions of the making, the marks. RAWFILE_DEBUG=1: P, the making and
   its marks, on stderr. x86-64 only. */
#define MARKS 256
static long period;
static sigjmp_buf env;
static volatile long traps, target, nmarks;
static long mark_at[MARKS], mark_sys[MARKS]; /* the system call's number; -1: atomic */
static const char *dir;
static char raw_path[4096]; /* this process's raw file, once found */

static void handler(int sig, siginfo_t *info, void *ucv)
{
	ucontext_t *uc = ucv;
	const unsigned char *pc = (const unsigned char *)uc->uc_mcontext.gregs[REG_RIP];
	CUdevice d;

	(void)sig;
	(void)info;
	traps++;
	if (target < 0 && nmarks < MARKS && ((pc[0] == 0x0f && pc[1] == 0x05) || pc[0] == 0xf0)) {
		mark_at[nmarks] = traps;
		mark_sys[nmarks++] = pc[0] == 0xf0 ? -1 : (long)uc->uc_mcontext.gregs[REG_RAX];
	}
	if (traps != target)
		return;
	if (cuDeviceGet(&d, 9999) != CUDA_ERROR_INVALID_DEVICE)
		_exit(3);
	siglongjmp(env, 1);
}

static void call(void)
{
	int v;

	CHECK(cuDriverGetVersion(&v) == CUDA_SUCCESS);
}

/* The size of this process's raw file; -1: none. */
static long raw_size(void)
{
	char prefix[64], path[4096];
	struct dirent *e;
	struct stat st;
	long size = -1;
	DIR *d = opendir(dir);

	CHECK(d != NULL);
	snprintf(prefix, sizeof(prefix), "t.%ld.json.%ld.", (long)getpid(), (long)getpid());
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);

		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && n > 4 &&
		    strcmp(e->d_name + n - 4, ".raw") == 0) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			if (stat(path, &st) == 0) {
				size = (long)st.st_size;
				memcpy(raw_path, path, sizeof(raw_path));
			}
		}
	}
	closedir(d);
	return size;
}

static void *other_thread(void *arg)
{
	long *ms = arg;

	*ms = 0;
	for (long i = 0; i < period + 1; i++) {
		struct timespec t0, t1;
		long d;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		call();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		d = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		if (d > *ms)
			*ms = d;
	}
	return NULL;
}

/* One round in a child: the stepped call jumped out of at instruction k (-1: none, and the
   marks are written to fd; 0: P measured and written to fd). Its status: 0, or 1 (no raw file growing after the jump), 2
   (a call of another thread waited). */
static int child(long k, int fd)
{
	pthread_t t;
	long s1, s2, s3, ms = -1;
	int v, ok;

	if (k == 0) {
		/* P: the call that makes the raw file is the P-th. */
		for (period = 1; period < (1 << 22) && raw_size() < 0; period++)
			call();
		CHECK(raw_size() >= 0);
		period--;
		CHECK(write(fd, &period, sizeof(period)) == sizeof(period));
		return 0;
	}
	for (long i = 1; i < period; i++)
		call();
	if (raw_size() >= 0) {
		fprintf(stderr, "signal_rawfile: a raw file before call %ld\n", period);
		return 4;
	}
	traps = 0;
	target = k;
	if (sigsetjmp(env, 1) == 0) {
		trap_flag(1);
		ok = cuDriverGetVersion(&v) == CUDA_SUCCESS;
		trap_flag(0);
		CHECK(ok);
	}
	if (k < 0) {
		CHECK(write(fd, (const void *)&nmarks, sizeof(nmarks)) == sizeof(nmarks));
		CHECK(write(fd, mark_at, sizeof(mark_at)) == sizeof(mark_at));
		CHECK(write(fd, mark_sys, sizeof(mark_sys)) == sizeof(mark_sys));
	}
	call();
	s1 = raw_size();
	for (long i = 0; i < period + 1; i++)
		call();
	s2 = raw_size();
	if (s1 < 0 || s2 <= s1) {
		fprintf(stderr, "signal_rawfile: jumped out at %ld: raw file %ld then %ld bytes\n", k,
			s1, s2);
		return 1;
	}
	CHECK(pthread_create(&t, NULL, other_thread, &ms) == 0);
	CHECK(pthread_join(t, NULL) == 0);
	s3 = raw_size();
	if (ms >= 500 || s3 <= s2) {
		fprintf(stderr, "signal_rawfile: jumped out at %ld: a call of another thread took %ld "
			"ms, raw file %ld then %ld bytes\n", k, ms, s2, s3);
		return 2;
	}
	return 0;
}

static int round_at(long k, int fd)
{
	int st;
	pid_t pid = fork();

	CHECK(pid >= 0);
	if (pid == 0) {
		st = child(k, fd);
		/* Without its exit (no JSON), and without its raw file: the next rounds look
		   through the directory. */
		if (raw_path[0])
			unlink(raw_path);
		_exit(st);
	}
	CHECK(waitpid(pid, &st, 0) == pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Where the making begins (the claim, the file's creation and its descriptor moved high)
   and ends (the head's write, the file published, the claim given back): the head's
   fields in between take some 200,000 instructions, each round stepping them all. */
static int chosen(long k, long first, long last, long width, long stride)
{
	if (k % stride == 0 || (k >= last - width && k <= last))
		return 1;
	for (long i = 0; i < nmarks; i++)
		if ((mark_at[i] <= first + 200 || mark_at[i] >= last - 200) &&
		    k >= mark_at[i] - 3 && k <= mark_at[i] + 3)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	long width, stride, open_at = 0, first = 0, last = 0, rounds = 0, failed = 0, pwrite_at = 0;
	int fds[2];
	FILE *f;

	CHECK(argc == 5);
	dir = argv[1];
	width = atol(argv[2]);
	stride = atol(argv[3]);
	CHECK(width >= 0 && stride > 0);
	CHECK(cuInit(0) == CUDA_SUCCESS);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGTRAP, &sa, NULL) == 0);
	CHECK(pipe(fds) == 0);
	CHECK(round_at(0, fds[1]) == 0);
	CHECK(read(fds[0], &period, sizeof(period)) == sizeof(period));
	CHECK(period > 1);
	/* target -1: stepped without a jump, its marks kept. */
	CHECK(round_at(-1, fds[1]) == 0);
	CHECK(read(fds[0], (void *)&nmarks, sizeof(nmarks)) == sizeof(nmarks));
	CHECK(read(fds[0], mark_at, sizeof(mark_at)) == sizeof(mark_at));
	CHECK(read(fds[0], mark_sys, sizeof(mark_sys)) == sizeof(mark_sys));
	for (long i = 0; i < nmarks && !open_at; i++)
		if (mark_sys[i] == SYS_openat)
			open_at = i;
	for (long i = open_at; i > 0 && !first; i--)
		if (mark_sys[i - 1] < 0)
			first = mark_at[i - 1];
	for (long i = open_at; i < nmarks && !last; i++) {
		if (mark_sys[i] == SYS_pwrite64 && !pwrite_at)
			pwrite_at = i;
		if (pwrite_at && (mark_sys[i] == SYS_fstat || mark_sys[i] == SYS_newfstatat))
			last = mark_at[i];
	}
	if (!open_at || !first || !last) {
		fprintf(stderr, "signal_rawfile: no making found (%ld marks)\n", (long)nmarks);
		return 1;
	}
	{
		long n = 0;

		for (long i = 0; i < nmarks; i++)
			if (mark_at[i] >= first && mark_at[i] <= last) {
				mark_at[n] = mark_at[i];
				mark_sys[n++] = mark_sys[i];
			}
		nmarks = n;
	}
	if (getenv("RAWFILE_DEBUG")) {
		fprintf(stderr, "P %ld making %ld..%ld:", period, first, last);
		for (long i = 0; i < nmarks; i++)
			fprintf(stderr, " %ld@%ld", mark_sys[i], mark_at[i]);
		fprintf(stderr, "\n");
	}
	for (long k = first - width > 1 ? first - width : 1; k <= last + width; k++) {
		int st;

		if (!chosen(k, first, last, width, stride))
			continue;
		rounds++;
		st = round_at(k, -1);
		if (st != 0) {
			failed++;
			fprintf(stderr, "signal_rawfile: round at %ld: status %d\n", k, st);
		}
	}
	f = fopen(argv[4], "w");
	CHECK(f != NULL);
	fprintf(f, "%ld %ld %ld %ld..%ld", rounds, failed, period, first, last);
	for (long i = 0; i < nmarks; i++)
		fprintf(f, " %s@%ld", mark_sys[i] < 0 ? "atomic" : "syscall", mark_at[i]);
	fprintf(f, "\n");
	fclose(f);
	printf("%ld rounds, %ld failed\n", rounds, failed);
	return failed != 0;
}
