/* SPDX-License-Identifier: MIT */
/* cli/export.c: `cuaudit export`: summaries and traces of any number of processes as SQLite tables, CSV or JSON lines (docs/export.md). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef CUA_HAVE_SQLITE
#include <sqlite3.h>
#endif
#include "cua_version.h"
#include "demangle.h"
#include "export.h"
#include "json.h"
#include "summaries.h"
#include "trace.h"
#include "tracefmt.h"
#include "writer.h"

/* Every table and its columns, in the order rows are given. One schema for every --type:
   docs/export.md documents it. */
enum col_type { C_INT, C_TEXT };
struct column {
	const char *name;
	enum col_type type;
};
struct table_def {
	const char *name;
	const struct column *cols;
	unsigned ncols;
};

#define COLS(...) (const struct column[]){ __VA_ARGS__ }, \
	sizeof((const struct column[]){ __VA_ARGS__ }) / sizeof(struct column)

enum { T_META, T_PROCESSES, T_THREADS, T_APIS, T_KERNELS, T_CALLS, T_GPU_ACTIVITY, T_GPU_KERNELS,
       T_GPU_MEM, T_NVTX, T_COUNT };
static const struct table_def tables[T_COUNT] = {
	{ "meta", COLS({ "key", C_TEXT }, { "value", C_TEXT }) },
	{ "processes", COLS({ "id", C_INT }, { "pid", C_INT }, { "host", C_TEXT },
			    { "program", C_TEXT }, { "command", C_TEXT }, { "start", C_TEXT },
			    { "end", C_TEXT }, { "cuaudit_version", C_TEXT },
			    { "driver_version", C_INT }, { "runtime_version", C_INT },
			    { "snapshot", C_INT }, { "file", C_TEXT }, { "start_ns", C_INT },
			    { "end_ns", C_INT }, { "clock_realtime_ns", C_INT },
			    { "clock_monotonic_ns", C_INT }) },
	{ "threads", COLS({ "process_id", C_INT }, { "pid", C_INT }, { "tid", C_INT },
			  { "name", C_TEXT }) },
	{ "apis", COLS({ "process_id", C_INT }, { "pid", C_INT }, { "name", C_TEXT },
		       { "layer", C_TEXT }, { "nested", C_INT }, { "calls", C_INT },
		       { "timed", C_INT }, { "errors", C_INT }, { "total_ns", C_INT },
		       { "min_ns", C_INT }, { "max_ns", C_INT }, { "p99_ns", C_INT },
		       { "total_err_ns", C_INT }) },
	{ "kernels", COLS({ "process_id", C_INT }, { "pid", C_INT }, { "name", C_TEXT },
			  { "mangled", C_TEXT }, { "launches", C_INT }, { "errors", C_INT },
			  { "total_ns", C_INT }, { "estimated", C_INT }) },
	{ "calls", COLS({ "process_id", C_INT }, { "pid", C_INT }, { "tid", C_INT },
			{ "name", C_TEXT }, { "layer", C_TEXT }, { "start_ns", C_INT },
			{ "duration_ns", C_INT }, { "result", C_TEXT }, { "binding", C_TEXT },
			{ "correlation_id", C_INT }, { "kernel", C_TEXT }, { "skipped", C_INT },
			{ "depth", C_INT }) },
	{ "gpu_activity", COLS({ "process_id", C_INT }, { "pid", C_INT }, { "device", C_INT },
			       { "stream", C_TEXT }, { "kind", C_TEXT }, { "name", C_TEXT },
			       { "mangled", C_TEXT }, { "copy_kind", C_TEXT },
			       { "start_ns", C_INT }, { "duration_ns", C_INT }, { "bytes", C_INT },
			       { "correlation_id", C_INT }, { "api", C_TEXT }, { "exact", C_INT },
			       { "duration_min_ns", C_INT }) },
	{ "gpu_kernels", COLS({ "process_id", C_INT }, { "pid", C_INT }, { "name", C_TEXT },
			      { "mangled", C_TEXT }, { "instances", C_INT }, { "total_ns", C_INT },
			      { "avg_ns", C_INT }, { "median_ns", C_INT }, { "min_ns", C_INT },
			      { "max_ns", C_INT }, { "stddev_ns", C_INT },
			      { "exact_instances", C_INT }, { "exact_ns", C_INT },
			      { "total_min_ns", C_INT }, { "total_max_ns", C_INT },
			      { "avg_min_ns", C_INT }, { "avg_max_ns", C_INT },
			      { "shortest_min_ns", C_INT }, { "shortest_max_ns", C_INT },
			      { "longest_min_ns", C_INT }, { "longest_max_ns", C_INT }) },
	{ "gpu_mem", COLS({ "process_id", C_INT }, { "pid", C_INT }, { "operation", C_TEXT },
			  { "count", C_INT }, { "total_ns", C_INT }, { "avg_ns", C_INT },
			  { "median_ns", C_INT }, { "min_ns", C_INT }, { "max_ns", C_INT },
			  { "stddev_ns", C_INT }, { "total_bytes", C_INT }, { "avg_bytes", C_INT },
			  { "median_bytes", C_INT }, { "min_bytes", C_INT }, { "max_bytes", C_INT },
			  { "stddev_bytes", C_INT },
			      { "exact_instances", C_INT }, { "exact_ns", C_INT },
			      { "total_min_ns", C_INT }, { "total_max_ns", C_INT },
			      { "avg_min_ns", C_INT }, { "avg_max_ns", C_INT },
			      { "shortest_min_ns", C_INT }, { "shortest_max_ns", C_INT },
			      { "longest_min_ns", C_INT }, { "longest_max_ns", C_INT }) },
	/* The program's NVTX push/pop ranges from a trace: a call lies inside a range when
	   pid and tid match and start_ns <= calls.start_ns, calls.start_ns + duration_ns <=
	   start_ns + duration_ns (docs/export.md). */
	{ "nvtx", COLS({ "process_id", C_INT }, { "pid", C_INT }, { "tid", C_INT },
		       { "name", C_TEXT }, { "domain", C_TEXT }, { "level", C_INT },
		       { "start_ns", C_INT }, { "duration_ns", C_INT }) },
};

/* One value of a row: NULL, a number or a text (not owned). */
struct value {
	int null;
	long long i;
	const char *s;
};
#define V_INT(x) ((struct value){ 0, (long long)(x), NULL })
#define V_TEXT(x) ((struct value){ (x) == NULL, 0, (x) })
#define V_NULL ((struct value){ 1, 0, NULL })

