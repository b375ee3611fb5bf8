/* SPDX-License-Identifier: MIT */
/* cli/gpu_report.c: reads the "gpu" section of JSON summaries, merges kernels by name and memory operations across processes, and prints them as text, CSV and JSON. */
#include <stdlib.h>
#include <string.h>
#include "demangle.h"
#include "gpu_report.h"
#include "json.h"

static const char *const untimed_names[] = { "pool_full", "capturing", "no_context", "lost",
					     "unfinished", "busy" };
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
	(*rows)[*n].shortest_min = (*rows)[*n].shortest_max = (*rows)[*n].min_bytes = UINT64_MAX;
	(*rows)[*n].all_exact = 1;
	return &(*rows)[(*n)++];
}

static void lower(uint64_t *r, uint64_t v)
{
	if (v < *r)
		*r = v;
}

static void raise_to(uint64_t *r, uint64_t v)
{
	if (v > *r)
		*r = v;
}

/* Adds one row object of a summary (docs/summary-schema.json): its bounds, its exact part,
   and, where every record was exact, its standard deviation. A row without bounds comes
   from a cuaudit before them, whose GPU times were lower bounds given as durations. */
static int add_row(struct cua_gpu_row *r, const struct json *o, const char *count_key)
{
	static const char *const keys[] = { "exact_instances", "exact_ns", "total_min_ns",
					    "total_max_ns", "shortest_min_ns", "shortest_max_ns",
					    "longest_min_ns", "longest_max_ns" };
	uint64_t n = 0, v[8] = { 0 }, sd = 0, bytes = 0, bmin = 0, bmax = 0;

	if (u64_of(o, count_key, &n) || u64_of(o, "stddev_ns", &sd) ||
	    u64_of(o, "total_bytes", &bytes) || u64_of(o, "min_bytes", &bmin) ||
	    u64_of(o, "max_bytes", &bmax))
		return -1;
	for (unsigned i = 0; i < 8; i++)
		if (!json_get(o, keys[i]) || u64_of(o, keys[i], &v[i]))
			return -1;
	if (!n)
		return 0;
	r->count += n;
	r->exact_n += v[0];
	r->exact_ns += v[1];
	r->total_min += v[2];
	r->total_max += v[3];
	lower(&r->shortest_min, v[4]);
	lower(&r->shortest_max, v[5]);
	raise_to(&r->longest_min, v[6]);
	raise_to(&r->longest_max, v[7]);
	if (v[0] == n && json_get(o, "stddev_ns")) {
		/* n (sd^2 + mean^2) is the sum of squares of this input's n values. */
		double mean = (double)v[2] / (double)n;

		r->sumsq += (double)n * ((double)sd * (double)sd + mean * mean);
	} else {
		r->all_exact = 0;
	}
	r->bytes += bytes;
	if (json_get(o, "min_bytes") && bmin < r->min_bytes)
		r->min_bytes = bmin;
	if (bmax > r->max_bytes)
		r->max_bytes = bmax;
	r->processes++;
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
			snprintf(err, errcap, "gpu: element %zu (%s) is malformed, or written by a "
					      "cuaudit whose GPU times had no bounds", i, name->string);
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
		const struct json *syn = json_get(gpu, "synthetic");

		g->inputs++;
		if (syn && syn->type == JSON_BOOL && syn->boolean)
			g->synthetic = 1;
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

	if (x->total_max != y->total_max)
		return x->total_max > y->total_max ? -1 : 1;
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

/* The merged standard deviation, or -1 where some record was only bounded. */
static long long stddev(const struct cua_gpu_row *r)
{
	double mean, var;

	if (!r->all_exact)
		return -1;
	if (r->count < 2)
		return 0;
	mean = (double)r->total_min / (double)r->count;
	var = r->sumsq / (double)r->count - mean * mean;
	return var > 0 ? (long long)isqrt((uint64_t)(var + 0.5)) : 0;
}

static uint64_t total_of(const struct cua_gpu_row *rows, size_t n)
{
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += rows[i].total_max;
	return t;
}

/* A duration for people, in width columns: "3.400 ms" where exact, "12.100–13.400 µs"
   where only bounded (the unit is the greater value's). */
static void print_dur(uint64_t lo, uint64_t hi, int width)
{
	static const char *const names[] = { "ns", "\xc2\xb5s", "ms", "s" };
	static const double units[] = { 1, 1e3, 1e6, 1e9 };
	char tmp[96];
	int u = 0, n, cols;

	while (u < 3 && (double)hi >= units[u + 1])
		u++;
	if (lo == hi)
		n = snprintf(tmp, sizeof(tmp), u ? "%.3f %s" : "%.0f %s", (double)lo / units[u],
			     names[u]);
	else
		n = snprintf(tmp, sizeof(tmp), u ? "%.3f\xe2\x80\x93%.3f %s" : "%.0f\xe2\x80\x93%.0f %s",
			     (double)lo / units[u], (double)hi / units[u], names[u]);
	/* Columns, not bytes: the dash and the micro sign are two bytes, one column each. */
	cols = n - (lo != hi ? 2 : 0) - (u == 1);
	printf("%*s%s", cols < width ? width - cols : 0, "", tmp);
}

/* A size for people, right-aligned in width: "512 B", "2.000 KiB", "1.500 MiB": powers of
   1024, as CUAUDIT_MEM_LIMIT takes them and the summary's size table prints them. */
static void print_size(uint64_t bytes, int width)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	char tmp[48];
	int u = 0;

	while (u < 4 && bytes >= (1ull << (10 * (u + 1))))
		u++;
	if (u == 0)
		snprintf(tmp, sizeof(tmp), "%llu B", (unsigned long long)bytes);
	else {
		/* Three decimals, rounded as the summary rounds them. */
		unsigned __int128 m = ((unsigned __int128)bytes * 1000 + (1ull << (10 * u - 1))) >> (10 * u);

		snprintf(tmp, sizeof(tmp), "%llu.%03u %s", (unsigned long long)(m / 1000),
			 (unsigned)(m % 1000), names[u]);
	}
	printf("%*s", width, tmp);
}

