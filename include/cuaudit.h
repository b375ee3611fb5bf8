/* SPDX-License-Identifier: MIT */
/* include/cuaudit.h: cuaudit's public API: call records, subscriptions and the plugin entry point. */
#ifndef CUAUDIT_H
#define CUAUDIT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUAUDIT_API __attribute__((visibility("default")))

/* Version of this header. A plugin built against a newer minor version still loads; cuaudit
   reads only the struct fields that a struct's size field covers. A new major version is an
   incompatible ABI: the host refuses plugins of another major version (docs/hooks.md, installed as
   <prefix>/share/doc/cuaudit/docs/hooks.md). */
#define CUAUDIT_VERSION_MAJOR 1
#define CUAUDIT_VERSION_MINOR 4

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
	/* Monotonic clock just before the real call and just after it (0 in enter callbacks);
	   both 0 unless a subscription covering this function set CUAUDIT_SUB_TIMES. */
	uint64_t t_enter_ns;
	uint64_t t_exit_ns;
	unsigned depth;            /* CUDA calls in flight on this thread: 1 for a driver call
				      made inside a runtime call */
	int skipped;               /* an enter callback skipped the real call; in enter
				      callbacks, one that ran before this one did */
	uint64_t *user;            /* this subscription's slot for this call, 0 at enter,
				      carried from its enter callback to its exit callback */
	/* Since 1.2. For CUAUDIT_BIND_ENTRY, the object whose linked-in runtime the call came
	   through: "(executable)" or the object's path, valid for the life of the process;
	   NULL for every other binding. Read it only when size covers it. */
	const char *object;
	/* Since 1.4. In exit callbacks: cuaudit's own time inside [t_enter_ns, t_exit_ns], spent
	   in the hooks of the intercepted calls this one made (a runtime call's driver calls
	   with the log on); the real function's own time is t_exit_ns - t_enter_ns - hook_ns.
	   Read it only when size covers it. */
	uint64_t hook_ns;
};

/* Return values of enter callbacks. */
#define CUAUDIT_CALL_REAL 0 /* go on to the real function */
#define CUAUDIT_SKIP_REAL 1 /* do not call it; call->result is the result */

typedef int (*cuaudit_enter_fn)(struct cuaudit_call *call, void *ctx);
typedef void (*cuaudit_exit_fn)(const struct cuaudit_call *call, void *ctx);

/* What a plugin asks to see. Fill it with CUAUDIT_OPTS so size is set. Callbacks run on the
   application's threads, concurrently: they must be thread-safe, must not block for long,
   and must not call locale-dependent libc (printf, strtol, isalpha: see the README,
   installed as <prefix>/share/doc/cuaudit/README.md). */
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
	/* Since 1.1. CUAUDIT_SUB_TIMES: the callbacks read t_enter_ns and t_exit_ns. Without it
	   (and with no other subscription on the same function asking) both are 0 and no clock
	   is read. A subscription from a plugin built against 1.0, whose size stops before this
	   field, is treated as asking for times. */
	unsigned flags;
	/* Since 1.2. Also every function whose role (enum cuaudit_role, cuaudit_roles.h) has its
	   bit set here, CUAUDIT_ROLE_BIT(CUAUDIT_ROLE_COPY) | ...: "every copy" in any build,
	   without listing functions. With ids, elf_names and roles all unset: every function. */
	uint64_t roles;
};
#define CUAUDIT_SUB_TIMES 1u
#define CUAUDIT_ROLE_BIT(role) (1ull << (role))

/* Declares a sized options struct with every byte zeroed first, padding included, so that
   the bytes past the fields an older cuaudit knows read as zero:
   CUAUDIT_OPTS(cuaudit_subscription, sub, .exit = f); */
#define CUAUDIT_OPTS(type, name, ...)                                                         \
	struct type name;                                                                      \
	memset(&name, 0, sizeof(name));                                                        \
	name = (struct type){ .size = sizeof(struct type), __VA_ARGS__ }

