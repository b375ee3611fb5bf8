/* SPDX-License-Identifier: MIT */
/* hooks/gpu/gpu_render.c: the summary's GPU tables (kernels as nsys cuda_gpu_kern_sum, memory time and size as cuda_gpu_mem_time_sum and cuda_gpu_mem_size_sum), in text and JSON. */
#include <string.h>
#include <sys/mman.h>
#include "gpu.h"
#include "gpu_render.h"
#include "fmt.h"
#include "kernelnames.h"
#include "writer.h"

static void put_col(struct cua_buf *b, uint64_t v, unsigned width)
{
	char tmp[24];
	size_t n = cua_fmt_u64(tmp, v);

	for (size_t i = n; i < width; i++)
		cua_buf_char(b, ' ');
	cua_buf_mem(b, tmp, n);
}

/* part/whole in hundredths of a percent, right-aligned as 12.34. */
static void put_share(struct cua_buf *b, uint64_t part, uint64_t whole, unsigned width)
{
	uint64_t bp = whole ? (part * 10000 + whole / 2) / whole : 0;
	char tmp[32];
	struct cua_buf t = CUA_BUF(tmp);

	cua_buf_u64(&t, bp / 100);
	cua_buf_char(&t, '.');
	cua_buf_u64_pad(&t, bp % 100, 2);
	for (size_t i = t.len; i < width; i++)
		cua_buf_char(b, ' ');
	cua_buf_mem(b, tmp, t.len);
}

/* Bytes as megabytes (10^6, as nsys) with three decimals. */
/* A size for people, right-aligned in width: "512 B", "2.000 KiB", "1.500 MiB": powers of
   1024, as CUAUDIT_MEM_LIMIT takes them and `cuaudit report` prints them. */
static void put_size(struct cua_buf *b, uint64_t bytes, unsigned width)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	char tmp[48];
	struct cua_buf t = CUA_BUF(tmp);
	unsigned u = 0;

	while (u < 4 && bytes >= (1ull << (10 * (u + 1))))
		u++;
	if (u == 0) {
		cua_buf_u64(&t, bytes);
	} else {
		/* Three decimals, rounded to the nearest thousandth of the unit. */
		unsigned __int128 m = ((unsigned __int128)bytes * 1000 + (1ull << (10 * u - 1))) >> (10 * u);

		cua_buf_u64(&t, (uint64_t)(m / 1000));
		cua_buf_char(&t, '.');
		cua_buf_u64_pad(&t, (uint64_t)(m % 1000), 3);
	}
	cua_buf_char(&t, ' ');
	cua_buf_str(&t, names[u]);
	for (size_t i = t.len; i < width; i++)
		cua_buf_char(b, ' ');
	cua_buf_mem(b, tmp, t.len);
}

static void put_json_u64(struct cua_buf *b, const char *key, uint64_t v)
{
	cua_buf_str(b, ",\"");
	cua_buf_str(b, key);
	cua_buf_str(b, "\":");
	cua_buf_u64(b, v);
}

/* v in units of 'unit' ns, with three decimals. */
static void put_scaled(struct cua_buf *b, uint64_t v, uint64_t unit)
{
	uint64_t m = unit >= 1000 ? (v + unit / 2000) / (unit / 1000) : v * 1000;

	cua_buf_u64(b, m / 1000);
	cua_buf_char(b, '.');
	cua_buf_u64_pad(b, m % 1000, 3);
}

/* A duration for people, right-aligned in width: "3.400 ms" where exact, "12.100–13.400 us"
   where only bounded (the unit is the greater value's). */
static void put_dur(struct cua_buf *b, uint64_t lo, uint64_t hi, unsigned width)
{
	static const char *const names[] = { "ns", "\xc2\xb5s", "ms", "s" };
	static const uint64_t units[] = { 1, 1000, 1000000, 1000000000 };
	char tmp[64];
	struct cua_buf t = CUA_BUF(tmp);
	unsigned u = 0, cols;

	while (u < 3 && hi >= units[u + 1])
		u++;
	if (u == 0) {
		cua_buf_u64(&t, lo);
		if (lo != hi) {
			cua_buf_str(&t, "\xe2\x80\x93");
			cua_buf_u64(&t, hi);
		}
	} else {
		put_scaled(&t, lo, units[u]);
		if (lo != hi) {
			cua_buf_str(&t, "\xe2\x80\x93");
			put_scaled(&t, hi, units[u]);
		}
	}
	cua_buf_char(&t, ' ');
	cua_buf_str(&t, names[u]);
	/* Columns, not bytes: the dash and the micro sign are two bytes, one column each. */
	cols = (unsigned)t.len - (lo != hi ? 2 : 0) - (u == 1);
	for (unsigned i = cols; i < width; i++)
		cua_buf_char(b, ' ');
	cua_buf_mem(b, tmp, t.len);
}

