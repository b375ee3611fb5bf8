/* SPDX-License-Identifier: MIT */
/* tests/unit/test_demangle.c: the module's C++ demangler: hand-checked names of each construct, and hostile inputs that must fail cleanly. */
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "demangle.h"

/* Each construct kernel names use, with the text libstdc++'s __cxa_demangle prints for it
   (checked against it when written; the differential test keeps checking the agreement). */
static const struct {
	const char *mangled, *readable;
} pairs[] = {
	{ "_Z6vecAddPKfS0_Pfi",
	  "vecAdd(float const*, float const*, float*, int)" },
	{ "_Z3fooIiEvT_",
	  "void foo<int>(int)" },
	{ "_ZN2ns5ClassC1Ev",
	  "ns::Class::Class()" },
	{ "_ZN2ns5ClassC2ERKS0_",
	  "ns::Class::Class(ns::Class const&)" },
	{ "_ZN2ns5ClassD0Ev",
	  "ns::Class::~Class()" },
	{ "_ZN2ns5ClassD1Ev",
	  "ns::Class::~Class()" },
	{ "_ZNK2ns5Class3getEv",
	  "ns::Class::get() const" },
	{ "_ZNR1A1fEv",
	  "A::f() &" },
	{ "_ZNO1A1fEv",
	  "A::f() &&" },
	{ "_ZN1AplERKS_",
	  "A::operator+(A const&)" },
	{ "_ZN1AixEm",
	  "A::operator[](unsigned long)" },
	{ "_ZN1AclEv",
	  "A::operator()()" },
	{ "_ZN1AcviEv",
	  "A::operator int()" },
	{ "_ZnwmPv",
	  "operator new(unsigned long, void*)" },
	{ "_ZdaPv",
	  "operator delete[](void*)" },
	{ "_ZN1AltIiEEbRKS_",
	  "bool A::operator< <int>(A const&)" },
	{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
	  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
	{ "_ZNKSs4sizeEv",
	  "std::string::size() const" },
	{ "_Z1fRKSs",
	  "f(std::string const&)" },
	{ "_ZSt4swapIiEvRT_S1_",
	  "void std::swap<int>(int&, int&)" },
	{ "_Z6kernelIfLi4EEvPT_S1_i",
	  "void kernel<float, 4>(float*, float*, int)" },
	{ "_Z6kernelILj4ELl5ELm6ELx7ELy8ELb1ELb0ELc65ELin3EEvv",
	  "void kernel<4u, 5l, 6ul, 7ll, 8ull, true, false, (char)65, -3>()" },
	{ "_Z1fILs4EEvv",
	  "void f<(short)4>()" },
	{ "_Z1fIL1E2EEvv",
	  "void f<(E)2>()" },
	{ "_Z1fIJifEEvDpT_",
	  "void f<int, float>(int, float)" },
	{ "_Z1fIJEEvDpT_",
	  "void f<>()" },
	{ "_Z1fIJiEEvDpRKT_",
	  "void f<int>(int const&)" },
	{ "_Z1fPA4_i",
	  "f(int (*) [4])" },
	{ "_Z1fRA2_A3_i",
	  "f(int (&) [2][3])" },
	{ "_Z1fPFivE",
	  "f(int (*)())" },
	{ "_Z1fPFPFivEvE",
	  "f(int (*(*)())())" },
	{ "_Z1fIiEPFivEv",
	  "int (*f<int>())()" },
	{ "_Z1fM1AFvvE",
	  "f(void (A::*)())" },
	{ "_Z1fM1AKFviE",
	  "f(void (A::*)(int) const)" },
	{ "_Z1fM1Ai",
	  "f(int A::*)" },
	{ "_Z1fPVKi",
	  "f(int const volatile*)" },
	{ "_Z1fPrKi",
	  "f(int const restrict*)" },
	{ "_Z1fOi",
	  "f(int&&)" },
	{ "_Z1fwbcahstijlmxynofdegz",
	  "f(wchar_t, bool, char, signed char, unsigned char, short, unsigned short, int, unsigned int, long, unsigned long, long long, unsigned long long, __int128, unsigned __int128, float, double, long double, __float128, ...)" },
	{ "_Z1fDsDiDn",
	  "f(char16_t, char32_t, decltype(nullptr))" },
	{ "_ZN12_GLOBAL__N_13fooEv",
	  "(anonymous namespace)::foo()" },
	{ "_ZN12_GLOBAL__N_16kernelEPi",
	  "(anonymous namespace)::kernel(int*)" },
	{ "_ZZ4mainENKUlvE_clEv",
	  "main::{lambda()#1}::operator()() const" },
	{ "_ZZ4mainENKUliE0_clEi",
	  "main::{lambda(int)#2}::operator()(int) const" },
	{ "_Z6kernelIZ4mainEUlvE_EvT_",
	  "void kernel<main::{lambda()#1}>(main::{lambda()#1})" },
	{ "_ZZ1fvEN1S1gEv",
	  "f()::S::g()" },
	{ "_ZZ1fvE1x",
	  "f()::x" },
	{ "_ZZ1fvEs",
	  "f()::string literal" },
	{ "_ZZ1fvE1x_0",
	  "f()::x" },
	{ "_ZN1AUt_E",
	  "A::{unnamed type#1}" },
	{ "_Z3foov.cold",
	  "foo() [clone .cold]" },
	{ "_Z3foov.isra.0",
	  "foo() [clone .isra.0]" },
	{ "_Z3foov.constprop.0.isra.0",
	  "foo() [clone .constprop.0] [clone .isra.0]" },
	{ "_ZL9static_fnPi",
	  "static_fn(int*)" },
	{ "_ZN1A1fB5cxx11Ev",
	  "A::f[abi:cxx11]()" },
	{ "_ZTV1A",
	  "vtable for A" },
	{ "_ZTI1A",
	  "typeinfo for A" },
	{ "_ZTS1A",
	  "typeinfo name for A" },
	{ "_ZGVZ1fvE1x",
	  "guard variable for f()::x" },
	{ "_ZThn8_N1D1fEv",
	  "non-virtual thunk to D::f()" },
	{ "_ZTv0_n24_N1D1fEv",
	  "virtual thunk to D::f()" },
	{ "_Z1fPKcS0_",
	  "f(char const*, char const*)" },
	{ "_Z1fN1a1bE",
	  "f(a::b)" },
	{ "_Z5applyIN6thrust7complexIfEEEvPT_S4_",
	  "void apply<thrust::complex<float> >(thrust::complex<float>*, thrust::complex<float>*)" },
	{ "_Z1fIXadL_Z1gvEEEvv",
	  "void f<&(g())>()" },
	{ "_Z1fIXadL_ZN1A1xEEEEvv",
	  "void f<&A::x>()" },
	{ "_Z1fISt8functionIFviEEEvT_",
	  "void f<std::function<void (int)> >(std::function<void (int)>)" },
	{ "_Z1fI1AIiEEvT_",
	  "void f<A<int> >(A<int>)" },
	{ "_Z1fI1AI1BIiEEEvv",
	  "void f<A<B<int> > >()" },
	{ "_Z1fIPFvvEEvT_",
	  "void f<void (*)()>(void (*)())" },
	{ "_ZN3cub11EmptyKernelIvEEvv",
	  "void cub::EmptyKernel<void>()" },
	{ "_Z10reduce_sumILj256EEvPKfPfj",
	  "void reduce_sum<256u>(float const*, float*, unsigned int)" },
	{ "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_",
	  "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)" },
};

static size_t demangle(char *out, size_t cap, const char *name)
{
	return cua_demangle_into(out, cap, name, strlen(name));
}

static void each_construct_prints_as_libstdcxx_does(void **state)
{
	char out[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		size_t n = demangle(out, sizeof(out), pairs[i].mangled);

		if (n == 0 || strcmp(out, pairs[i].readable) != 0)
			fail_msg("%s: got \"%s\", want \"%s\"", pairs[i].mangled, n ? out : "(failed)",
				 pairs[i].readable);
		assert_int_equal(n, strlen(out));
	}
}

/* Not a mangled name, or one this demangler does not read: 0, and the caller prints it. */
static void c_names_and_unknown_constructs_fail(void **state)
{
	static const char *const no[] = {
		"", "_", "_Z", "vecAdd", "main", "_ZZ", "Z6vecAddPKfS0_Pfi",
		"_Z1fIXplT_Li1EEEvv", /* an expression other than a parameter, literal or address */
		"_Z1fDv4_f",          /* a vector type */
		"_ZN1BCI11AEi",       /* an inheriting constructor */
		"_Z1fIiEvT_$x",       /* bytes after the name */
		"_Z3foov.",           /* a clone suffix with no name */
		"_Z3foov.COLD",
	};
	char out[256];

	(void)state;
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (demangle(out, sizeof(out), no[i]) != 0)
			fail_msg("%s demangled to %s", no[i], out);
	assert_int_equal(cua_demangle_into(NULL, 10, "_Z1fv", 5), 0);
	assert_int_equal(cua_demangle_into(out, 0, "_Z1fv", 5), 0);
}

static void truncated_names_fail(void **state)
{
	static const char *const cut[] = {
		"_Z6vecAd", "_ZN1a1b", "_Z3fooIi", "_Z1fPA4_", "_ZN1AcvE",
		"_Z1fIiEvT", "_Z1fS", "_Z1fS0", "_ZZ4mainE", "_ZZ4mainENKUlvE", "_ZTv0_", "_Z1fM1A",
		"_Z6kernelILi4", "_Z6kernelILi4E", "_Z1fPFiv",
	};
	char out[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++)
		if (demangle(out, sizeof(out), cut[i]) != 0)
			fail_msg("%s demangled to %s", cut[i], out);
	/* Every prefix of every good name: a clean answer, never a read past its length (the
	   name is not NUL-terminated there: the copy ends where the prefix does). */
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		size_t len = strlen(pairs[i].mangled);

		for (size_t k = 0; k < len; k++) {
			char *copy = malloc(k ? k : 1);
			size_t n;

			memcpy(copy, pairs[i].mangled, k);
			n = cua_demangle_into(out, sizeof(out), copy, k);
			assert_true(n == 0 || n == strlen(out));
			free(copy);
		}
	}
}