enum cuaudit_level {
	CUAUDIT_LEVEL_ERROR = 1,
	CUAUDIT_LEVEL_WARN = 2,
	CUAUDIT_LEVEL_INFO = 3,
	CUAUDIT_LEVEL_DEBUG = 5,
};

/* A loaded plugin, as cuaudit knows it. Opaque; valid for the life of the process. */
struct cuaudit_plugin;

/* Since 1.3. What one completed piece of GPU work measured (CUAUDIT_GPU_TIME): a kernel, a
   copy, a memset or a whole graph launch. cuaudit owns it; valid during the callback only. */
enum cuaudit_gpu_op {
	CUAUDIT_GPU_KERNEL = 0,
	CUAUDIT_GPU_HTOD = 1,
	CUAUDIT_GPU_DTOH = 2,
	CUAUDIT_GPU_DTOD = 3,
	CUAUDIT_GPU_PEER = 4,
	CUAUDIT_GPU_HTOH = 5,
	CUAUDIT_GPU_COPY = 6,   /* unified copy whose direction the driver decided */
	CUAUDIT_GPU_MEMSET = 7,
	CUAUDIT_GPU_GRAPH = 8,  /* a graph launch as a whole */
};
struct cuaudit_gpu_record {
	size_t size;             /* sizeof(struct cuaudit_gpu_record) of the cuaudit that calls */
	uint64_t correlation_id; /* of the call that caused it, as in its cuaudit_call */
	uint64_t thread_id;      /* of that call */
	uint64_t start_ns, end_ns; /* on the clock of now_ns, placed through anchor events */
	uint64_t bytes;          /* copies and memsets */
	const char *name;        /* a kernel's name, or NULL */
	void *stream;            /* the stream as the program named it; NULL for the legacy
				    stream; a per-thread default stream has a key of its own */
	unsigned api_id;         /* the call's id */
	unsigned device;
	enum cuaudit_gpu_op op;
	/* Since 1.4: read only where size covers them. start_ns is the earliest the work can
	   have started, start_max_ns the latest: equal, and exact 1, where its stream was busy (it started
	   when the previous work ended); where the stream was idle it began somewhere between
	   the two (docs/hooks.md, "GPU times"). synthetic 1: the driver is cuaudit's mock and
	   the times are made up. */
	uint64_t start_max_ns;
	int exact;
	int synthetic;
};
typedef void (*cuaudit_gpu_fn)(const struct cuaudit_gpu_record *rec, void *ctx);
/* Fill with CUAUDIT_OPTS, like a subscription. */
struct cuaudit_gpu_subscription {
	size_t size;
	cuaudit_gpu_fn fn; /* called once per completed record, on whichever application thread
			      harvests it (or at exit), under cuaudit's lock: be quick, call no
			      CUDA function, do not block */
	void *ctx;
};

/* What cuaudit offers a plugin. Each plugin gets its own copy, valid for the life of the
   process. */
struct cuaudit_host {
	size_t size;
	unsigned version_major, version_minor; /* of the cuaudit that loaded the plugin */
	/* Adds a subscription. Only during cuaudit_plugin_init: the entry of every binding is
	   chosen from the subscriptions made by then, so a later call returns -EPERM. Returns
	   0, -EINVAL (bad size, unknown layer, id or name, or ids from a plugin whose id table
	   differs from the host's), -EPERM, or -ENOSPC. cuaudit copies the struct and the id
	   list; the names are looked up at once. */
	int (*subscribe)(const struct cuaudit_subscription *sub);
	/* ELF name of an id, or NULL. */
	const char *(*api_name)(unsigned id);
	/* Id of an ELF name, or -1. */
	int (*api_id)(const char *elf_name);
	/* Writes one line to cuaudit's log if the level is enabled. Safe on any thread. */
	void (*log)(int level, const char *message);
	/* The clock of t_enter_ns and t_exit_ns. */
	uint64_t (*now_ns)(void);
	/* Runs fn(ctx) when the process exits normally, after the last call (not before an
	   exec). Only during cuaudit_plugin_init. Returns 0 or -ENOSPC. */
	int (*at_exit)(void (*fn)(void *ctx), void *ctx);
	/* Since 1.1. This plugin's handle. */
	struct cuaudit_plugin *plugin;
	/* Since 1.1. Like log, with the plugin's name in the line ("plugin launch_counter: ").
	   Safe on any thread. */
	void (*plugin_log)(const struct cuaudit_plugin *plugin, int level, const char *message);
	/* Since 1.1. CUDA_VERSION of the cuda.h the host was built against (13000). */
	unsigned cuda_version;
	/* Since 1.1. CUAUDIT_IDS_HASH of the host's id table: equal to the plugin's when the
	   CUAUDIT_ID_* constants it was compiled with mean the same functions here. */
	uint64_t ids_hash;
	/* Since 1.3. Receives completed GPU records (struct cuaudit_gpu_record). Only during
	   cuaudit_plugin_init. Returns 0, -EINVAL (bad size or no fn), -EPERM (after init),
	   -ENOTSUP (CUAUDIT_GPU_TIME is off: nothing would come) or -ENOSPC. A plugin built
	   against an older cuaudit.h checks host->size before reading this field. */
	int (*gpu_subscribe)(const struct cuaudit_gpu_subscription *sub);
};

