/* SPDX-License-Identifier: MIT */
/* hooks/core/tracefmt.h: the trace's binary records and raw file, and their conversion to Chrome trace JSON. */
#ifndef CUA_TRACEFMT_H
#define CUA_TRACEFMT_H

#include <stddef.h>
#include <stdint.h>
#include "writer.h"

/* One call. Followed by the argument struct, then each string argument as a length byte and
   its bytes, then (8-aligned) the extras: 16 bytes per out-parameter value whose bit is set,
   then, with CUA_TRACE_KERNEL_BIT, the kernel's name as a length byte and its bytes. The size
   is a multiple of 8 so the next record's struct stays aligned. */
struct cua_trace_rec {
	uint16_t size;
	uint16_t id;
	uint8_t binding;
	uint8_t skipped;
	uint16_t depth;
	uint32_t tid;
	uint32_t extras; /* bit i: argument i's value after the call follows; KERNEL_BIT: a name */
	uint64_t t_enter, t_exit, result;
};

#define CUA_TRACE_KERNEL_BIT (1u << 31)
/* A record of the program's own NVTX range, not a call: id CUA_TRACE_NVTX_ID, t_enter and
   t_exit its start and end, depth its nesting level plus CUA_TRACE_NVTX_LEVEL0 (0: a mark,
   1: a start/end range, which may end on another thread), then the name and the domain,
   each a length byte and its bytes. */
#define CUA_TRACE_NVTX_ID 0xffffu
#define CUA_TRACE_NVTX_LEVEL0 2
/* struct cua_trace_rec.binding: the kind below, the copy of an entry call above. */
#define CUA_TRACE_KIND_BITS 3
#define CUA_TRACE_OUT_BYTES 16
#define CUA_TRACE_MAX_OUTS 8

/* The raw file (<trace>.<pid>.<nonce>.raw): this head, then blocks. Each block is one
   thread buffer written out: a block head, then whole records. */
#define CUA_RAW_MAGIC "cuaudit-raw/1\n"
struct cua_raw_head {
	char magic[16];
	uint64_t table_sig; /* which build's ids and argument structs the records use */
	uint64_t pid;
	uint64_t nonce;
	char program[24]; /* the program's base name, cut, NUL-terminated; all 0 when unknown */
};

#define CUA_BLOCK_MAGIC 0x4b4c4243u /* "CBLK" */
enum { CUA_BLOCK_WRITING = 0, CUA_BLOCK_COMPLETE = 1, CUA_BLOCK_LIMIT = 2 };
/* The state is written last: a block cut short by a kill, a cancellation or a full disk
   stays WRITING and is skipped by the reader, whose other blocks stay whole. */
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
/* Metadata events: the process named after the program (NULL: not known, as in `cuaudit
   trace`), and each thread seen in the records named by thread_name (NULL, or a zero return:
   "thread TID"). */
void cua_tracefmt_names(struct cua_writer *w, uint64_t pid, const char *program,
			size_t (*thread_name)(uint32_t tid, char *out, size_t cap));

/* Reads the raw file on fd block by block through window[0, cap) and formats the complete
   blocks. Returns the number of blocks skipped because they were cut short; *limited is set
   when the file ends with a limit marker, *last_ns to the last event's time. */
unsigned cua_tracefmt_raw(struct cua_writer *w, int fd, char *window, size_t cap, uint64_t pid,
			  int *limited, uint64_t *last_ns);

#endif
