/* SPDX-License-Identifier: MIT */
/* hooks/nvtx_render.c: writes the NVTX ranges' statistics into the summary, as a text table and as JSON. */
#include <string.h>
#include "fmt.h"
#include "nvtx.h"
#include "nvtx_render.h"
#include "writer.h"

static void put_col(struct cua_buf *b, uint64_t v, unsigned width)
{
	char tmp[20];
	size_t n = cua_fmt_u64(tmp, v);

	for (size_t i = n; i < width; i++)
		cua_buf_char(b, ' ');
	cua_buf_mem(b, tmp, n);
}

static void put_json_u64(struct cua_buf *b, const char *key, uint64_t v)
{
	cua_buf_str(b, ",\"");
	cua_buf_str(b, key);
	cua_buf_str(b, "\":");
	cua_buf_u64(b, v);
}

static void put_drops_text(struct cua_writer *w, const struct cua_nvtx_drops *d)
{
	struct cua_buf *b = cua_writer_room(w, 512);

	cua_buf_str(b, "  dropped: names ");
	cua_buf_u64(b, d->names);
	cua_buf_str(b, ", deep ");
	cua_buf_u64(b, d->depth);
	cua_buf_str(b, ", unbalanced ");
	cua_buf_u64(b, d->unbalanced);
	cua_buf_str(b, ", started ");
	cua_buf_u64(b, d->started);
	cua_buf_str(b, ", in handlers ");
	cua_buf_u64(b, d->reentered);
	cua_buf_char(b, '\n');
}

/* Like Nsight Systems' nvtx_sum: ended ranges per name, longest total first. */
void cua_nvtx_write_text(struct cua_writer *w)
{
	struct cua_nvtx_drops d;
	unsigned n;
	struct cua_nvtx_row *rows = cua_nvtx_rows(&n, &d);
	struct cua_buf *b;

	if (!cua_nvtx_connected())
		return;
	b = cua_writer_room(w, 256);
	cua_buf_str(b, "\ncuaudit summary: NVTX ranges\n"
		       "    ranges      total_ns       avg_ns       min_ns       max_ns     marks  domain:name\n");
	for (unsigned i = 0; i < n; i++) {
		const struct cua_nvtx_row *r = &rows[i];

		b = cua_writer_room(w, 2 * CUA_NVTX_NAME_BYTES * 4 + 128);
		put_col(b, r->ranges, 10);
		put_col(b, r->total_ns, 14);
		put_col(b, r->ranges ? r->total_ns / r->ranges : 0, 13);
		put_col(b, r->min_ns, 13);
		put_col(b, r->max_ns, 13);
		put_col(b, r->marks, 10);
		cua_buf_str(b, "  ");
		if (r->domain[0]) {
			cua_buf_text(b, r->domain, strlen(r->domain), CUA_TEXT_TERM);
			cua_buf_char(b, ':');
		}
		cua_buf_text(b, r->name, strlen(r->name), CUA_TEXT_TERM);
		cua_buf_char(b, '\n');
	}
	put_drops_text(w, &d);
	cua_nvtx_rows_free(rows, n);
}

void cua_nvtx_write_json(struct cua_writer *w)
{
	struct cua_nvtx_drops d;
	unsigned n;
	struct cua_nvtx_row *rows = cua_nvtx_rows(&n, &d);
	struct cua_buf *b;

	if (!cua_nvtx_connected())
		return;
	b = cua_writer_room(w, 512);
	cua_buf_str(b, ",\"nvtx\":{\"dropped\":{\"names\":");
	cua_buf_u64(b, d.names);
	put_json_u64(b, "depth", d.depth);
	put_json_u64(b, "unbalanced", d.unbalanced);
	put_json_u64(b, "started", d.started);
	put_json_u64(b, "reentered", d.reentered);
	cua_buf_str(b, "},\"ranges\":[");
	for (unsigned i = 0; i < n; i++) {
		const struct cua_nvtx_row *r = &rows[i];

		b = cua_writer_room(w, 2 * CUA_NVTX_NAME_BYTES * 6 + 256);
		cua_buf_str(b, i ? ",\n  {\"name\":" : "\n  {\"name\":");
		cua_buf_json_string(b, r->name);
		cua_buf_str(b, ",\"domain\":");
		cua_buf_json_string(b, r->domain);
		put_json_u64(b, "ranges", r->ranges);
		put_json_u64(b, "total_ns", r->total_ns);
		put_json_u64(b, "min_ns", r->min_ns);
		put_json_u64(b, "max_ns", r->max_ns);
		put_json_u64(b, "marks", r->marks);
		cua_buf_char(b, '}');
	}
	cua_buf_str(cua_writer_room(w, 8), "]}");
	cua_nvtx_rows_free(rows, n);
}
