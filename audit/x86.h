/* SPDX-License-Identifier: MIT */
/* audit/x86.h: decides whether a function's first x86-64 instructions can be moved, and moves them. */
#ifndef CUA_X86_H
#define CUA_X86_H

#include <stddef.h>
#include <stdint.h>

/* The patch is one jmp rel32. */
#define CUA_X86_JMP_LEN 5
/* Room a moved entry needs: endbr64, at most four instructions, the jump back. */
#define CUA_X86_TRAMPOLINE_MAX 48

/* Why an entry was left alone; CUA_X86_OK when it can be patched. */
enum cua_x86_verdict {
	CUA_X86_OK = 0,
	CUA_X86_SHORT_BRANCH,  /* a rel8 or rel16 branch in the bytes to move */
	CUA_X86_UNKNOWN,       /* bytes the decoder does not know, in the entry or the body */
	CUA_X86_BRANCH_INTO,   /* a branch of the function lands inside the bytes to move */
	CUA_X86_TOO_SHORT,     /* the function, or its first path, is shorter than the jump */
	CUA_X86_OUT_OF_REACH,  /* a relative operand cannot reach its target from the trampoline */
	CUA_X86_NO_DECODER,    /* built without a decoder, or not x86-64 */
	CUA_X86_STUB,          /* a forwarding stub: an indirect jump through a table slot */
	CUA_X86_VERDICTS,
};

/* The plan for one function: keep an endbr64 in place, then move len bytes (>= 5). */
struct cua_x86_entry {
	unsigned keep;
	unsigned len;
};

/* A short name per verdict, for logs and reports. */
const char *cua_x86_verdict_name(unsigned verdict);

/* Plans the patch of the function of size bytes at code (its run-time address). Reads only
   [code, code + size). Scans every direct branch of the function for a target inside the
   bytes to move. Returns a verdict; fills *e on CUA_X86_OK. */
int cua_x86_plan(const uint8_t *code, size_t size, struct cua_x86_entry *e);

/* Writes, at out (which is where it will run), endbr64 if the entry had one, the moved
   instructions with their relative operands adjusted, and an absolute jump back to
   code + keep + len. Returns the bytes written, or minus a verdict. */
int cua_x86_trampoline(const uint8_t *code, const struct cua_x86_entry *e, uint8_t *out,
		       size_t cap);

/* 1 when the bytes at code (at least CUA_X86_STUB_LEN readable) are a forwarding stub, as
   Implib.so and XLA's CUDA stubs generate: [endbr64] jmp *slot(%rip), or
   [endbr64] cmpq $0, slot(%rip); je resolve; jmp *slot(%rip) with the same slot. The
   function has no body of its own: it forwards to whatever the slot holds. */
#define CUA_X86_STUB_LEN 20
int cua_x86_is_stub(const uint8_t *code);

/* Writes at out the push of value on a thread's stack of 32-bit words in initial-exec TLS
   (sp_tpoff: its index word, stack_tpoff: its first element, both from the thread pointer;
   the index wraps at mask + 1):
     mov %fs:sp, %r11d; incl %fs:sp; and $mask, %r11d; movl $value, %fs:stack(,%r11,4)
   The index goes up before the element is written, so a signal handler that runs in between
   and pushes and pops leaves the element alone. Uses only %r11 and the flags, which no
   function expects preserved at its entry. Returns CUA_X86_TLS_PUSH_LEN. */
#define CUA_X86_TLS_PUSH_LEN 34
int cua_x86_tls_push32(uint8_t *out, int32_t sp_tpoff, int32_t stack_tpoff, uint8_t mask,
		       uint32_t value);

/* Writes at out the 14-byte absolute jump to target: jmp *0(%rip); .quad target. */
void cua_x86_abs_jump(uint8_t *out, uintptr_t target);
#define CUA_X86_ABS_JUMP_LEN 14

/* Fills the bytes of the plan at code + keep: a jmp rel32 to island, int3 after it. The
   caller has checked the distance and made the page writable. */
int cua_x86_write_jump(uint8_t *code, const struct cua_x86_entry *e, uintptr_t island);

/* 1 when target is within a rel32 of the end of an instruction ending at from_end. */
int cua_x86_rel32_reaches(uintptr_t from_end, uintptr_t target);

#endif
