/* SPDX-License-Identifier: MIT */
/* hooks/memlimit/memlimit_config.c: CUAUDIT_MEM_LIMIT, the memory limit hook's variable: its parser and its message. */
#include <string.h>
#include "fmt.h"
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

int cua_memlimit_group_name_ok(const char *name)
{
	size_t n = 0;

	if (!name || name[0] == '.' || name[0] == '\0')
		return 0;
	for (; name[n]; n++) {
		char c = name[n];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return n < 128;
}

/* Only %q{NAME} and %%: a group named after the pid or the host would be no group. */
static int only_vars(const char *s)
{
	for (; *s; s++)
		if (*s == '%' && (*++s == 'p' || *s == 'h'))
			return 0;
	return 1;
}

int cua_memlimit_group_parse(const char *s, char *out, cua_getenv_fn get)
{
	char name[CUA_PATH_MAX];

	if (cua_config_check_template(s) != 0 || !only_vars(s) ||
	    cua_config_capture_template(s, get) != 0 ||
	    cua_fmt_path(name, sizeof(name), s, 0, "") < 0 || !cua_memlimit_group_name_ok(name))
		return -1;
	memcpy(out, name, strlen(name) + 1);
	return 0;
}

static int any_limit(const struct cua_memlimit_config *cfg)
{
	int any = cfg->mem_limit != 0;

	for (unsigned d = 0; d < CUA_MAX_DEVICES; d++)
		any |= cfg->mem_limit_dev[d] != 0;
	return any;
}

static void load_group(struct cua_memlimit_config *cfg, cua_getenv_fn get, cua_diag_fn diag)
{
	const char *v = get("CUAUDIT_MEM_GROUP"), *dir = get("CUAUDIT_SHARE_DIR");
	/* The compute share (hooks/compute) lives in the same directory and uses the same
	   group: the one message says what becomes of it too. */
	int compute = get("CUAUDIT_COMPUTE_LIMIT") != NULL;

	/* Checked even without a group: a bad value is said where it is set. */
	if (dir && (dir[0] != '/' || cua_config_copy_path(cfg->share_dir, dir) != 0)) {
		cfg->share_dir[0] = '\0';
		cua_config_bad_value(diag, "CUAUDIT_SHARE_DIR", dir,
				     "an absolute path of a directory that the group's processes share",
				     compute ? "There is no group and no compute limit is applied: the"
					       " memory limit, if any, is this process's own."
					     : "There is no group: the memory limit, if any, is this"
					       " process's own.");
		return;
	}
	if (!dir)
		memcpy(cfg->share_dir, "/dev/shm", 9);
	if (!v)
		return;
	if (cua_memlimit_group_parse(v, cfg->group, get) != 0) {
		cfg->group[0] = '\0';
		cua_config_bad_value(diag, "CUAUDIT_MEM_GROUP", v,
				     "a group name of 1 to 127 characters A-Z a-z 0-9 . _ - not starting"
				     " with a dot, once %q{NAME} (the value of environment variable"
				     " NAME) is expanded, e.g. pod-%q{POD_UID}",
				     compute ? "There is no group: the memory limit and the compute limit,"
					       " if any, are this process's own."
					     : "There is no group: the memory limit, if any, is this"
					       " process's own.");
		return;
	}
	/* A group for a compute share alone (CUAUDIT_COMPUTE_LIMIT) has no memory quota. */
	if (!any_limit(cfg) && !compute) {
		cfg->group[0] = '\0';
		cua_config_bad_value(diag, "CUAUDIT_MEM_GROUP", v,
				     "a group name together with CUAUDIT_MEM_LIMIT, the quota the"
				     " group's processes share, or CUAUDIT_COMPUTE_LIMIT, their compute"
				     " share",
				     "There is no group.");
	}
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
	load_group(cfg, get, diag);
	/* Only observe in a secure process: a limit would change what a privileged program
	   does. */
	if (secure)
		memset(cfg, 0, sizeof(*cfg));
}
