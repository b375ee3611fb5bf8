/* SPDX-License-Identifier: MIT */
/* hooks/plugins/plugins.c: loads CUAUDIT_PLUGINS and hands each one the host interface. */
#include <cuda.h>
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include "finish.h"
#include "configs.h"
#include "config.h"
#include "dispatch.h"
#include "gpu.h"
#include "hooks.h"
#include "plugins_config.h"
#include "log.h"
#include "table.h"

#define MAX_AT_EXIT 16
#define MAX_PLUGINS 16
#define MAX_PLUGIN_NAME 64

/* The opaque handle of the public API: what a plugin's log lines are prefixed with. */
struct cuaudit_plugin {
	char prefix[MAX_PLUGIN_NAME + 10]; /* "plugin <name>: " */
	uint64_t ids_hash;                 /* of the id table it was compiled with, or 0 */
};

static struct cuaudit_plugin plugins[MAX_PLUGINS];
static struct cuaudit_host hosts[MAX_PLUGINS];
static unsigned nplugins;
/* The plugin whose init function is running, or NULL. */
static struct cuaudit_plugin *current;

static struct {
	void (*fn)(void *);
	void *ctx;
} at_exit_list[MAX_AT_EXIT];
static unsigned n_at_exit;
static int in_init;

static int host_subscribe(const struct cuaudit_subscription *sub)
{
	if (!in_init)
		return -EPERM;
	/* Ids compiled from another id table would name other functions: refuse them. The
	   size check comes first so that a short struct is not read past its end. */
	if (sub && sub->size >= offsetof(struct cuaudit_subscription, nids) && sub->ids &&
	    current && current->ids_hash != CUAUDIT_IDS_HASH) {
		cua_log_msg(CUA_LOG_ERROR, current->prefix,
			    "subscribes by CUAUDIT_ID_* but was built against another id table; "
			    "name the functions by ELF name (elf_names) instead", NULL);
		return -EINVAL;
	}
	return cua_dispatch_subscribe(sub);
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

static void host_plugin_log(const struct cuaudit_plugin *p, int level, const char *message)
{
	if (level >= CUA_LOG_ERROR && level <= CUA_LOG_DEBUG && message)
		cua_log_msg(level, p ? p->prefix : "plugin: ", message, NULL);
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

/* The collector's ops are the public ones. */
_Static_assert((int)CUA_GPU_KERNEL == CUAUDIT_GPU_KERNEL && (int)CUA_GPU_HTOD == CUAUDIT_GPU_HTOD &&
		       (int)CUA_GPU_DTOH == CUAUDIT_GPU_DTOH && (int)CUA_GPU_DTOD == CUAUDIT_GPU_DTOD &&
		       (int)CUA_GPU_PEER == CUAUDIT_GPU_PEER && (int)CUA_GPU_HTOH == CUAUDIT_GPU_HTOH &&
		       (int)CUA_GPU_COPY == CUAUDIT_GPU_COPY && (int)CUA_GPU_MEMSET == CUAUDIT_GPU_MEMSET &&
		       (int)CUA_GPU_GRAPH == CUAUDIT_GPU_GRAPH,
	       "GPU ops");

/* A refused plugin's entries keep their place with fn NULL: the GPU hook's sink cannot be
   taken back, and the plugin's code is unloaded. */
static struct {
	cuaudit_gpu_fn fn;
	void *ctx;
} gpu_subs[MAX_PLUGINS];
static unsigned n_gpu_subs;

static void to_plugin(const struct cua_gpu_record *r, void *ctx)
{
	unsigned i = (unsigned)(uintptr_t)ctx;
	struct cuaudit_gpu_record out = {
		.size = sizeof(out), .correlation_id = r->correlation_id, .thread_id = r->thread_id,
		.start_ns = r->start_ns, .end_ns = r->end_ns, .bytes = r->bytes, .name = r->name,
		.stream = (uintptr_t)r->stream == 1 ? NULL : r->stream, .api_id = r->api_id,
		.device = r->device, .op = (enum cuaudit_gpu_op)r->op,
		.start_max_ns = r->start_max_ns, .exact = r->exact, .synthetic = cua_gpu_synthetic(),
	};

	if (gpu_subs[i].fn)
		gpu_subs[i].fn(&out, gpu_subs[i].ctx);
}

static int host_gpu_subscribe(const struct cuaudit_gpu_subscription *sub)
{
	unsigned n = n_gpu_subs;
	int err;

	if (!in_init)
		return -EPERM;
	if (!sub || sub->size < offsetof(struct cuaudit_gpu_subscription, ctx) + sizeof(void *) ||
	    !sub->fn)
		return -EINVAL;
	if (!cua_gpu_on())
		return -ENOTSUP;
	if (n == MAX_PLUGINS)
		return -ENOSPC;
	gpu_subs[n].fn = sub->fn;
	gpu_subs[n].ctx = sub->ctx;
	if ((err = cua_gpu_add_sink(to_plugin, (void *)(uintptr_t)n)) != 0) {
		gpu_subs[n].fn = NULL;
		return err;
	}
	n_gpu_subs = n + 1;
	return 0;
}

static const struct cuaudit_host host_template = {
	.size = sizeof(struct cuaudit_host),
	.version_major = CUAUDIT_VERSION_MAJOR,
	.version_minor = CUAUDIT_VERSION_MINOR,
	.subscribe = host_subscribe,
	.api_name = cuaudit_api_name,
	.api_id = host_api_id,
	.log = host_log,
	.now_ns = cua_clock_ns,
	.at_exit = host_at_exit,
	.plugin_log = host_plugin_log,
	.cuda_version = CUDA_VERSION,
	.ids_hash = CUAUDIT_IDS_HASH,
	.gpu_subscribe = host_gpu_subscribe,
};

static void set_prefix(struct cuaudit_plugin *p, const char *name)
{
	size_t n = 0;

	memcpy(p->prefix, "plugin ", 7);
	/* Printable ASCII only: the name ends up in a log line. */
	for (; name[n] && n < MAX_PLUGIN_NAME; n++)
		p->prefix[7 + n] = name[n] > ' ' && name[n] < 127 ? name[n] : '_';
	memcpy(p->prefix + 7 + n, ": ", 3);
}

/* Why the plugin cannot be loaded, or NULL. Fills the handle from its info. */
static const char *check_info(void *h, struct cuaudit_plugin *p)
{
	const struct cuaudit_plugin_info *info = dlsym(h, CUAUDIT_PLUGIN_INFO_SYMBOL);

	if (!info)
		return "has no " CUAUDIT_PLUGIN_INFO_SYMBOL " (built against cuaudit 1.0, whose ids "
		       "change between builds: rebuild it with CUAUDIT_PLUGIN_INFO)";
	if (info->size < offsetof(struct cuaudit_plugin_info, ids_hash) + sizeof(uint64_t))
		return "has a cuaudit_plugin_info too short to read";
	if (info->version_major != CUAUDIT_VERSION_MAJOR)
		return "was built against another major version of cuaudit.h";
	if (info->name && info->name[0])
		set_prefix(p, info->name);
	p->ids_hash = info->ids_hash;
	if (info->ids_hash && info->ids_hash != CUAUDIT_IDS_HASH)
		return "was compiled with CUAUDIT_ID_* constants from another id table (another "
		       "toolkit or cuaudit build): rebuild it here, or name functions by ELF name "
		       "and leave out cuaudit_ids.h";
	return NULL;
}

static void load_one(const char *path)
{
	/* The plugin joins cuaudit's own namespace, with its private libc (docs/facts.md §2). */
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	cuaudit_plugin_init_fn init;
	unsigned first = cua_dispatch_count(), first_exit = n_at_exit, first_gpu = n_gpu_subs;
	struct cuaudit_plugin *p;
	const char *why;
	int rc;

	if (!h) {
		cua_log_msg(CUA_LOG_ERROR, "cannot load plugin ", path, ": ", dlerror(), NULL);
		return;
	}
	if (nplugins == MAX_PLUGINS) {
		cua_log_msg(CUA_LOG_ERROR, "plugin ", path, " not loaded: too many plugins", NULL);
		dlclose(h);
		return;
	}
	p = &plugins[nplugins];
	set_prefix(p, path);
	if ((why = check_info(h, p)) != NULL) {
		cua_log_msg(CUA_LOG_ERROR, "plugin ", path, " refused: it ", why, NULL);
		dlclose(h);
		return;
	}
	init = (cuaudit_plugin_init_fn)dlsym(h, CUAUDIT_PLUGIN_INIT);
	if (!init) {
		cua_log_msg(CUA_LOG_ERROR, "plugin ", path, " has no " CUAUDIT_PLUGIN_INIT, NULL);
		dlclose(h);
		return;
	}
	hosts[nplugins] = host_template;
	hosts[nplugins].plugin = p;
	nplugins++;
	in_init = 1;
	current = p;
	rc = init(&hosts[nplugins - 1]);
	current = NULL;
	in_init = 0;
	if (rc < 0) {
		/* Everything it registered goes with it: dlclose unmaps its code, and a record
		   handed to its GPU callback afterwards would jump into nothing. */
		cua_dispatch_truncate(first);
		n_at_exit = first_exit;
		for (unsigned i = first_gpu; i < n_gpu_subs; i++)
			__atomic_store_n(&gpu_subs[i].fn, NULL, __ATOMIC_RELEASE);
		cua_log_msg(CUA_LOG_ERROR, "plugin ", path, " refused to start; unloaded", NULL);
		dlclose(h);
		return;
	}
	cua_log_msg(CUA_LOG_INFO, "plugin loaded: ", path, NULL);
}

int cua_plugins_load(const struct cua_plugins_config *own)
{
	if (!own->nplugins)
		return 0;
	/* At normal exit only, as cuaudit.h promises: after an exec that failed, a plugin whose
	   at_exit had run would still be called. */
	cua_finish_add(run_at_exit, NULL, CUA_FINISH_ONCE);
	for (unsigned i = 0; i < own->nplugins; i++)
		load_one(own->plugins[i]);
	return 0;
}

/* The registry's entry (hooks/registry.c). */
void cua_plugins_start(const struct cua_config *all, struct cua_hook_configs *cfg)
{
	(void)all;
	cua_plugins_load(&cfg->plugins);
}
