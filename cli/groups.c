/* SPDX-License-Identifier: MIT */
/* cli/groups.c: `cuaudit ps --groups`: each memory group of this user in the share directory, its quota and use per device and per process, and each compute share group's limit and achieved share per device. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fmt.h"
#include "json.h"
#include "groups.h"
#include "memgroup.h"
#include "compshare.h"
#include <time.h>

static const char *const states[] = { "dead", "alive", "unknown" };

/* Bytes in the largest unit that holds them exactly: every figure printed is exact. */
static void put_size(char *out, size_t cap, uint64_t v)
{
	if (v && v % (1ull << 30) == 0)
		snprintf(out, cap, "%llu GiB", (unsigned long long)(v >> 30));
	else if (v % (1ull << 20) == 0)
		snprintf(out, cap, "%llu MiB", (unsigned long long)(v >> 20));
	else if (v % 1024 == 0)
		snprintf(out, cap, "%llu KiB", (unsigned long long)(v >> 10));
	else
		snprintf(out, cap, "%llu B", (unsigned long long)v);
}

/* Names and paths come from a directory every user may write to (/dev/shm) and from files
   that may be damaged: JSON-escaped whole, and for a terminal with controls made visible
   (cli_term). */
static void json_str(const char *s)
{
	json_put_string(stdout, s);
}

/* Adds as the module's sums do (groups/memgroup.c): saturating, never wrapping to a small use. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The whole file, read (never mapped: a file cut short under the reader would raise SIGBUS)
   after the same checks the module makes. NULL with why set when it is not sound. */
static char *load_sized(const char *path, const char **why, uint64_t size, int compute)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	char *data;
	ssize_t n;

	if (fd < 0) {
		*why = errno == ELOOP ? "a symbolic link" : strerror(errno);
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 07777) != 0600 || (uint64_t)st.st_size != size) {
		*why = "not a 0600 regular file of this user of the size of its format's version";
		close(fd);
		return NULL;
	}
	if (!(data = malloc(size))) {
		close(fd);
		*why = "out of memory";
		return NULL;
	}
	n = pread(fd, data, size, 0);
	close(fd);
	if (n != (ssize_t)size ||
	    (*why = compute ? cua_cs_check_head((const struct cua_cs_head *)data, (uint64_t)n,
						(uint32_t)geteuid())
			    : cua_memgroup_check_head((const struct cua_group_head *)data, (uint64_t)n,
						      (uint32_t)geteuid()))) {
		if (n != (ssize_t)size)
			*why = "cut short while read";
		free(data);
		return NULL;
	}
	return data;
}

static char *load(const char *path, const char **why)
{
	return load_sized(path, why, CUA_GROUP_FILE_SIZE, 0);
}

/* Whether a process holds the lock of the slot at off of the file at path: 1, 0, or -1
   cannot be told. This process holds none, so any lock is another's. */
static int slot_lock_held(const char *path, uint64_t off)
{
	struct cua_groupfile_kept k = { .fd = -1 };
	int r;

	k.fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (k.fd < 0)
		return -1;
	r = cua_groupfile_held(&k, off, 1);
	close(k.fd);
	return r;
}

/* Thousandths as "12.3%". */
static void put_permille(char *out, size_t cap, uint64_t v)
{
	snprintf(out, cap, "%llu.%llu%%", (unsigned long long)(v / 10), (unsigned long long)(v % 10));
}

/* The compute share file (compshare.h): each group per device with a limit, its limit and
   what the rule charged it over the window that ends now (the same rule the module runs). */
