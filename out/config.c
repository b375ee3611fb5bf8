/* SPDX-License-Identifier: MIT */
/* out/config.c: parses the shared CUAUDIT_* variables into struct cua_config, and the parsers every hook's loader uses, without locale use. */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "fmt.h"
#include "table.h"

struct cua_config cua_cfg = { .log_level = CUA_LOG_WARN, .demangle = 1, .nvtx = 1 };

static const char *const level_names[] = { "off", "error", "warn", "info", "verbose", "debug" };

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

int cua_config_same_word(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (lower(*a) != lower(*b))
			return 0;
	return *a == *b;
}

int cua_config_parse_level(const char *s)
{
	for (unsigned i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (cua_config_same_word(s, level_names[i]))
			return (int)i;
	return -1;
}

int cua_config_check_template(const char *tmpl)
{
	if (!*tmpl)
		return -1;
	for (const char *s = tmpl; *s; s++) {
		size_t n;

		if (*s != '%')
			continue;
		s++;
		if (*s == 'q' && s[1] == '{' && (n = cua_fmt_var_name(s + 2)) > 0)
			s += 2 + n;
		else if (*s != 'p' && *s != 'h' && *s != '%')
			return -1;
	}
	return 0;
}

int cua_config_capture_template(const char *tmpl, cua_getenv_fn get)
{
	for (const char *s = tmpl; *s; s++) {
		size_t n;

		if (*s != '%')
			continue;
		s++;
		if (*s == 'q' && s[1] == '{' && (n = cua_fmt_var_name(s + 2)) > 0) {
			char name[CUA_FMT_VAR_NAME_MAX + 1];

			memcpy(name, s + 2, n);
			name[n] = '\0';
			if (cua_fmt_capture(name, n, get(name)) != 0)
				return -1;
			s += 2 + n;
		} else if (!*s) {
			break;
		}
	}
	return 0;
}

void cua_config_bad_value(cua_diag_fn diag, const char *var, const char *value, const char *accepted,
			  const char *fallback)
{
	char msg[CUA_PATH_MAX + 512];
	struct cua_buf b = CUA_BUF(msg);

	cua_buf_str(&b, "cuaudit: ");
	cua_buf_str(&b, var);
	cua_buf_char(&b, '=');
	cua_buf_quoted(&b, value, 200);
	cua_buf_str(&b, " is not valid; accepted: ");
	cua_buf_str(&b, accepted);
	cua_buf_str(&b, ". ");
	cua_buf_str(&b, fallback);
	cua_buf_char(&b, '\n');
	msg[b.len < sizeof(msg) ? b.len : sizeof(msg) - 1] = '\0';
	diag(msg);
}

int cua_config_copy_path(char *dst, const char *src)
{
	size_t n = strlen(src);

	if (n >= CUA_PATH_MAX)
		return -1;
	memcpy(dst, src, n + 1);
	return 0;
}

static void load_log(struct cua_config *cfg, cua_getenv_fn get, cua_diag_fn diag)
{
	const char *v = get("CUAUDIT_LOG");

	if (v) {
		int level = cua_config_parse_level(v);

		if (cua_config_same_word(v, "errors")) {
			/* Messages as at warn, and a line for each call that failed. */
			cfg->log_errors = 1;
			cfg->log_level = CUA_LOG_WARN;
		} else if (level < 0) {
			cua_config_bad_value(diag, "CUAUDIT_LOG", v,
					     "off, error, warn, info, verbose, debug, or errors (a line for each "
					     "failed call)",
					     "Logging stays at the default, warn.");
		} else {
			cfg->log_level = level;
		}
	}
	v = get("CUAUDIT_LOG_FILE");
	if (!v)
		return;
	if (cua_config_check_template(v) != 0 || cua_config_capture_template(v, get) != 0 ||
	    cua_config_copy_path(cfg->log_file, v) != 0)
		cua_config_bad_value(diag, "CUAUDIT_LOG_FILE", v,
				     "a non-empty path shorter than 1024 bytes, where %p is the pid, %h the "
				     "host name, %q{NAME} the value of environment variable NAME and %% a "
				     "percent sign",
				     "The log goes to stderr.");
}

/* ---------------------------------------------------------------- library substitutes */

#if defined(__x86_64__)
#define NATIVE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define NATIVE_MACHINE EM_AARCH64
#else
#define NATIVE_MACHINE EM_NONE
#endif

int cua_config_is_shared_object(const char *path)
{
	ElfW(Ehdr) eh;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, &eh, sizeof(eh)) : -1;
	close(fd);
	/* What the loader would refuse, refused here: the program keeps its own library
	   instead of failing to start. A PIE executable is ET_DYN too, and loads. */
	return n == (ssize_t)sizeof(eh) && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	       eh.e_ident[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) &&
	       eh.e_type == ET_DYN && (NATIVE_MACHINE == EM_NONE || eh.e_machine == NATIVE_MACHINE);
}

