/* SPDX-License-Identifier: MIT */
/* hooks/core/out.h: cuaudit's own output descriptors, safe to use from any thread and after fork. */
#ifndef CUA_OUT_H
#define CUA_OUT_H

#include <stddef.h>

/* Called once from la_version: duplicates stderr high and remembers the log-file template
   (empty for stderr). The log file itself is opened at the first line, so processes that never
   log create no file. */
void cua_out_setup(const char *log_template);

/* Writes one whole line to the log destination with a single write(2). */
void cua_out_log(const char *buf, size_t len);

/* cuaudit's copy of stderr, for reports sent there. */
int cua_out_stderr_fd(void);

/* Writes to cuaudit's copy of stderr, whatever the log destination. */
void cua_out_stderr(const char *buf, size_t len);

/* One error line on stderr (never into the log, which may be what failed): WHAT PATH: the
   error's name. Said at level error and above. */
void cua_out_report(const char *what, const char *path, int err);

#endif
