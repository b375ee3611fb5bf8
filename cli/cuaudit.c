/* SPDX-License-Identifier: MIT */
/* cli/cuaudit.c: the cuaudit command: `run` checks its options, sets the environment and runs a program; the other subcommands are dispatched from here. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "config.h"
#include "configs.h"
#include "cua_version.h"
#include "report.h"
#include "live.h"
#include "trace.h"
#include "export.h"

#ifndef CUAUDIT_MODULE_REL
#define CUAUDIT_MODULE_REL "../lib/cuaudit/libcuaudit.so"
#endif

/* How an option's value becomes its variable's value before the module's parser sees it. */
enum value_kind {
	VAL_PLAIN,   /* as given */
	VAL_OUTPUT,  /* an output file template: made absolute, its folder must be writable */
	VAL_SUMMARY, /* "stderr" or an output file template */
	VAL_INPUT,   /* an existing file: made absolute */
	VAL_DIR,     /* a directory cuaudit makes if missing: made absolute */
};

/* One row per CUAUDIT_* variable: the option that sets it. A variable another part of cuaudit
   adds is one more row; cua_config_load, the module's own parser, then validates its value.
   Every option takes a value, as "--opt VALUE", "--opt=VALUE", "-x VALUE" or "-xVALUE" (an
   optional value could only take the '=' form, since the word after could be the program).
   The metavar is the value's name, or its words separated by '|': the help, the man page,
   the README and the bash completion list them from here (tests/cases/cli.sh compares). */
struct var_row {
	const char *option;   /* long option name */
	int short_opt;        /* 0 when there is none */
	const char *var;      /* the environment variable */
	const char *metavar;  /* NAME, or word|word|... (a word is lower case) */
	enum value_kind kind;
	const char *sep;      /* repeatable: joined with sep; NULL: the last one counts */
	const char *help;
};

#define OUTPUT_ESCAPES "%p pid, %h host name, %q{NAME} variable NAME, %% a percent sign"

