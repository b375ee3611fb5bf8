/* SPDX-License-Identifier: MIT */
/* loader/provenance.c: records which host, process, command and versions a report describes. */
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include "cua_version.h"
#include "cuaudit.h"
#include "cuaudit_ids.h"
#include "process.h"
#include "index.h"
#include "procaddress.h"
#include "provenance.h"

#define CMDLINE_MAX 4096

static char command[CMDLINE_MAX] = "(unknown)";
static char program[256] = "(unknown)";
static uint64_t start_ns;
/* CLOCK_REALTIME and CLOCK_MONOTONIC at one moment: the monotonic reading is the middle of
   two taken around the real-time one. */
static uint64_t anchor_rt, anchor_mono;
/* Noted versions, plus one: 0 means none seen. */
static int noted[2];

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void cua_provenance_anchor(uint64_t *realtime_ns, uint64_t *monotonic_ns)
{
	*realtime_ns = anchor_rt;
	*monotonic_ns = anchor_mono;
}

/* This image of the process: random, taken at load. With the pid it tells two summaries
   apart that pid, host and start second cannot (a launcher and the program it exec'd in the
   same second), so `cuaudit report` counts one process once and two images twice. */
static uint64_t image;

void cua_provenance_init(void)
{
	char raw[CMDLINE_MAX];
	ssize_t n = 0;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	{
		uint64_t m0 = clock_ns(CLOCK_MONOTONIC), rt = clock_ns(CLOCK_REALTIME);
		uint64_t m1 = clock_ns(CLOCK_MONOTONIC);

		anchor_rt = start_ns = rt;
		anchor_mono = m0 + (m1 - m0) / 2;
	}
	if (getrandom(&image, sizeof(image), GRND_NONBLOCK) != (ssize_t)sizeof(image)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		image = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^ ((uint64_t)getpid() << 40);
	}
	if (fd >= 0) {
		n = read(fd, raw, sizeof(raw) - 1);
		close(fd);
	}
	while (n > 0 && raw[n - 1] == '\0')
		n--;
	/* A command line longer than the buffer ends on a whole character. */
	if (n == (ssize_t)sizeof(raw) - 1)
		n = (ssize_t)cua_utf8_whole(raw, (size_t)n);
	if (n <= 0)
		return;
	raw[n] = '\0';
	/* argv[0] is the first NUL-terminated field; its last component names the program. */
	{
		const char *slash = strrchr(raw, '/');
		const char *base = slash ? slash + 1 : raw;
		size_t len = strlen(base);

		if (len >= sizeof(program))
			len = cua_utf8_cut(base, len, sizeof(program) - 1);
		memcpy(program, base, len);
		program[len] = '\0';
	}
	for (ssize_t i = 0; i < n; i++)
		command[i] = raw[i] ? raw[i] : ' ';
	command[n] = '\0';
}

const char *cua_provenance_command(void)
{
	return command;
}

const char *cua_provenance_program(void)
{
	return program;
}

void cua_provenance_note_version(unsigned layer, int version)
{
	if (layer < 2)
		__atomic_store_n(&noted[layer], version + 1, __ATOMIC_RELAXED);
}

int cua_provenance_known;
static unsigned polls;

void cua_provenance_poll(void)
{
	int v;

	/* Both versions, or give up after a few tries (a process with one layer only). */
	if (cua_provenance_version(CUAUDIT_LAYER_DRIVER, &v) == 0 &&
	    cua_provenance_version(CUAUDIT_LAYER_RUNTIME, &v) == 0)
		cua_provenance_known = 1;
	else if (++polls >= 64)
		cua_provenance_known = 1;
}

int cua_provenance_version(unsigned layer, int *version)
{
	unsigned id = layer == CUAUDIT_LAYER_DRIVER ? CUAUDIT_ID_cuDriverGetVersion
						    : CUAUDIT_ID_cudaRuntimeGetVersion;
	int (*get)(int *);
	int v = 0;

	if (layer >= 2)
		return -1;
	if (__atomic_load_n(&noted[layer], __ATOMIC_RELAXED)) {
		*version = __atomic_load_n(&noted[layer], __ATOMIC_RELAXED) - 1;
		return 0;
	}
	/* The real function from the export index: cuaudit's own call is neither logged nor
	   counted. Both work before any initialisation. */
	get = (int (*)(int *))cua_index_real(id);
	if (!get || get(&v) != 0)
		return -1;
	cua_provenance_note_version(layer, v);
	*version = v;
	return 0;
}

/* Days since 1970-01-01 to a civil date (proleptic Gregorian). */
static void civil(uint64_t days, unsigned *y, unsigned *m, unsigned *d)
{
	uint64_t z = days + 719468, era = z / 146097, doe = z - era * 146097;
	uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;

	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = (unsigned)(yoe + era * 400 + (*m <= 2));
}

