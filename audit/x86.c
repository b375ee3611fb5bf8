/* SPDX-License-Identifier: MIT */
/* audit/x86.c: decides whether a function's first x86-64 instructions can be moved, and moves them. */
#include <string.h>
#include "x86.h"

#if defined(CUA_HAVE_ZYDIS) && defined(__x86_64__)
#include <Zydis/Zydis.h>
#endif

static int32_t rd32(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;

	return (int32_t)v;
}

int cua_x86_is_stub(const uint8_t *code)
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	const uint8_t *p = memcmp(code, endbr64, 4) == 0 ? code + 4 : code;
	uintptr_t slot;

	if (p[0] == 0xff && p[1] == 0x25)
		return 1;
	/* cmpq $0, slot(%rip) (48 83 3d d32 00); je rel8 (74 xx); jmp *slot(%rip) (ff 25 d32). */
	if (!(p[0] == 0x48 && p[1] == 0x83 && p[2] == 0x3d && p[7] == 0x00 && p[8] == 0x74 &&
	      p[10] == 0xff && p[11] == 0x25))
		return 0;
	slot = (uintptr_t)(p + 8) + (uintptr_t)(intptr_t)rd32(p + 3);
	return slot == (uintptr_t)(p + 16) + (uintptr_t)(intptr_t)rd32(p + 12);
}

int cua_x86_tls_push32(uint8_t *out, int32_t sp_tpoff, int32_t stack_tpoff, uint8_t mask,
		       uint32_t value)
{
	/* fs: mov r11d, [disp32]: REX.R, 8b, ModRM 1c (reg r11, SIB), SIB 25 (no base or
	   index: a 32-bit absolute displacement). */
	static const uint8_t load[5] = { 0x64, 0x44, 0x8b, 0x1c, 0x25 };
	/* fs: inc dword [disp32]: ff /0. */
	static const uint8_t inc[4] = { 0x64, 0xff, 0x04, 0x25 };
	/* fs: mov dword [disp32 + r11 * 4], imm32: REX.X, c7 /0, SIB 9d (scale 4, index r11,
	   no base). */
	static const uint8_t store[5] = { 0x64, 0x42, 0xc7, 0x04, 0x9d };
	size_t o = 0;

	memcpy(out + o, load, sizeof(load)), o += sizeof(load);
	memcpy(out + o, &sp_tpoff, 4), o += 4;
	memcpy(out + o, inc, sizeof(inc)), o += sizeof(inc);
	memcpy(out + o, &sp_tpoff, 4), o += 4;
	/* and r11d, imm8: REX.B, 83 /4. */
	out[o++] = 0x41, out[o++] = 0x83, out[o++] = 0xe3, out[o++] = mask;
	memcpy(out + o, store, sizeof(store)), o += sizeof(store);
	memcpy(out + o, &stack_tpoff, 4), o += 4;
	memcpy(out + o, &value, 4), o += 4;
	return (int)o;
}

const char *cua_x86_verdict_name(unsigned verdict)
{
	static const char *const names[CUA_X86_VERDICTS] = {
		"patched", "short-branch", "unknown-opcode", "branch-into-entry",
		"too-short", "out-of-reach", "no-decoder", "forwarding-stub",
	};
	return verdict < CUA_X86_VERDICTS ? names[verdict] : "?";
}

int cua_x86_rel32_reaches(uintptr_t from_end, uintptr_t target)
{
	int64_t d = (int64_t)(target - from_end);

	return d >= INT32_MIN && d <= INT32_MAX;
}

void cua_x86_abs_jump(uint8_t *out, uintptr_t target)
{
	static const uint8_t jmp_rip[6] = { 0xff, 0x25, 0, 0, 0, 0 };

	memcpy(out, jmp_rip, sizeof(jmp_rip));
	memcpy(out + sizeof(jmp_rip), &target, sizeof(target));
}

static void put_rel32(uint8_t *at, int64_t v)
{
	int32_t r = (int32_t)v;

	memcpy(at, &r, sizeof(r));
}

int cua_x86_write_jump(uint8_t *code, const struct cua_x86_entry *e, uintptr_t island)
{
	uint8_t *at = code + e->keep;

	if (!cua_x86_rel32_reaches((uintptr_t)at + CUA_X86_JMP_LEN, island))
		return -CUA_X86_OUT_OF_REACH;
	/* Bytes past the jump are never reached: no branch lands there (the plan checked). */
	uint8_t patch[32];

	memset(patch, 0xcc, sizeof(patch));
	patch[0] = 0xe9;
	put_rel32(patch + 1, (int64_t)(island - ((uintptr_t)at + CUA_X86_JMP_LEN)));
	memcpy(at, patch, e->len);
	return 0;
}

#if defined(CUA_HAVE_ZYDIS) && defined(__x86_64__)

static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };

/* The decoder holds no pointers and no state between calls: one per call is cheap and
   needs no lock on the loader thread. */
static void decoder_init(ZydisDecoder *d)
{
	ZydisDecoderInit(d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
}

static int decode(const ZydisDecoder *d, const uint8_t *at, size_t left,
		  ZydisDecodedInstruction *insn)
{
	size_t n = left < ZYDIS_MAX_INSTRUCTION_LENGTH ? left : ZYDIS_MAX_INSTRUCTION_LENGTH;

	return ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(d, NULL, at, n, insn)) ? 0 : -1;
}

/* The relative immediate of a branch, or NULL. */
static const struct ZydisDecodedInstructionRawImm_ *relative_imm(const ZydisDecodedInstruction *i)
{
	for (unsigned k = 0; k < 2; k++)
		if (i->raw.imm[k].is_relative)
			return &i->raw.imm[k];
	return NULL;
}

