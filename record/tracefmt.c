/* SPDX-License-Identifier: MIT */
/* record/tracefmt.c: turns the trace's binary records into Chrome trace JSON, in the module at exit and in `cuaudit trace`. */
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cua_version.h"
#include "dispatch.h"
#include "callfmt.h"
#include "demangle.h"
#include "log.h"
#include "table.h"
#include "tracefmt.h"

uint16_t cua_trace_args_size[CUAUDIT_ID_COUNT];

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

void cua_tracefmt_init(void)
{
	for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++)
		cua_trace_args_size[id] = cua_table_args_size(id);
}

uint64_t cua_tracefmt_table_sig(void)
{
	return cua_table_sig();
}

static void put_us(struct cua_buf *b, uint64_t ns)
{
	cua_buf_u64(b, ns / 1000);
	cua_buf_char(b, '.');
	cua_buf_u64_pad(b, ns % 1000, 3);
}


/* Thread ids seen while formatting, for their thread_name events, with the name a thread's
   first record carried (the kernel keeps 15 bytes of it). */
#define MAX_NAMED_THREADS 4096
#define RECORDED_NAME_MAX 16
static uint32_t seen_tids[MAX_NAMED_THREADS];
static char seen_names[MAX_NAMED_THREADS][RECORDED_NAME_MAX];
static uint8_t seen_nlen[MAX_NAMED_THREADS];
static unsigned nseen;

void cua_tracefmt_head(struct cua_writer *w, uint64_t pid)
{
	struct cua_buf *b = cua_writer_room(w, 256);

	/* A new trace: the threads of an earlier one (`cuaudit trace a.raw b.raw`) are not its. */
	nseen = 0;
	cua_buf_str(b, CUA_TRACE_SIGNATURE ":[\n{\"name\":\"process_labels\",\"ph\":\"M\",\"pid\":");
	cua_buf_u64(b, pid);
	cua_buf_str(b, ",\"args\":{\"labels\":\"cuaudit " CUA_VERSION "\"}}");
}


/* The thread's index in seen_tids, added if new; -1 when the table is full. */
static int note_thread(uint32_t tid)
{
	for (unsigned i = nseen; i > 0; i--)
		if (seen_tids[i - 1] == tid)
			return (int)i - 1;
	if (nseen >= MAX_NAMED_THREADS)
		return -1;
	seen_nlen[nseen] = 0;
	seen_tids[nseen++] = tid;
	return (int)nseen - 1;
}

static void name_event(struct cua_writer *w, const char *what, uint64_t pid, const uint32_t *tid,
		       const char *name, size_t n)
{
	struct cua_buf *b = cua_writer_room(w, 512);

	cua_buf_str(b, ",\n{\"name\":\"");
	cua_buf_str(b, what);
	cua_buf_str(b, "\",\"ph\":\"M\",\"pid\":");
	cua_buf_u64(b, pid);
	if (tid) {
		cua_buf_str(b, ",\"tid\":");
		cua_buf_u64(b, *tid);
	}
	cua_buf_str(b, ",\"args\":{\"name\":\"");
	cua_buf_json(b, name, n);
	cua_buf_str(b, "\"}}");
}

void cua_tracefmt_clock(struct cua_writer *w, uint64_t pid, uint64_t realtime_ns,
			uint64_t monotonic_ns)
{
	struct cua_buf *b;

	if (!realtime_ns)
		return;
	b = cua_writer_room(w, 256);
	cua_buf_str(b, ",\n{\"name\":\"cuaudit_clock\",\"ph\":\"M\",\"pid\":");
	cua_buf_u64(b, pid);
	cua_buf_str(b, ",\"args\":{\"realtime_ns\":");
	cua_buf_u64(b, realtime_ns);
	cua_buf_str(b, ",\"monotonic_ns\":");
	cua_buf_u64(b, monotonic_ns);
	cua_buf_str(b, "}}");
}

