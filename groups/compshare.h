/* SPDX-License-Identifier: MIT */
/* groups/compshare.h: the compute share file (CUAUDIT_COMPUTE_LIMIT): its format, each process's GPU time per device in time buckets, and the rule that says whether a group is over its share. */
#ifndef CUA_COMPSHARE_H
#define CUA_COMPSHARE_H

#include <stddef.h>
#include <stdint.h>

/* One file per user in the share directory, "cuaudit-compute-UID", version 1 (docs/hooks.md,
   "A compute share"): a 4096-byte head, then CUA_CS_SLOTS slots of one process each. Every
   process of this user that runs with a compute limit, in any group, has a slot: the rule
   needs every group's use of a device, not only its own. A process writes only its own slot
   (its busy time, its limit, when it last wanted the GPU); everyone reads all of them. There
   is no lock: a process killed at any point leaves a slot whose buckets age out of the window
   (CUA_CS_WINDOW_NS) and whose slot is taken back when its pid is gone. Version 2 added
   the turns (below): a word per device in the head, and each slot's idle, waiting and
   launched times. */
#define CUA_CS_MAGIC "CUACOMPU"
#define CUA_CS_VERSION 2u
#define CUA_CS_HEAD_SIZE 4096u
#define CUA_CS_SLOTS 256u
#define CUA_CS_DEVICES 16u
#define CUA_CS_NAME_MAX 128u
#define CUA_CS_FILE_PREFIX "cuaudit-compute-"
/* Every time in the file is CLOCK_MONOTONIC, read with clock_gettime: the one clock all
   processes share (each one's cuaudit clock is its own calibrated TSC, which drifts against
   another's). Time is cut in buckets of 10 ms; each slot
   keeps the last 128 per device. The window is the last 100: a group's share is its GPU
   time over the last second. */
#define CUA_CS_BUCKET_NS 10000000ull
#define CUA_CS_BUCKETS 128u
#define CUA_CS_WINDOW_BUCKETS 100u
#define CUA_CS_WINDOW_NS (CUA_CS_BUCKET_NS * CUA_CS_WINDOW_BUCKETS)
/* A bucket word: its bucket number (time / CUA_CS_BUCKET_NS) above bit 24, the busy
   nanoseconds in it below (at most 10^7 < 2^24). A word of another number is empty. */
#define CUA_CS_BUSY_BITS 24
/* A group wants the GPU when one of its processes launched or waited within this. */
#define CUA_CS_ACTIVE_NS (200ull * 1000 * 1000)

/* A limit word: 0 none; else the percent (1 to 100) in the low 8 bits, and CUA_CS_SHARE
   where it is a weight (PCT:share) rather than a cap. */
#define CUA_CS_SHARE 0x100u
#define CUA_CS_PCT(l) ((l) & 0xffu)

/* Turns: while more than one group wants a device, one group at a time submits to it, for
   a turn of CUA_CS_TURN_NS times its percent (at least CUA_CS_TURN_MIN_NS): two contexts
   time-sliced by the GPU lose work to the switches (docs/hooks.md). A turn word: the slot
   index + 1 of the process that took it in the low 12 bits, the turn's end above them in
   units of 1024 ns (0: no turn yet). It ends by its time: a dead holder keeps nothing. The
   next group starts when every process of the last one has seen its own work finished
   (idle >= launched) or CUA_CS_DRAIN_MAX_NS after the turn's end, whichever is first. A
   group waits for a turn while one of its processes napped for one within
   CUA_CS_WAITING_NS. */
#define CUA_CS_TURN_NS (40ull * 1000 * 1000)
#define CUA_CS_TURN_MIN_NS (4ull * 1000 * 1000)
#define CUA_CS_DRAIN_MAX_NS (50ull * 1000 * 1000)
#define CUA_CS_WAITING_NS (10ull * 1000 * 1000)
/* A time read from the file more than this past now is no one's: it was written by a clock
   other than this boot's (a share directory on a disk kept across a reboot) or is damage.
   Believed, it would hold its slot wanting, waiting or its turn running for as long. */
#define CUA_CS_AHEAD_NS CUA_CS_WINDOW_NS
#define CUA_CS_TURN_SLOT(w) ((uint32_t)((w) & 0xfffu))
#define CUA_CS_TURN_END(w) (((w) >> 12) << 10)

#define CUA_CS_READY (1ull << 63)
#define CUA_CS_PID(owner) ((uint32_t)((owner) & 0xffffffffu))
/* The process holds the lock on its slot's first byte while it lives (groupfile.h). */
#define CUA_CS_SLOT_LOCKED 1ull
#define CUA_CS_SLOT_AT(i) ((uint64_t)CUA_CS_HEAD_SIZE + (uint64_t)(i) * sizeof(struct cua_cs_slot))

struct cua_cs_slot {
	uint64_t owner;       /* as a memory group's slot: pid, generation, READY */
	uint64_t start_ticks; /* /proc/PID/stat field 22 */
	uint64_t pidns;
	uint32_t limit[CUA_CS_DEVICES];
	uint64_t wants[CUA_CS_DEVICES];   /* time of its last launch seen, per device */
	uint64_t held[CUA_CS_DEVICES];    /* ns its launches were held back, in all */
	char group[CUA_CS_NAME_MAX];      /* "" : the process is its own group */
	uint64_t idle[CUA_CS_DEVICES];    /* its last look that found none of its work unfinished */
	uint64_t waiting[CUA_CS_DEVICES]; /* its last nap waiting for a turn */
	uint64_t launched;                /* just after its last go (any device) */
	uint64_t flags;                   /* CUA_CS_SLOT_LOCKED, as a memory group's slot */
	uint64_t reserved[6];
	uint64_t bucket[CUA_CS_DEVICES][CUA_CS_BUCKETS];
};

