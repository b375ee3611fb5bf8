/* SPDX-License-Identifier: MIT */
/* cli/live.h: `cuaudit ps`, `cuaudit top` and `cuaudit ctl`, the readers of the live regions. */
#ifndef CUA_CLI_LIVE_H
#define CUA_CLI_LIVE_H

/* argv[0] is "ps", "top" or "ctl". Returns the exit status: 0, 1 when nothing could be
   read or changed, 2 for usage errors. */
int cua_cli_live_main(int argc, char **argv);

#endif
