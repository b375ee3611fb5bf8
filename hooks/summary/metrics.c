/* SPDX-License-Identifier: MIT */
/* hooks/summary/metrics.c: writes CUAUDIT_METRICS, the Prometheus text format, atomically at each summary snapshot and at exit. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gpu.h"
#include "config.h"
#include "hooks.h"
#include "memlimit.h"
#include "compute.h"
#include "compshare.h"
#include "metrics.h"
#include "summary_model.h"
#include "table.h"
#include "out.h"
#include "process.h"
#include "provenance.h"
#include "writer.h"

static char program[256] = "unknown";

/* This output's slice of the configuration, copied at start. */
static struct {
	char path[CUA_PATH_MAX];                                /* CUAUDIT_METRICS */
	unsigned nlabels;                                       /* CUAUDIT_METRICS_LABELS */
	char names[CUA_MAX_METRIC_LABELS][64];
	char values[CUA_MAX_METRIC_LABELS][256];
	uint64_t mem_all, mem_dev[CUA_MAX_DEVICES];             /* CUAUDIT_MEM_LIMIT */
} cfg;

void cua_metrics_setup(const struct cua_metrics_config *own)
{
	memcpy(cfg.path, own->path, sizeof(cfg.path));
	cfg.nlabels = own->nlabels;
	memcpy(cfg.names, own->label_names, sizeof(cfg.names));
	memcpy(cfg.values, own->label_values, sizeof(cfg.values));
	/* The memory limit hook started before the outputs (la_version's order). */
	cfg.mem_all = cua_memlimit_limits()->mem_limit;
	memcpy(cfg.mem_dev, cua_memlimit_limits()->mem_limit_dev, sizeof(cfg.mem_dev));
	int fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, program, sizeof(program) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n > 0) {
		program[n] = '\0';
		if (program[n - 1] == '\n')
			program[--n] = '\0';
		program[cua_utf8_whole(program, (size_t)n)] = '\0';
	}
}

/* A label value: backslash, quote and newline escaped, as the format requires, and any byte
   that is not well-formed UTF-8 (the format's encoding) written as U+FFFD. The writer's
   buffer spills when full, so no row is ever cut, however long its labels. */
static void label(struct cua_buf *b, const char *key, const char *v, int first)
{
	cua_buf_str(b, first ? "" : ",");
	cua_buf_str(b, key);
	cua_buf_str(b, "=\"");
	cua_buf_text(b, v, strlen(v), CUA_TEXT_PROM);
	cua_buf_char(b, '"');
}

/* CUAUDIT_METRICS_LABELS, expanded at each write (a forked child has its own %p). */
static char user_values[CUA_MAX_METRIC_LABELS][CUA_PATH_MAX];

static void expand_user_labels(void)
{
	for (unsigned i = 0; i < cfg.nlabels; i++)
		if (cua_fmt_path(user_values[i], sizeof(user_values[i]), cfg.values[i],
				 cua_process_id(), cua_process_host()) < 0)
			user_values[i][0] = '\0';
}

static void common(struct cua_buf *b, const char *host, const char *pid)
{
	label(b, "host", host, 1);
	label(b, "pid", pid, 0);
	label(b, "program", program, 0);
	for (unsigned i = 0; i < cfg.nlabels; i++)
		label(b, cfg.names[i], user_values[i], 0);
}

static void head(struct cua_writer *w, const char *name, const char *type, const char *help)
{
	struct cua_buf *b = cua_writer_room(w, 512);

	cua_buf_str(b, "# HELP ");
	cua_buf_str(b, name);
	cua_buf_char(b, ' ');
	cua_buf_str(b, help);
	cua_buf_str(b, "\n# TYPE ");
	cua_buf_str(b, name);
	cua_buf_char(b, ' ');
	cua_buf_str(b, type);
	cua_buf_char(b, '\n');
}

static void seconds(struct cua_buf *b, uint64_t ns)
{
	cua_buf_u64(b, ns / 1000000000u);
	cua_buf_char(b, '.');
	cua_buf_u64_pad(b, ns % 1000000000u, 9);
}

