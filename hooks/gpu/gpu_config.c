/* SPDX-License-Identifier: MIT */
/* hooks/gpu/gpu_config.c: CUAUDIT_GPU_TIME and CUAUDIT_GPU_TIME_START, GPU timing's variables: their parsers and messages. */
#include "gpu_config.h"

int cua_gpu_config_parse(const char *s, unsigned *out)
{
	uint64_t v;

	if (cua_config_same_word(s, "off") || cua_config_same_word(s, "on")) {
		*out = cua_config_same_word(s, "on");
		return 0;
	}
	if (cua_config_parse_u64(&s, &v) != 0 || *s || v > 1000000)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int cua_gpu_config_parse_start(const char *s, int *out)
{
	if (!cua_config_same_word(s, "call") && !cua_config_same_word(s, "event"))
		return -1;
	*out = cua_config_same_word(s, "event");
	return 0;
}

void cua_gpu_config_load(struct cua_gpu_config *cfg, cua_getenv_fn get, cua_diag_fn diag)
{
	const char *v = get("CUAUDIT_GPU_TIME");

	cfg->gpu_time = 0;
	if (v && cua_gpu_config_parse(v, &cfg->gpu_time) != 0) {
		cfg->gpu_time = 0;
		cua_config_bad_value(diag, "CUAUDIT_GPU_TIME", v,
				     "off (or 0), on (or 1: every launch, copy and memset) or an integer N"
				     " from 2 to 1000000 (1 such call in N)",
				     "GPU work is not timed.");
	}
	v = get("CUAUDIT_GPU_TIME_START");
	cfg->start_event = 0;
	if (v && cua_gpu_config_parse_start(v, &cfg->start_event) != 0) {
		cfg->start_event = 0;
		cua_config_bad_value(diag, "CUAUDIT_GPU_TIME_START", v,
				     "call (an idle stream's work started inside its call) or event (a "
				     "start event before a call on a stream that may be idle)",
				     "Starts are bounded by the calls.");
	}
}
