/* SPDX-License-Identifier: MIT */
/* base/fd.h: keeps the descriptors cuaudit owns at 1000 and above, and is the one way the module writes or grows a file. */
#ifndef CUA_FD_H
#define CUA_FD_H

#include <stddef.h>
#include <sys/types.h>

/* Above 1000: the application may close or dup2 over low descriptors. */
#define CUA_FD_MIN 1000

/* A descriptor for fd at CUA_FD_MIN or above (close-on-exec), closing fd; fd itself where the
   limit on descriptors is lower. The program may close or reuse its low descriptors. */
int cua_fd_high(int fd);

/* Writes all n bytes (at offset at, or at the file position when at < 0), again after EINTR.
   0, or -1 with errno set (EIO for a write of 0 bytes): a short write is an error. The one
   write-everything loop of the module. Past RLIMIT_FSIZE it fails with EFBIG and the program
   gets no SIGXFSZ: every write of the module's outputs comes here. */
int cua_fd_write_all(int fd, const void *p, size_t n, off_t at);

/* Makes the file size bytes long, its blocks reserved when reserve says so (posix_fallocate,
   ftruncate where the file system has no fallocate). 0, or an errno value (EFBIG past
   RLIMIT_FSIZE, without SIGXFSZ). The one way the module makes a file longer. */
int cua_fd_grow(int fd, off_t size, int reserve);

#endif