enum out_type { OUT_SQLITE, OUT_CSV, OUT_JSONL };
static const char *const type_words[] = { "sqlite", "csv", "jsonl" };

struct sink {
	enum out_type type;
	const char *out;
	FILE *files[T_COUNT]; /* csv, jsonl: one file per table, or one for all (jsonl) */
#ifdef CUA_HAVE_SQLITE
	sqlite3 *db;
	sqlite3_stmt *insert[T_COUNT];
#endif
	int failed;
	int synthetic;           /* an input's GPU times came from cuaudit's mock driver */
	int made_folder;         /* csv: the folder was made by this export */
	unsigned created;        /* csv: files[0..created) were created; jsonl: 1 if the file was */
	const char *final;       /* --force: the name the output takes once whole (out: a new one) */
	char suffix[48];         /* --force, csv: each table file's new name is NAME.csv + suffix */
	unsigned long long rows[T_COUNT];
};

/* ---------------------------------------------------------------- writing rows */

static void csv_text(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void put_row(struct sink *k, unsigned t, const struct value *v)
{
	const struct table_def *d = &tables[t];

	k->rows[t]++;
	if (k->type == OUT_SQLITE) {
#ifdef CUA_HAVE_SQLITE
		sqlite3_stmt *st = k->insert[t];

		for (unsigned i = 0; i < d->ncols; i++) {
			if (v[i].null)
				sqlite3_bind_null(st, (int)i + 1);
			else if (d->cols[i].type == C_INT)
				sqlite3_bind_int64(st, (int)i + 1, v[i].i);
			else
				sqlite3_bind_text(st, (int)i + 1, v[i].s, -1, SQLITE_STATIC);
		}
		if (sqlite3_step(st) != SQLITE_DONE && !k->failed) {
			fprintf(stderr, "cuaudit export: %s: %s\n", k->out,
				sqlite3_errmsg(k->db));
			k->failed = 1;
		}
		sqlite3_reset(st);
#endif
		return;
	}
	if (k->type == OUT_CSV) {
		FILE *f = k->files[t];

		for (unsigned i = 0; i < d->ncols; i++) {
			if (i)
				fputc(',', f);
			if (v[i].null)
				continue;
			if (d->cols[i].type == C_INT)
				fprintf(f, "%lld", v[i].i);
			else
				csv_text(f, v[i].s);
		}
		fputc('\n', f);
		return;
	}
	FILE *f = k->files[0];

	fputs("{\"table\":", f);
	json_put_string(f, d->name);
	for (unsigned i = 0; i < d->ncols; i++) {
		fputc(',', f);
		json_put_string(f, d->cols[i].name);
		fputc(':', f);
		if (v[i].null)
			fputs("null", f);
		else if (d->cols[i].type == C_INT)
			fprintf(f, "%lld", v[i].i);
		else
			json_put_string(f, v[i].s);
	}
	fputs("}\n", f);
}

#ifdef CUA_HAVE_SQLITE
static int sql_exec(struct sink *k, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(k->db, sql, NULL, NULL, &err) == SQLITE_OK)
		return 0;
	fprintf(stderr, "cuaudit export: %s: %s\n", k->out, err ? err : "SQLite error");
	sqlite3_free(err);
	return -1;
}

