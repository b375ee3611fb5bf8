/* SPDX-License-Identifier: MIT */
/* groups/memgroup.h: the memory group file (CUAUDIT_MEM_GROUP): its format, and the lock-free charges that processes of one group share through it. */
#ifndef CUA_MEMGROUP_H
#define CUA_MEMGROUP_H

#include <stddef.h>
#include <stdint.h>
#include "groupfile.h"

/* The file, version 1 (docs/hooks.md, "A memory group"): a 4096-byte head, then
   CUA_GROUP_SLOTS slots of one process each. Every number is in the machine's byte order;
   every shared word is changed only with atomic operations, never under a lock, so no
   process can die holding one. */
#define CUA_GROUP_MAGIC "CUAGROUP"
#define CUA_GROUP_VERSION 1u
#define CUA_GROUP_HEAD_SIZE 4096u
#define CUA_GROUP_SLOTS 1024u
#define CUA_GROUP_DEVICES 64u
#define CUA_GROUP_NAME_MAX 128u
/* The file's name in the share directory: this prefix, the owner's uid, '-', the group. Two
   users' groups of one name never meet: each opens only files named with its own uid. */
#define CUA_GROUP_FILE_PREFIX "cuaudit-memgroup-"

struct cua_buf;

/* owner: 0 is a free slot. Else the pid (low 32 bits), a generation (bits 32 to 62, new at
   each claim, so that a slot taken back and claimed again is never mistaken for the old
   one) and READY (bit 63): the slot's counters count only once it is set. */
#define CUA_GROUP_READY (1ull << 63)
#define CUA_GROUP_PID(owner) ((uint32_t)((owner) & 0xffffffffu))
/* The process holds the lock on its slot's first byte while it lives (groupfile.h). */
#define CUA_GROUP_SLOT_LOCKED 1ull
#define CUA_GROUP_SLOT_AT(i) \
	((uint64_t)CUA_GROUP_HEAD_SIZE + (uint64_t)(i) * sizeof(struct cua_group_slot))

struct cua_group_slot {
	uint64_t owner;
	uint64_t start_ticks; /* the process's start, /proc/PID/stat field 22 */
	uint64_t pidns;       /* inode of its /proc/self/ns/pid; 0 when unknown */
	uint64_t flags;       /* CUA_GROUP_SLOT_LOCKED; 0 from cuaudit before slot locks */
	uint64_t reserved[4]; /* zero in version 1 */
	/* Bytes the process asks for and has not been granted yet, then bytes granted. */
	uint64_t trying[CUA_GROUP_DEVICES];
	uint64_t used[CUA_GROUP_DEVICES];
};

struct cua_group_head {
	char magic[8];
	uint32_t version;
	uint32_t head_size;       /* CUA_GROUP_HEAD_SIZE */
	uint64_t file_size;
	uint32_t slots;           /* CUA_GROUP_SLOTS */
	uint32_t devices;         /* CUA_GROUP_DEVICES */
	uint32_t slot_size;       /* sizeof(struct cua_group_slot) */
	uint32_t uid;             /* the owner; the file's own owner must agree */
	uint64_t quota[CUA_GROUP_DEVICES]; /* bytes per device, 0: none; fixed at creation */
	uint64_t next_gen;        /* the last generation given to a claim */
	uint32_t hwm;             /* slots below this index may be claimed: the sums read them */
	uint32_t pad;
	uint64_t reclaimed;       /* slots taken back from processes that died */
	uint64_t scan_ns;         /* CLOCK_MONOTONIC of the last look for dead processes */
	char name[CUA_GROUP_NAME_MAX]; /* the group, NUL-terminated */
	/* Zero in version 1, kept for later state of the group (the compute share keeps its
	   own file); a version that uses them says so with a new version number. */
	uint8_t reserved[CUA_GROUP_HEAD_SIZE - 8 - 4 * 2 - 8 - 4 * 4 - 8 * CUA_GROUP_DEVICES - 8 -
			 4 * 2 - 8 - 8 - CUA_GROUP_NAME_MAX];
};

