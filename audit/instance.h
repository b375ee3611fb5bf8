/* SPDX-License-Identifier: MIT */
/* audit/instance.h: tells one instance of cuaudit in a process from a second one (DT_AUDIT plus LD_AUDIT). */
#ifndef CUA_INSTANCE_H
#define CUA_INSTANCE_H

/* Returns 1 for the first instance in the process, which then owns the marker, and 0 for a
   later one, after telling the first through the marker. From la_version, before anything. */
int cua_instance_claim(void);

/* How many later instances have found this one's marker and stood down. */
unsigned cua_instance_others(void);

#endif
