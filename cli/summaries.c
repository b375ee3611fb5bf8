/* SPDX-License-Identifier: MIT */
/* cli/summaries.c: reads cuaudit JSON summaries through one field table and merges their records by sorting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "summaries.h"
#include "table.h"



/* Every field the reader reads, in the order of the enum below; tests/unit/test_report.c holds
 * this table against docs/summary-schema.json. */
enum {
	F_SCHEMA, F_PID, F_APIS, F_SNAPSHOT, F_PROCESS, F_KERNELS,
	F_A_NAME, F_A_LAYER, F_A_NESTED, F_A_CALLS, F_A_ERRORS, F_A_TOTAL, F_A_MIN, F_A_MAX, F_A_P99,
	F_A_TIMED, F_A_ERR, F_A_BINDINGS, F_B_FIRST,
	F_P_HOST = F_B_FIRST + CUA_NBIND, F_P_PID, F_P_COMMAND, F_P_START, F_P_END, F_P_VERSION,
	F_P_DRIVER, F_P_RUNTIME, F_P_IMAGE,
	F_K_NAME, F_K_LAUNCHES, F_K_ERRORS, F_K_TOTAL,
	/* What `cuaudit report --json` adds: a merged file is an input too. */
	F_MERGED, F_M_PROCESSES, F_A_PROCESSES, F_A_P99_MAX, F_K_PROCESSES, F_K_ESTIMATED,
	F_M_FILE, F_M_PID, F_M_HOST, F_M_COMMAND, F_M_START, F_M_END, F_M_SNAPSHOT, F_M_SAMPLED,
	F_M_CALLS, F_M_ERRORS, F_M_TOTAL,
	F_COUNT
};

const struct cua_field cua_summaries_fields[] = {
	[F_SCHEMA] = { "schema", CUA_F_STRING, 1 },
	[F_PID] = { "pid", CUA_F_UINT, 0 },
	[F_APIS] = { "apis", CUA_F_ARRAY, 1 },
	[F_SNAPSHOT] = { "snapshot", CUA_F_BOOL, 0 },
	[F_PROCESS] = { "process", CUA_F_OBJECT, 0 },
	[F_KERNELS] = { "kernels", CUA_F_ARRAY, 0 },
	[F_A_NAME] = { "apis[].name", CUA_F_STRING, 1 },
	[F_A_LAYER] = { "apis[].layer", CUA_F_STRING, 1 },
	[F_A_NESTED] = { "apis[].nested", CUA_F_BOOL, 1 },
	[F_A_CALLS] = { "apis[].calls", CUA_F_UINT, 1 },
	[F_A_ERRORS] = { "apis[].errors", CUA_F_UINT, 1 },
	[F_A_TOTAL] = { "apis[].total_ns", CUA_F_UINT, 1 },
	[F_A_MIN] = { "apis[].min_ns", CUA_F_UINT, 0 },
	[F_A_MAX] = { "apis[].max_ns", CUA_F_UINT, 0 },
	[F_A_P99] = { "apis[].p99_ns", CUA_F_UINT, 0 },
	[F_A_TIMED] = { "apis[].timed", CUA_F_UINT, 0 },
	[F_A_ERR] = { "apis[].total_err_ns", CUA_F_UINT, 0 },
	[F_A_BINDINGS] = { "apis[].bindings", CUA_F_OBJECT, 0 },
	[F_B_FIRST + 0] = { "apis[].bindings.plt", CUA_F_UINT, 0 },
	[F_B_FIRST + 1] = { "apis[].bindings.bindnow", CUA_F_UINT, 0 },
	[F_B_FIRST + 2] = { "apis[].bindings.dlsym", CUA_F_UINT, 0 },
	[F_B_FIRST + 3] = { "apis[].bindings.procaddress", CUA_F_UINT, 0 },
	[F_B_FIRST + 4] = { "apis[].bindings.got", CUA_F_UINT, 0 },
	[F_B_FIRST + 5] = { "apis[].bindings.entry", CUA_F_UINT, 0 },
	[F_P_HOST] = { "process.host", CUA_F_STRING, 0 },
	[F_P_PID] = { "process.pid", CUA_F_UINT, 0 },
	[F_P_COMMAND] = { "process.command", CUA_F_STRING, 0 },
	[F_P_START] = { "process.start", CUA_F_STRING, 0 },
	[F_P_END] = { "process.end", CUA_F_STRING, 0 },
	[F_P_VERSION] = { "process.cuaudit_version", CUA_F_STRING, 0 },
	[F_P_DRIVER] = { "process.driver_version", CUA_F_INT_OR_NULL, 0 },
	[F_P_RUNTIME] = { "process.runtime_version", CUA_F_INT_OR_NULL, 0 },
	[F_P_IMAGE] = { "process.image", CUA_F_STRING, 0 },
	[F_K_NAME] = { "kernels[].name", CUA_F_STRING, 1 },
	[F_K_LAUNCHES] = { "kernels[].launches", CUA_F_UINT, 1 },
	[F_K_ERRORS] = { "kernels[].errors", CUA_F_UINT, 0 },
	[F_K_TOTAL] = { "kernels[].total_ns", CUA_F_UINT, 0 },
	[F_MERGED] = { "merged", CUA_F_BOOL, 0 },
	[F_M_PROCESSES] = { "processes", CUA_F_ARRAY, 0 },
	[F_A_PROCESSES] = { "apis[].processes", CUA_F_UINT, 0 },
	[F_A_P99_MAX] = { "apis[].p99_max_ns", CUA_F_UINT, 0 },
	[F_K_PROCESSES] = { "kernels[].processes", CUA_F_UINT, 0 },
	[F_K_ESTIMATED] = { "kernels[].estimated", CUA_F_BOOL, 0 },
	[F_M_FILE] = { "processes[].file", CUA_F_STRING, 1 },
	[F_M_PID] = { "processes[].pid", CUA_F_UINT, 1 },
	[F_M_HOST] = { "processes[].host", CUA_F_STRING_OR_NULL, 0 },
	[F_M_COMMAND] = { "processes[].command", CUA_F_STRING_OR_NULL, 0 },
	[F_M_START] = { "processes[].start", CUA_F_STRING_OR_NULL, 0 },
	[F_M_END] = { "processes[].end", CUA_F_STRING_OR_NULL, 0 },
	[F_M_SNAPSHOT] = { "processes[].snapshot", CUA_F_BOOL, 1 },
	[F_M_SAMPLED] = { "processes[].sampled", CUA_F_BOOL, 1 },
	[F_M_CALLS] = { "processes[].calls", CUA_F_UINT, 1 },
	[F_M_ERRORS] = { "processes[].errors", CUA_F_UINT, 1 },
	[F_M_TOTAL] = { "processes[].total_ns", CUA_F_UINT, 1 },
};
const size_t cua_summaries_nfields = F_COUNT;