#define CUA_GROUP_FILE_SIZE \
	((uint64_t)CUA_GROUP_HEAD_SIZE + (uint64_t)CUA_GROUP_SLOTS * sizeof(struct cua_group_slot))

/* ---------------------------------------------------------------- checking a file */

/* NULL when the head at h (a file of size bytes, owned by uid) is a sound version-1 head,
   else why not, in words. Reads only h. */
const char *cua_memgroup_check_head(const struct cua_group_head *h, uint64_t size, uint32_t uid);
/* The path of group name's file of user uid in dir into out (cap bytes); -1 if it does not
   fit. */
int cua_memgroup_path(char *out, size_t cap, const char *dir, uint32_t uid, const char *name);

/* ---------------------------------------------------------------- a process in a group */

/* Opens or makes group name's file in dir with quota[] (CUA_GROUP_DEVICES entries) and
   takes a slot for this process. 0; or 1 with why written: the file was made with another
   quota and live processes use it, so this process joined under the file's quota (the
   caller keeps its own limit too: the stricter holds); or -1 with why (what is wrong with
   the file, in words) written: the file is another user's, a link, not 0600, corrupt,
   truncated, of another version, the directory is full or unwritable, every slot is taken.
   A file of another quota that no live process uses is made anew with quota. From
   la_version. */
int cua_memgroup_attach(const char *dir, const char *name, const uint64_t *quota,
			struct cua_buf *why);
/* Whether attach succeeded in this image and the file has not been found cut short since. */
int cua_memgroup_on(void);
/* fn is called once, on the thread that first finds the group's file cut short (truncated):
   the process then leaves the group, and its quota calls return 0 from then on. */
void cua_memgroup_set_on_lost(void (*fn)(void));
/* The group's quota of device dev (0: none, or no group any more). Looks first that the
   file is whole (one fstat). */
uint64_t cua_memgroup_quota(unsigned dev);

/* Charges size bytes on device dev to this process's slot, unless the group's use would pass
   its quota; two processes can never both pass. Takes back the slots of dead processes
   before it refuses. 0, or -1: refused. Lock-free; safe in a signal handler. */
int cua_memgroup_charge(unsigned dev, uint64_t size);
/* Gives back (credit) or adds (up) bytes on device dev without a check, saturating. */
void cua_memgroup_adjust(unsigned dev, uint64_t bytes, int up);
/* The group's use of device dev: the bytes granted in live slots (dead processes' slots
   are taken back first when reclaim is set). */
uint64_t cua_memgroup_used(unsigned dev, int reclaim);
/* Takes back the slots of processes that are gone (pid gone, zombie, or a new process under
   the same pid; of another pid namespace, its slot's lock held by no one). Returns how many. */
unsigned cua_memgroup_reclaim(void);
/* The same, unless some process of the group looked within the last CUA_GROUP_SCAN_NS:
   reading /proc for every slot at each refusal would cost more than the allocations. Then
   only the slots whose pid is gone (kill(pid, 0): ESRCH) are taken back. */
#define CUA_GROUP_SCAN_NS 5000000ull
unsigned cua_memgroup_reclaim_soon(void);

/* ---------------------------------------------------------------- shared with readers */

/* The start time of process pid (/proc/PID/stat field 22) into *ticks and 1 if it is
   running (not a zombie); 0 when it is gone; -1 when it cannot be told. Locale-free. */
int cua_memgroup_proc_start(uint32_t pid, uint64_t *ticks);
/* Whether the process of a slot is alive, judged from this process's pid namespace ns: 1
   alive, 0 gone, -1 cannot be told (another pid namespace, /proc unreadable). */
int cua_memgroup_slot_alive(uint64_t owner, uint64_t start_ticks, uint64_t slot_ns, uint64_t ns);
/* The inode of this process's pid namespace, 0 if unknown. */
uint64_t cua_memgroup_pidns(void);

#endif
