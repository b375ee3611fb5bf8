/* SPDX-License-Identifier: MIT */
/* audit/version.c: la_version: reads the configuration once and checks the loader cuaudit runs under. */
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include "config.h"
#include "cua_version.h"
#include "dispatch.h"
#include "gotfix.h"
#include "entrypatch.h"
#include "hooks.h"
#include "instance.h"
#include "kernels.h"
#include "libs.h"
#include "log.h"
#include "out.h"
#include "passthrough.h"
#include "procaddress.h"
#include "provenance.h"

unsigned cua_deferred_warnings;

static const char *env(const char *name)
{
	return getenv(name);
}

static void diag_stderr(const char *message)
{
	cua_out_stderr(message, strlen(message));
}

/* "2.36" -> 236; our own parse, since strtol consults the locale. */
static unsigned glibc_version(const char *s)
{
	unsigned major = 0, minor = 0;

	while (*s >= '0' && *s <= '9')
		major = major * 10 + (unsigned)(*s++ - '0');
	if (*s == '.')
		s++;
	while (*s >= '0' && *s <= '9')
		minor = minor * 10 + (unsigned)(*s++ - '0');
	return major * 100 + minor;
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int first_in_ld_audit(void)
{
	const char *list = getenv("LD_AUDIT");
	char first[CUA_PATH_MAX];
	Dl_info self;
	size_t n;

	if (!list || !*list || !dladdr((void *)la_version, &self) || !self.dli_fname)
		return 1; /* DT_AUDIT or unknown: nothing to compare */
	n = strcspn(list, ":");
	if (n >= sizeof(first))
		return 1;
	memcpy(first, list, n);
	first[n] = '\0';
	if (strchr(first, '/'))
		return same_file(first, self.dli_fname);
	const char *base = strrchr(self.dli_fname, '/');
	return strcmp(first, base ? base + 1 : self.dli_fname) == 0;
}

static int said_twice;

void cua_version_flush_warnings(void)
{
	unsigned w = __atomic_exchange_n(&cua_deferred_warnings, 0, __ATOMIC_ACQ_REL);

	/* The same version string as `cuaudit --version` (cua_version.h, from project()). */
	if (w & CUA_NOTE_BANNER)
		cua_log_msg(CUA_LOG_INFO, "cuaudit " CUA_VERSION ", glibc ", gnu_get_libc_version(),
			    NULL);
	if (w & CUA_WARN_OLD_GLIBC)
		cua_log_msg(CUA_LOG_WARN, "glibc ", gnu_get_libc_version(),
			    " is older than 2.35: bind-now objects are not audited and every lazy "
			    "PLT call goes through the loader's slow path",
			    NULL);
	if (w & CUA_NOTE_SECURE)
		cua_log_msg(CUA_LOG_INFO, "secure mode (setuid or AT_SECURE): cuaudit only "
			    "observes: no memory limit, no faults, no plugins, no output files, no "
			    "library substitutes and no addresses in the log", NULL);
	if (cua_instance_others() && !__atomic_exchange_n(&said_twice, 1, __ATOMIC_ACQ_REL))
		cua_log_msg(CUA_LOG_WARN, "cuaudit is loaded twice in this process (DT_AUDIT and "
			    "LD_AUDIT, for example through cuaudit run); the second instance stays "
			    "inactive", NULL);
	if (w & CUA_WARN_NOT_FIRST)
		cua_log_msg(CUA_LOG_WARN, "cuaudit is not the first module in LD_AUDIT; modules "
			    "before it can hide dlsym bindings from it. Put it first.", NULL);
}

static void start_hooks(void)
{
	/* Hooks that may skip a call first; observers after, so they see the outcome. */
	cua_memlimit_init();
	cua_fault_init();
	cua_summary_init();
	cua_trace_init();
	cua_errcount_init();
	cua_log_init();
	cua_kernels_init();
	cua_plugins_load();
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
	cua_out_setup(cua_cfg.log_file);
	start_hooks();
	cua_deferred_warnings |= CUA_NOTE_BANNER;
	if (cua_cfg.secure)
		cua_deferred_warnings |= CUA_NOTE_SECURE;
	if (glibc_version(gnu_get_libc_version()) < 235)
		cua_deferred_warnings |= CUA_WARN_OLD_GLIBC;
	cua_gotfix_init(glibc_version(gnu_get_libc_version()));
	if (!first_in_ld_audit())
		cua_deferred_warnings |= CUA_WARN_NOT_FIRST;
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

static void report_lib(const struct cua_lib *lib)
{
	char line[1024];
	struct cua_buf b = CUA_BUF(line);
	static const char *const kinds[CUAUDIT_BIND_COUNT] = { " plt=", " bindnow=", " dlsym=",
							       " procaddress=", " got=",
							       " entry=" };

	cua_log_begin(&b, CUA_LOG_INFO);
	cua_buf_str(&b, lib->path);
	cua_buf_str(&b, lib->owner ? ": bindings" : " (second copy, not intercepted): bindings");
	for (unsigned k = 0; k < CUAUDIT_BIND_COUNT; k++) {
		cua_buf_str(&b, kinds[k]);
		cua_buf_u64(&b, cua_lib_binding_count(lib, k));
	}
	cua_buf_str(&b, " passthrough=");
	cua_buf_u64(&b, lib->passthrough);
	cua_buf_str(&b, " unwrapped=");
	cua_buf_u64(&b, lib->unwrapped);
	cua_log_end(&b);
}

/* Runs when the program exits normally: the audit namespace is finalized after the program's. */
__attribute__((destructor)) static void report_at_exit(void)
{
	/* A process that never loaded CUDA leaves no report and no file behind. */
	if (cua_nlibs == 0)
		return;
	cua_finish_run();
	if (!cua_log_on(CUA_LOG_INFO))
		return;
	for (unsigned i = 0; i < cua_nlibs; i++)
		report_lib(&cua_libs[i]);
	cua_entrypatch_report();
	for (unsigned i = 0; i < cua_pt_used(); i++) {
		char n[24];
		struct cua_buf b = CUA_BUF(n);

		cua_buf_u64(&b, cua_pt_calls_of(i));
		n[b.len < sizeof(n) ? b.len : sizeof(n) - 1] = '\0';
		cua_log_msg(CUA_LOG_INFO, "pass-through ", cua_pt_name(i), ": ", n, " calls", NULL);
	}
}