static const struct var_row rows[] = {
	{ "log", 'l', "CUAUDIT_LOG", "off|error|warn|info|verbose|debug|errors", VAL_PLAIN, NULL,
	  "the log level; errors: warn, plus a line for each call that failed" },
	{ "log-file", 'o', "CUAUDIT_LOG_FILE", "FILE", VAL_OUTPUT, NULL,
	  "the log file (" OUTPUT_ESCAPES ")" },
	{ "summary", 's', "CUAUDIT_SUMMARY", "stderr|FILE", VAL_SUMMARY, NULL,
	  "per-API statistics at exit: a table on stderr, or a file (.json: JSON)" },
	{ "trace", 't', "CUAUDIT_TRACE", "FILE", VAL_OUTPUT, NULL,
	  "a Chrome trace JSON file (Perfetto UI, chrome://tracing)" },
	{ "mem-limit", 'm', "CUAUDIT_MEM_LIMIT", "SIZE", VAL_PLAIN, NULL,
	  "device-memory quota, e.g. 4GiB or 0:4GiB,1:8GiB" },
	{ "mem-group", 0, "CUAUDIT_MEM_GROUP", "NAME", VAL_PLAIN, NULL,
	  "share the --mem-limit quota with this user's processes of the same group NAME"
	  " (%q{VAR} is VAR's value)" },
	{ "compute-limit", 0, "CUAUDIT_COMPUTE_LIMIT", "PCT", VAL_PLAIN, NULL,
	  "a GPU time cap per group (--mem-group's, else the process alone), e.g. 30, 0:30,1:50,"
	  " or a weight, 30:share" },
	{ "share-dir", 0, "CUAUDIT_SHARE_DIR", "DIR", VAL_DIR, NULL,
	  "the directory of the memory groups' and compute share's files (/dev/shm)" },
	{ "fault", 'f', "CUAUDIT_FAULT", "SPEC", VAL_PLAIN, ";",
	  "inject failures, e.g. cuMemAlloc_v2=CUDA_ERROR_OUT_OF_MEMORY@every:3 (repeatable)" },
	{ "plugin", 'p', "CUAUDIT_PLUGINS", "FILE", VAL_INPUT, ":",
	  "load a plugin (repeatable)" },
	{ "libcuda", 0, "CUAUDIT_LIBCUDA", "FILE", VAL_INPUT, NULL,
	  "load this library in place of libcuda" },
	{ "libcudart", 0, "CUAUDIT_LIBCUDART", "FILE", VAL_INPUT, NULL,
	  "load this library in place of libcudart" },
	{ "include", 0, "CUAUDIT_INCLUDE", "GLOBS", VAL_PLAIN, NULL,
	  "log and trace only the ELF names matching these globs" },
	{ "exclude", 0, "CUAUDIT_EXCLUDE", "GLOBS", VAL_PLAIN, NULL,
	  "do not log or trace the ELF names matching these globs" },
	{ "flush-interval", 0, "CUAUDIT_FLUSH_INTERVAL", "SECONDS", VAL_PLAIN, NULL,
	  "write buffered output at least this often (0: only at exit)" },
	{ "trace-max", 0, "CUAUDIT_TRACE_MAX", "SIZE", VAL_PLAIN, NULL,
	  "the most the trace may hold" },
	{ "trace-exit-time", 0, "CUAUDIT_TRACE_EXIT_TIME", "SECONDS", VAL_PLAIN, NULL,
	  "the most exit spends converting the trace (5; past it, or 0, the raw file is kept)" },
	{ "log-max", 0, "CUAUDIT_LOG_MAX", "SIZE", VAL_PLAIN, NULL,
	  "the most the log may hold" },
	{ "metrics", 0, "CUAUDIT_METRICS", "FILE", VAL_OUTPUT, NULL,
	  "a Prometheus text file of live metrics" },
	{ "metrics-labels", 0, "CUAUDIT_METRICS_LABELS", "LABELS", VAL_PLAIN, NULL,
	  "extra metric labels, NAME=VALUE,..." },
	{ "capture", 0, "CUAUDIT_CAPTURE", "all|profiler-api|ctl|nvtx:NAME[@DOMAIN]", VAL_PLAIN, NULL,
	  "trace every call, only between cudaProfilerStart and Stop, as `cuaudit ctl` says,\n"
	  "        or a thread's calls inside an NVTX range of that name (the verbose log too)" },
	{ "static-runtime", 0, "CUAUDIT_STATIC_RUNTIME", "on|off", VAL_PLAIN, NULL,
	  "patch a runtime linked into the program (or 1/0, yes/no, true/false)" },
	{ "demangle", 0, "CUAUDIT_DEMANGLE", "on|off", VAL_PLAIN, NULL,
	  "readable kernel names in the log, summary and trace (or 1/0, yes/no, true/false)" },
	{ "summary-sample", 0, "CUAUDIT_SUMMARY_SAMPLE", "N", VAL_PLAIN, NULL,
	  "time 1 call in N of a sub-microsecond function (64; 0: every call)" },
	{ "live", 0, "CUAUDIT_LIVE", "on|off", VAL_PLAIN, NULL,
	  "the live view `cuaudit ps` reads (or 1/0, yes/no, true/false)" },
	{ "live-calls", 0, "CUAUDIT_LIVE_CALLS", "N", VAL_PLAIN, NULL,
	  "last calls each thread keeps in the live view (64)" },
	{ "live-dir", 0, "CUAUDIT_LIVE_DIR", "DIR", VAL_DIR, NULL,
	  "the directory of the live view's files (/tmp/cuaudit-UID)" },
	{ "nvtx", 0, "CUAUDIT_NVTX", "on|off", VAL_PLAIN, NULL,
	  "keep the program's NVTX ranges (sets NVTX_INJECTION64_PATH, chaining a tool set there)" },
	{ "gpu-time", 0, "CUAUDIT_GPU_TIME", "on|off|N", VAL_PLAIN, NULL,
	  "time kernels, copies and memsets on the GPU (every call, or 1 in N)" },
	{ "gpu-time-start", 0, "CUAUDIT_GPU_TIME_START", "call|event", VAL_PLAIN, NULL,
	  "bound an idle stream's start by the call (call), or by an event before it (event)" },
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

/* Options of run that set no variable: their getopt codes sit above every short option. */
enum { OPT_ERROR_EXITCODE = 256, OPT_HELP, OPT_ROW0 };

static void run_usage(FILE *f)
{
	fputs("usage: cuaudit run [OPTIONS] [--] PROGRAM [ARGS...]\n"
	      "\n"
	      "Runs PROGRAM with cuaudit: LD_AUDIT names the installed module, first in the list,\n"
	      "and each option sets its CUAUDIT_* variable (cuaudit(7)). Every value is checked\n"
	      "before PROGRAM starts. Each option takes its value as '--opt VALUE', '--opt=VALUE',\n"
	      "'-x VALUE' or '-xVALUE'; a value of words separated by '|' is one of those words.\n"
	      "Output files are made absolute; " OUTPUT_ESCAPES ".\n\n",
	      f);
	for (size_t i = 0; i < NROWS; i++) {
		if (rows[i].short_opt)
			fprintf(f, "  -%c, --%s %s\n", rows[i].short_opt, rows[i].option,
				rows[i].metavar);
		else
			fprintf(f, "      --%s %s\n", rows[i].option, rows[i].metavar);
		fprintf(f, "        %s: %s\n", rows[i].var, rows[i].help);
	}
	fputs("  -e, --error-exitcode N\n"
	      "        exit with N if any CUDA call of the program (or its children) failed\n"
	      "        (a program a signal ended ends cuaudit by that signal all the same)\n"
	      "  -h, --help\n"
	      "        this text\n"
	      "\n"
	      "Exit status: PROGRAM's own (128+N, or the same signal, if a signal N ended it);\n"
	      "N of --error-exitcode when a call failed; 2 for a bad option or value; 126 if\n"
	      "PROGRAM cannot be executed, 127 if it is not found.\n",
	      f);
}

static void usage(FILE *f)
{
	fputs("usage: cuaudit run [OPTIONS] [--] PROGRAM [ARGS...]\n"
	      "       cuaudit report [OPTIONS] SUMMARY.json...\n"
	      "       cuaudit trace [OPTIONS] TRACE.PID.NONCE.raw...\n"
	      "       cuaudit export [OPTIONS] -o OUT SUMMARY.json|TRACE.json|TRACE.raw...\n"
	      "       cuaudit ps [--json] [PID] | ps --clean | top [PID] | ctl PID trace|log start|stop\n"
	      "       cuaudit --help | --version\n"
	      "\n"
	      "run     runs PROGRAM with every CUDA call intercepted ('cuaudit run --help')\n"
	      "report  merges the JSON summaries of several processes ('cuaudit report --help')\n"
	      "trace   turns the raw trace file a killed process left into a Chrome trace\n"
	      "        ('cuaudit trace --help')\n"
	      "export  writes summaries and traces as an SQLite database, CSV or JSON lines\n"
	      "        ('cuaudit export --help')\n"
	      "ps      what each process run with --live on is inside now, or was when it died\n"
	      "top     per-API call rates, errors and calls in flight, refreshed\n"
	      "ctl     switches the trace or the verbose log of a running process on or off\n"
	      "\n"
	      "See cuaudit(1) and cuaudit(7).\n",
	      f);
}

static int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "cuaudit%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'cuaudit%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
	return 2;
}