struct cua_cs_head {
	char magic[8];
	uint32_t version;
	uint32_t head_size;
	uint64_t file_size;
	uint32_t slots, devices, slot_size, uid;
	uint64_t bucket_ns;
	uint32_t buckets, window_buckets;
	uint64_t next_gen;
	uint32_t hwm;
	uint32_t pad;
	uint64_t reclaimed;
	uint64_t turn[CUA_CS_DEVICES];
	uint8_t reserved[CUA_CS_HEAD_SIZE - 8 - 4 * 2 - 8 - 4 * 4 - 8 - 4 * 2 - 8 - 4 * 2 - 8 -
			 8 * CUA_CS_DEVICES];
};

#define CUA_CS_FILE_SIZE \
	((uint64_t)CUA_CS_HEAD_SIZE + (uint64_t)CUA_CS_SLOTS * sizeof(struct cua_cs_slot))

/* NULL when h is a sound version-1 head of a file of size bytes owned by uid, else why not. */
const char *cua_cs_check_head(const struct cua_cs_head *h, uint64_t size, uint32_t uid);
int cua_cs_path(char *out, size_t cap, const char *dir, uint32_t uid);

/* ---------------------------------------------------------------- the rule */

/* One group's view of a device over the window ending at now. */
struct cua_cs_group {
	char name[CUA_CS_NAME_MAX]; /* "" for a process alone: then pid says which */
	uint32_t pid;               /* the first process seen of it */
	uint32_t limit;             /* the greatest limit word its processes give */
	unsigned processes;
	int active;                 /* wanted the GPU within CUA_CS_ACTIVE_NS */
	uint64_t busy_ns;           /* its own intervals' time, summed over its processes */
	uint64_t charge_ns;         /* its GPU time with other groups' time shared out */
	uint64_t held_ns;
	uint64_t waiting;           /* its processes' last nap waiting for a turn */
};
#define CUA_CS_MAX_GROUPS 64u

/* The groups that used or want device dev, over the window that ends at now, read from the
   slots of a mapped file (slots, hwm of them). A bucket where the groups' busy times sum to
   at most the bucket is taken as theirs alone each (they ran one after the other); where
   they sum to more, the GPU ran them time-sliced, each moment shared equally among the
   groups busy then, the shorter inside the longer. Returns how many groups (at most max). */
unsigned cua_cs_groups(const struct cua_cs_slot *slots, uint32_t hwm, unsigned dev,
		       uint64_t now, struct cua_cs_group *out, unsigned max);
/* Whether group g of out[0..n) is over its share: a cap, over its percent of the window; a
   weight, over its part by weight (among the active groups' weights) of what the active cap
   groups leave unused (each the lesser of its cap and its charge), while another active
   group has less than its own part (time nobody else wants is anyone's). */
int cua_cs_over(const struct cua_cs_group *out, unsigned n, unsigned g);

/* ---------------------------------------------------------------- this process */

/* Opens or makes the user's file in dir and takes a slot, with group name (NULL or "":
   alone) and limit words per device. 0, or -1 with why written. From la_version's hooks. */
struct cua_buf;
int cua_cs_attach(const char *dir, const char *group, const uint32_t *limit,
		  struct cua_buf *why);
/* Whether attached, to the shared file (not found cut short since). */
int cua_cs_on(void);
/* fn is called once, on the thread that first finds the share file cut short (truncated):
   from then on the process counts alone, in a private copy of the file (alone 1), or, where
   no private pages could be mapped in its place, has no compute limit (alone 0). */
void cua_cs_set_on_lost(void (*fn)(int alone));
/* Adds busy time [start, end) on device dev to this process's buckets. One thread at a
   time (the GPU timing's sink, under its lock). */
void cua_cs_charge(unsigned dev, uint64_t start, uint64_t end);
/* Marks that this process wants dev now, and adds ns it was held back. */
void cua_cs_want(unsigned dev, uint64_t now, uint64_t held_ns);
/* Publishes that this process has none of its work on dev unfinished at now (its idle):
   what a look with pending 0 publishes, for a synchronise that returned. */
void cua_cs_idle(unsigned dev, uint64_t now);
/* Marks that work of this process's goes to the GPU at now, after an idle it published
   (launched past it), so that no one takes that idle for this work's end. */
void cua_cs_launching(uint64_t now);
/* Whether another group may be waiting for this process's work to be seen finished (its
   idle) on a device it has a limit on: a turn was taken there and is running, or ended at
   most CUA_CS_DRAIN_MAX_NS ago (the judge's drain waits for the last turn's group within
   that, and for no one else). *now: CLOCK_MONOTONIC; where 0, read with clock only once a
   turn word is set, so that a group alone (which takes no turn) pays a load per device. */
int cua_cs_drain_watched(uint64_t (*clock)(void), uint64_t *now);
/* This process's group on dev over the window ending at now: 1 over, 0 not; *g filled. */
int cua_cs_assess(unsigned dev, uint64_t now, struct cua_cs_group *g);
/* Whether this process may submit to dev now. pending: it has work on dev not seen finished
   (0 publishes that it is idle). GO: *until is when the go ends (its group's turn, or
   now + CUA_CS_TURN_MIN_NS where no other group wants the device: no turn at all); OVER: its
   group is over its share; WAIT: another group's turn, or the last one's work draining, or
   its own turn is up while another group waits: *until is when to look again. */
enum { CUA_CS_GO = 0, CUA_CS_OVER = 1, CUA_CS_WAIT = 2 };
int cua_cs_judge(unsigned dev, uint64_t now, int pending, uint64_t *until);

#endif
