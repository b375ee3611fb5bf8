/* SPDX-License-Identifier: MIT */
/* base/threads.c: the per-thread registry shared by the summary and the trace: records of ended threads are reused. */
#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "threads.h"

/* At most this many owners are probed per new thread, so that starting a thread stays
   cheap when thousands live; a record missed now is found by a later thread. */
#define MAX_PROBES 256

int cua_thread_alive(uint64_t pid, uint32_t tid)
{
	int saved = errno, alive;

	/* Signal 0 checks existence only. pthread key destructors and __cxa_thread_atexit
	   registered in the audit namespace's libc are not run for the program's threads, so
	   an ended thread is noticed this way instead. */
	alive = syscall(SYS_tgkill, (pid_t)pid, (pid_t)tid, 0) == 0 || errno != ESRCH;
	errno = saved;
	return alive;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t cua_wait_deadline(void)
{
	return now_ns() + CUA_WAIT_MAX_NS;
}

int cua_wait_more(uint64_t deadline)
{
	if (now_ns() >= deadline)
		return 0;
	usleep(20);
	return 1;
}

static struct cua_tslot *adopt(struct cua_tslot *head, uint64_t pid, uint32_t tid,
				unsigned level)
{
	unsigned probes = 0;

	for (struct cua_tslot *s = head; s && probes < MAX_PROBES; s = s->next) {
		uint32_t owner = __atomic_load_n(&s->tid, __ATOMIC_ACQUIRE);

		if (s->pid != pid || s->level != level || __atomic_load_n(&s->busy, __ATOMIC_ACQUIRE))
			continue;
		/* Thread ids are unique among live threads: a record under our own id belongs
		   to a thread that has ended. */
		if (owner != tid && (probes++, cua_thread_alive(pid, owner)))
			continue;
		if (__atomic_compare_exchange_n(&s->tid, &owner, tid, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return s;
	}
	return NULL;
}

static uint64_t last_pid;

uint64_t cua_tslot_last_pid(void)
{
	return __atomic_load_n(&last_pid, __ATOMIC_RELAXED);
}

struct cua_tslot *cua_tslot_acquire(struct cua_tslot **head, size_t size, uint64_t pid,
				    uint32_t tid, unsigned level)
{
	struct cua_tslot *s = adopt(__atomic_load_n(head, __ATOMIC_ACQUIRE), pid, tid, level);

	__atomic_store_n(&last_pid, pid, __ATOMIC_RELAXED);
	if (s)
		return s;
	s = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return NULL;
	s->pid = pid;
	s->tid = tid;
	s->level = level;
	s->next = __atomic_load_n(head, __ATOMIC_ACQUIRE);
	while (!__atomic_compare_exchange_n(head, &s->next, s, 1, __ATOMIC_RELEASE,
					    __ATOMIC_ACQUIRE))
		;
	return s;
}
