/* SPDX-License-Identifier: MIT */
/* hooks/live/live.c: the CUAUDIT_LIVE hook: sets up the live region; the dispatch writes each call into it (dispatch.h). */
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "configs.h"
#include "dispatch.h"
#include "finish.h"
#include "hooks.h"
#include "livefmt.h"
#include "process.h"
#include "table.h"

static void live_finish(void)
{
	cua_live_remove();
}

int cua_live_init(const struct cua_config *all)
{
	char dir[CUA_PATH_MAX];
	uint32_t caps = 0;

	if (!all->live.on || all->secure)
		return 0;
	if (all->live.dir[0])
		memcpy(dir, all->live.dir, sizeof(all->live.dir));
	else
		cua_liveconfig_default_dir(dir, sizeof(dir), geteuid());
	if (cua_trace_on() && all->capture != CUA_CAPTURE_ALL) /* the trace started first */
		caps |= CUA_LIVE_CAP_TRACE;
	if (all->capture == CUA_CAPTURE_CTL && (all->log_level >= CUA_LOG_VERBOSE || all->log_errors))
		caps |= CUA_LIVE_CAP_LOG;
	/* The trace keeps calls in the ring until three quarters of it are taken: a quarter of
	   it is the room a signal handler's calls have while the trace's own update runs
	   (hooks/trace/trace.c), so at least CUA_LIVE_CALLS_TRACE records then. */
	if (cua_live_setup(dir, cua_trace_on() && all->live.calls < CUA_LIVE_CALLS_TRACE ? CUA_LIVE_CALLS_TRACE
										       : all->live.calls,
			   caps) != 0)
		return -1;
	/* At exit the file goes; at an exec it is marked exited (audit/exec.c,
	   cua_live_exec_begin), and kept by a failed one. */
	cua_finish_add(live_finish, NULL, CUA_FINISH_ONCE);
	/* Every function: the view shows what each thread is inside, whatever the filters. No
	   subscription: the dispatch itself marks each call's start and end (dispatch.h), with
	   the summary's or the trace's clock reads where they run, and alone its own two. A
	   killed process leaves its file (no handler is installed: docs/design.md, "Death by a
	   signal"); `cuaudit ps` shows it dead, for the post-mortem. */
	cua_dispatch_cover_all();
	return 0;
}

/* The registry's entry (hooks/registry.c). */
void cua_live_start(const struct cua_config *all, struct cua_hook_configs *cfg)
{
	(void)cfg;
	cua_live_init(all);
}
