/* SPDX-License-Identifier: MIT */
/* rt/callrec.h: the head every stored record of a call begins with, the live view's ring record and the trace's record alike. */
#ifndef CUA_CALLREC_H
#define CUA_CALLREC_H

#include <stddef.h>
#include <stdint.h>

/* One layout for a stored call, whoever stores it (docs/design.md, "One record per call"):
   this head, then the argument struct, then what the store keeps beyond it. The live view's
   ring record (rt/livefmt.h) keeps the struct's first CUA_LIVE_ARGS bytes and a GPU time;
   the trace's record (record/tracefmt.h) keeps the struct at its own size, then the variable
   part: the strings the call was passed, the values it wrote through its out-parameters and
   a launch's kernel name, as 'flags' announces them. 40 bytes. */
struct cua_rec_head {
	union {
		uint32_t seq;  /* in the live view's ring: which call, in which state (cua_live_seq) */
		uint32_t size; /* in the trace: the record's bytes, a multiple of 8 */
	};
	uint16_t id;      /* the function (cuaudit_ids.h), or a record that is no call (the trace's
			     CUA_TRACE_*_ID) */
	uint8_t binding;  /* enum cuaudit_binding in the low CUA_REC_KIND_BITS; a call through a
			     patched entry's copy above them (0 where the store keeps none) */
	uint8_t depth;    /* the dispatch's nesting depth (a signal handler's calls start again at
			     0), its low 8 bits in the ring and the trace alike (a deeper one is not
			     met: a runtime call nests its driver calls one deep, and saturating it
			     cost the trace 5 instructions a call); an NVTX record's level (below
			     CUA_NVTX_DEPTH) plus CUA_TRACE_NVTX_LEVEL0, through cua_rec_depth */
	uint32_t tid;     /* the thread that made the call */
	uint32_t flags;   /* CUA_REC_* */
	uint64_t t_start; /* the call's start, as every output reads it */
	uint64_t t_end;   /* its end, less the time of the hooks of the calls nested in it */
	uint64_t result;
};
_Static_assert(sizeof(struct cua_rec_head) == 40 && offsetof(struct cua_rec_head, id) == 4 &&
		       offsetof(struct cua_rec_head, tid) == 8 &&
		       offsetof(struct cua_rec_head, flags) == 12 &&
		       offsetof(struct cua_rec_head, t_start) == 16,
	       "a call record's head: 40 bytes, its first word the number and three small fields");

#define CUA_REC_KIND_BITS 3

/* flags. CUA_REC_GPU is 1: a live region's writer before the flags word stored 1 there
   (its gpu_set) for the same thing. */
#define CUA_REC_GPU 1u     /* GPU timing attached the call's GPU time (the live view's 'gpu') */
#define CUA_REC_SKIPPED 2u /* a hook skipped the real call (the memory limit, a fault) */
#define CUA_REC_KERNEL 4u  /* the variable part ends with the launch's kernel name */
/* The variable part holds argument i's value after the call (i < CUA_REC_OUT_ARGS). */
#define CUA_REC_OUT_SHIFT 8u
#define CUA_REC_OUT_ARGS 24u
#define CUA_REC_OUT(i) (1u << (CUA_REC_OUT_SHIFT + (i)))

/* An NVTX level as the trace keeps it: deeper ones read as 255. */
static inline uint8_t cua_rec_depth(unsigned depth)
{
	return depth < 255 ? (uint8_t)depth : 255;
}

#endif
