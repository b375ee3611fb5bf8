/* SPDX-License-Identifier: MIT */
/* audit/signals.c: signal handlers the program installs run as calls of their own, not nested in the call they interrupt. */
#include <signal.h>
#include <string.h>
#include <ucontext.h>
#include "dispatch.h"
#include "signals.h"
#include "symtab.h"

/* A CUDA call made from a signal handler that interrupted a wrapped call would otherwise
   find the thread's call depth raised, and be counted as nested in the interrupted call:
   not the program's own call for the summary's outer rows, for
   `--error-exitcode`, for the kernel table. So the handlers the program installs through its
   C library's sigaction and signal are run by a trampoline that saves the depth, sets it to
   0 for the handler, and puts it back (with the level word, and what a handler that
   jumps out instead leaves behind: run_handler). Bindings are redirected only when they
   resolved to the C library's own function (as for exec). Handlers installed by raw system
   calls, or by code bound before the module saw the binding, stay as they are. */
#define MAX_SIG 65

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef void (*handler_fn)(int, siginfo_t *, void *);
typedef void (*plain_fn)(int);
typedef plain_fn (*signal_fn)(int, plain_fn);

static uintptr_t real_sigaction, real_signal;
/* The program's handler each trampoline stands for. sigaction is process-wide, and so is
   this table; a handler is stored before the kernel is told, so the trampoline never finds
   an empty slot. Every handler is called with three arguments: one declared with one
   (no SA_SIGINFO) ignores the other two, which the x86-64 and AArch64 calling conventions
   allow. */
static uintptr_t handler[MAX_SIG];
static uint8_t siginfo[MAX_SIG]; /* the program asked for SA_SIGINFO: what oldact says */

int cua_signals_wanted(void)
{
	return cua_active;
}

unsigned cua_signals_is_name(const char *elf_name)
{
	return elf_name[0] == 's' && (strcmp(elf_name, "sigaction") == 0 || strcmp(elf_name, "signal") == 0);
}

int cua_signals_open_libc(struct link_map *map)
{
	if (!cua_signals_wanted())
		return 0;
	real_sigaction = (uintptr_t)cua_symtab_function_address(map, "sigaction");
	real_signal = (uintptr_t)cua_symtab_function_address(map, "signal");
	return real_sigaction && real_signal;
}

/* What a handler finds on its thread it puts back when it returns: the call depth, the
   level word, the handlers running. One that never returns (siglongjmp) is told apart by
   its frame (cua_sig_settle): the thread's next update from above that frame, or GPU
   timing's look at a call it left, forgets it then. While it runs the level word
   carries CUA_LEVEL_HANDLER, so that its updates, and the thread's after a jump out of it,
   ask where they stand (cua_level_resolve); the calls of a thread that runs no handler
   pay nothing. */
