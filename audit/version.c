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
#include "gpu.h"
#include "compute.h"
#include "cua_version.h"
#include "dispatch.h"
#include "gotfix.h"
#include "entrypatch.h"
#include "hooks.h"
#include "demangle.h"
#include "instance.h"
#include "kernels.h"
#include "libs.h"
#include "log.h"
#include "out.h"
#include "passthrough.h"
#include "procaddress.h"
#include "provenance.h"
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

static void start_hooks(void)
{
	/* Hooks that may skip a call first; observers after, so they see the outcome. */
	cua_memlimit_init(&cua_cfg, &hook_cfg.memlimit);
	cua_fault_init(&hook_cfg.fault);
	if (cua_cfg.capture == CUA_CAPTURE_NVTX)
		cua_nvtx_capture(cua_cfg.capture_nvtx, cua_cfg.capture_nvtx_domain);
	/* Before GPU timing: a launch held back is timed from when it goes on. */
	if (hook_cfg.compute.on && !hook_cfg.memlimit.share_dir[0]) {
		diag_stderr("cuaudit: CUAUDIT_COMPUTE_LIMIT needs a usable CUAUDIT_SHARE_DIR (see its"
			    " message): no compute limit is applied.\n");
		hook_cfg.compute.on = 0;
	}
	cua_compute_init(&hook_cfg.compute, hook_cfg.memlimit.group, hook_cfg.memlimit.share_dir);
	/* The compute share charges GPU intervals: every launch, copy and memset is timed. */
	if (cua_compute_on() && hook_cfg.gpu.gpu_time != 1) {
		if (hook_cfg.gpu.gpu_time > 1)
			diag_stderr("cuaudit: CUAUDIT_COMPUTE_LIMIT times every GPU call: its"
				    " CUAUDIT_GPU_TIME sampling is set aside.\n");
		hook_cfg.gpu.gpu_time = 1;
	}
	cua_gpu_init(&hook_cfg.gpu);
	/* The kernels' GPU time per NVTX range, for the summary's table. */
	if (cua_cfg.nvtx && hook_cfg.summary.path[0])
		cua_nvtx_init();
	cua_summary_init(&cua_cfg, &hook_cfg.summary, &hook_cfg.metrics);
	cua_trace_init(&cua_cfg, &hook_cfg.trace);
	cua_errcount_init(&hook_cfg.errcount);
	cua_log_init(&cua_cfg);
	cua_kernels_init(&cua_cfg);
	cua_live_init(&cua_cfg);
	cua_plugins_load(&hook_cfg.plugins);
	cua_dispatch_close();
}

CUA_LA_EXPORT unsigned int la_version(unsigned int version)
{
	/* A second instance (DT_AUDIT and LD_AUDIT both name cuaudit) would log every call
	   twice and apply every fault twice. Returning 0 makes the loader drop it (glibc
	   elf/rtld.c, load_audit_module); the first instance says so at its first CUDA
	   library, so that processes without CUDA stay silent. */
	if (!cua_instance_claim())
		return 0;
	cua_process_init();
	cua_provenance_init();
	cua_config_load(&cua_cfg, env, diag_stderr, getauxval(AT_SECURE) != 0);
	cua_config_restrict_secure(&cua_cfg);
	cua_demangle_names = cua_cfg.demangle;
	cua_hook_configs_load(&hook_cfg, &cua_cfg, env, diag_stderr);
	cua_out_setup(cua_cfg.log_file);
	/* One read of /proc/self/stat, only where a report file may be written. */
	if (hook_cfg.summary.path[0] || hook_cfg.trace.path[0])
		cua_writer_setup();
	start_hooks();
	cua_gotfix_init(cua_environment_check(cua_cfg.secure));
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}
