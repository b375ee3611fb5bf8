/* SPDX-License-Identifier: MIT */
/* tests/cases/signal_flush.c: a signal handler that jumps out of the trace's flush of a thread's full buffer, at one instruction after another of the flush. */
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <ucontext.h>
#include "common.h"
#include "trapflag.h"

/* signal_flush DIR WIDTH STRIDE COUNTFILE, under CUAUDIT_TRACE=DIR/t.json: cuDriverGetVersion
   in a loop, each call followed by a look at the size of the trace's raw file
   (DIR/t.json.PID.NONCE.raw), which grows exactly when the thread's buffer (1 MiB) is
   written out as a block: the call that grows it left its own record alone in the buffer,
   so the call P later (P: the calls between two blocks, measured) is the one whose record
   no longer fits and which writes the buffer out. That call (cuDeviceGetCount, a record of
   the same size) is single-stepped (the x86 trap flag) once without a jump, to find the
   flush in it: its pwrite system calls (the block's head, records and state) and the fstat
   before them, and the atomic (lock-prefixed) instructions between (the add that takes the
   block's place). Then, round after round, the same call is stepped and the SIGTRAP handler
   makes one failing call and jumps out with siglongjmp at its k-th instruction, for k from
   WIDTH before that fstat to 3 WIDTH after the last pwrite: every STRIDE-th, and every one
   within 3 of those system calls or atomic instructions, so that a jump lands before the
   block's place is taken, right after, before its head is written, inside it, after its
   last write and in the flush's last instructions. After each jump the loop goes on until
   the raw file grows again: a thread whose buffer the jump left "being flushed" never
   writes a block again, and the program says so (status 1) within 3 P calls.
   COUNTFILE gets: the cuDriverGetVersion calls (each must be in the trace once), the
   stepped calls (each once at most), the jumps (each handler's call once), P, the range of
   instructions and the marks. x86-64 only. */
#define MARKS 64
static sigjmp_buf env;
static volatile long traps, target, jumps, nmarks;
static long mark_at[MARKS], mark_sys[MARKS]; /* the system call's number; -1: atomic */
static char raw[4096];
static const char *dir;
static off_t raw_size;
static long plain;

static void handler(int sig, siginfo_t *info, void *ucv)
{
	ucontext_t *uc = ucv;
	const unsigned char *pc = (const unsigned char *)uc->uc_mcontext.gregs[REG_RIP];
	CUdevice d;

	(void)sig;
	(void)info;
	traps++;
	/* Stopped at a syscall instruction (its number in rax) or a lock prefix. */
	if (target == 0 && nmarks < MARKS && ((pc[0] == 0x0f && pc[1] == 0x05) || pc[0] == 0xf0)) {
		mark_at[nmarks] = traps;
		mark_sys[nmarks++] = pc[0] == 0xf0 ? -1 : (long)uc->uc_mcontext.gregs[REG_RAX];
	}
	if (traps != target)
		return;
	if (cuDeviceGet(&d, 9999) != CUDA_ERROR_INVALID_DEVICE)
		_exit(3);
	jumps++;
	siglongjmp(env, 1);
}

/* Did the raw file grow since the last look? Found by name at its first block. */
static int grew(void)
{
	struct stat st;

	if (!raw[0]) {
		char prefix[64];
		struct dirent *e;
		DIR *d = opendir(dir);

		CHECK(d != NULL);
		snprintf(prefix, sizeof(prefix), "t.json.%ld.", (long)getpid());
		while ((e = readdir(d)) != NULL) {
			size_t n = strlen(e->d_name);

			if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && n > 4 &&
			    strcmp(e->d_name + n - 4, ".raw") == 0)
				snprintf(raw, sizeof(raw), "%s/%s", dir, e->d_name);
		}
		closedir(d);
		if (!raw[0])
			return 0;
	}
	CHECK(stat(raw, &st) == 0);
	if (st.st_size == raw_size)
		return 0;
	raw_size = st.st_size;
	return 1;
}

static void call(void)
{
	int v;

	CHECK(cuDriverGetVersion(&v) == CUDA_SUCCESS);
	plain++;
}

/* Calls until the raw file grows; how many, or -1 when it did not within bound. */
static long until_block(long bound)
{
	for (long i = 1; i <= bound; i++) {
		call();
		if (grew())
			return i;
	}
	return -1;
}

