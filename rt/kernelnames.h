/* SPDX-License-Identifier: MIT */
/* rt/kernelnames.h: kernel names by launch handle, for every layer that prints or counts launches. */
#ifndef CUA_KERNELNAMES_H
#define CUA_KERNELNAMES_H

#include <stdint.h>
#include "cuaudit.h"
#include "roles.h"

/* Key spaces: host functions (runtime launches name their host stub) and driver or runtime
   handles (CUfunction, CUkernel, cudaKernel_t). */
enum { CUA_KERNELNAMES_HOSTS = 0, CUA_KERNELNAMES_HANDLES = 1 };

/* Whether an id launches a kernel (its role is launch, in the generated table). */
static inline int cua_kernelnames_is_launch(unsigned id)
{
	return cua_role[id] == CUAUDIT_ROLE_LAUNCH;
}

/* Asks the driver to name a handle nobody looked up; NULL if it cannot. */
typedef const char *(*cua_kernelnames_resolver)(uintptr_t handle);

/* Turns the registry on (hooks/kernels/kernels.c, from la_version, when a hook names launches);
   resolver may be NULL. Until then cua_kernelnames_of_call returns NULL. */
void cua_kernelnames_enable(cua_kernelnames_resolver resolver);

/* The name of the kernel a launch call launched, from an exit callback: a string that lives
   as long as the process, or NULL when it is unknown. Falls back on the resolver after a
   successful driver launch. Lock-free; repeated calls for the same call are answered from
   a per-thread cache. */
const char *cua_kernelnames_of_call(const struct cuaudit_call *c);

/* The name of the kernel that key (in space) stands for, as cua_kernelnames_of_call finds it
   (a string that lives as long as the process, or NULL): a handle the program never named
   is asked of the driver (the resolver) where may_ask, once per handle. Lock-free. */
const char *cua_kernelnames_of_key(unsigned space, uintptr_t key, int may_ask);

/* The readable form of a name this registry gave out (cua_kernelnames_of_call or _lookup),
   demangled once and kept: a later call returns the same string. The name itself when it is
   not a mangled C++ name, the demangler does not understand it, CUAUDIT_DEMANGLE is off, or
   the name did not come from the registry. Any thread; called where a name is written out
   (summary, GPU tables, trace, verbose log), never per launch by the counting hooks. */
const char *cua_kernelnames_readable(const char *name);

/* A registration: host function key gets device_name, whose pointer the caller keeps
   alive (nvcc's string); the first launch copies it. */
void cua_kernelnames_register(uintptr_t host_fun, const char *device_name);
/* handle stands for host function host_fun's kernel, if that is named. */
void cua_kernelnames_alias(uintptr_t handle, uintptr_t host_fun);
/* Records a name for a key in a space; the name is copied unless 'stable'. */
void cua_kernelnames_add(unsigned space, uintptr_t key, const char *name, int stable);
/* The name recorded for a key (made stable), or NULL. */
const char *cua_kernelnames_lookup(unsigned space, uintptr_t key);

#endif
