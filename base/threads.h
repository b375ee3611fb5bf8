/* SPDX-License-Identifier: MIT */
/* base/threads.h: the per-thread registry: one record per live thread, handed to a new thread once its owner has ended. */
#ifndef CUA_THREADS_H
#define CUA_THREADS_H

#include <stddef.h>
#include <stdint.h>

/* The head of every per-thread record (the summary's statistics, the trace's buffer). Only
   its owner thread writes the record; readers at exit or at a snapshot read it as it is. */
struct cua_tslot {
	struct cua_tslot *next;
	uint64_t pid;  /* the process that made it: a forked child starts its own */
	uint32_t tid;  /* the owner thread */
	uint32_t busy; /* non-zero while its owner is inside an operation that must finish first */
	uint32_t level; /* the reentrancy level it serves (CUA_LEVELS) */
};

/* Signal handlers: a CUDA call made from a handler that interrupted a hook's update of its
   per-thread record must not touch that record, whose update is half done. The thread
   counts how many such updates are in progress (cua_self.level, one count for every keeper:
   0 normally, 1 in a handler that interrupted one, ...), and each keeper has a record per
   level; the report merges them all. A handler restores the count before it returns, so the
   interrupted thread's plain increment and decrement stay right; one that jumps out
   (siglongjmp) is forgotten at the thread's next update above its frame
   (cua_level_resolve). Past CUA_LEVELS levels
   (handlers interrupting handlers interrupting handlers) a call is counted as lost
   (CUA_LEVELS, cua_level_enter: base/process.h). */

/* The calling thread's record in the list at *head: a record whose owner thread no longer
   exists (tgkill reports ESRCH, or its thread id is the caller's own) is adopted as it is,
   counts and buffered records included, so memory follows the live threads and nothing
   counted is lost; otherwise a new zeroed record of 'size' bytes is mapped and added.
   Returns NULL only if mapping fails. Not on the hot path: once per thread. */
struct cua_tslot *cua_tslot_acquire(struct cua_tslot **head, size_t size, uint64_t pid,
				    uint32_t tid, unsigned level);

/* The process whose thread last took a record: the current one once any of its threads has
   made a call that the summary or the trace keeps. */
uint64_t cua_tslot_last_pid(void);

/* Does thread tid of process pid still exist? */
int cua_thread_alive(uint64_t pid, uint32_t tid);

/* Waits at exit are bounded in time, not in a count of sleeps: under load one usleep(10)
   lasts a millisecond or more, and 100,000 of them were a hang.
   cua_wait_deadline gives now + CUA_WAIT_MAX_NS; cua_wait_more sleeps a little and returns 0
   once that time has passed. */
#define CUA_WAIT_MAX_NS 1000000000ull
uint64_t cua_wait_deadline(void);
int cua_wait_more(uint64_t deadline);

#endif
