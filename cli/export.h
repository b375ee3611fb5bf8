/* SPDX-License-Identifier: MIT */
/* cli/export.h: `cuaudit export`, summaries and traces as SQLite tables, CSV or JSON lines. */
#ifndef CLI_EXPORT_H
#define CLI_EXPORT_H

int cua_cli_export_main(int argc, char **argv);

#endif
