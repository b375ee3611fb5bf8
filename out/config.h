/* SPDX-License-Identifier: MIT */
/* out/config.h: the configuration read once from the environment in la_version. */
#ifndef CUA_CONFIG_H
#define CUA_CONFIG_H

#include "cuaudit.h"

/* The public levels (enum cuaudit_level, what plugins log at), plus off and verbose. */
enum cua_level {
	CUA_LOG_OFF = 0,
	CUA_LOG_ERROR = CUAUDIT_LEVEL_ERROR,
	CUA_LOG_WARN = CUAUDIT_LEVEL_WARN,
	CUA_LOG_INFO = CUAUDIT_LEVEL_INFO,
	CUA_LOG_VERBOSE = 4,
	CUA_LOG_DEBUG = CUAUDIT_LEVEL_DEBUG,
};

#include <stddef.h>
#include <stdint.h>
#include "cuaudit_ids.h"
#include "liveconfig.h"

#define CUA_PATH_MAX 1024
#define CUA_MAX_DEVICES 64
#define CUA_CAPTURE_NAME_MAX 96

struct cua_config {
	int log_level;               /* enum cua_level */
	char log_file[CUA_PATH_MAX]; /* file-name template; empty means stderr */
	char libcuda[CUA_PATH_MAX];  /* substitute for libcuda, or empty */
	char libcudart[CUA_PATH_MAX];
	int secure;                  /* AT_SECURE: no plugins, no files, no substitutes */
	/* CUAUDIT_SESSION_START (set by `cuaudit run`): when the run began, CLOCK_REALTIME ns; a
	   report file written since is another process's of the run, never replaced. 0: unset. */
	uint64_t session_start_ns;
	/* CUAUDIT_STATIC_RUNTIME: patch the entries of a statically linked runtime. */
	int static_runtime;          /* 0 off (the default), 1 on */
	/* CUAUDIT_DEMANGLE: kernel names readable (1, the default) or as compiled (0). */
	int demangle;
	/* CUAUDIT_NVTX: hand the NVTX injection library the bridge (1, the default) or not (0,
	   the library then only forwards to a chained tool). */
	int nvtx;
	/* What the log and the trace record (readable output). */
	int log_errors;              /* CUAUDIT_LOG=errors: call lines for failed calls only */
	int filtered;                /* CUAUDIT_INCLUDE or CUAUDIT_EXCLUDE is in force */
	uint8_t filter[(CUAUDIT_ID_COUNT + 7) / 8]; /* a bit per id they record, if filtered */
	/* Output survival: live snapshots, bounded outputs, capture range. */
	uint64_t flush_interval_ns;  /* CUAUDIT_FLUSH_INTERVAL; 0: no snapshots */
	uint64_t log_max;            /* CUAUDIT_LOG_MAX bytes per log file; 0: no bound */
	int capture;                 /* enum cua_capture */
	/* CUAUDIT_CAPTURE=nvtx:NAME[@DOMAIN]: the range name, and its domain ("" any domain). */
	char capture_nvtx[CUA_CAPTURE_NAME_MAX];
	char capture_nvtx_domain[CUA_CAPTURE_NAME_MAX];
	struct cua_live_config live; /* CUAUDIT_LIVE, CUAUDIT_LIVE_CALLS, CUAUDIT_LIVE_DIR */
};

enum cua_capture {
	CUA_CAPTURE_ALL = 0,
	CUA_CAPTURE_PROFILER_API = 1, /* trace only between cu/cudaProfilerStart and Stop */
	CUA_CAPTURE_CTL = 2,          /* trace and log only while `cuaudit ctl` switched them on */
	CUA_CAPTURE_NVTX = 3,         /* trace and log only inside an NVTX range of a name, per thread */
};

#define CUA_FLUSH_INTERVAL_DEFAULT_NS (30ull * 1000000000ull)

/* Filled by la_version on the main thread before any other entry point runs; read-only after. */
extern struct cua_config cua_cfg;

typedef const char *(*cua_getenv_fn)(const char *name);
typedef void (*cua_diag_fn)(const char *message);

/* Reads the shared CUAUDIT_* variables through get (each hook's own are read by its
   hooks/<hook>/<hook>_config.c). Each bad value gives one message through diag, naming the
   variable and the accepted values, and leaves that feature at its default. */
void cua_config_load(struct cua_config *cfg, cua_getenv_fn get, cua_diag_fn diag, int secure);

/* In a setuid or AT_SECURE process (cfg->secure): cuaudit only observes. Nothing the
   environment names may be loaded or written, and nothing may change the program's results:
   drops the substitutes, the log file and the live view's region; each hook's own loader drops
   its part (plugins, trace, metrics, memory limit, faults; a summary goes to stderr). The
   loader already refuses LD_AUDIT paths with a slash there (docs/facts.md §1.12). */
void cua_config_restrict_secure(struct cua_config *cfg);