/* One row's durations as a table: time% (of the greatest total), total, count, exact%, avg,
   shortest, longest. */
static void put_span_row(struct cua_buf *b, const struct cua_gpu_span *sp, uint64_t whole)
{
	const struct cua_stat *lo = &sp->lo, *hi = &sp->hi;

	put_share(b, hi->total_ns, whole, 7);
	put_dur(b, lo->total_ns, hi->total_ns, 24);
	put_col(b, lo->timed, 11);
	put_share(b, sp->exact_ns, hi->total_ns, 8);
	put_dur(b, lo->total_ns / lo->timed, hi->total_ns / hi->timed, 24);
	put_dur(b, lo->min_ns, hi->min_ns, 24);
	put_dur(b, lo->max_ns, hi->max_ns, 24);
}

static const char span_head[] = "  time%                   total  instances  exact%"
				"                     avg                shortest"
				"                 longest  ";

/* A row's durations in JSON: each figure that is only bounded as its least and greatest
   value (docs/summary-schema.json); the exact figures too when every record is exact. */
static void put_json_span(struct cua_buf *b, const struct cua_gpu_span *sp)
{
	const struct cua_stat *lo = &sp->lo, *hi = &sp->hi;

	put_json_u64(b, "exact_instances", sp->exact_n);
	put_json_u64(b, "exact_ns", sp->exact_ns);
	put_json_u64(b, "total_min_ns", lo->total_ns);
	put_json_u64(b, "total_max_ns", hi->total_ns);
	put_json_u64(b, "avg_min_ns", lo->timed ? lo->total_ns / lo->timed : 0);
	put_json_u64(b, "avg_max_ns", hi->timed ? hi->total_ns / hi->timed : 0);
	put_json_u64(b, "shortest_min_ns", lo->min_ns);
	put_json_u64(b, "shortest_max_ns", hi->min_ns);
	put_json_u64(b, "longest_min_ns", lo->max_ns);
	put_json_u64(b, "longest_max_ns", hi->max_ns);
	if (sp->exact_n == lo->timed) {
		put_json_u64(b, "total_ns", lo->total_ns);
		put_json_u64(b, "avg_ns", lo->timed ? lo->total_ns / lo->timed : 0);
		put_json_u64(b, "min_ns", lo->min_ns);
		put_json_u64(b, "max_ns", lo->max_ns);
		put_json_u64(b, "stddev_ns", cua_stats_stddev(lo));
	}
}

static void put_json_stat(struct cua_buf *b, const struct cua_stat *s, const char *unit)
{
	char key[32];
	static const char *const names[] = { "total", "avg", "median", "min", "max", "stddev" };
	uint64_t v[6] = { s->total_ns, s->timed ? s->total_ns / s->timed : 0,
			  cua_stats_percentile(s, 500), s->min_ns, s->max_ns, cua_stats_stddev(s) };

	for (unsigned i = 0; i < 6; i++) {
		size_t n = strlen(names[i]);

		memcpy(key, names[i], n);
		memcpy(key + n, unit, strlen(unit) + 1);
		put_json_u64(b, key, v[i]);
	}
}

static const struct cua_gpu_kernel **sorted_kernels(const struct cua_gpu_totals *t)
{
	const struct cua_gpu_kernel **rows;
	size_t size = (t->nkernels + 1) * sizeof(*rows);

	rows = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rows == MAP_FAILED)
		return NULL;
	for (unsigned i = 0; i < t->nkernels; i++) {
		unsigned j = i;

		/* Insertion sort by total time, then name: at most a few thousand rows, once. */
		while (j > 0 && (rows[j - 1]->time.hi.total_ns < t->kernels[i].time.hi.total_ns ||
				 (rows[j - 1]->time.hi.total_ns == t->kernels[i].time.hi.total_ns &&
				  strcmp(rows[j - 1]->name, t->kernels[i].name) > 0))) {
			rows[j] = rows[j - 1];
			j--;
		}
		rows[j] = &t->kernels[i];
	}
	return rows;
}

