/* SPDX-License-Identifier: MIT */
/* record/tracefmt.h: the trace's binary records and raw file, and their conversion to Chrome trace JSON. */
#ifndef CUA_TRACEFMT_H
#define CUA_TRACEFMT_H

#include <stddef.h>
#include <stdint.h>
#include "callrec.h"
#include "writer.h"

/* One call: the head every stored call record has (rt/callrec.h: h.size is the record's
   bytes, a multiple of 8 so that the next record's head stays aligned; h.flags says what the
   variable part holds), then the argument struct (cua_trace_args_size bytes), then each
   string argument as a length byte and its bytes, then (8-aligned) 16 bytes per
   out-parameter value whose CUA_REC_OUT bit is set, then, with CUA_REC_KERNEL, the kernel's
   name as a length byte and its bytes. */
/* A record of the program's own NVTX range, not a call: id CUA_TRACE_NVTX_ID, t_start and
   t_end its start and end, depth its nesting level plus CUA_TRACE_NVTX_LEVEL0 (0: a mark,
   1: a start/end range, which may end on another thread), then the name and the domain,
   each a length byte and its bytes. */
#define CUA_TRACE_NVTX_ID 0xffffu
#define CUA_TRACE_NVTX_LEVEL0 2
#define CUA_TRACE_OUT_BYTES 16
#define CUA_TRACE_MAX_OUTS 8

/* Records that are no call: an id no function has, the thread id and t_start as in a call,
   then a length byte and that many bytes of text. A thread's first record is its name (the
   kernel's name of the thread then, PR_GET_NAME), so that a raw file converted after the
   process ended names its threads; a mark is an instant event (`cuaudit ctl` started or
   stopped the trace there). */
#define CUA_TRACE_ID_NAME 0xfffeu
#define CUA_TRACE_ID_MARK 0xfffdu

/* With the live view on, a call is stored once, in its thread's ring (rt/livefmt.h), where
   what the ring record lacks fits in its room after the argument struct and nothing else
   is needed (no nested calls' hook time, no patched entry's copy): the trace writes the
   variable part just after the struct, as a call record has it, and at CUA_RING_TAIL_AT
   (an offset into the ring record's argument bytes) the call record's size and flags, and
   marks the record CUA_LIVE_TRACED. Before the ring comes round, the thread writes those
   calls out as call records: the ring record's first bytes, its size and flags from the
   tail (its head is the call record's, rt/callrec.h). The raw file holds call records
   alone, as without the view. */
#define CUA_RING_TAIL_AT 88u
struct cua_ring_tail {
	uint32_t size;  /* the call record's */
	uint32_t flags; /* the call record's */
};

/* The raw file (<trace>.<pid>.<nonce>.raw): this head, then blocks. Each block is one
   thread buffer written out: a block head, then whole records. */
#define CUA_RAW_MAGIC "cuaudit-raw/4\n" /* 4: call records alone (3 had references into
					  the live view's rings) */
#define CUA_RAW_MAGIC_PREFIX "cuaudit-raw/" /* an older one: the version differs */
struct cua_raw_head {
	char magic[16];
	uint64_t table_sig; /* which build's ids and argument structs the records use */
	uint64_t pid;
	uint64_t nonce;
	char program[24]; /* the program's base name, cut, NUL-terminated; all 0 when unknown */
	/* The writer's identity beyond its pid, which is reused: its start in clock ticks since
	   boot (/proc/PID/stat field 22) and its PID namespace (0: unknown). `cuaudit trace`
	   tells a writer still running from a pid reused since. */
	uint64_t start_ticks;
	uint32_t pidns;
	uint32_t reserved;
	/* One CLOCK_REALTIME and CLOCK_MONOTONIC pair read together at the process's start: the
	   records' times (monotonic) convert to wall-clock time. */
	uint64_t anchor_realtime_ns, anchor_monotonic_ns;
};

#define CUA_BLOCK_MAGIC 0x4b4c4243u /* "CBLK" */
enum { CUA_BLOCK_WRITING = 0, CUA_BLOCK_COMPLETE = 1, CUA_BLOCK_LIMIT = 2, CUA_BLOCK_EXITED = 3 };
/* The state is written last: a block cut short by a kill, a cancellation or a full disk
   stays WRITING and is skipped by the reader, whose other blocks stay whole. LIMIT and
   EXITED are end markers without records: CUAUDIT_TRACE_MAX was reached; the process
   exited and kept this file whole instead of converting it (CUAUDIT_TRACE_EXIT_TIME). */
struct cua_block_head {
	uint32_t magic;
	uint32_t state;
	uint64_t len;
};

/* Bytes of argument struct each id's record carries; filled by cua_tracefmt_init. */
extern uint16_t cua_trace_args_size[];
void cua_tracefmt_init(void);
/* A digest of the generated table the records depend on. */
uint64_t cua_tracefmt_table_sig(void);

/* The JSON's first bytes, also the signature cua_writer_open checks. */
#define CUA_TRACE_SIGNATURE "{\"displayTimeUnit\":\"ns\",\"traceEvents\""
void cua_tracefmt_head(struct cua_writer *w, uint64_t pid);
/* Formats the whole records in p[0, n) (changes them in place); returns the bytes used. */
size_t cua_tracefmt_records(struct cua_writer *w, char *p, size_t n, uint64_t pid);
/* An instant event marking where the trace stops early and why. */
void cua_tracefmt_marker(struct cua_writer *w, uint64_t pid, uint64_t ts_ns, const char *why);
void cua_tracefmt_tail(struct cua_writer *w);
/* The wall-clock anchor as a metadata event ("cuaudit_clock"): a time ts of the trace is
   at realtime_ns + (ts - monotonic_ns) of the wall clock. Nothing when realtime_ns is 0. */
void cua_tracefmt_clock(struct cua_writer *w, uint64_t pid, uint64_t realtime_ns,
			uint64_t monotonic_ns);
/* Metadata events: the process named after the program (NULL: not known), and each thread
   seen in the records named by thread_name (the thread's name now, where it runs), else by
   the name its first record carried, else "main" for the thread whose id is the pid and
   "thread TID" for others. */
void cua_tracefmt_names(struct cua_writer *w, uint64_t pid, const char *program,
			size_t (*thread_name)(uint32_t tid, char *out, size_t cap));

/* Reads the raw file on fd block by block through window[0, cap) and formats the complete
   blocks. Returns the number of blocks skipped because they were cut short; *end is the end
   marker's state (CUA_BLOCK_LIMIT or CUA_BLOCK_EXITED) or 0, *last_ns the last event's time. */
unsigned cua_tracefmt_raw(struct cua_writer *w, int fd, char *window, size_t cap, uint64_t pid,
			  int *end, uint64_t *last_ns);
/* The same, stopping before the next block once CLOCK_MONOTONIC reaches deadline_ns (0: no
   deadline), with *late set. */
unsigned cua_tracefmt_raw_until(struct cua_writer *w, int fd, char *window, size_t cap,
				uint64_t pid, int *end, uint64_t *last_ns, uint64_t deadline_ns,
				int *late);

#endif
