/* SPDX-License-Identifier: MIT */
/* cli/report.c: merges cuaudit summary files into one table per API and one per process, and merged JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "report.h"

struct api_row {
	char name[128];
	char layer[16];
	int nested;
	double calls, errors, total_ns, min_ns, max_ns, p99_max_ns;
	double bindings[6];
	int processes;
};

struct proc_row {
	const char *file;
	double pid, calls, errors, total_ns;
};

static const char *const bind_names[6] = { "plt", "bindnow", "dlsym", "procaddress", "got",
					   "entry" };

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 65536 + 1 > cap) {
			char *t = realloc(buf, cap = cap ? cap * 2 : 131072);

			if (!t) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = t;
		}
		size_t r = fread(buf + n, 1, 65536, f);

		n += r;
		if (r == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static struct api_row *find_row(struct api_row **rows, size_t *n, size_t *cap, const char *name,
				const char *layer, int nested)
{
	for (size_t i = 0; i < *n; i++)
		if ((*rows)[i].nested == nested && strcmp((*rows)[i].name, name) == 0 &&
		    strcmp((*rows)[i].layer, layer) == 0)
			return &(*rows)[i];
	if (*n == *cap) {
		struct api_row *t = realloc(*rows, (*cap = *cap ? *cap * 2 : 256) * sizeof(**rows));

		if (!t)
			return NULL;
		*rows = t;
	}
	struct api_row *r = &(*rows)[(*n)++];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->layer, sizeof(r->layer), "%s", layer);
	r->nested = nested;
	r->min_ns = -1;
	return r;
}

static int by_total(const void *a, const void *b)
{
	const struct api_row *x = a, *y = b;

	if (x->nested != y->nested)
		return x->nested - y->nested;
	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : strcmp(x->name, y->name);
}

static void usage(FILE *f)
{
	fputs("usage: cuaudit report [--json=FILE] SUMMARY.json...\n"
	      "Merges the JSON summaries of several processes (CUAUDIT_SUMMARY=...%p.json):\n"
	      "one table per API across processes, one per process, and with --json a merged\n"
	      "summary in the same schema (cuaudit-summary/1, plus \"processes\").\n",
	      f);
}

static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void write_json(FILE *f, struct api_row *rows, size_t n, struct proc_row *procs, size_t np)
{
	fprintf(f, "{\"schema\":\"cuaudit-summary/1\",\"merged\":true,\"apis\":[");
	for (size_t i = 0; i < n; i++) {
		const struct api_row *r = &rows[i];

		fprintf(f, "%s\n  {\"name\":", i ? "," : "");
		put_str(f, r->name);
		fprintf(f, ",\"layer\":\"%s\",\"nested\":%s,\"calls\":%.0f,"
			   "\"errors\":%.0f,\"total_ns\":%.0f,\"avg_ns\":%.0f,\"min_ns\":%.0f,"
			   "\"max_ns\":%.0f,\"p99_max_ns\":%.0f,\"processes\":%d,\"bindings\":{",
			r->layer, r->nested ? "true" : "false", r->calls,
			r->errors, r->total_ns, r->calls ? r->total_ns / r->calls : 0, r->min_ns,
			r->max_ns, r->p99_max_ns, r->processes);
		for (int k = 0; k < 6; k++)
			fprintf(f, "%s\"%s\":%.0f", k ? "," : "", bind_names[k], r->bindings[k]);
		fputs("}}", f);
	}
	fputs("\n],\"processes\":[", f);
	for (size_t i = 0; i < np; i++)
	{
		fprintf(f, "%s\n  {\"file\":", i ? "," : "");
		put_str(f, procs[i].file);
		fprintf(f, ",\"pid\":%.0f,\"calls\":%.0f,\"errors\":%.0f,\"total_ns\":%.0f}",
			procs[i].pid, procs[i].calls, procs[i].errors, procs[i].total_ns);
	}
	fputs("\n]}\n", f);
}

static int merge_file(const char *path, struct api_row **rows, size_t *n, size_t *cap,
		      struct proc_row *proc)
{
	char err[128];
	char *text = slurp(path);
	struct json *doc;
	const struct json *apis;

	if (!text) {
		fprintf(stderr, "cuaudit report: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	doc = json_parse(text, err, sizeof(err));
	free(text);
	apis = doc ? json_get(doc, "apis") : NULL;
	if (!doc || !apis || apis->type != JSON_ARRAY ||
	    strncmp(json_str(doc, "schema", ""), "cuaudit-summary/", 16) != 0) {
		fprintf(stderr, "cuaudit report: %s is not a cuaudit JSON summary%s%s\n", path,
			doc ? "" : ": ", doc ? "" : err);
		json_free(doc);
		return -1;
	}
	memset(proc, 0, sizeof(*proc));
	proc->file = path;
	proc->pid = json_num(doc, "pid", 0);
	for (const struct json *a = apis->child; a; a = a->next) {
		const struct json *b = json_get(a, "bindings");
		struct api_row *r = find_row(rows, n, cap, json_str(a, "name", "?"),
					     json_str(a, "layer", "?"), (int)json_num(a, "nested", 0));
		double mn = json_num(a, "min_ns", 0), p99 = json_num(a, "p99_ns", 0);

		if (!r) {
			json_free(doc);
			return -1;
		}
		r->calls += json_num(a, "calls", 0);
		r->errors += json_num(a, "errors", 0);
		r->total_ns += json_num(a, "total_ns", 0);
		r->min_ns = r->min_ns < 0 || mn < r->min_ns ? mn : r->min_ns;
		r->max_ns = json_num(a, "max_ns", 0) > r->max_ns ? json_num(a, "max_ns", 0) : r->max_ns;
		r->p99_max_ns = p99 > r->p99_max_ns ? p99 : r->p99_max_ns;
		r->processes++;
		for (int k = 0; k < 6; k++)
			r->bindings[k] += json_num(b, bind_names[k], 0);
		if (!json_num(a, "nested", 0)) {
			proc->calls += json_num(a, "calls", 0);
			proc->errors += json_num(a, "errors", 0);
			proc->total_ns += json_num(a, "total_ns", 0);
		}
	}
	json_free(doc);
	return 0;
}

int cuaudit_report_main(int argc, char **argv)
{
	const char *json_out = NULL;
	struct api_row *rows = NULL;
	size_t n = 0, cap = 0, np = 0;
	struct proc_row *procs = calloc((size_t)argc, sizeof(*procs));
	int status = 0, files = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			free(procs);
			return 0;
		}
		if (strncmp(argv[i], "--json=", 7) == 0) {
			json_out = argv[i] + 7;
			continue;
		}
		if (argv[i][0] == '-') {
			fprintf(stderr, "cuaudit report: unknown option %s\n", argv[i]);
			usage(stderr);
			free(procs);
			return 2;
		}
		files++;
		if (merge_file(argv[i], &rows, &n, &cap, &procs[np]) == 0)
			np++;
		else
			status = 1;
	}
	if (!files) {
		usage(stderr);
		free(procs);
		return 2;
	}
	qsort(rows, n, sizeof(*rows), by_total);
	printf("cuaudit report: %zu process(es)\n", np);
	for (int nested = 0; nested < 2; nested++) {
		printf(nested ? "\ncalls made inside other CUDA calls:\n" : "\ncalls the applications made:\n");
		printf("%14s %10s %8s %11s %11s %12s %12s %5s  %-8s %s\n", "total_ns", "calls", "errors",
		       "avg_ns", "min_ns", "max_ns", "p99_max_ns", "procs", "layer", "api");
		for (size_t i = 0; i < n; i++) {
			const struct api_row *r = &rows[i];

			if (r->nested != nested)
				continue;
			printf("%14.0f %10.0f %8.0f %11.0f %11.0f %12.0f %12.0f %5d  %-8s %s\n",
			       r->total_ns, r->calls, r->errors, r->calls ? r->total_ns / r->calls : 0,
			       r->min_ns, r->max_ns, r->p99_max_ns, r->processes, r->layer, r->name);
		}
	}
	printf("\nper process:\n%8s %10s %8s %14s  %s\n", "pid", "calls", "errors", "total_ns", "file");
	for (size_t i = 0; i < np; i++)
		printf("%8.0f %10.0f %8.0f %14.0f  %s\n", procs[i].pid, procs[i].calls, procs[i].errors,
		       procs[i].total_ns, procs[i].file);
	if (json_out) {
		FILE *f = fopen(json_out, "w");

		if (!f) {
			fprintf(stderr, "cuaudit report: cannot write %s: %s\n", json_out, strerror(errno));
			status = 1;
		} else {
			write_json(f, rows, n, procs, np);
			if (fclose(f) != 0)
				status = 1;
		}
	}
	free(rows);
	free(procs);
	return status;
}