/* What a plugin says about itself; CUAUDIT_PLUGIN_INFO defines it. cuaudit reads it before
   cuaudit_plugin_init and refuses, with a message naming the plugin and the reason, a plugin
   without it, of another major version, or compiled with CUAUDIT_ID_* constants from an id
   table other than the host's. */
struct cuaudit_plugin_info {
	size_t size;
	const char *name;     /* in log lines: "plugin <name>: ..." */
	const char *version;  /* the plugin's own version, free text */
	unsigned version_major, version_minor; /* the cuaudit.h it was compiled with */
	unsigned cuda_version; /* CUDA_VERSION of its cuda.h, 0 if it included none */
	/* CUAUDIT_IDS_HASH if it included cuaudit_ids.h (and so may switch on CUAUDIT_ID_*
	   constants), 0 if it names functions by ELF name only. */
	uint64_t ids_hash;
};

#ifdef CUDA_VERSION
#define CUAUDIT_INFO_CUDA_VERSION_ CUDA_VERSION
#else
#define CUAUDIT_INFO_CUDA_VERSION_ 0
#endif
/* cuaudit_ids.h redefines this to its CUAUDIT_IDS_HASH, whether included before or after. */
#ifndef CUAUDIT_INFO_IDS_HASH_
#define CUAUDIT_INFO_IDS_HASH_ 0
#endif
/* Defines the plugin's cuaudit_plugin_info. Put it after the includes: it records the
   versions of the headers included before it (include cuda.h before cuaudit.h). A plugin that names functions by ELF name and
   finds ids with host->api_id() leaves out cuaudit_ids.h and loads into any cuaudit of the
   same major version; one that includes it loads only where the id tables match. */
#define CUAUDIT_PLUGIN_INFO(plugin_name, plugin_version)                                     \
	CUAUDIT_API const struct cuaudit_plugin_info cuaudit_plugin_info = {                   \
		sizeof(struct cuaudit_plugin_info), plugin_name, plugin_version,               \
		CUAUDIT_VERSION_MAJOR, CUAUDIT_VERSION_MINOR, CUAUDIT_INFO_CUDA_VERSION_,      \
		CUAUDIT_INFO_IDS_HASH_ }
#define CUAUDIT_PLUGIN_INFO_SYMBOL "cuaudit_plugin_info"

/* A plugin exports this; cuaudit calls it once, before the program runs. Return 0 to stay
   loaded, or a negative errno value to be unloaded (its subscriptions, at_exit functions and
   GPU record callbacks are then dropped). */
typedef int (*cuaudit_plugin_init_fn)(const struct cuaudit_host *host);
#define CUAUDIT_PLUGIN_INIT "cuaudit_plugin_init"