void cua_tracefmt_names(struct cua_writer *w, uint64_t pid, const char *program,
			size_t (*thread_name)(uint32_t tid, char *out, size_t cap))
{
	if (program && program[0])
		name_event(w, "process_name", pid, NULL, program, strlen(program));
	for (unsigned i = 0; i < nseen; i++) {
		char name[64];
		size_t n = thread_name ? thread_name(seen_tids[i], name, sizeof(name)) : 0;

		if (!n && seen_nlen[i]) {
			n = seen_nlen[i];
			memcpy(name, seen_names[i], n);
		} else if (!n) {
			struct cua_buf t = CUA_BUF(name);

			if (seen_tids[i] == pid) {
				cua_buf_str(&t, "main");
			} else {
				cua_buf_str(&t, "thread ");
				cua_buf_u64(&t, seen_tids[i]);
			}
			n = t.len;
		}
		name_event(w, "thread_name", pid, &seen_tids[i], name, n);
	}
}

/* Readable kernel names for the records, which carry the name as compiled (at most 255
   bytes: a longer one was cut, and a cut name is left as it is). A launch loop names the
   same few kernels thousands of times: each distinct name is demangled once, into this
   small cache, not once per record. Conversion runs on one thread (the exit, or `cuaudit
   trace`); the flag only keeps a second one from waiting. */
#define KCACHE 16
#define KREADABLE_MAX 2048
static struct {
	uint8_t mlen;   /* 0: empty */
	uint16_t rlen;  /* 0: not demangled (the name is shown as it is) */
	char mangled[255];
	char readable[KREADABLE_MAX];
} kcache[KCACHE];
static struct cua_demangle_state kstate;
static int kcache_busy;

/* Sets *out to the readable form of name[0, n) and returns its length, or 0. */
static size_t readable_kernel(const char *name, size_t n, const char **out)
{
	uint32_t h = 2166136261u;
	size_t len = 0;
	unsigned slot;

	if (!cua_demangle_names || n < 3 || n >= 255 || name[0] != '_' || name[1] != 'Z')
		return 0;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	slot = h % KCACHE;
	if (__atomic_exchange_n(&kcache_busy, 1, __ATOMIC_ACQUIRE))
		return 0;
	if (kcache[slot].mlen != n || memcmp(kcache[slot].mangled, name, n) != 0) {
		kcache[slot].mlen = (uint8_t)n;
		memcpy(kcache[slot].mangled, name, n);
		kcache[slot].rlen = (uint16_t)cua_demangle_with(&kstate, kcache[slot].readable,
							       KREADABLE_MAX, name, n);
	}
	len = kcache[slot].rlen;
	*out = kcache[slot].readable;
	__atomic_store_n(&kcache_busy, 0, __ATOMIC_RELEASE);
	return len;
}

/* The arguments as JSON members: numbers as numbers, everything else as the log's text; an
   out-parameter shows the value the call wrote, where the record has it. 'extras' is where
   the record's extras begin; valid() has checked that every bit's bytes are inside it. */
static void format_args_json(struct cua_buf *b, const struct cuaudit_call *c,
			     const struct cua_rec_head *r, const char *extras)
{
	const struct cua_api_desc *d = &cua_api[c->id];
	char val[512];

	for (unsigned i = 0; i < d->nargs; i++) {
		struct cua_buf v = CUA_BUF(val);
		const uint64_t *out = NULL;
		uint64_t copy[2];
		int number;

		/* Consumed in argument order whatever the format, as the writer put them. */
		if (i < CUA_REC_OUT_ARGS && (r->flags & CUA_REC_OUT(i))) {
			memcpy(copy, extras, sizeof(copy));
			extras += CUA_TRACE_OUT_BYTES;
			out = copy;
		}
		if (d->args[i].fmt == CUA_FMT_SKIP)
			continue;
		number = cua_callfmt_arg_value(&v, c, i, out, 0);
		cua_buf_char(b, '"');
		cua_buf_str(b, d->args[i].name);
		cua_buf_str(b, number ? "\":" : "\":\"");
		/* A string argument is already a JSON string: without the log's quotes. */
		if (!number && v.len >= 2 && val[0] == '"' && val[v.len - 1] == '"')
			cua_buf_json(b, val + 1, v.len - 2);
		else
			cua_buf_json(b, val, v.len);
		cua_buf_str(b, number ? "," : "\",");
	}
	if (r->flags & CUA_REC_KERNEL) {
		const char *readable = NULL;
		size_t n = readable_kernel(extras + 1, (unsigned char)extras[0], &readable);

		/* Readable, with the name as compiled beside it (CUAUDIT_DEMANGLE). */
		cua_buf_str(b, "\"kernel_name\":\"");
		if (n) {
			cua_buf_json(b, readable, n);
			cua_buf_str(b, "\",\"mangled\":\"");
		}
		cua_buf_json(b, extras + 1, (unsigned char)extras[0]);
		cua_buf_str(b, "\",");
	}
}

