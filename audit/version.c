/* SPDX-License-Identifier: MIT */
/* audit/version.c: la_version: reads the configuration once and starts the hooks in their order. */
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include "audit.h"
#include "config.h"
#include "configs.h"
#include "nvtx.h"
#include "environment.h"
#include "cua_version.h"
#include "dispatch.h"
#include "gotfix.h"
#include "entrypatch.h"
#include "hooks.h"
#include "demangle.h"
#include "instance.h"
#include "libs.h"
#include "log.h"
#include "out.h"
#include "passthrough.h"
#include "procaddress.h"
#include "provenance.h"
#include "table.h"
#include "writer.h"

static const char *env(const char *name)
{
	return getenv(name);
}

static void diag_stderr(const char *message)
{
	cua_out_stderr(message, strlen(message));
}

/* Each hook's own configuration, read beside the core's; read-only once the hooks start. */
static struct cua_hook_configs hook_cfg;

CUA_LA_EXPORT unsigned int la_version(unsigned int version)
{
	/* A second instance (DT_AUDIT and LD_AUDIT both name cuaudit) would log every call
	   twice and apply every fault twice. Returning 0 makes the loader drop it (glibc
	   elf/rtld.c, load_audit_module); the first instance says so at its first CUDA
	   library, so that processes without CUDA stay silent. */
	if (!cua_instance_claim())
		return 0;
	cua_process_init();
	cua_table_init();
	cua_provenance_init();
	cua_config_load(&cua_cfg, env, diag_stderr, getauxval(AT_SECURE) != 0);
	cua_config_restrict_secure(&cua_cfg);
	cua_demangle_names = cua_cfg.demangle;
	cua_hook_configs_load(&hook_cfg, &cua_cfg, env, diag_stderr);
	cua_out_setup(cua_cfg.log_file);
	/* One read of /proc/self/stat, only where a report file may be written. */
	if (hook_cfg.summary.path[0] || hook_cfg.trace.path[0] || hook_cfg.metrics.path[0])
		cua_writer_setup();
	/* CUAUDIT_CAPTURE=nvtx:NAME: its name has its id before any event arrives. */
	if (cua_cfg.capture == CUA_CAPTURE_NVTX)
		cua_nvtx_capture(cua_cfg.capture_nvtx, cua_cfg.capture_nvtx_domain);
	cua_hooks_start(&cua_cfg, &hook_cfg);
	cua_dispatch_close();
	cua_gotfix_init(cua_environment_check(cua_cfg.secure));
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}