/* which: 0 calls, 1 errors, 2 seconds. */
static void api_family(struct cua_writer *w, const struct cua_summary_model *m,
		       unsigned which, const char *host, const char *pid)
{
	static const char *const names[] = { "cuaudit_calls_total", "cuaudit_errors_total",
					     "cuaudit_call_seconds_total" };
	static const char *const helps[] = {
		"CUDA calls intercepted, by API (ELF name), layer and nesting.",
		"CUDA calls that returned an error, by API, layer and nesting.",
		"Time spent in CUDA calls, by API, layer and nesting.",
	};

	if (which == 2 && m->sample) {
		/* Sampled (CUAUDIT_SUMMARY_SAMPLE, the default of the metrics alone): said in
		   the family's help, where a reader of the file sees it. */
		char help[256];
		struct cua_buf hb = CUA_BUF(help);

		cua_buf_str(&hb, "Time spent in CUDA calls, by API, layer and nesting; estimated:"
				 " a function under 1 us is timed 1 call in ");
		cua_buf_u64(&hb, m->sample);
		cua_buf_str(&hb, " (drawn at random in each block) and its time scaled to all its"
				 " calls (counts are exact; the summary gives each estimate's 95% interval).");
		help[hb.len < sizeof(help) ? hb.len : sizeof(help) - 1] = '\0';
		head(w, names[which], "counter", help);
	} else {
		head(w, names[which], "counter", helps[which]);
	}
	for (unsigned i = 0; i < m->nrows; i++) {
		const struct cua_summary_row *r = &m->rows[i];
		struct cua_buf *b = cua_writer_room(w, 1024);

		cua_buf_str(b, names[which]);
		cua_buf_char(b, '{');
		common(b, host, pid);
		label(b, "api", cua_api[r->id].elf_name, 0);
		label(b, "layer", cua_api[r->id].layer == CUAUDIT_LAYER_DRIVER ? "driver" : "runtime", 0);
		label(b, "nested", r->nested ? "true" : "false", 0);
		cua_buf_str(b, "} ");
		if (which == 0)
			cua_buf_u64(b, r->s.calls);
		else if (which == 1)
			cua_buf_u64(b, r->s.errors);
		else
			seconds(b, r->s.total_ns);
		cua_buf_char(b, '\n');
	}
}

static void device_row(struct cua_writer *w, const char *name, const char *dev, uint64_t v,
		       const char *host, const char *pid)
{
	struct cua_buf *b = cua_writer_room(w, 1024);

	cua_buf_str(b, name);
	cua_buf_char(b, '{');
	common(b, host, pid);
	label(b, "device", dev, 0);
	cua_buf_str(b, "} ");
	cua_buf_u64(b, v);
	cua_buf_char(b, '\n');
}

/* CUAUDIT_MEM_LIMIT: each device's quota (device "all": the default for the others), and
   the bytes the process holds on each device that has a quota or holds any. */
static void memory_families(struct cua_writer *w, const char *host, const char *pid)
{
	int any = cfg.mem_all != 0;

	for (unsigned d = 0; d < CUA_MAX_DEVICES; d++)
		any |= cfg.mem_dev[d] != 0;
	if (!any)
		return;
	head(w, "cuaudit_memory_quota_bytes", "gauge",
	     "CUAUDIT_MEM_LIMIT quota per device (device \"all\": the default for the others).");
	for (unsigned d = 0; d <= CUA_MAX_DEVICES; d++) {
		uint64_t q = d == CUA_MAX_DEVICES ? cfg.mem_all : cfg.mem_dev[d];
		char dev[24];
		struct cua_buf db = CUA_BUF(dev);

		if (!q)
			continue;
		if (d == CUA_MAX_DEVICES)
			cua_buf_str(&db, "all");
		else
			cua_buf_u64(&db, d);
		dev[db.len] = '\0';
		device_row(w, "cuaudit_memory_quota_bytes", dev, q, host, pid);
	}
	head(w, "cuaudit_memory_used_bytes", "gauge",
	     "Device memory the process holds as CUAUDIT_MEM_LIMIT counts it, per device.");
	for (unsigned d = 0; d < CUA_MAX_DEVICES; d++) {
		uint64_t used = cua_memlimit_used(d);
		char dev[24];
		struct cua_buf db = CUA_BUF(dev);

		if (!used && !cfg.mem_dev[d] && !(d == 0 && cfg.mem_all))
			continue;
		cua_buf_u64(&db, d);
		dev[db.len] = '\0';
		device_row(w, "cuaudit_memory_used_bytes", dev, used, host, pid);
	}
}

/* CUAUDIT_MEM_GROUP: the quota the group shares and the group's use, per device with a
   quota, labelled with the group. Nothing outside a group. */