void cua_provenance_iso8601(char out[20], uint64_t seconds)
{
	unsigned y, mo, d, s = (unsigned)(seconds % 86400);
	char tmp[32];
	struct cua_buf b = CUA_BUF(tmp);

	civil(seconds / 86400, &y, &mo, &d);
	cua_buf_u64_pad(&b, y, 4);
	cua_buf_char(&b, '-');
	cua_buf_u64_pad(&b, mo, 2);
	cua_buf_char(&b, '-');
	cua_buf_u64_pad(&b, d, 2);
	cua_buf_char(&b, 'T');
	cua_buf_u64_pad(&b, s / 3600, 2);
	cua_buf_char(&b, ':');
	cua_buf_u64_pad(&b, s / 60 % 60, 2);
	cua_buf_char(&b, ':');
	cua_buf_u64_pad(&b, s % 60, 2);
	cua_buf_char(&b, 'Z');
	memcpy(out, tmp, 20);
}

/* label, then the layer's version, or 'missing' when it is not known. */
static void version_field(struct cua_buf *b, const char *label, unsigned layer,
			  const char *missing)
{
	int v;

	cua_buf_str(b, label);
	if (cua_provenance_version(layer, &v) == 0)
		cua_buf_i64(b, v);
	else
		cua_buf_str(b, missing);
}

/* The one record in its two spellings: the summary's JSON and its text head. */
struct spelling {
	int json;
	const char *host, *pid, *command, *start, *end, *cuaudit, *driver, *runtime, *unknown,
		*close;
};

static const struct spelling as_json = {
	1, "\"process\":{\"host\":", ",\"pid\":", ",\"command\":", ",\"start\":\"", "\",\"end\":\"",
	",\"cuaudit_version\":\"" CUA_VERSION "\"", ",\"driver_version\":", ",\"runtime_version\":",
	"null", "}",
};

static const struct spelling as_text = {
	0, "cuaudit summary: host ", ", pid ", ", command ", ", from ", " to ",
	", cuaudit " CUA_VERSION, ", driver ", ", runtime ", "unknown", "\n",
};

static void provenance(struct cua_buf *b, const struct spelling *sp)
{
	uint64_t end_ns = clock_ns(CLOCK_REALTIME);
	char t[20];

	cua_buf_str(b, sp->host);
	if (sp->json)
		cua_buf_json_string(b, cua_process_host());
	else
		cua_buf_str(b, cua_process_host());
	cua_buf_str(b, sp->pid);
	cua_buf_u64(b, cua_process_id());
	cua_buf_str(b, sp->command);
	if (sp->json)
		cua_buf_json_string(b, command);
	else
		cua_buf_quoted(b, command, 512);
	cua_provenance_iso8601(t, start_ns / 1000000000u);
	cua_buf_str(b, sp->start);
	cua_buf_mem(b, t, sizeof(t));
	cua_provenance_iso8601(t, end_ns / 1000000000u);
	cua_buf_str(b, sp->end);
	cua_buf_mem(b, t, sizeof(t));
	if (sp->json) {
		/* The same times to the ns, and the anchor that turns the calls' monotonic times
		   into wall-clock times (docs/export.md). */
		cua_buf_str(b, "\",\"start_ns\":");
		cua_buf_u64(b, start_ns);
		cua_buf_str(b, ",\"end_ns\":");
		cua_buf_u64(b, end_ns);
		cua_buf_str(b, ",\"clock\":{\"realtime_ns\":");
		cua_buf_u64(b, anchor_rt);
		cua_buf_str(b, ",\"monotonic_ns\":");
		cua_buf_u64(b, anchor_mono);
		cua_buf_str(b, "}");
	}
	cua_buf_str(b, sp->cuaudit);
	version_field(b, sp->driver, CUAUDIT_LAYER_DRIVER, sp->unknown);
	version_field(b, sp->runtime, CUAUDIT_LAYER_RUNTIME, sp->unknown);
	if (sp->json) {
		cua_buf_str(b, ",\"image\":\"");
		cua_buf_hex(b, image);
		cua_buf_char(b, '"');
	}
	cua_buf_str(b, sp->close);
}

void cua_provenance_json(struct cua_buf *b)
{
	provenance(b, &as_json);
}

void cua_provenance_text(struct cua_buf *b)
{
	provenance(b, &as_text);
}

size_t cua_provenance_thread_name(uint32_t tid, char *out, size_t cap)
{
	char path[64];
	struct cua_buf p = CUA_BUF(path);
	ssize_t n = -1;
	int fd;

	cua_buf_str(&p, "/proc/self/task/");
	cua_buf_u64(&p, tid);
	cua_buf_str(&p, "/comm");
	path[p.len < sizeof(path) ? p.len : sizeof(path) - 1] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, out, cap);
		close(fd);
	}
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\0'))
		n--;
	/* The kernel keeps 15 bytes of a thread's name, whatever the characters. */
	if (n > 0)
		n = (ssize_t)cua_utf8_whole(out, (size_t)n);
	return n > 0 ? (size_t)n : 0;
}
