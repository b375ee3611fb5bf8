/* SPDX-License-Identifier: MIT */
/* cli/trace.c: `cuaudit trace [-o OUT] RAW...`: the raw file of a process that ended without exit() becomes a loadable trace. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "demangle.h"
#include "livefmt.h"
#include "json.h"
#include "out.h"
#include "tracefmt.h"
#include "trace.h"
#include "writer.h"

#define WINDOW (1u << 20)

/* "t.json.4242.0x1f3a.raw" -> "t.4242.json", and "t.4242.json.4242.0x1f3a.raw" (a %p name) ->
   "t.4242.json": the name the process would have written, with its pid once. */
static void default_out(char *out, size_t cap, const char *raw, unsigned long long pid)
{
	size_t n = strlen(raw), len;
	const char *end = raw + n, *base, *dot;
	char digits[24];
	int dots = 0, d;

	/* Cut ".PID.NONCE.raw". */
	while (end > raw && dots < 3)
		if (*--end == '.')
			dots++;
	if (dots < 3)
		end = raw + n;
	len = (size_t)(end - raw);
	d = snprintf(digits, sizeof(digits), "%llu", pid);
	/* The pid already in the name, between separators: the name as it is. */
	for (const char *p = raw; p + d <= end; p++) {
		if (memcmp(p, digits, (size_t)d) != 0)
			continue;
		if ((p == raw || strchr("./_-", p[-1])) && (p + d == end || strchr("./_-", p[d]))) {
			snprintf(out, cap, "%.*s", (int)len, raw);
			return;
		}
	}
	base = raw;
	for (const char *p = raw; p < end; p++)
		if (*p == '/')
			base = p + 1;
	dot = NULL;
	for (const char *p = base; p < end; p++)
		if (*p == '.' && p > base)
			dot = p;
	if (!dot)
		dot = end;
	snprintf(out, cap, "%.*s.%llu%.*s", (int)(dot - raw), raw, pid, (int)(end - dot), dot);
}

/* The state letter of /proc/PID/stat, 0 when unreadable. */
static char proc_state(uint64_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%llu/stat", (unsigned long long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

int cua_cli_raw_writer_running(const struct cua_raw_head *h)
{
	char st;

	/* A pid alone is reused: the start time tells the writer from a later process. A
	   reader in another PID namespace cannot tell, and says ended as before. */
	if (!h->start_ticks || (h->pidns && h->pidns != cua_live_pidns()) ||
	    cua_live_start_ticks(h->pid) != h->start_ticks)
		return 0;
	st = proc_state(h->pid);
	return st && st != 'Z' && st != 'X';
}

/* "t.4242.json" -> "t.4242.partial.json": a running process writes its own trace under the
   first name at its exit, so a conversion of part of it never takes that name. */
static void partial_name(char *name, size_t cap)
{
	char *slash = strrchr(name, '/'), *dot = strrchr(slash ? slash : name, '.');
	char tail[256];

	if (!dot || dot == (slash ? slash + 1 : name)) {
		snprintf(name + strlen(name), cap - strlen(name), ".partial");
		return;
	}
	snprintf(tail, sizeof(tail), "%s", dot);
	snprintf(dot, cap - (size_t)(dot - name), ".partial%s", tail);
}

static int convert(const char *raw_path, const char *out_path)
{
	static struct cua_writer w;
	struct cua_raw_head h;
	struct stat ost, ist;
	char out[4096], *window;
	int fd = open(raw_path, O_RDONLY | O_CLOEXEC), ofd, limited = 0, running;
	ssize_t got;
	uint64_t last = 0;
	unsigned skipped;

	if (fd < 0) {
		fprintf(stderr, "cuaudit trace: cannot open %s\n", cli_term(raw_path));
		return 1;
	}
	memset(&h, 0, sizeof(h));
	got = pread(fd, &h, sizeof(h), 0);
	/* Cut inside the head (a full disk, a partial copy): said as such, not taken for
	   another version, whose magic a cut one shares. Only bytes pread filled are compared. */
	if (got > 0 && got < (ssize_t)sizeof(h) &&
	    memcmp(h.magic, CUA_RAW_MAGIC,
		   (size_t)got < sizeof(CUA_RAW_MAGIC) - 1 ? (size_t)got : sizeof(CUA_RAW_MAGIC) - 1) == 0) {
		fprintf(stderr, "cuaudit trace: %s is cut short: its head has %zd of %zu bytes\n",
			cli_term(raw_path), got, sizeof(h));
		close(fd);
		return 1;
	}
	if (got != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, CUA_RAW_MAGIC, sizeof(CUA_RAW_MAGIC) - 1) != 0) {
		if (got >= (ssize_t)sizeof(CUA_RAW_MAGIC_PREFIX) - 1 &&
		    memcmp(h.magic, CUA_RAW_MAGIC_PREFIX, sizeof(CUA_RAW_MAGIC_PREFIX) - 1) == 0)
			fprintf(stderr, "cuaudit trace: %s was written by another version of cuaudit; "
					"convert it with the cuaudit that wrote it\n", cli_term(raw_path));
		else
			fprintf(stderr, "cuaudit trace: %s is not a cuaudit raw trace file\n",
				cli_term(raw_path));
		close(fd);
		return 1;
	}
	if (h.table_sig != cua_tracefmt_table_sig()) {
		fprintf(stderr, "cuaudit trace: %s was written by another build of cuaudit (other "
				"wrappers); convert it with the cuaudit that wrote it\n", cli_term(raw_path));
		close(fd);
		return 1;
	}
	h.program[sizeof(h.program) - 1] = '\0';
	running = cua_cli_raw_writer_running(&h);
	if (!out_path) {
		char base[sizeof(out)];

		/* The name the module would have used: by the rule every output follows, a file
		   cuaudit did not write there is left alone (NAME.1.json, said once). */
		default_out(base, sizeof(base), raw_path, (unsigned long long)h.pid);
		if (running)
			partial_name(base, sizeof(base));
		ofd = cua_out_choose("trace", base, CUA_TRACE_SIGNATURE, 0, NULL, out, sizeof(out));
		out_path = ofd >= 0 ? out : base;
	} else if (stat(out_path, &ost) == 0 && fstat(fd, &ist) == 0 && ost.st_dev == ist.st_dev &&
		   ost.st_ino == ist.st_ino) {
		/* A name the user gave is written over, unless it is the input itself. */
		fprintf(stderr, "cuaudit trace: %s is the input; it is not written over\n",
			cli_term(out_path));
		close(fd);
		return 1;
	} else {
		ofd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	}
	window = malloc(WINDOW);
	if (ofd < 0 || !window) {
		fprintf(stderr, "cuaudit trace: cannot create %s: %s\n", cli_term(out_path),
			ofd < 0 ? strerror(errno) : "out of memory");
		close(fd);
		free(window);
		return 1;
	}
	cua_writer_init(&w, ofd);
	cua_tracefmt_head(&w, h.pid);
	cua_tracefmt_clock(&w, h.pid, h.anchor_realtime_ns, h.anchor_monotonic_ns);
	skipped = cua_tracefmt_raw(&w, fd, window, WINDOW, h.pid, &limited, &last);
	if (limited == CUA_BLOCK_LIMIT)
		cua_tracefmt_marker(&w, h.pid, last, "CUAUDIT_TRACE_MAX reached; later events were dropped");
	else if (limited == CUA_BLOCK_EXITED)
		cua_tracefmt_marker(&w, h.pid, last, "end of the trace (the process exited; the raw "
				    "file was kept, not converted, past CUAUDIT_TRACE_EXIT_TIME)");
	else if (running)
		cua_tracefmt_marker(&w, h.pid, last, "end of what was on disk (the process was still "
				    "running: later calls are not here)");
	else
		cua_tracefmt_marker(&w, h.pid, last, "end of what was on disk (process ended without exit)");
	cua_tracefmt_names(&w, h.pid, h.program, NULL);
	cua_tracefmt_tail(&w);
	free(window);
	close(fd);
	if (fstat(ofd, &ost) != 0)
		ost.st_mode = 0;
	if (cua_writer_close(&w, out_path) != 0) {
		/* A cut JSON file is no trace (a full disk): it goes, if the name still leads to
		   the regular file written (never a device such as /dev/full). */
		if (S_ISREG(ost.st_mode) && stat(out_path, &ist) == 0 &&
		    ist.st_dev == ost.st_dev && ist.st_ino == ost.st_ino)
			unlink(out_path);
		return 1;
	}
	if (skipped)
		fprintf(stderr, "cuaudit trace: %u block(s) cut short by the end of the process were "
				"skipped\n", skipped);
	/* Said, not refused: part of a running process's trace (a hang) is worth reading. */
	if (running)
		fprintf(stderr, "cuaudit trace: process %llu (%s) is still running: %s holds only "
				"the calls written so far; the process writes its whole trace at its "
				"exit\n", (unsigned long long)h.pid, cli_term(h.program),
			cli_term(out_path));
	printf("%s\n", cli_term(out_path));
	return 0;
}

