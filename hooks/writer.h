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

/* Opens a report file named by a template (%p, %h). Creates it with mode 0644, never
   following a symbolic link in the last component. Returns the descriptor or -1. */
int cua_writer_open(const char *tmpl, char *path_out, size_t path_cap);

#endif
