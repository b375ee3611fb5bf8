/* SPDX-License-Identifier: MIT */
/* groups/groupfile.c: the file a group of processes shares: found or made whole under a temporary name, checked (owner, mode, head, size) and mapped. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h> /* rename(2) only: no stream is used */
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "clock.h"
#include "fd.h"
#include "groupfile.h"
#include "process.h"

int cua_groupfile_fail(struct cua_buf *why, const char *what, int err)
{
	cua_buf_str(why, what);
	if (err) {
		cua_buf_str(why, ": ");
		cua_buf_errno(why, err);
	}
	return -1;
}

/* Makes the file under a temporary name, whole, then links it in place (or, with replace,
   renames it over what is there). Returns its descriptor, or -1 (EEXIST with why empty:
   another process made it first). */
static int make(const char *path, const struct cua_groupfile *f, int replace, struct cua_buf *why)
{
	char tmp[CUA_PATH_MAX_GROUP];
	struct cua_buf t = CUA_BUF(tmp);
	void *h;
	int fd, err;

	cua_buf_str(&t, path);
	cua_buf_str(&t, ".tmp.");
	cua_buf_u64(&t, cua_process_id());
	if (t.len >= sizeof(tmp))
		return cua_groupfile_fail(why, "cannot be made: its name is too long", 0);
	tmp[t.len] = '\0';
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd < 0)
		return cua_groupfile_fail(why, "cannot be made", errno);
	/* Blocks reserved now: a full /dev/shm fails here, never as SIGBUS at a later touch. */
	if ((err = fchmod(fd, 0600) != 0 ? errno : 0) ||
	    (err = cua_fd_grow(fd, (off_t)f->file_size, 1)) != 0) {
		unlink(tmp);
		close(fd);
		return cua_groupfile_fail(why, "cannot be made", err);
	}
	h = mmap(NULL, CUA_GROUPFILE_HEAD_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED) {
		err = errno;
		unlink(tmp);
		close(fd);
		return cua_groupfile_fail(why, "cannot be made", err);
	}
	f->init(h, f->arg);
	munmap(h, CUA_GROUPFILE_HEAD_SIZE);
	if (replace)
		err = rename(tmp, path) == 0 ? 0 : errno;
	else
		err = link(tmp, path) == 0 ? 0 : errno;
	unlink(tmp);
	if (err) {
		close(fd);
		if (err == EEXIST) {
			errno = EEXIST;
			return -1;
		}
		return cua_groupfile_fail(why, "cannot be made", err);
	}
	return fd;
}

static int open_file(const char *path, const struct cua_groupfile *f, struct cua_buf *why)
{
	for (int round = 0; round < 2; round++) {
		int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

		if (fd >= 0)
			return fd;
		if (errno == ELOOP)
			return cua_groupfile_fail(why, "is a symbolic link (never followed)", 0);
		if (errno != ENOENT)
			return cua_groupfile_fail(why, "cannot be opened", errno);
		fd = make(path, f, 0, why);
		if (fd >= 0 || errno != EEXIST || why->len)
			return fd;
	}
	return cua_groupfile_fail(why, "cannot be opened: it keeps appearing and vanishing", 0);
}

void *cua_groupfile_map(const char *path, const struct cua_groupfile *f,
			struct cua_groupfile_kept *k, struct cua_buf *why)
{
	_Alignas(8) unsigned char copy[CUA_GROUPFILE_HEAD_SIZE];
	uint32_t uid = (uint32_t)geteuid();
	const char *bad;
	struct stat st;
	void *map;
	int fd;

	if ((fd = open_file(path, f, why)) < 0)
		return NULL;
	if (fstat(fd, &st) != 0) {
		cua_groupfile_fail(why, "cannot be read", errno);
		close(fd);
		return NULL;
	}
	/* Only a file of this user, readable by nobody else: another user's could lie about
	   the group's use or read it. */
	if (!S_ISREG(st.st_mode) || st.st_uid != uid || (st.st_mode & 07777) != 0600) {
		close(fd);
		cua_groupfile_fail(why, !S_ISREG(st.st_mode) ? "is not a regular file"
					: st.st_uid != uid	? "belongs to another user"
								: "has a mode other than 0600",
				   0);
		return NULL;
	}
	if (pread(fd, copy, sizeof(copy), 0) != (ssize_t)sizeof(copy))
		memset(copy, 0, sizeof(copy));
	if ((bad = f->check(copy, (uint64_t)st.st_size, uid, f->arg))) {
		close(fd);
		cua_groupfile_fail(why, bad, 0);
		return NULL;
	}
	map = mmap(NULL, f->file_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		cua_groupfile_fail(why, "cannot be mapped", errno);
		close(fd);
		return NULL;
	}
	k->fd = cua_fd_high(fd);
	k->dev = (uint64_t)st.st_dev;
	k->ino = (uint64_t)st.st_ino;
	k->size = f->file_size;
	k->ofd_pid = k->reopening = (uint32_t)cua_process_id();
	return map;
}

