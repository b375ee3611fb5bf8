/* SPDX-License-Identifier: MIT */
/* hooks/writer.h: buffered, locale-free writing of reports to a descriptor. */
#ifndef CUA_WRITER_H
#define CUA_WRITER_H

#include "fmt.h"

struct cua_writer {
	int fd;
	int failed;
	struct cua_buf b;
	char mem[16384];
};

void cua_writer_init(struct cua_writer *w, int fd);
/* Makes room for 'need' more bytes, flushing if necessary; returns the buffer to append to. */
struct cua_buf *cua_writer_room(struct cua_writer *w, size_t need);
void cua_writer_flush(struct cua_writer *w);

/* Opens a report file named by a template (%p, %h), never following a symbolic link in the
   last component. An existing file is reused only if it is empty or begins with
   'signature' (cuaudit wrote it); otherwise cuaudit writes NAME.1, NAME.2, ... (before the
   extension) instead, so it never truncates a file it did not create. The name used is in
   path_out. Returns the descriptor or -1. */
int cua_writer_open(const char *tmpl, const char *signature, char *path_out, size_t path_cap);

#endif
