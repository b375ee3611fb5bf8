/* SPDX-License-Identifier: MIT */
/* api/roles.h: the semantics table inside the module: each id's role and the generated readers of its arguments. */
#ifndef CUA_ROLES_H
#define CUA_ROLES_H

#include <stdint.h>
#include "cuaudit.h"
#include "cuaudit_ids.h"
#include "cuaudit_roles.h"

/* enum cuaudit_role of each id, generated from gen/policy.tsv (cua_gen_roles.c). */
extern const uint8_t cua_role[CUAUDIT_ID_COUNT];

static inline int cua_role_is(unsigned id, enum cuaudit_role role)
{
	return id < CUAUDIT_ID_COUNT && cua_role[id] == role;
}

/* Where a kernel-name source (role kernel_name, policy verb kname) keeps what it names. */
enum cua_kname_form {
	CUA_KNAME_REGISTER = 1, /* key (a host function) gets name; the caller keeps name alive */
	CUA_KNAME_ALIAS,        /* *out (a handle, after success) stands for host function key */
	CUA_KNAME_LOOKUP,       /* *out (a handle, after success) is the kernel called name */
	CUA_KNAME_DERIVE,       /* *out (a handle, after success) is the kernel of handle key */
};
struct cua_kname {
	int form;
	const void *out;  /* where the call writes the new handle */
	uintptr_t key;
	const char *name;
};

/* The generated readers, by id over the argument struct: 0, or -EINVAL for another role.
   The public cuaudit_call_* (roles.c) add the size discipline. */
int cua_roles_launch(unsigned id, const void *args, struct cuaudit_launch *o);
/* A launch's function and its CUAUDIT_FUNC_* kind, read from the argument struct's own bytes
   only (never through a pointer in it): safe on a copy taken from another process. */
int cua_roles_launch_func(unsigned id, const void *args, const void **func, int *func_kind);
int cua_roles_copy(unsigned id, const void *args, struct cuaudit_copy *o);
int cua_roles_memset(unsigned id, const void *args, struct cuaudit_memset *o);
int cua_roles_stream(unsigned id, const void *args, void **stream, int *flavour);
int cua_roles_graph_exec(unsigned id, const void *args, void **graph_exec);
int cua_roles_event(unsigned id, const void *args, void **event);
int cua_roles_kname(unsigned id, const void *args, struct cua_kname *k);
/* A version query (role version): which layer's version, and where the call writes it. */
int cua_roles_version(unsigned id, const void *args, int *layer, const int **value);

#endif
