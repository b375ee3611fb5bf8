/* SPDX-License-Identifier: MIT */
/* hooks/core/process.h: process identity across fork, and the exit-work list. */
#ifndef CUA_PROCESS_H
#define CUA_PROCESS_H

#include <stdint.h>

/* Work to do when the process exits normally, in registration order (hooks/core/finish.c). */
void cua_finish_add(void (*fn)(void));
void cua_finish_run(void);

/* Sets up the fork detector; from la_version. */
void cua_process_init(void);
/* This process's id in one load: the cache lives in a page the kernel wipes in a forked
   child (MADV_WIPEONFORK), since pthread_atfork handlers of the audit namespace never run. */
uint64_t cua_process_id(void);
/* The host name, for %h in file names and the summary's "process"; "unknown" if unreadable. */
const char *cua_process_host(void);

#endif
