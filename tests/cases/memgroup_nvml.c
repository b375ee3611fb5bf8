/* SPDX-License-Identifier: MIT */
/* tests/cases/memgroup_nvml.c: NVML's memory reports through the program's own PLT (linked with libnvidia-ml, as a monitoring tool may be), with no CUDA call at all. */
#include <stdio.h>

struct nvml_memory {
	unsigned long long total, free, used;
};
struct nvml_memory_v2 {
	unsigned int version;
	unsigned long long total, reserved, free, used;
};
int nvmlInit_v2(void);
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device);
int nvmlDeviceGetMemoryInfo(void *device, struct nvml_memory *m);
int nvmlDeviceGetMemoryInfo_v2(void *device, struct nvml_memory_v2 *m);

#define MiB (1ull << 20)

int main(void)
{
	struct nvml_memory m1;
	struct nvml_memory_v2 m2 = { .version = (unsigned)(sizeof(m2) | 2u << 24) };
	void *dev;
	int r1, r2;

	if (nvmlInit_v2() != 0 || nvmlDeviceGetHandleByIndex_v2(0, &dev) != 0)
		return 2;
	r1 = nvmlDeviceGetMemoryInfo(dev, &m1);
	r2 = nvmlDeviceGetMemoryInfo_v2(dev, &m2);
	printf("nvml 0 v1 -> %d total %llu free %llu used %llu (MiB)\n", r1, m1.total / MiB,
	       m1.free / MiB, m1.used / MiB);
	printf("nvml 0 v2 -> %d total %llu reserved %llu free %llu used %llu (MiB)\n", r2,
	       m2.total / MiB, m2.reserved / MiB, m2.free / MiB, m2.used / MiB);
	return 0;
}
