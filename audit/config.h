/* SPDX-License-Identifier: MIT */
/* audit/config.h: the configuration read once from the environment in la_version. */
#ifndef CUA_CONFIG_H
#define CUA_CONFIG_H

enum cua_level {
	CUA_LOG_OFF = 0,
	CUA_LOG_ERROR = 1,
	CUA_LOG_WARN = 2,
	CUA_LOG_INFO = 3,
	CUA_LOG_VERBOSE = 4,
	CUA_LOG_DEBUG = 5,
};

#define CUA_PATH_MAX 1024

struct cua_config {
	int log_level;               /* enum cua_level */
	char log_file[CUA_PATH_MAX]; /* file-name template; empty means stderr */
	char libcuda[CUA_PATH_MAX];  /* substitute for libcuda, or empty */
	char libcudart[CUA_PATH_MAX];
};

/* Filled by la_version on the main thread before any other entry point runs; read-only after. */
extern struct cua_config cua_cfg;

typedef const char *(*cua_getenv_fn)(const char *name);
typedef void (*cua_diag_fn)(const char *message);

/* Reads every CUAUDIT_* variable through get. Each bad value gives one message through diag,
   naming the variable and the accepted values, and leaves that feature at its default. */
void cua_config_load(struct cua_config *cfg, cua_getenv_fn get, cua_diag_fn diag);

/* Returns the level named by s (ASCII, any case), or -1. */
int cua_config_parse_level(const char *s);

/* Returns 0 if tmpl is a usable file-name template (only %p, %h and %% escapes), else -1. */
int cua_config_check_template(const char *tmpl);

#endif