static int show_compute(const char *dir, int json, int *first)
{
	static struct cua_cs_group out[CUA_CS_MAX_GROUPS];
	char path[4352];
	const char *why = NULL;
	const struct cua_cs_slot *slots;
	struct timespec ts;
	uint64_t now, start;
	char *data;
	int shown = 0;

	snprintf(path, sizeof(path), "%s/" CUA_CS_FILE_PREFIX "%u", dir, (unsigned)geteuid());
	if (access(path, F_OK) != 0)
		return 0;
	if (!(data = load_sized(path, &why, CUA_CS_FILE_SIZE, 1))) {
		fprintf(stderr, "cuaudit ps: %s: %s; its processes run without a compute limit\n",
			cli_term(path), why);
		return -1;
	}
	slots = (const void *)(data + CUA_CS_HEAD_SIZE);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	start = (now / CUA_CS_BUCKET_NS + 1 - CUA_CS_WINDOW_BUCKETS) * CUA_CS_BUCKET_NS;
	for (unsigned d = 0; d < CUA_CS_DEVICES; d++) {
		unsigned n = cua_cs_groups(slots, ((const struct cua_cs_head *)data)->hwm, d, now,
					   out, CUA_CS_MAX_GROUPS);

		for (unsigned g = 0; g < n; g++) {
			uint64_t pm = out[g].charge_ns * 1000 / (now - start);
			char lim[32], ach[32];

			if (!out[g].limit)
				continue;
			if (json) {
				printf("%s{\"compute_group\":", *first ? "" : ",");
				*first = 0;
				if (out[g].name[0])
					json_str(out[g].name);
				else
					printf("null,\"pid\":%u", out[g].pid);
				printf(",\"file\":");
				json_str(path);
				printf(",\"device\":%u,\"limit_percent\":%u,\"mode\":\"%s\","
				       "\"window_start_ns\":%llu,\"window_end_ns\":%llu,"
				       "\"charged_ns\":%llu,\"busy_ns\":%llu,\"held_ns\":%llu,"
				       "\"achieved_permille\":%llu,\"active\":%s,\"processes\":%u}",
				       d, CUA_CS_PCT(out[g].limit),
				       out[g].limit & CUA_CS_SHARE ? "share" : "cap",
				       (unsigned long long)start, (unsigned long long)now,
				       (unsigned long long)out[g].charge_ns,
				       (unsigned long long)out[g].busy_ns,
				       (unsigned long long)out[g].held_ns, (unsigned long long)pm,
				       out[g].active ? "true" : "false", out[g].processes);
				continue;
			}
			if (!shown++)
				printf("%-24s %6s %11s %9s %9s %9s\n", "COMPUTE GROUP", "DEVICE", "LIMIT",
				       "ACHIEVED", "HELD", "PROCESSES");
			snprintf(lim, sizeof(lim), "%u%%%s", CUA_CS_PCT(out[g].limit),
				 out[g].limit & CUA_CS_SHARE ? " share" : " cap");
			put_permille(ach, sizeof(ach), pm);
			if (out[g].name[0])
				printf("%-24s", cli_term(out[g].name));
			else
				printf("(pid %u)%*s", out[g].pid, 17 - snprintf(NULL, 0, "%u", out[g].pid), "");
			printf(" %6u %11s %9s %7llums %9u\n", d, lim, ach,
			       (unsigned long long)(out[g].held_ns / 1000000), out[g].processes);
		}
	}
	if (!json && shown)
		printf("(achieved: the group's GPU time over the last %llu ms, time-sliced time shared"
		       " out; HELD: its launches' time held back, in all)\n",
		       (unsigned long long)((now - start) / 1000000));
	free(data);
	return shown;
}

