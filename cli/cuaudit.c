/* SPDX-License-Identifier: MIT */
/* cli/cuaudit.c: the cuaudit command: `run` sets up the environment and execs a program, `report` merges summaries. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "report.h"
#include "trace.h"

#ifndef CUAUDIT_VERSION
#define CUAUDIT_VERSION "unknown"
#endif
#ifndef CUAUDIT_MODULE_REL
#define CUAUDIT_MODULE_REL "../lib/cuaudit/libcuaudit.so"
#endif

static void usage(FILE *f)
{
	fputs("usage: cuaudit run [OPTIONS] -- PROGRAM [ARGS...]\n"
	      "       cuaudit report [--json=FILE] SUMMARY.json...\n"
	      "       cuaudit trace [-o OUT.json] TRACE.PID.NONCE.raw...\n"
	      "       cuaudit --help | --version\n"
	      "\n"
	      "run: runs PROGRAM with cuaudit (LD_AUDIT set to the installed module, first in the\n"
	      "list) and exits with PROGRAM's own status. Options set the CUAUDIT_* variables:\n"
	      "  --log=LEVEL        CUAUDIT_LOG: off, error, warn, info, verbose, debug\n"
	      "  --log-file=F       CUAUDIT_LOG_FILE (%p: pid, %h: host name)\n"
	      "  --summary[=F]      CUAUDIT_SUMMARY: stderr (the default) or a file (.json: JSON)\n"
	      "  --trace=F          CUAUDIT_TRACE: a Chrome trace JSON file\n"
	      "  --mem-limit=SIZE   CUAUDIT_MEM_LIMIT, e.g. 4GiB or 0:4GiB,1:8GiB\n"
	      "  --fault=SPEC       CUAUDIT_FAULT, e.g. cuMemAlloc_v2=CUDA_ERROR_OUT_OF_MEMORY@every:3\n"
	      "                     (repeatable)\n"
	      "  --plugin=P         CUAUDIT_PLUGINS (repeatable)\n"
	      "\n"
	      "report: merges the JSON summaries of several processes. See cuaudit(1), cuaudit(7).\n"
	      "\n"
	      "Exit status: PROGRAM's for run; 0 for report unless a file could not be read (1);\n"
	      "2 for usage errors; 126 if PROGRAM cannot be executed, 127 if it is not found.\n",
	      f);
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "cuaudit: ");
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'cuaudit --help'.\n", stderr);
	return 2;
}

/* The module beside this executable in a build tree, else relative to an install. */
static int find_module(char *out, size_t cap)
{
	char exe[PATH_MAX], cand[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *env = getenv("CUAUDIT_MODULE");
	char *slash;

	if (env && *env) {
		snprintf(out, cap, "%s", env);
		return access(out, R_OK) == 0 ? 0 : -1;
	}
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

static int append(char **list, const char *sep, const char *item)
{
	size_t n = (*list ? strlen(*list) + strlen(sep) : 0) + strlen(item) + 1;
	char *s = malloc(n);

	if (!s)
		return -1;
	snprintf(s, n, "%s%s%s", *list ? *list : "", *list ? sep : "", item);
	free(*list);
	*list = s;
	return 0;
}

static int run_main(int argc, char **argv)
{
	char module[PATH_MAX], *faults = NULL, *plugins = NULL;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *a = argv[i], *v = strchr(a, '=');

		if (strncmp(a, "--log=", 6) == 0) {
			if (cua_config_parse_level(v + 1) < 0)
				return usage_error("--log: unknown level '%s'; accepted: off, error, "
						   "warn, info, verbose, debug", v + 1);
			setenv("CUAUDIT_LOG", v + 1, 1);
		} else if (strncmp(a, "--log-file=", 11) == 0) {
			setenv("CUAUDIT_LOG_FILE", v + 1, 1);
		} else if (strcmp(a, "--summary") == 0) {
			setenv("CUAUDIT_SUMMARY", "stderr", 1);
		} else if (strncmp(a, "--summary=", 10) == 0 || strncmp(a, "--trace=", 8) == 0) {
			char abs[PATH_MAX + 2];

			/* The module takes absolute paths only: resolve against our directory. */
			if (v[1] != '/' && strcmp(v + 1, "stderr") != 0 && getcwd(abs, PATH_MAX))
				snprintf(abs + strlen(abs), sizeof(abs) - strlen(abs), "/%s", v + 1);
			else
				snprintf(abs, sizeof(abs), "%s", v + 1);
			setenv(a[2] == 's' ? "CUAUDIT_SUMMARY" : "CUAUDIT_TRACE", abs, 1);
		} else if (strncmp(a, "--mem-limit=", 12) == 0) {
			struct cua_config cfg;

			memset(&cfg, 0, sizeof(cfg));
			if (cua_config_parse_mem_limit(v + 1, &cfg) != 0)
				return usage_error("--mem-limit: '%s' is not a size such as 4GiB, "
						   "512MiB or 0:4GiB,1:8GiB", v + 1);
			setenv("CUAUDIT_MEM_LIMIT", v + 1, 1);
		} else if (strncmp(a, "--fault=", 8) == 0) {
			if (append(&faults, ";", v + 1) != 0)
				return 1;
		} else if (strncmp(a, "--plugin=", 9) == 0) {
			char real[PATH_MAX];

			if (!realpath(v + 1, real))
				return usage_error("--plugin: cannot find '%s'", v + 1);
			if (append(&plugins, ":", real) != 0)
				return 1;
		} else {
			return usage_error("run: unknown option '%s'", a);
		}
	}
	if (i >= argc - 1)
		return usage_error("run: missing '-- PROGRAM'%s", "");
	if (faults) {
		struct cua_config cfg;
		char why[256];

		memset(&cfg, 0, sizeof(cfg));
		if (cua_config_parse_faults(faults, &cfg, why, sizeof(why)) != 0)
			return usage_error("--fault: %s", why);
		setenv("CUAUDIT_FAULT", faults, 1);
	}
	if (plugins)
		setenv("CUAUDIT_PLUGINS", plugins, 1);
	if (find_module(module, sizeof(module)) != 0) {
		fprintf(stderr, "cuaudit: cannot find libcuaudit.so (set CUAUDIT_MODULE to its path)\n");
		return 1;
	}
	if (set_ld_audit(module) != 0)
		return 1;
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "cuaudit: cannot run %s: %s\n", argv[i + 1], strerror(errno));
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
	if (strcmp(argv[1], "--version") == 0) {
		printf("cuaudit %s\n", CUAUDIT_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "run") == 0)
		return run_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "report") == 0)
		return cuaudit_report_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "trace") == 0)
		return cua_cli_trace_main(argc - 1, argv + 1);
	return usage_error("unknown command '%s'", argv[1]);
}
