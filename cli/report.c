/* SPDX-License-Identifier: MIT */
/* cli/report.c: `cuaudit report`: prints merged summaries as text tables, CSV or merged JSON. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "demangle.h"
#include "json.h"
#include "report.h"
#include "summaries.h"
#include "table.h"
#include "gpu_report.h"
#include "nvtx_report.h"

/* A summary of 100k APIs is about 30 MB; anything far larger is not one. */
#define MAX_INPUT_BYTES (1024L * 1024 * 1024)

enum sort_key { SORT_TOTAL, SORT_CALLS, SORT_AVG, SORT_ERRORS };
enum table { T_ALL, T_APIS, T_KERNELS, T_PROCESSES, T_GPU_KERNELS, T_GPU_MEM, T_NVTX };

struct options {
	const char *json_out;
	int csv;
	enum sort_key sort;
	enum table table;
	size_t top;             /* 0: every row */
};

static const char *const sort_words[] = { "total", "calls", "avg", "errors" };
static const char *const table_words[] = { "all", "apis", "kernels", "processes", "gpu-kernels",
					     "gpu-mem", "nvtx" };
/* The GPU section of the summaries read (CUAUDIT_GPU_TIME), merged. */
static struct cua_gpu_report gpu;
/* The NVTX ranges of the summaries read, merged. */
static struct cua_nvtx_report nvtx;

static void usage(FILE *f)
{
	fputs("usage: cuaudit report [OPTIONS] SUMMARY.json...\n"
	      "Merges the JSON summaries of one or more processes (CUAUDIT_SUMMARY=...%p.json),\n"
	      "and the merged summaries it wrote itself (--json), whose processes count again.\n"
	      "\n"
	      "'-' reads a summary from standard input.\n"
	      "\n"
	      "  -s, --sort total|calls|avg|errors\n"
	      "        order rows by total (the default), calls, avg or errors, largest first\n"
	      "  -n, --top N\n"
	      "        print the first N rows of each table and N processes in the header; the\n"
	      "        Total row still counts every row\n"
	      "  -t, --table all|apis|kernels|processes|gpu-kernels|gpu-mem|nvtx\n"
	      "        the tables to print (all: the default for text; the GPU and NVTX tables\n"
	      "        when a summary has them)\n"
	      "  -c, --csv\n"
	      "        CSV of one table (apis unless --table says otherwise), times in ns, no\n"
	      "        Total row\n"
	      "  -j, --json FILE\n"
	      "        also write the merged summary as JSON to FILE (never one of the inputs);\n"
	      "        - writes it to standard output instead of the tables\n"
	      "  -M, --mangled\n"
	      "        kernel names as the compiler wrote them, not demangled\n"
	      "  -h, --help\n"
	      "        this text\n"
	      "\n"
	      "Times print in ns, us, ms or s; a '~' marks an estimate scaled from the timed calls\n"
	      "of a sampled run. Exit status: 0; 1 if an input could not be read or is not a\n"
	      "cuaudit summary (the others are still reported); 2 for usage errors.\n",
	      f);
}

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "cuaudit report: %s%s%s\nTry 'cuaudit report --help'.\n", what,
		arg ? " " : "", arg ? arg : "");
	return 2;
}