static void show(const char *path, const char *data, int json, int *first, uint64_t ns)
{
	const struct cua_group_head *h = (const void *)data;
	const struct cua_group_slot *slots = (const void *)(data + CUA_GROUP_HEAD_SIZE);
	uint64_t used[CUA_GROUP_DEVICES] = { 0 };
	unsigned nproc = 0, hwm = h->hwm, first_quota = CUA_GROUP_DEVICES;
	char a[32], b[32], shown[CUA_GROUP_DEVICES];
	int k = 0, any = 0;

	for (unsigned i = 0; i < hwm; i++) {
		if (!(slots[i].owner & CUA_GROUP_READY))
			continue;
		nproc++;
		for (unsigned d = 0; d < CUA_GROUP_DEVICES; d++)
			used[d] = sat_add(used[d], slots[i].used[d]);
	}
	/* The devices with a quota that the group uses; the first with a quota when it uses
	   none (CUAUDIT_MEM_LIMIT=SIZE gives all 64 one). */
	for (unsigned d = 0; d < CUA_GROUP_DEVICES; d++) {
		shown[d] = h->quota[d] && used[d];
		any |= shown[d];
		if (h->quota[d] && first_quota == CUA_GROUP_DEVICES)
			first_quota = d;
	}
	if (!any && first_quota < CUA_GROUP_DEVICES)
		shown[first_quota] = 1;
	if (json) {
		printf("%s{\"group\":", *first ? "" : ",");
		json_str(h->name);
		printf(",\"file\":");
		json_str(path);
		printf(",\"devices\":[");
		for (unsigned d = 0; d < CUA_GROUP_DEVICES; d++)
			if (shown[d])
				printf("%s{\"device\":%u,\"quota\":%llu,\"used\":%llu}", k++ ? "," : "", d,
				       (unsigned long long)h->quota[d], (unsigned long long)used[d]);
		printf("],\"processes\":[");
		k = 0;
	}
	for (unsigned d = 0; !json && d < CUA_GROUP_DEVICES; d++) {
		if (!shown[d])
			continue;
		put_size(a, sizeof(a), h->quota[d]);
		put_size(b, sizeof(b), used[d]);
		printf("%-24s %6u %12s %12s %9u\n", cli_term(h->name), d, a, b, nproc);
	}
	for (unsigned i = 0; i < hwm; i++) {
		const struct cua_group_slot *s = &slots[i];
		int alive;

		if (!(s->owner & CUA_GROUP_READY))
			continue;
		alive = cua_memgroup_slot_alive(s->owner, s->start_ticks, s->pidns, ns);
		/* Another pid namespace's: alive while its lock is held (groups/groupfile.h). */
		if (alive < 0 && (s->flags & CUA_GROUP_SLOT_LOCKED))
			alive = slot_lock_held(path, CUA_GROUP_SLOT_AT(i));
		if (json) {
			int j = 0;

			printf("%s{\"pid\":%u,\"state\":\"%s\",\"used\":{", k++ ? "," : "",
			       CUA_GROUP_PID(s->owner), states[alive < 0 ? 2 : alive]);
			for (unsigned d = 0; d < CUA_GROUP_DEVICES; d++)
				if (s->used[d])
					printf("%s\"%u\":%llu", j++ ? "," : "", d,
					       (unsigned long long)s->used[d]);
			printf("}}");
			continue;
		}
		any = 0;
		for (unsigned d = 0; d < CUA_GROUP_DEVICES; d++) {
			if (!s->used[d])
				continue;
			put_size(a, sizeof(a), s->used[d]);
			printf("  pid %-8u %-7s device %-3u %s\n", CUA_GROUP_PID(s->owner),
			       states[alive < 0 ? 2 : alive], d, a);
			any = 1;
		}
		if (!any)
			printf("  pid %-8u %-7s nothing charged\n", CUA_GROUP_PID(s->owner),
			       states[alive < 0 ? 2 : alive]);
	}
	if (json)
		printf("]}");
	*first = 0;
}

int cua_cli_groups(const char *dir, int json)
{
	char prefix[64], path[4352];
	DIR *d;
	struct dirent *e;
	int first = 1, bad = 0, compute;
	uint64_t ns = cua_memgroup_pidns();

	if (!dir)
		dir = getenv("CUAUDIT_SHARE_DIR");
	if (!dir || !*dir)
		dir = "/dev/shm";
	if (!(d = opendir(dir))) {
		fprintf(stderr, "cuaudit ps: cannot read %s: %s\n", dir, strerror(errno));
		return 1;
	}
	snprintf(prefix, sizeof(prefix), CUA_GROUP_FILE_PREFIX "%u-", (unsigned)geteuid());
	if (json)
		fputs("[", stdout);
	else
		printf("%-24s %6s %12s %12s %9s\n", "GROUP", "DEVICE", "QUOTA", "USED", "PROCESSES");
	while ((e = readdir(d)) != NULL) {
		const char *why = NULL;
		char *data;

		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 || strstr(e->d_name, ".tmp."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!(data = load(path, &why))) {
			fprintf(stderr, "cuaudit ps: %s: %s; the processes of that group keep their own"
					" limits\n", cli_term(path), why);
			bad++;
			continue;
		}
		show(path, data, json, &first, ns);
		free(data);
	}
	closedir(d);
	compute = show_compute(dir, json, &first);
	if (compute < 0)
		bad++;
	if (json)
		fputs("]\n", stdout);
	else if (first && compute <= 0)
		fprintf(stderr, "cuaudit ps: no memory group or compute share of this user in %s"
				" (processes run with CUAUDIT_MEM_GROUP and CUAUDIT_MEM_LIMIT, or with"
				" CUAUDIT_COMPUTE_LIMIT, make one)\n", dir);
	return bad ? 1 : 0;
}