static uint64_t kernels_total(const struct cua_gpu_totals *t)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < t->nkernels; i++)
		sum += t->kernels[i].time.hi.total_ns;
	return sum;
}

static void write_text_untimed(struct cua_writer *w, const struct cua_gpu_totals *t)
{
	struct cua_buf *b = cua_writer_room(w, 512);

	if (t->synthetic)
		cua_buf_str(b, "\ncuaudit summary: (mock GPU: every GPU time below is synthetic)");
	cua_buf_str(b, "\ncuaudit summary: GPU work timed ");
	cua_buf_u64(b, t->timed);
	if (t->sample > 1) {
		cua_buf_str(b, " (1 call in ");
		cua_buf_u64(b, t->sample);
		cua_buf_str(b, " sampled)");
	}
	for (unsigned i = 0; i < CUA_GPU_UNTIMED_KINDS; i++) {
		if (!t->untimed[i])
			continue;
		cua_buf_str(b, ", untimed ");
		cua_buf_str(b, cua_gpu_untimed_names[i]);
		cua_buf_char(b, ' ');
		cua_buf_u64(b, t->untimed[i]);
	}
	cua_buf_char(b, '\n');
	for (unsigned d = 0; d < t->ndevices; d++) {
		cua_buf_str(b, "  device ");
		cua_buf_u64(b, d);
		cua_buf_str(b, " busy ");
		put_dur(b, t->busy_min_ns[d], t->busy_max_ns[d], 0);
		cua_buf_char(b, '\n');
	}
}

void cua_gpu_write_text(struct cua_writer *w)
{
	const struct cua_gpu_totals *t = cua_gpu_totals();
	const struct cua_gpu_kernel **rows;
	uint64_t total, mem_total = 0;
	struct cua_buf *b;

	if (!t)
		return;
	write_text_untimed(w, t);
	total = kernels_total(t);
	rows = t->nkernels ? sorted_kernels(t) : NULL;
	if (rows) {
		b = cua_writer_room(w, 512);
		cua_buf_str(b, "\ncuaudit summary: GPU kernels (cuda_gpu_kern_sum; time on the stream, "
			       "launch gap included; a range is a bound: work that began on an idle "
			       "stream, docs/hooks.md)\n");
		cua_buf_str(b, span_head);
		cua_buf_str(b, "name\n");
		for (unsigned i = 0; i < t->nkernels; i++) {
			const char *name = cua_kernelnames_readable(rows[i]->name);

			b = cua_writer_room(w, strlen(name) + 256);
			put_span_row(b, &rows[i]->time, total);
			cua_buf_str(b, "  ");
			cua_buf_text(b, name, strlen(name), CUA_TEXT_TERM);
			cua_buf_char(b, '\n');
		}
		munmap(rows, (t->nkernels + 1) * sizeof(*rows));
	}
	for (unsigned op = 1; op < CUA_GPU_OPS; op++)
		if (op != CUA_GPU_GRAPH)
			mem_total += t->mem_time[op].hi.total_ns;
	if (!mem_total && !t->mem_time[CUA_GPU_MEMSET].lo.timed &&
	    !t->mem_time[CUA_GPU_HTOD].lo.timed && !t->mem_time[CUA_GPU_DTOH].lo.timed)
		return;
	b = cua_writer_room(w, 512);
	cua_buf_str(b, "\ncuaudit summary: GPU memory operations by time (cuda_gpu_mem_time_sum; "
		       "a range is a bound)\n");
	cua_buf_str(b, span_head);
	cua_buf_str(b, "operation\n");
	for (unsigned op = 1; op < CUA_GPU_OPS; op++) {
		if (op == CUA_GPU_GRAPH || !t->mem_time[op].lo.timed)
			continue;
		b = cua_writer_room(w, 256);
		put_span_row(b, &t->mem_time[op], mem_total);
		cua_buf_str(b, "  ");
		cua_buf_str(b, cua_gpu_op_names[op]);
		cua_buf_char(b, '\n');
	}
	b = cua_writer_room(w, 256);
	cua_buf_str(b, "\ncuaudit summary: GPU memory operations by size (cuda_gpu_mem_size_sum)\n"
		       "    total size      count           avg        median           min"
		       "           max        stddev  operation\n");
	for (unsigned op = 1; op < CUA_GPU_OPS; op++) {
		const struct cua_stat *s = &t->mem_size[op];

		if (op == CUA_GPU_GRAPH || !s->timed)
			continue;
		b = cua_writer_room(w, 192);
		put_size(b, s->total_ns, 14);
		put_col(b, s->timed, 11);
		put_size(b, s->total_ns / s->timed, 14);
		put_size(b, cua_stats_percentile(s, 500), 14);
		put_size(b, s->min_ns, 14);
		put_size(b, s->max_ns, 14);
		put_size(b, cua_stats_stddev(s), 14);
		cua_buf_str(b, "  ");
		cua_buf_str(b, cua_gpu_op_names[op]);
		cua_buf_char(b, '\n');
	}
}