static void load_substitute(char *dst, const char *var, cua_getenv_fn get, cua_diag_fn diag)
{
	const char *v = get(var);

	if (!v)
		return;
	/* A relative path would break in any child that changes directory, and a missing file
	   would make the program's own load fail: refuse both up front. */
	if (v[0] != '/' || !cua_config_is_shared_object(v) || cua_config_copy_path(dst, v) != 0)
		cua_config_bad_value(diag, var, v, "an absolute path to a readable ELF shared object of this "
				     "machine", "The library is not substituted.");
}

/* ---------------------------------------------------------------- numbers */

/* Parses decimal digits at *s; returns -1 on none or overflow. */
int cua_config_parse_u64(const char **s, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*s = p;
	*out = v;
	return 0;
}

/* "W" or "W.F", with at least one digit after a point and at most 18: the whole part, the
   fraction's digits as a number, and 10 to the power of their count. Exact, never wraps. */
static int parse_decimal(const char **s, uint64_t *whole, uint64_t *frac, uint64_t *scale)
{
	const char *p = *s;

	*frac = 0;
	*scale = 1;
	if (cua_config_parse_u64(&p, whole) != 0)
		return -1;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (*scale >= 1000000000000000000ull)
				return -1;
			*frac = *frac * 10 + (uint64_t)(*p - '0');
			*scale *= 10;
		}
	}
	*s = p;
	return 0;
}

/* "0.01" -> 10000000 parts per 10^9; accepts 0 to 1. */
int cua_config_parse_fraction_ppb(const char **s, uint64_t *out)
{
	uint64_t whole, frac, scale, ppb;
	const char *p = *s;

	if (parse_decimal(&p, &whole, &frac, &scale) != 0 || whole > 1)
		return -1;
	ppb = scale <= 1000000000u ? frac * (1000000000u / scale) : frac / (scale / 1000000000u);
	ppb += whole * 1000000000u;
	if (ppb > 1000000000u)
		return -1;
	*s = p;
	*out = ppb;
	return 0;
}

static const struct {
	const char *name;
	uint64_t factor;
} units[] = {
	{ "", 1 }, { "b", 1 },
	{ "k", 1024 }, { "kb", 1000 }, { "kib", 1024 },
	{ "m", 1024 * 1024 }, { "mb", 1000000 }, { "mib", 1024 * 1024 },
	{ "g", 1024ull * 1024 * 1024 }, { "gb", 1000000000ull }, { "gib", 1024ull * 1024 * 1024 },
	{ "t", 1024ull * 1024 * 1024 * 1024 }, { "tb", 1000000000000ull },
	{ "tib", 1024ull * 1024 * 1024 * 1024 },
};

/* A size is computed exactly, in 128-bit arithmetic, and rounded down to a whole byte:
   at most 18 fraction digits, and nothing above UINT64_MAX. */
int cua_config_parse_size_at(const char **s, uint64_t *out)
{
	uint64_t whole, frac, frac_scale;
	const char *p = *s, *unit;
	size_t n;

	if (parse_decimal(&p, &whole, &frac, &frac_scale) != 0)
		return -1;
	unit = p;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
		p++;
	n = (size_t)(p - unit);
	for (unsigned i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		char word[4];
		unsigned __int128 v;

		if (strlen(units[i].name) != n || n >= sizeof(word))
			continue;
		for (size_t k = 0; k < n; k++)
			word[k] = lower(unit[k]);
		if (memcmp(word, units[i].name, n) != 0)
			continue;
		/* whole * factor < 2^104 and frac * factor < 2^100: neither product can wrap. */
		v = (unsigned __int128)whole * units[i].factor +
		    (unsigned __int128)frac * units[i].factor / frac_scale;
		if (v > UINT64_MAX)
			return -1;
		*out = (uint64_t)v;
		*s = p;
		return 0;
	}
	return -1;
}