/* A name the output cannot hold fails; nothing is written past cap. */
static void output_that_does_not_fit_fails_without_overflow(void **state)
{
	char out[64];

	(void)state;
	for (size_t cap = 1; cap < 48; cap++) {
		size_t n;

		memset(out, 'X', sizeof(out));
		n = demangle(out, cap, "_Z6vecAddPKfS0_Pfi");
		assert_true(cap > 47 || n == 0);
		for (size_t k = cap; k < sizeof(out); k++)
			assert_int_equal(out[k], 'X');
	}
	assert_int_equal(demangle(out, 48, "_Z6vecAddPKfS0_Pfi"), 47);
}

static char *repeat(const char *head, const char *unit, size_t times, const char *tail)
{
	size_t h = strlen(head), u = strlen(unit), t = strlen(tail);
	char *s = malloc(h + u * times + t + 1), *p = s;

	memcpy(p, head, h);
	p += h;
	for (size_t i = 0; i < times; i++, p += u)
		memcpy(p, unit, u);
	memcpy(p, tail, t + 1);
	return s;
}

/* Deep nesting, long names, huge numbers, bad references: each fails (or succeeds) in
   bounded time and space; ASan, UBSan and memcheck run this test in CI. */
static void hostile_names_fail_cleanly(void **state)
{
	static char out[1 << 18];
	char *s;

	(void)state;
	/* 100,000 components of a nested name: more nodes than the fixed table. */
	s = repeat("_ZN", "1a", 100000, "E");
	assert_int_equal(demangle(out, sizeof(out), s), 0);
	free(s);
	/* Pointers 100,000 deep, template arguments 10,000 deep: the depth limit. */
	s = repeat("_Z1f", "P", 100000, "i");
	assert_int_equal(demangle(out, sizeof(out), s), 0);
	free(s);
	s = repeat("_Z1f", "I1A", 10000, "i");
	assert_int_equal(demangle(out, sizeof(out), s), 0);
	free(s);
	/* A 100,000-byte identifier: fits in a big enough output, not in a small one. */
	s = repeat("_Z100000", "a", 100000, "");
	assert_int_equal(demangle(out, sizeof(out), s), 100000);
	assert_int_equal(demangle(out, 4096, s), 0);
	free(s);
	/* Lengths and indexes beyond any bound or past the end of the name. */
	assert_int_equal(demangle(out, sizeof(out), "_Z99999999999999999999999a"), 0);
	assert_int_equal(demangle(out, sizeof(out), "_Z4294967297a"), 0);
	assert_int_equal(demangle(out, sizeof(out), "_Z5abc"), 0);
	assert_int_equal(demangle(out, sizeof(out), "_Z1fS_"), 0);
	assert_int_equal(demangle(out, sizeof(out), "_Z1fPiS0_"), 0);
	assert_int_equal(demangle(out, sizeof(out), "_Z1fPiSZZZZZZZZZZZZZZZZZ_"), 0);
	assert_int_equal(demangle(out, sizeof(out), "_Z1fIiEvT0_"), 0);
	assert_int_equal(demangle(out, sizeof(out), "_Z1fIiEvT99999999999999999999_"), 0);
	assert_int_equal(demangle(out, sizeof(out), "_Z1fT_"), 0);
	/* A template parameter inside the arguments that define it. */
	assert_int_equal(demangle(out, sizeof(out), "_Z1fIT_EvT_"), 0);
	/* Each type names the one before twice (A<A<int>, A<int> >, ...): the text doubles 40
	   times; it stops at the output's end, quickly, with nothing written past it. */
	{
		char *b = malloc(1 << 20);

		s = malloc(16 * 40 + 32);
		strcpy(s, "_Z1f1AIiE");
		for (unsigned k = 0; k < 40; k++) {
			/* Step k names candidate 2k+1 (A<...> of the step before): S<base36 2k>_. */
			unsigned id = 2 * k;
			char seq[8];
			int n = 0;

			do {
				unsigned dgt = id % 36;

				seq[n++] = (char)(dgt < 10 ? '0' + dgt : 'A' + dgt - 10);
				id /= 36;
			} while (id);
			strcat(s, "1AIS");
			for (int j = n - 1; j >= 0; j--)
				strncat(s, &seq[j], 1);
			strcat(s, "_S");
			for (int j = n - 1; j >= 0; j--)
				strncat(s, &seq[j], 1);
			strcat(s, "_E");
		}
		assert_int_equal(demangle(b, 1 << 20, s), 0);
		/* Its first three steps are a good name: the same construct is read right. */
		s[strlen("_Z1f1AIiE1AIS0_S0_E1AIS2_S2_E")] = '\0';
		assert_int_not_equal(demangle(b, 1 << 20, s), 0);
		assert_string_equal(b, "f(A<int>, A<A<int>, A<int> >, A<A<A<int>, A<int> >, A<A<int>, A<int> > >)");
		free(s);
		free(b);
	}
}

