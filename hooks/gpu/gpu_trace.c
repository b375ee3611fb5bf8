/* SPDX-License-Identifier: MIT */
/* hooks/gpu/gpu_trace.c: the trace's GPU tracks: completed GPU records kept in memory, written at the trace's finish as X events with flow arrows from their calls. */
#include <string.h>
#include <sys/mman.h>
#include "dispatch.h"
#include "gpu.h"
#include "gpu_trace.h"
#include "kernelnames.h"
#include "process.h"
#include "writer.h"

/* Track ids above any kernel thread id (pid_max is at most 2^22). */
#define TRACK_BASE 4000000000ull
#define MAX_TRACKS 256

static struct cua_gpu_record *recs;
static uint64_t nrecs, dropped, owner;
static struct {
	unsigned device;
	void *stream;
} tracks[MAX_TRACKS];
static unsigned ntracks;

/* Called with the collector's lock held. */
static void keep(const struct cua_gpu_record *r, void *ctx)
{
	(void)ctx;
	if (owner != cua_process_id()) {
		/* A forked child: its parent's records are not its own. */
		owner = cua_process_id();
		nrecs = dropped = 0;
		ntracks = 0;
	}
	if (!recs) {
		void *p = mmap(NULL, CUA_GPU_TRACE_MAX * sizeof(*recs), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p == MAP_FAILED) {
			dropped++;
			return;
		}
		recs = p;
	}
	if (nrecs >= CUA_GPU_TRACE_MAX) {
		dropped++;
		return;
	}
	recs[nrecs++] = *r;
}

void cua_gpu_trace_setup(void)
{
	owner = cua_process_id();
	cua_gpu_add_sink(keep, NULL);
}

static unsigned track_of(const struct cua_gpu_record *r)
{
	unsigned i;

	for (i = 0; i < ntracks; i++)
		if (tracks[i].device == r->device && tracks[i].stream == r->stream)
			return i;
	if (ntracks == MAX_TRACKS)
		return MAX_TRACKS - 1;
	tracks[ntracks].device = r->device;
	tracks[ntracks].stream = r->stream;
	return ntracks++;
}

static void put_us(struct cua_buf *b, uint64_t ns)
{
	cua_buf_u64(b, ns / 1000);
	cua_buf_char(b, '.');
	cua_buf_u64_pad(b, ns % 1000, 3);
}

static void put_head(struct cua_buf *b, const char *ph, uint64_t pid, uint64_t tid, uint64_t ts)
{
	cua_buf_str(b, "\",\"ph\":\"");
	cua_buf_str(b, ph);
	cua_buf_str(b, "\",\"pid\":");
	cua_buf_u64(b, pid);
	cua_buf_str(b, ",\"tid\":");
	cua_buf_u64(b, tid);
	cua_buf_str(b, ",\"ts\":");
	put_us(b, ts);
}

/* "legacy stream", "per-thread stream of thread N" or "stream 0x...": the track's name after
   "GPU D ", and each event's "stream". */
static void put_stream(struct cua_buf *b, const void *stream)
{
	uintptr_t s = (uintptr_t)stream;

	if (s == 1) {
		cua_buf_str(b, "legacy stream");
	} else if ((s & 15) == 2) {
		cua_buf_str(b, "per-thread stream of thread ");
		cua_buf_u64(b, s >> 4);
	} else {
		cua_buf_str(b, "stream ");
		cua_buf_hex(b, s);
	}
}

static void track_name(struct cua_writer *w, uint64_t pid, unsigned i)
{
	struct cua_buf *b = cua_writer_room(w, 256);

	cua_buf_str(b, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":");
	cua_buf_u64(b, pid);
	cua_buf_str(b, ",\"tid\":");
	cua_buf_u64(b, TRACK_BASE + i);
	cua_buf_str(b, ",\"args\":{\"name\":\"GPU ");
	cua_buf_u64(b, tracks[i].device);
	cua_buf_char(b, ' ');
	put_stream(b, tracks[i].stream);
	if (cua_gpu_synthetic())
		cua_buf_str(b, " (mock GPU: synthetic times)");
	cua_buf_str(b, "\"}}");
	b = cua_writer_room(w, 128);
	cua_buf_str(b, ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":");
	cua_buf_u64(b, pid);
	cua_buf_str(b, ",\"tid\":");
	cua_buf_u64(b, TRACK_BASE + i);
	cua_buf_str(b, ",\"args\":{\"sort_index\":");
	cua_buf_u64(b, 1000000 + i);
	cua_buf_str(b, "}}");
}

