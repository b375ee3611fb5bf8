/* SPDX-License-Identifier: MIT */
/* tests/unit/test_live.c: the live view's variables, its region layout and the start-time parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <cmocka.h>
#include "config.h"
#include "livefmt.h"

static const char *const *fake_env;
static int diags;

static const char *get(const char *name)
{
	for (const char *const *e = fake_env; e && *e; e += 2)
		if (strcmp(e[0], name) == 0)
			return e[1];
	return NULL;
}

static void diag(const char *msg)
{
	(void)msg;
	diags++;
}

static void load(const char *const *env, struct cua_config *cfg, int secure)
{
	fake_env = env;
	diags = 0;
	cua_config_load(cfg, get, diag, secure);
	cua_config_restrict_secure(cfg);
}

static void live_variables_parse_round_and_fall_back(void **state)
{
	static const char *const on[] = { "CUAUDIT_LIVE", "on", "CUAUDIT_LIVE_CALLS", "100",
					  "CUAUDIT_LIVE_DIR", "/run/x", NULL };
	static const char *const bad[] = { "CUAUDIT_LIVE", "sometimes", "CUAUDIT_LIVE_CALLS", "0",
					   "CUAUDIT_LIVE_DIR", "rel", NULL };
	static const char *const ctl[] = { "CUAUDIT_CAPTURE", "ctl", NULL };
	struct cua_config cfg;

	(void)state;
	load(on, &cfg, 0);
	assert_int_equal(diags, 0);
	assert_int_equal(cfg.live.on, 1);
	assert_int_equal(cfg.live.calls, 128); /* rounded up to a power of two */
	assert_string_equal(cfg.live.dir, "/run/x");
	load(bad, &cfg, 0);
	assert_int_equal(diags, 3);
	assert_int_equal(cfg.live.on, 0);
	assert_int_equal(cfg.live.calls, CUA_LIVE_CALLS_DEFAULT);
	assert_string_equal(cfg.live.dir, "");
	{
		/* Fewer than the least the ring holds: the calls in flight take records too. */
		static const char *const few[] = { "CUAUDIT_LIVE", "1", "CUAUDIT_LIVE_CALLS", "1", NULL };

		load(few, &cfg, 0);
		assert_int_equal(diags, 0);
		assert_int_equal(cfg.live.calls, CUA_LIVE_CALLS_MIN);
	}
	/* The ctl channel is the region. */
	load(ctl, &cfg, 0);
	assert_int_equal(cfg.capture, CUA_CAPTURE_CTL);
	assert_int_equal(cfg.live.on, 1);
	/* Secure mode: no region file. */
	load(on, &cfg, 1);
	assert_int_equal(cfg.live.on, 0);
}

static void region_layout_is_aligned_and_bounded(void **state)
{
	uint64_t size = cua_live_slot_size(CUA_LIVE_CALLS_MAX, CUAUDIT_ID_COUNT);
	static _Alignas(64) unsigned char slot[1 << 20];
	struct cua_live_slot *s = (struct cua_live_slot *)slot;

	(void)state;
	assert_true(sizeof(struct cua_live_head) <= CUA_LIVE_HEAD_SIZE);
	assert_int_equal(cua_live_slot_size(64, CUAUDIT_ID_COUNT) % 64, 0);
	/* The largest region a process can make stays under the reader's bound (256 MiB). */
	assert_true(CUA_LIVE_HEAD_SIZE + CUA_LIVE_SLOTS * size +
		    CUA_LIVE_NAMES * sizeof(struct cua_live_name) < (256ull << 20));
	/* The time sums sit between the call counts and the error counts. */
	assert_ptr_equal(cua_live_times(s, 64, CUAUDIT_ID_COUNT), cua_live_calls(s, 64) + CUAUDIT_ID_COUNT);
	assert_true((unsigned char *)cua_live_errors(s, 64, CUAUDIT_ID_COUNT) +
			    CUAUDIT_ID_COUNT * sizeof(uint32_t) <=
		    slot + cua_live_slot_size(64, CUAUDIT_ID_COUNT));
	assert_int_equal(offsetof(struct cua_live_call, args) % 8, 0);
	assert_int_equal(sizeof(struct cua_live_call) % 8, 0);
}