static int word_index(const char *const *words, int n, const char *w)
{
	for (int i = 0; i < n; i++)
		if (strcmp(words[i], w) == 0)
			return i;
	return -1;
}

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{ "sort", required_argument, NULL, 's' }, { "top", required_argument, NULL, 'n' },
		{ "table", required_argument, NULL, 't' }, { "csv", no_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' },
		{ "mangled", no_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	int c, k;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	optind = 0;     /* glibc: start afresh, whatever parsed argv before us */
	while ((c = getopt_long(argc, argv, ":s:n:t:cj:hM", longs, NULL)) != -1) {
		switch (c) {
		case 's':
			if ((k = word_index(sort_words, 4, optarg)) < 0)
				return usage_error("--sort: expected total, calls, avg or errors, not", optarg);
			o->sort = (enum sort_key)k;
			break;
		case 'n': {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (optarg[0] < '0' || optarg[0] > '9' || *end || errno || v == 0)
				return usage_error("--top: expected a positive number, not", optarg);
			o->top = (size_t)v;
			break;
		}
		case 't':
			if ((k = word_index(table_words, 7, optarg)) < 0)
				return usage_error("--table: expected apis, kernels, processes, gpu-kernels, "
						   "gpu-mem, nvtx or all, not",
						   optarg);
			o->table = (enum table)k;
			break;
		case 'c': o->csv = 1; break;
		case 'j': o->json_out = optarg; break;
		case 'M': cua_demangle_names = 0; break;
		case 'h': usage(stdout); return 0;
		case ':': return usage_error("missing value for", argv[optind - 1]);
		default: return usage_error("unknown option", argv[optind - 1]);
		}
	}
	if (o->csv && o->table == T_ALL)
		o->table = T_APIS;
	if (o->csv && o->table == T_NVTX)
		return usage_error("--csv: no CSV form of the table", "nvtx");
	if (optind >= argc)
		return usage_error("no summary files given", NULL);
	return -1;
}

/* Standard input ('-'): read to its end. */
static char *slurp_stdin(size_t *len)
{
	size_t cap = 65536, n;
	char *buf = malloc(cap), *t;

	*len = 0;
	while (buf && (n = fread(buf + *len, 1, cap - *len, stdin)) > 0) {
		*len += n;
		if (*len == cap) {
			if (cap >= (size_t)MAX_INPUT_BYTES || !(t = realloc(buf, cap *= 2))) {
				free(buf);
				errno = EFBIG;
				return NULL;
			}
			buf = t;
		}
	}
	if (buf && ferror(stdin)) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f;
	struct stat st;
	char *buf;

	if (strcmp(path, "-") == 0)
		return slurp_stdin(len);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	memset(&st, 0, sizeof(st));
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > MAX_INPUT_BYTES) {
		errno = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
		fclose(f);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	*len = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
	if (buf && ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static int load(struct cua_summaries *s, const char *path, char **text_out, size_t *len_out)
{
	char err[256];
	size_t len = 0;
	char *text = slurp(path, &len);
	int rc;

	if (!text) {
		fprintf(stderr, "cuaudit report: cannot read %s: %s\n", cli_term(path),
			errno == EINVAL ? "not a regular file" : strerror(errno));
		return -1;
	}
	rc = cua_summaries_add(s, path, text, len, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "cuaudit report: %s is not a cuaudit JSON summary: %s\n",
			cli_term(path), cli_term(err));
	else if ((rc = cua_gpu_report_add(&gpu, text, len, err, sizeof(err))) != 0)
		fprintf(stderr, "cuaudit report: %s: %s (its GPU section is left out)\n",
			cli_term(path), cli_term(err));
	*text_out = text;
	*len_out = len;
	return rc;
}

/* ---------------------------------------------------------------- sorting for display */

static enum sort_key sort_by;

static uint64_t avg(uint64_t total, uint64_t calls)
{
	return calls ? total / calls : 0;
}

static int desc(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int api_order(const void *a, const void *b)
{
	const struct cua_api_rec *x = a, *y = b;
	int c = x->nested - y->nested;

	if (!c) {
		switch (sort_by) {
		case SORT_TOTAL: c = desc(x->total_ns, y->total_ns); break;
		case SORT_CALLS: c = desc(x->calls, y->calls); break;
		case SORT_AVG: c = desc(avg(x->total_ns, x->calls), avg(y->total_ns, y->calls)); break;
		case SORT_ERRORS: c = desc(x->errors, y->errors); break;
		}
	}
	if (!c)
		c = strcmp(x->elf_name, y->elf_name);
	return c ? c : strcmp(x->layer, y->layer);
}

static int kernel_order(const void *a, const void *b)
{
	const struct cua_kernel_rec *x = a, *y = b;
	int c = 0;

	switch (sort_by) {
	case SORT_TOTAL: c = desc(x->total_ns, y->total_ns); break;
	case SORT_CALLS: c = desc(x->launches, y->launches); break;
	case SORT_AVG: c = desc(avg(x->total_ns, x->launches), avg(y->total_ns, y->launches)); break;
	case SORT_ERRORS: c = desc(x->errors, y->errors); break;
	}
	return c ? c : strcmp(x->name, y->name);
}

/* ---------------------------------------------------------------- text */

/* ns with 3 significant figures in ns, us, ms or s; '~' first for an estimate. */
static const char *human_ns(char *out, size_t cap, uint64_t ns, int estimate)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	double v = (double)ns;
	int u = 0;

	if (ns < 1000) {
		snprintf(out, cap, "%s%llu ns", estimate ? "~" : "", (unsigned long long)ns);
		return out;
	}
	while (u < 3 && v >= 999.5) {
		v /= 1000;
		u++;
	}
	snprintf(out, cap, "%s%.*f %s", estimate ? "~" : "", v < 9.995 ? 2 : v < 99.95 ? 1 : 0, v,
		 units[u]);
	return out;
}

static void print_header(const struct cua_summaries *s, size_t top)
{
	size_t shown = top && top < s->ninputs ? top : s->ninputs;

	printf("cuaudit report: %zu process%s\n", s->ninputs, s->ninputs == 1 ? "" : "es");
	if (shown < s->ninputs)
		printf("  ... (%zu more; --top=%zu shows the first %zu)\n", s->ninputs - shown, top,
		       top);
	for (size_t i = 0; i < shown; i++) {
		const struct cua_input *in = &s->inputs[i];

		printf("  %s: pid %lld", cli_term(in->file), in->pid);
		if (!in->has_process) {
			printf(" (no provenance recorded)%s\n", in->snapshot ? " [snapshot]" : "");
			continue;
		}
		printf(" on %s, %s to %s", in->host ? cli_term(in->host) : "?",
		       in->start ? cli_term(in->start) : "?", in->end ? cli_term(in->end) : "?");
		if (in->version)
			printf(", cuaudit %s", cli_term(in->version));
		if (in->driver_version >= 0)
			printf(", driver %lld", in->driver_version);
		if (in->runtime_version >= 0)
			printf(", runtime %lld", in->runtime_version);
		printf("%s%s%s\n", in->snapshot ? " [snapshot]" : "", in->command ? ": " : "",
		       in->command ? cli_term(in->command) : "");
	}
}

#define API_HEAD "%11s %11s %11s %11s %11s %10s %8s %5s  %-8s %s\n"

static void print_api_row(const char *total, const char *av, const char *mn, const char *mx,
			  const char *p99, uint64_t calls, uint64_t errors, const char *procs,
			  const char *layer, const char *name)
{
	printf("%11s %11s %11s %11s %11s %10llu %8llu %5s  %-8s %s\n", total, av, mn, mx, p99,
	       (unsigned long long)calls, (unsigned long long)errors, procs, cli_term(layer),
	       cli_term(name));
}

static int print_api_section(const struct cua_summaries *s, int nested, const struct options *o)
{
	char t[32], a[32], mn[32], mx[32], p[32], procs[16];
	uint64_t calls = 0, errors = 0, total = 0, lo = UINT64_MAX, hi = 0;
	size_t rows = 0, shown = 0;
	int est = 0;

	for (size_t i = 0; i < s->napis && !rows; i++)
		rows += s->apis[i].nested == nested;
	if (nested && !rows)
		return 0;
	rows = 0;
	printf(nested ? "\ncalls made inside other CUDA calls:\n" : "\ncalls the applications made:\n");
	printf(API_HEAD, "total", "avg", "min", "max", "p99 max", "calls", "errors", "procs", "layer",
	       "api");
	for (size_t i = 0; i < s->napis; i++) {
		const struct cua_api_rec *r = &s->apis[i];
		int e = r->timed < r->calls;

		if (r->nested != nested)
			continue;
		rows++;
		calls += r->calls;
		errors += r->errors;
		total += r->total_ns;
		est |= e;
		if (r->calls && r->min_ns < lo)
			lo = r->min_ns;
		if (r->max_ns > hi)
			hi = r->max_ns;
		if (o->top && shown >= o->top)
			continue;
		shown++;
		snprintf(procs, sizeof(procs), "%u", r->processes);
		print_api_row(human_ns(t, 32, r->total_ns, e), human_ns(a, 32, avg(r->total_ns, r->calls), e),
			      r->min_ns == UINT64_MAX ? "-" : human_ns(mn, 32, r->min_ns, e),
			      human_ns(mx, 32, r->max_ns, e), human_ns(p, 32, r->p99_max_ns, e), r->calls,
			      r->errors, procs, r->layer, r->elf_name);
	}
	if (shown < rows)
		printf("%11s (%zu more rows; --top=%zu shows the first %zu)\n", "...", rows - shown,
		       o->top, o->top);
	snprintf(p, sizeof(p), "Total (%zu API%s)", rows, rows == 1 ? "" : "s");
	print_api_row(human_ns(t, 32, total, est), human_ns(a, 32, avg(total, calls), est),
		      lo == UINT64_MAX ? "-" : human_ns(mn, 32, lo, est), human_ns(mx, 32, hi, est),
		      "-", calls, errors, "-", "", p);
	return est;
}

static int print_kernels(const struct cua_summaries *s, const struct options *o)
{
	char t[32], a[32], label[48];
	uint64_t launches = 0, errors = 0, total = 0;
	int est = 0;
	size_t shown = 0;

	printf("\nkernel launches by name:\n");
	if (!s->nkernels) {
		printf("  (no kernel names recorded)\n");
		return 0;
	}
	printf("%11s %11s %10s %8s %5s  %s\n", "total", "avg", "launches", "errors", "procs", "kernel");
	for (size_t i = 0; i < s->nkernels; i++) {
		const struct cua_kernel_rec *k = &s->kernels[i];

		launches += k->launches;
		errors += k->errors;
		total += k->total_ns;
		est |= k->estimated;
		if (o->top && shown >= o->top)
			continue;
		shown++;
		printf("%11s %11s %10llu %8llu %5u  %s\n", human_ns(t, 32, k->total_ns, k->estimated),
		       human_ns(a, 32, avg(k->total_ns, k->launches), k->estimated),
		       (unsigned long long)k->launches, (unsigned long long)k->errors, k->processes,
		       cli_term(cua_demangle(k->name)));
	}
	if (shown < s->nkernels)
		printf("%11s (%zu more rows; --top=%zu shows the first %zu)\n", "...",
		       s->nkernels - shown, o->top, o->top);
	snprintf(label, sizeof(label), "Total (%zu kernel%s)", s->nkernels, s->nkernels == 1 ? "" : "s");
	printf("%11s %11s %10llu %8llu %5s  %s\n", human_ns(t, 32, total, est),
	       human_ns(a, 32, avg(total, launches), est), (unsigned long long)launches,
	       (unsigned long long)errors, "-", label);
	return est;
}

static int print_processes(const struct cua_summaries *s, size_t top)
{
	char t[32];
	uint64_t calls = 0, errors = 0, total = 0;
	int est = 0;

	printf("\nper process (calls the application made):\n%8s %10s %8s %11s  %s\n", "pid", "calls",
	       "errors", "total", "file");
	for (size_t i = 0; i < s->ninputs; i++) {
		const struct cua_input *in = &s->inputs[i];

		calls += in->calls;
		errors += in->errors;
		total += in->total_ns;
		est |= in->sampled;
		if (top && i >= top) {
			if (i == top)
				printf("%8s (%zu more rows; --top=%zu shows the first %zu)\n", "...",
				       s->ninputs - top, top, top);
			continue;
		}
		printf("%8lld %10llu %8llu %11s  %s%s\n", in->pid, (unsigned long long)in->calls,
		       (unsigned long long)in->errors, human_ns(t, 32, in->total_ns, in->sampled),
		       cli_term(in->file),
		       in->snapshot ? " [snapshot]" : "");
	}
	printf("%8s %10llu %8llu %11s  Total (%zu process%s)\n", "", (unsigned long long)calls,
	       (unsigned long long)errors, human_ns(t, 32, total, est), s->ninputs,
	       s->ninputs == 1 ? "" : "es");
	return est;
}

static void print_text(const struct cua_summaries *s, const struct options *o)
{
	int est = 0;

	print_header(s, o->top);
	if (o->table == T_ALL || o->table == T_APIS) {
		est |= print_api_section(s, 0, o);
		est |= print_api_section(s, 1, o);
	}
	if (o->table == T_ALL || o->table == T_KERNELS)
		est |= print_kernels(s, o);
	if (o->table == T_ALL || o->table == T_PROCESSES)
		est |= print_processes(s, o->top);
	if ((o->table == T_ALL && gpu.inputs) || o->table == T_GPU_KERNELS)
		cua_gpu_report_text(&gpu, 0, o->top);
	if ((o->table == T_ALL && gpu.inputs) || o->table == T_GPU_MEM)
		cua_gpu_report_text(&gpu, 1, o->top);
	if (o->table == T_ALL || o->table == T_NVTX)
		cua_nvtx_report_text(&nvtx, o->top);
	if (est)
		printf("\n~ estimate: a sampled run timed only some calls (\"timed\" < \"calls\") and "
		       "scaled the times up;\n  min, max and p99 are over the timed calls only.\n");
}

/* ---------------------------------------------------------------- CSV (RFC 4180) */

static void csv_field(const char *raw)
{
	const char *s = cli_term(raw);

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

static void print_csv(const struct cua_summaries *s, const struct options *o)
{
	size_t shown[2] = { 0, 0 };

	if (o->table == T_GPU_KERNELS || o->table == T_GPU_MEM) {
		cua_gpu_report_csv(&gpu, o->table == T_GPU_MEM, o->top);
	} else if (o->table == T_APIS) {
		puts("nested,layer,api,calls,timed,errors,total_ns,avg_ns,min_ns,max_ns,p99_max_ns,"
		     "processes,estimated,total_err_ns");
		for (size_t i = 0; i < s->napis; i++) {
			const struct cua_api_rec *r = &s->apis[i];

			if (o->top && shown[r->nested]++ >= o->top)
				continue;
			printf("%s,%s,", r->nested ? "true" : "false", r->layer);
			csv_field(r->elf_name);
			printf(",%llu,%llu,%llu,%llu,%llu,", (unsigned long long)r->calls,
			       (unsigned long long)r->timed, (unsigned long long)r->errors,
			       (unsigned long long)r->total_ns,
			       (unsigned long long)avg(r->total_ns, r->calls));
			if (r->min_ns != UINT64_MAX)
				printf("%llu", (unsigned long long)r->min_ns);
			printf(",%llu,%llu,%u,%s,%llu\n", (unsigned long long)r->max_ns,
			       (unsigned long long)r->p99_max_ns, r->processes,
			       r->timed < r->calls ? "true" : "false", (unsigned long long)r->err_ns);
		}
	} else if (o->table == T_KERNELS) {
		puts("kernel,launches,errors,total_ns,avg_ns,processes,estimated");
		for (size_t i = 0; i < s->nkernels && (!o->top || i < o->top); i++) {
			const struct cua_kernel_rec *k = &s->kernels[i];

			csv_field(cua_demangle(k->name));
			printf(",%llu,%llu,%llu,%llu,%u,%s\n", (unsigned long long)k->launches,
			       (unsigned long long)k->errors, (unsigned long long)k->total_ns,
			       (unsigned long long)avg(k->total_ns, k->launches), k->processes,
			       k->estimated ? "true" : "false");
		}
	} else {
		puts("file,pid,host,command,start,end,snapshot,calls,errors,total_ns,estimated");
		for (size_t i = 0; i < s->ninputs; i++) {
			const struct cua_input *in = &s->inputs[i];

			csv_field(in->file);
			printf(",%lld,", in->pid);
			csv_field(in->host ? in->host : "");
			putchar(',');
			csv_field(in->command ? in->command : "");
			putchar(',');
			csv_field(in->start ? in->start : "");
			putchar(',');
			csv_field(in->end ? in->end : "");
			printf(",%s,%llu,%llu,%llu,%s\n", in->snapshot ? "true" : "false",
			       (unsigned long long)in->calls, (unsigned long long)in->errors,
			       (unsigned long long)in->total_ns, in->sampled ? "true" : "false");
		}
	}
}

/* ---------------------------------------------------------------- merged JSON */

static void put_opt_string(FILE *f, const char *key, const char *v)
{
	fprintf(f, ",\"%s\":", key);
	if (v)
		json_put_string(f, v);
	else
		fputs("null", f);
}

static void write_json_apis(FILE *f, const struct cua_summaries *s)
{
	for (size_t i = 0; i < s->napis; i++) {
		const struct cua_api_rec *r = &s->apis[i];

		fprintf(f, "%s\n  {\"name\":", i ? "," : "");
		json_put_string(f, r->elf_name);
		fprintf(f, ",\"layer\":\"%s\",\"nested\":%s,\"calls\":%llu,\"timed\":%llu,"
			   "\"errors\":%llu,\"total_ns\":%llu,\"avg_ns\":%llu,\"min_ns\":%llu,"
			   "\"max_ns\":%llu,\"p99_max_ns\":%llu,\"processes\":%u,",
			r->layer, r->nested ? "true" : "false", (unsigned long long)r->calls,
			(unsigned long long)r->timed, (unsigned long long)r->errors,
			(unsigned long long)r->total_ns, (unsigned long long)avg(r->total_ns, r->calls),
			(unsigned long long)(r->min_ns == UINT64_MAX ? 0 : r->min_ns),
			(unsigned long long)r->max_ns, (unsigned long long)r->p99_max_ns, r->processes);
		if (r->timed < r->calls)
			fprintf(f, "\"total_err_ns\":%llu,", (unsigned long long)r->err_ns);
		fputs("\"bindings\":{", f);
		for (int k = 0; k < CUA_NBIND; k++)
			fprintf(f, "%s\"%s\":%llu", k ? "," : "", cua_binding_names[k],
				(unsigned long long)r->bindings[k]);
		fputs("}}", f);
	}
}

static void write_json_rest(FILE *f, const struct cua_summaries *s)
{
	fputs("\n],\"kernels\":[", f);
	for (size_t i = 0; i < s->nkernels; i++) {
		const struct cua_kernel_rec *k = &s->kernels[i];

		fprintf(f, "%s\n  {\"name\":", i ? "," : "");
		json_put_string(f, k->name);
		/* The mangled name stays the key; the readable one sits beside it. */
		if (cua_demangle(k->name) != k->name) {
			fputs(",\"demangled\":", f);
			json_put_string(f, cua_demangle(k->name));
		}
		fprintf(f, ",\"launches\":%llu,\"errors\":%llu,\"total_ns\":%llu,\"processes\":%u,"
			   "\"estimated\":%s}",
			(unsigned long long)k->launches, (unsigned long long)k->errors,
			(unsigned long long)k->total_ns, k->processes, k->estimated ? "true" : "false");
	}
	fputs("\n],\"processes\":[", f);
	for (size_t i = 0; i < s->ninputs; i++) {
		const struct cua_input *in = &s->inputs[i];

		fprintf(f, "%s\n  {\"file\":", i ? "," : "");
		json_put_string(f, in->file);
		fprintf(f, ",\"pid\":%lld", in->pid);
		put_opt_string(f, "host", in->host);
		put_opt_string(f, "command", in->command);
		put_opt_string(f, "start", in->start);
		put_opt_string(f, "end", in->end);
		fprintf(f, ",\"snapshot\":%s,\"sampled\":%s,\"calls\":%llu,\"errors\":%llu,"
			   "\"total_ns\":%llu}",
			in->snapshot ? "true" : "false", in->sampled ? "true" : "false",
			(unsigned long long)in->calls, (unsigned long long)in->errors,
			(unsigned long long)in->total_ns);
	}
	fputs("\n]", f);
	cua_gpu_report_json(f, &gpu);
	cua_nvtx_report_json(f, &nvtx);
	fputs("}\n", f);
}

/* Where the JSON goes first: a new file beside PATH, renamed over it once complete, so that
   a failure (a full disk, a crash on a bad input) never leaves PATH empty or cut. Standard
   output and an existing PATH that is no regular file (a device, a pipe) are written
   directly. Returns the stream, with the temporary name in tmp (empty when direct). */
static FILE *open_output(const char *path, char *tmp, size_t cap)
{
	struct stat st;
	mode_t mask;
	int fd, exists = stat(path, &st) == 0;
	FILE *f;

	tmp[0] = 0;
	if (strcmp(path, "-") == 0)
		return stdout;
	if ((exists && !S_ISREG(st.st_mode)) ||
	    (size_t)snprintf(tmp, cap, "%s.tmp.XXXXXX", path) >= cap) {
		tmp[0] = 0;
		return fopen(path, "w");
	}
	if ((fd = mkstemp(tmp)) < 0) {
		tmp[0] = 0;
		return NULL;
	}
	mask = umask(0);
	umask(mask);
	/* The mode a plain fopen would give a new file, or the replaced file's own. */
	if (fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask) != 0 || !(f = fdopen(fd, "w"))) {
		close(fd);
		unlink(tmp);
		tmp[0] = 0;
		return NULL;
	}
	return f;
}

static int write_json(const char *path, const struct cua_summaries *s)
{
	char tmp[4096];
	FILE *f = open_output(path, tmp, sizeof(tmp));
	int to_stdout = f == stdout, bad;
	struct stat mine, now;
	int snapshot = 0;

	if (!f) {
		fprintf(stderr, "cuaudit report: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < s->ninputs; i++)
		snapshot |= s->inputs[i].snapshot;
	fprintf(f, "{\"schema\":\"cuaudit-summary/1\",\"merged\":true,\"snapshot\":%s,\"apis\":[",
		snapshot ? "true" : "false");
	write_json_apis(f, s);
	write_json_rest(f, s);
	if (fstat(fileno(f), &mine) != 0 || to_stdout)
		mine.st_mode = 0; /* standard output is never removed */
	bad = ferror(f) | ((to_stdout ? fflush(f) : fclose(f)) != 0);
	if (!bad && tmp[0] && rename(tmp, path) != 0)
		bad = 1;
	if (bad) {
		fprintf(stderr, "cuaudit report: cannot write %s: %s\n", path, strerror(errno));
		if (tmp[0])
			unlink(tmp);
		/* A cut JSON file is no summary (a full disk): it goes, if the name still leads to
		   the regular file written (never a device such as /dev/full). */
		else if (S_ISREG(mine.st_mode) && stat(path, &now) == 0 && now.st_dev == mine.st_dev &&
			 now.st_ino == mine.st_ino)
			unlink(path);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- the command */

static void warn_snapshots(const struct cua_summaries *s)
{
	for (size_t i = 0; i < s->ninputs; i++)
		if (s->inputs[i].snapshot)
			fprintf(stderr, "cuaudit report: warning: %s is a snapshot of a process that was "
					"still running: its figures are partial\n",
				cli_term(s->inputs[i].file));
}

/* --json naming one of the inputs (by name, or the same file by another name) would replace
   what it reads. */
static int names_an_input(const char *out, int n, char **inputs)
{
	struct stat o, in;
	int exists = stat(out, &o) == 0;

	if (strcmp(out, "-") == 0)
		return 0; /* standard output; an input "-" is standard input */

	for (int i = 0; i < n; i++) {
		if (strcmp(inputs[i], out) == 0 ||
		    (exists && stat(inputs[i], &in) == 0 && in.st_dev == o.st_dev &&
		     in.st_ino == o.st_ino)) {
			fprintf(stderr, "cuaudit report: --json %s is one of the inputs; it is not "
					"written over\nTry 'cuaudit report --help'.\n", out);
			return 1;
		}
	}
	return 0;
}

int cuaudit_report_main(int argc, char **argv)
{
	struct cua_summaries s;
	struct options o;
	int status = parse_options(argc, argv, &o);

	if (status >= 0)
		return status;
	if (o.json_out && names_an_input(o.json_out, argc - optind, argv + optind))
		return 2;
	status = 0;
	memset(&s, 0, sizeof(s));
	for (int i = optind; i < argc; i++) {
		size_t napis = s.napis, nkernels = s.nkernels, len = 0;
		char *text = NULL, err[256];
		long first;
		int again = -1;
		struct stat st, other;

		/* One file named twice, provenance or not. */
		for (int j = optind; j < i && again < 0 && stat(argv[i], &st) == 0; j++)
			if (stat(argv[j], &other) == 0 && st.st_dev == other.st_dev &&
			    st.st_ino == other.st_ino)
				again = j;
		if (again >= 0) {
			fprintf(stderr, "cuaudit report: warning: %s is %s again: counted once\n",
				cli_term(argv[i]), cli_term(argv[again]));
			continue;
		}
		if (load(&s, argv[i], &text, &len) != 0) {
			free(text);
			status = 1;
			continue;
		}
		/* The same process twice (one file named twice, or a copy): counted once. */
		if ((first = cua_summaries_drop_repeat(&s, napis, nkernels)) >= 0)
			fprintf(stderr, "cuaudit report: warning: %s describes the same process as %s "
					"(pid %lld, started %s): counted once\n", cli_term(argv[i]),
				cli_term(s.inputs[first].file), s.inputs[first].pid,
				cli_term(s.inputs[first].start));
		else if (cua_nvtx_report_add(&nvtx, text, len, err, sizeof(err)) != 0)
			fprintf(stderr, "cuaudit report: %s: %s (its NVTX section is left out)\n",
				cli_term(argv[i]), cli_term(err));
		free(text);
	}
	if (!s.ninputs) {
		fprintf(stderr, "cuaudit report: no summary could be read\n");
		cua_summaries_free(&s);
		return 1;
	}
	cua_summaries_merge(&s);
	warn_snapshots(&s);
	if (o.json_out && write_json(o.json_out, &s) != 0)
		status = 1;
	if (o.json_out && strcmp(o.json_out, "-") == 0) {
		/* The JSON is the output: no table after it. */
		cua_summaries_free(&s);
		cua_gpu_report_free(&gpu);
		cua_nvtx_report_free(&nvtx);
		return status;
	}
	sort_by = o.sort;
	/* qsort's base must not be NULL, even for no elements. */
	if (s.napis)
		qsort(s.apis, s.napis, sizeof(*s.apis), api_order);
	if (s.nkernels)
		qsort(s.kernels, s.nkernels, sizeof(*s.kernels), kernel_order);
	cua_gpu_report_sort(&gpu);
	cua_nvtx_report_sort(&nvtx);
	if (o.csv)
		print_csv(&s, &o);
	else
		print_text(&s, &o);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cuaudit report: cannot write the report: %s\n", strerror(errno));
		status = 1;
	}
	cua_summaries_free(&s);
	cua_gpu_report_free(&gpu);
	cua_nvtx_report_free(&nvtx);
	return status;
}