static const char *const type_words[] = {
	[CUA_F_STRING] = "a string", [CUA_F_UINT] = "a non-negative integer",
	[CUA_F_INT_OR_NULL] = "an integer or null", [CUA_F_BOOL] = "true or false",
	[CUA_F_OBJECT] = "an object", [CUA_F_ARRAY] = "an array",
	[CUA_F_STRING_OR_NULL] = "a string or null",
};

struct reader {
	char *err;
	size_t errcap;
	int failed;
};

static int type_ok(const struct json *v, enum cua_field_type t)
{
	switch (t) {
	case CUA_F_STRING: return v->type == JSON_STRING;
	case CUA_F_UINT: return v->type == JSON_NUMBER && v->integral && v->integer >= 0;
	case CUA_F_INT_OR_NULL: return v->type == JSON_NULL || (v->type == JSON_NUMBER && v->integral);
	case CUA_F_BOOL: return v->type == JSON_BOOL;
	case CUA_F_OBJECT: return v->type == JSON_OBJECT;
	case CUA_F_ARRAY: return v->type == JSON_ARRAY;
	case CUA_F_STRING_OR_NULL: return v->type == JSON_STRING || v->type == JSON_NULL;
	}
	return 0;
}

static void reader_fail(struct reader *r, const char *where, const char *key, const char *what)
{
	if (r->failed++)
		return;
	snprintf(r->err, r->errcap, "%s%s%s: %s", where, *where ? "." : "", key, what);
}

/* The member that field f names in obj, checked against the table; NULL when absent or wrong. */
static const struct json *get(struct reader *r, const struct json *obj, int f, const char *where)
{
	const struct cua_field *fd = &cua_summaries_fields[f];
	const char *key = strrchr(fd->path, '.');
	const struct json *v;
	char what[64];

	key = key ? key + 1 : fd->path;
	v = json_get(obj, key);
	if (!v) {
		if (fd->required)
			reader_fail(r, where, key, "missing");
		return NULL;
	}
	if (!type_ok(v, fd->type)) {
		snprintf(what, sizeof(what), "expected %s", type_words[fd->type]);
		reader_fail(r, where, key, what);
		return NULL;
	}
	return v;
}

