/* SPDX-License-Identifier: MIT */
/* rt/finish.h: the exit-work list: what runs when the program image ends, at exit or just before an exec. */
#ifndef CUA_FINISH_H
#define CUA_FINISH_H

/* Work to do when the program image ends (rt/finish.c): at a normal exit, and, for
   work flagged CUA_FINISH_AT_EXEC, just before exec replaces the image. Each runs once, in
   registration order. After an exec that failed, cua_finish_resume calls each resume
   function given (may be NULL) and the work runs again at exit, unless it is flagged
   CUA_FINISH_ONCE (it cannot be done twice). */
/* CUA_FINISH_OWN_CALLS: at exit, skipped in a forked child that has made no call the summary
   or the trace kept (a worker of a pool that never uses CUDA), as at exec: it would write an
   empty report of its own, and say so, for every such child. */
enum { CUA_FINISH_AT_EXEC = 1, CUA_FINISH_ONCE = 2, CUA_FINISH_OWN_CALLS = 4 };
void cua_finish_add(void (*fn)(void), void (*resume)(void), unsigned flags);
void cua_finish_run(void);
void cua_finish_run_at_exec(void);
void cua_finish_resume(void);
/* Whether any work is flagged CUA_FINISH_AT_EXEC: nothing to write at exec otherwise. */
int cua_finish_any_at_exec(void);

#endif
