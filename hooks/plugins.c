/* SPDX-License-Identifier: MIT */
/* hooks/plugins.c: loads CUAUDIT_PLUGINS and hands each one the host interface. */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include "config.h"
#include "dispatch.h"
#include "hooks.h"
#include "log.h"
#include "table.h"

#define MAX_AT_EXIT 16

static struct {
	void (*fn)(void *);
	void *ctx;
} at_exit_list[MAX_AT_EXIT];
static unsigned n_at_exit;
static int in_init;

static int host_subscribe(const struct cuaudit_subscription *sub)
{
	return in_init ? cua_dispatch_subscribe(sub) : -EPERM;
}

static int host_api_id(const char *elf_name)
{
	return elf_name ? cua_table_find(elf_name) : -1;
}

static void host_log(int level, const char *message)
{
	if (level >= CUA_LOG_ERROR && level <= CUA_LOG_DEBUG && message)
		cua_log_msg(level, "plugin: ", message, NULL);
}

static int host_at_exit(void (*fn)(void *), void *ctx)
{
	if (!in_init || !fn)
		return -EPERM;
	if (n_at_exit == MAX_AT_EXIT)
		return -ENOSPC;
	at_exit_list[n_at_exit].fn = fn;
	at_exit_list[n_at_exit].ctx = ctx;
	n_at_exit++;
	return 0;
}

static void run_at_exit(void)
{
	for (unsigned i = 0; i < n_at_exit; i++)
		at_exit_list[i].fn(at_exit_list[i].ctx);
}

static const struct cuaudit_host host = {
	.size = sizeof(struct cuaudit_host),
	.version_major = CUAUDIT_VERSION_MAJOR,
	.version_minor = CUAUDIT_VERSION_MINOR,
	.subscribe = host_subscribe,
	.api_name = cuaudit_api_name,
	.api_id = host_api_id,
	.log = host_log,
	.now_ns = cua_clock_ns,
	.at_exit = host_at_exit,
};

static void load_one(const char *path)
{
	/* The plugin joins cuaudit's own namespace, with its private libc (FACTS 2). */
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	cuaudit_plugin_init_fn init;
	unsigned first = cua_dispatch_count(), first_exit = n_at_exit;
	int rc;

	if (!h) {
		cua_log_msg(CUA_LOG_ERROR, "cannot load plugin ", path, ": ", dlerror(), NULL);
		return;
	}
	init = (cuaudit_plugin_init_fn)dlsym(h, CUAUDIT_PLUGIN_INIT);
	if (!init) {
		cua_log_msg(CUA_LOG_ERROR, "plugin ", path, " has no " CUAUDIT_PLUGIN_INIT, NULL);
		dlclose(h);
		return;
	}
	in_init = 1;
	rc = init(&host);
	in_init = 0;
	if (rc < 0) {
		cua_dispatch_truncate(first);
		n_at_exit = first_exit;
		cua_log_msg(CUA_LOG_ERROR, "plugin ", path, " refused to start; unloaded", NULL);
		dlclose(h);
		return;
	}
	cua_log_msg(CUA_LOG_INFO, "plugin loaded: ", path, NULL);
}

int cua_plugins_load(void)
{
	if (!cua_cfg.nplugins)
		return 0;
	cua_finish_add(run_at_exit);
	for (unsigned i = 0; i < cua_cfg.nplugins; i++)
		load_one(cua_cfg.plugins[i]);
	return 0;
}
