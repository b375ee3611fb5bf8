/* SPDX-License-Identifier: MIT */
/* cli/groups.c: `cuaudit ps --groups`: each memory group of this user in the share directory, its quota and use per device and per process. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fmt.h"
#include "groups.h"
#include "memgroup.h"

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

static void json_str(const char *s)
{
	char buf[1024];
	struct cua_buf b = CUA_BUF(buf);

	cua_buf_json_string(&b, s);
	fwrite(buf, 1, b.len < sizeof(buf) ? b.len : sizeof(buf), stdout);
}

/* The whole file, read (never mapped: a file cut short under the reader would raise SIGBUS)
   after the same checks the module makes. NULL with why set when it is not sound. */
static char *load(const char *path, const char **why)
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
	    (st.st_mode & 07777) != 0600 || (uint64_t)st.st_size != CUA_GROUP_FILE_SIZE) {
		*why = "not a 0600 regular file of this user of the size of format version 1";
		close(fd);
		return NULL;
	}
	if (!(data = malloc(CUA_GROUP_FILE_SIZE))) {
		close(fd);
		*why = "out of memory";
		return NULL;
	}
	n = pread(fd, data, CUA_GROUP_FILE_SIZE, 0);
	close(fd);
	if (n != (ssize_t)CUA_GROUP_FILE_SIZE ||
	    (*why = cua_memgroup_check_head((const struct cua_group_head *)data, (uint64_t)n,
					    (uint32_t)geteuid()))) {
		if (n != (ssize_t)CUA_GROUP_FILE_SIZE)
			*why = "cut short while read";
		free(data);
		return NULL;
	}
	return data;
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
			used[d] += slots[i].used[d];
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
		printf("%-24s %6u %12s %12s %9u\n", h->name, d, a, b, nproc);
	}
	for (unsigned i = 0; i < hwm; i++) {
		const struct cua_group_slot *s = &slots[i];
		int alive;

		if (!(s->owner & CUA_GROUP_READY))
			continue;
		alive = cua_memgroup_slot_alive(s->owner, s->start_ticks, s->pidns, ns);
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
	int first = 1, bad = 0;
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
					" limits\n", path, why);
			bad++;
			continue;
		}
		show(path, data, json, &first, ns);
		free(data);
	}
	closedir(d);
	if (json)
		fputs("]\n", stdout);
	else if (first)
		fprintf(stderr, "cuaudit ps: no memory group of this user in %s (processes run with"
				" CUAUDIT_MEM_GROUP and CUAUDIT_MEM_LIMIT make one)\n", dir);
	return bad ? 1 : 0;
}
