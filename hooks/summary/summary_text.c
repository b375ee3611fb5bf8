/* SPDX-License-Identifier: MIT */
/* hooks/summary/summary_text.c: renders the summary's row model as the text table. */
#include <string.h>
#include "gpu_render.h"
#include "nvtx_render.h"
#include "fmt.h"
#include "kernelnames.h"
#include "provenance.h"
#include "summary_model.h"
#include "table.h"
#include "writer.h"

static const char *layer_name(unsigned id)
{
	return cua_api[id].layer == CUAUDIT_LAYER_DRIVER ? "driver" : "runtime";
}


/* Share of the section's time in hundredths of a percent, printed as 12.34. */
static void put_share(struct cua_buf *b, uint64_t part, uint64_t whole)
{
	uint64_t bp = whole ? (part * 10000 + whole / 2) / whole : 0;

	cua_buf_u64(b, bp / 100);
	cua_buf_char(b, '.');
	cua_buf_u64_pad(b, bp % 100, 2);
}

static void put_col(struct cua_buf *b, uint64_t v, unsigned width)
{
	char tmp[20];
	size_t n = cua_fmt_u64(tmp, v);

	for (size_t i = n; i < width; i++)
		cua_buf_char(b, ' ');
	cua_buf_mem(b, tmp, n);
}

static void put_text_row(struct cua_writer *w, const struct cua_summary_row *r, uint64_t section_total)
{
	struct cua_buf *b = cua_writer_room(w, 512);
	const struct cua_stat *s = &r->s;
	char share[16];
	struct cua_buf sb = CUA_BUF(share);

	put_share(&sb, s->total_ns, section_total);
	for (size_t i = sb.len; i < 7; i++)
		cua_buf_char(b, ' ');
	cua_buf_mem(b, share, sb.len);
	put_col(b, s->total_ns, 14);
	put_col(b, s->calls, 10);
	put_col(b, s->errors, 8);
	put_col(b, s->calls ? s->total_ns / s->calls : 0, 11);
	put_col(b, s->min_ns, 11);
	put_col(b, cua_stats_percentile(s, 500), 11);
	put_col(b, cua_stats_percentile(s, 990), 11);
	put_col(b, s->max_ns, 12);
	put_col(b, cua_stats_stddev(s), 11);
	cua_buf_str(b, "  ");
	cua_buf_str(b, layer_name(r->id));
	/* "layer    api": the name starts in the same column for both layers. */
	cua_buf_str(b, cua_api[r->id].layer == CUAUDIT_LAYER_DRIVER ? "   " : "  ");
	cua_buf_str(b, cua_api[r->id].elf_name);
	if (s->timed < s->calls) {
		/* The total's 95% interval, as a share of it (hooks/summary/summary_sampler.h). */
		cua_buf_str(b, "  (estimate +-");
		put_share(b, r->err_ns, s->total_ns);
		cua_buf_str(b, "%, 95%: ");
		cua_buf_u64(b, s->timed);
		cua_buf_str(b, " calls timed)");
	}
	cua_buf_char(b, '\n');
}

static void write_kernels(struct cua_writer *w, const struct cua_summary_model *m)
{
	const struct cua_summary_kernel *rows = m->kernels;
	unsigned n = m->nkernels;
	struct cua_buf *b;

	if (!n)
		return;
	b = cua_writer_room(w, 256);
	cua_buf_str(b, "\ncuaudit summary: launches by kernel\n"
		       "  launches  errors      total_ns     avg_ns  kernel\n");
	for (unsigned i = 0; i < n; i++) {
		/* Readable (CUAUDIT_DEMANGLE), demangled once per name and kept in the registry. */
		const char *name = cua_kernelnames_readable(cua_summary_kernel_name(&rows[i]));

		b = cua_writer_room(w, strlen(name) + 128);
		put_col(b, rows[i].launches, 10);
		put_col(b, rows[i].errors, 8);
		put_col(b, rows[i].total_ns, 14);
		put_col(b, rows[i].total_ns / rows[i].launches, 11);
		cua_buf_str(b, "  ");
		/* The program's bytes: valid UTF-8 and no control character, also on a terminal
		   (CUAUDIT_SUMMARY=stderr). */
		cua_buf_text(b, name, strlen(name), CUA_TEXT_TERM);
		cua_buf_char(b, '\n');
	}
}

/* Calls by linked-in runtime copy (binding entry): each copy's total, then its calls by API. */
static void write_entry_objects(struct cua_writer *w, const struct cua_summary_model *m)
{
	unsigned shown = 0;

	for (unsigned k = 0; m->entry_counts && k < CUA_MAX_ENTRY_COPIES; k++) {
		const uint64_t *counts = m->entry_counts + (size_t)k * CUAUDIT_ID_COUNT;
		struct cua_buf *b;

		if (!cua_entry_names[k][0] || !m->entry_totals[k])
			continue;
		b = cua_writer_room(w, 2 * CUA_ENTRY_NAME_MAX + 128);
		if (!shown++)
			cua_buf_str(b, "\ncuaudit summary: calls by linked-in runtime (binding entry)\n");
		put_col(b, m->entry_totals[k], 10);
		cua_buf_str(b, "  ");
		cua_buf_text(b, cua_entry_names[k], strlen(cua_entry_names[k]), CUA_TEXT_TERM);
		cua_buf_str(b, ":");
		for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++) {
			if (!counts[id])
				continue;
			b = cua_writer_room(w, 128);
			cua_buf_char(b, ' ');
			cua_buf_str(b, cua_api[id].elf_name);
			cua_buf_char(b, '=');
			cua_buf_u64(b, counts[id]);
		}
		cua_buf_str(cua_writer_room(w, 8), "\n");
	}
}

void cua_summary_text_write(struct cua_writer *w, const struct cua_summary_model *m)
{
	static const char head[] =
		"  time%      total_ns     calls  errors     avg_ns     min_ns  median_ns"
		"     p99_ns      max_ns  stddev_ns  layer    api\n";

	cua_provenance_text(cua_writer_room(w, 8192));
	for (unsigned nested = 0; nested < 2; nested++) {
		struct cua_buf *b = cua_writer_room(w, 256);
		uint64_t total = m->total_ns[nested];

		cua_buf_str(b, nested ? "\ncuaudit summary: calls made inside other CUDA calls, pid "
				      : "cuaudit summary: calls the application made, pid ");
		cua_buf_u64(b, m->pid);
		cua_buf_str(b, ", total ");
		cua_buf_u64(b, total);
		cua_buf_str(b, " ns\n");
		cua_buf_str(b, head);
		for (unsigned i = 0; i < m->nrows; i++)
			if (m->rows[i].nested == nested)
				put_text_row(w, &m->rows[i], total);
	}
	write_entry_objects(w, m);
	write_kernels(w, m);
	cua_gpu_write_text(w);
	cua_nvtx_write_text(w);
}

