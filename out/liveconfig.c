/* SPDX-License-Identifier: MIT */
/* out/liveconfig.c: reads the live view's variables (CUAUDIT_LIVE, CUAUDIT_LIVE_CALLS, CUAUDIT_LIVE_DIR) once, in la_version. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "liveconfig.h"
#include "fmt.h"
#include "livefmt.h"

static void bad(cua_liveconfig_diag_fn diag, const char *var, const char *value, const char *accepted,
		const char *fallback)
{
	char msg[1536];
	struct cua_buf b = CUA_BUF(msg);

	cua_buf_str(&b, "cuaudit: ");
	cua_buf_str(&b, var);
	cua_buf_char(&b, '=');
	cua_buf_quoted(&b, value, 200);
	cua_buf_str(&b, " is not valid; accepted: ");
	cua_buf_str(&b, accepted);
	cua_buf_str(&b, ". ");
	cua_buf_str(&b, fallback);
	cua_buf_char(&b, '\n');
	msg[b.len < sizeof(msg) ? b.len : sizeof(msg) - 1] = '\0';
	diag(msg);
}

static int word(const char *v, const char *const *list, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const char *a = v, *w = list[i];

		while (*a && *w && (*a | 0x20) == *w)
			a++, w++;
		if (!*a && !*w)
			return 1;
	}
	return 0;
}

int cua_liveconfig_open_dir(const char *dir, const char **why, int *err)
{
	struct stat st;
	int fd;

	*err = 0;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		*why = "cannot create its directory ";
		*err = errno;
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		struct stat lst;

		*err = errno;
		/* O_DIRECTORY with O_NOFOLLOW says ENOTDIR for a link to a directory too. */
		if ((*err == ELOOP || *err == ENOTDIR) && lstat(dir, &lst) == 0) {
			*why = S_ISLNK(lst.st_mode) ? "its directory is a symbolic link (refused): " :
						      "its directory is not a directory: ";
			*err = 0;
		} else {
			*why = "cannot open its directory ";
		}
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077)) {
		*why = "its directory must be the user's own with mode 0700: ";
		close(fd);
		return -1;
	}
	return fd;
}

size_t cua_liveconfig_default_dir(char *out, size_t cap, uint64_t uid)
{
	struct cua_buf b = { out, 0, cap, 0, NULL, 0 };

	/* One fixed place per user, the same for a service and for the SRE's shell (the
	   XDG runtime directory is not set for services). */
	cua_buf_str(&b, "/tmp/cuaudit-");
	cua_buf_u64(&b, uid);
	if (cap)
		out[b.len < cap ? b.len : cap - 1] = '\0';
	return b.len;
}

void cua_liveconfig_load(struct cua_live_config *cfg, int capture_ctl, cua_liveconfig_get_fn get,
			 cua_liveconfig_diag_fn diag)
{
	static const char *const on[] = { "1", "on", "yes", "true" };
	static const char *const off[] = { "0", "off", "no", "false" };
	const char *v = get("CUAUDIT_LIVE");
	uint64_t n = 0;

	if (v && word(v, on, 4))
		cfg->on = 1;
	else if (v && !word(v, off, 4))
		bad(diag, "CUAUDIT_LIVE", v, "1 or 0 (on/off, yes/no, true/false)",
		    "The live view stays off.");
	/* `cuaudit ctl` reaches the process through its region. */
	if (capture_ctl)
		cfg->on = 1;
	cfg->calls = CUA_LIVE_CALLS_DEFAULT;
	if ((v = get("CUAUDIT_LIVE_CALLS"))) {
		const char *p = v;

		while (*p >= '0' && *p <= '9' && n <= CUA_LIVE_CALLS_MAX)
			n = n * 10 + (uint64_t)(*p++ - '0');
		if (p == v || *p || n < 1 || n > CUA_LIVE_CALLS_MAX)
			bad(diag, "CUAUDIT_LIVE_CALLS", v, "a whole number from 1 to 4096",
			    "Each thread keeps its last 64 calls.");
		else
			/* A power of two: the ring index is a mask, not a division, per call; and
			   at least CUA_LIVE_CALLS_MIN, since the ring holds the calls in flight
			   too (a runtime call and the driver calls inside it). */
			for (cfg->calls = CUA_LIVE_CALLS_MIN; cfg->calls < n; cfg->calls <<= 1)
				;
	}
	cfg->dir[0] = '\0';
	if ((v = get("CUAUDIT_LIVE_DIR"))) {
		if (v[0] != '/' || strlen(v) >= sizeof(cfg->dir) - 64)
			bad(diag, "CUAUDIT_LIVE_DIR", v, "an absolute directory path",
			    "The default directory is used.");
		else
			memcpy(cfg->dir, v, strlen(v) + 1);
	}
}
