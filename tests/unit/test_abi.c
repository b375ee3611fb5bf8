/* SPDX-License-Identifier: MIT */
/* tests/unit/test_abi.c: the public ABI's sized structs: CUAUDIT_OPTS zeroes padding, and dispatch's plan follows what subscriptions cover and whether they ask for times. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "dispatch.h"
#include "cuaudit_roles.h"

/* Leaves a pattern in the stack below the caller, where the next call's locals will lie. */
static __attribute__((noinline)) void dirty_stack(void)
{
	volatile unsigned char junk[4096];

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = 0xa5;
}

static void exit_cb(const struct cuaudit_call *c, void *ctx)
{
	(void)c, (void)ctx;
}

static __attribute__((noinline)) int trailing_bytes_nonzero(void)
{
	/* Every field given: a plain initializer then leaves the padding as the stack had it
	   (seen with GCC 12 and the 1.0 macro); CUAUDIT_OPTS must zero it anyway. */
	CUAUDIT_OPTS(cuaudit_subscription, sub, .enter = NULL, .exit = exit_cb, .ctx = NULL,
		     .layers = CUAUDIT_LAYERS_ALL, .ids = NULL, .nids = 0, .elf_names = NULL,
		     .nnames = 0, .flags = 0);
	const unsigned char *p = (const unsigned char *)&sub;
	size_t end = offsetof(struct cuaudit_subscription, flags) + sizeof(sub.flags);
	int bad = 0;

	for (size_t i = end; i < sizeof(sub); i++)
		bad |= p[i];
	return bad || sub.size != sizeof(sub) || sub.flags != 0;
}

static void opts_zero_the_padding_past_the_last_field(void **state)
{
	(void)state;
	/* flags is an unsigned after a size_t: the struct ends in padding on LP64. */
	assert_true(sizeof(struct cuaudit_subscription) >
		    offsetof(struct cuaudit_subscription, flags) + sizeof(unsigned));
	dirty_stack();
	assert_int_equal(trailing_bytes_nonzero(), 0);
}

/* The plan's hooked and timed bits; the lone-subscription bits are checked apart. */
#define PLAN(id) (cua_plan[id] & (CUA_PLAN_HOOKED | CUA_PLAN_TIMED))
#define LONE(id) (cua_plan[id] & CUA_PLAN_ONE ? (int)(cua_plan[id] >> CUA_PLAN_SUB_SHIFT) : -1)

/* A function exactly one subscription covers is dispatched to it directly: the
   plan names that subscription; a second one on the same function takes the mark away. */
static void plan_names_the_lone_subscription_of_a_function(void **state)
{
	static const char *const both[] = { "cuMemAlloc_v2", "cuCtxGetCurrent" };
	static const char *const one[] = { "cuCtxGetCurrent" };
	CUAUDIT_OPTS(cuaudit_subscription, first, .exit = exit_cb, .elf_names = both, .nnames = 2);
	CUAUDIT_OPTS(cuaudit_subscription, second, .exit = exit_cb, .elf_names = one, .nnames = 1);
	CUAUDIT_OPTS(cuaudit_subscription, third, .exit = exit_cb, .elf_names = one, .nnames = 1);

	(void)state;
	assert_int_equal(cua_dispatch_count(), 0);
	assert_int_equal(cua_dispatch_subscribe(&first), 0);
	assert_int_equal(LONE(CUAUDIT_ID_cuMemAlloc_v2), 0);
	assert_int_equal(LONE(CUAUDIT_ID_cuCtxGetCurrent), 0);
	assert_int_equal(LONE(CUAUDIT_ID_cuInit), -1);
	assert_int_equal(cua_dispatch_subscribe(&second), 0);
	assert_int_equal(LONE(CUAUDIT_ID_cuMemAlloc_v2), 0);
	assert_int_equal(LONE(CUAUDIT_ID_cuCtxGetCurrent), -1);
	assert_int_equal(PLAN(CUAUDIT_ID_cuCtxGetCurrent), CUA_PLAN_HOOKED);
	/* Dropping the second gives the first its function back. */
	cua_dispatch_truncate(1);
	assert_int_equal(LONE(CUAUDIT_ID_cuCtxGetCurrent), 0);
	/* Order does not matter: two on one function, whichever came first. */
	cua_dispatch_truncate(0);
	assert_int_equal(cua_dispatch_subscribe(&second), 0);
	assert_int_equal(cua_dispatch_subscribe(&first), 0);
	cua_dispatch_truncate(1);
	assert_int_equal(cua_dispatch_subscribe(&third), 0);
	assert_int_equal(LONE(CUAUDIT_ID_cuCtxGetCurrent), -1);
	cua_dispatch_truncate(0);
	{
		/* An index past the first: the second subscription alone on its function. */
		static const char *const other[] = { "cuMemAlloc_v2" };
		CUAUDIT_OPTS(cuaudit_subscription, a, .exit = exit_cb, .elf_names = one, .nnames = 1);
		CUAUDIT_OPTS(cuaudit_subscription, b, .exit = exit_cb, .elf_names = other,
			     .nnames = 1);

		assert_int_equal(cua_dispatch_subscribe(&a), 0);
		assert_int_equal(cua_dispatch_subscribe(&b), 0);
		assert_int_equal(LONE(CUAUDIT_ID_cuMemAlloc_v2), 1);
		assert_int_equal(LONE(CUAUDIT_ID_cuCtxGetCurrent), 0);
	}
	cua_dispatch_truncate(0);
	assert_int_equal(cua_plan[CUAUDIT_ID_cuMemAlloc_v2], 0);
}

