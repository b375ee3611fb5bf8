/* SPDX-License-Identifier: MIT */
/* audit/audit.h: what the rtld-audit entry points share. */
#ifndef CUA_AUDIT_H
#define CUA_AUDIT_H

/* The rtld-audit entry points: the only exports besides the public cuaudit_* API. */
#define CUA_LA_EXPORT __attribute__((visibility("default")))

#endif