static void get_u64(struct reader *r, const struct json *obj, int f, const char *where, uint64_t *out)
{
	const struct json *v = get(r, obj, f, where);

	if (v)
		*out = (uint64_t)v->integer;
}

static char *get_str(struct reader *r, const struct json *obj, int f, const char *where)
{
	const struct json *v = get(r, obj, f, where);

	return v && v->type == JSON_STRING ? strdup(v->string) : NULL;
}

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	void *t;
	size_t c = *cap ? *cap : 64;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	if (!(t = realloc(*arr, c * size)))
		return -1;
	*arr = t;
	*cap = c;
	return 0;
}

static void read_api(struct reader *r, const struct json *a, size_t i, struct cua_api_rec *rec,
		     size_t input)
{
	char where[48];
	const struct json *layer, *nested, *b;

	snprintf(where, sizeof(where), "apis[%zu]", i);
	memset(rec, 0, sizeof(*rec));
	rec->input = input;
	rec->processes = 1;
	if (a->type != JSON_OBJECT) {
		reader_fail(r, "", where, "expected an object");
		return;
	}
	rec->elf_name = get_str(r, a, F_A_NAME, where);
	if (rec->elf_name && !rec->elf_name[0])
		reader_fail(r, where, "name", "empty");
	layer = get(r, a, F_A_LAYER, where);
	if (layer && strcmp(layer->string, "driver") != 0 && strcmp(layer->string, "runtime") != 0)
		reader_fail(r, where, "layer", "expected \"driver\" or \"runtime\"");
	else if (layer)
		snprintf(rec->layer, sizeof(rec->layer), "%s", layer->string);
	nested = get(r, a, F_A_NESTED, where);
	rec->nested = nested && nested->boolean;
	get_u64(r, a, F_A_CALLS, where, &rec->calls);
	rec->timed = rec->calls;
	get_u64(r, a, F_A_TIMED, where, &rec->timed);
	get_u64(r, a, F_A_ERR, where, &rec->err_ns);
	get_u64(r, a, F_A_ERRORS, where, &rec->errors);
	get_u64(r, a, F_A_TOTAL, where, &rec->total_ns);
	rec->min_ns = UINT64_MAX;
	get_u64(r, a, F_A_MIN, where, &rec->min_ns);
	get_u64(r, a, F_A_MAX, where, &rec->max_ns);
	get_u64(r, a, F_A_P99, where, &rec->p99_max_ns);
	/* A merged file's record: over how many processes, and the largest p99 among them. */
	get_u64(r, a, F_A_P99_MAX, where, &rec->p99_max_ns);
	{
		uint64_t procs = 1;

		get_u64(r, a, F_A_PROCESSES, where, &procs);
		rec->processes = procs ? (unsigned)procs : 1;
	}
	if (rec->timed > rec->calls || rec->errors > rec->calls)
		reader_fail(r, where, rec->timed > rec->calls ? "timed" : "errors", "larger than calls");
	if ((b = get(r, a, F_A_BINDINGS, where))) {
		char bw[64];

		snprintf(bw, sizeof(bw), "%s.bindings", where);
		for (int k = 0; k < CUA_NBIND; k++)
			get_u64(r, b, F_B_FIRST + k, bw, &rec->bindings[k]);
	}
}

static void read_kernel(struct reader *r, const struct json *k, size_t i, struct cua_kernel_rec *rec,
			size_t input)
{
	char where[48];

	snprintf(where, sizeof(where), "kernels[%zu]", i);
	memset(rec, 0, sizeof(*rec));
	rec->input = input;
	rec->processes = 1;
	if (k->type != JSON_OBJECT) {
		reader_fail(r, "", where, "expected an object");
		return;
	}
	rec->name = get_str(r, k, F_K_NAME, where);
	get_u64(r, k, F_K_LAUNCHES, where, &rec->launches);
	get_u64(r, k, F_K_ERRORS, where, &rec->errors);
	get_u64(r, k, F_K_TOTAL, where, &rec->total_ns);
	{
		uint64_t procs = 1;
		const struct json *e;

		get_u64(r, k, F_K_PROCESSES, where, &procs);
		rec->processes = procs ? (unsigned)procs : 1;
		if ((e = get(r, k, F_K_ESTIMATED, where)))
			rec->estimated = e->boolean;
	}
}

