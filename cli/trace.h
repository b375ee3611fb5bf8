/* SPDX-License-Identifier: MIT */
/* cli/trace.h: `cuaudit trace RAW...`: turns the raw files a killed process left into Chrome trace JSON. */
#ifndef CUA_CLI_TRACE_H
#define CUA_CLI_TRACE_H

/* argv[0] is "trace". Returns the exit status: 0, 1 if a file could not be converted, 2 for
   usage errors. */
int cua_cli_trace_main(int argc, char **argv);

struct cua_raw_head;
/* 1 when the process that writes the raw file still runs: its pid is alive with the start
   time and PID namespace the file recorded, and is no zombie. 0 when it ended (or the pid
   now names another process). */
int cua_cli_raw_writer_running(const struct cua_raw_head *h);

#endif
