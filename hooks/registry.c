/* SPDX-License-Identifier: MIT */
/* hooks/registry.c: the built-in hooks, one line each, in the order la_version starts them. */
#include "configs.h"
#include "hooks.h"

/* Each line names a hook whose folder (hooks/NAME/) defines
   void cua_NAME_start(const struct cua_config *all, struct cua_hook_configs *cfg), which
   copies its slice of the configuration and subscribes if it is on. The order is the order
   of the subscriptions: hooks that may refuse or hold a call first, observers after, so that
   they see the outcome; the plugins last. A new hook is a folder and a line here. */
#define CUA_HOOKS(X)                                                                          \
	X(memlimit)      /* may refuse an allocation */                                     \
	X(fault)         /* may fail a call */                                              \
	X(compute)       /* may hold a launch; before GPU timing, which it turns on */       \
	X(gpu)           /* GPU timing */                                                   \
	X(nvtx)          /* after GPU timing: GPU time per range */                         \
	X(summary)                                                                            \
	X(trace)                                                                              \
	X(errcount)                                                                           \
	X(log)                                                                                \
	X(kernels)                                                                            \
	X(live)                                                                               \
	X(plugins)

#define CUA_DECLARE(name)                                                                     \
	void cua_##name##_start(const struct cua_config *all, struct cua_hook_configs *cfg);
CUA_HOOKS(CUA_DECLARE)

void cua_hooks_start(const struct cua_config *all, struct cua_hook_configs *cfg)
{
#define CUA_START(name) cua_##name##_start(all, cfg);
	CUA_HOOKS(CUA_START)
}