/* A name nested n levels: head, unit n times, middle, close n times. */
static char *nest(const char *head, const char *unit, unsigned n, const char *middle, const char *close)
{
	char *inner = repeat(head, unit, n, middle), *s = repeat(inner, close, n, "");

	free(inner);
	return s;
}

/* Each template names the one before three times: a text of 3^steps copies. */
static char *tripling(unsigned steps)
{
	static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char *s = malloc(16 + 16 * steps), *p = s;

	p += strlen(strcpy(p, "_Z1f1AIiE"));
	for (unsigned j = 0; j < steps; j++) {
		unsigned id = 2 * j;
		char seq[3] = { id >= 36 ? digits[id / 36] : digits[id % 36], id >= 36 ? digits[id % 36] : 0, 0 };

		p += strlen(strcpy(p, "1AIS"));
		for (int r = 0; r < 3; r++) {
			p += strlen(strcpy(p, seq));
			p += strlen(strcpy(p, r < 2 ? "_S" : "_E"));
		}
	}
	return s;
}

/* Hostile names of every recursive construct the demangler reads, 20, 100 and 1000 levels
   deep, and tripling substitutions. */
#define NHOSTILE 34
static char *hostile[NHOSTILE];

static void make_hostile(void)
{
	static const unsigned levels[] = { 20, 100, 1000 };
	unsigned k = 0;

	if (hostile[0])
		return;
	for (unsigned i = 0; i < 3; i++) {
		unsigned n = levels[i];

		hostile[k++] = nest("_Z1f", "1AI", n, "i", "E");          /* A<A<...>> */
		hostile[k++] = nest("_Z1f", "N1a1AI", n, "i", "EE");      /* a::A<a::A<...>> */
		hostile[k++] = nest("_Z1f", "PFv", n, "i", "E");          /* void (*)(void (*)(...)) */
		hostile[k++] = nest("_Z1f1AI", "L_Z1gI", n, "i", "EvE");  /* entities in arguments */
		hostile[k++] = nest("_Z1fI", "XadL_Z1gI", n, "i", "EvEE"); /* addresses of them */
		hostile[k++] = nest("_Z1fI", "J", n, "i", "E");           /* packs in packs */
		hostile[k++] = nest("_Z1f", "M1AF", n, "i", "vE");        /* member pointers */
		hostile[k++] = nest("_ZN", "1a", n, "Ev", "");            /* a::a::...::a() */
		hostile[k++] = nest("_Z1f", "P", n, "i", "");             /* int*** */
		hostile[k++] = nest("_Z1f", "Z1gvE1A", n, "", "");        /* local names */
		hostile[k++] = nest("_Z1f", "1AIS_", n, "", "E");         /* substitutions in arguments */
	}
	hostile[k++] = tripling(16);
	assert_int_equal(k, NHOSTILE);
}