/* ---------------------------------------------------------------- for each hook's loader
   A hook's variables, their parsers and their messages live with the hook
   (hooks/<hook>/<hook>_config.c); these are the pieces every loader shares. */

/* One message through diag: "cuaudit: VAR="VALUE" is not valid; accepted: ACCEPTED. FALLBACK". */
void cua_config_bad_value(cua_diag_fn diag, const char *var, const char *value, const char *accepted,
			  const char *fallback);
/* 1 if a and b are the same ASCII word, any case. */
int cua_config_same_word(const char *a, const char *b);
/* Copies src into a CUA_PATH_MAX buffer; -1 if it does not fit. */
int cua_config_copy_path(char *dst, const char *src);
/* Decimal digits at *s into *out, *s moved past them; -1 on none or overflow. */
int cua_config_parse_u64(const char **s, uint64_t *out);
/* "0.01" at *s into parts per 10^9 (0 to 1), *s moved past it; -1 otherwise. */
int cua_config_parse_fraction_ppb(const char **s, uint64_t *out);
/* A size (see cua_config_parse_size) at *s, *s moved past it; 0 is accepted here. */
int cua_config_parse_size_at(const char **s, uint64_t *out);
/* One item of a list separated by sep: its length in *len; returns the next item's start, or
   NULL after the last. */
const char *cua_config_list_item(const char *s, char sep, size_t *len);
/* Writes a, then blen bytes of b, into why (cap bytes, terminated); returns -1. */
int cua_config_fail_why(char *why, unsigned cap, const char *a, const char *b, size_t blen);
/* An output's file-name template from var into dst (CUA_PATH_MAX): absolute, its %q{NAME}
   values captured; "stderr" too when allow_stderr. A bad value: one message, dst unchanged. */
void cua_config_load_report(char *dst, const char *var, int allow_stderr, cua_getenv_fn get,
			    cua_diag_fn diag);

/* Returns the level named by s (ASCII, any case), or -1. */
int cua_config_parse_level(const char *s);

/* Returns 0 if tmpl is a usable file-name template (only %p, %h, %q{NAME} and %% escapes),
   else -1. Pure: it reads no environment. */
int cua_config_check_template(const char *tmpl);
/* 1 if path is a regular file holding an ELF shared object of this process's class and
   machine: what CUAUDIT_LIBCUDA and CUAUDIT_LIBCUDART must name. */
int cua_config_is_shared_object(const char *path);

/* Reads, through get, the environment variable of each %q{NAME} in an accepted template and
   records it for cua_fmt_path. Every loader of a file-name template calls it in la_version.
   Returns 0, or -1 when a value is longer than 255 bytes or more than 8 names are used. */
int cua_config_capture_template(const char *tmpl, cua_getenv_fn get);


/* "4GiB", "512MiB", "1.5GB", "4096": bytes into *out. Units B, KB, MB, GB, TB (powers of
   1000) and KiB, MiB, GiB, TiB (powers of 1024), any case. Computed exactly and rounded down
   to a whole byte; at most 18 fraction digits. Returns 0, or -1 for zero, for anything else,
   and for a value above UINT64_MAX. */
int cua_config_parse_size(const char *s, uint64_t *out);


/* CUAUDIT_STATIC_RUNTIME: "1" or "0" (also "on"/"off", "yes"/"no", "true"/"false", any case)
   into *out. Returns 0 or -1. */
int cua_config_parse_static_runtime(const char *s, int *out);



/* ---------------------------------------------------------------- filters */

/* Matches an ELF name against a glob of '*' (any run) and '?' (any one byte). */
int cua_config_glob(const char *pattern, size_t plen, const char *name);

/* CUAUDIT_INCLUDE / CUAUDIT_EXCLUDE: comma-separated globs over ELF names into a bit per id
   (out, CUAUDIT_ID_COUNT bits). Returns 0, or -1 with the first bad pattern (empty, or
   matching no ELF name) described in why. */
int cua_config_parse_globs(const char *s, uint8_t *out, char *why, unsigned whycap);

/* The ids the log and the trace record: every id when not filtered. Returns how many it
   wrote into ids (CUAUDIT_ID_COUNT entries). */
unsigned cua_config_filter_ids(const struct cua_config *cfg, unsigned *ids);
/* CUAUDIT_FLUSH_INTERVAL: whole seconds, 0 for off. Returns 0 or -1. */
int cua_config_parse_seconds(const char *s, uint64_t *ns);

/* A size from var into *dst (the bound of an output); a bad value: one message, *dst kept. */
void cua_config_load_size(uint64_t *dst, const char *var, cua_getenv_fn get, cua_diag_fn diag);

/* Is this trace or summary path usable: not empty, not a directory ("/x/", "/x/." or an
   existing directory)? Returns 0 or -1. */
int cua_config_check_file_path(const char *path);

#endif