void cua_tracefmt_tail(struct cua_writer *w)
{
	cua_buf_str(cua_writer_room(w, 8), "\n]}\n");
}

void cua_tracefmt_marker(struct cua_writer *w, uint64_t pid, uint64_t ts_ns, const char *why)
{
	struct cua_buf *b = cua_writer_room(w, 512);

	cua_buf_str(b, ",\n{\"name\":\"cuaudit: ");
	cua_buf_json(b, why, strlen(why));
	cua_buf_str(b, "\",\"cat\":\"cuaudit\",\"ph\":\"i\",\"s\":\"p\",\"ts\":");
	put_us(b, ts_ns);
	cua_buf_str(b, ",\"pid\":");
	cua_buf_u64(b, pid);
	cua_buf_str(b, ",\"tid\":");
	cua_buf_u64(b, pid);
	cua_buf_str(b, "}");
}

/* Rebuilds the call from a record: string arguments point at their copies. */
static void format_record(struct cua_writer *w, struct cua_rec_head *r, uint64_t pid)
{
	const struct cua_api_desc *d = &cua_api[r->id];
	struct cuaudit_call c;
	char *args = (char *)(r + 1), *strings = args + cua_trace_args_size[r->id];
	char val[512];
	struct cua_buf *b;

	memset(&c, 0, sizeof(c));
	c.id = r->id;
	c.elf_name = d->elf_name;
	c.layer = (enum cuaudit_layer)d->layer;
	c.binding = (enum cuaudit_binding)(r->binding & ((1u << CUA_REC_KIND_BITS) - 1));
	c.args = cua_trace_args_size[r->id] ? args : NULL;
	c.result = r->result;
	c.skipped = (r->flags & CUA_REC_SKIPPED) != 0;
	for (unsigned i = 0; i < d->nargs; i++) {
		if (d->args[i].fmt == CUA_FMT_STRING) {
			/* Length byte, then the bytes: make them a C string in place of the length. */
			size_t n = (unsigned char)strings[0];
			char *copy = strings;

			memmove(copy, strings + 1, n);
			copy[n] = '\0';
			memcpy(args + d->args[i].offset, &copy, sizeof(copy));
			strings += 1 + n;
		}
	}
	b = cua_writer_room(w, 4096);
	cua_buf_str(b, ",\n{\"name\":\"");
	cua_buf_str(b, d->elf_name);
	cua_buf_str(b, d->layer == CUAUDIT_LAYER_DRIVER ? "\",\"cat\":\"driver\"" : "\",\"cat\":\"runtime\"");
	cua_buf_str(b, ",\"ph\":\"X\",\"ts\":");
	put_us(b, r->t_start);
	cua_buf_str(b, ",\"dur\":");
	put_us(b, r->t_end - r->t_start);
	cua_buf_str(b, ",\"pid\":");
	cua_buf_u64(b, pid);
	cua_buf_str(b, ",\"tid\":");
	cua_buf_u64(b, r->tid);
	cua_buf_str(b, ",\"args\":{");
	format_args_json(b, &c, r, (const char *)r + round8((size_t)(strings - (char *)r)));
	{
		struct cua_buf v = CUA_BUF(val);

		cua_callfmt_result(&v, &c);
		cua_buf_str(b, "\"result\":\"");
		cua_buf_json(b, val, v.len);
	}
	cua_buf_str(b, "\",\"binding\":\"");
	cua_buf_str(b, cua_binding_names[c.binding < CUAUDIT_BIND_COUNT ? c.binding : 0]);
	if (c.binding == CUAUDIT_BIND_ENTRY) {
		/* Which copy: its name when this process patched it, else its index. */
		unsigned copy = r->binding >> CUA_REC_KIND_BITS;

		cua_buf_str(b, "\",\"object\":\"");
		if (cua_entry_names[copy][0]) {
			cua_buf_json(b, cua_entry_names[copy], strlen(cua_entry_names[copy]));
		} else {
			cua_buf_char(b, '#');
			cua_buf_u64(b, copy);
		}
	}
	/* How deep in other CUDA calls (0: the program's own call): a sum of top-level calls'
	   times counts a runtime call's driver calls once. */
	cua_buf_str(b, "\",\"depth\":");
	cua_buf_u64(b, r->depth);
	cua_buf_str(b, c.skipped ? ",\"skipped\":true}}" : "}}");
	note_thread(r->tid);
}

