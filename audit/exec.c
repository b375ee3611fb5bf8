/* SPDX-License-Identifier: MIT */
/* audit/exec.c: the exec wrappers: the image's summary, trace and plugins' exit work are written before exec replaces it. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "finish.h"
#include "exec.h"
#include "fmt.h"
#include "libs.h"
#include "livefmt.h"
#include "log.h"
#include "process.h"
#include "signals.h"
#include "symtab.h"
#include "writer.h"

/* exec keeps the process but replaces its image: no exit handler and no destructor runs, so
   this is the last point where the image's outputs can be written (docs/design.md, "exec").
   Only the C library of the main namespace is watched; the functions are taken from its own
   symbol table, and a binding is redirected only when it resolved to that very address. */
enum { EXECVE, EXECV, EXECVP, EXECVPE, FEXECVE, EXECVEAT, EXECL, EXECLE, EXECLP, NEXEC };

static const char *const names[NEXEC] = {
	"execve", "execv", "execvp", "execvpe", "fexecve", "execveat", "execl", "execle", "execlp",
};

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

static uintptr_t real[NEXEC];
/* The program's errno is its C library's, not the one of the audit namespace's own libc
   (docs/design.md, "Code on application threads"): read and set through that library's
   __errno_location. */
static int *(*program_errno)(void);
static char *(*program_getenv)(const char *);
static _Alignas(8) char libc_cookie; /* its address is the C library's loader cookie */

int cua_exec_wanted(void)
{
	return cua_finish_any_at_exec();
}

/* The function's index in names[], or -1. Every name starts with "exec" or "fexec". */
static int exec_index(const char *elf_name)
{
	if (elf_name[0] != 'e' && elf_name[0] != 'f')
		return -1;
	for (int i = 0; i < NEXEC; i++)
		if (strcmp(elf_name, names[i]) == 0)
			return i;
	return -1;
}

unsigned cua_exec_is_name(const char *elf_name)
{
	return exec_index(elf_name) >= 0;
}

static int is_libc_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL, *base = slash ? slash + 1 : path;

	return base && strncmp(base, "libc.so", 7) == 0;
}

uintptr_t cua_exec_open_libc(struct link_map *map, Lmid_t lmid)
{
	int signals;

	if (lmid != LM_ID_BASE || !is_libc_name(map->l_name))
		return 0;
	cua_program_errno = (int *(*)(void))cua_symtab_function_address(map, "__errno_location");
	cua_program_cxa_atexit = (int (*)(void (*)(void *), void *, void *))cua_symtab_function_address(
		map, "__cxa_atexit");
	cua_program_register_atfork = (int (*)(void (*)(void), void (*)(void), void (*)(void), void *))
		cua_symtab_function_address(map, "__register_atfork");
	/* The same cookie serves the signal-handler wrappers (audit/signals.c). */
	signals = cua_signals_open_libc(map);
	if (!cua_exec_wanted())
		return signals ? (uintptr_t)&libc_cookie : 0;
	for (unsigned i = 0; i < NEXEC; i++)
		real[i] = cua_symtab_function_address(map, names[i]);
	program_errno = (int *(*)(void))cua_symtab_function_address(map, "__errno_location");
	program_getenv = (char *(*)(const char *))cua_symtab_function_address(map, "getenv");
	/* The collecting forms call these three. */
	if (!real[EXECVE] || !real[EXECV] || !real[EXECVP] || !program_errno) {
		memset(real, 0, sizeof(real));
		return signals ? (uintptr_t)&libc_cookie : 0;
	}
	return (uintptr_t)&libc_cookie;
}

int cua_exec_is_cookie(uintptr_t cookie)
{
	return cookie == (uintptr_t)&libc_cookie;
}

/* A file that is not there fails the exec without replacing anything: Python's os.execvp
   tries each PATH entry this way. Nothing is written for such a try. NULL: not known here
   (the C library searches PATH itself, or a descriptor names the program). */