/* ---------------------------------------------------------------- the module */

/* The module beside this executable in a build tree, else relative to an install. */
static int find_module(char *out, size_t cap)
{
	char exe[PATH_MAX], cand[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *env = getenv("CUAUDIT_MODULE");
	char *slash;

	if (env && *env)
		return realpath(env, out) && strlen(out) < cap ? 0 : -1;
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	snprintf(cand, sizeof(cand), "%s/libcuaudit.so", exe);
	if (access(cand, R_OK) != 0)
		snprintf(cand, sizeof(cand), "%s/%s", exe, CUAUDIT_MODULE_REL);
	if (!realpath(cand, out) || strlen(out) >= cap)
		return -1;
	return 0;
}

/* LD_AUDIT with our module first and any other modules after it, each once. */
static int set_ld_audit(const char *module)
{
	const char *old = getenv("LD_AUDIT");
	size_t cap = strlen(module) + (old ? strlen(old) : 0) + 2;
	char *list = malloc(cap), *copy = old ? strdup(old) : NULL;

	if (!list || (old && !copy))
		return -1;
	snprintf(list, cap, "%s", module);
	for (char *tok = copy ? strtok(copy, ":") : NULL; tok; tok = strtok(NULL, ":")) {
		char real[PATH_MAX];

		if (strcmp(tok, module) == 0 || (realpath(tok, real) && strcmp(real, module) == 0))
			continue;
		strcat(list, ":");
		strcat(list, tok);
	}
	free(copy);
	return setenv("LD_AUDIT", list, 1);
}

/* NVTX_INJECTION64_PATH: the injection library beside the module, when NVTX is on. A tool
   it named before (Nsight Systems) is loaded by ours and receives every call too
   (CUAUDIT_NVTX_CHAIN). Off: a path of ours is taken back, a chained tool's restored. */
static int set_nvtx(const char *module, int on)
{
	const char *old = getenv("NVTX_INJECTION64_PATH"), *chain = getenv("CUAUDIT_NVTX_CHAIN");
	char lib[PATH_MAX + 32], real[PATH_MAX];
	const char *slash = strrchr(module, '/');
	int ours;

	snprintf(lib, sizeof(lib), "%.*s/libcuaudit-nvtx.so", (int)(slash ? slash - module : 0), module);
	ours = old && (strcmp(old, lib) == 0 || (realpath(old, real) && strcmp(real, lib) == 0));
	if (!on) {
		if (ours && chain && *chain)
			return setenv("NVTX_INJECTION64_PATH", chain, 1);
		return ours ? unsetenv("NVTX_INJECTION64_PATH") : 0;
	}
	if (access(lib, R_OK) != 0) {
		fprintf(stderr, "cuaudit run: warning: --nvtx: %s is missing; NVTX ranges are not "
				"kept\n", lib);
		return 0;
	}
	if (old && *old && !ours && setenv("CUAUDIT_NVTX_CHAIN", old, 1) != 0)
		return -1;
	return setenv("NVTX_INJECTION64_PATH", lib, 1);
}

/* ---------------------------------------------------------------- values */

/* An output template: absolute (children may change directory), and its folder writable. */
static int check_output(const struct var_row *r, const char *v, char *out, size_t cap)
{
	char dir[PATH_MAX];
	const char *slash;
	struct stat st;
	int n;

	if (cua_config_check_template(v) != 0)
		return usage_error("run", "--%s: '%s' is not a usable file name (escapes: %%p pid, "
				   "%%h host name, %%%% percent sign)", r->option, v);
	if (v[0] == '/') {
		n = snprintf(out, cap, "%s", v);
	} else {
		if (!getcwd(dir, sizeof(dir)))
			return usage_error("run", "--%s: cannot resolve '%s': %s", r->option, v,
					   strerror(errno));
		n = snprintf(out, cap, "%s/%s", dir, v);
	}
	if (n < 0 || (size_t)n >= cap || n >= CUA_PATH_MAX)
		return usage_error("run", "--%s: '%s' is too long", r->option, v);
	/* "-s ./app" where the program was meant: output files are never executables. */
	if (!strchr(out, '%') && stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
	    (st.st_mode & 0111))
		return usage_error("run", "--%s: '%s' is an executable, not an output file; give "
				   "the option a file name before the program", r->option, v);
	/* A folder, or a file that cannot be written, where the output file goes: the module
	   would find out only after the program started. */
	if (!strchr(out, '%') && stat(out, &st) == 0 && S_ISDIR(st.st_mode))
		return usage_error("run", "--%s: '%s' is a directory, not an output file", r->option, v);
	if (!strchr(out, '%') && access(out, F_OK) == 0 && access(out, W_OK) != 0)
		return usage_error("run", "--%s: cannot write '%s': %s", r->option, v, strerror(errno));
	slash = strrchr(out, '/');
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - out), out);
	if (!dir[0])
		snprintf(dir, sizeof(dir), "/");
	/* A folder named by an escape (a host or pid folder) can only be checked by the module. */
	if (!strchr(dir, '%') && access(dir, W_OK | X_OK) != 0)
		return usage_error("run", "--%s: cannot write into '%s': %s", r->option, dir,
				   strerror(errno));
	return 0;
}