/* A record that is no call (CUA_TRACE_ID_NAME, CUA_TRACE_ID_MARK): its text is in bounds. */
static int text_record(const struct cua_rec_head *r, const char **text, size_t *n)
{
	const char *p = (const char *)(r + 1);

	if (r->size < sizeof(*r) + 1 || (size_t)(r->size - sizeof(*r)) < 1 + (size_t)(unsigned char)p[0])
		return 0;
	*n = (unsigned char)p[0];
	*text = p + 1;
	return 1;
}

static void format_special(struct cua_writer *w, const struct cua_rec_head *r, uint64_t pid)
{
	const char *text;
	size_t n;
	int i;

	if (!text_record(r, &text, &n))
		return;
	if (r->id == CUA_TRACE_ID_NAME) {
		i = note_thread(r->tid);
		if (i >= 0 && n) {
			n = n < RECORDED_NAME_MAX ? n : RECORDED_NAME_MAX;
			memcpy(seen_names[i], text, n);
			seen_nlen[i] = (uint8_t)cua_utf8_whole(seen_names[i], n);
		}
	} else {
		struct cua_buf *b = cua_writer_room(w, 512);

		cua_buf_str(b, ",\n{\"name\":\"cuaudit: ");
		cua_buf_json(b, text, n);
		cua_buf_str(b, "\",\"cat\":\"cuaudit\",\"ph\":\"i\",\"s\":\"p\",\"ts\":");
		put_us(b, r->t_start);
		cua_buf_str(b, ",\"pid\":");
		cua_buf_u64(b, pid);
		cua_buf_str(b, ",\"tid\":");
		cua_buf_u64(b, r->tid);
		cua_buf_str(b, "}");
	}
}

/* An NVTX range (or mark) on its thread's track: nested X events; a start/end range as an
   async pair, since it need not nest with the thread's calls. */
