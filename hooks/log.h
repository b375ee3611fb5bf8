/* SPDX-License-Identifier: MIT */
/* hooks/log.h: the log: one line per call at verbose, and cuaudit's own messages by level. */
#ifndef CUA_LOG_H
#define CUA_LOG_H

#include "config.h"
#include "fmt.h"

/* Registers the per-call hook when the level is verbose or above. From la_version only. */
void cua_log_init(void);

static inline int cua_log_on(int level)
{
	return cua_cfg.log_level >= level;
}

/* Starts a message: "cuaudit: <level>: " into b. */
void cua_log_begin(struct cua_buf *b, int level);
/* Ends a message with a newline and writes it to the log destination. */
void cua_log_end(struct cua_buf *b);

/* Shorthand for a message of plain strings; NULL-terminated list. */
void cua_log_msg(int level, const char *first, ...) __attribute__((sentinel));

/* Formats the call line the verbose log writes; exposed for tests. Returns the length. */
struct cuaudit_call;
size_t cua_log_format_call(char *out, size_t cap, const struct cuaudit_call *c, uint64_t pid,
			   uint64_t wall_ns);

/* Appends "name=value, ..." for a call's arguments, as the log prints them. */
struct cua_buf;
void cua_log_format_args(struct cua_buf *b, const struct cuaudit_call *c);
/* Appends the value of argument i as the log prints it. */
void cua_log_format_arg(struct cua_buf *b, const struct cuaudit_call *c, unsigned i);
/* Appends a call's result as the log prints it (CUDA_SUCCESS, cudaErrorMemoryAllocation, hex). */
void cua_log_format_result(struct cua_buf *b, const struct cuaudit_call *c);

#endif