int cua_groupfile_whole(struct cua_groupfile_kept *k, uint64_t gap_ns)
{
	uint64_t now = gap_ns ? cua_clock_ns() : 0;
	uint64_t last = __atomic_load_n(&k->looked_ns, __ATOMIC_RELAXED);
	int fd = __atomic_load_n(&k->fd, __ATOMIC_ACQUIRE);
	struct stat st;

	if (fd < 0)
		return 0;
	if (gap_ns && last && now - last < gap_ns)
		return 1;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_dev != k->dev || (uint64_t)st.st_ino != k->ino ||
	    st.st_size < 0 || (uint64_t)st.st_size < k->size)
		return 0;
	if (gap_ns)
		__atomic_store_n(&k->looked_ns, now, __ATOMIC_RELAXED);
	return 1;
}

int cua_groupfile_drop(void *map, size_t size, struct cua_groupfile_kept *k)
{
	struct stat st;
	int fd = __atomic_exchange_n(&k->fd, -1, __ATOMIC_ACQ_REL), r;

	/* Atomic for the other threads: each touch meets the file's page or a zero page. */
	r = mmap(map, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
		 0) == MAP_FAILED ? -1 : 0;
	if (fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_dev == k->dev &&
	    (uint64_t)st.st_ino == k->ino)
		close(fd);
	return r;
}

int cua_groupfile_lock(const struct cua_groupfile_kept *k, uint64_t off, short type)
{
	struct flock l;

	memset(&l, 0, sizeof(l));
	l.l_type = type;
	l.l_whence = SEEK_SET;
	l.l_start = (off_t)off;
	l.l_len = 1;
	return fcntl(k->fd, F_OFD_SETLK, &l) == 0 ? 0 : -1;
}

int cua_groupfile_held(const struct cua_groupfile_kept *k, uint64_t off, uint64_t len)
{
	struct flock l;

	memset(&l, 0, sizeof(l));
	l.l_type = F_WRLCK;
	l.l_whence = SEEK_SET;
	l.l_start = (off_t)off;
	l.l_len = (off_t)len;
	if (k->fd < 0 || fcntl(k->fd, F_OFD_GETLK, &l) != 0)
		return -1;
	return l.l_type != F_UNLCK;
}

int cua_groupfile_reopen(struct cua_groupfile_kept *k, void *map)
{
	char path[64];
	struct cua_buf b = CUA_BUF(path);
	struct stat st;
	int fd;

	cua_buf_str(&b, "/proc/self/fd/");
	cua_buf_u64(&b, (uint64_t)(k->fd < 0 ? 0 : k->fd));
	if (k->fd < 0 || b.len >= sizeof(path))
		return -1;
	path[b.len] = '\0';
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_dev != k->dev || (uint64_t)st.st_ino != k->ino ||
	    dup3(fd, k->fd, O_CLOEXEC) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	/* The mapping holds the description it was made from, and with it the parent's locks:
	   mapped again from the new one, at the same place (the same pages, in one step). */
	if (mmap(map, k->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, k->fd, 0) == MAP_FAILED)
		return -1;
	return 0;
}

int cua_groupfile_lock_own(struct cua_groupfile_kept *k, void *map, uint64_t off)
{
	uint32_t pid = (uint32_t)cua_process_id(), r;

	if (__atomic_load_n(&k->ofd_pid, __ATOMIC_ACQUIRE) != pid) {
		/* One thread of a forked child reopens; the others' slots go unlocked. */
		r = __atomic_load_n(&k->reopening, __ATOMIC_ACQUIRE);
		if (r == pid || !__atomic_compare_exchange_n(&k->reopening, &r, pid, 0,
							     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return 0;
		if (cua_groupfile_reopen(k, map) != 0)
			return 0;
		__atomic_store_n(&k->ofd_pid, pid, __ATOMIC_RELEASE);
	}
	return cua_groupfile_lock(k, off, F_WRLCK) == 0;
}

int cua_groupfile_own(const struct cua_groupfile_kept *k)
{
	return __atomic_load_n(&k->ofd_pid, __ATOMIC_ACQUIRE) == (uint32_t)cua_process_id();
}

int cua_groupfile_replace(const char *path, const struct cua_groupfile *f, struct cua_buf *why)
{
	int fd = make(path, f, 1, why);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int cua_groupfile_named(const char *path, const struct cua_groupfile_kept *k)
{
	struct stat st;

	return lstat(path, &st) == 0 && (uint64_t)st.st_dev == k->dev &&
	       (uint64_t)st.st_ino == k->ino;
}
