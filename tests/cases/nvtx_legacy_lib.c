/* SPDX-License-Identifier: MIT */
/* tests/cases/nvtx_legacy_lib.c: a stand-in for the legacy libnvToolsExt.so.1: the toolkit's NVTX v3 built with NVTX_EXPORT_API, so it exports the API as functions and loads NVTX_INJECTION64_PATH as the real one does. */
#define NVTX_EXPORT_API
#include <nvtx3/nvToolsExt.h>