int cua_config_parse_size(const char *s, uint64_t *out)
{
	uint64_t v;

	if (cua_config_parse_size_at(&s, &v) != 0 || *s || v == 0)
		return -1;
	*out = v;
	return 0;
}

/* One item of a list separated by sep: its length in *len; returns the next item's start,
   or NULL after the last. */
const char *cua_config_list_item(const char *s, char sep, size_t *len)
{
	const char *end = strchr(s, sep);

	*len = end ? (size_t)(end - s) : strlen(s);
	return end ? end + 1 : NULL;
}

int cua_config_fail_why(char *why, unsigned cap, const char *a, const char *b, size_t blen)
{
	struct cua_buf w = { why, 0, cap ? cap - 1 : 0, 0, NULL, 0 };

	cua_buf_str(&w, a);
	cua_buf_mem(&w, b, blen);
	if (cap)
		why[w.len] = '\0';
	return -1;
}

/* ---------------------------------------------------------------- loading */

void cua_config_load_report(char *dst, const char *var, int allow_stderr, cua_getenv_fn get,
			    cua_diag_fn diag)
{
	const char *v = get(var);

	if (!v)
		return;
	if (allow_stderr && strcmp(v, "stderr") == 0) {
		memcpy(dst, "stderr", 7);
		return;
	}
	if (cua_config_check_template(v) != 0 || v[0] != '/' ||
	    cua_config_capture_template(v, get) != 0 || cua_config_copy_path(dst, v) != 0)
		cua_config_bad_value(diag, var, v,
				     allow_stderr ? "stderr, or an absolute path (ending in .json for JSON) where"
					 " %p is the pid, %h the host name, %q{NAME} the value of"
					 " environment variable NAME and %% a percent sign"
				       : "an absolute path where %p is the pid, %h the host name,"
					 " %q{NAME} the value of environment variable NAME and %% a"
					 " percent sign",
				     "It stays off.");
}

static void load_session_start(struct cua_config *cfg, cua_getenv_fn get, cua_diag_fn diag)
{
	const char *v = get("CUAUDIT_SESSION_START"), *p = v;

	if (v && (cua_config_parse_u64(&p, &cfg->session_start_ns) != 0 || *p)) {
		cfg->session_start_ns = 0;
		cua_config_bad_value(diag, "CUAUDIT_SESSION_START", v,
				     "nanoseconds since 1970 (cuaudit run sets it)",
				     "Only this process's own start protects other processes' files.");
	}
}

/* ---------------------------------------------------------------- filters */

int cua_config_glob(const char *p, size_t plen, const char *name)
{
	const char *star = NULL, *resume = NULL, *end = p + plen;

	/* Greedy with backtracking to the last '*': linear in practice, no recursion. */
	while (*name) {
		if (p < end && (*p == '?' || *p == *name)) {
			p++;
			name++;
		} else if (p < end && *p == '*') {
			star = p++;
			resume = name;
		} else if (star) {
			p = star + 1;
			name = ++resume;
		} else {
			return 0;
		}
	}
	while (p < end && *p == '*')
		p++;
	return p == end;
}

int cua_config_parse_globs(const char *s, uint8_t *out, char *why, unsigned cap)
{
	uint8_t bits[(CUAUDIT_ID_COUNT + 7) / 8] = { 0 };

	for (const char *next = s; next;) {
		size_t len;
		int any = 0;

		s = next;
		next = cua_config_list_item(s, ',', &len);
		if (len == 0)
			return cua_config_fail_why(why, cap, "an empty pattern", "", 0);
		for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++) {
			if (cua_config_glob(s, len, cua_api[id].elf_name)) {
				bits[id >> 3] |= (uint8_t)(1u << (id & 7));
				any = 1;
			}
		}
		if (!any)
			return cua_config_fail_why(why, cap, "no ELF name matches ", s, len);
	}
	memcpy(out, bits, sizeof(bits));
	return 0;
}

unsigned cua_config_filter_ids(const struct cua_config *cfg, unsigned *ids)
{
	unsigned n = 0;

	for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++)
		if (!cfg->filtered || (cfg->filter[id >> 3] >> (id & 7) & 1))
			ids[n++] = id;
	return n;
}