static int missing(const char *path)
{
	struct stat st;

	return path && stat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR);
}

/* execvp and its kin: a name without a slash is looked up in the program's PATH (its own
   getenv: the audit namespace has an environment of its own), as the C library will;
   "/bin:/usr/bin" when PATH is unset, an empty entry for the current directory. Returns 1
   when no entry holds the file: the exec will fail and replace nothing. */
static int not_on_path(const char *file)
{
	const char *path = program_getenv ? program_getenv("PATH") : NULL;
	size_t flen = strlen(file);

	if (!file[0])
		return 1;
	if (strchr(file, '/'))
		return missing(file);
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		const char *end = strchr(p, ':');
		size_t dlen = end ? (size_t)(end - p) : strlen(p);
		char full[4096];
		struct stat st;

		if (dlen + 1 + flen < sizeof(full)) {
			memcpy(full, p, dlen);
			full[dlen] = '/';
			memcpy(full + dlen + 1, file, flen + 1);
			if (stat(dlen ? full : file, &st) == 0 || (errno != ENOENT && errno != ENOTDIR))
				return 0;
		} else {
			return 0; /* cannot tell: write */
		}
		if (!end)
			return 1;
		p = end;
	}
}

/* Before the exec: returns 1 when the outputs were written. Nothing is written in a vfork
   child, which shares its parent's memory and outputs, nor by an image that has not used
   CUDA (a forked child on its way to another program). */
static int image_ends_common(void)
{
	uint64_t cached = *cua_pid_cache;
	int wrote = 0;

	if (cua_nlibs && cua_process_image_is_own()) {
		cua_log_msg(CUA_LOG_INFO, "exec: this program image ends; its outputs are written now",
			    NULL);
		cua_writer_mark_images(1);
		cua_finish_run_at_exec();
		cua_writer_mark_images(0);
		wrote = 1;
	}
	/* The live view's file (made when a CUDA library loads, or where a linked-in runtime
	   is patched, which loads none: whatever cua_nlibs says) is marked exited, if this image
	   is this process's own: not a vfork child's view of its parent's memory, where the
	   pid cache holds the parent's pid. Last, just before the exec: while the outputs above
	   are written (seconds, for a large trace) the process still shows running, so that
	   `cuaudit ps --clean` never takes the file of a process whose exec then fails. The
	   region's own check leaves another process's region alone. */
	if (cached && cached == (uint64_t)getpid())
		cua_live_exec_begin();
	return wrote;
}

/* path: the program's path as given (NULL: named by a descriptor); a missing one is
   skipped. */
static int image_ends(const char *path)
{
	return missing(path) ? 0 : image_ends_common();
}

/* file: a name the C library looks up in PATH when it has no slash. */
static int image_ends_searched(const char *file)
{
	return file && not_on_path(file) ? 0 : image_ends_common();
}

/* The exec failed and the program goes on: say what became of its outputs. The program's
   errno is the exec's and stays so; only the module's own is used here. */
static void image_goes_on(int wrote)
{
	uint64_t cached = *cua_pid_cache;

	/* The live view goes on too (a no-op where the exec did not mark it); never from a
	   vfork child, whose failed exec must leave its parent's file alone (the parent's
	   other thread may be in an exec that marked it). */
	if (cached && cached == (uint64_t)getpid())
		cua_live_exec_failed();
	if (wrote) {
		static int said;
		int err = *program_errno();
		char why[64];
		struct cua_buf b = CUA_BUF(why);

		cua_buf_errno(&b, err);
		why[b.len < sizeof(why) ? b.len : sizeof(why) - 1] = '\0';
		cua_finish_resume();
		/* Once per image at warning level: a launcher may try several programs. */
		cua_log_msg(__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED) ? CUA_LOG_DEBUG
									    : CUA_LOG_WARN,
			    "exec failed: ", why, "; the outputs were written at the attempt: the "
			    "summary goes on and is written again at exit, the trace ended there", NULL);
	}
}

