/* SPDX-License-Identifier: MIT */
/* audit/environment.c: what la_version checks of the process it runs in, and the warnings it keeps for the first CUDA library. */
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "audit.h"
#include "config.h"
#include "cua_version.h"
#include "environment.h"
#include "instance.h"
#include "log.h"

/* Warnings found in la_version that only matter to CUDA programs, printed at the first CUDA
   library so that every other process stays silent. */
#define CUA_WARN_OLD_GLIBC 1u
#define CUA_WARN_NOT_FIRST 2u
#define CUA_NOTE_SECURE 4u
#define CUA_NOTE_BANNER 8u

static unsigned deferred;

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

	if (!list || !*list || !dladdr((void *)cua_environment_check, &self) || !self.dli_fname)
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

void cua_environment_flush_warnings(void)
{
	unsigned w = __atomic_exchange_n(&deferred, 0, __ATOMIC_ACQ_REL);

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


unsigned cua_environment_check(int secure)
{
	unsigned glibc = glibc_version(gnu_get_libc_version());

	deferred |= CUA_NOTE_BANNER;
	if (secure)
		deferred |= CUA_NOTE_SECURE;
	if (glibc < 235)
		deferred |= CUA_WARN_OLD_GLIBC;
	if (!first_in_ld_audit())
		deferred |= CUA_WARN_NOT_FIRST;
	return glibc;
}
