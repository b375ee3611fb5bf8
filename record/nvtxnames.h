/* SPDX-License-Identifier: MIT */
/* record/nvtxnames.h: how an NVTX event's message becomes a name id, shared by the injection library (nvtx/) and the legacy library's bindings (audit/nvtxlegacy.c). */
#ifndef CUA_NVTXNAMES_H
#define CUA_NVTXNAMES_H

#include <string.h>
#include <wchar.h>
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include "nvtxbridge.h"

/* Static inline: the two users live in different namespaces (the program's and the audit
   module's), so the code is compiled into each rather than linked. */

static inline uint32_t cua_nvtx_name_ascii(const struct cua_nvtx_bridge *b, const char *s)
{
	/* The module keeps 95 bytes of a name: no need to measure more. */
	return s ? b->name(s, strnlen(s, 96)) : 0;
}

/* Wide names are kept as ASCII: other characters become '?'. */
static inline uint32_t cua_nvtx_name_wide(const struct cua_nvtx_bridge *b, const wchar_t *s)
{
	char tmp[96];
	size_t n = 0;

	if (!s)
		return 0;
	tmp[0] = 0; /* an empty name still passes initialised memory */
	for (; s[n] && n < sizeof(tmp); n++)
		tmp[n] = s[n] > 0 && s[n] < 128 ? (char)s[n] : '?';
	return b->name(tmp, n);
}

static inline int cua_nvtx_attr_has_message(const nvtxEventAttributes_t *a)
{
	return a && a->size >= offsetof(nvtxEventAttributes_t, message) + sizeof(a->message);
}

/* registered: the name id of a registered-string handle, as its user keeps them. */
static inline uint32_t cua_nvtx_name_attr(const struct cua_nvtx_bridge *b, const nvtxEventAttributes_t *a,
					  uint32_t (*registered)(nvtxStringHandle_t))
{
	if (!cua_nvtx_attr_has_message(a))
		return 0;
	switch (a->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII: return cua_nvtx_name_ascii(b, a->message.ascii);
	case NVTX_MESSAGE_TYPE_UNICODE: return cua_nvtx_name_wide(b, a->message.unicode);
	case NVTX_MESSAGE_TYPE_REGISTERED: return registered(a->message.registered);
	default: return 0;
	}
}

#endif
