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

#include <stdint.h>

#define CUA_PATH_MAX 1024
#define CUA_MAX_DEVICES 64
#define CUA_MAX_FAULTS 16
#define CUA_MAX_PLUGINS 8

enum cua_fault_mode {
	CUA_FAULT_EVERY = 1, /* calls N, 2N, 3N, ... fail */
	CUA_FAULT_AFTER = 2, /* every call after the first N fails */
	CUA_FAULT_PROB = 3,  /* each call fails with probability P, from a seeded sequence */
};

struct cua_fault {
	unsigned id;          /* the API id the spec names */
	int error;            /* the result returned instead of calling the function */
	int mode;             /* enum cua_fault_mode */
	uint64_t n;           /* every:N, after:N */
	uint64_t prob_ppb;    /* prob:P, in parts per 10^9 */
	uint64_t seed;
};

struct cua_config {
	int log_level;               /* enum cua_level */
	char log_file[CUA_PATH_MAX]; /* file-name template; empty means stderr */
	char libcuda[CUA_PATH_MAX];  /* substitute for libcuda, or empty */
	char libcudart[CUA_PATH_MAX];
	char summary[CUA_PATH_MAX];  /* "stderr", a file-name template, or empty (off) */
	char trace[CUA_PATH_MAX];    /* a file-name template, or empty (off) */
	uint64_t mem_limit;          /* bytes for every device, 0 for none */
	uint64_t mem_limit_dev[CUA_MAX_DEVICES]; /* per-device bytes; 0 falls back to mem_limit */
	struct cua_fault faults[CUA_MAX_FAULTS];
	unsigned nfaults;
	char plugins[CUA_MAX_PLUGINS][CUA_PATH_MAX];
	unsigned nplugins;
	int secure;                  /* AT_SECURE: no plugins, no files, no substitutes */
	/* Output survival (issue 15): live snapshots, bounded outputs, capture range. */
	uint64_t flush_interval_ns;  /* CUAUDIT_FLUSH_INTERVAL; 0: no snapshots */
	uint64_t trace_max;          /* CUAUDIT_TRACE_MAX bytes of records; 0: no bound */
	uint64_t log_max;            /* CUAUDIT_LOG_MAX bytes per log file; 0: no bound */
	int capture;                 /* enum cua_capture */
	char metrics[CUA_PATH_MAX];  /* CUAUDIT_METRICS: a file-name template, or empty (off) */
};

enum cua_capture {
	CUA_CAPTURE_ALL = 0,
	CUA_CAPTURE_PROFILER_API = 1, /* trace only between cu/cudaProfilerStart and Stop */
};

#define CUA_FLUSH_INTERVAL_DEFAULT_NS (30ull * 1000000000ull)

/* Filled by la_version on the main thread before any other entry point runs; read-only after. */
extern struct cua_config cua_cfg;

typedef const char *(*cua_getenv_fn)(const char *name);
typedef void (*cua_diag_fn)(const char *message);

/* Reads every CUAUDIT_* variable through get. Each bad value gives one message through diag,
   naming the variable and the accepted values, and leaves that feature at its default. */
void cua_config_load(struct cua_config *cfg, cua_getenv_fn get, cua_diag_fn diag, int secure);

/* In a setuid or AT_SECURE process (cfg->secure): nothing the environment names may be loaded
   or written. Drops plugins, substitutes, the log file and the trace; a summary goes to
   stderr. The loader already refuses LD_AUDIT paths with a slash there (FACTS 1). */
void cua_config_restrict_secure(struct cua_config *cfg);

/* Returns the level named by s (ASCII, any case), or -1. */
int cua_config_parse_level(const char *s);

/* Returns 0 if tmpl is a usable file-name template (only %p, %h and %% escapes), else -1. */
int cua_config_check_template(const char *tmpl);

/* "4GiB", "512MiB", "1.5GB", "4096": bytes into *out. Units B, KB, MB, GB, TB (powers of
   1000) and KiB, MiB, GiB, TiB (powers of 1024), any case. Returns 0 or -1. */
int cua_config_parse_size(const char *s, uint64_t *out);

/* CUAUDIT_MEM_LIMIT: "SIZE" for every device, or "DEV:SIZE[,DEV:SIZE...]", or both forms
   mixed ("8GiB,0:4GiB"). Returns 0 or -1. */
int cua_config_parse_mem_limit(const char *s, struct cua_config *cfg);

/* CUAUDIT_FAULT: "ELF_NAME=ERROR@every:N|after:N|prob:P[,seed:S]" separated by ';'. ERROR is
   a result name of the function's layer (CUDA_ERROR_OUT_OF_MEMORY, cudaErrorMemoryAllocation)
   or a number. Returns 0, or -1 with a reason in why. */
int cua_config_parse_faults(const char *s, struct cua_config *cfg, char *why, unsigned whycap);

/* CUAUDIT_PLUGINS: absolute paths separated by ':'. Returns 0 or -1. */
int cua_config_parse_plugins(const char *s, struct cua_config *cfg);

/* CUAUDIT_FLUSH_INTERVAL: whole seconds, 0 for off. Returns 0 or -1. */
int cua_config_parse_seconds(const char *s, uint64_t *ns);

/* Is this trace or summary path usable: not empty, not a directory ("/x/", "/x/." or an
   existing directory)? Returns 0 or -1. */
int cua_config_check_file_path(const char *path);

#endif
