/* SPDX-License-Identifier: MIT */
/* tests/unit/test_memgroup.c: a memory group's slots: the threads of a forked child that charge at once take one slot between them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "fmt.h"
#include "memgroup.h"

#define MiB (1ull << 20)
#define THREADS 4
#define FORKS 200

static char dir[] = "/tmp/cuaudit-unit-memgroup-XXXXXX";
static char path[CUA_PATH_MAX_GROUP];
static unsigned arrived;

static void *charge_once(void *arg)
{
	(void)arg;
	/* All at once: a spin, not a sleep, so that they leave together. */
	__atomic_add_fetch(&arrived, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&arrived, __ATOMIC_SEQ_CST) < THREADS)
		;
	return (void *)(intptr_t)cua_memgroup_charge(0, MiB);
}

/* In the child: its threads charge 1 MiB each at once. 0 when the file then holds one
   ready slot of this pid charged with all of it, and no other slot of this pid. */
static int child(void)
{
	pthread_t t[THREADS];
	const struct cua_group_slot *s;
	unsigned mine = 0, ready = 0;
	uint64_t used = 0;
	void *map;
	int fd;

	for (unsigned i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, charge_once, NULL) != 0)
			return 10;
	for (unsigned i = 0; i < THREADS; i++) {
		void *r;

		if (pthread_join(t[i], &r) != 0 || r != NULL)
			return 11;
	}
	if ((fd = open(path, O_RDONLY)) < 0)
		return 12;
	map = mmap(NULL, CUA_GROUP_FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 13;
	s = (const struct cua_group_slot *)((const char *)map + CUA_GROUP_HEAD_SIZE);
	for (unsigned i = 0; i < CUA_GROUP_SLOTS; i++) {
		uint64_t w = __atomic_load_n(&s[i].owner, __ATOMIC_SEQ_CST);

		if (!w || CUA_GROUP_PID(w) != (uint32_t)getpid())
			continue;
		mine++;
		ready += (w & CUA_GROUP_READY) != 0;
		used += s[i].used[0];
	}
	if (mine != 1)
		return 20 + (int)(mine > 9 ? 9 : mine);
	return ready == 1 && used == THREADS * MiB ? 0 : 30;
}

static void a_forked_childs_threads_take_one_slot_between_them(void **state)
{
	uint64_t quota[CUA_GROUP_DEVICES] = { 64 * MiB };
	char why[512];
	struct cua_buf w = CUA_BUF(why);
	unsigned bad = 0, first = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(cua_memgroup_path(path, sizeof(path), dir, (uint32_t)geteuid(), "u"), 0);
	assert_int_equal(cua_memgroup_attach(dir, "u", quota, &w), 0);
	for (unsigned k = 0; k < FORKS; k++) {
		pid_t pid = fork();
		int st = 0;

		assert_true(pid >= 0);
		if (pid == 0)
			_exit(child());
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFEXITED(st));
		if (WEXITSTATUS(st) != 0 && !bad++)
			first = (unsigned)WEXITSTATUS(st);
		/* The dead child's slots back, as the next charge that needs room would. */
		cua_memgroup_reclaim();
	}
	if (bad)
		print_error("%u of %u children failed, the first with %u (20 + N: N slots of its"
			    " pid; 30: not all its charge in its slot)\n", bad, FORKS, first);
	assert_int_equal(bad, 0);
	assert_int_equal(cua_memgroup_used(0, 1), 0);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_forked_childs_threads_take_one_slot_between_them),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
