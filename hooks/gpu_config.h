/* SPDX-License-Identifier: MIT */
/* hooks/gpu_config.h: GPU timing's configuration (CUAUDIT_GPU_TIME), read once in la_version. */
#ifndef CUA_GPU_CONFIG_H
#define CUA_GPU_CONFIG_H

#include "config.h"

struct cua_gpu_config {
	/* CUAUDIT_GPU_TIME (issue 21): 0 off (the default), 1 every launch, copy, memset and
	   graph launch, N: 1 of each thread's N such calls. */
	unsigned gpu_time;
};

/* CUAUDIT_GPU_TIME: off/0, on/1, or an integer N from 2 to 1000000 (1 call in N). */
int cua_gpu_config_parse(const char *s, unsigned *out);
/* Reads CUAUDIT_GPU_TIME through get. A bad value: one message through diag, and off. */
void cua_gpu_config_load(struct cua_gpu_config *cfg, cua_getenv_fn get, cua_diag_fn diag);

#endif