static void format_nvtx(struct cua_writer *w, const struct cua_rec_head *r, uint64_t pid)
{
	const char *name = (const char *)(r + 1) + 1, *domain = name + (unsigned char)name[-1] + 1;
	size_t nlen = (unsigned char)name[-1], dlen = (unsigned char)domain[-1];
	struct cua_buf *b = cua_writer_room(w, 4096);
	int mark = r->depth == 0, async = r->depth == 1;

	for (int half = 0; half < (async ? 2 : 1); half++) {
		cua_buf_str(b, ",\n{\"name\":\"");
		cua_buf_json(b, name, nlen);
		cua_buf_str(b, "\",\"cat\":\"nvtx\",\"ph\":\"");
		cua_buf_str(b, mark ? "i\",\"s\":\"t" : async ? (half ? "e" : "b") : "X");
		cua_buf_str(b, "\",\"ts\":");
		put_us(b, half ? r->t_end : r->t_start);
		if (!mark && !async) {
			cua_buf_str(b, ",\"dur\":");
			put_us(b, r->t_end - r->t_start);
		}
		if (async) {
			cua_buf_str(b, ",\"id\":\"");
			cua_buf_hex(b, r->t_start);
			cua_buf_char(b, '"');
		}
		cua_buf_str(b, ",\"pid\":");
		cua_buf_u64(b, pid);
		cua_buf_str(b, ",\"tid\":");
		cua_buf_u64(b, r->tid);
		cua_buf_str(b, ",\"args\":{\"domain\":\"");
		cua_buf_json(b, domain, dlen);
		if (!mark && !async) {
			cua_buf_str(b, "\",\"level\":");
			cua_buf_u64(b, r->depth - CUA_TRACE_NVTX_LEVEL0);
			cua_buf_str(b, "}}");
		} else {
			cua_buf_str(b, "\"}}");
		}
	}
	note_thread(r->tid);
}

static int valid_nvtx(const struct cua_rec_head *r)
{
	const char *p = (const char *)(r + 1), *end = (const char *)r + r->size;

	for (int i = 0; i < 2; i++) {
		if (p >= end || (size_t)(end - p) < 1 + (size_t)(unsigned char)p[0])
			return 0;
		p += 1 + (unsigned char)p[0];
	}
	return r->t_end >= r->t_start;
}

/* A record the reader can walk over: sized within the block. One it can trust (valid): a
   known id, room for its argument struct, and every length and flag inside it in bounds: each string's length byte, each
   out-value its CUA_REC_OUT flag announces (only for out-parameters, at most CUA_TRACE_MAX_OUTS),
   the kernel name. The formatter then reads nothing outside [r, r + r->size). */
static int sized(const struct cua_rec_head *r, size_t left)
{
	return r->size >= sizeof(*r) && r->size <= left && (r->size & 7) == 0;
}

static int valid(const struct cua_rec_head *r)
{
	const struct cua_api_desc *d;
	const char *end, *p;
	unsigned outs = 0;

	if (r->id >= CUAUDIT_ID_COUNT || sizeof(*r) + cua_trace_args_size[r->id] > r->size)
		return 0;
	d = &cua_api[r->id];
	end = (const char *)r + r->size;
	p = (const char *)(r + 1) + cua_trace_args_size[r->id];
	for (unsigned i = 0; i < d->nargs; i++) {
		if (d->args[i].fmt != CUA_FMT_STRING)
			continue;
		if (p >= end || (size_t)(end - p) < 1 + (size_t)(unsigned char)p[0])
			return 0;
		p += 1 + (unsigned char)p[0];
	}
	if (round8((size_t)(p - (const char *)r)) > r->size)
		return 0;
	p = (const char *)r + round8((size_t)(p - (const char *)r));
	for (unsigned i = 0; i < CUA_REC_OUT_ARGS; i++) {
		if (!(r->flags & CUA_REC_OUT(i)))
			continue;
		if (i >= d->nargs || !d->args[i].out || ++outs > CUA_TRACE_MAX_OUTS)
			return 0;
	}
	if ((size_t)(end - p) < (size_t)outs * CUA_TRACE_OUT_BYTES)
		return 0;
	p += (size_t)outs * CUA_TRACE_OUT_BYTES;
	if (r->flags & CUA_REC_KERNEL)
		return p < end && (size_t)(end - p) >= 1 + (size_t)(unsigned char)p[0];
	return 1;
}

size_t cua_tracefmt_records(struct cua_writer *w, char *p, size_t n, uint64_t pid)
{
	size_t done = 0;

	while (n - done >= sizeof(struct cua_rec_head)) {
		struct cua_rec_head *r = (struct cua_rec_head *)(p + done);

		if (!sized(r, n - done))
			break;
		/* A damaged record is left out whole; its neighbours are still good. */
		if (r->id == CUA_TRACE_ID_NAME || r->id == CUA_TRACE_ID_MARK) {
			format_special(w, r, pid);
		} else if (r->id == CUA_TRACE_NVTX_ID) {
			if (valid_nvtx(r))
				format_nvtx(w, r, pid);
		} else if (valid(r)) {
			format_record(w, r, pid);
		}
		done += r->size;
	}
	return done;
}