/* A merged file's "processes": each entry is one input, as it was read then. Appended to
   s->inputs; *n tells how many. */
static void read_merged_inputs(struct reader *r, struct cua_summaries *s, const struct json *doc,
			       const char *file, size_t *n)
{
	const struct json *list = get(r, doc, F_M_PROCESSES, ""), *v;
	size_t i = 0;
	char where[48];

	*n = 0;
	if (!list) {
		reader_fail(r, "", "processes", "missing in a merged summary");
		return;
	}
	if (grow((void **)&s->inputs, &s->capinputs, s->ninputs + list->count + 1, sizeof(*s->inputs))) {
		reader_fail(r, "", "processes", "out of memory");
		return;
	}
	for (const struct json *p = list->child; p && !r->failed; p = p->next, i++) {
		struct cua_input *in = &s->inputs[s->ninputs + *n];
		char *name;
		size_t len;

		snprintf(where, sizeof(where), "processes[%zu]", i);
		memset(in, 0, sizeof(*in));
		in->driver_version = in->runtime_version = -1;
		if (p->type != JSON_OBJECT) {
			reader_fail(r, "", where, "expected an object");
			return;
		}
		(*n)++;
		/* "merged.json: s.1.json": where the figures come from now, and from first. */
		v = get(r, p, F_M_FILE, where);
		len = strlen(file) + (v ? strlen(v->string) : 0) + 3;
		if ((name = malloc(len)))
			snprintf(name, len, "%s: %s", file, v ? v->string : "?");
		in->owned_file = name;
		in->file = name ? name : file;
		get_u64(r, p, F_M_PID, where, (uint64_t *)&in->pid);
		in->host = get_str(r, p, F_M_HOST, where);
		in->command = get_str(r, p, F_M_COMMAND, where);
		in->start = get_str(r, p, F_M_START, where);
		in->end = get_str(r, p, F_M_END, where);
		in->has_process = in->host || in->command || in->start;
		if ((v = get(r, p, F_M_SNAPSHOT, where)))
			in->snapshot = v->boolean;
		if ((v = get(r, p, F_M_SAMPLED, where)))
			in->sampled = v->boolean;
		get_u64(r, p, F_M_CALLS, where, &in->calls);
		get_u64(r, p, F_M_ERRORS, where, &in->errors);
		get_u64(r, p, F_M_TOTAL, where, &in->total_ns);
	}
}

static void read_process(struct reader *r, const struct json *doc, struct cua_input *in)
{
	const struct json *p = get(r, doc, F_PROCESS, ""), *v;
	uint64_t pid = 0;

	in->driver_version = in->runtime_version = -1;
	get_u64(r, doc, F_PID, "", &pid);
	if (!p) {
		in->pid = (long long)pid;
		return;
	}
	in->has_process = 1;
	get_u64(r, p, F_P_PID, "process", &pid);
	in->pid = (long long)pid;
	in->host = get_str(r, p, F_P_HOST, "process");
	in->command = get_str(r, p, F_P_COMMAND, "process");
	in->start = get_str(r, p, F_P_START, "process");
	in->end = get_str(r, p, F_P_END, "process");
	in->version = get_str(r, p, F_P_VERSION, "process");
	in->image = get_str(r, p, F_P_IMAGE, "process");
	if ((v = get(r, p, F_P_DRIVER, "process")) && v->type == JSON_NUMBER)
		in->driver_version = v->integer;
	if ((v = get(r, p, F_P_RUNTIME, "process")) && v->type == JSON_NUMBER)
		in->runtime_version = v->integer;
}

static void free_input(struct cua_input *in)
{
	free(in->owned_file);
	free(in->host);
	free(in->command);
	free(in->start);
	free(in->end);
	free(in->version);
	free(in->image);
}

static void drop_records(struct cua_summaries *s, size_t napis, size_t nkernels)
{
	while (s->napis > napis)
		free(s->apis[--s->napis].elf_name);
	while (s->nkernels > nkernels)
		free(s->kernels[--s->nkernels].name);
}

