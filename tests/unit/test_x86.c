/* SPDX-License-Identifier: MIT */
/* tests/unit/test_x86.c: which function entries the x86-64 patcher moves, refuses, and how it relocates them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "x86.h"

/* Code and trampoline live in this program's data: within rel32 reach of each other. */
static uint8_t code[256];
static uint8_t tramp[CUA_X86_TRAMPOLINE_MAX];

static int plan(const uint8_t *bytes, size_t n, struct cua_x86_entry *e)
{
	memset(code, 0xcc, sizeof(code));
	memcpy(code, bytes, n);
	return cua_x86_plan(code, n, e);
}

static int32_t rel32_at(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void frame_prologue_is_moved_whole(void **state)
{
	/* push %rbp; mov %rsp,%rbp; sub $0x10,%rsp; leave; ret */
	static const uint8_t f[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10, 0xc9, 0xc3 };
	struct cua_x86_entry e;

	(void)state;
	assert_int_equal(plan(f, sizeof(f), &e), CUA_X86_OK);
	assert_int_equal(e.keep, 0);
	assert_int_equal(e.len, 8);
	assert_int_equal(cua_x86_trampoline(code, &e, tramp, sizeof(tramp)), 8 + CUA_X86_ABS_JUMP_LEN);
	assert_memory_equal(tramp, f, 8);
	/* jmp *0(%rip) back to the first byte not moved */
	assert_int_equal(tramp[8], 0xff);
	assert_int_equal(tramp[9], 0x25);
	uintptr_t back;
	memcpy(&back, tramp + 14, sizeof(back));
	assert_true(back == (uintptr_t)code + 8);
}

static void endbr64_stays_and_rip_relative_lea_is_retargeted(void **state)
{
	/* endbr64; lea 0x100(%rip),%rax; ret */
	static const uint8_t f[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x8d, 0x05, 0x00, 0x01, 0x00,
				     0x00, 0xc3 };
	struct cua_x86_entry e;
	uintptr_t target;

	(void)state;
	assert_int_equal(plan(f, sizeof(f), &e), CUA_X86_OK);
	assert_int_equal(e.keep, 4);
	assert_int_equal(e.len, 7);
	assert_true(cua_x86_trampoline(code, &e, tramp, sizeof(tramp)) > 0);
	assert_memory_equal(tramp, f, 4); /* the trampoline starts with endbr64 too */
	target = (uintptr_t)code + 11 + 0x100;
	assert_true((uintptr_t)tramp + 4 + 7 + (uintptr_t)(int64_t)rel32_at(tramp + 7) == target);
	/* The jump at code + 4 leaves endbr64 in place and fills the rest with int3. */
	assert_int_equal(cua_x86_write_jump(code, &e, (uintptr_t)tramp), 0);
	assert_memory_equal(code, f, 4);
	assert_int_equal(code[4], 0xe9);
	assert_true((uintptr_t)code + 9 + (uintptr_t)(int64_t)rel32_at(code + 5) == (uintptr_t)tramp);
	assert_int_equal(code[9], 0xcc);
	assert_int_equal(code[10], 0xcc);
}

static void call_rel32_is_retargeted(void **state)
{
	/* call +0x20; ret */
	static const uint8_t f[] = { 0xe8, 0x20, 0x00, 0x00, 0x00, 0xc3 };
	struct cua_x86_entry e;

	(void)state;
	assert_int_equal(plan(f, sizeof(f), &e), CUA_X86_OK);
	assert_int_equal(e.len, 5);
	assert_true(cua_x86_trampoline(code, &e, tramp, sizeof(tramp)) > 0);
	assert_int_equal(tramp[0], 0xe8);
	assert_true((uintptr_t)tramp + 5 + (uintptr_t)(int64_t)rel32_at(tramp + 1) ==
		    (uintptr_t)code + 5 + 0x20);
}

static void short_jump_in_entry_is_refused(void **state)
{
	/* test %rdi,%rdi; jz +3; xor %eax,%eax; ret; ... */
	static const uint8_t f[] = { 0x48, 0x85, 0xff, 0x74, 0x03, 0x31, 0xc0, 0xc3,
				     0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3 };
	struct cua_x86_entry e;

	(void)state;
	assert_int_equal(plan(f, sizeof(f), &e), CUA_X86_SHORT_BRANCH);
}

static void unknown_opcode_in_entry_or_body_is_refused(void **state)
{
	static const uint8_t entry[] = { 0x06, 0x90, 0x90, 0x90, 0x90, 0x90, 0xc3 };
	/* mov $1,%eax; ret; then 0x06 (push %es: invalid in 64-bit mode) */
	static const uint8_t body[] = { 0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3, 0x06 };
	struct cua_x86_entry e;

	(void)state;
	assert_int_equal(plan(entry, sizeof(entry), &e), CUA_X86_UNKNOWN);
	assert_int_equal(plan(body, sizeof(body), &e), CUA_X86_UNKNOWN);
}

static void branch_back_into_entry_is_refused(void **state)
{
	/* xor %eax,%eax; 1: add $2,%eax; cmp $6,%eax; jne 1b (rel32); ret */
	static const uint8_t loop[] = { 0x31, 0xc0, 0x83, 0xc0, 0x02, 0x83, 0xf8, 0x06,
					0x0f, 0x85, 0xf4, 0xff, 0xff, 0xff, 0xc3 };
	/* mov $1,%eax; jmp back to the first byte (rel32) */
	static const uint8_t to_start[] = { 0xb8, 0x01, 0x00, 0x00, 0x00, 0x90,
					    0xe9, 0xf5, 0xff, 0xff, 0xff };
	/* mov $1,%eax; jmp to byte 5, the first byte not moved: allowed */
	static const uint8_t after[] = { 0xb8, 0x01, 0x00, 0x00, 0x00, 0x90,
					 0xe9, 0xfa, 0xff, 0xff, 0xff };
	struct cua_x86_entry e;

	(void)state;
	assert_int_equal(plan(loop, sizeof(loop), &e), CUA_X86_BRANCH_INTO);
	assert_int_equal(plan(to_start, sizeof(to_start), &e), CUA_X86_BRANCH_INTO);
	assert_int_equal(plan(after, sizeof(after), &e), CUA_X86_OK);
	assert_int_equal(e.len, 5);
}

static void function_shorter_than_the_jump_is_refused(void **state)
{
	static const uint8_t tiny[] = { 0x31, 0xc0, 0xc3 };
	/* xor %eax,%eax; ret; then bytes that may be a jump table's target */
	static const uint8_t early_ret[] = { 0x31, 0xc0, 0xc3, 0x90, 0x90, 0x90, 0xc3 };
	struct cua_x86_entry e;

	(void)state;
	assert_int_equal(plan(tiny, sizeof(tiny), &e), CUA_X86_TOO_SHORT);
	assert_int_equal(plan(early_ret, sizeof(early_ret), &e), CUA_X86_TOO_SHORT);
	assert_int_equal(plan(tiny, 0, &e), CUA_X86_TOO_SHORT);
}

static void rel32_reach_is_checked_both_ways(void **state)
{
	(void)state;
	assert_true(cua_x86_rel32_reaches(0x100000000u, 0x100000000u + INT32_MAX));
	assert_false(cua_x86_rel32_reaches(0x100000000u, 0x100000000u + (uintptr_t)INT32_MAX + 1));
	assert_true(cua_x86_rel32_reaches(0x100000000u, 0x100000000u - 0x80000000u));
	assert_false(cua_x86_rel32_reaches(0x100000000u, 0x100000000u - 0x80000001u));
}

/* Implib.so's trampoline (XLA's cudart stub): cmpq $0, slot; je; jmp *slot, one slot. */
static void forwarding_stubs_are_recognised(void **state)
{
	/* slot at +0x40 from the code: cmpq disp from +8, jmp disp from +16. */
	static const uint8_t implib[] = { 0x48, 0x83, 0x3d, 0x38, 0, 0, 0, 0x00, 0x74, 0x06,
					  0xff, 0x25, 0x30, 0, 0, 0, 0x6a, 0x00 };
	static const uint8_t other_slot[] = { 0x48, 0x83, 0x3d, 0x38, 0, 0, 0, 0x00, 0x74, 0x06,
					      0xff, 0x25, 0x28, 0, 0, 0, 0x6a, 0x00 };
	static const uint8_t endbr_jmp[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0xff, 0x25, 0x10, 0, 0, 0 };
	static const uint8_t prologue[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10 };

	(void)state;
	memset(code, 0xcc, sizeof(code));
	memcpy(code, implib, sizeof(implib));
	assert_int_equal(cua_x86_is_stub(code), 1);
	memcpy(code, other_slot, sizeof(other_slot));
	assert_int_equal(cua_x86_is_stub(code), 0); /* compares one slot, jumps through another */
	memset(code, 0xcc, sizeof(code));
	memcpy(code, endbr_jmp, sizeof(endbr_jmp));
	assert_int_equal(cua_x86_is_stub(code), 1);
	memset(code, 0xcc, sizeof(code));
	memcpy(code, prologue, sizeof(prologue));
	assert_int_equal(cua_x86_is_stub(code), 0);
}

/* The island's push (objdump's reading of these bytes):
     mov %fs:0xfffffff0,%r11d; incl %fs:0xfffffff0; and $0xf,%r11d;
     movl $0x7,%fs:0xfffffff4(,%r11,4) */
static void tls_push_is_encoded(void **state)
{
	static const uint8_t want[] = { 0x64, 0x44, 0x8b, 0x1c, 0x25, 0xf0, 0xff, 0xff, 0xff,
					0x64, 0xff, 0x04, 0x25, 0xf0, 0xff, 0xff, 0xff,
					0x41, 0x83, 0xe3, 0x0f,
					0x64, 0x42, 0xc7, 0x04, 0x9d, 0xf4, 0xff, 0xff, 0xff, 7, 0, 0, 0 };
	uint8_t out[48];

	(void)state;
	assert_int_equal(sizeof(want), CUA_X86_TLS_PUSH_LEN);
	assert_int_equal(cua_x86_tls_push32(out, -16, -12, 15, 7), CUA_X86_TLS_PUSH_LEN);
	assert_memory_equal(out, want, sizeof(want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frame_prologue_is_moved_whole),
		cmocka_unit_test(endbr64_stays_and_rip_relative_lea_is_retargeted),
		cmocka_unit_test(call_rel32_is_retargeted),
		cmocka_unit_test(short_jump_in_entry_is_refused),
		cmocka_unit_test(unknown_opcode_in_entry_or_body_is_refused),
		cmocka_unit_test(branch_back_into_entry_is_refused),
		cmocka_unit_test(function_shorter_than_the_jump_is_refused),
		cmocka_unit_test(rel32_reach_is_checked_both_ways),
		cmocka_unit_test(forwarding_stubs_are_recognised),
		cmocka_unit_test(tls_push_is_encoded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