static uint64_t last_time(const char *p, size_t n)
{
	uint64_t t = 0;

	for (size_t at = 0; n - at >= sizeof(struct cua_rec_head);) {
		const struct cua_rec_head *r = (const struct cua_rec_head *)(p + at);

		if (!sized(r, n - at))
			break;
		if (valid(r))
			t = r->t_end > t ? r->t_end : t;
		at += r->size;
	}
	return t;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

unsigned cua_tracefmt_raw(struct cua_writer *w, int fd, char *window, size_t cap, uint64_t pid,
			  int *end, uint64_t *last_ns)
{
	return cua_tracefmt_raw_until(w, fd, window, cap, pid, end, last_ns, 0, NULL);
}

/* The offset of the first 8-byte word from at (a multiple of 8 from the file's start, as
   every block is) that is not zero, or size; read through window. */
static uint64_t past_zeros(int fd, uint64_t at, uint64_t size, char *window, size_t cap)
{
	cap &= ~(size_t)7;
	while (at < size && cap) {
		size_t n = size - at < cap ? (size_t)(size - at) : cap, i;
		ssize_t got = pread(fd, window, n, (off_t)at);

		if (got <= 0)
			return at;
		for (i = 0; i + 8 <= (size_t)got; i += 8) {
			uint64_t w;

			memcpy(&w, window + i, 8);
			if (w)
				return at + i;
		}
		if (i == 0)
			return at;
		at += i;
	}
	return at < size ? at : size;
}

unsigned cua_tracefmt_raw_until(struct cua_writer *w, int fd, char *window, size_t cap,
				uint64_t pid, int *end, uint64_t *last_ns, uint64_t deadline_ns,
				int *late)
{
	uint64_t at = sizeof(struct cua_raw_head), size;
	unsigned skipped = 0;
	struct cua_block_head h;
	struct stat st;

	*end = 0;
	/* Every length is held against the file's size, taken once: a block that claims more
	   than is left ends the reading, and each step moves forward by at least a block head,
	   so the loop ends on any file (a length of 2^64-16 once made it go round forever). */
	if (fstat(fd, &st) != 0 || st.st_size < 0)
		return 0;
	size = (uint64_t)st.st_size;
	while (size - at >= sizeof(h) && at <= size &&
	       pread(fd, &h, sizeof(h), (off_t)at) == (ssize_t)sizeof(h)) {
		/* The clock once a block (a block is at most a thread buffer, 1 MiB). */
		if (deadline_ns && monotonic_ns() >= deadline_ns) {
			*late = 1;
			break;
		}
		if (h.magic != CUA_BLOCK_MAGIC) {
			uint64_t next;

			/* A place a writer took and never wrote (killed, or jumped out of by a
			   signal handler, before the block's head) reads as zeros up to the next
			   block's head: skipped, and counted. Anything else ends the reading. */
			if (h.magic || h.state || h.len ||
			    (next = past_zeros(fd, at, size, window, cap)) == at)
				break;
			skipped++;
			at = next;
			continue;
		}
		at += sizeof(h);
		if (h.state == CUA_BLOCK_LIMIT || h.state == CUA_BLOCK_EXITED) {
			*end = (int)h.state;
			break;
		}
		if (h.len > size - at) {
			skipped++; /* cut short by the end of the file */
			break;
		}
		if (h.state != CUA_BLOCK_COMPLETE || h.len > cap ||
		    pread(fd, window, h.len, (off_t)at) != (ssize_t)h.len) {
			skipped++;
		} else {
			uint64_t t = last_time(window, h.len);

			*last_ns = t > *last_ns ? t : *last_ns;
			cua_tracefmt_records(w, window, h.len, pid);
		}
		at += h.len;
	}
	return skipped;
}
