/* SPDX-License-Identifier: MIT */
/* cli/nvtx_report.c: reads the "nvtx" section of JSON summaries, merges the ranges by name and domain across processes, and prints them as text and JSON. */
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "nvtx_report.h"

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

static const char *str_of(const struct json *obj, const char *key)
{
	const struct json *v = json_get(obj, key);

	return v && v->type == JSON_STRING ? v->string : NULL;
}

static struct cua_nvtx_rrow *row_of(struct cua_nvtx_report *r, const char *name, const char *domain)
{
	struct cua_nvtx_rrow *x;

	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->rows[i].name, name) == 0 && strcmp(r->rows[i].domain, domain) == 0)
			return &r->rows[i];
	if (r->n == r->cap) {
		size_t c = r->cap ? r->cap * 2 : 64;
		struct cua_nvtx_rrow *t = realloc(r->rows, c * sizeof(*t));

		if (!t)
			return NULL;
		r->rows = t;
		r->cap = c;
	}
	x = &r->rows[r->n];
	memset(x, 0, sizeof(*x));
	x->name = strdup(name);
	x->domain = strdup(domain);
	if (!x->name || !x->domain) {
		free(x->name);
		free(x->domain);
		return NULL;
	}
	r->n++;
	return x;
}

/* One record of "ranges" (docs/summary-schema.json), checked whole before anything is
   added. A record from a cuaudit before the per-range calls has none: 0. */
static int add_range(struct cua_nvtx_report *r, const struct json *o, char *err, size_t errcap)
{
	const char *const *keys = cua_nvtx_json_range_keys, *const *gkeys = cua_nvtx_json_gpu_keys;
	uint64_t v[CUA_NVTX_JSON_RANGE_N] = { 0 }, g[CUA_NVTX_JSON_GPU_N] = { 0 }, procs = 1;
	const char *name = str_of(o, "name"), *domain = str_of(o, "domain");
	const struct json *gpu = json_get(o, "gpu");
	struct cua_nvtx_rrow *x;

	if (o->type != JSON_OBJECT || !name || !domain) {
		snprintf(err, errcap, "an nvtx range without a name or domain");
		return -1;
	}
	for (unsigned i = 0; i < CUA_NVTX_JSON_RANGE_N; i++)
		if ((i < CUA_NVTX_JSON_calls && !json_get(o, keys[i])) || u64_of(o, keys[i], &v[i])) {
			snprintf(err, errcap, "nvtx range: bad or missing \"%s\"", keys[i]);
			return -1;
		}
	/* A merged summary's record counts its processes. */
	if (u64_of(o, "processes", &procs) || procs > UINT32_MAX) {
		snprintf(err, errcap, "nvtx range: bad \"processes\"");
		return -1;
	}
	if (gpu && gpu->type != JSON_OBJECT)
		gpu = NULL;
	for (unsigned i = 0; gpu && i < CUA_NVTX_JSON_GPU_N; i++)
		if (!json_get(gpu, gkeys[i]) || u64_of(gpu, gkeys[i], &g[i])) {
			snprintf(err, errcap, "nvtx range: bad or missing gpu \"%s\"", gkeys[i]);
			return -1;
		}
	if (!(x = row_of(r, name, domain))) {
		snprintf(err, errcap, "out of memory");
		return -1;
	}
	if (v[CUA_NVTX_JSON_ranges] && (!x->ranges || v[CUA_NVTX_JSON_min_ns] < x->min_ns))
		x->min_ns = v[CUA_NVTX_JSON_min_ns];
	if (v[CUA_NVTX_JSON_max_ns] > x->max_ns)
		x->max_ns = v[CUA_NVTX_JSON_max_ns];
	x->ranges += v[CUA_NVTX_JSON_ranges];
	x->total_ns += v[CUA_NVTX_JSON_total_ns];
	x->marks += v[CUA_NVTX_JSON_marks];
	x->calls += v[CUA_NVTX_JSON_calls];
	x->calls_timed += v[CUA_NVTX_JSON_calls_timed];
	x->calls_ns += v[CUA_NVTX_JSON_calls_ns];
	if (gpu) {
		/* Every GPU number is a sum (the totals are bounds, summed). */
		x->has_gpu = 1;
#define ADD(key, member) x->member += g[CUA_NVTX_JSON_##key];
		CUA_NVTX_JSON_GPU(ADD)
#undef ADD
	}
	x->processes += (unsigned)procs;
	return 0;
}

