/* SPDX-License-Identifier: MIT */
/* hooks/trace.c: the CUAUDIT_TRACE hook: one Chrome trace event per call, from bounded per-thread buffers. */
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "config.h"
#include "dispatch.h"
#include "hooks.h"
#include "log.h"
#include "out.h"
#include "table.h"
#include "writer.h"

/* Each thread buffers up to this much and writes it out when three quarters are used:
   the trace costs at most 1 MiB of memory per thread that calls CUDA. */
#define TBUF_SIZE (1u << 20)
#define TBUF_FLUSH (TBUF_SIZE / 4 * 3)
#define EVENT_MAX 4096

enum { IDLE = 0, FLUSHING = 1, CLOSED = 2 };

struct tbuf {
	struct tbuf *next;
	uint64_t pid;
	int state;          /* IDLE, FLUSHING (its thread writes it out), CLOSED (exit has) */
	size_t committed;   /* bytes of whole events */
	char data[];
};

static struct tbuf *all_buffers;
static __thread struct tbuf *mine __attribute__((tls_model("initial-exec")));
static int trace_fd = -1;
static uint64_t trace_pid; /* the process that opened trace_fd */
static int open_lock;

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

/* Opens this process's file, writing the head; a forked child opens its own (name with %p). */
static int trace_file(void)
{
	uint64_t pid = cua_process_id();
	int fd;

	if (CUA_LIKELY(__atomic_load_n(&trace_pid, __ATOMIC_ACQUIRE) == pid))
		return trace_fd;
	while (__atomic_exchange_n(&open_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	if (trace_pid != pid) {
		char path[CUA_PATH_MAX];
		char head[256];
		struct cua_buf b = CUA_BUF(head);

		fd = cua_writer_open(cua_cfg.trace, path, sizeof(path));
		if (fd < 0)
			cua_log_msg(CUA_LOG_ERROR, "cannot write the trace to CUAUDIT_TRACE=",
				    cua_cfg.trace, NULL);
		/* Every later event starts with ",\n": the first one is this metadata event. */
		cua_buf_str(&b, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n{\"name\":"
				"\"process_name\",\"ph\":\"M\",\"pid\":");
		cua_buf_u64(&b, pid);
		cua_buf_str(&b, ",\"args\":{\"name\":\"cuaudit\"}}");
		if (fd >= 0)
			write_all(fd, head, b.len);
		trace_fd = fd;
		__atomic_store_n(&trace_pid, pid, __ATOMIC_RELEASE);
	}
	fd = trace_fd;
	__atomic_store_n(&open_lock, 0, __ATOMIC_RELEASE);
	return fd;
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

static void flush_own(struct tbuf *t)
{
	int idle = IDLE;
	int fd = trace_file();

	if (!__atomic_compare_exchange_n(&t->state, &idle, FLUSHING, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	if (fd >= 0)
		write_all(fd, t->data, t->committed);
	__atomic_store_n(&t->committed, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&t->state, IDLE, __ATOMIC_RELEASE);
}

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
							    "procaddress", "got" };

static size_t format_event(char *out, size_t cap, const struct cuaudit_call *c, uint64_t pid)
{
	struct cua_buf b = { out, 0, cap, 0 };
	const struct cua_api_desc *d = &cua_api[c->id];
	char val[512];

	cua_buf_str(&b, ",\n{\"name\":\"");
	cua_buf_str(&b, c->elf_name);
	cua_buf_str(&b, d->layer == CUAUDIT_LAYER_DRIVER ? "\",\"cat\":\"driver\"" : "\",\"cat\":\"runtime\"");
	cua_buf_str(&b, ",\"ph\":\"X\",\"ts\":");
	put_us(&b, c->t_enter_ns);
	cua_buf_str(&b, ",\"dur\":");
	put_us(&b, c->t_exit_ns - c->t_enter_ns);
	cua_buf_str(&b, ",\"pid\":");
	cua_buf_u64(&b, pid);
	cua_buf_str(&b, ",\"tid\":");
	cua_buf_u64(&b, c->thread_id);
	cua_buf_str(&b, ",\"args\":{");
	for (unsigned i = 0; i < d->nargs; i++) {
		struct cua_buf v = CUA_BUF(val);

		cua_log_format_arg(&v, c, i);
		cua_buf_str(&b, "\"");
		cua_buf_str(&b, d->args[i].name);
		cua_buf_str(&b, "\":\"");
		json_escaped(&b, val, v.len);
		cua_buf_str(&b, "\",");
	}
	{
		struct cua_buf v = CUA_BUF(val);

		cua_log_format_result(&v, c);
		cua_buf_str(&b, "\"result\":\"");
		json_escaped(&b, val, v.len);
	}
	cua_buf_str(&b, "\",\"binding\":\"");
	cua_buf_str(&b, bind_names[c->binding]);
	cua_buf_str(&b, c->skipped ? "\",\"skipped\":true}}" : "\"}}");
	return b.truncated ? 0 : b.len;
}

static void trace_exit(const struct cuaudit_call *c, void *ctx)
{
	struct tbuf *t = thread_buffer();
	size_t at, n;

	(void)ctx;
	if (CUA_UNLIKELY(!t || __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != IDLE))
		return;
	at = t->committed;
	n = format_event(t->data + at, TBUF_SIZE - at, c, t->pid);
	if (!n)
		return;
	__atomic_store_n(&t->committed, at + n, __ATOMIC_RELEASE);
	if (at + n > TBUF_FLUSH)
		flush_own(t);
}

/* At exit, from whichever thread calls exit(): every buffer of this process is written
   once, then the closing brackets. Events after this point are dropped. */
static void trace_finish(void)
{
	uint64_t pid = cua_process_id();
	int fd = trace_file();

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
		if (idle != CLOSED && fd >= 0)
			write_all(fd, t->data, __atomic_load_n(&t->committed, __ATOMIC_ACQUIRE));
	}
	if (fd >= 0) {
		write_all(fd, "\n]}\n", 4);
		close(fd);
	}
}

int cua_trace_init(void)
{
	CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = trace_exit);

	if (!cua_cfg.trace[0])
		return 0;
	cua_finish_add(trace_finish);
	return cua_dispatch_subscribe(&sub);
}