static void group_family(struct cua_writer *w, const char *host, const char *pid, int used)
{
	const char *group = cua_memlimit_group(), *name = used ? "cuaudit_memory_group_used_bytes"
								  : "cuaudit_memory_group_quota_bytes";

	if (!group)
		return;
	head(w, name, "gauge",
	     used ? "Device memory the process's memory group (CUAUDIT_MEM_GROUP) holds, per device:"
		    " its processes' charges, a dead one's until it is taken back."
		  : "The quota the process's memory group (CUAUDIT_MEM_GROUP) shares, per device.");
	for (unsigned d = 0; d < CUA_MAX_DEVICES; d++) {
		uint64_t q = cua_memlimit_quota(d);
		struct cua_buf *b;
		char dev[24];
		struct cua_buf db = CUA_BUF(dev);

		if (!q)
			continue;
		cua_buf_u64(&db, d);
		dev[db.len] = '\0';
		b = cua_writer_room(w, 1024);
		cua_buf_str(b, name);
		cua_buf_char(b, '{');
		common(b, host, pid);
		label(b, "group", group, 0);
		label(b, "device", dev, 0);
		cua_buf_str(b, "} ");
		cua_buf_u64(b, used ? cua_memlimit_group_used(d) : q);
		cua_buf_char(b, '\n');
	}
}

/* CUAUDIT_COMPUTE_LIMIT: the group's limit (a cap, or a weight: mode="share") and its
   achieved share of each device over the last window (compshare.h), as ratios. */
static void compute_family(struct cua_writer *w, const char *host, const char *pid, int achieved)
{
	const char *name = achieved ? "cuaudit_compute_group_achieved_ratio"
				    : "cuaudit_compute_group_limit_ratio";
	int said = 0;

	for (unsigned d = 0; d < CUA_COMPUTE_DEVICES; d++) {
		uint32_t limit;
		uint64_t pm, v;
		const char *group;
		char dev[24];
		struct cua_buf db = CUA_BUF(dev), *b;

		if (!cua_compute_view(d, &limit, &pm, &group))
			continue;
		if (!said++)
			head(w, name, "gauge",
			     achieved ? "The GPU time the process's compute group (CUAUDIT_MEM_GROUP, else"
					" the process) had of each device over the last second, time-sliced"
					" time shared out among the groups busy then."
				      : "The compute group's limit per device (CUAUDIT_COMPUTE_LIMIT): a cap,"
					" or a weight where mode is share.");
		cua_buf_u64(&db, d);
		dev[db.len] = '\0';
		b = cua_writer_room(w, 1024);
		cua_buf_str(b, name);
		cua_buf_char(b, '{');
		common(b, host, pid);
		label(b, "group", group, 0);
		label(b, "device", dev, 0);
		label(b, "mode", limit & CUA_CS_SHARE ? "share" : "cap", 0);
		cua_buf_str(b, "} ");
		v = achieved ? pm : CUA_CS_PCT(limit) * 10u;
		cua_buf_u64(b, v / 1000);
		cua_buf_char(b, '.');
		cua_buf_u64_pad(b, v % 1000, 3);
		cua_buf_char(b, '\n');
	}
}

static void busy_family(struct cua_writer *w, const char *host, const char *pid,
			const char *metric, const char *help, const uint64_t *ns, unsigned ndevices)
{
	head(w, metric, "counter", help);
	for (unsigned d = 0; d < ndevices; d++) {
		struct cua_buf *b = cua_writer_room(w, 1024);
		char dev[24];
		struct cua_buf db = CUA_BUF(dev);

		cua_buf_u64(&db, d);
		dev[db.len] = '\0';
		cua_buf_str(b, metric);
		cua_buf_char(b, '{');
		common(b, host, pid);
		label(b, "device", dev, 0);
		cua_buf_str(b, "} ");
		seconds(b, ns[d]);
		cua_buf_char(b, '\n');
	}
}

/* CUAUDIT_GPU_TIME: each device's busy time (the union of its timed work), bounded below and
   above where work began on an idle stream (docs/hooks.md), and the calls left untimed, by
   reason. */
