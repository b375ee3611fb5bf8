/* SPDX-License-Identifier: MIT */
/* cli/gpu_report.c: reads the "gpu" section of JSON summaries, merges kernels by name and memory operations across processes, and prints them as text, CSV and JSON. */
#include <stdlib.h>
#include <string.h>
#include "demangle.h"
#include "gpu_report.h"
#include "json.h"

static const char *const untimed_names[] = { "pool_full", "capturing", "no_context", "lost",
					     "unfinished" };
#define NUNTIMED (sizeof(untimed_names) / sizeof(untimed_names[0]))

static int u64_of(const struct json *obj, const char *key, uint64_t *out)
{
	const struct json *v = json_get(obj, key);

	if (!v)
		return 0;
	if (v->type != JSON_NUMBER || !v->integral || v->integer < 0)
		return -1;
	*out = (uint64_t)v->integer;
	return 0;
}

static struct cua_gpu_row *row_of(struct cua_gpu_row **rows, size_t *n, size_t *cap,
				  const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*rows)[i].name, name) == 0)
			return &(*rows)[i];
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct cua_gpu_row *t = realloc(*rows, c * sizeof(*t));

		if (!t)
			return NULL;
		*rows = t;
		*cap = c;
	}
	memset(&(*rows)[*n], 0, sizeof(**rows));
	if (!((*rows)[*n].name = strdup(name)))
		return NULL;
	(*rows)[*n].min_ns = (*rows)[*n].min_bytes = UINT64_MAX;
	return &(*rows)[(*n)++];
}

/* Adds one row object; unit "_ns" for times, "_bytes" for sizes (memory only). */
static int add_row(struct cua_gpu_row *r, const struct json *o, const char *count_key)
{
	uint64_t n = 0, total = 0, avg = 0, mn = 0, mx = 0, sd = 0, bytes = 0, bmin = 0, bmax = 0;

	if (u64_of(o, count_key, &n) || u64_of(o, "total_ns", &total) || u64_of(o, "avg_ns", &avg) ||
	    u64_of(o, "min_ns", &mn) || u64_of(o, "max_ns", &mx) || u64_of(o, "stddev_ns", &sd) ||
	    u64_of(o, "total_bytes", &bytes) || u64_of(o, "min_bytes", &bmin) ||
	    u64_of(o, "max_bytes", &bmax))
		return -1;
	if (!n)
		return 0;
	r->count += n;
	r->total_ns += total;
	/* n (sd^2 + mean^2) is the sum of squares of this input's n values. */
	r->sumsq += (double)n * ((double)sd * (double)sd + ((double)total / (double)n) *
							      ((double)total / (double)n));
	if (mn < r->min_ns)
		r->min_ns = mn;
	if (mx > r->max_ns)
		r->max_ns = mx;
	r->bytes += bytes;
	if (json_get(o, "min_bytes") && bmin < r->min_bytes)
		r->min_bytes = bmin;
	if (bmax > r->max_bytes)
		r->max_bytes = bmax;
	r->processes++;
	(void)avg;
	return 0;
}

/* The row's count: 0 when absent or zero; 1 when malformed, for add_row to report. */
static uint64_t instances_of(const struct json *o, const char *count_key)
{
	uint64_t n = 0;

	return u64_of(o, count_key, &n) == 0 ? n : 1;
}

static int add_list(const struct json *arr, const char *name_key, const char *count_key,
		    struct cua_gpu_row **rows, size_t *n, size_t *cap, char *err, size_t errcap)
{
	size_t i = 0;

	if (!arr)
		return 0;
	if (arr->type != JSON_ARRAY) {
		snprintf(err, errcap, "gpu: expected an array");
		return -1;
	}
	for (const struct json *o = arr->child; o; o = o->next, i++) {
		const struct json *name = json_get(o, name_key);
		struct cua_gpu_row *r;

		if (o->type != JSON_OBJECT || !name || name->type != JSON_STRING) {
			snprintf(err, errcap, "gpu: element %zu has no %s", i, name_key);
			return -1;
		}
		/* A row of no instances (a summary written by hand, or cut) adds nothing: no row
		   is made for it, so every printed average divides by a count of at least 1. */
		if (instances_of(o, count_key) == 0)
			continue;
		if (!(r = row_of(rows, n, cap, name->string)) || add_row(r, o, count_key) != 0) {
			snprintf(err, errcap, "gpu: element %zu (%s) is malformed", i, name->string);
			return -1;
		}
	}
	return 0;
}

