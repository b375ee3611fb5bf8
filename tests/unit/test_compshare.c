/* SPDX-License-Identifier: MIT */
/* tests/unit/test_compshare.c: the compute share's rule (time-sliced time shared out, caps, weights), its turns, and CUAUDIT_COMPUTE_LIMIT's parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "compshare.h"
#include "compute_config.h"
#include "fmt.h"
#include "memgroup.h"

#define MS 1000000ull
/* Now: 5 ms into bucket 1000; the window is buckets 901 to 1000. */
#define NOW (1000 * CUA_CS_BUCKET_NS + 5 * MS)

static struct cua_cs_slot *slots;

static void slot(unsigned i, uint32_t pid, const char *group, uint32_t limit, uint64_t wants)
{
	slots[i].owner = pid | CUA_CS_READY;
	strcpy(slots[i].group, group);
	slots[i].limit[0] = limit;
	slots[i].wants[0] = wants;
}

static void busy(unsigned i, uint64_t bucket, uint64_t ns)
{
	slots[i].bucket[0][bucket % CUA_CS_BUCKETS] = bucket << CUA_CS_BUSY_BITS | ns;
}

static int setup(void **state)
{
	(void)state;
	slots = calloc(8, sizeof(*slots));
	return slots ? 0 : -1;
}

static void share_done(void);

static int teardown(void **state)
{
	(void)state;
	free(slots);
	share_done();
	return 0;
}

static unsigned groups(struct cua_cs_group *out)
{
	return cua_cs_groups(slots, 8, 0, NOW, out, CUA_CS_MAX_GROUPS);
}

static void a_crowded_bucket_is_shared_the_shorter_inside_the_longer(void **state)
{
	struct cua_cs_group out[CUA_CS_MAX_GROUPS];

	(void)state;
	memset(slots, 0, 8 * sizeof(*slots));
	slot(0, 100, "a", 30, NOW);
	slot(1, 200, "b", 70, NOW);
	/* Bucket 950: 10 ms and 5 ms (15 > 10): the 5 ms are shared by both, the other 5 are
	   a's. Bucket 960: 4 and 5 ms (9 <= 10): each its own. */
	busy(0, 950, 10 * MS);
	busy(1, 950, 5 * MS);
	busy(0, 960, 4 * MS);
	busy(1, 960, 5 * MS);
	/* Outside the window: not counted. */
	busy(0, 900, 10 * MS);
	assert_int_equal(groups(out), 2);
	assert_string_equal(out[0].name, "a");
	assert_int_equal(out[0].busy_ns, 14 * MS);
	assert_int_equal(out[0].charge_ns, 7500000 + 4 * MS);
	assert_int_equal(out[1].busy_ns, 10 * MS);
	assert_int_equal(out[1].charge_ns, 2500000 + 5 * MS);
	assert_int_equal(out[0].limit, 30);
	assert_true(out[0].active && out[1].active);
}

static void three_groups_busy_together_get_a_third_each(void **state)
{
	struct cua_cs_group out[CUA_CS_MAX_GROUPS];

	(void)state;
	memset(slots, 0, 8 * sizeof(*slots));
	for (unsigned i = 0; i < 3; i++) {
		slot(i, 100 + i, "", 50, NOW);
		busy(i, 999, 10 * MS);
	}
	/* Processes alone are their own groups, however many share the empty name. */
	assert_int_equal(groups(out), 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(out[i].charge_ns, 3333333);
		assert_int_equal(out[i].pid, 100 + i);
	}
}

static void a_groups_processes_add_up_to_one_bucket_at_most(void **state)
{
	struct cua_cs_group out[CUA_CS_MAX_GROUPS];

	(void)state;
	memset(slots, 0, 8 * sizeof(*slots));
	slot(0, 100, "g", 50, NOW);
	slot(1, 101, "g", 50, NOW);
	busy(0, 990, 6 * MS);
	busy(1, 990, 6 * MS);
	busy(1, 991, 3 * MS);
	assert_int_equal(groups(out), 1);
	assert_int_equal(out[0].processes, 2);
	assert_int_equal(out[0].charge_ns, 13 * MS);
}