/* RIP-relative memory operand: ModRM with mod 00 and r/m 101, no SIB, in 64-bit mode. */
static int rip_relative(const ZydisDecodedInstruction *i)
{
	return (i->attributes & ZYDIS_ATTRIB_HAS_MODRM) && i->raw.modrm.mod == 0 &&
	       i->raw.modrm.rm == 5 && i->raw.disp.size == 32;
}

static int plan_entry(const ZydisDecoder *d, const uint8_t *code, size_t size,
		      struct cua_x86_entry *e)
{
	unsigned off;

	e->keep = size >= sizeof(endbr64) && memcmp(code, endbr64, sizeof(endbr64)) == 0
			  ? (unsigned)sizeof(endbr64)
			  : 0;
	for (off = e->keep; off - e->keep < CUA_X86_JMP_LEN;) {
		ZydisDecodedInstruction insn;
		const struct ZydisDecodedInstructionRawImm_ *imm;

		if (off >= size)
			return CUA_X86_TOO_SHORT;
		if (decode(d, code + off, size - off, &insn) != 0)
			return CUA_X86_UNKNOWN;
		imm = relative_imm(&insn);
		if (imm && imm->size != 32)
			return CUA_X86_SHORT_BRANCH;
		off += insn.length;
		/* A path that leaves before the jump's end: what follows may be reached through
		   a jump table the scan cannot see. */
		if (off - e->keep < CUA_X86_JMP_LEN &&
		    (insn.meta.category == ZYDIS_CATEGORY_RET ||
		     insn.meta.category == ZYDIS_CATEGORY_UNCOND_BR))
			return CUA_X86_TOO_SHORT;
	}
	if (off > size)
		return CUA_X86_TOO_SHORT;
	e->len = off - e->keep;
	return CUA_X86_OK;
}

/* Every direct branch of the body, decoded in one linear sweep: a target inside the moved
   bytes (the function's own first byte included) would land in the middle of the jump. */
static int scan_body(const ZydisDecoder *d, const uint8_t *code, size_t size,
		     const struct cua_x86_entry *e)
{
	uintptr_t lo = (uintptr_t)code, hi = lo + e->keep + e->len;

	for (size_t pos = 0; pos < size;) {
		ZydisDecodedInstruction insn;
		const struct ZydisDecodedInstructionRawImm_ *imm;

		if (decode(d, code + pos, size - pos, &insn) != 0)
			return CUA_X86_UNKNOWN;
		pos += insn.length;
		imm = relative_imm(&insn);
		if (imm) {
			uintptr_t target = (uintptr_t)code + pos + (uintptr_t)imm->value.s;

			if (target >= lo && target < hi)
				return CUA_X86_BRANCH_INTO;
		}
	}
	return CUA_X86_OK;
}

int cua_x86_plan(const uint8_t *code, size_t size, struct cua_x86_entry *e)
{
	ZydisDecoder d;
	int v;

	decoder_init(&d);
	v = plan_entry(&d, code, size, e);
	return v != CUA_X86_OK ? v : scan_body(&d, code, size, e);
}

/* Points a rel32 field at the same target from the instruction's new place. */
static int retarget(uint8_t *out, size_t field, const uint8_t *src, const uint8_t *dst,
		    unsigned len)
{
	int32_t old;
	uintptr_t target;

	memcpy(&old, src + field, sizeof(old));
	target = (uintptr_t)src + len + (uintptr_t)(int64_t)old;
	if (!cua_x86_rel32_reaches((uintptr_t)dst + len, target))
		return -1;
	put_rel32(out + field, (int64_t)(target - ((uintptr_t)dst + len)));
	return 0;
}

int cua_x86_trampoline(const uint8_t *code, const struct cua_x86_entry *e, uint8_t *out,
		       size_t cap)
{
	ZydisDecoder d;
	size_t o = 0;

	if (cap < e->keep + e->len + CUA_X86_ABS_JUMP_LEN)
		return -CUA_X86_OUT_OF_REACH;
	decoder_init(&d);
	/* The wrapper calls the trampoline indirectly: with IBT it must start with endbr64. */
	if (e->keep) {
		memcpy(out, endbr64, sizeof(endbr64));
		o = sizeof(endbr64);
	}
	for (unsigned off = e->keep; off < e->keep + e->len;) {
		ZydisDecodedInstruction insn;
		const struct ZydisDecodedInstructionRawImm_ *imm;
		const uint8_t *src = code + off;

		if (decode(&d, src, e->keep + e->len - off, &insn) != 0)
			return -CUA_X86_UNKNOWN;
		memcpy(out + o, src, insn.length);
		imm = relative_imm(&insn);
		if (imm && (imm->size != 32 || retarget(out + o, imm->offset, src, out + o,
							 insn.length) != 0))
			return imm->size != 32 ? -CUA_X86_SHORT_BRANCH : -CUA_X86_OUT_OF_REACH;
		if (rip_relative(&insn) &&
		    retarget(out + o, insn.raw.disp.offset, src, out + o, insn.length) != 0)
			return -CUA_X86_OUT_OF_REACH;
		o += insn.length;
		off += insn.length;
	}
	cua_x86_abs_jump(out + o, (uintptr_t)code + e->keep + e->len);
	return (int)(o + CUA_X86_ABS_JUMP_LEN);
}

#else

int cua_x86_plan(const uint8_t *code, size_t size, struct cua_x86_entry *e)
{
	(void)code, (void)size, (void)e;
	return CUA_X86_NO_DECODER;
}

int cua_x86_trampoline(const uint8_t *code, const struct cua_x86_entry *e, uint8_t *out,
		       size_t cap)
{
	(void)code, (void)e, (void)out, (void)cap;
	return -CUA_X86_NO_DECODER;
}

#endif
