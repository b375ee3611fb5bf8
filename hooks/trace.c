/* SPDX-License-Identifier: MIT */
/* hooks/trace.c: the CUAUDIT_TRACE hook: binary records per call, written out as Chrome trace JSON at exit. */
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "dispatch.h"
#include "hooks.h"
#include "kernels.h"
#include "provenance.h"
#include "log.h"
#include "out.h"
#include "table.h"
#include "writer.h"

/* A call costs a copy of its arguments into the thread's buffer; the JSON is formatted once,
   at exit. Each thread buffers up to 1 MiB and appends full buffers to a spill file beside
   the trace, so memory stays bounded at 1 MiB per thread that calls CUDA. */
#define TBUF_SIZE (1u << 20)
#define CUA_TRACE_MAX_OUTS 8
#define STR_MAX 63

enum { IDLE = 0, FLUSHING = 1, CLOSED = 2 };

/* One call. Followed by the argument struct, then each string argument as a length byte and
   its bytes; the size is a multiple of 8 so the next record's struct stays aligned. */
struct rec {
	uint16_t size;
	uint16_t id;
	uint8_t binding;
	uint8_t skipped;
	uint16_t depth;
	uint32_t tid;
	uint32_t extras; /* bit i: argument i's value after the call follows; KERNEL_BIT: a name */
	uint64_t t_enter, t_exit, result;
};

/* After the strings, 8-aligned: 16 bytes per out-parameter value, then the kernel name. */
#define KERNEL_BIT (1u << 31)
#define OUT_BYTES 16

struct tbuf {
	struct tbuf *next;
	uint64_t pid;
	int state;        /* IDLE, FLUSHING (its thread writes it out), CLOSED (exit has) */
	size_t committed; /* bytes of whole records */
	_Alignas(8) char data[];
};

static struct tbuf *all_buffers;
static __thread struct tbuf *mine __attribute__((tls_model("initial-exec")));
static uint16_t args_size[CUAUDIT_ID_COUNT];
static uint8_t has_out[CUAUDIT_ID_COUNT];
static int spill_fd = -1;
static uint64_t spill_pid;
static int spill_lock;
static char spill_path[CUA_PATH_MAX + 32];

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* The trace file name for this process, and its spill file beside it. */
static int trace_path(char *path, size_t cap)
{
	char host[256];

	if (gethostname(host, sizeof(host)) != 0)
		memcpy(host, "unknown", 8);
	host[sizeof(host) - 1] = '\0';
	return cua_fmt_path(path, cap, cua_cfg.trace, cua_process_id(), host) < 0 ? -1 : 0;
}