/* The rows --top left out, said as the other tables say it. */
static void print_more(size_t n, size_t top)
{
	if (top && n > top)
		printf("%11s (%zu more rows; --top=%zu shows the first %zu)\n", "...", n - top, top,
		       top);
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
	if (g->synthetic)
		printf("  (mock GPU: every GPU time below is synthetic)\n");
	if (!n) {
		/* What would have recorded some: the setting, or why the timed calls gave none. */
		if (!g->inputs)
			printf("  (none recorded: no input has GPU times; record them with "
			       "CUAUDIT_GPU_TIME=on, or cuaudit run --gpu-time on, with a summary)\n");
		else
			printf("  (none recorded: the runs timed no %s; CUAUDIT_GPU_TIME=N times one "
			       "call in N, =on every call)\n", table ? "copy or memset" : "kernel");
		return;
	}
	printf("%7s %23s %10s %7s %23s %23s %23s %5s  %s\n", "time%", "total",
	       table ? "count" : "instances", "exact%", "avg", "shortest", "longest", "procs",
	       table ? "operation" : "name");
	for (size_t i = 0; i < n && (!top || i < top); i++) {
		const struct cua_gpu_row *r = &rows[i];

		printf("%7.2f ", total ? 100.0 * (double)r->total_max / (double)total : 0.0);
		print_dur(r->total_min, r->total_max, 23);
		printf(" %10llu %7.2f ", (unsigned long long)r->count,
		       r->total_max ? 100.0 * (double)r->exact_ns / (double)r->total_max : 100.0);
		print_dur(r->total_min / r->count, r->total_max / r->count, 23);
		putchar(' ');
		print_dur(r->shortest_min, r->shortest_max, 23);
		putchar(' ');
		print_dur(r->longest_min, r->longest_max, 23);
		/* Readable and safe on a terminal, as in the other tables. */
		printf(" %5u  %s\n", r->processes, cli_term(table ? r->name : cua_demangle(r->name)));
	}
	print_more(n, top);
	/* The summaries' median column is the one nsys users look for: say why it is not here. */
	printf("  (time on the stream, launch gap included; a range is a bound: work that began\n"
	       "  on an idle stream, docs/hooks.md)\n"
	       "  (no median: a median of merged processes cannot be made from theirs;\n"
	       "  `cuaudit export` gives every record of a trace for a true one)\n");
	if (table) {
		printf("\n%14s %10s %14s %14s %14s  %s\n", "total size", "count", "avg", "min",
		       "max", "operation");
		for (size_t i = 0; i < n && (!top || i < top); i++) {
			const struct cua_gpu_row *r = &rows[i];

			print_size(r->bytes, 14);
			printf(" %10llu ", (unsigned long long)r->count);
			print_size(r->bytes / r->count, 14);
			putchar(' ');
			print_size(r->min_bytes == UINT64_MAX ? 0 : r->min_bytes, 14);
			putchar(' ');
			print_size(r->max_bytes, 14);
			printf("  %s\n", cli_term(r->name));
		}
		print_more(n, top);
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

/* The bound columns of CSV and JSON, in this order. */
static void bound_values(const struct cua_gpu_row *r, unsigned long long v[10])
{
	v[0] = r->exact_n;
	v[1] = r->exact_ns;
	v[2] = r->total_min;
	v[3] = r->total_max;
	v[4] = r->total_min / r->count;
	v[5] = r->total_max / r->count;
	v[6] = r->shortest_min;
	v[7] = r->shortest_max;
	v[8] = r->longest_min;
	v[9] = r->longest_max;
}

static const char *const bound_keys[10] = { "exact_instances", "exact_ns", "total_min_ns",
					    "total_max_ns", "avg_min_ns", "avg_max_ns",
					    "shortest_min_ns", "shortest_max_ns", "longest_min_ns",
					    "longest_max_ns" };

void cua_gpu_report_csv(const struct cua_gpu_report *g, int table, size_t top)
{
	const struct cua_gpu_row *rows = table ? g->mem : g->kernels;
	size_t n = table ? g->nmem : g->nkernels;

	fputs(table ? "operation,count" : "name,instances", stdout);
	for (unsigned i = 0; i < 10; i++)
		printf(",%s", bound_keys[i]);
	puts(table ? ",stddev_ns,total_bytes,min_bytes,max_bytes,processes" : ",stddev_ns,processes");
	for (size_t i = 0; i < n && (!top || i < top); i++) {
		const struct cua_gpu_row *r = &rows[i];
		unsigned long long v[10];
		long long sd = stddev(r);

		bound_values(r, v);
		csv_name(table ? r->name : cua_demangle(r->name));
		printf(",%llu", (unsigned long long)r->count);
		for (unsigned j = 0; j < 10; j++)
			printf(",%llu", v[j]);
		/* Empty where some record was only bounded: no exact spread to give. */
		if (sd >= 0)
			printf(",%lld", sd);
		else
			putchar(',');
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
		unsigned long long v[10];
		long long sd = stddev(r);

		bound_values(r, v);
		fprintf(f, "%s\n  {\"%s\":", i ? "," : "", mem ? "operation" : "name");
		json_put_string(f, r->name);
		fprintf(f, ",\"%s\":%llu", mem ? "count" : "instances", (unsigned long long)r->count);
		for (unsigned j = 0; j < 10; j++)
			fprintf(f, ",\"%s\":%llu", bound_keys[j], v[j]);
		/* The exact figures only where every record was exact, as in a summary. */
		if (sd >= 0)
			fprintf(f, ",\"total_ns\":%llu,\"avg_ns\":%llu,\"min_ns\":%llu,\"max_ns\":%llu,"
				   "\"stddev_ns\":%lld",
				v[2], v[4], v[6], v[8], sd);
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
	fprintf(f, ",\"gpu\":{\"synthetic\":%s,\"timed\":%llu,\"untimed\":{",
		g->synthetic ? "true" : "false", (unsigned long long)g->timed);
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
