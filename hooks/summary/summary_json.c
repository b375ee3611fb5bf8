/* SPDX-License-Identifier: MIT */
/* hooks/summary/summary_json.c: renders the summary's row model as JSON (schema cuaudit-summary/1). */
#include <string.h>
#include "gpu_render.h"
#include "nvtx_render.h"
#include "fmt.h"
#include "kernelnames.h"
#include "libs.h"
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

static void put_json_u64(struct cua_buf *b, const char *key, uint64_t v)
{
	cua_buf_str(b, ",\"");
	cua_buf_str(b, key);
	cua_buf_str(b, "\":");
	cua_buf_u64(b, v);
}

static void write_json_row(struct cua_writer *w, const struct cua_summary_row *r, uint64_t total, int first)
{
	struct cua_buf *b = cua_writer_room(w, 1024);
	const struct cua_stat *s = &r->s;

	cua_buf_str(b, first ? "\n  {\"name\":\"" : ",\n  {\"name\":\"");
	cua_buf_str(b, cua_api[r->id].elf_name);
	cua_buf_str(b, "\",\"layer\":\"");
	cua_buf_str(b, layer_name(r->id));
	cua_buf_str(b, r->nested ? "\",\"nested\":true" : "\",\"nested\":false");
	put_json_u64(b, "calls", s->calls);
	if (s->timed < s->calls) {
		put_json_u64(b, "timed", s->timed);
		put_json_u64(b, "total_err_ns", r->err_ns);
	}
	put_json_u64(b, "errors", s->errors);
	put_json_u64(b, "total_ns", s->total_ns);
	put_json_u64(b, "avg_ns", s->calls ? s->total_ns / s->calls : 0);
	put_json_u64(b, "min_ns", s->min_ns);
	put_json_u64(b, "median_ns", cua_stats_percentile(s, 500));
	put_json_u64(b, "p99_ns", cua_stats_percentile(s, 990));
	put_json_u64(b, "max_ns", s->max_ns);
	put_json_u64(b, "stddev_ns", cua_stats_stddev(s));
	cua_buf_str(b, ",\"share_percent\":");
	put_share(b, s->total_ns, total);
	cua_buf_str(b, ",\"bindings\":{");
	for (unsigned k = 0; k < CUAUDIT_BIND_COUNT; k++) {
		cua_buf_str(b, k ? ",\"" : "\"");
		cua_buf_str(b, cua_binding_names[k]);
		cua_buf_str(b, "\":");
		cua_buf_u64(b, s->by_binding[k]);
	}
	cua_buf_str(b, "}}");
}

static void write_kernels(struct cua_writer *w, const struct cua_summary_model *m)
{
	const struct cua_summary_kernel *rows = m->kernels;
	unsigned n = m->nkernels;

	cua_buf_str(cua_writer_room(w, 32), ",\"kernels\":[");
	for (unsigned i = 0; i < n; i++) {
		const char *name = cua_summary_kernel_name(&rows[i]);
		const char *readable = cua_kernelnames_readable(name);
		struct cua_buf *b = cua_writer_room(w, (strlen(name) + strlen(readable)) * 6 + 256);

		/* The name as compiled stays the key; the readable one beside it, when it differs. */
		cua_buf_str(b, i ? ",\n  {\"name\":" : "\n  {\"name\":");
		cua_buf_json_string(b, name);
		if (readable != name) {
			cua_buf_str(b, ",\"demangled\":");
			cua_buf_json_string(b, readable);
		}
		put_json_u64(b, "launches", rows[i].launches);
		put_json_u64(b, "errors", rows[i].errors);
		put_json_u64(b, "total_ns", rows[i].total_ns);
		cua_buf_char(b, '}');
	}
	cua_buf_str(cua_writer_room(w, 8), n ? "\n]" : "]");
}

/* "entry_objects": which linked-in runtime each entry call came through, and which calls. */
static void write_entry_objects(struct cua_writer *w, const struct cua_summary_model *m)
{
	unsigned shown = 0;

	cua_buf_str(cua_writer_room(w, 32), ",\"entry_objects\":[");
	for (unsigned k = 0; m->entry_counts && k < CUA_MAX_ENTRY_COPIES; k++) {
		const uint64_t *counts = m->entry_counts + (size_t)k * CUAUDIT_ID_COUNT;
		unsigned listed = 0;
		struct cua_buf *b;

		if (!cua_entry_names[k][0] || !m->entry_totals[k])
			continue;
		b = cua_writer_room(w, 2 * CUA_ENTRY_NAME_MAX + 128);
		cua_buf_str(b, shown++ ? ",\n  {\"object\":" : "\n  {\"object\":");
		cua_buf_json_string(b, cua_entry_names[k]);
		put_json_u64(b, "calls", m->entry_totals[k]);
		cua_buf_str(b, ",\"apis\":{");
		for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++) {
			if (!counts[id])
				continue;
			b = cua_writer_room(w, 128);
			cua_buf_str(b, listed++ ? ",\"" : "\"");
			cua_buf_str(b, cua_api[id].elf_name);
			cua_buf_str(b, "\":");
			cua_buf_u64(b, counts[id]);
		}
		cua_buf_str(cua_writer_room(w, 8), "}}");
	}
	cua_buf_str(cua_writer_room(w, 8), shown ? "\n]" : "]");
}

void cua_summary_json_write(struct cua_writer *w, const struct cua_summary_model *m)
{
	struct cua_buf *b = cua_writer_room(w, 256);

	cua_buf_str(b, "{\"schema\":\"cuaudit-summary/1\",\"pid\":");
	cua_buf_u64(b, m->pid);
	b = cua_writer_room(w, 8192);
	cua_buf_char(b, ',');
	cua_provenance_json(b);
	b = cua_writer_room(w, 32);
	if (m->snapshot)
		cua_buf_str(b, ",\"snapshot\":true");
	cua_buf_str(b, ",\"apis\":[");
	for (unsigned i = 0; i < m->nrows; i++)
		write_json_row(w, &m->rows[i], m->total_ns[m->rows[i].nested], i == 0);
	b = cua_writer_room(w, 64);
	cua_buf_str(b, "\n],\"libraries\":[");
	for (unsigned i = 0; i < cua_nlibs; i++) {
		const struct cua_lib *lib = &cua_libs[i];

		b = cua_writer_room(w, 2048);
		cua_buf_str(b, i ? ",\n  {\"path\":" : "\n  {\"path\":");
		cua_buf_json_string(b, lib->path);
		cua_buf_str(b, ",\"layer\":\"");
		cua_buf_str(b, lib->layer == CUAUDIT_LAYER_DRIVER ? "driver" : "runtime");
		cua_buf_str(b, lib->owner ? "\",\"intercepted\":true" : "\",\"intercepted\":false");
		cua_buf_str(b, ",\"bindings\":{");
		for (unsigned k = 0; k < CUAUDIT_BIND_COUNT; k++) {
			cua_buf_str(b, k ? ",\"" : "\"");
			cua_buf_str(b, cua_binding_names[k]);
			cua_buf_str(b, "\":");
			cua_buf_u64(b, cua_lib_binding_count(lib, k));
		}
		cua_buf_str(b, "}}");
	}
	b = cua_writer_room(w, 16);
	cua_buf_str(b, "\n]");
	write_entry_objects(w, m);
	write_kernels(w, m);
	cua_gpu_write_json(w);
	cua_nvtx_write_json(w);
	cua_buf_str(cua_writer_room(w, 8), "}\n");
}

