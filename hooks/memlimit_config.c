/* SPDX-License-Identifier: MIT */
/* hooks/memlimit_config.c: CUAUDIT_MEM_LIMIT, the memory limit hook's variable: its parser and its message. */
#include <string.h>
#include "memlimit_config.h"

int cua_memlimit_config_parse(const char *s, struct cua_memlimit_config *cfg)
{
	uint64_t all = 0, dev[CUA_MAX_DEVICES] = { 0 };

	for (;;) {
		const char *p = s;
		uint64_t d, size;

		if (cua_config_parse_u64(&p, &d) == 0 && *p == ':') {
			p++;
			/* A device named twice is refused like a second default: neither wins. */
			if (d >= CUA_MAX_DEVICES || cua_config_parse_size_at(&p, &size) != 0 || size == 0 ||
			    dev[d])
				return -1;
			dev[d] = size;
		} else {
			p = s;
			if (cua_config_parse_size_at(&p, &size) != 0 || size == 0 || all)
				return -1;
			all = size;
		}
		if (*p == '\0')
			break;
		if (*p != ',')
			return -1;
		s = p + 1;
	}
	cfg->mem_limit = all;
	memcpy(cfg->mem_limit_dev, dev, sizeof(dev));
	return 0;
}

void cua_memlimit_config_load(struct cua_memlimit_config *cfg, cua_getenv_fn get,
			      cua_diag_fn diag, int secure)
{
	const char *v = get("CUAUDIT_MEM_LIMIT");

	memset(cfg, 0, sizeof(*cfg));
	if (v && cua_memlimit_config_parse(v, cfg) != 0)
		cua_config_bad_value(diag, "CUAUDIT_MEM_LIMIT", v,
				     "a size such as 4GiB, 512MiB or 1.5GB (units B, KB, MB, GB, TB,"
				     " KiB, MiB, GiB, TiB), or DEVICE:SIZE pairs separated by commas, each"
				     " device and the default at most once",
				     "No limit is applied.");
	/* Only observe in a secure process: a limit would change what a privileged program
	   does. */
	if (secure)
		memset(cfg, 0, sizeof(*cfg));
}
