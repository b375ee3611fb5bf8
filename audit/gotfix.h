/* SPDX-License-Identifier: MIT */
/* audit/gotfix.h: brings CUDA addresses in GOT and data slots, which la_symbind64 never sees, to the wrappers. */
#ifndef CUA_GOTFIX_H
#define CUA_GOTFIX_H

#include <link.h>
#include <stdint.h>
#include "dispatch.h"

/* What is kept about an object that references CUDA functions, from its la_objopen to its
   la_objclose: its cookie is the record's address with the low bit set. */
struct cua_ref {
	struct link_map *map;
	uint8_t got[CUA_MASK_BYTES]; /* ids whose GOT or data slots were turned into JUMP_SLOTs */
	uint8_t pending;             /* waits for cua_gotfix_run */
	uint8_t cuda;                /* it names CUDA functions (not only exec or signal ones) */
};

/* Chooses how slots are fixed: by rewriting relocations where the loader audits bind-now
   JUMP_SLOTs at load (glibc >= 2.35 on x86-64), else after relocation. From la_version. */
void cua_gotfix_init(unsigned glibc_version);

/* Takes charge of an object that references CUDA functions, or exec functions while exec is
   watched (la_objopen, before the loader relocates it), and returns its cookie. */
uintptr_t cua_gotfix_open(struct link_map *map);

/* The record behind a cookie from cua_gotfix_open, or NULL. */
static inline struct cua_ref *cua_gotfix_ref(uintptr_t cookie)
{
	return cookie & 1 ? (struct cua_ref *)(cookie & ~(uintptr_t)1) : NULL;
}

/* Whether a bind-now binding of this id from this object came from a rewritten slot. */
static inline int cua_gotfix_was_slot(const struct cua_ref *ref, unsigned id)
{
	return ref && (ref->got[id >> 3] & (1u << (id & 7)));
}

/* Forgets an object that goes away (la_objclose). */
void cua_gotfix_close(uintptr_t cookie);

/* The fallback: rewrites the slots of waiting objects that hold a real CUDA function
   address. From la_activity(LA_ACT_CONSISTENT); only right at start-up, where the objects
   are relocated by then. */
void cua_gotfix_run(void);


#endif