/* Appends the document's records; on any error the caller drops them again. */
static void read_doc(struct reader *r, struct cua_summaries *s, const struct json *doc,
		     struct cua_input *in)
{
	const struct json *schema, *apis, *kernels, *snap, *merged;
	size_t idx = s->ninputs, i = 0;

	if (doc->type != JSON_OBJECT) {
		reader_fail(r, "", "document", "expected an object");
		return;
	}
	schema = get(r, doc, F_SCHEMA, "");
	if (schema && strcmp(schema->string, "cuaudit-summary/1") != 0) {
		reader_fail(r, "", "schema", "not \"cuaudit-summary/1\"");
		return;
	}
	apis = get(r, doc, F_APIS, "");
	if (r->failed)
		return;
	snap = get(r, doc, F_SNAPSHOT, "");
	in->snapshot = snap && snap->boolean;
	if ((merged = get(r, doc, F_MERGED, "")) && merged->boolean) {
		/* Its records are over the processes it lists: they stay one input index here, so
		   that merging counts their processes from the records themselves. */
		read_merged_inputs(r, s, doc, in->file, &in->merged_inputs);
		if (r->failed)
			return;
	} else {
		read_process(r, doc, in);
	}
	if (grow((void **)&s->apis, &s->capapis, s->napis + apis->count, sizeof(*s->apis)) != 0) {
		reader_fail(r, "", "apis", "out of memory");
		return;
	}
	for (const struct json *a = apis->child; a && !r->failed; a = a->next, i++) {
		struct cua_api_rec *rec = &s->apis[s->napis++];

		read_api(r, a, i, rec, idx);
		if (in->merged_inputs)
			continue;
		in->sampled |= rec->timed < rec->calls;
		if (!rec->nested) {
			in->calls += rec->calls;
			in->errors += rec->errors;
			in->total_ns += rec->total_ns;
		}
	}
	if (r->failed || !(kernels = get(r, doc, F_KERNELS, "")))
		return;
	if (grow((void **)&s->kernels, &s->capkernels, s->nkernels + kernels->count,
		 sizeof(*s->kernels)) != 0) {
		reader_fail(r, "", "kernels", "out of memory");
		return;
	}
	i = 0;
	for (const struct json *k = kernels->child; k && !r->failed; k = k->next, i++) {
		read_kernel(r, k, i, &s->kernels[s->nkernels], idx);
		/* Kernel records carry no "timed": in a sampled process their times are estimates too. */
		s->kernels[s->nkernels++].estimated |= in->sampled;
	}
}

int cua_summaries_add(struct cua_summaries *s, const char *file, const char *text, size_t len,
		      char *err, size_t errcap)
{
	struct reader r = { err, errcap, 0 };
	struct cua_input in;
	size_t napis = s->napis, nkernels = s->nkernels;
	struct json *doc = json_parse(text, len, err, errcap);

	if (!doc)
		return -1;
	memset(&in, 0, sizeof(in));
	in.file = file;
	if (grow((void **)&s->inputs, &s->capinputs, s->ninputs + 1, sizeof(*s->inputs)) != 0)
		reader_fail(&r, "", "document", "out of memory");
	else
		read_doc(&r, s, doc, &in);
	json_free(doc);
	if (r.failed) {
		drop_records(s, napis, nkernels);
		for (size_t i = 0; i < in.merged_inputs; i++)
			free_input(&s->inputs[s->ninputs + i]);
		free_input(&in);
		return -1;
	}
	if (in.merged_inputs) {
		/* The inputs the merged file lists take its place. */
		free_input(&in);
		s->ninputs += in.merged_inputs;
		return 0;
	}
	s->inputs[s->ninputs++] = in;
	return 0;
}

static uint64_t *comparisons;

static int api_key_cmp(const void *a, const void *b)
{
	const struct cua_api_rec *x = a, *y = b;
	int c;

	++*comparisons;
	if (x->nested != y->nested)
		return x->nested - y->nested;
	if ((c = strcmp(x->layer, y->layer)) != 0)
		return c;
	if ((c = strcmp(x->elf_name, y->elf_name)) != 0)
		return c;
	return x->input < y->input ? -1 : x->input > y->input;
}

static int kernel_key_cmp(const void *a, const void *b)
{
	const struct cua_kernel_rec *x = a, *y = b;
	int c;

	++*comparisons;
	if ((c = strcmp(x->name, y->name)) != 0)
		return c;
	return x->input < y->input ? -1 : x->input > y->input;
}