int cua_nvtx_report_add(struct cua_nvtx_report *r, const char *text, size_t len, char *err,
			size_t errcap)
{
	struct json *doc = json_parse(text, len, err, errcap);
	const struct json *nv, *ranges, *dropped;
	struct cua_nvtx_report copy;
	int rc = 0;

	if (!doc)
		return -1;
	nv = json_get(doc, "nvtx");
	if (!nv || nv->type != JSON_OBJECT) {
		json_free(doc);
		return 0;
	}
	ranges = json_get(nv, "ranges");
	dropped = json_get(nv, "dropped");
	if (!ranges || ranges->type != JSON_ARRAY || !dropped || dropped->type != JSON_OBJECT) {
		snprintf(err, errcap, "an nvtx section without ranges or dropped");
		json_free(doc);
		return -1;
	}
	/* All or nothing: a bad record leaves the merged rows as they were. */
	copy = *r;
	copy.rows = r->n ? malloc(r->cap * sizeof(*copy.rows)) : NULL;
	if (r->n && !copy.rows) {
		snprintf(err, errcap, "out of memory");
		json_free(doc);
		return -1;
	}
	if (r->n)
		memcpy(copy.rows, r->rows, r->n * sizeof(*copy.rows));
	for (const struct json *o = ranges->child; o && !rc; o = o->next)
		rc = add_range(r, o, err, errcap);
	for (unsigned i = 0; i < CUA_NVTX_JSON_DROPS_N && !rc; i++) {
		uint64_t v = 0;

		if (u64_of(dropped, cua_nvtx_json_drop_keys[i], &v)) {
			snprintf(err, errcap, "nvtx: bad dropped \"%s\"", cua_nvtx_json_drop_keys[i]);
			rc = -1;
		}
		r->dropped[i] += v;
	}
	if (rc) {
		/* Rows added by this input go; the old ones come back as they were. */
		for (size_t i = copy.n; i < r->n; i++) {
			free(r->rows[i].name);
			free(r->rows[i].domain);
		}
		if (copy.n)
			memcpy(r->rows, copy.rows, copy.n * sizeof(*copy.rows));
		r->n = copy.n;
		memcpy(r->dropped, copy.dropped, sizeof(r->dropped));
	} else {
		uint64_t procs = 1;

		/* A merged summary's section counts its processes. */
		if (u64_of(nv, "processes", &procs) == 0 && procs <= UINT32_MAX)
			r->processes += (unsigned)procs;
		r->inputs++;
	}
	free(copy.rows);
	json_free(doc);
	return rc;
}

static int by_total(const void *a, const void *b)
{
	const struct cua_nvtx_rrow *x = a, *y = b;
	int c;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->domain, y->domain);
}

void cua_nvtx_report_sort(struct cua_nvtx_report *r)
{
	if (r->n)
		qsort(r->rows, r->n, sizeof(*r->rows), by_total);
}

/* Bounds where some record was only bounded, as the summary prints them. */
static void put_gpu(const struct cua_nvtx_rrow *x)
{
	char tmp[64];
	int cols;

	if (!x->has_gpu)
		snprintf(tmp, sizeof(tmp), "-");
	else if (x->gpu_min_ns == x->gpu_max_ns)
		snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)x->gpu_min_ns);
	else
		snprintf(tmp, sizeof(tmp), "%llu\xe2\x80\x93%llu", (unsigned long long)x->gpu_min_ns,
			 (unsigned long long)x->gpu_max_ns);
	/* Columns, not bytes: the dash is three bytes, one column. */
	cols = (int)strlen(tmp) - (x->has_gpu && x->gpu_min_ns != x->gpu_max_ns ? 2 : 0);
	printf("%*s%s", cols < 26 ? 26 - cols : 0, "", tmp);
}