static void gpu_families(struct cua_writer *w, const char *host, const char *pid)
{
	const struct cua_gpu_totals *t = cua_gpu_totals();
	struct cua_buf *b;

	if (!t)
		return;
	busy_family(w, host, pid, "cuaudit_gpu_busy_min_seconds_total",
		    "Least time a device can have been running timed work (CUAUDIT_GPU_TIME).",
		    t->busy_min_ns, t->ndevices);
	busy_family(w, host, pid, "cuaudit_gpu_busy_max_seconds_total",
		    "Greatest time a device can have been running timed work (CUAUDIT_GPU_TIME).",
		    t->busy_max_ns, t->ndevices);
	head(w, "cuaudit_gpu_synthetic", "gauge",
	     "1 when the driver is cuaudit's mock: every GPU time is made up.");
	b = cua_writer_room(w, 1024);
	cua_buf_str(b, "cuaudit_gpu_synthetic{");
	common(b, host, pid);
	cua_buf_str(b, "} ");
	cua_buf_u64(b, (uint64_t)t->synthetic);
	cua_buf_char(b, '\n');
	head(w, "cuaudit_gpu_untimed_total", "counter",
	     "Launches, copies and memsets CUAUDIT_GPU_TIME could not time, by reason.");
	for (unsigned i = 0; i < CUA_GPU_UNTIMED_KINDS; i++) {
		struct cua_buf *b = cua_writer_room(w, 1024);

		cua_buf_str(b, "cuaudit_gpu_untimed_total{");
		common(b, host, pid);
		label(b, "reason", cua_gpu_untimed_names[i], 0);
		cua_buf_str(b, "} ");
		cua_buf_u64(b, t->untimed[i]);
		cua_buf_char(b, '\n');
	}
}

#define METRICS_SIGNATURE "# HELP cuaudit_"

/* The file the metrics go to, chosen once per process by the rule every output follows: a
   file cuaudit did not write is left alone (the metrics go to NAME.1.prom, said once). */
static char chosen[CUA_PATH_MAX];
static uint64_t chosen_pid;
/* The empty file that claims the name until the first write is renamed over it: its
   identity, and whether it is still that (no write of this process has been committed). */
static int claimed;
static uint64_t claim_dev, claim_ino;

static int choose_path(void)
{
	uint64_t pid = cua_process_id();
	struct stat st;
	int fd;

	if (chosen_pid == pid)
		return chosen[0] ? 0 : -1;
	chosen_pid = pid;
	claimed = 0;
	/* One file per process, a live view: a workload exec'd by its launcher keeps the pid and
	   replaces the launcher's metrics (its counters restart, as a restarted process's do).
	   A second file with the same labels would make node_exporter's textfile collector
	   refuse the duplicate series. */
	fd = cua_writer_open("metrics", cfg.path, METRICS_SIGNATURE, CUA_WRITER_REPLACE_IMAGES,
			     chosen, sizeof(chosen));
	if (fd < 0) {
		cua_out_report("cannot create the metrics CUAUDIT_METRICS=", cfg.path, errno);
		chosen[0] = '\0';
		return -1;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
		claimed = 1;
		claim_dev = (uint64_t)st.st_dev;
		claim_ino = (uint64_t)st.st_ino;
	}
	close(fd);
	return 0;
}

/* A write failed before any was committed: the claim is still empty. Left, it stood for
   metrics with no series (a textfile collector reads it so), and the run's other processes
   passed the name over as this one's. It is removed, and the next write chooses the name
   again. Only while it is still this process's empty claim, under an exclusive lock never
   waited for: a process that took the name meanwhile holds the file (shared, while it
   writes) or has renamed its own over it. */
static void drop_claim(void)
{
	struct stat st, named;
	int fd;

	if (!claimed)
		return;
	claimed = 0;
	chosen_pid = 0;
	fd = open(chosen, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size == 0 && (uint64_t)st.st_dev == claim_dev && (uint64_t)st.st_ino == claim_ino &&
	    lstat(chosen, &named) == 0 && named.st_dev == st.st_dev && named.st_ino == st.st_ino)
		unlink(chosen);
	close(fd);
}

int cua_metrics_write(const struct cua_summary_model *m)
{
	static struct cua_writer w;
	char tmp[CUA_PATH_MAX + 64], pid[24];
	struct cua_buf pb = CUA_BUF(pid);

	cua_buf_u64(&pb, m->pid);
	pid[pb.len] = '\0';
	if (choose_path() != 0)
		return -1;
	if (cua_writer_begin_atomic(&w, "metrics", chosen, tmp, sizeof(tmp)) != 0) {
		drop_claim();
		return -1;
	}
	expand_user_labels();
	for (unsigned which = 0; which < 3; which++)
		api_family(&w, m, which, cua_process_host(), pid);
	memory_families(&w, cua_process_host(), pid);
	group_family(&w, cua_process_host(), pid, 0);
	group_family(&w, cua_process_host(), pid, 1);
	compute_family(&w, cua_process_host(), pid, 0);
	compute_family(&w, cua_process_host(), pid, 1);
	gpu_families(&w, cua_process_host(), pid);
	if (cua_writer_commit(&w, tmp, chosen) != 0) {
		drop_claim();
		return -1;
	}
	claimed = 0;
	return 0;
}
