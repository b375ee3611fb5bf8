/* SPDX-License-Identifier: MIT */
/* audit/nvml.h: NVML's memory reports (nvmlDeviceGetMemoryInfo, _v2) clamped to the memory limit, as libcuda's are. */
#ifndef CUA_NVML_H
#define CUA_NVML_H

#include <link.h>
#include <stdint.h>

/* Whether NVML is watched: some device has a memory quota (CUAUDIT_MEM_LIMIT). */
int cua_nvml_wanted(void);
/* 1 if elf_name is one of the NVML functions cuaudit wraps. */
unsigned cua_nvml_is_name(const char *elf_name);
/* For libnvidia-ml (by file name), when wanted: records its nvmlDeviceGetIndex and returns
   the cookie to give it (with LA_FLG_BINDTO); 0 for any other object. */
uintptr_t cua_nvml_open(struct link_map *map);
/* Whether a cookie is the one cua_nvml_open gave. */
int cua_nvml_is_cookie(uintptr_t cookie);
/* A binding to NVML: the wrapper of a wrapped function (value kept as the real one), else
   value unchanged. */
uintptr_t cua_nvml_bind(const char *symname, uintptr_t value);

#endif
