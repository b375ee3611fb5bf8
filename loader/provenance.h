/* SPDX-License-Identifier: MIT */
/* loader/provenance.h: where a report came from: host, pid, command line, times, versions. */
#ifndef CUA_PROVENANCE_H
#define CUA_PROVENANCE_H

#include <stddef.h>
#include <stdint.h>
#include "fmt.h"

#ifndef CUAUDIT_VERSION
#define CUAUDIT_VERSION "unknown"
#endif

/* Reads /proc/self/cmdline, the host name and the start time. From la_version only. */
void cua_provenance_init(void);

/* The command line, argv joined by spaces; the program's name (argv[0] without its folder). */
const char *cua_provenance_command(void);
const char *cua_provenance_program(void);

/* A version the application asked for (cuDriverGetVersion, cudaRuntimeGetVersion); layer is
   enum cuaudit_layer. Safe on any thread. */
void cua_provenance_note_version(unsigned layer, int version);
/* The version of a layer: noted, or asked of the library's own function now (a direct call,
   never through a wrapper). Returns 0 and sets *version, or -1. At exit only. */
int cua_provenance_version(unsigned layer, int *version);
/* Set once both versions are noted (or after 64 tries). Until then the summary calls
   cua_provenance_poll from calls the application made (depth 0), while the libraries are
   loaded: at exit glibc may have closed them before the summary is written, and cuaudit
   never calls into a closing library. */
extern int cua_provenance_known;
void cua_provenance_poll(void);

/* The "process" object of the JSON summary (docs/hooks.md), without a leading comma. */
void cua_provenance_json(struct cua_buf *b);
/* One line for the text summary's head: "cuaudit summary: host ..., pid ..., ...\n". */
void cua_provenance_text(struct cua_buf *b);

/* The process's wall-clock anchor, read once at start: a CLOCK_REALTIME time and the
   CLOCK_MONOTONIC time (the clock calls are timed with) of the same moment, in ns. */
void cua_provenance_anchor(uint64_t *realtime_ns, uint64_t *monotonic_ns);

/* A thread's name from /proc/self/task/TID/comm; 0 when it has ended (the caller names it).
   Returns the length (no NUL). At exit only. */
size_t cua_provenance_thread_name(uint32_t tid, char *out, size_t cap);

/* "YYYY-MM-DDTHH:MM:SSZ" for seconds since the epoch, without the C library's time zone
   code. Writes 20 bytes. */
void cua_provenance_iso8601(char out[20], uint64_t seconds);

#endif
