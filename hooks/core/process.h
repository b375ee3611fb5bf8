/* SPDX-License-Identifier: MIT */
/* hooks/core/process.h: process identity across fork, and the exit-work list. */
#ifndef CUA_PROCESS_H
#define CUA_PROCESS_H

#include <stdint.h>

/* Work to do when the program image ends (hooks/core/finish.c): at a normal exit, and, for
   work flagged CUA_FINISH_AT_EXEC, just before exec replaces the image. Each runs once, in
   registration order. After an exec that failed, cua_finish_resume calls each resume
   function given (may be NULL) and the work runs again at exit, unless it is flagged
   CUA_FINISH_ONCE (it cannot be done twice). */
enum { CUA_FINISH_AT_EXEC = 1, CUA_FINISH_ONCE = 2 };
void cua_finish_add(void (*fn)(void), void (*resume)(void), unsigned flags);
void cua_finish_run(void);
void cua_finish_run_at_exec(void);
void cua_finish_resume(void);
/* Whether any work is flagged CUA_FINISH_AT_EXEC: nothing to write at exec otherwise. */
int cua_finish_any_at_exec(void);

/* The program's __errno_location (its C library's, not the audit namespace's), set when
   that library is opened; NULL before. Hooks that call the driver themselves restore the
   program's errno through it. */
extern int *(*cua_program_errno)(void);
/* The program's __cxa_atexit: work registered through it runs at the program's exit, in
   reverse order of registration, so before the CUDA runtime's own exit teardown when it is
   registered after the runtime started. NULL before its C library is opened. */
extern int (*cua_program_cxa_atexit)(void (*fn)(void *), void *arg, void *dso);

/* Sets up the fork detector; from la_version. */
void cua_process_init(void);
/* This process's id in one load: the cache lives in a page the kernel wipes in a forked
   child (MADV_WIPEONFORK), since pthread_atfork handlers of the audit namespace never run. */
uint64_t cua_process_id(void);
/* 1 when this process owns its memory and has made a call the summary or the trace kept: 0
   in a vfork child, which shares its parent's memory (the cache holds the parent's pid), and
   in an image or a forked child that has made no such call yet. */
int cua_process_image_is_own(void);
/* The host name, for %h in file names and the summary's "process"; "unknown" if unreadable. */
const char *cua_process_host(void);

#endif