/* The stack a name costs the demangler, measured on a thread whose stack was painted: the
   bytes between the thread function's frame and the deepest byte written. */
static struct cua_demangle_state stack_state;
static char stack_out[1 << 16];
static const char *stack_name;
static size_t stack_result;
static char *volatile stack_top;

static void *demangle_on_thread(void *arg)
{
	char here;

	(void)arg;
	stack_top = &here;
	stack_result = cua_demangle_with(&stack_state, stack_out, sizeof(stack_out), stack_name,
					 strlen(stack_name));
	return NULL;
}

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#endif
#endif
#ifndef VALGRIND_MAKE_MEM_DEFINED
#define VALGRIND_MAKE_MEM_DEFINED(p, n) ((void)(p), (void)(n))
#endif

static size_t stack_used(const char *name)
{
	enum { BYTES = 256 << 10 };
	static char *stack;
	pthread_attr_t attr;
	pthread_t t;
	size_t i = 0;

	if (!stack)
		stack = aligned_alloc(4096, BYTES);
	assert_non_null(stack);
	memset(stack, 0xA5, BYTES);
	assert_int_equal(pthread_attr_init(&attr), 0);
	assert_int_equal(pthread_attr_setstack(&attr, stack, BYTES), 0);
	stack_name = name;
	assert_int_equal(pthread_create(&t, &attr, demangle_on_thread, NULL), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	pthread_attr_destroy(&attr);
	/* Under memcheck the ended thread's stack reads as freed: the painted bytes are ours. */
	VALGRIND_MAKE_MEM_DEFINED(stack, BYTES);
	while (i < BYTES && (unsigned char)stack[i] == 0xA5)
		i++;
	return (size_t)(stack_top - (stack + i));
}

/* Before: a name nested 20 levels overflowed a 32 KiB thread stack. Every recursion now
   counts against a depth limit and no frame holds an array: the worst of the hostile names
   stays under CUA_DEMANGLE_STACK_MAX in an optimised build (instrumented or -O0 frames are
   larger: only a loose bound there). Each name also runs on a thread of 16 KiB of stack with
   a guard page, where an overflow is a crash. */
static void demangler_stack_stays_under_its_bound_on_hostile_names(void **state)
{
#if defined(__OPTIMIZE__) && !defined(CUA_TEST_SANITIZED) && !defined(__SANITIZE_ADDRESS__)
	const size_t bound = CUA_DEMANGLE_STACK_MAX;
#else
	const size_t bound = 32u << 10;
#endif
	size_t worst = 0, real = stack_used("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_");

	/* 16 KiB, or room for the sanitizer's frames. */
	const size_t small = bound < (8u << 10) && PTHREAD_STACK_MIN <= (16u << 10) ? 16u << 10 : 64u << 10;

	(void)state;
	assert_int_not_equal(stack_result, 0);
	make_hostile();
	for (unsigned i = 0; i < NHOSTILE; i++) {
		size_t used = stack_used(hostile[i]);

		if (used > bound)
			fail_msg("%.60s... (%zu bytes): %zu bytes of stack, bound %zu", hostile[i],
				 strlen(hostile[i]), used, bound);
		if (used > worst)
			worst = used;
	}
	print_message("demangler stack: %zu bytes at most on hostile names, %zu on a real name; bound %zu\n",
		      worst, real, bound);
	for (unsigned i = 0; i < NHOSTILE; i++) {
		pthread_attr_t attr;
		pthread_t t;

		assert_int_equal(pthread_attr_init(&attr), 0);
		assert_int_equal(pthread_attr_setstacksize(&attr, small), 0);
		stack_name = hostile[i];
		assert_int_equal(pthread_create(&t, &attr, demangle_on_thread, NULL), 0);
		assert_int_equal(pthread_join(t, NULL), 0);
		pthread_attr_destroy(&attr);
	}
}

/* The limits themselves: a name within them reads, the same construct past them stays
   mangled (0), whatever its depth. */
static void names_past_the_depth_limit_stay_mangled(void **state)
{
	char out[4096];
	char *s;

	(void)state;
	s = nest("_Z1f", "1AI", 5, "i", "E");
	assert_int_not_equal(demangle(out, sizeof(out), s), 0);
	assert_string_equal(out, "f(A<A<A<A<A<int> > > > >)");
	free(s);
	s = nest("_Z1f", "1AI", 12, "i", "E");
	assert_int_not_equal(demangle(out, sizeof(out), s), 0);
	free(s);
	s = nest("_ZN", "1a", 30, "Ev", "");
	assert_int_not_equal(demangle(out, sizeof(out), s), 0);
	free(s);
	s = nest("_ZN", "1a", 40, "Ev", "");
	assert_int_equal(demangle(out, sizeof(out), s), 0);
	free(s);
	make_hostile();
	for (unsigned i = 0; i < NHOSTILE; i++) {
		/* Local names and A<S_> chains are no deep recursion: they read at any length that
		   fits. A nested name of 20 parts and 20 pointers are within the limits (one level
		   each); every other name is past a limit at 20 levels already, and all at 100. */
		int flat = strncmp(hostile[i], "_Z1fZ1gvE", 9) == 0 || strncmp(hostile[i], "_Z1f1AIS_", 9) == 0;
		int short_nested = (strncmp(hostile[i], "_ZN1a", 5) == 0 || strncmp(hostile[i], "_Z1fPP", 6) == 0) &&
				   strlen(hostile[i]) < 100;
		size_t n = demangle(out, sizeof(out), hostile[i]);

		if (!flat && !short_nested && n != 0)
			fail_msg("%.60s... (%zu bytes) read as %.60s...", hostile[i], strlen(hostile[i]), out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_construct_prints_as_libstdcxx_does),
		cmocka_unit_test(c_names_and_unknown_constructs_fail),
		cmocka_unit_test(truncated_names_fail),
		cmocka_unit_test(output_that_does_not_fit_fails_without_overflow),
		cmocka_unit_test(hostile_names_fail_cleanly),
		cmocka_unit_test(demangler_stack_stays_under_its_bound_on_hostile_names),
		cmocka_unit_test(names_past_the_depth_limit_stay_mangled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