/* ---- What a call means (since 1.2). Every id has one role (enum cuaudit_role, in the
   generated cuaudit_roles.h, with cuaudit_role_of). The accessors below read a role's
   arguments from call->args, whatever function of that role it is, so a plugin never lists
   CUDA functions. Each is a switch on the id over the generated argument struct: cheap,
   thread-safe, valid in enter and exit callbacks. Each returns 0 and fills *out when the
   call has that role, -EINVAL otherwise (or when out->size is too small for size itself).
   The caller sets out->size (CUAUDIT_OPTS); cuaudit writes only the fields it covers.
   Fields a form of the call does not give stay 0. */

/* Stream flavour of the function: legacy default stream or per-thread (_ptsz/_ptds). */
#define CUAUDIT_STREAM_LEGACY 0
#define CUAUDIT_STREAM_PER_THREAD 1

/* What struct cuaudit_launch's func is. */
#define CUAUDIT_FUNC_CUFUNCTION 0 /* a driver CUfunction (cuLaunchKernel accepts a CUkernel cast) */
#define CUAUDIT_FUNC_CUKERNEL 1   /* a CUkernel / cudaKernel_t (nvcc's <<<>>> entry point) */
#define CUAUDIT_FUNC_HOST 2       /* the host stub of a runtime launch (cudaLaunchKernel) */

/* Direction of a copy. Arrays count as device memory. */
#define CUAUDIT_COPY_HTOD 0
#define CUAUDIT_COPY_DTOH 1
#define CUAUDIT_COPY_DTOD 2
#define CUAUDIT_COPY_HTOH 3
#define CUAUDIT_COPY_PEER 4    /* between two devices or contexts */
#define CUAUDIT_COPY_DEFAULT 5 /* unified addressing: the driver finds the direction */
#define CUAUDIT_COPY_UNKNOWN 6 /* batch copies, whose operands each have their own */

struct cuaudit_launch {
	size_t size;
	const void *func;     /* CUfunction, CUkernel, or the host function of a runtime launch */
	int func_kind;        /* CUAUDIT_FUNC_* */
	unsigned grid[3], block[3]; /* 0 where the form does not say (cuLaunch, cuLaunchGrid's block) */
	unsigned shared_bytes;
	void *stream;         /* as passed; NULL is the flavour's default stream */
	int stream_flavour;   /* CUAUDIT_STREAM_* */
	int cooperative;      /* a cooperative form, or an Ex form with the cooperative attribute */
};

struct cuaudit_copy {
	size_t size;
	uint64_t bytes;       /* total bytes moved: 2D/3D width*height*depth (a CUDA array's
				 3D width counts elements), a batch's sum */
	int kind;             /* CUAUDIT_COPY_* */
	const void *dst, *src; /* device pointers widened; NULL for a batch */
	void *stream;         /* NULL for synchronous copies on the default stream */
	int stream_flavour;
	int async;            /* 1 for the *Async forms */
};

struct cuaudit_memset {
	size_t size;
	uint64_t bytes;       /* elements times their size (8, 16, 32 bits) */
	void *dst;
	void *stream;
	int stream_flavour;
	int async;
};

CUAUDIT_API int cuaudit_call_launch(const struct cuaudit_call *call, struct cuaudit_launch *out);
CUAUDIT_API int cuaudit_call_copy(const struct cuaudit_call *call, struct cuaudit_copy *out);
CUAUDIT_API int cuaudit_call_memset(const struct cuaudit_call *call, struct cuaudit_memset *out);
/* The stream of a launch, copy, memset, event record, graph launch, stream synchronise,
   capture begin or end (and of stream-ordered allocations and frees): 0 and *stream,
   *flavour set; -EINVAL when the call has none. */
CUAUDIT_API int cuaudit_call_stream(const struct cuaudit_call *call, void **stream, int *flavour);
/* A graph launch's graph exec handle. */
CUAUDIT_API int cuaudit_call_graph_exec(const struct cuaudit_call *call, void **graph_exec);
/* An event record's event (and an event synchronise's). */
CUAUDIT_API int cuaudit_call_event(const struct cuaudit_call *call, void **event);

/* Returns the ELF name of an API id ("cuMemAlloc_v2"), or NULL for an id out of range.
   Thread-safe; the string is static. */
CUAUDIT_API const char *cuaudit_api_name(unsigned id);

#ifdef __cplusplus
}
#endif
#endif
