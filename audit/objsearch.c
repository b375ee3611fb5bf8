/* SPDX-License-Identifier: MIT */
/* audit/objsearch.c: substitutes libcuda or libcudart when CUAUDIT_LIBCUDA[RT] asks for it. */
#include <link.h>
#include <string.h>
#include "classify.h"
#include "audit.h"
#include "config.h"
#include "libs.h"
#include "log.h"

static const char *search_step(unsigned int flag)
{
	switch (flag) {
	case LA_SER_ORIG: return "as named";
	case LA_SER_LIBPATH: return "LD_LIBRARY_PATH";
	case LA_SER_RUNPATH: return "RUNPATH";
	case LA_SER_CONFIG: return "ld.so.cache";
	case LA_SER_DEFAULT: return "default path";
	case LA_SER_SECURE: return "secure path";
	default: return "other";
	}
}

CUA_LA_EXPORT char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
	int layer = cua_objopen_classify(name, NULL, NULL);
	const char *sub = NULL;

	(void)cookie;
	if (layer == CUA_LIB_NONE)
		return (char *)name;
	if (flag == LA_SER_ORIG)
		sub = layer == CUA_LIB_DRIVER ? cua_cfg.libcuda : cua_cfg.libcudart;
	if (sub && sub[0]) {
		cua_log_msg(CUA_LOG_INFO, "loading ", sub, " in place of ", name, NULL);
		return (char *)sub;
	}
	cua_log_msg(CUA_LOG_DEBUG, "search ", name, " (", search_step(flag), ")", NULL);
	return (char *)name;
}