static int w_execve(const char *path, char *const argv[], char *const envp[])
{
	int wrote = image_ends(path), rc = ((execve_fn)real[EXECVE])(path, argv, envp);

	image_goes_on(wrote);
	return rc;
}

static int w_execv(const char *path, char *const argv[])
{
	int wrote = image_ends(path), rc = ((execv_fn)real[EXECV])(path, argv);

	image_goes_on(wrote);
	return rc;
}

static int w_execvp(const char *file, char *const argv[])
{
	int wrote = image_ends_searched(file), rc = ((execv_fn)real[EXECVP])(file, argv);

	image_goes_on(wrote);
	return rc;
}

static int w_execvpe(const char *file, char *const argv[], char *const envp[])
{
	int wrote = image_ends_searched(file), rc = ((execve_fn)real[EXECVPE])(file, argv, envp);

	image_goes_on(wrote);
	return rc;
}

static int w_fexecve(int fd, char *const argv[], char *const envp[])
{
	int wrote = image_ends(NULL), rc = ((fexecve_fn)real[FEXECVE])(fd, argv, envp);

	image_goes_on(wrote);
	return rc;
}

static int w_execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		      int flags)
{
	int wrote = image_ends(NULL), rc = ((execveat_fn)real[EXECVEAT])(dirfd, path, argv, envp, flags);

	image_goes_on(wrote);
	return rc;
}

/* The list forms: the arguments up to the NULL that ends them, as an array on this stack,
   then the array form of the same family (execle: the environment follows that NULL).
   count and args walk the same arguments; argc is bounded as the C library bounds it. */
static int list_form(unsigned form, const char *path, const char *arg, va_list count,
		     va_list args)
{
	long n = 0;
	char *const *envp = NULL;
	int wrote, rc;

	if (arg)
		for (n = 1; va_arg(count, const char *); n++)
			if (n == INT_MAX) {
				*program_errno() = E2BIG;
				return -1;
			}
	char *argv[n + 1];

	argv[0] = (char *)arg;
	for (long i = 1; i <= n; i++)
		argv[i] = va_arg(args, char *);
	argv[n] = NULL;
	/* POSIX: the environment follows the NULL that ends the list; with no arguments at all
	   (arg NULL) that NULL is arg itself, so envp is the next one. */
	if (form == EXECLE)
		envp = va_arg(args, char *const *);
	wrote = form == EXECLP ? image_ends_searched(path) : image_ends(path);
	if (form == EXECLE)
		rc = ((execve_fn)real[EXECVE])(path, argv, envp);
	else
		rc = ((execv_fn)real[form == EXECLP ? EXECVP : EXECV])(path, argv);
	image_goes_on(wrote);
	return rc;
}

#define LIST_WRAPPER(fn, form)                                       \
	static int fn(const char *path, const char *arg, ...)        \
	{                                                            \
		va_list count, args;                                 \
		int rc;                                              \
									     \
		va_start(count, arg);                                \
		va_start(args, arg);                                 \
		rc = list_form(form, path, arg, count, args);        \
		va_end(args);                                        \
		va_end(count);                                       \
		return rc;                                           \
	}

LIST_WRAPPER(w_execl, EXECL)
LIST_WRAPPER(w_execle, EXECLE)
LIST_WRAPPER(w_execlp, EXECLP)

static void *const wrappers[NEXEC] = {
	(void *)w_execve, (void *)w_execv,     (void *)w_execvp, (void *)w_execvpe, (void *)w_fexecve,
	(void *)w_execveat, (void *)w_execl, (void *)w_execle, (void *)w_execlp,
};

uintptr_t cua_exec_bind(const char *symname, uintptr_t value)
{
	int i = exec_index(symname);

	if (i < 0)
		return cua_signals_bind(symname, value);
	return real[i] && value == real[i] ? (uintptr_t)wrappers[i] : value;
}
