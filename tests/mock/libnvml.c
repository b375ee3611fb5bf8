/* SPDX-License-Identifier: MIT */
/* tests/mock/libnvml.c: a mock libnvidia-ml.so.1: two devices whose memory reports differ by form (v1, v2), so a misrouted or unclamped call shows. */
#include <stddef.h>

#define EXPORT __attribute__((visibility("default")))
#define GiB (1ull << 30)
#define MiB (1ull << 20)

/* NVML's documented ABI: nvmlMemory_t and nvmlMemory_v2_t; 0 is NVML_SUCCESS. */
struct nvml_memory {
	unsigned long long total, free, used;
};
struct nvml_memory_v2 {
	unsigned int version;
	unsigned long long total, reserved, free, used;
};
struct nvml_device {
	unsigned int index;
};

static struct nvml_device devices[2] = { { 0 }, { 1 } };
static int initialised;

EXPORT int nvmlInit_v2(void)
{
	initialised = 1;
	return 0;
}

EXPORT int nvmlShutdown(void)
{
	initialised = 0;
	return 0;
}

EXPORT int nvmlDeviceGetCount_v2(unsigned int *count)
{
	if (!initialised)
		return 1; /* NVML_ERROR_UNINITIALIZED */
	*count = 2;
	return 0;
}

EXPORT int nvmlDeviceGetHandleByIndex_v2(unsigned int index, struct nvml_device **device)
{
	if (!initialised)
		return 1;
	if (index >= 2 || !device)
		return 2; /* NVML_ERROR_INVALID_ARGUMENT */
	*device = &devices[index];
	return 0;
}

EXPORT int nvmlDeviceGetIndex(struct nvml_device *device, unsigned int *index)
{
	if (!device || !index)
		return 2;
	*index = device->index;
	return 0;
}

/* v1: 16 GiB, 1 GiB used. */
EXPORT int nvmlDeviceGetMemoryInfo(struct nvml_device *device, struct nvml_memory *m)
{
	if (!initialised)
		return 1;
	if (!device || !m)
		return 2;
	m->total = 16 * GiB;
	m->used = 1 * GiB;
	m->free = m->total - m->used;
	return 0;
}

/* v2: 16 GiB, 2 GiB used of which 256 MiB reserved; the version must be v2's. */
EXPORT int nvmlDeviceGetMemoryInfo_v2(struct nvml_device *device, struct nvml_memory_v2 *m)
{
	if (!initialised)
		return 1;
	if (!device || !m)
		return 2;
	if (m->version != (unsigned int)(sizeof(*m) | 2u << 24))
		return 25; /* NVML_ERROR_ARGUMENT_VERSION_MISMATCH */
	m->total = 16 * GiB;
	m->used = 2 * GiB;
	m->reserved = 256 * MiB;
	m->free = m->total - m->used;
	return 0;
}
