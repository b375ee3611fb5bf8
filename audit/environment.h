/* SPDX-License-Identifier: MIT */
/* audit/environment.h: what la_version checks of the process it runs in. */
#ifndef CUA_ENVIRONMENT_H
#define CUA_ENVIRONMENT_H

/* From la_version: notes the warnings that only matter to CUDA programs (glibc older than
   2.35, cuaudit not first in LD_AUDIT, secure mode) and returns glibc's version as 100 *
   major + minor. */
unsigned cua_environment_check(int secure);
/* At the first CUDA library: prints what cua_environment_check noted, once. */
void cua_environment_flush_warnings(void);

#endif