static void a_cap_is_over_past_its_percent_of_the_window(void **state)
{
	struct cua_cs_group out[CUA_CS_MAX_GROUPS];

	(void)state;
	memset(out, 0, sizeof(out));
	out[0].limit = 30;
	out[0].charge_ns = CUA_CS_WINDOW_NS / 100 * 30;
	assert_false(cua_cs_over(out, 1, 0));
	out[0].charge_ns++;
	assert_true(cua_cs_over(out, 1, 0));
}

static void a_weight_yields_only_to_an_active_group_under_its_part(void **state)
{
	struct cua_cs_group out[CUA_CS_MAX_GROUPS];

	(void)state;
	memset(out, 0, sizeof(out));
	out[0].limit = 25 | CUA_CS_SHARE;
	out[1].limit = 75 | CUA_CS_SHARE;
	out[0].active = out[1].active = 1;
	out[0].charge_ns = CUA_CS_WINDOW_NS / 100 * 30;
	out[1].charge_ns = CUA_CS_WINDOW_NS / 100 * 60;
	assert_true(cua_cs_over(out, 2, 0));  /* a past 25%, b under its 75% */
	assert_false(cua_cs_over(out, 2, 1)); /* b under its part */
	out[1].charge_ns = CUA_CS_WINDOW_NS / 100 * 76;
	out[0].charge_ns = CUA_CS_WINDOW_NS / 100 * 24;
	assert_true(cua_cs_over(out, 2, 1));  /* b past 75%, a wants more than it has */
	out[0].charge_ns = CUA_CS_WINDOW_NS / 100 * 26;
	assert_false(cua_cs_over(out, 2, 1)); /* nobody is short: time nobody wants is anyone's */
	out[1].active = 0;                    /* alone: the whole GPU */
	out[0].charge_ns = CUA_CS_WINDOW_NS / 100 * 95;
	assert_false(cua_cs_over(out, 2, 0));
}

/* Caps that sum to 100 or more beside a weight: the weight's part is what the active caps
   leave unused (each cap's group counts for the lesser of its cap and its charge), so it
   still runs in the time they leave idle, and still yields while a capped group is short
   of its cap and the weight is past that part. */
static void a_weight_beside_full_caps_has_the_time_they_leave(void **state)
{
	struct cua_cs_group out[CUA_CS_MAX_GROUPS];

	(void)state;
	memset(out, 0, sizeof(out));
	out[0].limit = 60;
	out[1].limit = 50;
	out[2].limit = 10 | CUA_CS_SHARE;
	out[0].active = out[1].active = out[2].active = 1;
	out[0].charge_ns = CUA_CS_WINDOW_NS / 100 * 30;
	out[1].charge_ns = CUA_CS_WINDOW_NS / 100 * 20;
	out[2].charge_ns = CUA_CS_WINDOW_NS / 100 * 45;
	assert_false(cua_cs_over(out, 3, 2)); /* 45% of the 50% the caps leave */
	out[2].charge_ns = CUA_CS_WINDOW_NS / 100 * 51;
	assert_true(cua_cs_over(out, 3, 2));  /* past it, while a and b are under their caps */
	/* One cap of 100 that uses a fifth: the weight has the other four fifths. */
	memset(out, 0, sizeof(out));
	out[0].limit = 100;
	out[1].limit = 50 | CUA_CS_SHARE;
	out[0].active = out[1].active = 1;
	out[0].charge_ns = CUA_CS_WINDOW_NS / 100 * 20;
	out[1].charge_ns = CUA_CS_WINDOW_NS / 100 * 70;
	assert_false(cua_cs_over(out, 2, 1));
	out[1].charge_ns = CUA_CS_WINDOW_NS / 100 * 81;
	assert_true(cua_cs_over(out, 2, 1));
	/* The cap's group at its cap leaves nothing, but is short of nothing either: the weight
	   is not held (time nobody else may take is anyone's). */
	out[0].charge_ns = CUA_CS_WINDOW_NS;
	out[1].charge_ns = CUA_CS_WINDOW_NS / 100 * 5;
	assert_false(cua_cs_over(out, 2, 1));
}

