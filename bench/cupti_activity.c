/* SPDX-License-Identifier: MIT */
/* bench/cupti_activity.c: the reference for GPU timing: CUPTI activity records of kernels, copies and memsets, totalled per kernel name and operation, loaded through CUDA_INJECTION64_PATH. */
/* Built by scripts/gpu-check-gputime.sh with KERNEL_T, MEMCPY_T and MEMSET_T set to the newest
   record structs of the toolkit's cupti_activity.h (their names carry a version). With
   CUPTI_ACTIVITY_OUT unset it only records (the cost measurement); set, it writes
   "kind<TAB>name<TAB>count<TAB>total_ns" lines there at exit. With CUPTI_ACTIVITY_INSTANCES
   set, each kernel is also written there as "name<TAB>start_ns<TAB>end_ns<TAB>stream" (the instances
   that cuaudit's exact records are compared with, one by one), and each copy and memset as
   "(memcpy KIND)" or "(memset)" the same way: a command a kernel may be queued behind. */
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF_SIZE (8u << 20)
#define MAX_ROWS 8192

struct row {
	char kind[8];
	char *name;
	uint64_t count, total_ns;
};
static struct row rows[MAX_ROWS];
static unsigned nrows;
static FILE *instances;

static void add(const char *kind, const char *name, uint64_t ns)
{
	unsigned i;

	for (i = 0; i < nrows; i++)
		if (strcmp(rows[i].kind, kind) == 0 && strcmp(rows[i].name, name) == 0)
			break;
	if (i == nrows) {
		if (nrows == MAX_ROWS)
			return;
		snprintf(rows[i].kind, sizeof(rows[i].kind), "%s", kind);
		rows[i].name = strdup(name);
		nrows++;
	}
	rows[i].count++;
	rows[i].total_ns += ns;
}

static const char *copy_kind(unsigned k)
{
	switch (k) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "peer";
	default: return "copy";
	}
}

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = aligned_alloc(8, BUF_SIZE);
	*size = *buffer ? BUF_SIZE : 0;
	*max_records = 0;
}

static void CUPTIAPI completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
			       size_t valid)
{
	CUpti_Activity *rec = NULL;

	(void)ctx, (void)stream, (void)size;
	while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
		if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
		    rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
			const KERNEL_T *k = (const KERNEL_T *)rec;

			add("kernel", k->name ? k->name : "(unknown)", k->end - k->start);
			if (instances)
				fprintf(instances, "%s\t%llu\t%llu\t%u\n", k->name ? k->name : "(unknown)",
					(unsigned long long)k->start, (unsigned long long)k->end,
					(unsigned)k->streamId);
		} else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
			const MEMCPY_T *m = (const MEMCPY_T *)rec;

			add("memcpy", copy_kind(m->copyKind), m->end - m->start);
			/* On the stream's timeline too: the command before a kernel may be a copy. */
			if (instances)
				fprintf(instances, "(memcpy %s)\t%llu\t%llu\t%u\n", copy_kind(m->copyKind),
					(unsigned long long)m->start, (unsigned long long)m->end,
					(unsigned)m->streamId);
		} else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
			const MEMSET_T *m = (const MEMSET_T *)rec;

			add("memset", "memset", m->end - m->start);
			if (instances)
				fprintf(instances, "(memset)\t%llu\t%llu\t%u\n", (unsigned long long)m->start,
					(unsigned long long)m->end, (unsigned)m->streamId);
		}
	}
	free(buffer);
}

static void at_exit(void)
{
	const char *out = getenv("CUPTI_ACTIVITY_OUT");
	FILE *f;

	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (instances)
		fclose(instances);
	instances = NULL;
	if (!out || !(f = fopen(out, "w")))
		return;
	for (unsigned i = 0; i < nrows; i++)
		fprintf(f, "%s\t%s\t%llu\t%llu\n", rows[i].kind, rows[i].name,
			(unsigned long long)rows[i].count, (unsigned long long)rows[i].total_ns);
	fclose(f);
}

__attribute__((visibility("default"))) int InitializeInjection(void)
{
	const char *inst = getenv("CUPTI_ACTIVITY_INSTANCES");

	if (inst)
		instances = fopen(inst, "w");
	if (cuptiActivityRegisterCallbacks(requested, completed) != CUPTI_SUCCESS)
		return 0;
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
	atexit(at_exit);
	return 1;
}
