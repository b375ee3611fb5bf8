/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_parsers.c: libFuzzer targets for every configuration parser; FUZZ_TARGET picks one. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "fault_config.h"
#include "memlimit_config.h"
#include "plugins_config.h"
#include "fmt.h"

#define CHECK(cond)                                                                            \
	do {                                                                                   \
		if (!(cond))                                                                   \
			abort();                                                               \
	} while (0)

static struct cua_config cfg;
static struct cua_fault_config faults;
static struct cua_memlimit_config limits;
static struct cua_plugins_config plugins;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[4096], out[256], why[256];
	uint64_t v = 0;
	long n;

	if (size >= sizeof(s))
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	memset(&cfg, 0, sizeof(cfg));
	memset(&faults, 0, sizeof(faults));
	memset(&limits, 0, sizeof(limits));
	memset(&plugins, 0, sizeof(plugins));
	switch (FUZZ_TARGET) {
	case 0: { /* log level */
		int level = cua_config_parse_level(s);

		CHECK(level >= -1 && level <= CUA_LOG_DEBUG);
		break;
	}
	case 1: /* sizes */
		if (cua_config_parse_size(s, &v) == 0)
			CHECK(v > 0);
		break;
	case 2: /* CUAUDIT_MEM_LIMIT */
		if (cua_memlimit_config_parse(s, &limits) != 0)
			CHECK(limits.mem_limit == 0);
		break;
	case 3: /* CUAUDIT_FAULT */
		if (cua_fault_config_parse(s, &faults, why, sizeof(why)) == 0) {
			CHECK(faults.nfaults >= 1 && faults.nfaults <= CUA_MAX_FAULTS);
			for (unsigned i = 0; i < faults.nfaults; i++)
				CHECK(faults.faults[i].mode >= CUA_FAULT_EVERY && faults.faults[i].mode <= CUA_FAULT_PROB);
		} else {
			CHECK(faults.nfaults == 0 && memchr(why, '\0', sizeof(why)));
		}
		break;
	case 4: /* CUAUDIT_PLUGINS */
		if (cua_plugins_config_parse(s, &plugins) == 0)
			for (unsigned i = 0; i < plugins.nplugins; i++)
				CHECK(plugins.plugins[i][0] == '/');
		break;
	case 5: /* file-name templates */
		/* The check the configuration makes and the expansion the outputs make must agree:
		   a template the check rejects never expands, and one that expands was accepted. */
		n = cua_fmt_path(out, sizeof(out), s, 12345, "host");
		if (n >= 0)
			CHECK((size_t)n < sizeof(out) && out[n] == '\0' && cua_config_check_template(s) == 0);
		if (cua_config_check_template(s) != 0)
			CHECK(n < 0);
		break;
	}
	return 0;
}
