/* SPDX-License-Identifier: MIT */
/* out/liveconfig.h: the live view's slice of the configuration and its parser. */
#ifndef CUA_LIVECONFIG_H
#define CUA_LIVECONFIG_H

#include <stddef.h>
#include <stdint.h>

struct cua_live_config {
	int on;          /* CUAUDIT_LIVE, or CUAUDIT_CAPTURE=ctl (its channel is the region) */
	unsigned calls;  /* CUAUDIT_LIVE_CALLS rounded up to a power of two; 64 by default */
	char dir[1024];  /* CUAUDIT_LIVE_DIR, absolute; empty: the default */
};

typedef const char *(*cua_liveconfig_get_fn)(const char *name);
typedef void (*cua_liveconfig_diag_fn)(const char *message);

/* Reads the three variables once (la_version); a bad value gets one message and its
   default. */
void cua_liveconfig_load(struct cua_live_config *cfg, int capture_ctl, cua_liveconfig_get_fn get,
			 cua_liveconfig_diag_fn diag);
/* The live directory as the module takes it: made if missing (mode 0700), opened without
   following a link, a directory of the user's own with no access for group and others.
   Returns its descriptor, or -1 with *why (what is wrong, ending in a space or ": " before
   the directory's name) and *err (an errno value, 0 for none). `cuaudit run` refuses a
   directory this refuses, before the program starts. No stdio: safe in the module. */
int cua_liveconfig_open_dir(const char *dir, const char **why, int *err);
/* The directory used when CUAUDIT_LIVE_DIR is not set: /tmp/cuaudit-UID. */
size_t cua_liveconfig_default_dir(char *out, size_t cap, uint64_t uid);

#endif