static int load_globs(const char *var, uint8_t *bits, cua_getenv_fn get, cua_diag_fn diag)
{
	const char *v = get(var);
	char why[256], accepted[512];
	struct cua_buf b = CUA_BUF(accepted);

	if (!v)
		return 0;
	if (cua_config_parse_globs(v, bits, why, sizeof(why)) == 0)
		return 1;
	cua_buf_str(&b, "ELF names or globs of them (* and ?), separated by commas, each matching at"
			" least one wrapped function, such as cuMem*,*Async* (");
	cua_buf_str(&b, why);
	cua_buf_char(&b, ')');
	accepted[b.len < sizeof(accepted) ? b.len : sizeof(accepted) - 1] = '\0';
	cua_config_bad_value(diag, var, v, accepted, "The log and the trace record every call.");
	return -1;
}

/* INCLUDE picks ids (all when absent), EXCLUDE removes some; a bad value turns the filter off. */
static void load_filters(struct cua_config *cfg, cua_getenv_fn get, cua_diag_fn diag)
{
	uint8_t inc[(CUAUDIT_ID_COUNT + 7) / 8], exc[(CUAUDIT_ID_COUNT + 7) / 8];
	int hi = load_globs("CUAUDIT_INCLUDE", inc, get, diag);
	int he = load_globs("CUAUDIT_EXCLUDE", exc, get, diag);

	if (hi < 0 || he < 0 || (!hi && !he))
		return;
	for (unsigned i = 0; i < sizeof(inc); i++)
		cfg->filter[i] = (uint8_t)((hi ? inc[i] : 0xff) & (he ? ~exc[i] : 0xff));
	cfg->filtered = 1;
}

/* ---------------------------------------------------------------- output survival */

int cua_config_parse_seconds(const char *s, uint64_t *ns)
{
	uint64_t v;

	if (cua_config_parse_u64(&s, &v) != 0 || *s || v > 365ull * 24 * 3600)
		return -1;
	*ns = v * 1000000000ull;
	return 0;
}