static int spill_file(void)
{
	uint64_t pid = cua_process_id();

	if (CUA_LIKELY(__atomic_load_n(&spill_pid, __ATOMIC_ACQUIRE) == pid))
		return spill_fd;
	while (__atomic_exchange_n(&spill_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	if (spill_pid != pid) {
		char path[CUA_PATH_MAX];
		struct cua_buf b = CUA_BUF(spill_path);

		spill_fd = -1;
		if (trace_path(path, sizeof(path)) == 0) {
			/* A forked child gets its own spill file, whatever the trace's name. */
			cua_buf_str(&b, path);
			cua_buf_char(&b, '.');
			cua_buf_u64(&b, pid);
			cua_buf_str(&b, ".raw");
			spill_path[b.len < sizeof(spill_path) ? b.len : sizeof(spill_path) - 1] = '\0';
			/* O_EXCL: a file already there (a crashed run's spill) is not ours to
			   overwrite; without a spill file, full buffers are dropped. */
			spill_fd = open(spill_path, O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC |
						    O_NOFOLLOW, 0600);
			if (spill_fd < 0)
				cua_log_msg(CUA_LOG_WARN, "cannot create the trace spill file ",
					    spill_path, NULL);
		}
		__atomic_store_n(&spill_pid, pid, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&spill_lock, 0, __ATOMIC_RELEASE);
	return spill_fd;
}

static struct tbuf *thread_buffer(void)
{
	struct tbuf *t = mine;
	uint64_t pid = cua_process_id();

	if (CUA_LIKELY(t && t->pid == pid))
		return t;
	t = mmap(NULL, sizeof(*t) + TBUF_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return NULL;
	t->pid = pid;
	t->next = __atomic_load_n(&all_buffers, __ATOMIC_ACQUIRE);
	while (!__atomic_compare_exchange_n(&all_buffers, &t->next, t, 1, __ATOMIC_RELEASE,
					    __ATOMIC_ACQUIRE))
		;
	mine = t;
	return t;
}

static int flush_own(struct tbuf *t)
{
	int idle = IDLE;
	int fd = spill_file();

	if (!__atomic_compare_exchange_n(&t->state, &idle, FLUSHING, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return -1;
	if (fd >= 0)
		write_all(fd, t->data, t->committed);
	__atomic_store_n(&t->committed, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&t->state, IDLE, __ATOMIC_RELEASE);
	return 0;
}

static size_t string_len(const char *s)
{
	size_t n = 0;

	while (s && n < STR_MAX && s[n])
		n++;
	return n;
}

/* What a record carries beyond the arguments: values the call wrote through its
   out-parameters (read now, while the caller's memory is live) and the kernel's name. */
struct extras {
	uint32_t bits;
	unsigned n;
	uint64_t out[CUA_TRACE_MAX_OUTS][2];
	const char *kernel;
};

static size_t capture_extras(const struct cuaudit_call *c, struct extras *ex)
{
	const struct cua_api_desc *d = &cua_api[c->id];

	ex->n = 0;
	for (unsigned i = 0; has_out[c->id] && i < d->nargs && i < 31; i++)
		if (ex->n < CUA_TRACE_MAX_OUTS && cua_log_out_value(c, i, ex->out[ex->n])) {
			ex->bits |= 1u << i;
			ex->n++;
		}
	ex->kernel = cua_kernels_is_launch(c->id) ? cua_kernels_of_call(c) : NULL;
	if (ex->kernel)
		ex->bits |= KERNEL_BIT;
	return ex->n * OUT_BYTES + (ex->kernel ? sizeof(ex->kernel) : 0);
}

static void put_extras(char *p, const struct extras *ex)
{
	memcpy(p, ex->out, ex->n * OUT_BYTES);
	if (ex->kernel)
		memcpy(p + ex->n * OUT_BYTES, &ex->kernel, sizeof(ex->kernel));
}

static void trace_exit(const struct cuaudit_call *c, void *ctx)
{
	const struct cua_api_desc *d = &cua_api[c->id];
	struct tbuf *t = thread_buffer();
	size_t need = sizeof(struct rec) + args_size[c->id], at;
	struct rec *r;
	struct extras ex;
	char *p;

	(void)ctx;
	ex.bits = 0;
	if (CUA_UNLIKELY(!t))
		return;
	for (unsigned i = 0; i < d->nargs; i++) {
		if (d->args[i].fmt == CUA_FMT_STRING) {
			const char *s;

			memcpy(&s, (const char *)c->args + d->args[i].offset, sizeof(s));
			need += 1 + string_len(s);
		}
	}
	need = round8(need);
	if (has_out[c->id] || cua_kernels_is_launch(c->id))
		need += capture_extras(c, &ex);
	if (CUA_UNLIKELY(__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != IDLE))
		return;
	if (CUA_UNLIKELY(t->committed + need > TBUF_SIZE) && flush_own(t) != 0)
		return;
	at = t->committed;
	r = (struct rec *)(t->data + at);
	r->size = (uint16_t)need;
	r->id = (uint16_t)c->id;
	r->binding = (uint8_t)c->binding;
	r->skipped = (uint8_t)c->skipped;
	r->depth = (uint16_t)c->depth;
	r->tid = (uint32_t)c->thread_id;
	r->t_enter = c->t_enter_ns;
	r->t_exit = c->t_exit_ns;
	r->result = c->result;
	r->extras = ex.bits;
	p = (char *)(r + 1);
	if (args_size[c->id])
		memcpy(p, c->args, args_size[c->id]);
	p += args_size[c->id];
	for (unsigned i = 0; i < d->nargs; i++) {
		if (d->args[i].fmt == CUA_FMT_STRING) {
			const char *s;
			size_t n;

			memcpy(&s, (const char *)c->args + d->args[i].offset, sizeof(s));
			n = string_len(s);
			*p++ = (char)n;
			memcpy(p, s, n);
			p += n;
		}
	}
	if (ex.bits)
		put_extras((char *)r + round8((size_t)(p - (char *)r)), &ex);
	__atomic_store_n(&t->committed, at + need, __ATOMIC_RELEASE);
}

/* ---------------------------------------------------------------- JSON, at exit */

static void json_escaped(struct cua_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			cua_buf_char(b, '\\');
			cua_buf_char(b, (char)c);
		} else if (c < 0x20) {
			char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

			cua_buf_mem(b, esc, sizeof(esc));
		} else {
			cua_buf_char(b, (char)c);
		}
	}
}

static void put_us(struct cua_buf *b, uint64_t ns)
{
	cua_buf_u64(b, ns / 1000);
	cua_buf_char(b, '.');
	cua_buf_u64_pad(b, ns % 1000, 3);
}

static const char *const bind_names[CUAUDIT_BIND_COUNT] = { "plt", "bindnow", "dlsym",
							    "procaddress", "got", "entry" };

/* The arguments as JSON members: numbers as numbers, everything else as the log's text; an
   out-parameter shows the value the call wrote, where the record has it. 'end' is where the
   record's strings end, before they were made C strings in place. */
static void format_args_json(struct cua_buf *b, const struct cuaudit_call *c, const struct rec *r,
			     const char *end)
{
	const struct cua_api_desc *d = &cua_api[c->id];
	const char *extras = (const char *)r + round8((size_t)(end - (const char *)r));
	char val[512];

	for (unsigned i = 0; i < d->nargs; i++) {
		struct cua_buf v = CUA_BUF(val);
		const uint64_t *out = NULL;
		uint64_t copy[2];
		int number;

		if (d->args[i].fmt == CUA_FMT_SKIP)
			continue;
		if (i < 31 && (r->extras & (1u << i))) {
			memcpy(copy, extras, sizeof(copy));
			extras += OUT_BYTES;
			out = copy;
		}
		number = cua_log_format_arg_value(&v, c, i, out, 0);
		cua_buf_char(b, '"');
		cua_buf_str(b, d->args[i].name);
		cua_buf_str(b, number ? "\":" : "\":\"");
		/* A string argument is already a JSON string: without the log's quotes. */
		if (!number && v.len >= 2 && val[0] == '"' && val[v.len - 1] == '"')
			json_escaped(b, val + 1, v.len - 2);
		else
			json_escaped(b, val, v.len);
		cua_buf_str(b, number ? "," : "\",");
	}
	if (r->extras & KERNEL_BIT) {
		const char *name;

		memcpy(&name, extras, sizeof(name));
		cua_buf_str(b, "\"kernel_name\":\"");
		json_escaped(b, name, strlen(name));
		cua_buf_str(b, "\",");
	}
}

/* Thread ids seen while formatting, for their thread_name events. */
#define MAX_NAMED_THREADS 4096
static uint32_t seen_tids[MAX_NAMED_THREADS];
static unsigned nseen;

static void note_thread(uint32_t tid)
{
	for (unsigned i = nseen; i > 0; i--)
		if (seen_tids[i - 1] == tid)
			return;
	if (nseen < MAX_NAMED_THREADS)
		seen_tids[nseen++] = tid;
}

/* Metadata events: the process carries the program's name, each thread its name from
   /proc/self/task/TID/comm (read now, at exit, never on the call path; a thread that has
   ended is named by its id). */
static void write_names(struct cua_writer *w, uint64_t pid)
{
	struct cua_buf *b = cua_writer_room(w, 1024);
	const char *prog = cua_provenance_program();

	cua_buf_str(b, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":");
	cua_buf_u64(b, pid);
	cua_buf_str(b, ",\"args\":{\"name\":\"");
	json_escaped(b, prog, strlen(prog));
	cua_buf_str(b, "\"}}");
	for (unsigned i = 0; i < nseen; i++) {
		char name[64];
		size_t n = cua_provenance_thread_name(seen_tids[i], name, sizeof(name));

		b = cua_writer_room(w, 256);
		cua_buf_str(b, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":");
		cua_buf_u64(b, pid);
		cua_buf_str(b, ",\"tid\":");
		cua_buf_u64(b, seen_tids[i]);
		cua_buf_str(b, ",\"args\":{\"name\":\"");
		json_escaped(b, name, n);
		cua_buf_str(b, "\"}}");
	}
}

/* Rebuilds the call from a record: string arguments point at their copies. */
static void format_record(struct cua_writer *w, struct rec *r, uint64_t pid)
{
	const struct cua_api_desc *d;
	struct cuaudit_call c;
	char *args = (char *)(r + 1), *strings = args + args_size[r->id];
	char val[512];
	struct cua_buf *b;

	if (r->id >= CUAUDIT_ID_COUNT)
		return;
	d = &cua_api[r->id];
	memset(&c, 0, sizeof(c));
	c.id = r->id;
	c.elf_name = d->elf_name;
	c.layer = (enum cuaudit_layer)d->layer;
	c.binding = (enum cuaudit_binding)r->binding;
	c.args = args_size[r->id] ? args : NULL;
	c.result = r->result;
	c.skipped = r->skipped;
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
	put_us(b, r->t_enter);
	cua_buf_str(b, ",\"dur\":");
	put_us(b, r->t_exit - r->t_enter);
	cua_buf_str(b, ",\"pid\":");
	cua_buf_u64(b, pid);
	cua_buf_str(b, ",\"tid\":");
	cua_buf_u64(b, r->tid);
	cua_buf_str(b, ",\"args\":{");
	format_args_json(b, &c, r, strings);
	{
		struct cua_buf v = CUA_BUF(val);

		cua_log_format_result(&v, &c);
		cua_buf_str(b, "\"result\":\"");
		json_escaped(b, val, v.len);
	}
	cua_buf_str(b, "\",\"binding\":\"");
	cua_buf_str(b, bind_names[r->binding < CUAUDIT_BIND_COUNT ? r->binding : 0]);
	cua_buf_str(b, r->skipped ? "\",\"skipped\":true}}" : "\"}}");
	note_thread(r->tid);
}

/* Formats the whole records in p[0, n); returns how many bytes they took. */
static size_t format_records(struct cua_writer *w, char *p, size_t n, uint64_t pid)
{
	size_t done = 0;

	while (n - done >= sizeof(struct rec)) {
		struct rec *r = (struct rec *)(p + done);

		if (r->size < sizeof(*r) || r->size > n - done)
			break;
		format_record(w, r, pid);
		done += r->size;
	}
	return done;
}

/* The spill file, read back through one buffer-sized window so that memory stays bounded
   however long the run was. A record cut at the window's end moves to its start. */
static void format_spill(struct cua_writer *w, int fd, struct tbuf *window, uint64_t pid)
{
	size_t have = 0;
	off_t at = 0;

	for (;;) {
		ssize_t n = pread(fd, window->data + have, TBUF_SIZE - have, at);
		size_t used;

		if (n <= 0)
			break;
		at += n;
		have += (size_t)n;
		used = format_records(w, window->data, have, pid);
		if (used == 0 && have == TBUF_SIZE)
			break; /* a record larger than the window: the file is damaged */
		memmove(window->data, window->data + used, have - used);
		have -= used;
	}
}

/* At exit, from whichever thread calls exit(): the spill file, then every buffer of this
   process, become the JSON; events after this point are dropped. */
static void trace_finish(void)
{
	static struct cua_writer w;
	uint64_t pid = cua_process_id();
	char path[CUA_PATH_MAX], head[256];
	struct cua_buf h = CUA_BUF(head);
	int spill = spill_file(), fd;
	struct stat st;

	if ((fd = cua_writer_open(cua_cfg.trace, "{\"displayTimeUnit\":\"ns\",\"traceEvents\"", path,
				  sizeof(path))) < 0) {
		cua_log_msg(CUA_LOG_ERROR, "cannot write the trace to CUAUDIT_TRACE=", cua_cfg.trace,
			    NULL);
		return;
	}
	cua_writer_init(&w, fd);
	cua_buf_str(&h, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n{\"name\":\"process_labels\","
			"\"ph\":\"M\",\"pid\":");
	cua_buf_u64(&h, pid);
	cua_buf_str(&h, ",\"args\":{\"labels\":\"cuaudit " CUAUDIT_VERSION "\"}}");
	cua_buf_mem(cua_writer_room(&w, h.len), head, h.len);
	for (struct tbuf *t = __atomic_load_n(&all_buffers, __ATOMIC_ACQUIRE); t; t = t->next) {
		int idle = IDLE;

		if (t->pid != pid)
			continue;
		while (!__atomic_compare_exchange_n(&t->state, &idle, CLOSED, 0, __ATOMIC_ACQ_REL,
						    __ATOMIC_ACQUIRE)) {
			if (idle == CLOSED)
				break;
			idle = IDLE;
			sched_yield();
		}
		if (idle != CLOSED)
			format_records(&w, t->data, __atomic_load_n(&t->committed, __ATOMIC_ACQUIRE),
				       pid);
	}
	if (spill >= 0 && fstat(spill, &st) == 0 && st.st_size > 0) {
		/* The exiting thread's own buffer is written out by now: reuse it as the window. */
		struct tbuf *window = thread_buffer();

		if (window)
			format_spill(&w, spill, window, pid);
	}
	write_names(&w, pid);
	cua_buf_str(cua_writer_room(&w, 8), "\n]}\n");
	cua_writer_flush(&w);
	close(fd);
	cua_log_msg(CUA_LOG_INFO, "trace written to ", path, NULL);
	if (spill >= 0) {
		close(spill);
		unlink(spill_path);
	}
}

int cua_trace_init(void)
{
	static unsigned ids[CUAUDIT_ID_COUNT];
	/* CUAUDIT_INCLUDE/EXCLUDE: the trace records only the ids they leave. */
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = trace_exit, .ids = ids,
		     .nids = cua_config_filter_ids(&cua_cfg, ids), .flags = CUAUDIT_SUB_TIMES);

	if (!cua_cfg.trace[0])
		return 0;
	for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++) {
		size_t end = 0;

		for (unsigned i = 0; i < cua_api[id].nargs; i++) {
			size_t e = (size_t)cua_api[id].args[i].offset + cua_api[id].args[i].size;

			end = e > end ? e : end;
		}
		args_size[id] = (uint16_t)round8(end);
		for (unsigned i = 0; i < cua_api[id].nargs; i++)
			has_out[id] |= cua_api[id].args[i].out;
	}
	cua_finish_add(trace_finish);
	return cua_dispatch_subscribe(&sub);
}
