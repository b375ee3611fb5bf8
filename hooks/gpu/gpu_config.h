/* SPDX-License-Identifier: MIT */
/* hooks/gpu/gpu_config.h: GPU timing's configuration (CUAUDIT_GPU_TIME, CUAUDIT_GPU_TIME_START), read once in la_version. */
#ifndef CUA_GPU_CONFIG_H
#define CUA_GPU_CONFIG_H

#include "config.h"

struct cua_gpu_config {
	/* CUAUDIT_GPU_TIME: 0 off (the default), 1 every launch, copy, memset and
	   graph launch, N: 1 of each thread's N such calls. */
	unsigned gpu_time;
	/* CUAUDIT_GPU_TIME_START: 0 "call" (the default: an idle stream's work started
	   inside its call), 1 "event" (a start event before a call on a stream that may be idle). */
	int start_event;
};

/* CUAUDIT_GPU_TIME: off/0, on/1, or an integer N from 2 to 1000000 (1 call in N). */
int cua_gpu_config_parse(const char *s, unsigned *out);
/* CUAUDIT_GPU_TIME_START: call or event. */
int cua_gpu_config_parse_start(const char *s, int *out);
/* Reads CUAUDIT_GPU_TIME and CUAUDIT_GPU_TIME_START through get. A bad value: one message through diag, and off. */
void cua_gpu_config_load(struct cua_gpu_config *cfg, cua_getenv_fn get, cua_diag_fn diag);

#endif
