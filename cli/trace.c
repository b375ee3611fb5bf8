/* SPDX-License-Identifier: MIT */
/* cli/trace.c: `cuaudit trace [-o OUT] RAW`: the raw file of a process that ended without exit() becomes a loadable trace. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "json.h"
#include "out.h"
#include "tracefmt.h"
#include "trace.h"
#include "writer.h"

#define WINDOW (1u << 20)

/* "t.json.4242.1f3a.raw" -> "t.json.4242.json": the trace's name with the pid. */
static void default_out(char *out, size_t cap, const char *raw, unsigned long long pid)
{
	size_t n = strlen(raw);
	const char *end = raw + n;
	int dots = 0;

	/* Cut ".PID.NONCE.raw". */
	while (end > raw && dots < 3)
		if (*--end == '.')
			dots++;
	if (dots < 3)
		end = raw + n;
	snprintf(out, cap, "%.*s.%llu.json", (int)(end - raw), raw, pid);
}

static int convert(const char *raw_path, const char *out_path)
{
	static struct cua_writer w;
	struct cua_raw_head h;
	char out[4096], *window;
	int fd = open(raw_path, O_RDONLY | O_CLOEXEC), ofd, limited = 0;
	uint64_t last = 0;
	unsigned skipped;

	if (fd < 0) {
		fprintf(stderr, "cuaudit trace: cannot open %s\n", cli_term(raw_path));
		return 1;
	}
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, CUA_RAW_MAGIC, sizeof(CUA_RAW_MAGIC) - 1) != 0) {
		fprintf(stderr, "cuaudit trace: %s is not a cuaudit raw trace file\n", cli_term(raw_path));
		close(fd);
		return 1;
	}
	if (h.table_sig != cua_tracefmt_table_sig()) {
		fprintf(stderr, "cuaudit trace: %s was written by another build of cuaudit (other "
				"wrappers); convert it with the cuaudit that wrote it\n", cli_term(raw_path));
		close(fd);
		return 1;
	}
	if (!out_path) {
		char base[sizeof(out)];

		/* The name the module would have used: by the rule every output follows, a file
		   cuaudit did not write there is left alone (NAME.1.json, said once). */
		default_out(base, sizeof(base), raw_path, (unsigned long long)h.pid);
		ofd = cua_out_choose("trace", base, CUA_TRACE_SIGNATURE, 0, NULL, out, sizeof(out));
		out_path = ofd >= 0 ? out : base;
	} else {
		ofd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	}
	window = malloc(WINDOW);
	if (ofd < 0 || !window) {
		fprintf(stderr, "cuaudit trace: cannot create %s\n", cli_term(out_path));
		close(fd);
		free(window);
		return 1;
	}
	cua_writer_init(&w, ofd);
	cua_tracefmt_head(&w, h.pid);
	skipped = cua_tracefmt_raw(&w, fd, window, WINDOW, h.pid, &limited, &last);
	if (limited)
		cua_tracefmt_marker(&w, h.pid, last, "CUAUDIT_TRACE_MAX reached; later events were dropped");
	else
		cua_tracefmt_marker(&w, h.pid, last, "end of what was on disk (process ended without exit)");
	cua_tracefmt_names(&w, h.pid, NULL, NULL);
	cua_tracefmt_tail(&w);
	free(window);
	close(fd);
	if (cua_writer_close(&w, out_path) != 0)
		return 1;
	if (skipped)
		fprintf(stderr, "cuaudit trace: %u block(s) cut short by the end of the process were "
				"skipped\n", skipped);
	printf("%s\n", cli_term(out_path));
	return 0;
}

int cua_cli_trace_main(int argc, char **argv)
{
	const char *out = NULL;
	int i = 1, rc = 0;

	if (i + 1 < argc && strcmp(argv[i], "-o") == 0) {
		out = argv[i + 1];
		i += 2;
	}
	if (i >= argc || (out && argc - i != 1)) {
		fprintf(stderr, "usage: cuaudit trace [-o OUT.json] RAW...\n");
		return 2;
	}
	cua_tracefmt_init();
	cua_cfg.log_level = CUA_LOG_WARN; /* the module's default: cua_out_choose's message */
	for (; i < argc; i++)
		rc |= convert(argv[i], out);
	return rc;
}
