/* SPDX-License-Identifier: MIT */
/* hooks/compute/compute_config.h: the compute share's configuration (CUAUDIT_COMPUTE_LIMIT), read once in la_version. */
#ifndef CUA_COMPUTE_CONFIG_H
#define CUA_COMPUTE_CONFIG_H

#include <stdint.h>
#include "config.h"

/* Devices a compute limit may name: 0 to 15 (the share file's CUA_CS_DEVICES). */
#define CUA_COMPUTE_DEVICES 16u

struct cua_compute_config {
	/* Limit words per device (compshare.h): 0 none, else the percent, with 0x100 where it is
	   a weight (PCT:share) rather than a cap. */
	uint32_t limit[CUA_COMPUTE_DEVICES];
	int on;
	/* Test only: CUAUDIT_TEST_CLOCK_OFFSET_MS in ns (cuaudit's clock set that far ahead of
	   CLOCK_MONOTONIC, as hours of TSC drift would), 0 without it. */
	uint64_t test_clock_offset_ns;
};

/* CUAUDIT_COMPUTE_LIMIT: comma-separated items [DEVICE:]PCT[:share], PCT an integer from 1
   to 100 (a trailing % allowed); an item without a device is every device's default; every
   item caps or every item is a weight, never both; each device and the default at most once.
   Returns 0 or -1. */
int cua_compute_config_parse(const char *s, struct cua_compute_config *cfg);
/* Reads CUAUDIT_COMPUTE_LIMIT, and the test-only CUAUDIT_TEST_CLOCK_OFFSET_MS, through get. A bad value: one message through diag, naming the
   variable and the accepted values, and no compute limit. In a secure process none either. */
void cua_compute_config_load(struct cua_compute_config *cfg, cua_getenv_fn get, cua_diag_fn diag,
			     int secure);

#endif
