/* SPDX-License-Identifier: MIT */
/* record/callfmt.h: formats an intercepted call as the log and the trace print it. */
#ifndef CUA_CALLFMT_H
#define CUA_CALLFMT_H

#include <stddef.h>
#include <stdint.h>
#include "fmt.h"

/* Formats the call line the verbose log writes; exposed for tests. Returns the length. */
struct cuaudit_call;
size_t cua_callfmt_call(char *out, size_t cap, const struct cuaudit_call *c, uint64_t pid,
			   uint64_t wall_ns);

/* Appends "name=value, ..." for a call's arguments, as the log prints them. */
struct cua_buf;
void cua_callfmt_args(struct cua_buf *b, const struct cuaudit_call *c);
/* Appends the value of argument i as the log prints it. */
void cua_callfmt_arg(struct cua_buf *b, const struct cuaudit_call *c, unsigned i);
/* Appends argument i's value, or with out non-NULL the value after the call that out holds
   (read by cua_callfmt_out_value); deref_strings 0 (the trace, after the call's memory may be
   gone) prints an out string pointer and a CUuuid pointer in hex instead of reading them.
   Returns 1 when the text is a plain number. */
int cua_callfmt_arg_value(struct cua_buf *b, const struct cuaudit_call *c, unsigned i,
			     const uint64_t *out, int deref_strings);
/* Whether argument i of function id is an out-parameter whose pointee cua_callfmt_out_value
   copies (a scalar, a pointer, a dim3 or a UUID of at most 16 bytes): fixed per function. */
int cua_callfmt_out_kept(unsigned id, unsigned i);
/* For an out-parameter of a call that succeeded, copies what it points at into out (up to
   16 bytes) and returns 1; otherwise 0. Never reads through NULL. From exit callbacks only. */
int cua_callfmt_out_value(const struct cuaudit_call *c, unsigned i, uint64_t out[2]);
/* Appends a call's result as the log prints it (CUDA_SUCCESS, cudaErrorMemoryAllocation, hex). */
void cua_callfmt_result(struct cua_buf *b, const struct cuaudit_call *c);

#endif
