/* SPDX-License-Identifier: MIT */
/* audit/instance.c: finds another instance of cuaudit in the process through a named shared mapping that /proc/self/maps shows to all of them. */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fd.h"
#include "instance.h"

/* Two instances (DT_AUDIT and LD_AUDIT) each get their own namespace, globals and libc,
   so nothing in memory is common to them but the address space itself. A memfd mapping
   carries its name into /proc/self/maps, outlives its descriptor (programs close every
   descriptor they did not open) and is gone after exec, like the instances themselves. */
#define MARKER_NAME "cuaudit-instance"
#define MARKER_LINE "/memfd:" MARKER_NAME

struct marker {
	uint32_t others; /* later instances that stood down */
};

static struct marker *mine;

static uintptr_t parse_hex(const char *s)
{
	uintptr_t v = 0;

	for (;; s++) {
		if (*s >= '0' && *s <= '9')
			v = v * 16 + (uintptr_t)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			v = v * 16 + (uintptr_t)(*s - 'a' + 10);
		else
			return v;
	}
}

/* The start of the marker mapping in /proc/self/maps, or 0. Lines are read through a
   window so that one split across two reads is still seen whole. */
static uintptr_t find_marker(void)
{
	char buf[8192];
	size_t have = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	uintptr_t found = 0;

	if (fd < 0)
		return 0;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *line = buf, *nl;

		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		while (!found && (nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
			*nl = '\0';
			if (strstr(line, MARKER_LINE))
				found = parse_hex(line);
			line = nl + 1;
		}
		if (found)
			break;
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0; /* a line longer than the window: not ours */
	}
	close(fd);
	return found;
}

int cua_instance_claim(void)
{
	uintptr_t other = find_marker();
	long page = sysconf(_SC_PAGESIZE);
	void *p;
	int fd;

	if (other) {
		__atomic_add_fetch(&((struct marker *)other)->others, 1, __ATOMIC_RELEASE);
		return 0;
	}
	fd = memfd_create(MARKER_NAME, MFD_CLOEXEC);
	if (fd < 0)
		return 1; /* no memfd (Linux < 3.17, or filtered): no detection either */
	p = cua_fd_grow(fd, page, 0) == 0
		    ? mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
		    : MAP_FAILED;
	close(fd);
	if (p != MAP_FAILED)
		mine = p;
	return 1;
}

unsigned cua_instance_others(void)
{
	return mine ? __atomic_load_n(&mine->others, __ATOMIC_ACQUIRE) : 0;
}