/* The call that writes the buffer out, stepped, jumped out of at instruction k (0: none). */
static int stepped(long k)
{
	int n, ok;

	traps = 0;
	target = k;
	if (sigsetjmp(env, 1) == 0) {
		trap_flag(1);
		ok = cuDeviceGetCount(&n) == CUDA_SUCCESS;
		trap_flag(0);
		CHECK(ok);
		return 0;
	}
	return 1;
}

/* Is instruction k one to jump out at? */
static int chosen(long k, long stride)
{
	if (k % stride == 0)
		return 1;
	for (long i = 0; i < nmarks; i++)
		if (k >= mark_at[i] - 3 && k <= mark_at[i] + 3)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	long p, width, stride, first = 0, last = 0, rounds = 0;
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
	/* The first block (the buffer held the thread's name too), then one whole period. */
	CHECK(until_block(1 << 22) > 0);
	p = until_block(1 << 22);
	CHECK(p > 1);
	for (long i = 1; i < p; i++) {
		call();
		CHECK(!grew());
	}
	CHECK(stepped(0) == 0);
	/* The flush: from the fstat before the first pwrite to the last pwrite. */
	for (long i = 0; i < nmarks; i++) {
		if (mark_sys[i] == SYS_pwrite64) {
			last = mark_at[i];
			for (long j = i - 1; !first && j >= 0; j--)
				if (mark_sys[j] == SYS_fstat || mark_sys[j] == SYS_newfstatat)
					first = mark_at[j];
		}
	}
	if (!grew() || !first || !last) {
		fprintf(stderr, "signal_flush: the stepped call (%ld instructions, %ld marks) "
			"wrote no block after %ld calls\n", (long)traps, (long)nmarks, p);
		return 1;
	}
	/* The marks kept: the fstat, the atomic instructions between it and the first pwrite
	   (the add that takes the block's place), and the pwrites. */
	{
		long n = 0, pwrites = 0;

		for (long i = 0; i < nmarks; i++) {
			int keep = mark_at[i] == first || mark_sys[i] == SYS_pwrite64 ||
				   (mark_sys[i] < 0 && mark_at[i] > first && !pwrites);

			pwrites += mark_at[i] > first && mark_sys[i] == SYS_pwrite64;
			if (keep && mark_at[i] >= first && mark_at[i] <= last) {
				mark_at[n] = mark_at[i];
				mark_sys[n++] = mark_sys[i];
			}
		}
		nmarks = n;
	}
	/* WIDTH before, three times WIDTH after: the flush's end (the buffer emptied, its
	   cancellation state put back, IDLE again). */
	first -= width;
	last += 3 * width;
	for (long k = first > 1 ? first : 1; k <= last; k++) {
		long n;

		if (!chosen(k, stride))
			continue;
		/* After the call that wrote the last block, P - 1 calls fit. */
		for (long i = 1; i < p; i++) {
			call();
			if (grew()) {
				fprintf(stderr, "signal_flush: a block after %ld calls, not %ld\n", i, p);
				return 1;
			}
		}
		rounds++;
		stepped(k);
		/* Resynchronised on a block written by a plain call, which leaves its own record
		   alone in the buffer: the next call when the stepped one wrote none (a flush it
		   left is taken over then, or its record did not fit), else P calls at most. */
		n = grew() ? until_block(p + 1) : until_block(3 * p);
		if (n < 0) {
			fprintf(stderr, "signal_flush: after a jump out at instruction %ld (the flush "
				"at %ld..%ld) no block was written in %ld calls\n", k, first + width,
				last - 3 * width, 3 * p);
			return 1;
		}
	}
	signal(SIGTRAP, SIG_DFL);
	f = fopen(argv[4], "w");
	CHECK(f != NULL);
	fprintf(f, "%ld %ld %ld %ld %ld..%ld", plain, rounds + 1, (long)jumps, p, first + width,
		last - 3 * width);
	for (long i = 0; i < nmarks; i++)
		fprintf(f, " %s@%ld", mark_sys[i] < 0 ? "atomic" : "syscall", mark_at[i]);
	fprintf(f, "\n");
	fclose(f);
	printf("every round ended\n");
	return 0;
}
