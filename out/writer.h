/* SPDX-License-Identifier: MIT */
/* out/writer.h: buffered, locale-free writing of reports to a descriptor. */
#ifndef CUA_WRITER_H
#define CUA_WRITER_H

#include "fmt.h"

struct cua_writer {
	int fd;
	int failed;
	int err;          /* errno of the first failed write; EIO for a write that wrote 0 */
	uint64_t written; /* bytes that reached the descriptor */
	/* The file last committed (or claimed) under the name, held open with a shared flock
	   while this process lives: another process that finds the name passes it over
	   (cua_out_choose) instead of taking it. held_fd is the descriptor plus one, 0: none;
	   cua_writer_init leaves these alone. */
	int held_fd;
	uint64_t held_dev, held_ino;
	struct cua_buf b;
	char mem[16384];
};

void cua_writer_init(struct cua_writer *w, int fd);
/* Makes room for 'need' more bytes, flushing if necessary; returns the buffer to append to. */
struct cua_buf *cua_writer_room(struct cua_writer *w, size_t need);
void cua_writer_flush(struct cua_writer *w);

/* Opens the report file a template (%p, %h) names, by the one rule for outputs
   (cua_out_choose): a file cuaudit did not write is left alone and the report goes to
   NAME.1.ext, NAME.2.ext, ...; a file of ours is passed over too when an earlier image of this
   process finished it at its exec (cua_writer_mark_images), or when it changed since this run
   began (another process of the run claimed or wrote it: CUAUDIT_SESSION_START, else this
   process's start); with CUA_WRITER_REPLACE_IMAGES (the metrics, a live view) a file an
   earlier image of this process finished at its exec is replaced, another process's kept.
   The file is created, or emptied, at once: it is this process's claim on the name. 'what'
   names the output in the message. The name used is in path. Returns the descriptor or -1. */
#define CUA_WRITER_REPLACE_IMAGES 1u
int cua_writer_open(const char *what, const char *tmpl, const char *signature, unsigned flags,
		    char *path, size_t cap);

/* From la_version: remembers this image's start, which forked children keep as the start of
   their run (the report files' rule, cua_writer_open). */
void cua_writer_setup(void);

/* While on, files closed or committed are marked as finished by an image that ends at exec
   (in their modification time's nanoseconds), so the next image keeps them. */
void cua_writer_mark_images(int on);

/* Flushes, closes, and says so when anything failed: one message on stderr naming 'path'
   and the error. Returns 0 if every byte was written, else -1. */
int cua_writer_close(struct cua_writer *w, const char *path);



/* Replaces 'path' atomically: writes go to a temporary file beside it, renamed over it by
   cua_writer_commit, so a reader sees the old file or the new one, never a part. Starts w on
   it and returns 0; the temporary name is kept in tmp. On failure says "cannot write the
   <what> beside <path>" once and returns -1. */
int cua_writer_begin_atomic(struct cua_writer *w, const char *what, const char *path, char *tmp,
			    size_t cap);
/* Closes w and renames tmp over path; on any failure removes tmp, reports once and
   returns -1. */
int cua_writer_commit(struct cua_writer *w, const char *tmp, const char *path);

#endif