static int sqlite_open(struct sink *k)
{
	char sql[2048];

	if (sqlite3_open_v2(k->out, &k->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		fprintf(stderr, "cuaudit export: cannot create %s: %s\n", k->out,
			k->db ? sqlite3_errmsg(k->db) : "out of memory");
		return -1;
	}
	/* One transaction, no journal on disk: a failed export removes the file anyway. */
	if (sql_exec(k, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN") != 0)
		return -1;
	for (unsigned t = 0; t < T_COUNT; t++) {
		const struct table_def *d = &tables[t];
		size_t n = (size_t)snprintf(sql, sizeof(sql), "CREATE TABLE %s (", d->name);

		for (unsigned i = 0; i < d->ncols; i++)
			n += (size_t)snprintf(sql + n, sizeof(sql) - n, "%s%s %s", i ? ", " : "",
					      d->cols[i].name,
					      d->cols[i].type == C_INT ? "INTEGER" : "TEXT");
		snprintf(sql + n, sizeof(sql) - n, ")");
		if (sql_exec(k, sql) != 0)
			return -1;
		n = (size_t)snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES (", d->name);
		for (unsigned i = 0; i < d->ncols; i++)
			n += (size_t)snprintf(sql + n, sizeof(sql) - n, "%s?", i ? "," : "");
		snprintf(sql + n, sizeof(sql) - n, ")");
		if (sqlite3_prepare_v2(k->db, sql, -1, &k->insert[t], NULL) != SQLITE_OK) {
			fprintf(stderr, "cuaudit export: %s\n", sqlite3_errmsg(k->db));
			return -1;
		}
	}
	return 0;
}

static int sqlite_close(struct sink *k)
{
	int rc = k->failed ? -1 : 0;

	for (unsigned t = 0; t < T_COUNT; t++)
		sqlite3_finalize(k->insert[t]);
	/* Indexes after the rows: one sort each instead of an update per row. */
	if (rc == 0 &&
	    sql_exec(k, "CREATE INDEX calls_by_thread ON calls (pid, tid, start_ns);"
			"CREATE INDEX calls_by_name ON calls (name);"
			"CREATE INDEX calls_by_correlation ON calls (pid, correlation_id);"
			"CREATE INDEX gpu_activity_by_correlation ON gpu_activity (pid, correlation_id);"
			"CREATE INDEX apis_by_name ON apis (name);"
			"CREATE INDEX nvtx_by_thread ON nvtx (pid, tid, start_ns); COMMIT") != 0)
		rc = -1;
	if (sqlite3_close(k->db) != SQLITE_OK)
		rc = -1;
	return rc;
}
#endif

/* Writes the header line of each CSV file (or opens the JSON lines file). */
/* A CSV table file: its new name (while written) or its final name. */
static void table_path(const struct sink *k, unsigned t, char *buf, size_t cap, int final)
{
	snprintf(buf, cap, "%s/%s.csv%s", k->out, tables[t].name, final ? "" : k->suffix);
}

static int text_open(struct sink *k)
{
	char path[8448];

	if (k->type == OUT_JSONL) {
		k->files[0] = strcmp(k->out, "-") == 0 ? stdout : fopen(k->out, "wx");
		if (!k->files[0]) {
			fprintf(stderr, "cuaudit export: cannot create %s: %s\n", k->out,
				strerror(errno));
			return -1;
		}
		k->created = k->files[0] != stdout;
		return 0;
	}
	/* CSV: a folder, one file per table. */
	if (mkdir(k->out, 0755) == 0)
		k->made_folder = 1;
	else if (errno != EEXIST) {
		fprintf(stderr, "cuaudit export: cannot make the folder %s: %s\n", k->out,
			strerror(errno));
		return -1;
	}
	for (unsigned t = 0; t < T_COUNT; t++) {
		table_path(k, t, path, sizeof(path), 0);
		k->files[t] = fopen(path, "wx");
		if (!k->files[t]) {
			fprintf(stderr, "cuaudit export: cannot create %s: %s\n", path,
				strerror(errno));
			return -1;
		}
		k->created = t + 1;
		for (unsigned i = 0; i < tables[t].ncols; i++)
			fprintf(k->files[t], "%s%s", i ? "," : "", tables[t].cols[i].name);
		fputc('\n', k->files[t]);
	}
	return 0;
}

static int text_close(struct sink *k)
{
	int rc = k->failed ? -1 : 0;

	for (unsigned t = 0; t < T_COUNT; t++) {
		if (!k->files[t] || k->files[t] == stdout) {
			if (k->files[t] && fflush(stdout) != 0)
				rc = -1;
			continue;
		}
		if (ferror(k->files[t]) || fclose(k->files[t]) != 0)
			rc = -1;
	}
	if (rc && !k->failed)
		fprintf(stderr, "cuaudit export: cannot write %s: %s\n", k->out, strerror(errno));
	return rc;
}

/* After a failed write: what this export created goes (a cut file is no export), never a
   file it did not create. */
static void text_remove(struct sink *k)
{
	char path[8448];

	if (k->type == OUT_JSONL) {
		if (k->created)
			unlink(k->out);
		return;
	}
	for (unsigned t = 0; t < k->created; t++) {
		table_path(k, t, path, sizeof(path), 0);
		unlink(path);
	}
	if (k->made_folder)
		rmdir(k->out);
}

/* ---------------------------------------------------------------- processes */

/* Processes seen so far: a summary and a trace of one process become one row. */
struct proc {
	long long pid;
	char *host;
	long long id;
};
static struct proc *procs;
static size_t nprocs;

/* A process's times to the ns (CLOCK_REALTIME) and its wall-clock anchor: the summary's
   process object, or a trace's cuaudit_clock event; -1 where not known. */
struct times {
	long long pid, start_ns, end_ns, realtime_ns, monotonic_ns;
};
#define NO_TIMES ((struct times){ -1, -1, -1, -1, -1 })
/* The summary being read, and the anchors of the traces read (found before their calls). */
static struct times summary_times = { -1, -1, -1, -1, -1 };
static struct times *clocks;
static size_t nclocks;

static struct times times_of(long long pid, const struct cua_input *in)
{
	if (in)
		return summary_times;
	for (size_t i = nclocks; i > 0; i--)
		if (clocks[i - 1].pid == pid)
			return clocks[i - 1];
	return NO_TIMES;
}

static struct value known(long long v)
{
	return v >= 0 ? V_INT(v) : V_NULL;
}

/* The row id of the process with this pid (and host, when both say it), made if new. */
static long long process_id(struct sink *k, long long pid, const struct cua_input *in,
			    const char *program, const char *file)
{
	struct times tm = times_of(pid, in);

	const char *host = in ? in->host : NULL;
	struct proc *p;

	for (size_t i = 0; i < nprocs; i++)
		if (procs[i].pid == pid &&
		    (!host || !procs[i].host || strcmp(host, procs[i].host) == 0))
			return procs[i].id;
	p = realloc(procs, (nprocs + 1) * sizeof(*procs));
	if (!p)
		return -1;
	procs = p;
	procs[nprocs] = (struct proc){ pid, host ? strdup(host) : NULL, (long long)nprocs + 1 };
	{
		struct value v[16] = {
			V_INT(nprocs + 1), V_INT(pid), V_TEXT(host), V_TEXT(program),
			V_TEXT(in ? in->command : NULL), V_TEXT(in ? in->start : NULL),
			V_TEXT(in ? in->end : NULL), V_TEXT(in ? in->version : NULL),
			in && in->driver_version >= 0 ? V_INT(in->driver_version) : V_NULL,
			in && in->runtime_version >= 0 ? V_INT(in->runtime_version) : V_NULL,
			in ? V_INT(in->snapshot) : V_NULL, V_TEXT(file), known(tm.start_ns),
			known(tm.end_ns), known(tm.realtime_ns), known(tm.monotonic_ns),
		};

		if (pid < 0)
			v[1] = V_NULL;
		put_row(k, T_PROCESSES, v);
	}
	return procs[nprocs++].id;
}

/* ---------------------------------------------------------------- summaries */

/* "/usr/bin/python3 train.py" -> "python3", as the trace names the process. */
static const char *program_of(const char *command)
{
	static char name[256];
	const char *end, *slash;
	size_t n;

	if (!command)
		return NULL;
	end = command + strcspn(command, " ");
	slash = NULL;
	for (const char *q = command; q < end; q++)
		if (*q == '/')
			slash = q;
	if (slash)
		command = slash + 1;
	n = (size_t)(end - command);
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, command, n);
	name[n] = '\0';
	return name;
}

static long long ns_of(const struct json *j)
{
	if (!j || j->type != JSON_NUMBER)
		return -1;
	return j->integral ? j->integer * 1000 : llround(j->number * 1000.0);
}

static const char *str_of(const struct json *j)
{
	return j && j->type == JSON_STRING ? j->string : NULL;
}

/* A number of a row object as a value: NULL where the summary does not give it. */
static struct value num_of(const struct json *o, const char *key)
{
	const struct json *v = json_get(o, key);

	return v && v->type == JSON_NUMBER && v->integral ? V_INT(v->integer) : V_NULL;
}

/* The summary's "gpu" section (CUAUDIT_GPU_TIME): its kernel and memory tables. A merged
   summary (`cuaudit report --json`) describes no one process: its rows have no process, and
   no median (medians do not merge). */
static void export_summary_gpu(struct sink *k, const char *text, size_t len, struct value idv,
			       struct value pidv)
{
	static const char *const stats[] = { "total", "avg", "median", "min", "max", "stddev" };
	static const char *const bounds[] = { "exact_instances", "exact_ns", "total_min_ns",
					       "total_max_ns", "avg_min_ns", "avg_max_ns",
					       "shortest_min_ns", "shortest_max_ns",
					       "longest_min_ns", "longest_max_ns" };
	char err[256], key[32];
	struct json *doc = json_parse(text, len, err, sizeof(err));
	const struct json *gpu = json_get(doc, "gpu"), *list;

	if (!gpu || gpu->type != JSON_OBJECT) {
		json_free(doc);
		return;
	}
	if (json_get(gpu, "synthetic") && json_get(gpu, "synthetic")->type == JSON_BOOL &&
	    json_get(gpu, "synthetic")->boolean)
		k->synthetic = 1;
	list = json_get(gpu, "kernels");
	for (const struct json *o = list && list->type == JSON_ARRAY ? list->child : NULL; o;
	     o = o->next) {
		const char *name = str_of(json_get(o, "name"));
		struct value v[21] = { idv, pidv, V_TEXT(name ? cua_demangle(name) : NULL),
				       V_TEXT(name), num_of(o, "instances") };

		for (unsigned i = 0; i < 6; i++) {
			snprintf(key, sizeof(key), "%s_ns", stats[i]);
			v[5 + i] = num_of(o, key);
		}
		for (unsigned i = 0; i < 10; i++)
			v[11 + i] = num_of(o, bounds[i]);
		put_row(k, T_GPU_KERNELS, v);
	}
	list = json_get(gpu, "memory");
	for (const struct json *o = list && list->type == JSON_ARRAY ? list->child : NULL; o;
	     o = o->next) {
		struct value v[26] = { idv, pidv, V_TEXT(str_of(json_get(o, "operation"))),
				       num_of(o, "count") };

		for (unsigned i = 0; i < 6; i++) {
			snprintf(key, sizeof(key), "%s_ns", stats[i]);
			v[4 + i] = num_of(o, key);
			snprintf(key, sizeof(key), "%s_bytes", stats[i]);
			v[10 + i] = num_of(o, key);
		}
		for (unsigned i = 0; i < 10; i++)
			v[16 + i] = num_of(o, bounds[i]);
		put_row(k, T_GPU_MEM, v);
	}
	json_free(doc);
}

/* An integer member of o, -1 when absent. */
static long long int_of(const struct json *o, const char *key)
{
	const struct json *v = json_get(o, key);

	return v && v->type == JSON_NUMBER && v->integral && v->integer >= 0 ? v->integer : -1;
}

/* The summary's process times to the ns and its anchor (absent from older summaries). */
static void read_summary_times(const char *text, size_t len)
{
	char err[256];
	struct json *doc = json_parse(text, len, err, sizeof(err));
	const struct json *p = json_get(doc, "process"), *c = json_get(p, "clock");

	summary_times = (struct times){ -1, int_of(p, "start_ns"), int_of(p, "end_ns"),
					int_of(c, "realtime_ns"), int_of(c, "monotonic_ns") };
	json_free(doc);
}

static int export_summary(struct sink *k, const char *file, const char *text, size_t len)
{
	struct value gpu_id = V_NULL, gpu_pid = V_NULL;

	struct cua_summaries s;
	char err[256];

	read_summary_times(text, len);
	memset(&s, 0, sizeof(s));
	if (cua_summaries_add(&s, file, text, len, err, sizeof(err)) != 0) {
		fprintf(stderr, "cuaudit export: %s: %s\n", file, err);
		cua_summaries_free(&s);
		return -1;
	}
	for (size_t in = 0; in < s.ninputs; in++) {
		const struct cua_input *p = &s.inputs[in];
		long long id = process_id(k, p->has_process ? p->pid : -1, p, program_of(p->command),
					  file);
		struct value pidv = p->has_process ? V_INT(p->pid) : V_NULL;

		for (size_t i = 0; i < s.napis; i++) {
			const struct cua_api_rec *a = &s.apis[i];

			if (a->input != in)
				continue;
			struct value v[13] = {
				V_INT(id), pidv, V_TEXT(a->elf_name), V_TEXT(a->layer),
				V_INT(a->nested), V_INT(a->calls), V_INT(a->timed),
				V_INT(a->errors), V_INT(a->total_ns),
				a->timed ? V_INT(a->min_ns) : V_NULL,
				a->timed ? V_INT(a->max_ns) : V_NULL,
				a->timed ? V_INT(a->p99_max_ns) : V_NULL,
				a->timed < a->calls ? V_INT(a->err_ns) : V_INT(0),
			};
			put_row(k, T_APIS, v);
		}
		for (size_t i = 0; i < s.nkernels; i++) {
			const struct cua_kernel_rec *r = &s.kernels[i];

			if (r->input != in)
				continue;
			struct value v[8] = {
				V_INT(id), pidv, V_TEXT(cua_demangle(r->name)), V_TEXT(r->name),
				V_INT(r->launches), V_INT(r->errors), V_INT(r->total_ns),
				V_INT(r->estimated),
			};
			put_row(k, T_KERNELS, v);
		}
		if (s.ninputs == 1) {
			gpu_id = V_INT(id);
			gpu_pid = pidv;
		}
	}
	export_summary_gpu(k, text, len, gpu_id, gpu_pid);
	cua_summaries_free(&s);
	return 0;
}

/* ---------------------------------------------------------------- traces */

/* GPU tracks' ids in a trace (hooks/gpu/gpu_trace.c): above any thread id. */
#define GPU_TRACK_BASE 4000000000ll

/* Where a call's GPU work was: the flow arrow from the call ("ph":"s", on the calling thread,
   at a time inside the call) carries the correlation id, the GPU event the call's name. A
   trace keeps them after the calls, so they are gathered first (in memory: at most 2^20 per
   process) and the calls are matched as they stream by. */
struct gpu_link {
	long long pid, tid, ts, corr;
	const char *api; /* interned */
};
static struct gpu_link *links;
static size_t nlinks;
static char **api_names;
static size_t napi_names;

static const char *intern(const char *name)
{
	char **t;

	for (size_t i = 0; i < napi_names; i++)
		if (strcmp(api_names[i], name) == 0)
			return api_names[i];
	t = realloc(api_names, (napi_names + 1) * sizeof(*t));
	if (!t)
		return NULL;
	api_names = t;
	return api_names[napi_names++] = strdup(name);
}

static int link_by_corr(const void *a, const void *b)
{
	const struct gpu_link *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->corr < y->corr ? -1 : x->corr > y->corr;
}

static int link_by_time(const void *a, const void *b)
{
	const struct gpu_link *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void gather_links(const char *text, size_t len)
{
	static const char key[] = "\"cat\":\"gpu";
	const char *p = text, *end = text + len;
	struct gpu_link *apis = NULL, *t;
	size_t napis = 0, cap = 0, capl = 0;
	char err[256];

	nlinks = 0;
	while ((p = memmem(p, (size_t)(end - p), key, sizeof(key) - 1))) {
		const char *b = p, *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n;
		struct json *j;

		while (b > text && b[-1] != '\n')
			b--;
		n = (size_t)((nl ? nl : end) - b);
		while (n && (b[n - 1] == ',' || b[n - 1] == '\r' || b[n - 1] == ' '))
			n--;
		if (n && b[0] == '{' && (j = json_parse(b, n, err, sizeof(err)))) {
			const char *ph = str_of(json_get(j, "ph")), *cat = str_of(json_get(j, "cat"));
			const struct json *args = json_get(j, "args");
			const struct json *pid = json_get(j, "pid"), *tid = json_get(j, "tid");
			const struct json *corr = json_get(strcmp(cat ? cat : "", "gpu") == 0 ? args : j,
							   strcmp(cat ? cat : "", "gpu") == 0 ? "correlation"
											: "id");
			struct gpu_link l = { pid && pid->integral ? pid->integer : -1,
					      tid && tid->integral ? tid->integer : -1,
					      ns_of(json_get(j, "ts")),
					      corr && corr->integral ? corr->integer : -1, NULL };

			if (!ph || !cat || l.corr < 0) {
				/* not one of ours */
			} else if (strcmp(cat, "gpu") == 0 && strcmp(ph, "X") == 0 &&
				   str_of(json_get(args, "api"))) {
				if (napis == cap && (t = realloc(apis, (cap = cap ? 2 * cap : 1024) *
									sizeof(*t))))
					apis = t;
				l.api = intern(str_of(json_get(args, "api")));
				if (napis < cap && l.api)
					apis[napis++] = l;
			} else if (strcmp(cat, "gpu.flow") == 0 && strcmp(ph, "s") == 0) {
				if (nlinks == capl && (t = realloc(links, (capl = capl ? 2 * capl : 1024) *
									  sizeof(*t))))
					links = t;
				if (nlinks < capl)
					links[nlinks++] = l;
			}
			json_free(j);
		}
		p = nl ? nl : end;
	}
	/* Each arrow gets its call's name from the GPU event of the same correlation id. */
	if (napis)
		qsort(apis, napis, sizeof(*apis), link_by_corr);
	for (size_t i = 0; i < nlinks; i++) {
		const struct gpu_link *a =
			napis ? bsearch(&links[i], apis, napis, sizeof(*apis), link_by_corr) : NULL;

		links[i].api = a ? a->api : NULL;
	}
	if (nlinks)
		qsort(links, nlinks, sizeof(*links), link_by_time);
	free(apis);
}

/* The correlation id of the call (pid, tid, name) that ran over [ts, ts + dur], if it caused
   GPU work the trace recorded; -1 otherwise. */
static long long call_correlation(long long pid, long long tid, const char *name, long long ts,
				  long long dur)
{
	size_t lo = 0, hi = nlinks;
	struct gpu_link key = { pid, tid, ts, 0, NULL };

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (link_by_time(&links[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nlinks && links[lo].pid == pid && links[lo].tid == tid &&
	       links[lo].ts <= ts + dur;
	     lo++)
		if (links[lo].api && strcmp(links[lo].api, name) == 0)
			return links[lo].corr;
	return -1;
}

/* What a GPU event's operation is ("op", or its name in a trace without one). */
static const char *const copy_kinds[] = { "HtoD", "DtoH", "DtoD", "peer", "HtoH", "copy" };

/* One GPU event ("cat":"gpu"): a row of gpu_activity. */
static void gpu_event(struct sink *k, const struct json *e, const char *name, long long pid,
		      const char *file)
{
	const struct json *args = json_get(e, "args");
	const char *op = str_of(json_get(args, "op")), *kind = "kernel", *copy = NULL;
	const struct json *bytes = json_get(args, "bytes");
	const struct json *exact = json_get(args, "exact"), *synthetic = json_get(args, "synthetic");
	struct value v[15];
	/* A kernel's event is named readably; the name as compiled is in args.mangled (absent
	   with CUAUDIT_DEMANGLE=off, or when the module could not read it). */
	const char *mangled = str_of(json_get(args, "mangled"));

	if (!op)
		op = name;
	for (unsigned i = 0; i < sizeof(copy_kinds) / sizeof(copy_kinds[0]); i++)
		if (strcmp(op, copy_kinds[i]) == 0)
			kind = "copy", copy = op;
	if (strcmp(op, "memset") == 0)
		kind = "memset";
	else if (strcmp(op, "graph") == 0)
		kind = "graph", name = "(CUDA graph launch)";
	v[0] = V_INT(process_id(k, pid, NULL, NULL, file));
	v[1] = V_INT(pid);
	v[2] = num_of(args, "device");
	v[3] = V_TEXT(str_of(json_get(args, "stream")));
	v[4] = V_TEXT(kind);
	if (strcmp(kind, "kernel") == 0 && mangled)
		name = mangled;
	v[5] = V_TEXT(strcmp(kind, "kernel") == 0 ? cua_demangle(name) : name);
	v[6] = V_TEXT(strcmp(kind, "kernel") == 0 ? name : NULL);
	v[7] = V_TEXT(copy);
	v[8] = V_INT(ns_of(json_get(e, "ts")));
	v[9] = V_INT(ns_of(json_get(e, "dur")));
	v[10] = bytes && bytes->integral ? V_INT(bytes->integer)
		: strcmp(kind, "copy") == 0 || strcmp(kind, "memset") == 0 ? V_INT(0) : V_NULL;
	v[11] = num_of(args, "correlation");
	v[12] = V_TEXT(str_of(json_get(args, "api")));
	/* The slice spans the greatest duration; a bounded one carries its least (docs/hooks.md).
	   A trace of an older cuaudit says neither: NULL. */
	v[13] = exact && exact->type == JSON_BOOL ? V_INT(exact->boolean) : V_NULL;
	if (exact && exact->type == JSON_BOOL && exact->boolean)
		v[14] = v[9];
	else
		v[14] = json_get(args, "dur_min") ? V_INT(ns_of(json_get(args, "dur_min"))) : V_NULL;
	if (synthetic && synthetic->type == JSON_BOOL && synthetic->boolean)
		k->synthetic = 1;
	put_row(k, T_GPU_ACTIVITY, v);
}

/* One event of a trace: a call ("ph":"X"), a piece of GPU work ("ph":"X", "cat":"gpu") or a
   process or thread name ("ph":"M"). */
static void trace_event(struct sink *k, const struct json *e, const char *file)
{
	const char *ph = str_of(json_get(e, "ph")), *name = str_of(json_get(e, "name"));
	const struct json *pidj = json_get(e, "pid"), *tidj = json_get(e, "tid");
	const struct json *args = json_get(e, "args");
	long long pid = pidj && pidj->integral ? pidj->integer : -1;
	long long tid = tidj && tidj->integral ? tidj->integer : -1;

	if (!ph || !name)
		return;
	if (strcmp(ph, "M") == 0) {
		const char *what = str_of(json_get(args, "name"));

		if (strcmp(name, "process_name") == 0)
			process_id(k, pid, NULL, what, file);
		else if (strcmp(name, "thread_name") == 0 && tid < GPU_TRACK_BASE) {
			struct value v[4] = { V_INT(process_id(k, pid, NULL, NULL, file)), V_INT(pid),
					      V_INT(tid), V_TEXT(what) };
			put_row(k, T_THREADS, v);
		}
		return;
	}
	if (strcmp(ph, "X") != 0)
		return;
	if (strcmp(str_of(json_get(e, "cat")) ? str_of(json_get(e, "cat")) : "", "gpu") == 0) {
		gpu_event(k, e, name, pid, file);
		return;
	}
	if (strcmp(str_of(json_get(e, "cat")) ? str_of(json_get(e, "cat")) : "", "nvtx") == 0) {
		const struct json *level = json_get(args, "level");
		struct value v[8] = {
			V_INT(process_id(k, pid, NULL, NULL, file)), V_INT(pid), V_INT(tid), V_TEXT(name),
			V_TEXT(str_of(json_get(args, "domain"))),
			level && level->integral ? V_INT(level->integer) : V_NULL,
			V_INT(ns_of(json_get(e, "ts"))), V_INT(ns_of(json_get(e, "dur"))),
		};

		put_row(k, T_NVTX, v);
		return;
	}
	{
		const struct json *corr = json_get(args, "correlation_id");
		long long ts = ns_of(json_get(e, "ts")), dur = ns_of(json_get(e, "dur"));
		long long linked = corr && corr->integral
			? corr->integer : nlinks ? call_correlation(pid, tid, name, ts, dur) : -1;
		const struct json *skipped = json_get(args, "skipped");
		/* kernel_name is readable where the module could demangle it, the name as
		   compiled then in "mangled": --mangled shows that one. */
		const char *kernel = str_of(json_get(args, "mangled"))
			? str_of(json_get(args, "mangled")) : str_of(json_get(args, "kernel_name"));
		struct value v[13] = {
			V_INT(process_id(k, pid, NULL, NULL, file)), V_INT(pid), V_INT(tid),
			V_TEXT(name), V_TEXT(str_of(json_get(e, "cat"))),
			V_INT(ts), V_INT(dur), V_TEXT(str_of(json_get(args, "result"))),
			V_TEXT(str_of(json_get(args, "binding"))),
			linked >= 0 ? V_INT(linked) : V_NULL,
			V_TEXT(kernel ? cua_demangle(kernel) : NULL),
			V_INT(skipped && skipped->type == JSON_BOOL && skipped->boolean),
			num_of(args, "depth"),
		};
		put_row(k, T_CALLS, v);
	}
}

/* The trace's wall-clock anchors ("cuaudit_clock", one per process), for its process rows. */
static void read_clocks(const char *text, size_t len)
{
	static const char key[] = "{\"name\":\"cuaudit_clock\"";
	const char *p = text, *end = text + len, *nl;
	char err[256];

	while ((p = memmem(p, (size_t)(end - p), key, sizeof(key) - 1))) {
		struct json *j;
		size_t n;

		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)((nl ? nl : end) - p);
		while (n && (p[n - 1] == ',' || p[n - 1] == '\r' || p[n - 1] == ' '))
			n--;
		if ((p == text || p[-1] == '\n') && (j = json_parse(p, n, err, sizeof(err)))) {
			const struct json *a = json_get(j, "args");
			struct times *t = realloc(clocks, (nclocks + 1) * sizeof(*t));

			if (t) {
				clocks = t;
				clocks[nclocks++] = (struct times){ int_of(j, "pid"), -1, -1,
								    int_of(a, "realtime_ns"),
								    int_of(a, "monotonic_ns") };
			}
			json_free(j);
		}
		p += sizeof(key) - 1;
	}
}

/* The process names come last in a trace; the process rows are made with them first. */
static void name_processes(struct sink *k, const char *file, const char *text, size_t len)
{
	static const char key[] = "{\"name\":\"process_name\"";
	const char *p = text, *end = text + len, *nl;
	char err[256];

	read_clocks(text, len);

	while ((p = memmem(p, (size_t)(end - p), key, sizeof(key) - 1))) {
		struct json *j;
		size_t n;

		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)((nl ? nl : end) - p);
		while (n && (p[n - 1] == ',' || p[n - 1] == '\r' || p[n - 1] == ' '))
			n--;
		if ((p == text || p[-1] == '\n') && (j = json_parse(p, n, err, sizeof(err)))) {
			trace_event(k, j, file);
			json_free(j);
		}
		p += sizeof(key) - 1;
	}
}

/* A trace as cuaudit writes it: one event per line, so a trace of millions of calls is read
   in constant memory. A line that is not one event (another tool's layout) fails the file. */
static int export_trace(struct sink *k, const char *file, const char *text, size_t len)
{
	const char *p = memchr(text, '\n', len), *end = text + len;
	unsigned long long line = 1;
	char err[256];

	if (!p) {
		fprintf(stderr, "cuaudit export: %s: not a trace cuaudit wrote\n", file);
		return -1;
	}
	name_processes(k, file, text, len);
	gather_links(text, len);
	for (p++; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		size_t n = (size_t)(e - p);
		struct json *j;

		while (n && (p[n - 1] == ',' || p[n - 1] == '\r' || p[n - 1] == ' '))
			n--;
		if (n && p[0] == '{') {
			j = json_parse(p, n, err, sizeof(err));
			if (!j || j->type != JSON_OBJECT) {
				fprintf(stderr, "cuaudit export: %s: line %llu: %s\n", file, line + 1,
					j ? "not an event" : err);
				json_free(j);
				return -1;
			}
			trace_event(k, j, file);
			json_free(j);
		} else if (n && !(n == 2 && memcmp(p, "]}", 2) == 0)) {
			fprintf(stderr, "cuaudit export: %s: line %llu: not a trace cuaudit wrote\n",
				file, line + 1);
			return -1;
		}
		p = e + 1;
	}
	return 0;
}

/* The raw file of a process that ended without exit(), formatted as `cuaudit trace` does,
   into memory. */
static char *raw_to_json(const char *file, int fd, size_t *len)
{
	static struct cua_writer w;
	struct cua_raw_head h;
	int mfd = memfd_create("cuaudit-export", MFD_CLOEXEC), limited = 0;
	char *window = malloc(1u << 20), *text = NULL;
	uint64_t last = 0;
	unsigned skipped;
	struct stat st;

	if (mfd < 0 || !window || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		goto out;
	if (h.table_sig != cua_tracefmt_table_sig()) {
		fprintf(stderr, "cuaudit export: %s was written by another build of cuaudit\n", file);
		goto out;
	}
	h.program[sizeof(h.program) - 1] = '\0';
	if (cua_cli_raw_writer_running(&h))
		fprintf(stderr, "cuaudit export: %s: process %llu (%s) is still running: only the "
				"calls written so far are exported\n", cli_term(file),
			(unsigned long long)h.pid, cli_term(h.program));
	cua_writer_init(&w, mfd);
	cua_tracefmt_head(&w, h.pid);
	cua_tracefmt_clock(&w, h.pid, h.anchor_realtime_ns, h.anchor_monotonic_ns);
	skipped = cua_tracefmt_raw(&w, fd, window, 1u << 20, h.pid, &limited, &last);
	/* Said as `cuaudit trace` says it: the calls of a cut block are not in the tables. */
	if (skipped)
		fprintf(stderr, "cuaudit export: %s: %u block(s) cut short by the end of the "
				"process were skipped\n", cli_term(file), skipped);
	cua_tracefmt_names(&w, h.pid, h.program, NULL);
	cua_tracefmt_tail(&w);
	cua_writer_flush(&w);
	if (w.failed || fstat(mfd, &st) != 0)
		goto out;
	*len = (size_t)st.st_size;
	text = mmap(NULL, *len ? *len : 1, PROT_READ, MAP_PRIVATE, mfd, 0);
	if (text == MAP_FAILED)
		text = NULL;
out:
	if (!text)
		fprintf(stderr, "cuaudit export: cannot read the raw trace %s\n", file);
	free(window);
	if (mfd >= 0)
		close(mfd);
	return text;
}

static int export_file(struct sink *k, const char *file)
{
	int fd = strcmp(file, "-") == 0 ? dup(0) : open(file, O_RDONLY | O_CLOEXEC);
	char *text = NULL, head[64];
	size_t len = 0, cap = 0;
	ssize_t n;
	int rc = -1, mapped = 0;
	struct stat st;

	if (fd < 0) {
		fprintf(stderr, "cuaudit export: cannot open %s: %s\n", file, strerror(errno));
		return -1;
	}
	n = pread(fd, head, sizeof(head), 0);
	if (n >= (ssize_t)sizeof(CUA_RAW_MAGIC) - 1 &&
	    memcmp(head, CUA_RAW_MAGIC, sizeof(CUA_RAW_MAGIC) - 1) == 0) {
		text = raw_to_json(file, fd, &len);
		mapped = text != NULL;
	} else if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		len = (size_t)st.st_size;
		text = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		mapped = text != MAP_FAILED;
		if (!mapped)
			text = NULL;
	} else {
		/* A pipe or standard input. */
		for (;;) {
			if (len == cap) {
				char *t = realloc(text, cap = cap ? 2 * cap : 65536);

				if (!t)
					break;
				text = t;
			}
			n = read(fd, text + len, cap - len);
			if (n <= 0)
				break;
			len += (size_t)n;
		}
	}
	close(fd);
	if (!text || !len) {
		if (!text)
			return -1;
		fprintf(stderr, "cuaudit export: %s is empty\n", file);
	} else if (len >= sizeof(CUA_TRACE_SIGNATURE) - 1 &&
		   memcmp(text, CUA_TRACE_SIGNATURE, sizeof(CUA_TRACE_SIGNATURE) - 1) == 0) {
		rc = export_trace(k, file, text, len);
	} else {
		rc = export_summary(k, file, text, len);
	}
	if (mapped)
		munmap(text, len);
	else
		free(text);
	return rc;
}

/* ---------------------------------------------------------------- the command */

static void usage(FILE *f)
{
	fputs("usage: cuaudit export [OPTIONS] -o OUT FILE...\n"
	      "Writes the summaries (SUMMARY.json) and traces (TRACE.json, or the raw file\n"
	      "TRACE.PID.NONCE.raw of a process that ended without exit()) of any number of\n"
	      "processes as tables: processes, threads, apis, kernels, calls, gpu_activity,\n"
	      "gpu_kernels, gpu_mem, nvtx and meta (docs/export.md). '-' reads standard input.\n"
	      "\n"
	      "  -T, --type sqlite|csv|jsonl\n"
	      "        an SQLite database (the default), a folder of CSV files (one per table),\n"
	      "        or JSON lines (one object per row, with its \"table\")\n"
	      "  -o, --output FILE\n"
	      "        the database, folder or file; an existing one is refused without --force\n"
	      "        ('-': standard output, for jsonl)\n"
	      "  -f, --force\n"
	      "        replace an existing database or file (csv: the folder's table files), once\n"
	      "        the new one is whole: a failed export leaves the old one as it was\n"
	      "  -M, --mangled\n"
	      "        kernel names as the compiler wrote them, not demangled\n"
	      "  -h, --help\n"
	      "        this text\n"
	      "\n"
	      "Exit status: 0; 1 if an input could not be read (the others are still exported)\n"
	      "or the output could not be written (nothing is left then); 2 for usage errors.\n",
	      f);
}

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "cuaudit export: %s%s%s\nTry 'cuaudit export --help'.\n", what,
		arg ? " " : "", arg ? arg : "");
	return 2;
}

static void put_meta(struct sink *k)
{
	struct value v[2] = { V_TEXT("schema_version"), V_TEXT("3") };

	put_row(k, T_META, v);
	v[0] = V_TEXT("cuaudit_version");
	v[1] = V_TEXT(CUA_VERSION);
	put_row(k, T_META, v);
}

/* Written after the inputs: whether any of them carried GPU activity records. */
static void put_meta_gpu(struct sink *k)
{
	struct value v[2] = { V_TEXT("gpu_activity"),
			      V_TEXT(k->rows[T_GPU_ACTIVITY]
					     ? "recorded"
					     : "none in the inputs (traces of CUAUDIT_GPU_TIME runs carry it)") };

	put_row(k, T_META, v);
	v[0] = V_TEXT("gpu_synthetic");
	v[1] = V_TEXT(k->synthetic ? "true: GPU times from cuaudit's mock driver, made up" : "false");
	put_row(k, T_META, v);
}

int cua_cli_export_main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "type", required_argument, NULL, 'T' }, { "output", required_argument, NULL, 'o' },
		{ "mangled", no_argument, NULL, 'M' }, { "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },    { NULL, 0, NULL, 0 },
	};
	static char tmp[4200];
	struct sink k;
	struct stat st;
	int c, rc = 0, force = 0;

	memset(&k, 0, sizeof(k));
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":T:o:Mfh", longs, NULL)) != -1) {
		switch (c) {
		case 'T': {
			int found = -1;

			for (int i = 0; i < 3; i++)
				if (strcmp(optarg, type_words[i]) == 0)
					found = i;
			if (found < 0)
				return usage_error("--type: expected sqlite, csv or jsonl, not", optarg);
			k.type = (enum out_type)found;
			break;
		}
		case 'o': k.out = optarg; break;
		case 'M': cua_demangle_names = 0; break;
		case 'f': force = 1; break;
		case 'h': usage(stdout); return 0;
		case ':': return usage_error("missing value for", argv[optind - 1]);
		default: return usage_error("unknown option", argv[optind - 1]);
		}
	}
	if (!k.out)
		return usage_error("--output: where to write is not given", NULL);
	if (optind >= argc)
		return usage_error("no summaries or traces given", NULL);
	if (strcmp(k.out, "-") == 0 && k.type != OUT_JSONL)
		return usage_error("--output: standard output takes --type jsonl only", NULL);
	for (int i = optind; i < argc; i++)
		if (strcmp(argv[i], k.out) == 0 && strcmp(k.out, "-") != 0)
			return usage_error("--output names an input:", k.out);
	/* An existing output is replaced only with --force, and then only once the new one is
	   whole: it is written under a new name beside it and renamed over it at the end. */
	k.final = k.out;
	if (strcmp(k.out, "-") != 0 && k.type != OUT_CSV && lstat(k.out, &st) == 0) {
		if (!force) {
			fprintf(stderr, "cuaudit export: %s exists; it is not replaced (--force "
					"replaces it)\n", k.out);
			return 1;
		}
		if (!S_ISREG(st.st_mode)) {
			fprintf(stderr, "cuaudit export: %s exists and is not a file; --force replaces "
					"files only\n", k.out);
			return 1;
		}
		snprintf(tmp, sizeof(tmp), "%s.cuaudit-new.%d", k.final, (int)getpid());
		if (lstat(tmp, &st) == 0) {
			fprintf(stderr, "cuaudit export: %s exists; it is not replaced\n", tmp);
			return 1;
		}
		k.out = tmp;
	}
	if (k.type == OUT_CSV) {
		char path[8448];

		for (unsigned t = 0; t < T_COUNT; t++) {
			table_path(&k, t, path, sizeof(path), 1);
			if (lstat(path, &st) != 0)
				continue;
			if (!force) {
				fprintf(stderr, "cuaudit export: %s exists; it is not replaced (--force "
						"replaces it)\n", path);
				return 1;
			}
			if (!S_ISREG(st.st_mode)) {
				fprintf(stderr, "cuaudit export: %s exists and is not a file; --force "
						"replaces files only\n", path);
				return 1;
			}
			snprintf(k.suffix, sizeof(k.suffix), ".cuaudit-new.%d", (int)getpid());
		}
	}
	if (k.type == OUT_SQLITE) {
#ifdef CUA_HAVE_SQLITE
		if (sqlite_open(&k) != 0) {
			if (k.db)
				sqlite3_close(k.db);
			unlink(k.out);
			return 1;
		}
#else
		fprintf(stderr, "cuaudit export: this cuaudit was built without SQLite (Debian: "
				"libsqlite3-dev); use --type csv or --type jsonl\n");
		return 1;
#endif
	} else if (text_open(&k) != 0) {
		k.failed = 1;
		text_close(&k);
		text_remove(&k);
		return 1;
	}
	cua_tracefmt_init();
	put_meta(&k);
	for (int i = optind; i < argc && !k.failed; i++)
		if (export_file(&k, argv[i]) != 0)
			rc = 1;
	put_meta_gpu(&k);