/* The command name may hold spaces and parentheses: field 22 counts from the last ')'. */
static void start_time_is_read_past_a_hostile_command_name(void **state)
{
	char buf[1024], *p;
	unsigned long long want = 0;
	FILE *f;

	(void)state;
	prctl(PR_SET_NAME, "a) 1 2 (b) 3", 0, 0, 0);
	f = fopen("/proc/self/stat", "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	p = strrchr(buf, ')');
	assert_non_null(p);
	for (int field = 2; field < 22; field++)
		p = strchr(p + 1, ' ');
	assert_int_equal(sscanf(p + 1, "%llu", &want), 1);
	assert_true(want != 0);
	assert_true(cua_live_start_ticks(0) == want);
	assert_true(cua_live_start_ticks(0) == cua_live_start_ticks((uint64_t)getpid()));
	assert_true(cua_live_start_ticks(999999999) == 0);
}

static void file_name_carries_pid_and_start_time(void **state)
{
	char name[64];

	(void)state;
	assert_int_equal(cua_live_file_name(name, sizeof(name), 4242, 1234567), 17);
	assert_string_equal(name, "4242-1234567.live");
}

/* GPU timing's time is read only on the record of the call it measured: a record taken
   again keeps the word, whose check then names another call; a late writer whose call's
   record was taken again writes nothing; a time too long for the word is attached nowhere. */
static void gpu_time_is_read_only_on_the_call_it_measured(void **state)
{
	struct cua_live_call r;
	uint64_t ns = 0;
	uint32_t a = cua_live_seq(5, CUA_LIVE_ENDED);

	(void)state;
	memset(&r, 0, sizeof(r));
	r.h.seq = a;
	assert_int_equal(cua_live_gpu_of(&r, &ns), 0);
	cua_live_put_gpu(&r, a, 1234, 1);
	assert_int_equal(cua_live_gpu_of(&r, &ns), 1);
	assert_true(ns == 1234);
	cua_live_put_gpu(&r, a, 999, 0);
	assert_int_equal(cua_live_gpu_of(&r, &ns), 2);
	assert_true(ns == 999);
	/* The same record, any later call of a ring of 64 in the next 4 million: no time. */
	for (uint64_t k = 1; k < 65536; k++) {
		r.h.seq = cua_live_seq(5 + 64 * k, CUA_LIVE_ENDED);
		assert_int_equal(cua_live_gpu_of(&r, &ns), 0);
	}
	/* In flight again: the late writer leaves it alone. */
	r.h.seq = cua_live_seq(5 + 64, CUA_LIVE_IN_FLIGHT);
	cua_live_put_gpu(&r, a, 777, 1);
	r.h.seq = a;
	assert_int_equal(cua_live_gpu_of(&r, &ns), 2);
	assert_true(ns == 999);
	cua_live_put_gpu(&r, a, CUA_LIVE_GPU_NS_MAX + 1, 1);
	assert_true(cua_live_gpu_of(&r, &ns) == 2 && ns == 999);
	cua_live_put_gpu(&r, a, CUA_LIVE_GPU_NS_MAX, 1);
	assert_true(cua_live_gpu_of(&r, &ns) == 1 && ns == CUA_LIVE_GPU_NS_MAX);
}

/* A record keeps its GPU word when a later call takes it; that call must not show the older
   call's time, whatever its number. With a ring of 64 the check of the record's number is
   the same again 9121617 rounds later (583783488 calls: minutes of a thread polling a
   stream), and the 32-bit number itself comes round after 2^30 calls. Before: a call there
   that GPU timing never timed (a query) showed the launch's time of long ago. */
static void gpu_time_of_a_call_is_never_shown_on_a_later_call_of_its_record(void **state)
{
	static _Alignas(64) unsigned char
		mem[sizeof(struct cua_live_slot) + 64 * sizeof(struct cua_live_call)];
	static const uint64_t later[] = { 64ull * 9121617, 1ull << 30 };
	struct cua_live_slot *s = (struct cua_live_slot *)mem;
	struct cua_live_took took = { 0 };
	struct cua_live_call e;
	uint64_t ns = 0, pid = 4242;

	(void)state;
	cua_live_calls_mask = 63;
	cua_live_me.slot = s;
	cua_live_me.pid = pid;
	cua_live_me.tid = 7;
	for (unsigned i = 0; i < sizeof(later) / sizeof(later[0]); i++) {
		memset(mem, 0, sizeof(mem));
		s->done = 5;
		cua_live_begin(1, 0, 0, NULL, 0, pid, &took);
		assert_true(took.rec == cua_live_record(s, 5));
		__atomic_store_n(&took.rec->h.seq, took.seq + 2, __ATOMIC_RELEASE);
		cua_live_put_gpu(took.rec, took.seq + 2, 1234, 1);
		memcpy(&e, took.rec, sizeof(e));
		assert_int_equal(cua_live_gpu_of(&e, &ns), 1);
		/* The ring has gone round: call 5 + later[i] takes the same record, and ends. */
		s->done = 5 + later[i];
		cua_live_begin(2, 0, 0, NULL, 0, pid, &took);
		assert_true(took.rec == cua_live_record(s, 5));
		__atomic_store_n(&took.rec->h.seq, took.seq + 2, __ATOMIC_RELEASE);
		memcpy(&e, took.rec, sizeof(e));
		assert_int_equal(cua_live_gpu_of(&e, &ns), 0);
	}
}

/* A head's clock as a reader's successive copies of it find it (the writer moving on
   between them). */
struct script {
	const struct cua_live_clock *copies;
	unsigned n, at;
};

static int scripted(void *ctx, struct cua_live_clock *c)
{
	struct script *s = ctx;

	*c = s->copies[s->at < s->n ? s->at : s->n - 1];
	s->at++;
	return 0;
}

static void clock_reader_never_takes_a_definition_caught_in_an_update(void **state)
{
	/* Two definitions: the offset clock, then the TSC's; and halves of the two (the
	   TSC's flag and base with the old scale), as a copy made while the writer wrote. */
	const struct cua_live_clock mono = { .tsc = 0, .seq = 2, .offset_ns = 20000000000ull };
	const struct cua_live_clock tsc = { .tsc = 1, .seq = 4, .tsc_base = 1000, .ns_base = 5,
					    .mult = 3ull << 31 };
	struct cua_live_clock torn = tsc, odd = mono, out;
	struct script s;

	(void)state;
	torn.seq = 3;
	torn.mult = 0;
	odd.seq = 3;
	/* Being written at every look (or its writer killed in an update): none taken. */
	{
		const struct cua_live_clock c[] = { odd };

		s = (struct script){ c, 1, 0 };
		memset(&out, 0x5a, sizeof(out));
		assert_int_equal(cua_live_clock_take(scripted, &s, CUA_LIVE_CLOCK_TRIES, &out), 0);
		assert_int_equal(s.at, 1 + 2 * CUA_LIVE_CLOCK_TRIES);
	}
	/* The torn copy lies between two even reads that differ: it is read again, and the
	   whole new definition taken. */
	{
		const struct cua_live_clock c[] = { mono, torn, tsc, tsc, tsc };

		s = (struct script){ c, 5, 0 };
		assert_int_equal(cua_live_clock_take(scripted, &s, CUA_LIVE_CLOCK_TRIES, &out), 1);
		assert_memory_equal(&out, &tsc, sizeof(out));
	}
	/* A whole definition read between even reads that differ (an update ran around it):
	   not taken either, though it looks whole; the next look's is. */
	{
		const struct cua_live_clock c[] = { mono, mono, tsc, tsc, tsc };

		s = (struct script){ c, 5, 0 };
		assert_int_equal(cua_live_clock_take(scripted, &s, CUA_LIVE_CLOCK_TRIES, &out), 1);
		assert_memory_equal(&out, &tsc, sizeof(out));
		assert_int_equal(s.at, 5);
	}
	/* A writer that keeps updating past the tries: none taken. */
	{
		struct cua_live_clock c[1 + 2 * CUA_LIVE_CLOCK_TRIES];

		for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			c[i] = mono;
			c[i].seq = 2 + 2 * i;
		}
		s = (struct script){ c, sizeof(c) / sizeof(c[0]), 0 };
		assert_int_equal(cua_live_clock_take(scripted, &s, CUA_LIVE_CLOCK_TRIES, &out), 0);
	}
	/* An older writer's file: seq 0 at every look (its padding word), read as it lies. */
	{
		struct cua_live_clock old = mono;
		const struct cua_live_clock *c = &old;

		old.seq = 0;
		s = (struct script){ c, 1, 0 };
		assert_int_equal(cua_live_clock_take(scripted, &s, CUA_LIVE_CLOCK_TRIES, &out), 1);
		assert_memory_equal(&out, &old, sizeof(out));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(live_variables_parse_round_and_fall_back),
		cmocka_unit_test(region_layout_is_aligned_and_bounded),
		cmocka_unit_test(start_time_is_read_past_a_hostile_command_name),
		cmocka_unit_test(file_name_carries_pid_and_start_time),
		cmocka_unit_test(gpu_time_is_read_only_on_the_call_it_measured),
		cmocka_unit_test(gpu_time_of_a_call_is_never_shown_on_a_later_call_of_its_record),
		cmocka_unit_test(clock_reader_never_takes_a_definition_caught_in_an_update),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