void cua_gpu_write_json(struct cua_writer *w)
{
	const struct cua_gpu_totals *t = cua_gpu_totals();
	struct cua_buf *b;
	int first = 1;

	if (!t)
		return;
	b = cua_writer_room(w, 512);
	cua_buf_str(b, ",\"gpu\":{\"sample\":");
	cua_buf_u64(b, t->sample);
	/* Said where the times are: the mock driver's are made up (docs/hooks.md). */
	cua_buf_str(b, t->synthetic ? ",\"synthetic\":true" : ",\"synthetic\":false");
	put_json_u64(b, "timed", t->timed);
	cua_buf_str(b, ",\"untimed\":{");
	for (unsigned i = 0; i < CUA_GPU_UNTIMED_KINDS; i++) {
		cua_buf_str(b, i ? ",\"" : "\"");
		cua_buf_str(b, cua_gpu_untimed_names[i]);
		cua_buf_str(b, "\":");
		cua_buf_u64(b, t->untimed[i]);
	}
	cua_buf_str(b, "},\"devices\":[");
	for (unsigned d = 0; d < t->ndevices; d++) {
		b = cua_writer_room(w, 64);
		cua_buf_str(b, d ? ",{\"device\":" : "{\"device\":");
		cua_buf_u64(b, d);
		put_json_u64(b, "busy_min_ns", t->busy_min_ns[d]);
		put_json_u64(b, "busy_max_ns", t->busy_max_ns[d]);
		cua_buf_char(b, '}');
	}
	cua_buf_str(cua_writer_room(w, 32), "],\"kernels\":[");
	for (unsigned i = 0; i < t->nkernels; i++) {
		const struct cua_gpu_span *sp = &t->kernels[i].time;
		const char *name = t->kernels[i].name, *readable = cua_kernelnames_readable(name);

		b = cua_writer_room(w, (strlen(name) + strlen(readable)) * 6 + 256);
		cua_buf_str(b, i ? ",\n  {\"name\":" : "\n  {\"name\":");
		cua_buf_json_string(b, name);
		if (readable != name) {
			cua_buf_str(b, ",\"demangled\":");
			cua_buf_json_string(b, readable);
		}
		put_json_u64(b, "instances", sp->lo.timed);
		put_json_span(b, sp);
		cua_buf_char(b, '}');
	}
	cua_buf_str(cua_writer_room(w, 32), "],\"memory\":[");
	for (unsigned op = 1; op < CUA_GPU_OPS; op++) {
		if (op == CUA_GPU_GRAPH || !t->mem_time[op].lo.timed)
			continue;
		b = cua_writer_room(w, 768);
		cua_buf_str(b, first ? "\n  {\"operation\":\"" : ",\n  {\"operation\":\"");
		first = 0;
		cua_buf_str(b, cua_gpu_op_names[op]);
		cua_buf_char(b, '"');
		put_json_u64(b, "count", t->mem_time[op].lo.timed);
		put_json_span(b, &t->mem_time[op]);
		put_json_stat(b, &t->mem_size[op], "_bytes");
		cua_buf_char(b, '}');
	}
	cua_buf_str(cua_writer_room(w, 8), "]}");
}