static void a_quiet_slot_leaves_the_view(void **state)
{
	struct cua_cs_group out[CUA_CS_MAX_GROUPS];

	(void)state;
	memset(slots, 0, 8 * sizeof(*slots));
	slot(0, 100, "a", 30, NOW - CUA_CS_WINDOW_NS - 1); /* no busy, wanted long ago */
	slot(1, 200, "b", 30, NOW - CUA_CS_ACTIVE_NS - 1); /* listed, no longer active */
	busy(1, 995, MS);
	slots[2].owner = 300; /* not ready: never read */
	busy(2, 995, MS);
	assert_int_equal(groups(out), 1);
	assert_string_equal(out[0].name, "b");
	assert_false(out[0].active);
}

static void a_zero_head_is_refused(void **state)
{
	struct cua_cs_head h;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_non_null(cua_cs_check_head(&h, CUA_CS_FILE_SIZE, 0));
}

static void the_limit_parser_takes_caps_or_weights_never_both(void **state)
{
	struct cua_compute_config c;
	static const char *const bad[] = { "0", "101", "abc", "30:shar", "0:30,30:share", "16:30",
					   "30,40", "0:30,0:40", "", "30%%", "-5", "30 ", NULL };

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(cua_compute_config_parse("30", &c), 0);
	assert_int_equal(c.limit[0], 30);
	assert_int_equal(c.limit[15], 30);
	assert_int_equal(cua_compute_config_parse("0:30,1:50%", &c), 0);
	assert_int_equal(c.limit[0], 30);
	assert_int_equal(c.limit[1], 50);
	assert_int_equal(c.limit[2], 0);
	assert_int_equal(cua_compute_config_parse("10,3:100", &c), 0);
	assert_int_equal(c.limit[3], 100);
	assert_int_equal(c.limit[4], 10);
	assert_int_equal(cua_compute_config_parse("0:30:share,20:share", &c), 0);
	assert_int_equal(c.limit[0], 30 | CUA_CS_SHARE);
	assert_int_equal(c.limit[7], 20 | CUA_CS_SHARE);
	for (unsigned i = 0; bad[i]; i++)
		assert_int_not_equal(cua_compute_config_parse(bad[i], &c), 0);
}

/* Turns: this process attached once to a fresh file in a temporary directory (slot 0,
   group a, a 30% cap), the file mapped a second time (h) to play the other groups. Each
   turn test starts from a file where only slot 0 is taken and no turn was given. */
static char share_dir[] = "/tmp/unit_compshare.XXXXXX", share_path[256];
static struct cua_cs_head *h;

static struct cua_cs_slot *share_file(void)
{
	struct cua_cs_slot *sl;

