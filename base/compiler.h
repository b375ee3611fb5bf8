/* SPDX-License-Identifier: MIT */
/* base/compiler.h: the branch hints and inlining attributes the hot path is written with. */
#ifndef CUA_COMPILER_H
#define CUA_COMPILER_H

#define CUA_LIKELY(x) __builtin_expect(!!(x), 1)
#define CUA_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CUA_COLD __attribute__((noinline))
/* The hot path: one copy in each wrapper body even where a thousand wrappers in one file
   would make the compiler stop inlining (it did: a call per enter). */
#define CUA_HOT_INLINE static inline __attribute__((always_inline))
/* GCC packs neighbouring counter increments into SSE adds with a constant from memory: more
   instructions than the plain adds (the summary's counter). */
#if defined(__GNUC__) && !defined(__clang__)
#define CUA_SCALAR __attribute__((optimize("no-tree-slp-vectorize")))
#else
#define CUA_SCALAR
#endif

#endif