/* A lean built-in subscription (the summary) gets a record without the fields it never reads,
   where it is alone on a function that is not a launch (naming a kernel reads them). */
static void plan_marks_a_lone_lean_subscription_except_on_launches(void **state)
{
	static const char *const names[] = { "cuCtxGetCurrent", "cuLaunchKernel" };
	CUAUDIT_OPTS(cuaudit_subscription, lean, .exit = exit_cb, .elf_names = names, .nnames = 2);
	CUAUDIT_OPTS(cuaudit_subscription, plugin, .exit = exit_cb, .elf_names = names,
		     .nnames = 1);

	(void)state;
	assert_int_equal(cua_dispatch_subscribe(&lean), 0);
	assert_int_equal(cua_plan[CUAUDIT_ID_cuCtxGetCurrent] & CUA_PLAN_LEAN, 0);
	cua_dispatch_lean();
	assert_int_equal(cua_plan[CUAUDIT_ID_cuCtxGetCurrent] & CUA_PLAN_LEAN, CUA_PLAN_LEAN);
	assert_int_equal(cua_plan[CUAUDIT_ID_cuLaunchKernel] & CUA_PLAN_LEAN, 0);
	assert_int_equal(LONE(CUAUDIT_ID_cuLaunchKernel), 0);
	/* A plugin on the same function: the whole record again. */
	assert_int_equal(cua_dispatch_subscribe(&plugin), 0);
	assert_int_equal(cua_plan[CUAUDIT_ID_cuCtxGetCurrent] & CUA_PLAN_LEAN, 0);
	cua_dispatch_truncate(0);
}

static void count_cb(unsigned id, unsigned depth, unsigned binding, uint64_t ns, uint64_t t_exit,
		     uint64_t result)
{
	(void)id, (void)depth, (void)binding, (void)ns, (void)t_exit, (void)result;
}

/* The counter path (the exact summary) is taken only where a lean, timed built-in
   subscription with a counter form is alone on a function that is not a launch; a second
   subscription on the function, or none with a counter form, takes it away. */
static void plan_gives_the_counter_only_to_a_lone_lean_subscription(void **state)
{
	static const char *const names[] = { "cuCtxGetCurrent", "cuLaunchKernel" };
	CUAUDIT_OPTS(cuaudit_subscription, timed, .exit = exit_cb, .elf_names = names, .nnames = 2,
		     .flags = CUAUDIT_SUB_TIMES);
	CUAUDIT_OPTS(cuaudit_subscription, untimed, .exit = exit_cb, .elf_names = names,
		     .nnames = 2);
	CUAUDIT_OPTS(cuaudit_subscription, plugin, .exit = exit_cb, .elf_names = names,
		     .nnames = 1);

	(void)state;
	assert_int_equal(cua_dispatch_subscribe(&timed), 0);
	/* Not lean yet: a plugin may read the whole record. */
	cua_dispatch_counter(count_cb);
	assert_int_equal(cua_plan[CUAUDIT_ID_cuCtxGetCurrent] & CUA_PLAN_COUNT, 0);
	assert_null(cua_counter);
	cua_dispatch_lean();
	cua_dispatch_counter(count_cb);
	assert_int_equal(cua_plan[CUAUDIT_ID_cuCtxGetCurrent] & CUA_PLAN_COUNT, CUA_PLAN_COUNT);
	assert_int_equal(cua_plan[CUAUDIT_ID_cuLaunchKernel] & CUA_PLAN_COUNT, 0);
	assert_ptr_equal(cua_counter, count_cb);
	/* A second subscription on the function: the general path. */
	assert_int_equal(cua_dispatch_subscribe(&plugin), 0);
	assert_int_equal(cua_plan[CUAUDIT_ID_cuCtxGetCurrent] & CUA_PLAN_COUNT, 0);
	assert_null(cua_counter);
	cua_dispatch_truncate(1);
	assert_int_equal(cua_plan[CUAUDIT_ID_cuCtxGetCurrent] & CUA_PLAN_COUNT, CUA_PLAN_COUNT);
	cua_dispatch_truncate(0);
	assert_int_equal(cua_plan[CUAUDIT_ID_cuCtxGetCurrent], 0);
	assert_null(cua_counter);
	/* An untimed one (the sampled summary) gets one too: its counter path reads the clock
	   only for the calls the thread's cua_self.count_skip leaves timed. */
	assert_int_equal(cua_dispatch_subscribe(&untimed), 0);
	cua_dispatch_counter(count_cb);
	assert_int_equal(cua_plan[CUAUDIT_ID_cuCtxGetCurrent] & CUA_PLAN_COUNT, 0);
	cua_dispatch_lean();
	cua_dispatch_counter(count_cb);
	assert_int_equal(cua_plan[CUAUDIT_ID_cuCtxGetCurrent] & CUA_PLAN_COUNT, CUA_PLAN_COUNT);
	assert_int_equal(cua_plan[CUAUDIT_ID_cuCtxGetCurrent] & CUA_PLAN_TIMED, 0);
	assert_int_equal(cua_plan[CUAUDIT_ID_cuLaunchKernel] & CUA_PLAN_COUNT, 0);
	cua_dispatch_truncate(0);
	assert_null(cua_counter);
}