uint64_t cua_gpu_trace_count(uint64_t pid)
{
	return recs && owner == pid ? nrecs : 0;
}

void cua_gpu_write_trace(struct cua_writer *w, uint64_t pid)
{
	if (!recs || owner != pid)
		return;
	for (uint64_t i = 0; i < nrecs; i++) {
		const struct cua_gpu_record *r = &recs[i];
		const char *name = r->op == CUA_GPU_KERNEL ? (r->name ? r->name : "(unknown kernel)")
							   : cua_gpu_op_names[r->op];
		/* A kernel's event is named readably; its name as compiled stays in args.mangled. */
		const char *readable = r->op == CUA_GPU_KERNEL ? cua_kernelnames_readable(name) : name;
		uint64_t tid = TRACK_BASE + track_of(r);
		struct cua_buf *b = cua_writer_room(w, (strlen(name) + strlen(readable)) * 6 + 640);

		cua_buf_str(b, ",\n{\"name\":");
		cua_buf_json_string(b, readable);
		cua_buf_str(b, ",\"cat\":\"gpu");
		put_head(b, "X", pid, tid, r->start_ns);
		cua_buf_str(b, ",\"dur\":");
		put_us(b, r->end_ns > r->start_ns ? r->end_ns - r->start_ns : 0);
		cua_buf_str(b, ",\"args\":{\"correlation\":");
		cua_buf_u64(b, r->correlation_id);
		cua_buf_str(b, ",\"api\":\"");
		cua_buf_str(b, cua_api[r->api_id].elf_name);
		cua_buf_str(b, "\",\"device\":");
		cua_buf_u64(b, r->device);
		/* What it was and where, for readers other than a viewer (cuaudit export): a
		   track is shared once MAX_TRACKS are in use, an event's own stream is not. */
		cua_buf_str(b, ",\"op\":\"");
		cua_buf_str(b, cua_gpu_op_names[r->op]);
		cua_buf_str(b, "\",\"stream\":\"");
		put_stream(b, r->stream);
		cua_buf_char(b, '"');
		if (r->bytes) {
			cua_buf_str(b, ",\"bytes\":");
			cua_buf_u64(b, r->bytes);
		}
		if (readable != name) {
			cua_buf_str(b, ",\"mangled\":");
			cua_buf_json_string(b, name);
		}
		/* The slice spans the greatest duration; a bounded one says its least, which
		   starts at the latest possible start (docs/hooks.md). */
		cua_buf_str(b, r->exact ? ",\"exact\":true" : ",\"exact\":false,\"dur_min\":");
		if (!r->exact)
			put_us(b, r->end_ns > r->start_max_ns ? r->end_ns - r->start_max_ns : 0);
		if (cua_gpu_synthetic())
			cua_buf_str(b, ",\"synthetic\":true");
		cua_buf_str(b, "}}");
		/* The arrow from the call (bound to its slice on the calling thread) to the work. */
		cua_buf_str(b, ",\n{\"name\":\"gpu work\",\"cat\":\"gpu.flow\",\"id\":");
		cua_buf_u64(b, r->correlation_id);
		cua_buf_str(b, ",\"bp\":\"e");
		put_head(b, "s", pid, r->thread_id, r->call_ns);
		cua_buf_str(b, "}");
		cua_buf_str(b, ",\n{\"name\":\"gpu work\",\"cat\":\"gpu.flow\",\"id\":");
		cua_buf_u64(b, r->correlation_id);
		cua_buf_str(b, ",\"bp\":\"e");
		put_head(b, "f", pid, tid, r->start_ns);
		cua_buf_str(b, "}");
	}
	for (unsigned i = 0; i < ntracks; i++)
		track_name(w, pid, i);
}
