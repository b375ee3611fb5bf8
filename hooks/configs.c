/* SPDX-License-Identifier: MIT */
/* hooks/configs.c: reads each hook's own variables with the hook's own loader, in one place. */
#include "configs.h"

void cua_hook_configs_load(struct cua_hook_configs *h, const struct cua_config *core,
			   cua_getenv_fn get, cua_diag_fn diag)
{
	cua_summary_config_load(&h->summary, get, diag, core->secure);
	cua_memlimit_config_load(&h->memlimit, get, diag, core->secure);
	cua_compute_config_load(&h->compute, get, diag, core->secure);
	cua_fault_config_load(&h->fault, get, diag, core->secure);
	cua_plugins_config_load(&h->plugins, get, diag, core->secure);
	cua_errcount_config_load(&h->errcount, get, diag, core->secure);
	cua_gpu_config_load(&h->gpu, get, diag);
	cua_trace_config_load(&h->trace, get, diag, core->secure);
	cua_metrics_config_load(&h->metrics, get, diag, core->secure);
}
