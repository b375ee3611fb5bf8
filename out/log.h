/* SPDX-License-Identifier: MIT */
/* out/log.h: cuaudit's own messages by level. */
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

/* "BEFORE N AFTER", a count in a message of plain strings. */
void cua_log_count(int level, const char *before, uint64_t n, const char *after);

/* "cuaudit: Generated: PATH (the WHAT of pid N)": where an output file went, said once per
   file at the default level (warn) and above, as Nsight Systems does, since the name may be
   a numbered one (NAME.1.json) the user did not give. cut: the file is whole but misses
   events an error made the output drop: "(the WHAT of pid N, cut short: ...)". */
void cua_log_generated(const char *what, const char *path, int cut);

#endif
