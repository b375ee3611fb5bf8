/* SPDX-License-Identifier: MIT */
/* hooks/nvtx/nvtx_render.c: writes the NVTX ranges' statistics into the summary, as a text table and as JSON. */
#include <string.h>
#include "fmt.h"
#include "gpu.h"
#include "nvtx.h"
#include "nvtxjson.h"
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
	cua_buf_str(b, ", paths ");
	cua_buf_u64(b, d->paths);
	cua_buf_str(b, ", gpu ");
	cua_buf_u64(b, d->gpu);
	cua_buf_char(b, '\n');
}

/* The GPU time of a row's kernels, right-aligned: exact, or "least–greatest" where some
   record is only bounded (docs/hooks.md, "GPU times"); "-" without GPU timing. */
static void put_gpu(struct cua_buf *b, const struct cua_nvtx_row *r, unsigned width)
{
	char tmp[48];
	struct cua_buf t = CUA_BUF(tmp);
	unsigned cols;

	if (!cua_gpu_on())
		cua_buf_char(&t, '-');
	else {
		cua_buf_u64(&t, r->gpu_min_ns);
		if (r->gpu_min_ns != r->gpu_max_ns) {
			cua_buf_str(&t, "\xe2\x80\x93");
			cua_buf_u64(&t, r->gpu_max_ns);
		}
	}
	/* Columns, not bytes: the dash is three bytes, one column. */
	cols = (unsigned)t.len - (r->gpu_min_ns != r->gpu_max_ns && cua_gpu_on() ? 2 : 0);
	for (unsigned i = cols; i < width; i++)
		cua_buf_char(b, ' ');
	cua_buf_mem(b, tmp, t.len);
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
	b = cua_writer_room(w, 512);
	cua_buf_str(b, "\ncuaudit summary: NVTX ranges\n"
		       "  calls, call_ns, gpu_ns: the CUDA calls made inside ranges of the name, their host "
		       "time, their kernels' GPU time\n"
		       "    ranges      total_ns       avg_ns       min_ns       max_ns     marks      calls"
		       "        call_ns                     gpu_ns  domain:name\n");
	for (unsigned i = 0; i < n; i++) {
		const struct cua_nvtx_row *r = &rows[i];

		b = cua_writer_room(w, 2 * CUA_NVTX_NAME_BYTES * 4 + 128);
		put_col(b, r->ranges, 10);
		put_col(b, r->total_ns, 14);
		put_col(b, r->ranges ? r->total_ns / r->ranges : 0, 13);
		put_col(b, r->min_ns, 13);
		put_col(b, r->max_ns, 13);
		put_col(b, r->marks, 10);
		put_col(b, r->calls, 11);
		put_col(b, r->calls_ns, 15);
		/* The summary timed only some of them (CUAUDIT_SUMMARY_SAMPLE): their time. */
		cua_buf_char(b, r->calls_timed < r->calls ? '*' : ' ');
		put_gpu(b, r, 26);
		cua_buf_str(b, "  ");
		if (r->domain[0]) {
			cua_buf_text(b, r->domain, strlen(r->domain), CUA_TEXT_TERM);
			cua_buf_char(b, ':');
		}
		cua_buf_text(b, r->name, strlen(r->name), CUA_TEXT_TERM);
		cua_buf_char(b, '\n');
	}
	put_drops_text(w, &d);
	for (unsigned i = 0; i < n; i++) {
		if (rows[i].calls_timed < rows[i].calls) {
			cua_buf_str(cua_writer_room(w, 128), "  *: the time of the calls the sampled summary "
							     "timed only (calls_timed in JSON)\n");
			break;
		}
	}
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
	cua_buf_str(b, ",\"nvtx\":{");
	{
#define OF(key, member) d.member,
		const uint64_t dv[CUA_NVTX_JSON_DROPS_N] = { CUA_NVTX_JSON_DROPS(OF) };
#undef OF

		cua_nvtx_json_drops(b, dv);
	}
	cua_buf_str(b, ",\"ranges\":[");
	for (unsigned i = 0; i < n; i++) {
#define OF(key, member) rows[i].member,
		const uint64_t v[CUA_NVTX_JSON_RANGE_N] = { CUA_NVTX_JSON_RANGE(OF) };
		const uint64_t g[CUA_NVTX_JSON_GPU_N] = { CUA_NVTX_JSON_GPU(OF) };
#undef OF

		b = cua_writer_room(w, 2 * CUA_NVTX_NAME_BYTES * 6 + 256);
		cua_buf_str(b, i ? ",\n  " : "\n  ");
		cua_nvtx_json_range(b, rows[i].name, rows[i].domain, v, cua_gpu_on() ? g : NULL);
		cua_buf_char(b, '}');
	}
	cua_buf_str(cua_writer_room(w, 8), "]}");
	cua_nvtx_rows_free(rows, n);
}
