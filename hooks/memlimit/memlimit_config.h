/* SPDX-License-Identifier: MIT */
/* hooks/memlimit/memlimit_config.h: the memory limit hook's configuration (CUAUDIT_MEM_LIMIT), read once in la_version. */
#ifndef CUA_MEMLIMIT_CONFIG_H
#define CUA_MEMLIMIT_CONFIG_H

#include <stdint.h>
#include "config.h"

struct cua_memlimit_config {
	uint64_t mem_limit;                      /* bytes for every device, 0 for none */
	uint64_t mem_limit_dev[CUA_MAX_DEVICES]; /* per-device bytes; 0 falls back to mem_limit */
	/* CUAUDIT_MEM_GROUP, its %q{NAME} expanded: the group whose processes share the limit;
	   empty for none. CUAUDIT_SHARE_DIR: where its file lives (/dev/shm). */
	char group[128];
	char share_dir[CUA_PATH_MAX];
};

/* CUAUDIT_MEM_LIMIT: "SIZE" for every device, or "DEV:SIZE[,DEV:SIZE...]", or both forms
   mixed ("8GiB,0:4GiB"). Returns 0 or -1. */
int cua_memlimit_config_parse(const char *s, struct cua_memlimit_config *cfg);

/* 1 if name is a usable group name: 1 to 127 bytes of A-Z a-z 0-9 . _ -, not starting with
   a dot (it becomes part of a file name). */
int cua_memlimit_group_name_ok(const char *name);
/* CUAUDIT_MEM_GROUP's value: %q{NAME} and %% expanded into out (128 bytes), which must then
   be a group name. Captures the values it names through get. Returns 0 or -1. */
int cua_memlimit_group_parse(const char *s, char *out, cua_getenv_fn get);

/* Reads CUAUDIT_MEM_LIMIT, CUAUDIT_MEM_GROUP and CUAUDIT_SHARE_DIR through get. A bad value: one message through diag, naming the
   variable and the accepted values, and no limit (a bad group or share directory: no group,
   the limit per process). In a secure process (AT_SECURE) none either. */
void cua_memlimit_config_load(struct cua_memlimit_config *cfg, cua_getenv_fn get,
			      cua_diag_fn diag, int secure);

#endif
