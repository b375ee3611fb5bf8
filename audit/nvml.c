/* SPDX-License-Identifier: MIT */
/* audit/nvml.c: binds NVML's memory-info functions to wrappers that show the memory quota and the group's use, as cuMemGetInfo does. */
#include <string.h>
#include "memlimit.h"
#include "memtable.h"
#include "nvml.h"
#include "process.h"
#include "symtab.h"

/* NVML's documented ABI (nvml.h is not on every build machine): a handle, a status (0 is
   NVML_SUCCESS) and the two memory structs. */
typedef void *nvml_device;
struct nvml_memory {          /* nvmlMemory_t */
	unsigned long long total, free, used;
};
struct nvml_memory_v2 {       /* nvmlMemory_v2_t */
	unsigned int version;
	unsigned long long total, reserved, free, used;
};

enum { V1, V2, NWRAPPED };
static const char *const names[NWRAPPED] = { "nvmlDeviceGetMemoryInfo",
					     "nvmlDeviceGetMemoryInfo_v2" };
static uintptr_t real[NWRAPPED];
static int (*get_index)(nvml_device, unsigned int *);
static _Alignas(8) char nvml_cookie; /* its address is libnvidia-ml's loader cookie */

int cua_nvml_wanted(void)
{
	const struct cua_memlimit_config *l = cua_memlimit_limits();
	int any = l->mem_limit != 0;

	for (unsigned d = 0; d < CUA_MAX_DEVICES; d++)
		any |= l->mem_limit_dev[d] != 0;
	return any;
}

static int nvml_index(const char *elf_name)
{
	if (strncmp(elf_name, "nvmlDeviceGetMemoryInfo", 23) != 0)
		return -1;
	for (int i = 0; i < NWRAPPED; i++)
		if (strcmp(elf_name, names[i]) == 0)
			return i;
	return -1;
}

unsigned cua_nvml_is_name(const char *elf_name)
{
	return elf_name[0] == 'n' && nvml_index(elf_name) >= 0;
}

uintptr_t cua_nvml_open(struct link_map *map)
{
	const char *path = map->l_name, *slash = path ? strrchr(path, '/') : NULL;
	const char *base = slash ? slash + 1 : path;

	if (!base || strncmp(base, "libnvidia-ml.so", 15) != 0 || !cua_nvml_wanted())
		return 0;
	cua_memlimit_prepare();
	get_index = (int (*)(nvml_device, unsigned int *))cua_symtab_function_address(
		map, "nvmlDeviceGetIndex");
	return (uintptr_t)&nvml_cookie;
}

int cua_nvml_is_cookie(uintptr_t cookie)
{
	return cookie == (uintptr_t)&nvml_cookie;
}

/* total becomes the quota, free at most the quota less the use, used the rest of the quota:
   total = used + free, as NVML documents. Nothing changes for a device without a quota or
   whose index NVML does not tell. */
static int clamp(nvml_device dev, unsigned long long *total, unsigned long long *free,
		 unsigned long long *used)
{
	unsigned int index = 0;
	uint64_t quota, in_use, t = *total, f = *free;
	/* NVML writes the program's errno, not the audit namespace's: what the wrapped call
	   left there stays. */
	int *err = cua_program_errno ? cua_program_errno() : NULL, saved = err ? *err : 0, r;

	if (!get_index)
		return 0;
	r = get_index(dev, &index);
	if (err)
		*err = saved;
	if (r != 0 || !cua_memlimit_view(index, &quota, &in_use))
		return 0;
	cua_mem_clamp(&f, &t, quota, in_use);
	*total = t;
	*free = f;
	*used = t - f;
	return 1;
}

static int w_nvmlDeviceGetMemoryInfo(nvml_device dev, struct nvml_memory *m)
{
	int r = ((int (*)(nvml_device, struct nvml_memory *))real[V1])(dev, m);

	if (r == 0 && m)
		clamp(dev, &m->total, &m->free, &m->used);
	return r;
}

static int w_nvmlDeviceGetMemoryInfo_v2(nvml_device dev, struct nvml_memory_v2 *m)
{
	int r = ((int (*)(nvml_device, struct nvml_memory_v2 *))real[V2])(dev, m);

	/* The quota's view holds no reserve of the driver's own: used is the group's. */
	if (r == 0 && m && clamp(dev, &m->total, &m->free, &m->used))
		m->reserved = 0;
	return r;
}

uintptr_t cua_nvml_bind(const char *symname, uintptr_t value)
{
	int i = nvml_index(symname);

	if (i < 0)
		return value;
	__atomic_store_n(&real[i], value, __ATOMIC_RELEASE);
	return i == V1 ? (uintptr_t)w_nvmlDeviceGetMemoryInfo : (uintptr_t)w_nvmlDeviceGetMemoryInfo_v2;
}