/* Checks one option's value; the result goes into out. Returns 0 or the exit status. */
static int convert(const struct var_row *r, const char *v, char *out, size_t cap)
{
	if (!*v)
		return usage_error("run", "--%s: an empty value", r->option);
	switch (r->kind) {
	case VAL_SUMMARY:
		if (strcmp(v, "stderr") == 0)
			break;
		return check_output(r, v, out, cap);
	case VAL_OUTPUT:
		return check_output(r, v, out, cap);
	case VAL_INPUT:
		if (!realpath(v, out))
			return usage_error("run", "--%s: cannot find '%s': %s", r->option, v,
					   strerror(errno));
		if (access(out, R_OK) != 0)
			return usage_error("run", "--%s: cannot read '%s'", r->option, v);
		{
			struct stat st;

			/* A folder reads, but loads as nothing. */
			if (stat(out, &st) != 0 || !S_ISREG(st.st_mode))
				return usage_error("run", "--%s: '%s' is not a file", r->option, v);
		}
		return 0;
	case VAL_DIR:
		if (v[0] != '/') {
			char dir[PATH_MAX];
			int n;

			if (!getcwd(dir, sizeof(dir)))
				return usage_error("run", "--%s: cannot resolve '%s': %s", r->option, v,
						   strerror(errno));
			n = snprintf(out, cap, "%s/%s", dir, v);
			if (n < 0 || (size_t)n >= cap)
				return usage_error("run", "--%s: '%s' is too long", r->option, v);
			return 0;
		}
		break;
	case VAL_PLAIN:
		break;
	}
	if (strlen(v) >= cap)
		return usage_error("run", "--%s: '%s' is too long", r->option, v);
	snprintf(out, cap, "%s", v);
	return 0;
}

