/* SPDX-License-Identifier: MIT */
/* hooks/compute/compute_config.c: CUAUDIT_COMPUTE_LIMIT, the compute share's variable: its parser and its message. */
#include <string.h>
#include "compute_config.h"

#define SHARE_FLAG 0x100u

/* One item, [DEVICE:]PCT[%][:share], up to its comma or the end: 0 or -1. */
static int item(const char **sp, int *dev, uint32_t *word)
{
	const char *p = *sp;
	uint64_t a, b;

	*dev = -1;
	if (cua_config_parse_u64(&p, &a) != 0)
		return -1;
	if (*p == ':' && p[1] >= '0' && p[1] <= '9') {
		p++;
		if (a >= CUA_COMPUTE_DEVICES || cua_config_parse_u64(&p, &b) != 0)
			return -1;
		*dev = (int)a;
		a = b;
	}
	if (*p == '%')
		p++;
	if (a < 1 || a > 100)
		return -1;
	*word = (uint32_t)a;
	if (*p == ':') {
		if (strncmp(p + 1, "share", 5) != 0 || (p[6] != '\0' && p[6] != ','))
			return -1;
		*word |= SHARE_FLAG;
		p += 6;
	}
	*sp = p;
	return 0;
}

int cua_compute_config_parse(const char *s, struct cua_compute_config *cfg)
{
	uint32_t all = 0, dev[CUA_COMPUTE_DEVICES] = { 0 };
	int mode = -1;

	for (;;) {
		uint32_t w;
		int d;

		if (item(&s, &d, &w) != 0)
			return -1;
		/* Caps and weights mixed would leave a group's meaning to its neighbours. */
		if (mode >= 0 && mode != !!(w & SHARE_FLAG))
			return -1;
		mode = !!(w & SHARE_FLAG);
		if (d < 0) {
			if (all)
				return -1;
			all = w;
		} else {
			if (dev[d])
				return -1;
			dev[d] = w;
		}
		if (*s == '\0')
			break;
		if (*s != ',')
			return -1;
		s++;
	}
	for (unsigned d = 0; d < CUA_COMPUTE_DEVICES; d++)
		cfg->limit[d] = dev[d] ? dev[d] : all;
	cfg->on = 1;
	return 0;
}

void cua_compute_config_load(struct cua_compute_config *cfg, cua_getenv_fn get, cua_diag_fn diag,
			     int secure)
{
	const char *v = get("CUAUDIT_COMPUTE_LIMIT");

	memset(cfg, 0, sizeof(*cfg));
	if (v && cua_compute_config_parse(v, cfg) != 0) {
		memset(cfg, 0, sizeof(*cfg));
		cua_config_bad_value(diag, "CUAUDIT_COMPUTE_LIMIT", v,
				     "PCT (an integer percent from 1 to 100: the group's GPU time cap on"
				     " every device), DEVICE:PCT pairs (devices 0 to 15) separated by"
				     " commas, each device and the default at most once, or the same with"
				     " :share on every item (PCT:share, DEVICE:PCT:share: a weight, not a"
				     " cap)",
				     "No compute limit is applied.");
	}
	/* Test only: a process whose own clock runs ahead of the others', as after hours of
	   drift, to show that the share's times do not depend on it (tests/cases/compute.sh). */
	if (cfg->on && (v = get("CUAUDIT_TEST_CLOCK_OFFSET_MS"))) {
		const char *p = v;
		uint64_t ms;

		if (cua_config_parse_u64(&p, &ms) == 0 && *p == '\0' && ms <= 3600u * 1000)
			cfg->test_clock_offset_ns = ms * 1000000u;
		else
			cua_config_bad_value(diag, "CUAUDIT_TEST_CLOCK_OFFSET_MS", v,
					     "an integer from 0 to 3600000 (milliseconds; for tests only)",
					     "The clock is left as it is.");
	}
	/* Only observe in a secure process. */
	if (secure)
		memset(cfg, 0, sizeof(*cfg));
}