static void plan_marks_covered_functions_and_times_only_where_asked(void **state)
{
	static const char *const untimed_names[] = { "cuMemAlloc_v2" };
	static const char *const timed_names[] = { "cuCtxGetCurrent" };
	CUAUDIT_OPTS(cuaudit_subscription, untimed, .exit = exit_cb, .elf_names = untimed_names,
		     .nnames = 1);
	CUAUDIT_OPTS(cuaudit_subscription, timed, .exit = exit_cb, .elf_names = timed_names,
		     .nnames = 1, .flags = CUAUDIT_SUB_TIMES);
	CUAUDIT_OPTS(cuaudit_subscription, bad_flags, .exit = exit_cb, .flags = 0x80);
	/* A 1.0 subscription stops before flags: it is promised times. */
	CUAUDIT_OPTS(cuaudit_subscription, old, .exit = exit_cb, .elf_names = untimed_names,
		     .nnames = 1);

	(void)state;
	old.size = offsetof(struct cuaudit_subscription, flags);
	assert_int_equal(cua_dispatch_subscribe(&untimed), 0);
	assert_int_equal(cua_dispatch_subscribe(&timed), 0);
	assert_int_equal(cua_dispatch_subscribe(&bad_flags), -EINVAL);
	assert_int_equal(PLAN(CUAUDIT_ID_cuMemAlloc_v2), CUA_PLAN_HOOKED);
	assert_int_equal(PLAN(CUAUDIT_ID_cuCtxGetCurrent), CUA_PLAN_HOOKED | CUA_PLAN_TIMED);
	assert_int_equal(PLAN(CUAUDIT_ID_cuInit), 0);
	assert_int_equal(cua_entry_kind(CUAUDIT_BIND_PLT, CUAUDIT_ID_cuInit), CUA_RAW);
	assert_int_equal(cua_entry_kind(CUAUDIT_BIND_DLSYM, CUAUDIT_ID_cuMemAlloc_v2),
			 CUAUDIT_BIND_DLSYM);
	assert_int_equal(cua_dispatch_subscribe(&old), 0);
	assert_int_equal(PLAN(CUAUDIT_ID_cuMemAlloc_v2), CUA_PLAN_HOOKED | CUA_PLAN_TIMED);
	/* Dropping a failed plugin's subscriptions takes their marks back. */
	cua_dispatch_truncate(1);
	assert_int_equal(PLAN(CUAUDIT_ID_cuCtxGetCurrent), 0);
	assert_int_equal(PLAN(CUAUDIT_ID_cuMemAlloc_v2), CUA_PLAN_HOOKED);
	{
		/* A subscription by role covers every function of that role, and only those. */
		CUAUDIT_OPTS(cuaudit_subscription, copies, .exit = exit_cb,
			     .roles = CUAUDIT_ROLE_BIT(CUAUDIT_ROLE_COPY));
		CUAUDIT_OPTS(cuaudit_subscription, bad_role, .exit = exit_cb,
			     .roles = CUAUDIT_ROLE_BIT(CUAUDIT_ROLE_COUNT));

		assert_int_equal(cua_dispatch_subscribe(&bad_role), -EINVAL);
		assert_int_equal(cua_dispatch_subscribe(&copies), 0);
		assert_int_equal(PLAN(CUAUDIT_ID_cuMemcpyHtoD_v2), CUA_PLAN_HOOKED);
		assert_int_equal(PLAN(CUAUDIT_ID_cudaMemcpy3DAsync_ptsz), CUA_PLAN_HOOKED);
		assert_int_equal(PLAN(CUAUDIT_ID_cuLaunchKernel), 0);
		cua_dispatch_truncate(1);
		assert_int_equal(PLAN(CUAUDIT_ID_cuMemcpyHtoD_v2), 0);
	}
	/* Once bindings are handed out, nothing more may subscribe. */
	cua_dispatch_close();
	assert_int_equal(cua_dispatch_subscribe(&timed), -EPERM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(opts_zero_the_padding_past_the_last_field),
		cmocka_unit_test(plan_names_the_lone_subscription_of_a_function),
		cmocka_unit_test(plan_marks_a_lone_lean_subscription_except_on_launches),
		cmocka_unit_test(plan_gives_the_counter_only_to_a_lone_lean_subscription),
		cmocka_unit_test(plan_marks_covered_functions_and_times_only_where_asked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
