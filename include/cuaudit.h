/* SPDX-License-Identifier: MIT */
/* include/cuaudit.h: cuaudit's public API: call records, subscriptions and the plugin entry point. */
#ifndef CUAUDIT_H
#define CUAUDIT_H

#include <stddef.h>
#include <stdint.h>

#define CUAUDIT_API __attribute__((visibility("default")))

/* Version of this header. A plugin built against a newer minor version still loads; cuaudit
   reads only the struct fields that a struct's size field covers. */
#define CUAUDIT_VERSION_MAJOR 1
#define CUAUDIT_VERSION_MINOR 0

/* Which library an intercepted function belongs to. */
enum cuaudit_layer {
	CUAUDIT_LAYER_DRIVER = 0,  /* libcuda */
	CUAUDIT_LAYER_RUNTIME = 1, /* libcudart */
};

/* Which layers a subscription covers; zero, the default, is both. */
enum cuaudit_layers {
	CUAUDIT_LAYERS_ALL = 0,
	CUAUDIT_LAYERS_DRIVER = 1,
	CUAUDIT_LAYERS_RUNTIME = 2,
};

/* How the program obtained the address it called through. */
enum cuaudit_binding {
	CUAUDIT_BIND_PLT = 0,         /* lazy PLT slot, bound at the first call */
	CUAUDIT_BIND_BINDNOW = 1,     /* PLT slot bound at load (-z now, LD_BIND_NOW) */
	CUAUDIT_BIND_DLSYM = 2,       /* dlsym or dlvsym */
	CUAUDIT_BIND_PROCADDRESS = 3, /* cuGetProcAddress or cudaGetDriverEntryPoint* */
	CUAUDIT_BIND_GOT = 4,         /* GOT or data slot rewritten after relocation */
	CUAUDIT_BIND_ENTRY = 5,       /* entry of a statically linked runtime function patched
					 (CUAUDIT_STATIC_RUNTIME=1) */
	CUAUDIT_BIND_COUNT = 6,
};

/* One intercepted call, as every callback sees it. cuaudit owns it; it lives on the calling
   thread's stack from the enter callbacks to the exit callbacks. */
struct cuaudit_call {
	size_t size;               /* sizeof(struct cuaudit_call) of the cuaudit that calls */
	unsigned id;               /* enum cuaudit_api_id (cuaudit_ids.h) */
	const char *elf_name;      /* "cuMemAlloc_v2" */
	enum cuaudit_layer layer;
	enum cuaudit_binding binding;
	/* struct cuaudit_args_<elf_name> (cuaudit_args.h), or NULL for a function without
	   parameters. Enter callbacks may change the arguments the real function receives. */
	void *args;
	/* The return value widened to 64 bits (CUresult, cudaError_t, or a pointer). Valid in
	   exit callbacks; an enter callback that skips the real call sets it. */
	uint64_t result;
	uint64_t correlation_id;   /* unique per call within the process */
	uint64_t thread_id;        /* the kernel's thread id */
	uint64_t t_enter_ns;       /* monotonic clock, just before the real call */
	uint64_t t_exit_ns;        /* just after it; 0 in enter callbacks */
	unsigned depth;            /* CUDA calls in flight on this thread: 1 for a driver call
				      made inside a runtime call */
	int skipped;               /* an enter callback skipped the real call */
	uint64_t *user;            /* this subscription's slot for this call, 0 at enter,
				      carried from its enter callback to its exit callback */
};

/* Return values of enter callbacks. */
#define CUAUDIT_CALL_REAL 0 /* go on to the real function */
#define CUAUDIT_SKIP_REAL 1 /* do not call it; call->result is the result */

typedef int (*cuaudit_enter_fn)(struct cuaudit_call *call, void *ctx);
typedef void (*cuaudit_exit_fn)(const struct cuaudit_call *call, void *ctx);

/* What a plugin asks to see. Fill it with CUAUDIT_OPTS so size is set. Callbacks run on the
   application's threads, concurrently: they must be thread-safe, must not block for long,
   and must not call locale-dependent libc (printf, strtol, isalpha: see the README). */
struct cuaudit_subscription {
	size_t size;
	cuaudit_enter_fn enter; /* may be NULL */
	cuaudit_exit_fn exit;   /* may be NULL */
	void *ctx;              /* passed to both callbacks */
	enum cuaudit_layers layers; /* CUAUDIT_LAYERS_ALL (the default), _DRIVER or _RUNTIME */
	const unsigned *ids;    /* if non-NULL, only these ids (nids of them) */
	size_t nids;
	const char *const *elf_names; /* if non-NULL, only these ELF names (nnames of them) */
	size_t nnames;
};

/* Declares a sized options struct: CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = f); */
#define CUAUDIT_OPTS(type, name, ...)                                                         \
	struct type name = { .size = sizeof(struct type), __VA_ARGS__ }

enum cuaudit_level {
	CUAUDIT_LEVEL_ERROR = 1,
	CUAUDIT_LEVEL_WARN = 2,
	CUAUDIT_LEVEL_INFO = 3,
	CUAUDIT_LEVEL_DEBUG = 5,
};

/* What cuaudit offers a plugin. Valid for the life of the process. */
struct cuaudit_host {
	size_t size;
	unsigned version_major, version_minor;
	/* Adds a subscription. Only during cuaudit_plugin_init. Returns 0, -EINVAL (bad size,
	   unknown layer, id or name), or -ENOSPC. cuaudit copies the struct and the id list;
	   the names are looked up at once. */
	int (*subscribe)(const struct cuaudit_subscription *sub);
	/* ELF name of an id, or NULL. */
	const char *(*api_name)(unsigned id);
	/* Id of an ELF name, or -1. */
	int (*api_id)(const char *elf_name);
	/* Writes one line to cuaudit's log if the level is enabled. Safe on any thread. */
	void (*log)(int level, const char *message);
	/* The clock of t_enter_ns and t_exit_ns. */
	uint64_t (*now_ns)(void);
	/* Runs fn(ctx) when the process exits normally, after the last call. Only during
	   cuaudit_plugin_init. Returns 0 or -ENOSPC. */
	int (*at_exit)(void (*fn)(void *ctx), void *ctx);
};

/* A plugin exports this; cuaudit calls it once, before the program runs. Return 0 to stay
   loaded, or a negative errno value to be unloaded (its subscriptions are then dropped). */
typedef int (*cuaudit_plugin_init_fn)(const struct cuaudit_host *host);
#define CUAUDIT_PLUGIN_INIT "cuaudit_plugin_init"

/* Returns the ELF name of an API id ("cuMemAlloc_v2"), or NULL for an id out of range.
   Thread-safe; the string is static. */
CUAUDIT_API const char *cuaudit_api_name(unsigned id);

#endif
