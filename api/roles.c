/* SPDX-License-Identifier: MIT */
/* api/roles.c: the public role and accessor functions, with the sized-struct discipline over the generated readers. */
#include <errno.h>
#include <string.h>
#include "roles.h"

enum cuaudit_role cuaudit_role_of(unsigned id)
{
	return id < CUAUDIT_ID_COUNT ? (enum cuaudit_role)cua_role[id] : CUAUDIT_ROLE_PLAIN;
}

/* Fills a whole struct on the stack, then copies the part the caller's size covers: a
   plugin built against an older header gets the fields it knows, never more. */
#define SIZED(type, reader)                                                                    \
	do {                                                                                   \
		struct type full;                                                              \
		size_t n;                                                                      \
		int rc;                                                                        \
                                                                                               \
		if (!call || !out || out->size < sizeof(size_t))                               \
			return -EINVAL;                                                        \
		n = out->size < sizeof(full) ? out->size : sizeof(full);                       \
		memset(&full, 0, sizeof(full));                                                \
		rc = call->args ? reader(call->id, call->args, &full) : -EINVAL;               \
		if (rc)                                                                        \
			return rc;                                                             \
		memcpy((char *)out + sizeof(size_t), (char *)&full + sizeof(size_t),           \
		       n - sizeof(size_t));                                                    \
		return 0;                                                                      \
	} while (0)

int cuaudit_call_launch(const struct cuaudit_call *call, struct cuaudit_launch *out)
{
	SIZED(cuaudit_launch, cua_roles_launch);
}

int cuaudit_call_copy(const struct cuaudit_call *call, struct cuaudit_copy *out)
{
	SIZED(cuaudit_copy, cua_roles_copy);
}

int cuaudit_call_memset(const struct cuaudit_call *call, struct cuaudit_memset *out)
{
	SIZED(cuaudit_memset, cua_roles_memset);
}

int cuaudit_call_stream(const struct cuaudit_call *call, void **stream, int *flavour)
{
	void *s = NULL;
	int f = CUAUDIT_STREAM_LEGACY;

	if (!call || !call->args || cua_roles_stream(call->id, call->args, &s, &f))
		return -EINVAL;
	if (stream)
		*stream = s;
	if (flavour)
		*flavour = f;
	return 0;
}

int cuaudit_call_graph_exec(const struct cuaudit_call *call, void **graph_exec)
{
	void *g = NULL;

	if (!call || !call->args || cua_roles_graph_exec(call->id, call->args, &g))
		return -EINVAL;
	if (graph_exec)
		*graph_exec = g;
	return 0;
}

int cuaudit_call_event(const struct cuaudit_call *call, void **event)
{
	void *e = NULL;

	if (!call || !call->args || cua_roles_event(call->id, call->args, &e))
		return -EINVAL;
	if (event)
		*event = e;
	return 0;
}
