/* SPDX-License-Identifier: MIT */
/* hooks/plugins/plugins_config.h: the plugin loader's configuration (CUAUDIT_PLUGINS), read once in la_version. */
#ifndef CUA_PLUGINS_CONFIG_H
#define CUA_PLUGINS_CONFIG_H

#include "config.h"

#define CUA_MAX_PLUGINS 8

struct cua_plugins_config {
	char plugins[CUA_MAX_PLUGINS][CUA_PATH_MAX];
	unsigned nplugins;
};

/* CUAUDIT_PLUGINS: absolute paths separated by ':'. Returns 0 or -1. */
int cua_plugins_config_parse(const char *s, struct cua_plugins_config *cfg);
/* Reads CUAUDIT_PLUGINS through get. A bad value: one message through diag, and no plugin.
   In a secure process (AT_SECURE) none either. */
void cua_plugins_config_load(struct cua_plugins_config *cfg, cua_getenv_fn get, cua_diag_fn diag,
			     int secure);

#endif
