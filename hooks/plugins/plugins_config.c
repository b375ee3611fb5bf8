/* SPDX-License-Identifier: MIT */
/* hooks/plugins/plugins_config.c: CUAUDIT_PLUGINS, the plugin loader's variable: its parser and its message. */
#include <string.h>
#include <unistd.h>
#include "plugins_config.h"

int cua_plugins_config_parse(const char *s, struct cua_plugins_config *cfg)
{
	char paths[CUA_MAX_PLUGINS][CUA_PATH_MAX];
	unsigned n = 0;

	for (const char *next = s; next;) {
		size_t len;

		s = next;
		next = cua_config_list_item(s, ':', &len);
		/* Absolute only: a relative path would follow the program's current directory. */
		if (len == 0 || len >= CUA_PATH_MAX || s[0] != '/' || n == CUA_MAX_PLUGINS)
			return -1;
		memcpy(paths[n], s, len);
		paths[n][len] = '\0';
		if (access(paths[n], R_OK) != 0)
			return -1;
		n++;
	}
	memcpy(cfg->plugins, paths, sizeof(paths[0]) * n);
	cfg->nplugins = n;
	return 0;
}

void cua_plugins_config_load(struct cua_plugins_config *cfg, cua_getenv_fn get, cua_diag_fn diag,
			     int secure)
{
	const char *v = get("CUAUDIT_PLUGINS");

	memset(cfg, 0, sizeof(*cfg));
	if (v && cua_plugins_config_parse(v, cfg) != 0)
		cua_config_bad_value(diag, "CUAUDIT_PLUGINS", v,
				     "up to 8 absolute paths of readable shared objects, separated by"
				     " ':'",
				     "No plugin is loaded.");
	/* Nothing the environment names is loaded into a secure process. */
	if (secure)
		cfg->nplugins = 0;
}
