/* SPDX-License-Identifier: MIT */
/* loader/passthrough.c: hands out counting trampolines for CUDA exports cuaudit has no prototype for. */
#include <sched.h>
#include <string.h>
#include "passthrough.h"

void *cua_pt_real[CUA_PT_COUNT];
uint64_t cua_pt_calls[CUA_PT_COUNT];
static char names[CUA_PT_COUNT][CUA_PT_NAME_MAX];
/* The library behind the stub was closed: its name may serve the next copy (under lock). */
static unsigned char retired[CUA_PT_COUNT];
static unsigned used;
static int lock;

#if defined(__x86_64__)
/* Each stub is 16 bytes: an atomic count, then a jump through its slot. No register but the
   flags is touched, so any prototype, variadic or not, passes through intact. */
__asm__(".text\n"
	".p2align 4\n"
	".globl cua_pt_code\n"
	".hidden cua_pt_code\n"
	".type cua_pt_code, @function\n"
	"cua_pt_code:\n"
	".set cua_pt_i, 0\n"
	".rept 256\n"
	"lock incq cua_pt_calls+8*cua_pt_i(%rip)\n"
	"jmp *cua_pt_real+8*cua_pt_i(%rip)\n"
	".p2align 4, 0xcc\n"
	".set cua_pt_i, cua_pt_i+1\n"
	".endr\n"
	".globl cua_pt_code_end\n"
	".hidden cua_pt_code_end\n"
	"cua_pt_code_end:\n"
	".size cua_pt_code, cua_pt_code_end - cua_pt_code\n");
extern const char cua_pt_code[], cua_pt_code_end[];
_Static_assert(CUA_PT_COUNT == 256, "the .rept count above must match");
#define HAVE_STUBS 1
#else
/* No stubs for this architecture: unknown exports stay unwrapped (see README). */
static const char cua_pt_code[1];
#define HAVE_STUBS 0
#endif

void *cua_pt_get(const char *elf_name, void *real)
{
	void *stub = NULL;

	if (!HAVE_STUBS)
		return NULL;
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	for (unsigned i = 0; i < used; i++) {
		if (cua_pt_real[i] == real) {
			retired[i] = 0;
			stub = (void *)(cua_pt_code + CUA_PT_STUB_SIZE * i);
			goto out;
		}
	}
	/* A library loaded again: its name's stub, retired at the unload, serves the new copy,
	   so reloads neither use up the stubs nor split the counts. */
	for (unsigned i = 0; i < used; i++) {
		if (retired[i] && strcmp(names[i], elf_name) == 0) {
			retired[i] = 0;
			__atomic_store_n(&cua_pt_real[i], real, __ATOMIC_RELEASE);
			stub = (void *)(cua_pt_code + CUA_PT_STUB_SIZE * i);
			goto out;
		}
	}
	if (used < CUA_PT_COUNT) {
		size_t n = strlen(elf_name);

		if (n >= CUA_PT_NAME_MAX)
			n = CUA_PT_NAME_MAX - 1;
		memcpy(names[used], elf_name, n);
		names[used][n] = '\0';
		__atomic_store_n(&cua_pt_real[used], real, __ATOMIC_RELEASE);
		stub = (void *)(cua_pt_code + CUA_PT_STUB_SIZE * used);
		__atomic_store_n(&used, used + 1, __ATOMIC_RELEASE);
	}
out:
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
	return stub;
}

void cua_pt_retire(void *lo, void *hi)
{
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	/* The stub keeps its target (a late call from a destructor at exit reaches it, as it
	   would natively); it is only marked free for the next copy of its library. */
	for (unsigned i = 0; i < used; i++)
		if (cua_pt_real[i] >= lo && cua_pt_real[i] < hi)
			retired[i] = 1;
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

unsigned cua_pt_used(void)
{
	return __atomic_load_n(&used, __ATOMIC_ACQUIRE);
}

const char *cua_pt_name(unsigned i)
{
	return names[i];
}

uint64_t cua_pt_calls_of(unsigned i)
{
	return __atomic_load_n(&cua_pt_calls[i], __ATOMIC_RELAXED);
}
