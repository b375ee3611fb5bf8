/* SPDX-License-Identifier: MIT */
/* hooks/core/log.h: cuaudit's own messages by level. */
#ifndef CUA_LOG_H
#define CUA_LOG_H

#include "config.h"
#include "fmt.h"

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

#endif