/* sqrt(a^2 + b^2), rounded up: the error of a sum of two independent estimates. */
static uint64_t root_sum_sq(uint64_t a, uint64_t b)
{
	double v = (double)a * (double)a + (double)b * (double)b;
	uint64_t lo = a > b ? a : b, hi = a + b;

	if (!a || !b)
		return a | b;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if ((double)mid * (double)mid >= v)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static void fold_api(struct cua_api_rec *into, struct cua_api_rec *r)
{
	into->calls += r->calls;
	into->timed += r->timed;
	into->errors += r->errors;
	into->total_ns += r->total_ns;
	into->err_ns = root_sum_sq(into->err_ns, r->err_ns);
	if (r->min_ns < into->min_ns)
		into->min_ns = r->min_ns;
	if (r->max_ns > into->max_ns)
		into->max_ns = r->max_ns;
	if (r->p99_max_ns > into->p99_max_ns)
		into->p99_max_ns = r->p99_max_ns;
	for (int k = 0; k < CUA_NBIND; k++)
		into->bindings[k] += r->bindings[k];
	/* Sorted by input within a key, so a new input shows as a change of index. */
	if (r->input != into->input)
		into->processes += r->processes;
	into->input = r->input;
	free(r->elf_name);
}

static void fold_kernel(struct cua_kernel_rec *into, struct cua_kernel_rec *r)
{
	into->launches += r->launches;
	into->errors += r->errors;
	into->total_ns += r->total_ns;
	into->estimated |= r->estimated;
	if (r->input != into->input)
		into->processes += r->processes;
	into->input = r->input;
	free(r->name);
}

int cua_summaries_merge(struct cua_summaries *s)
{
	size_t n = 0;

	comparisons = &s->comparisons;
	if (s->napis) {
		qsort(s->apis, s->napis, sizeof(*s->apis), api_key_cmp);
		for (size_t i = 1; i < s->napis; i++) {
			struct cua_api_rec *last = &s->apis[n];

			++s->comparisons;
			if (last->nested == s->apis[i].nested && strcmp(last->layer, s->apis[i].layer) == 0 &&
			    strcmp(last->elf_name, s->apis[i].elf_name) == 0)
				fold_api(last, &s->apis[i]);
			else
				s->apis[++n] = s->apis[i];
		}
		s->napis = n + 1;
	}
	n = 0;
	if (s->nkernels) {
		qsort(s->kernels, s->nkernels, sizeof(*s->kernels), kernel_key_cmp);
		for (size_t i = 1; i < s->nkernels; i++) {
			++s->comparisons;
			if (strcmp(s->kernels[n].name, s->kernels[i].name) == 0)
				fold_kernel(&s->kernels[n], &s->kernels[i]);
			else
				s->kernels[++n] = s->kernels[i];
		}
		s->nkernels = n + 1;
	}
	return 0;
}

/* The identity of the process a summary describes: its pid, host and start time (the
   "process" object), or nothing when the summary has no provenance. */
static int same_text(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* The identity of the process image a summary describes: pid, host and the image's random
   id (process.image); for a summary without one, pid, host, start time and command. An
   exec'd program keeps its launcher's pid and may start in the same second with the same
   command: only the image id tells them apart. */
static int same_process(const struct cua_input *a, const struct cua_input *b)
{
	if (!a->has_process || !b->has_process || a->pid != b->pid || !same_text(a->host, b->host))
		return 0;
	if (a->image || b->image)
		return same_text(a->image, b->image);
	return a->start && b->start && same_text(a->start, b->start) &&
	       same_text(a->command, b->command);
}

long cua_summaries_drop_repeat(struct cua_summaries *s, size_t napis, size_t nkernels)
{
	size_t last = s->ninputs - 1;

	if (!s->ninputs)
		return -1;
	for (size_t i = 0; i < last; i++) {
		if (!same_process(&s->inputs[i], &s->inputs[last]))
			continue;
		drop_records(s, napis, nkernels);
		free_input(&s->inputs[last]);
		s->ninputs--;
		return (long)i;
	}
	return -1;
}

void cua_summaries_free(struct cua_summaries *s)
{
	drop_records(s, 0, 0);
	for (size_t i = 0; i < s->ninputs; i++)
		free_input(&s->inputs[i]);
	free(s->inputs);
	free(s->apis);
	free(s->kernels);
	memset(s, 0, sizeof(*s));
}
