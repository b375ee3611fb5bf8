/* SPDX-License-Identifier: MIT */
/* hooks/kernels/kernels.c: feeds the core's kernel-name registry from the calls whose role is kernel_name, and notes version queries. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <string.h>
#include "config.h"
#include "configs.h"
#include "dispatch.h"
#include "gpu.h"
#include "hooks.h"
#include "kernelnames.h"
#include "kernels.h"
#include "livefmt.h"
#include "log.h"
#include "index.h"
#include "provenance.h"
#include "roles.h"
#include "table.h"

static uintptr_t handle_at(const void *p)
{
	uintptr_t v = 0;

	if (p)
		memcpy(&v, p, sizeof(v));
	return v;
}

/* A name the program gave, for the live view's readers (`cuaudit ps` names each launch by
   its key): the view publishes a key's name at its first launch (cua_live_launch), from
   this registry; a key launched already is published again here, where its name may have
   changed (a handle reused by another module). */
static void publish(unsigned space, uintptr_t key, const char *name)
{
	if (cua_live_on)
		cua_live_renamed(space, key, name);
}

/* What a kernel-name source (role kernel_name) or a version query (role version) says,
   read through the generated table: this file names no CUDA function. */
static void record_name(const struct cuaudit_call *c)
{
	struct cua_kname k = { 0 };
	const char *name;

	if (cua_roles_kname(c->id, c->args, &k))
		return;
	if (k.form == CUA_KNAME_REGISTER) {
		/* The registration's host function is known even when the call fails. */
		if (!c->skipped) {
			cua_kernelnames_register(k.key, k.name);
			publish(CUA_KERNELNAMES_HOSTS, k.key, k.name);
		}
		return;
	}
	if (!cua_table_succeeded(c))
		return;
	switch (k.form) {
	case CUA_KNAME_ALIAS:
		cua_kernelnames_alias(handle_at(k.out), k.key);
		publish(CUA_KERNELNAMES_HANDLES, handle_at(k.out),
			cua_kernelnames_lookup(CUA_KERNELNAMES_HOSTS, k.key));
		break;
	case CUA_KNAME_LOOKUP:
		if (k.name) {
			cua_kernelnames_add(CUA_KERNELNAMES_HANDLES, handle_at(k.out), k.name, 0);
			publish(CUA_KERNELNAMES_HANDLES, handle_at(k.out), k.name);
		}
		break;
	case CUA_KNAME_DERIVE:
		name = cua_kernelnames_lookup(CUA_KERNELNAMES_HANDLES, k.key);
		if (name) {
			cua_kernelnames_add(CUA_KERNELNAMES_HANDLES, handle_at(k.out), name, 1);
			publish(CUA_KERNELNAMES_HANDLES, handle_at(k.out), name);
		}
		break;
	default:
		break;
	}
}

static void record(const struct cuaudit_call *c, void *ctx)
{
	int layer;
	const int *value = NULL;

	(void)ctx;
	if (!c->args)
		return;
	if (cua_role[c->id] == CUAUDIT_ROLE_KERNEL_NAME)
		record_name(c);
	else if (cua_table_succeeded(c) && cua_roles_version(c->id, c->args, &layer, &value) == 0 &&
		 value)
		cua_provenance_note_version((enum cuaudit_layer)layer, *value);
}

/* A driver handle nobody looked up (a library's own module code): ask the driver, once. */
static const char *ask_driver(uintptr_t f)
{
	CUresult (*get_name)(const char **, CUfunction) =
		(CUresult(*)(const char **, CUfunction))cua_index_real(CUAUDIT_ID_cuFuncGetName);
	const char *name = NULL;

	if (!get_name || get_name(&name, (CUfunction)f) != CUDA_SUCCESS || !name)
		name = NULL;
	return name;
}

/* The ids whose role is kernel_name or version, found at init. */
static unsigned record_ids[CUAUDIT_ID_COUNT];

int cua_kernels_init(const struct cua_config *all)
{
	size_t n = 0;

	/* The live view names launches too (cua_live_note_name). */
	if (!cua_trace_on() && !cua_summary_on() && !cua_log_on(CUA_LOG_VERBOSE) &&
	    !all->log_errors && !cua_gpu_on() && !(all->live.on && !all->secure))
		return 0;
	for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++)
		if (cua_role[id] == CUAUDIT_ROLE_KERNEL_NAME || cua_role[id] == CUAUDIT_ROLE_VERSION)
			record_ids[n++] = id;
	cua_kernelnames_enable(ask_driver);
	{
		CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = record, .ids = record_ids, .nids = n);

		return cua_dispatch_subscribe(&sub);
	}
}

/* The registry's entry (hooks/registry.c). */
void cua_kernels_start(const struct cua_config *all, struct cua_hook_configs *cfg)
{
	(void)cfg;
	cua_kernels_init(all);
}