int cua_gpu_report_add(struct cua_gpu_report *g, const char *text, size_t len, char *err,
		       size_t errcap)
{
	struct json *doc = json_parse(text, len, err, errcap);
	const struct json *gpu, *untimed;
	uint64_t timed = 0;
	int rc = 0;

	if (!doc)
		return -1;
	gpu = json_get(doc, "gpu");
	if (gpu && gpu->type == JSON_OBJECT) {
		g->inputs++;
		if (u64_of(gpu, "timed", &timed) == 0)
			g->timed += timed;
		untimed = json_get(gpu, "untimed");
		for (size_t i = 0; untimed && i < NUNTIMED; i++) {
			uint64_t v = 0;

			if (u64_of(untimed, untimed_names[i], &v) == 0)
				g->untimed[i] += v;
		}
		rc = add_list(json_get(gpu, "kernels"), "name", "instances", &g->kernels, &g->nkernels,
			      &g->capkernels, err, errcap);
		if (!rc)
			rc = add_list(json_get(gpu, "memory"), "operation", "count", &g->mem, &g->nmem,
				      &g->capmem, err, errcap);
	}
	json_free(doc);
	return rc;
}

static int by_total(const void *a, const void *b)
{
	const struct cua_gpu_row *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

void cua_gpu_report_sort(struct cua_gpu_report *g)
{
	if (g->nkernels)
		qsort(g->kernels, g->nkernels, sizeof(*g->kernels), by_total);
	if (g->nmem)
		qsort(g->mem, g->nmem, sizeof(*g->mem), by_total);
}

/* The integer square root, without libm. */
static uint64_t isqrt(uint64_t v)
{
	uint64_t x = v, y = (x + 1) / 2;

	if (v < 2)
		return v;
	while (y < x) {
		x = y;
		y = (x + v / x) / 2;
	}
	return x;
}

static uint64_t stddev(const struct cua_gpu_row *r)
{
	double mean, var;

	if (r->count < 2)
		return 0;
	mean = (double)r->total_ns / (double)r->count;
	var = r->sumsq / (double)r->count - mean * mean;
	return var > 0 ? isqrt((uint64_t)(var + 0.5)) : 0;
}

static uint64_t total_of(const struct cua_gpu_row *rows, size_t n)
{
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += rows[i].total_ns;
	return t;
}

void cua_gpu_report_text(const struct cua_gpu_report *g, int table, size_t top)
{
	const struct cua_gpu_row *rows = table ? g->mem : g->kernels;
	size_t n = table ? g->nmem : g->nkernels;
	uint64_t total = total_of(rows, n);

	printf("\nGPU %s (CUAUDIT_GPU_TIME; %u process%s, %llu timed", table ? "memory operations" : "kernels",
	       g->inputs, g->inputs == 1 ? "" : "es", (unsigned long long)g->timed);
	for (size_t i = 0; i < NUNTIMED; i++)
		if (g->untimed[i])
			printf(", %llu untimed %s", (unsigned long long)g->untimed[i], untimed_names[i]);
	printf("):\n");
	if (!n) {
		printf("  (none recorded)\n");
		return;
	}
	printf("%7s %14s %10s %11s %11s %12s %11s %5s  %s\n", "time%", "total_ns",
	       table ? "count" : "instances", "avg_ns", "min_ns", "max_ns", "stddev_ns", "procs",
	       table ? "operation" : "name");
	for (size_t i = 0; i < n && (!top || i < top); i++) {
		const struct cua_gpu_row *r = &rows[i];

		printf("%7.2f %14llu %10llu %11llu %11llu %12llu %11llu %5u  %s\n",
		       total ? 100.0 * (double)r->total_ns / (double)total : 0.0,
		       (unsigned long long)r->total_ns, (unsigned long long)r->count,
		       (unsigned long long)(r->total_ns / r->count), (unsigned long long)r->min_ns,
		       (unsigned long long)r->max_ns, (unsigned long long)stddev(r), r->processes,
		       /* Readable and safe on a terminal, as in the other tables. */
		       cli_term(table ? r->name : cua_demangle(r->name)));
	}
	/* The summaries' median column is the one nsys users look for: say why it is not here. */
	printf("  (no median: a median of merged processes cannot be made from theirs; each summary\n"
	       "  has its own, and `cuaudit export` gives every record of a trace for a true one)\n");
	if (table) {
		printf("\n%14s %10s %14s %14s %14s  %s\n", "total_bytes", "count", "avg_bytes",
		       "min_bytes", "max_bytes", "operation");
		for (size_t i = 0; i < n && (!top || i < top); i++) {
			const struct cua_gpu_row *r = &rows[i];

			printf("%14llu %10llu %14llu %14llu %14llu  %s\n", (unsigned long long)r->bytes,
			       (unsigned long long)r->count, (unsigned long long)(r->bytes / r->count),
			       (unsigned long long)(r->min_bytes == UINT64_MAX ? 0 : r->min_bytes),
			       (unsigned long long)r->max_bytes, cli_term(r->name));
		}
	}
}

static void csv_name(const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

void cua_gpu_report_csv(const struct cua_gpu_report *g, int table, size_t top)
{
	const struct cua_gpu_row *rows = table ? g->mem : g->kernels;
	size_t n = table ? g->nmem : g->nkernels;

	puts(table ? "operation,count,total_ns,avg_ns,min_ns,max_ns,stddev_ns,total_bytes,min_bytes,"
		     "max_bytes,processes"
		   : "name,instances,total_ns,avg_ns,min_ns,max_ns,stddev_ns,processes");
	for (size_t i = 0; i < n && (!top || i < top); i++) {
		const struct cua_gpu_row *r = &rows[i];

		csv_name(table ? r->name : cua_demangle(r->name));
		printf(",%llu,%llu,%llu,%llu,%llu,%llu", (unsigned long long)r->count,
		       (unsigned long long)r->total_ns, (unsigned long long)(r->total_ns / r->count),
		       (unsigned long long)r->min_ns, (unsigned long long)r->max_ns,
		       (unsigned long long)stddev(r));
		if (table)
			printf(",%llu,%llu,%llu", (unsigned long long)r->bytes,
			       (unsigned long long)(r->min_bytes == UINT64_MAX ? 0 : r->min_bytes),
			       (unsigned long long)r->max_bytes);
		printf(",%u\n", r->processes);
	}
}

static void json_rows(FILE *f, const struct cua_gpu_row *rows, size_t n, int mem)
{
	for (size_t i = 0; i < n; i++) {
		const struct cua_gpu_row *r = &rows[i];

		fprintf(f, "%s\n  {\"%s\":", i ? "," : "", mem ? "operation" : "name");
		json_put_string(f, r->name);
		fprintf(f, ",\"%s\":%llu,\"total_ns\":%llu,\"avg_ns\":%llu,\"min_ns\":%llu,"
			   "\"max_ns\":%llu,\"stddev_ns\":%llu",
			mem ? "count" : "instances", (unsigned long long)r->count,
			(unsigned long long)r->total_ns, (unsigned long long)(r->total_ns / r->count),
			(unsigned long long)r->min_ns, (unsigned long long)r->max_ns,
			(unsigned long long)stddev(r));
		if (mem)
			fprintf(f, ",\"total_bytes\":%llu,\"min_bytes\":%llu,\"max_bytes\":%llu",
				(unsigned long long)r->bytes,
				(unsigned long long)(r->min_bytes == UINT64_MAX ? 0 : r->min_bytes),
				(unsigned long long)r->max_bytes);
		fprintf(f, ",\"processes\":%u}", r->processes);
	}
}

void cua_gpu_report_json(FILE *f, const struct cua_gpu_report *g)
{
	if (!g->inputs)
		return;
	fprintf(f, ",\"gpu\":{\"timed\":%llu,\"untimed\":{", (unsigned long long)g->timed);
	for (size_t i = 0; i < NUNTIMED; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "", untimed_names[i],
			(unsigned long long)g->untimed[i]);
	fputs("},\"kernels\":[", f);
	json_rows(f, g->kernels, g->nkernels, 0);
	fputs("\n],\"memory\":[", f);
	json_rows(f, g->mem, g->nmem, 1);
	fputs("\n]}", f);
}

void cua_gpu_report_free(struct cua_gpu_report *g)
{
	for (size_t i = 0; i < g->nkernels; i++)
		free(g->kernels[i].name);
	for (size_t i = 0; i < g->nmem; i++)
		free(g->mem[i].name);
	free(g->kernels);
	free(g->mem);
	memset(g, 0, sizeof(*g));
}