static int set_row(const struct var_row *r, const char *value, char **joined)
{
	char buf[PATH_MAX + CUA_PATH_MAX];
	int rc = convert(r, value, buf, sizeof(buf));

	if (rc)
		return rc;
	if (r->sep && *joined) {
		size_t n = strlen(*joined) + strlen(r->sep) + strlen(buf) + 1;
		char *s = malloc(n);

		if (!s)
			return 1;
		snprintf(s, n, "%s%s%s", *joined, r->sep, buf);
		free(*joined);
		*joined = s;
	} else {
		free(*joined);
		*joined = strdup(buf);
	}
	return *joined ? 0 : 1;
}

/* The module's own parser, run here on the environment the program will get: every message it
   would print at start-up refuses the run instead. */
static int module_diagnostics;
static void collect(const char *message)
{
	const char *m = message + (strncmp(message, "cuaudit: ", 9) ? 0 : 9);
	const char *fallback = strstr(m, ". "), *next;
	const char *option = NULL;

	/* The module names the variable; the command also names the option that sets it. */
	for (size_t i = 0; i < NROWS; i++) {
		size_t n = strlen(rows[i].var);

		if (strncmp(m, rows[i].var, n) == 0 && m[n] == '=')
			option = rows[i].option;
	}
	/* The last sentence says what the module would do instead of refusing: drop it here. */
	while (fallback && (next = strstr(fallback + 2, ". ")))
		fallback = next;
	fputs("cuaudit run: ", stderr);
	if (option)
		fprintf(stderr, "--%s: ", option);
	fprintf(stderr, "%.*s.\n", (int)(fallback ? fallback - m : (int)strcspn(m, "\n")), m);
	module_diagnostics++;
}
static const char *env_get(const char *name) { return getenv(name); }

