/* SPDX-License-Identifier: MIT */
/* audit/nvtxlegacy.h: the legacy libnvToolsExt's exported NVTX functions, bound to wrappers that give the module each event. */
#ifndef CUA_NVTXLEGACY_H
#define CUA_NVTXLEGACY_H

#include <link.h>
#include <stdint.h>

/* 1 if elf_name is one of the legacy NVTX functions cuaudit wraps (and NVTX is on). */
unsigned cua_nvtxlegacy_is_name(const char *elf_name);
/* For libnvToolsExt.so* (by file name), with NVTX on: the cookie to give it (with
   LA_FLG_BINDTO), the module's NVTX tables made; 0 for any other object. */
uintptr_t cua_nvtxlegacy_open(struct link_map *map);
/* Whether a cookie is the one cua_nvtxlegacy_open gave. */
int cua_nvtxlegacy_is_cookie(uintptr_t cookie);
/* A binding to the legacy library: the wrapper of a wrapped function (value kept as the
   real one), else value unchanged. */
uintptr_t cua_nvtxlegacy_bind(const char *symname, uintptr_t value);

#endif
