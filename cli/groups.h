/* SPDX-License-Identifier: MIT */
/* cli/groups.h: `cuaudit ps --groups`, the memory groups of this user. */
#ifndef CUA_CLI_GROUPS_H
#define CUA_CLI_GROUPS_H

/* Lists each group file of this user in dir (NULL: CUAUDIT_SHARE_DIR, else /dev/shm), as
   text or JSON. Returns the exit status: 1 when the directory or a file cannot be read. */
int cua_cli_groups(const char *dir, int json);

#endif