/* ---------------------------------------------------------------- the child */

static volatile sig_atomic_t child_pid;

/* A signal sent by another process (kill, systemd, Slurm) goes on to the program. One from the
   terminal reaches the program's process group already, so it is not sent twice. */
static void forward(int sig, siginfo_t *info, void *uctx)
{
	(void)uctx;
	if (child_pid > 0 && info->si_code != SI_KERNEL && info->si_pid != child_pid)
		kill(child_pid, sig);
}

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };

/* Ends this process as the program ended: the same signal where possible, as shells do. */
static int exit_like(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		struct rlimit none = { 0, 0 };
		sigset_t set;

		/* The program dumped its core already; this process must not add a second one. */
		setrlimit(RLIMIT_CORE, &none);
		signal(sig, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		fflush(NULL);
		raise(sig);
		return 128 + sig;
	}
	return 1;
}

/* The failure counter the module maps (CUAUDIT_ERROR_COUNT): an anonymous file named through
   /proc, so nothing is left behind when either process is killed. Bytes 8..23 hold a random
   128-bit token, passed as CUAUDIT_ERROR_COUNT_TOKEN: once this command has ended, its pid,
   and so the path, may name another process's descriptor, and the module counts only into a
   file holding the token (docs/design.md, "The error counter"). */
static int make_counter(char *path, size_t cap, char *token_hex)
{
	unsigned char token[16];
	int fd = memfd_create("cuaudit-errors", MFD_CLOEXEC);

	if (fd < 0 || ftruncate(fd, 24) != 0 ||
	    getrandom(token, sizeof(token), 0) != (ssize_t)sizeof(token) ||
	    pwrite(fd, token, sizeof(token), 8) != (ssize_t)sizeof(token))
		return -1;
	for (size_t i = 0; i < sizeof(token); i++)
		snprintf(token_hex + 2 * i, 3, "%02x", token[i]);
	snprintf(path, cap, "/proc/%d/fd/%d", (int)getpid(), fd);
	return fd;
}

static int run_child(char **argv, int counter_fd, int error_exitcode)
{
	struct sigaction sa;
	sigset_t block, mask;
	int status = 0;
	uint64_t failures = 0;
	pid_t pid;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	/* Before the fork, so no signal is lost in between; exec resets them in the child. */
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++) {
		struct sigaction old;

		/* An ignored signal (nohup, a background job) stays ignored for the program. */
		if (sigaction(forwarded[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(forwarded[i], &sa, NULL);
	}
	fflush(NULL);
	/* Blocked until child_pid is set: the program may start, and a signal be sent to this
	   process, before fork returns here; it would be dropped, and the program run on. */
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&block, forwarded[i]);
	sigprocmask(SIG_BLOCK, &block, &mask);
	pid = fork();
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &mask, NULL);
		fprintf(stderr, "cuaudit run: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &mask, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "cuaudit run: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	child_pid = pid;
	sigprocmask(SIG_SETMASK, &mask, NULL);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "cuaudit run: waitpid: %s\n", strerror(errno));
			return 1;
		}
	}
	if (pread(counter_fd, &failures, sizeof(failures), 0) != (ssize_t)sizeof(failures))
		failures = 0;
	/* A program a signal ended (a crash, a kill) ends this process the same way whatever
	   --error-exitcode says: N, 0 above all, would report a crash as a clean run. */
	if (failures && WIFSIGNALED(status)) {
		fprintf(stderr, "cuaudit run: %llu CUDA call(s) failed; the program was killed by signal "
				"%d\n", (unsigned long long)failures, WTERMSIG(status));
	} else if (failures) {
		fprintf(stderr, "cuaudit run: %llu CUDA call(s) failed; exit status %d\n",
			(unsigned long long)failures, error_exitcode);
		return error_exitcode;
	}
	return exit_like(status);
}

