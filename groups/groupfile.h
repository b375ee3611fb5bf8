/* SPDX-License-Identifier: MIT */
/* groups/groupfile.h: the file a group of processes shares (a memory group's, the compute share's): found or made whole, checked, mapped. */
#ifndef CUA_GROUPFILE_H
#define CUA_GROUPFILE_H

#include <stddef.h>
#include <stdint.h>
#include "fmt.h"

/* Room for a share directory of CUA_PATH_MAX bytes, a file's prefix, a uid and a name. */
#define CUA_PATH_MAX_GROUP 1400u
/* A group file's head is one page: made by init, read back whole by check. */
#define CUA_GROUPFILE_HEAD_SIZE 4096u

/* What one kind of group file is. */
struct cua_groupfile {
	size_t file_size;
	/* Writes the head of a new file (CUA_GROUPFILE_HEAD_SIZE bytes, zeroed). */
	void (*init)(void *head, const void *arg);
	/* NULL where the head (a copy) and the file's size are acceptable to a process of this
	   user; else what is wrong, a phrase after "the file". */
	const char *(*check)(const void *head, uint64_t size, uint32_t uid, const void *arg);
	const void *arg;
};

/* Appends what went wrong (and the system's error where err is not 0) to why; returns -1. */
int cua_groupfile_fail(struct cua_buf *why, const char *what, int err);

/* A mapped group file, kept open so that each use can first see that it is still whole. */
struct cua_groupfile_kept {
	int fd;       /* at CUA_FD_MIN or above, close-on-exec; -1 once dropped */
	uint64_t dev, ino, size;
	uint64_t looked_ns; /* cua_clock_ns of the last look that found the file whole; 0: none */
	/* The process whose own open file description fd is (set by cua_groupfile_map; a forked
	   child shares its parent's until cua_groupfile_lock_own reopens it), and the one
	   reopening it now. */
	uint32_t ofd_pid, reopening;
};

/* Maps the group file at path, read and write, shared: an existing one only if it is a
   regular file of this user, mode 0600, not a symbolic link, whose head f->check accepts;
   a missing one is made first, whole, under a temporary name and linked in place, so that a
   file under the group's name is always complete. Its descriptor is kept in *k. NULL with
   why filled on failure. */
void *cua_groupfile_map(const char *path, const struct cua_groupfile *f,
			struct cua_groupfile_kept *k, struct cua_buf *why);

/* Whether k's file is still whole: its kept descriptor still names the mapped file (the
   program may close or reuse it) and the file is still as long as the mapping. A file cut
   short (truncated) under a shared mapping faults with SIGBUS at the next touch of a page past
   its end, and Linux can keep a tmpfs file from shrinking only with a seal, which exists on
   memfd files alone (docs/design.md, "Group files"): so a use of the mapping looks first. One
   fstat, unless a look found the file whole less than gap_ns ago: the memory group looks at
   every use (0: an allocation costs a driver call anyway), the compute share at most once in
   CUA_GROUPFILE_SHARE_GAP_NS (it is charged at every launch, and one system call a launch
   would cost more than the launch's own work). Async-signal-safe. 1 whole, 0 not (cut
   short, or no longer to be told). */
#define CUA_GROUPFILE_SHARE_GAP_NS 1000000ull
int cua_groupfile_whole(struct cua_groupfile_kept *k, uint64_t gap_ns);

/* Slot locks: a process holds an open-file-description lock (F_OFD_SETLK, never waited for)
   on one byte of its slot while it lives; the kernel drops it when the process ends or execs
   (the descriptor is close-on-exec), in any pid namespace. So a slot of a process that no
   /proc here can show (another pid namespace, one that is gone with its container) is known
   dead when no one holds its byte. */
/* Takes (type F_WRLCK or F_RDLCK) or drops (F_UNLCK) this description's lock on the byte at
   off of k's file, without waiting. 0, or -1 (EAGAIN: another holds it). */
int cua_groupfile_lock(const struct cua_groupfile_kept *k, uint64_t off, short type);
/* Whether another open file description holds a lock on len bytes from off: 1 yes, 0 no,
   -1 cannot be told. */
int cua_groupfile_held(const struct cua_groupfile_kept *k, uint64_t off, uint64_t len);
/* Gives k's descriptor an open file description of its own (a forked child shares its
   parent's, and with it the parent's locks, through both the descriptor and the mapping),
   through /proc/self/fd, and maps the file at map again from it. 0, or -1. */
int cua_groupfile_reopen(struct cua_groupfile_kept *k, void *map);
/* Takes (F_WRLCK) the byte at off of k's file for this process, on an open file description
   of its own: the first use in a forked child reopens the file (cua_groupfile_reopen, mapped
   at map again), by one of its threads; the others' uses go unlocked meanwhile. 1 if held on
   a description of this process's own, 0 if not. */
int cua_groupfile_lock_own(struct cua_groupfile_kept *k, void *map, uint64_t off);
/* Whether k's descriptor is this process's own open file description (its locks, and what
   cua_groupfile_held says through it, are this process's). */
int cua_groupfile_own(const struct cua_groupfile_kept *k);

/* Makes a new file at path as cua_groupfile_map would, whole under a temporary name, and
   renames it over the one there: only for a file that no live process uses (its caller
   holds the old file's byte 0 locked, so no process is joining it). 0, or -1 with why. */
int cua_groupfile_replace(const char *path, const struct cua_groupfile *f, struct cua_buf *why);
/* Whether path names k's file still (not removed or replaced since it was mapped). */
int cua_groupfile_named(const char *path, const struct cua_groupfile_kept *k);

/* Puts private zero pages in place of the mapping at map (size bytes, at the same address),
   so that no touch through it can fault from now on, and closes k's descriptor where it is
   still the file's. Async-signal-safe. 0, or -1 where the zero pages could not be mapped
   (then the mapping is still the file's: its caller must never touch it again). */
int cua_groupfile_drop(void *map, size_t size, struct cua_groupfile_kept *k);

#endif
