/* SPDX-License-Identifier: MIT */
/* audit/report.c: at normal exit, the hooks' exit work, then one info line per CUDA library and pass-through. */
#include "finish.h"
#include "entrypatch.h"
#include "libs.h"
#include "log.h"
#include "passthrough.h"
#include "process.h"
#include "table.h"

static void report_lib(const struct cua_lib *lib)
{
	char line[1024];
	struct cua_buf b = CUA_BUF(line);

	cua_log_begin(&b, CUA_LOG_INFO);
	cua_buf_str(&b, lib->path);
	cua_buf_str(&b, lib->owner ? ": bindings" : " (second copy, not intercepted): bindings");
	for (unsigned k = 0; k < CUAUDIT_BIND_COUNT; k++) {
		cua_buf_char(&b, ' ');
		cua_buf_str(&b, cua_binding_names[k]);
		cua_buf_char(&b, '=');
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
