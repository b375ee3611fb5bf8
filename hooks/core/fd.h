/* SPDX-License-Identifier: MIT */
/* hooks/core/fd.h: keeps the descriptors cuaudit owns at 1000 and above, out of the program's range. */
#ifndef CUA_FD_H
#define CUA_FD_H

/* Above 1000: the application may close or dup2 over low descriptors. */
#define CUA_FD_MIN 1000

/* A descriptor for fd at CUA_FD_MIN or above (close-on-exec), closing fd; fd itself where the
   limit on descriptors is lower. The program may close or reuse its low descriptors. */
int cua_fd_high(int fd);

#endif
