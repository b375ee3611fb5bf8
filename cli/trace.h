/* SPDX-License-Identifier: MIT */
/* cli/trace.h: `cuaudit trace RAW...`: turns the raw files a killed process left into Chrome trace JSON. */
#ifndef CUA_CLI_TRACE_H
#define CUA_CLI_TRACE_H

/* argv[0] is "trace". Returns the exit status: 0, 1 if a file could not be converted, 2 for
   usage errors. */
int cua_cli_trace_main(int argc, char **argv);

#endif
