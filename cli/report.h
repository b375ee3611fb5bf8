/* SPDX-License-Identifier: MIT */
/* cli/report.h: `cuaudit report`: merges the JSON summaries of many processes. */
#ifndef CLI_REPORT_H
#define CLI_REPORT_H

/* Returns the exit status: 0, 1 (a file could not be read or parsed), 2 (usage). */
int cuaudit_report_main(int argc, char **argv);

#endif