int cua_config_check_file_path(const char *path)
{
	const char *base = strrchr(path, '/');
	struct stat st;

	base = base ? base + 1 : path;
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return -1;
	/* A name without escapes names one file: refuse it if it is a directory now. */
	if (!strchr(path, '%') && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return -1;
	return 0;
}

void cua_config_load_size(uint64_t *dst, const char *var, cua_getenv_fn get, cua_diag_fn diag)
{
	const char *v = get(var);

	if (v && cua_config_parse_size(v, dst) != 0)
		cua_config_bad_value(diag, var, v,
				     "a size such as 64MiB, 1GB or 1048576 (units B, KB, MB, GB, TB, KiB, MiB,"
				     " GiB, TiB)",
				     "That output is not bounded.");
}

/* NAME[@DOMAIN], the last '@' separating them (as Nsight Systems' NVTX capture): each
   non-empty and under CUA_CAPTURE_NAME_MAX bytes. */
static int parse_capture_nvtx(struct cua_config *cfg, const char *v)
{
	const char *at = strrchr(v, '@');
	size_t n = at ? (size_t)(at - v) : strlen(v), d = at ? strlen(at + 1) : 0;

	if (!n || n >= CUA_CAPTURE_NAME_MAX || (at && (!d || d >= CUA_CAPTURE_NAME_MAX)))
		return -1;
	memcpy(cfg->capture_nvtx, v, n);
	cfg->capture_nvtx[n] = '\0';
	if (at)
		memcpy(cfg->capture_nvtx_domain, at + 1, d + 1);
	return 0;
}

static void load_survival(struct cua_config *cfg, cua_getenv_fn get, cua_diag_fn diag)
{
	const char *v = get("CUAUDIT_FLUSH_INTERVAL");

	cfg->flush_interval_ns = CUA_FLUSH_INTERVAL_DEFAULT_NS;
	if (v && cua_config_parse_seconds(v, &cfg->flush_interval_ns) != 0) {
		cfg->flush_interval_ns = CUA_FLUSH_INTERVAL_DEFAULT_NS;
		cua_config_bad_value(diag, "CUAUDIT_FLUSH_INTERVAL", v,
				     "whole seconds from 0 (no snapshots) to 31536000",
				     "Snapshots are written every 30 seconds.");
	}
	cua_config_load_size(&cfg->log_max, "CUAUDIT_LOG_MAX", get, diag);
	if ((v = get("CUAUDIT_CAPTURE"))) {
		if (cua_config_same_word(v, "profiler-api"))
			cfg->capture = CUA_CAPTURE_PROFILER_API;
		else if (cua_config_same_word(v, "ctl"))
			cfg->capture = CUA_CAPTURE_CTL;
		else if (strncmp(v, "nvtx:", 5) == 0 && parse_capture_nvtx(cfg, v + 5) == 0)
			cfg->capture = CUA_CAPTURE_NVTX;
		else if (!cua_config_same_word(v, "all"))
			cua_config_bad_value(diag, "CUAUDIT_CAPTURE", v,
					     "all, profiler-api, ctl, nvtx:NAME or nvtx:NAME@DOMAIN "
					     "(NAME and DOMAIN under 96 bytes)",
					     "Every call is traced.");
	}
}

void cua_config_restrict_secure(struct cua_config *cfg)
{
	if (!cfg->secure)
		return;
	cfg->log_file[0] = cfg->libcuda[0] = cfg->libcudart[0] = '\0';
	cfg->live.on = 0; /* no region file from a privileged process */
}

/* ---- CUAUDIT_STATIC_RUNTIME (entry patching of a statically linked runtime) ---- */

int cua_config_parse_static_runtime(const char *s, int *out)
{
	static const char *const on[] = { "1", "on", "yes", "true" };
	static const char *const off[] = { "0", "off", "no", "false" };

	for (unsigned i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
		if (cua_config_same_word(s, on[i])) {
			*out = 1;
			return 0;
		}
		if (cua_config_same_word(s, off[i])) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

static void load_static_runtime(struct cua_config *cfg, cua_getenv_fn get, cua_diag_fn diag)
{
	const char *v = get("CUAUDIT_STATIC_RUNTIME");

	if (v && cua_config_parse_static_runtime(v, &cfg->static_runtime) != 0)
		cua_config_bad_value(diag, "CUAUDIT_STATIC_RUNTIME", v, "1 or 0 (on/off, yes/no, true/false)",
				     "A statically linked runtime is seen at the driver level only.");
}

/* ---- CUAUDIT_DEMANGLE (readable kernel names in the module's outputs) ---- */

static void load_demangle(struct cua_config *cfg, cua_getenv_fn get, cua_diag_fn diag)
{
	const char *v = get("CUAUDIT_DEMANGLE");

	/* The same words as CUAUDIT_STATIC_RUNTIME and CUAUDIT_LIVE. */
	if (v && cua_config_parse_static_runtime(v, &cfg->demangle) != 0)
		cua_config_bad_value(diag, "CUAUDIT_DEMANGLE", v, "on or off (1/0, yes/no, true/false)",
				     "Kernel names are demangled.");
}

/* ---- CUAUDIT_NVTX (the program's NVTX ranges, from the injection library) ---- */

static void load_nvtx(struct cua_config *cfg, cua_getenv_fn get, cua_diag_fn diag)
{
	const char *v = get("CUAUDIT_NVTX");

	if (v && cua_config_parse_static_runtime(v, &cfg->nvtx) != 0) {
		cfg->nvtx = 1;
		cua_config_bad_value(diag, "CUAUDIT_NVTX", v, "on or off (1/0, yes/no, true/false)",
				     "NVTX ranges are kept when the injection library is loaded.");
	}
}

void cua_config_load(struct cua_config *cfg, cua_getenv_fn get, cua_diag_fn diag, int secure)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->log_level = CUA_LOG_WARN;
	cfg->demangle = 1;
	cfg->nvtx = 1;
	cfg->secure = secure;
	load_log(cfg, get, diag);
	load_substitute(cfg->libcuda, "CUAUDIT_LIBCUDA", get, diag);
	load_substitute(cfg->libcudart, "CUAUDIT_LIBCUDART", get, diag);
	load_session_start(cfg, get, diag);
	load_static_runtime(cfg, get, diag);
	load_demangle(cfg, get, diag);
	load_nvtx(cfg, get, diag);
	load_filters(cfg, get, diag);
	load_survival(cfg, get, diag);
	cua_liveconfig_load(&cfg->live, cfg->capture == CUA_CAPTURE_CTL, get, diag);
}
