/* SPDX-License-Identifier: MIT */
/* tests/cases/other_audit.c: a do-nothing audit module, to list before cuaudit in LD_AUDIT. */
#include <link.h>

__attribute__((visibility("default"))) unsigned int la_version(unsigned int version)
{
	return version;
}