static void run_handler(int sig, siginfo_t *info, void *uc, uintptr_t frame)
{
	uint16_t depth = cua_self.depth;
	uint32_t level = cua_self.level, n = cua_self.sig_n;
	handler_fn h = (handler_fn)__atomic_load_n(&handler[sig], __ATOMIC_ACQUIRE);

	if (n < CUA_SIG_FRAMES) {
		struct cua_sig_frame *f = &cua_self.sig[n];
		const stack_t *alt = uc ? &((const ucontext_t *)uc)->uc_stack : NULL;

		/* Taken before it is filled: a handler landing in between takes the next one. */
		cua_self.sig_n = n + 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		f->frame = frame;
		f->lo = 0;
		f->hi = UINTPTR_MAX;
		/* The kernel saved the thread's alternate stack in the context: a handler
		   running on it has its frames there. */
		if (alt && !(alt->ss_flags & SS_DISABLE) && frame >= (uintptr_t)alt->ss_sp &&
		    frame - (uintptr_t)alt->ss_sp < alt->ss_size) {
			f->lo = (uintptr_t)alt->ss_sp;
			f->hi = f->lo + alt->ss_size;
		}
		f->level = level;
		f->serial = ++cua_self.sig_serial;
	} else {
		cua_self.sig_n = CUA_SIG_FRAMES + 1;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	cua_self.level = level | CUA_LEVEL_HANDLER;
	cua_self.depth = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	h(sig, info, uc);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	cua_self.depth = depth;
	cua_self.level = level;
	cua_self.sig_n = n;
}

static void trampoline(int sig, siginfo_t *info, void *uc)
{
	run_handler(sig, info, uc, (uintptr_t)__builtin_frame_address(0));
}

/* Without SA_SIGINFO no context is promised: where the handler runs on the alternate
   stack it is still found left once code runs above its frame. */
static void trampoline_plain(int sig)
{
	run_handler(sig, NULL, NULL, (uintptr_t)__builtin_frame_address(0));
}

static int is_function(uintptr_t h)
{
	return h != (uintptr_t)SIG_DFL && h != (uintptr_t)SIG_IGN && h != (uintptr_t)SIG_ERR &&
#ifdef SIG_HOLD
	       h != (uintptr_t)SIG_HOLD &&
#endif
	       1;
}

static int ours(uintptr_t h)
{
	return h == (uintptr_t)trampoline || h == (uintptr_t)trampoline_plain;
}

static int w_sigaction(int sig, const struct sigaction *act, struct sigaction *oldact)
{
	struct sigaction mine;
	uintptr_t prev_h;
	uint8_t prev_info;
	int rc;

	if (sig <= 0 || sig >= MAX_SIG)
		return ((sigaction_fn)real_sigaction)(sig, act, oldact);
	prev_h = __atomic_load_n(&handler[sig], __ATOMIC_ACQUIRE);
	prev_info = siginfo[sig];
	if (act && is_function((uintptr_t)act->sa_sigaction) && !ours((uintptr_t)act->sa_sigaction)) {
		mine = *act;
		siginfo[sig] = (act->sa_flags & SA_SIGINFO) != 0;
		__atomic_store_n(&handler[sig], (uintptr_t)act->sa_sigaction, __ATOMIC_RELEASE);
		mine.sa_sigaction = trampoline;
		mine.sa_flags |= SA_SIGINFO;
		act = &mine;
	}
	rc = ((sigaction_fn)real_sigaction)(sig, act, oldact);
	if (rc != 0 && act == &mine) {
		siginfo[sig] = prev_info;
		__atomic_store_n(&handler[sig], prev_h, __ATOMIC_RELEASE);
	}
	/* The program sees its own handler and flags, never the trampoline. */
	if (rc == 0 && oldact && ours((uintptr_t)oldact->sa_sigaction)) {
		oldact->sa_sigaction = (handler_fn)prev_h;
		if (!prev_info)
			oldact->sa_flags &= ~SA_SIGINFO;
	}
	return rc;
}

static plain_fn w_signal(int sig, plain_fn h)
{
	uintptr_t prev_h;
	plain_fn old;

	if (sig <= 0 || sig >= MAX_SIG || !is_function((uintptr_t)h) || ours((uintptr_t)h))
		old = ((signal_fn)real_signal)(sig, h);
	else {
		prev_h = __atomic_load_n(&handler[sig], __ATOMIC_ACQUIRE);
		siginfo[sig] = 0;
		__atomic_store_n(&handler[sig], (uintptr_t)h, __ATOMIC_RELEASE);
		old = ((signal_fn)real_signal)(sig, trampoline_plain);
		if (old == SIG_ERR)
			__atomic_store_n(&handler[sig], prev_h, __ATOMIC_RELEASE);
		else if (ours((uintptr_t)old))
			old = (plain_fn)prev_h;
		return old;
	}
	return sig > 0 && sig < MAX_SIG && ours((uintptr_t)old)
		       ? (plain_fn)__atomic_load_n(&handler[sig], __ATOMIC_ACQUIRE)
		       : old;
}

uintptr_t cua_signals_bind(const char *symname, uintptr_t value)
{
	if (!cua_signals_is_name(symname))
		return value;
	if (symname[3] == 'a')
		return real_sigaction && value == real_sigaction ? (uintptr_t)w_sigaction : value;
	return real_signal && value == real_signal ? (uintptr_t)w_signal : value;
}