void cua_nvtx_report_text(const struct cua_nvtx_report *r, size_t top)
{
	int sampled = 0;

	if (!r->inputs)
		return;
	printf("\nNVTX ranges (%u process%s)\n"
	       "  calls, call_ns, gpu_ns: the CUDA calls made inside ranges of the name, their host time, "
	       "their kernels' GPU time\n"
	       "    ranges      total_ns       avg_ns       min_ns       max_ns     marks      calls"
	       "        call_ns                     gpu_ns  processes  domain:name\n",
	       r->processes, r->processes == 1 ? "" : "es");
	for (size_t i = 0; i < r->n && (!top || i < top); i++) {
		const struct cua_nvtx_rrow *x = &r->rows[i];

		printf("%10llu %13llu %12llu %12llu %12llu %9llu %10llu %14llu%c",
		       (unsigned long long)x->ranges, (unsigned long long)x->total_ns,
		       (unsigned long long)(x->ranges ? x->total_ns / x->ranges : 0),
		       (unsigned long long)x->min_ns, (unsigned long long)x->max_ns,
		       (unsigned long long)x->marks, (unsigned long long)x->calls,
		       (unsigned long long)x->calls_ns, x->calls_timed < x->calls ? '*' : ' ');
		sampled |= x->calls_timed < x->calls;
		put_gpu(x);
		printf(" %10u  ", x->processes);
		/* Two calls: cli_term's buffer holds one string. */
		if (x->domain[0])
			printf("%s:", cli_term(x->domain));
		printf("%s\n", cli_term(x->name));
	}
	if (top && r->n > top)
		printf("  (%zu more names)\n", r->n - top);
	printf("  dropped:");
	for (unsigned i = 0; i < CUA_NVTX_JSON_DROPS_N; i++)
		printf("%s %s %llu", i ? "," : "", cua_nvtx_json_drop_keys[i],
		       (unsigned long long)r->dropped[i]);
	putchar('\n');
	if (sampled)
		printf("  *: the time of the calls the sampled summaries timed only (calls_timed in JSON)\n");
}

void cua_nvtx_report_json(FILE *f, const struct cua_nvtx_report *r)
{
	struct json_file j;

	if (!r->inputs)
		return;
	json_file_begin(&j, f);
	cua_buf_str(&j.b, ",\"nvtx\":{\"processes\":");
	cua_buf_u64(&j.b, r->processes);
	cua_buf_char(&j.b, ',');
	cua_nvtx_json_drops(&j.b, r->dropped);
	cua_buf_str(&j.b, ",\"ranges\":[");
	for (size_t i = 0; i < r->n; i++) {
		const struct cua_nvtx_rrow *x = &r->rows[i];
#define OF(key, member) x->member,
		const uint64_t v[CUA_NVTX_JSON_RANGE_N] = { CUA_NVTX_JSON_RANGE(OF) };
		const uint64_t g[CUA_NVTX_JSON_GPU_N] = { CUA_NVTX_JSON_GPU(OF) };
#undef OF

		cua_buf_str(&j.b, i ? ",\n  " : "\n  ");
		cua_nvtx_json_range(&j.b, x->name, x->domain, v, x->has_gpu ? g : NULL);
		cua_buf_str(&j.b, ",\"processes\":");
		cua_buf_u64(&j.b, x->processes);
		cua_buf_char(&j.b, '}');
	}
	cua_buf_str(&j.b, "]}");
	json_file_end(&j);
}

void cua_nvtx_report_free(struct cua_nvtx_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->rows[i].name);
		free(r->rows[i].domain);
	}
	free(r->rows);
	memset(r, 0, sizeof(*r));
}