/* ---------------------------------------------------------------- run */

/* The live view's directory, taken as the module takes it (made if missing): one the module
   would refuse turns the view off inside the program after it started, so it is refused
   here, before. Named by where it came from: --live-dir, CUAUDIT_LIVE_DIR, or the default. */
static int check_live_dir(const struct cua_config *cfg)
{
	char dir[CUA_PATH_MAX];
	const char *why, *from;
	int err, fd;

	if (cfg->live.dir[0]) {
		snprintf(dir, sizeof(dir), "%s", cfg->live.dir);
		from = "--live-dir (CUAUDIT_LIVE_DIR)";
	} else {
		cua_liveconfig_default_dir(dir, sizeof(dir), geteuid());
		from = "--live-dir's default";
	}
	fd = cua_liveconfig_open_dir(dir, &why, &err);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	fprintf(stderr, "cuaudit run: %s: '%s' cannot hold the live view: %s%s%s%s; the program was "
		"not started\n", from, dir, why, dir, err ? ": " : "", err ? strerror(err) : "");
	return 2;
}

static int parse_exitcode(const char *v, int *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 0 || n > 255)
		return usage_error("run", "--error-exitcode: '%s' is not a number from 0 to 255", v);
	*out = (int)n;
	return 0;
}

static int run_main(int argc, char **argv)
{
	struct option longopts[NROWS + 3];
	char shortopts[2 * NROWS + 8], *joined[NROWS] = { 0 };
	char module[PATH_MAX], counter_path[64];
	int error_exitcode = -1, counter_fd = -1, rc = 0;
	size_t ns = 0;
	struct cua_config cfg;
	static struct cua_hook_configs hook_cfg;

	/* '+': options end at the program's name, so its own options stay its own. */
	shortopts[ns++] = '+';
	shortopts[ns++] = ':';
	for (size_t i = 0; i < NROWS; i++) {
		longopts[i] = (struct option){ rows[i].option, required_argument, NULL,
					       OPT_ROW0 + (int)i };
		if (rows[i].short_opt) {
			shortopts[ns++] = (char)rows[i].short_opt;
			shortopts[ns++] = ':';
		}
	}
	longopts[NROWS] = (struct option){ "error-exitcode", required_argument, NULL, 'e' };
	longopts[NROWS + 1] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[NROWS + 2] = (struct option){ 0 };
	memcpy(shortopts + ns, "e:h", 4);

	optind = 1;
	opterr = 0;
	for (int c; rc == 0 && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1;) {
		size_t row = NROWS;

		if (c >= OPT_ROW0)
			row = (size_t)(c - OPT_ROW0);
		for (size_t i = 0; row == NROWS && i < NROWS; i++)
			if (rows[i].short_opt == c)
				row = i;
		if (row < NROWS) {
			rc = set_row(&rows[row], optarg, &joined[row]);
		} else if (c == 'e') {
			rc = parse_exitcode(optarg, &error_exitcode);
		} else if (c == 'h') {
			run_usage(stdout);
			rc = -1;
		} else if (c == ':') {
			rc = usage_error("run", "option '%s' needs a value", argv[optind - 1]);
		} else {
			rc = usage_error("run", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (rc == 0 && optind >= argc)
		rc = usage_error("run", "no program to run");
	for (size_t i = 0; i < NROWS; i++) {
		if (rc == 0 && joined[i])
			setenv(rows[i].var, joined[i], 1);
		free(joined[i]);
	}
	if (rc)
		return rc < 0 ? 0 : rc;
	if (error_exitcode >= 0) {
		char token[33];

		counter_fd = make_counter(counter_path, sizeof(counter_path), token);
		if (counter_fd < 0) {
			fprintf(stderr, "cuaudit run: cannot make the failure counter: %s\n",
				strerror(errno));
			return 1;
		}
		setenv("CUAUDIT_ERROR_COUNT", counter_path, 1);
		setenv("CUAUDIT_ERROR_COUNT_TOKEN", token, 1);
	}
	/* One start for every process of this run: a report file one of them wrote is never
	   replaced by another given the same name (cua_writer_open). An outer run's stays.
	   The file system's clock: modification times come from the coarse clock, which lags
	   CLOCK_REALTIME by up to a tick, so a file written just after a precise start could
	   carry a time before it and be taken for an earlier run's (docs/design.md). */
	{
		const char *outer = getenv("CUAUDIT_SESSION_START");
		struct timespec now;
		unsigned long long now_ns;
		char start[32], *end;

		if (clock_gettime(CLOCK_REALTIME_COARSE, &now) != 0)
			clock_gettime(CLOCK_REALTIME, &now);
		now_ns = (unsigned long long)now.tv_sec * 1000000000ull +
			 (unsigned long long)now.tv_nsec;
		/* An outer run's start is kept; one in the future (set by hand, or by a clock set
		   far back since) is no run's start: it would take every file of this run for an
		   earlier run's, and each process would replace the one before it; nor is 0. A
		   value that is not a number is refused below, with the module's message. */
		errno = 0;
		if (outer && *outer >= '0' && *outer <= '9') {
			unsigned long long v = strtoull(outer, &end, 10);

			/* 0 means no start to the module: each process would use its own. */
			if (!*end && (v > now_ns || v == 0 || errno == ERANGE))
				outer = NULL;
		}
		if (!outer) {
			snprintf(start, sizeof(start), "%llu", now_ns);
			setenv("CUAUDIT_SESSION_START", start, 1);
		}
	}
	cua_config_load(&cfg, env_get, collect, 0);
	/* Each hook's values, checked with the module's own parsers. */
	cua_hook_configs_load(&hook_cfg, &cfg, env_get, collect);
	if (module_diagnostics)
		return usage_error("run", "%d bad value(s); the program was not started",
				   module_diagnostics);
	if (cfg.live.on && check_live_dir(&cfg) != 0)
		return 2;
	/* A value every check passes can still do nothing the user sees: GPU times go only to
	   the summary, the trace, the metrics and plugins. Said before the program starts, once,
	   from the configuration the module will read (an option or the environment). */
	if (hook_cfg.gpu.gpu_time && !hook_cfg.summary.path[0] && !hook_cfg.trace.path[0] &&
	    !hook_cfg.metrics.path[0] && !hook_cfg.plugins.nplugins)
		fputs("cuaudit run: warning: --gpu-time (CUAUDIT_GPU_TIME): no output shows GPU times; "
		      "add --summary stderr (or FILE), --trace FILE or --metrics FILE, or a --plugin "
		      "that reads them\n",
		      stderr);
	if (find_module(module, sizeof(module)) != 0) {
		fprintf(stderr, "cuaudit run: cannot find libcuaudit.so (set CUAUDIT_MODULE to its "
				"path)\n");
		return 1;
	}
	if (set_ld_audit(module) != 0 || set_nvtx(module, cfg.nvtx) != 0)
		return 1;
	if (counter_fd >= 0)
		return run_child(argv + optind, counter_fd, error_exitcode);
	/* Without --error-exitcode there is nothing to learn afterwards: the program takes this
	   process's place (same pid for service managers, signals and job control untouched). */
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "cuaudit run: cannot run %s: %s\n", argv[optind], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("cuaudit %s\n", CUA_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "run") == 0)
		return run_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "report") == 0)
		return cuaudit_report_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "trace") == 0)
		return cua_cli_trace_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "ps") == 0 || strcmp(argv[1], "top") == 0 || strcmp(argv[1], "ctl") == 0)
		return cua_cli_live_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "export") == 0)
		return cua_cli_export_main(argc - 1, argv + 1);
	return usage_error(NULL, "unknown command '%s'", argv[1]);
}
