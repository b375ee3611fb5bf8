/* SPDX-License-Identifier: MIT */
/* out/out.h: cuaudit's own output descriptors, safe to use from any thread and after fork. */
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

/* The one rule for every output file cuaudit writes (log, summary, trace, metrics): a file
   cuaudit did not write is never replaced or appended to. Starting from 'base', each name is
   tried in turn, base then NAME.1.ext, NAME.2.ext, ... (before the extension), with no upper
   bound: a name that does not exist is created (O_EXCL); an existing regular file is taken only
   if it is empty or begins with 'signature' (cuaudit wrote it) and 'later' (may be NULL) does
   not ask to go on (an earlier image of this process finished it at its exec). The first time
   a file cuaudit did not write is passed over, the user is told at the default level (warn),
   naming 'what', the file left alone and the name used. With CUA_OUT_APPEND (the log) the file
   is opened for appending and kept, and a path that is not a regular file (a FIFO, a device)
   is opened as it is; otherwise a file taken is emptied. Never follows a symbolic link in the
   last component. The name used is in path. Returns the descriptor (1000 or above) or -1. */
#define CUA_OUT_APPEND 1u
#define CUA_OUT_QUIET 2u /* said already: the log's reopening after a rotation */
int cua_out_choose(const char *what, const char *base, const char *signature, unsigned flags,
		   int (*later)(int fd), char *path, size_t cap);

#endif