	if (!h) {
		char whybuf[256];
		struct cua_buf why = CUA_BUF(whybuf);
		uint32_t limit[CUA_CS_DEVICES] = { 30 };
		int fd;

		assert_non_null(mkdtemp(share_dir));
		assert_int_equal(cua_cs_attach(share_dir, "a", limit, &why), 0);
		snprintf(share_path, sizeof(share_path), "%s/" CUA_CS_FILE_PREFIX "%u", share_dir,
			 (unsigned)geteuid());
		fd = open(share_path, O_RDWR);
		assert_true(fd >= 0);
		h = mmap(NULL, CUA_CS_FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		assert_true(h != MAP_FAILED);
	}
	sl = (struct cua_cs_slot *)((char *)h + CUA_CS_HEAD_SIZE);
	assert_int_equal(CUA_CS_PID(sl[0].owner), (uint32_t)getpid());
	memset(&sl[1], 0, 7 * sizeof(*sl));
	memset(sl[0].bucket, 0, sizeof(sl[0].bucket));
	sl[0].wants[0] = sl[0].idle[0] = sl[0].waiting[0] = sl[0].launched = 0;
	h->turn[0] = 0;
	h->hwm = 1;
	return sl;
}

static void share_done(void)
{
	if (!h)
		return;
	munmap(h, CUA_CS_FILE_SIZE);
	unlink(share_path);
	rmdir(share_dir);
}

static void turns_go_to_one_group_at_a_time_and_end_by_their_time(void **state)
{
	struct cua_cs_slot *sl, *me, *b;
	uint64_t now = NOW, until, end;

	(void)state;
	sl = share_file();
	me = &sl[0];
	b = &sl[1];

	/* Alone: a go, and no turn taken. */
	me->wants[0] = now;
	assert_int_equal(cua_cs_judge(0, now, 0, &until), CUA_CS_GO);
	assert_int_equal(h->turn[0], 0);
	assert_int_equal(until, now + CUA_CS_TURN_MIN_NS);
	assert_true(me->idle[0] == now && me->launched > now);

	/* Group b (70%) wants the device: a takes a turn of 40 ms x 30% = 12 ms. */
	b->owner = 1u | CUA_CS_READY;
	strcpy(b->group, "b");
	b->limit[0] = 70;
	b->wants[0] = now;
	h->hwm = 2;
	assert_int_equal(cua_cs_judge(0, now, 0, &until), CUA_CS_GO);
	assert_int_equal(CUA_CS_TURN_SLOT(h->turn[0]), 1);
	end = CUA_CS_TURN_END(h->turn[0]);
	assert_true(end >= now + 12 * MS && end < now + 12 * MS + 1024);
	assert_int_equal(until, now + 12 * MS);
	/* Within it, a goes on until its end, even with b waiting. */
	b->waiting[0] = now + 5 * MS;
	assert_int_equal(cua_cs_judge(0, now + 5 * MS, 1, &until), CUA_CS_GO);
	assert_int_equal(until, end);

	/* Its turn is up and b waits: a yields, and says it waits too. */
	now = end + MS;
	b->waiting[0] = now;
	b->wants[0] = now;
	assert_int_equal(cua_cs_judge(0, now, 0, &until), CUA_CS_WAIT);
	assert_int_equal(me->waiting[0], now);
	assert_int_equal(CUA_CS_TURN_SLOT(h->turn[0]), 1);

	/* b's turn (slot 2 in the word) until now + 20 ms: a waits for its end. */
	h->turn[0] = (((now + 20 * MS) >> 10) << 12) | 2;
	b->launched = now + 1;
	b->idle[0] = now;
	assert_int_equal(cua_cs_judge(0, now + MS, 0, &until), CUA_CS_WAIT);
	assert_int_equal(until, CUA_CS_TURN_END(h->turn[0]));
	/* Up, but b's work is not seen finished: a waits (looking again in 250 us)... */
	now = CUA_CS_TURN_END(h->turn[0]) + MS;
	b->waiting[0] = 0;
	b->wants[0] = now;
	assert_int_equal(cua_cs_judge(0, now, 0, &until), CUA_CS_WAIT);
	assert_int_equal(until, now + CUA_CS_TURN_MIN_NS / 16);
	/* ...until b has looked since its last go and found nothing unfinished. */
	b->idle[0] = b->launched;
	assert_int_equal(cua_cs_judge(0, now, 0, &until), CUA_CS_GO);
	assert_int_equal(CUA_CS_TURN_SLOT(h->turn[0]), 1);
	assert_int_equal(me->waiting[0], 0);

	/* b never says its work is done (killed with work queued): 50 ms after its turn's
	   end a goes anyway. */
	now = CUA_CS_TURN_END(h->turn[0]) + 100 * MS;
	h->turn[0] = (((now - 10 * MS) >> 10) << 12) | 2;
	b->launched = now;
	b->idle[0] = 0;
	b->wants[0] = now;
	assert_int_equal(cua_cs_judge(0, now, 0, &until), CUA_CS_WAIT);
	assert_int_equal(cua_cs_judge(0, now + 41 * MS, 0, &until), CUA_CS_GO);
	assert_int_equal(CUA_CS_TURN_SLOT(h->turn[0]), 1);

	/* Over its cap (charged 40% of the window): a ends its turn now and waits for none. */
	now += 41 * MS;
	for (uint64_t k = 0; k < 40; k++) {
		uint64_t n = now / CUA_CS_BUCKET_NS - k;

		me->bucket[0][n % CUA_CS_BUCKETS] = n << CUA_CS_BUSY_BITS | CUA_CS_BUCKET_NS;
	}
	me->waiting[0] = now;
	b->wants[0] = now;
	assert_int_equal(cua_cs_judge(0, now + MS, 0, &until), CUA_CS_OVER);
	assert_true(CUA_CS_TURN_END(h->turn[0]) <= now + MS + 1024);
	assert_int_equal(me->waiting[0], 0);
}

/* A file keeps what was written to it by a clock that is not this boot's (a share
   directory on a disk kept across a reboot: times of the last boot, later than any now of
   this one) or garbage. A time that far ahead is no one's: a turn word ending a day from now
   is no turn, and a slot that wanted the device and waited "tomorrow" neither wants nor
   waits. Before, the group waited for that turn, and a group alone beside such a slot took
   turns and yielded them to it at every launch, each call held 1 s. */
#define DAY (86400ull * 1000 * MS)

static void a_turn_ending_past_any_live_clock_is_no_turn(void **state)
{
	static const uint32_t holders[] = { 2, 0xfff, 1 }; /* b's slot, none there, a's own */
	struct cua_cs_slot *sl;
	uint64_t until;

	(void)state;
	for (unsigned k = 0; k < sizeof(holders) / sizeof(holders[0]); k++) {
		uint64_t now = NOW + k * CUA_CS_WINDOW_NS;

		sl = share_file();
		sl[0].wants[0] = now;
		sl[1].owner = 1u | CUA_CS_READY;
		strcpy(sl[1].group, "b");
		sl[1].limit[0] = 70;
		sl[1].wants[0] = sl[1].waiting[0] = now;
		sl[1].idle[0] = sl[1].launched = now;
		h->hwm = 2;
		h->turn[0] = ((now + DAY) >> 10) << 12 | holders[k];
		/* a takes a turn of its own length, as from no turn at all. */
		assert_int_equal(cua_cs_judge(0, now, 0, &until), CUA_CS_GO);
		assert_int_equal(CUA_CS_TURN_SLOT(h->turn[0]), 1);
		assert_true(until <= now + CUA_CS_TURN_NS);
		assert_true(CUA_CS_TURN_END(h->turn[0]) <= now + CUA_CS_TURN_NS + 1024);
	}
}

static void a_slot_with_another_boots_times_neither_wants_nor_waits(void **state)
{
	struct cua_cs_group out[CUA_CS_MAX_GROUPS];
	struct cua_cs_slot *sl = share_file();
	uint64_t until;

	(void)state;
	/* An old process's slot (its pid long gone), its times a day ahead of this clock. */
	sl[1].owner = 1u | CUA_CS_READY;
	strcpy(sl[1].group, "old");
	sl[1].limit[0] = 50;
	sl[1].wants[0] = sl[1].waiting[0] = sl[1].launched = NOW + DAY;
	h->hwm = 2;
	sl[0].wants[0] = NOW;
	assert_int_equal(cua_cs_groups(sl, 2, 0, NOW, out, CUA_CS_MAX_GROUPS), 1);
	assert_string_equal(out[0].name, "a");
	/* a alone for 300 ms of launches: always a go, never a turn. */
	for (uint64_t t = NOW; t < NOW + 300 * MS; t += 2 * MS) {
		cua_cs_want(0, t, 0);
		assert_int_equal(cua_cs_judge(0, t, 0, &until), CUA_CS_GO);
		assert_int_equal(until, t + CUA_CS_TURN_MIN_NS);
	}
	assert_int_equal(h->turn[0], 0);
}

static void a_drain_waits_for_no_slot_with_another_boots_times(void **state)
{
	struct cua_cs_slot *sl = share_file();
	uint64_t now = NOW, until;

	(void)state;
	/* b's turn is up, its live process (slot 1) seen idle since its last go, and b waits
	   for nothing; slot 2, of group b too, is an old process's, its times a day ahead. */
	for (unsigned i = 1; i < 3; i++) {
		sl[i].owner = (i == 1 ? 1u : 2u) | CUA_CS_READY;
		strcpy(sl[i].group, "b");
		sl[i].limit[0] = 70;
	}
	sl[1].wants[0] = sl[1].idle[0] = sl[1].launched = now - MS;
	sl[2].wants[0] = sl[2].launched = now + DAY;
	h->hwm = 3;
	h->turn[0] = ((now - MS) >> 10) << 12 | 2;
	sl[0].wants[0] = now;
	/* a takes its turn at once, not 50 ms after b's end. */
	assert_int_equal(cua_cs_judge(0, now, 0, &until), CUA_CS_GO);
	assert_int_equal(CUA_CS_TURN_SLOT(h->turn[0]), 1);
}

/* exec keeps the pid and its start time but replaces the image, whose slot no one else
   takes back (its process lives on). A process that execs under a compute limit again and
   again must not fill the file with its own past images' slots: here a child's earlier
   images hold all other 255 slots (and its parent the first); its attach takes them back
   and gets a slot. Before, it failed: "every one of its 256 process slots taken". */
static void an_exec_takes_back_the_slots_of_the_process_s_past_images(void **state)
{
	char dir[] = "/tmp/unit_compshare_exec.XXXXXX", path[256], whybuf[256];
	struct cua_buf why = CUA_BUF(whybuf);
	uint32_t limit[CUA_CS_DEVICES] = { 30 };
	int status;
	pid_t pid;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/" CUA_CS_FILE_PREFIX "%u", dir, (unsigned)geteuid());
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct cua_cs_head *fh;
		struct cua_cs_slot *sl;
		uint64_t start = 0;
		int fd;

		/* The child: slot 0 of a new file (its parent's share is elsewhere). */
		if (cua_cs_attach(dir, "g", limit, &why) != 0)
			_exit(2);
		pid = fork();
		if (pid < 0)
			_exit(3);
		if (pid > 0) {
			waitpid(pid, &status, 0);
			_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 4);
		}
		/* The grandchild: its past images' slots (its pid, start and namespace) in all
		   the others, then its own attach, as after an exec. */
		fd = open(path, O_RDWR);
		fh = fd >= 0 ? mmap(NULL, CUA_CS_FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
			     : MAP_FAILED;
		if (fh == MAP_FAILED || cua_memgroup_proc_start((uint32_t)getpid(), &start) != 1)
			_exit(5);
		sl = (struct cua_cs_slot *)((char *)fh + CUA_CS_HEAD_SIZE);
		for (unsigned i = 1; i < CUA_CS_SLOTS; i++) {
			sl[i].owner = (uint32_t)getpid() | (uint64_t)(1000 + i) << 32 | CUA_CS_READY;
			sl[i].start_ticks = start;
			sl[i].pidns = cua_memgroup_pidns();
			strcpy(sl[i].group, "g");
		}
		fh->hwm = CUA_CS_SLOTS;
		if (cua_cs_attach(dir, "g", limit, &why) != 0)
			_exit(6);
		/* Its own past was taken back; its parent's slot was not. */
		_exit(CUA_CS_PID(sl[0].owner) == (uint32_t)getppid() ? 0 : 7);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	unlink(path);
	rmdir(dir);
}

/* A launch after a published idle marks launched past it (so a drain waits for its work),
   and never lowers a later launched another thread's go stored. */
static void a_launch_after_a_published_idle_is_not_taken_as_finished(void **state)
{
	struct cua_cs_slot *me;
	uint64_t now = NOW;

	(void)state;
	me = &share_file()[0];
	me->launched = now + 1;
	cua_cs_idle(0, now + 5 * MS);
	assert_true(me->idle[0] >= me->launched);
	cua_cs_launching(now + 6 * MS);
	assert_int_equal(me->launched, now + 6 * MS + 1);
	assert_true(me->idle[0] < me->launched);
	cua_cs_launching(now + 2 * MS);
	assert_int_equal(me->launched, now + 6 * MS + 1);
}

/* The clock the drain question reads, and how often it was read. */
static uint64_t fake_now;
static unsigned clock_reads;

static uint64_t fake_clock(void)
{
	clock_reads++;
	return fake_now;
}

static int watched_at(uint64_t now)
{
	uint64_t t = 0;

	fake_now = now;
	return cua_cs_drain_watched(fake_clock, &t);
}

/* A synchronise publishes idle only while another group may wait for it: a turn on a device
   of its limit, running or ended within the drain's bound. No turn ever: no clock read. A
   word of no slot, or ending past any turn's length ahead: no turn. */
static void a_drain_is_watched_only_within_a_turn_and_its_bound(void **state)
{
	uint64_t now = NOW, end = ((now + 20 * MS + 1023) >> 10) << 10;

	(void)state;
	share_file();
	clock_reads = 0;
	assert_false(watched_at(now));
	assert_int_equal(clock_reads, 0);
	h->turn[0] = (end >> 10) << 12 | 2;
	assert_true(watched_at(now));
	assert_int_equal(clock_reads, 1);
	assert_true(watched_at(end + CUA_CS_DRAIN_MAX_NS - 1));
	assert_false(watched_at(end + CUA_CS_DRAIN_MAX_NS));
	assert_false(watched_at(end - CUA_CS_AHEAD_NS - 1));
	h->turn[0] = (end >> 10) << 12;
	assert_false(watched_at(now));
	h->turn[0] = (end >> 10) << 12 | (CUA_CS_SLOTS + 1);
	assert_false(watched_at(now));
	/* A device without a limit of this process's (the unit's limit is on device 0 only). */
	h->turn[0] = 0;
	h->turn[1] = (end >> 10) << 12 | 2;
	clock_reads = 0;
	assert_false(watched_at(now));
	assert_int_equal(clock_reads, 0);
	h->turn[1] = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_crowded_bucket_is_shared_the_shorter_inside_the_longer),
		cmocka_unit_test(three_groups_busy_together_get_a_third_each),
		cmocka_unit_test(a_groups_processes_add_up_to_one_bucket_at_most),
		cmocka_unit_test(a_cap_is_over_past_its_percent_of_the_window),
		cmocka_unit_test(a_weight_yields_only_to_an_active_group_under_its_part),
		cmocka_unit_test(a_weight_beside_full_caps_has_the_time_they_leave),
		cmocka_unit_test(a_quiet_slot_leaves_the_view),
		cmocka_unit_test(a_zero_head_is_refused),
		cmocka_unit_test(the_limit_parser_takes_caps_or_weights_never_both),
		cmocka_unit_test(turns_go_to_one_group_at_a_time_and_end_by_their_time),
		cmocka_unit_test(a_turn_ending_past_any_live_clock_is_no_turn),
		cmocka_unit_test(a_slot_with_another_boots_times_neither_wants_nor_waits),
		cmocka_unit_test(a_drain_waits_for_no_slot_with_another_boots_times),
		cmocka_unit_test(an_exec_takes_back_the_slots_of_the_process_s_past_images),
		cmocka_unit_test(a_launch_after_a_published_idle_is_not_taken_as_finished),
		cmocka_unit_test(a_drain_is_watched_only_within_a_turn_and_its_bound),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