static void usage(FILE *f)
{
	fputs("usage: cuaudit trace [OPTIONS] TRACE.PID.NONCE.raw...\n"
	      "Turns the raw trace file that a process ended without exit() left beside its trace\n"
	      "name into a Chrome trace JSON file, and prints its name. The raw file of a process\n"
	      "still running is converted as far as it is written, said on stderr and in the\n"
	      "trace, by default as t.4242.partial.json (the process writes t.4242.json at exit).\n"
	      "\n"
	      "  -o, --output FILE\n"
	      "        the JSON file (one input only); by default the trace's own name with the\n"
	      "        pid, e.g. t.4242.json for t.json.4242.0x1f3a.raw, which must not exist yet\n"
	      "  -M, --mangled\n"
	      "        kernel names as the compiler wrote them, not demangled (kernel_name)\n"
	      "  -h, --help\n"
	      "        this text\n"
	      "\n"
	      "Exit status: 0; 1 if an input could not be converted; 2 for usage errors.\n",
	      f);
}

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "cuaudit trace: %s%s%s\nTry 'cuaudit trace --help'.\n", what,
		arg ? " " : "", arg ? arg : "");
	return 2;
}

int cua_cli_trace_main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "mangled", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	int c, rc = 0;

	opterr = 0;
	optind = 0; /* glibc: start afresh */
	while ((c = getopt_long(argc, argv, ":o:Mh", longs, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'M': cua_demangle_names = 0; break;
		case 'h': usage(stdout); return 0;
		case ':': return usage_error("missing value for", argv[optind - 1]);
		default: return usage_error("unknown option", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("no raw trace files given", NULL);
	if (out && argc - optind != 1)
		return usage_error("--output names one file: give one input with it", NULL);
	cua_tracefmt_init();
	cua_cfg.log_level = CUA_LOG_WARN; /* the module's default: cua_out_choose's message */
	for (int i = optind; i < argc; i++)
		rc |= convert(argv[i], out);
	return rc;
}
