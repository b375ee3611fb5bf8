/* SPDX-License-Identifier: MIT */
/* bench/drain_cost.c: what a trace that drains the live view's ring would cost a call, against today's 1 MiB buffer: a model, timed in paired interleaved rounds. */
/* The question (docs/design.md, "One record per call"): the trace writes a block to its raw
   file per 1 MiB of records; a trace that drained the ring would write one per ring of
   records (64 by default). Each "call" here stores one 144-byte record (the ring's record
   size) and, when its store is full, writes the store to a file at the next offset: the ring
   of N records with pwrite, and today's buffer of 1 MiB. Rounds interleave the
   configurations, and each round's time per call is divided by the 1 MiB buffer's of the
   same round, so that a loaded machine moves both.
   Usage: drain_cost DIR [CALLS] [ROUNDS]: the file is made in DIR (a disk, or /dev/shm). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REC 144u
#define TBUF (1u << 20)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* ns per call of 'calls' stores into a store of 'cap' bytes, written out whenever full. The
   file is cut back to 0 every 256 MiB, so that a run does not fill the disk. */
static double run(int fd, unsigned char *store, size_t cap, uint64_t calls)
{
	unsigned char rec[REC];
	size_t used = 0;
	uint64_t off = 0, t0;

	memset(rec, 0x5a, sizeof(rec));
	t0 = now_ns();
	for (uint64_t i = 0; i < calls; i++) {
		rec[0] = (unsigned char)i;
		memcpy(store + used, rec, REC);
		used += REC;
		if (used + REC > cap) {
			if (pwrite(fd, store, used, (off_t)off) != (ssize_t)used) {
				perror("pwrite");
				exit(1);
			}
			off += used;
			used = 0;
			if (off >= (256ull << 20)) {
				if (ftruncate(fd, 0) != 0) {
					perror("ftruncate");
					exit(1);
				}
				off = 0;
			}
		}
	}
	return (double)(now_ns() - t0) / (double)calls;
}

int main(int argc, char **argv)
{
	static const size_t rings[] = { 64, 256, 1024, 4096 };
	enum { NR = sizeof(rings) / sizeof(rings[0]), MAX_ROUNDS = 64 };
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	uint64_t calls = argc > 2 ? strtoull(argv[2], NULL, 10) : 2000000;
	int rounds = argc > 3 ? atoi(argv[3]) : 7;
	double base[MAX_ROUNDS], ring_ns[NR][MAX_ROUNDS], ratio[NR][MAX_ROUNDS], added[NR][MAX_ROUNDS];
	unsigned char *store = malloc(TBUF);
	char path[4096];
	int fd;

	if (rounds < 1 || rounds > MAX_ROUNDS || !store) {
		fprintf(stderr, "usage: drain_cost DIR [CALLS] [ROUNDS 1..%d]\n", MAX_ROUNDS);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/drain_cost.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	unlink(path);
	memset(store, 0, TBUF);
	for (int r = 0; r < rounds; r++) {
		base[r] = run(fd, store, TBUF, calls);
		for (int k = 0; k < NR; k++) {
			ring_ns[k][r] = run(fd, store, rings[k] * REC + REC - 1, calls);
			ratio[k][r] = ring_ns[k][r] / base[r];
			added[k][r] = ring_ns[k][r] - base[r];
		}
	}
	qsort(base, (size_t)rounds, sizeof(double), cmp_double);
	printf("store                 ns/call   added ns/call   ratio to 1 MiB (medians; min-max of "
	       "the paired rounds)\n");
	printf("1 MiB buffer (today)  %7.1f\n", base[rounds / 2]);
	for (int k = 0; k < NR; k++) {
		qsort(ring_ns[k], (size_t)rounds, sizeof(double), cmp_double);
		qsort(ratio[k], (size_t)rounds, sizeof(double), cmp_double);
		qsort(added[k], (size_t)rounds, sizeof(double), cmp_double);
		printf("ring of %4zu records  %7.1f   %5.1f (%.1f-%.1f)   %.2f (%.2f-%.2f)\n", rings[k],
		       ring_ns[k][rounds / 2], added[k][rounds / 2], added[k][0], added[k][rounds - 1],
		       ratio[k][rounds / 2], ratio[k][0], ratio[k][rounds - 1]);
	}
	close(fd);
	free(store);
	return 0;
}