#ifdef CUA_HAVE_SQLITE
	if (k.type == OUT_SQLITE && sqlite_close(&k) != 0)
		rc = k.failed = 1;
#endif
	if (k.type != OUT_SQLITE && text_close(&k) != 0)
		rc = k.failed = 1;
	/* --force: the whole new output takes the old one's name. */
	if (!k.failed && k.out != k.final && rename(k.out, k.final) != 0) {
		fprintf(stderr, "cuaudit export: cannot replace %s: %s\n", k.final, strerror(errno));
		rc = k.failed = 1;
	}
	for (unsigned t = 0; !k.failed && k.suffix[0] && t < T_COUNT; t++) {
		char from[8448], to[8448];

		table_path(&k, t, from, sizeof(from), 0);
		table_path(&k, t, to, sizeof(to), 1);
		if (rename(from, to) != 0) {
			fprintf(stderr, "cuaudit export: cannot replace %s: %s\n", to, strerror(errno));
			unlink(from); /* the old table file stays as it was */
			rc = 1;
		}
	}
	if (k.failed && k.type == OUT_SQLITE)
		unlink(k.out);
	else if (k.failed)
		text_remove(&k);
	if (!k.failed && strcmp(k.out, "-") != 0)
		fprintf(stderr, "cuaudit export: Generated: %s (%llu processes, %llu calls, %llu "
				"API rows, %llu kernel rows, %llu GPU activity rows)\n",
			k.final, k.rows[T_PROCESSES], k.rows[T_CALLS], k.rows[T_APIS],
			k.rows[T_KERNELS], k.rows[T_GPU_ACTIVITY]);
	return rc;
}
