/* SPDX-License-Identifier: MIT */
/* hooks/memlimit_config.h: the memory limit hook's configuration (CUAUDIT_MEM_LIMIT), read once in la_version. */
#ifndef CUA_MEMLIMIT_CONFIG_H
#define CUA_MEMLIMIT_CONFIG_H

#include <stdint.h>
#include "config.h"

struct cua_memlimit_config {
	uint64_t mem_limit;                      /* bytes for every device, 0 for none */
	uint64_t mem_limit_dev[CUA_MAX_DEVICES]; /* per-device bytes; 0 falls back to mem_limit */
};

/* CUAUDIT_MEM_LIMIT: "SIZE" for every device, or "DEV:SIZE[,DEV:SIZE...]", or both forms
   mixed ("8GiB,0:4GiB"). Returns 0 or -1. */
int cua_memlimit_config_parse(const char *s, struct cua_memlimit_config *cfg);

/* Reads CUAUDIT_MEM_LIMIT through get. A bad value: one message through diag, naming the
   variable and the accepted values, and no limit. In a secure process (AT_SECURE) none either. */
void cua_memlimit_config_load(struct cua_memlimit_config *cfg, cua_getenv_fn get,
			      cua_diag_fn diag, int secure);

#endif
