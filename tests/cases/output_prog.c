/* SPDX-License-Identifier: MIT */
/* tests/cases/output_prog.c: programs that stress cuaudit's outputs: services killed, descriptors closed and reused, thread churn, cancellation, exec. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cudaProfiler.h>
#include "common.h"

static int n;

static void calls(long count)
{
	for (long i = 0; i < count; i++)
		CHECK(cuDeviceGetCount(&n) == CUDA_SUCCESS);
}

/* service N: N calls, then a slow heartbeat of other calls until killed. */
static int service(long count)
{
	int v;

	calls(count);
	printf("burst %ld done\n", count);
	fflush(stdout);
	for (;;) {
		cuDriverGetVersion(&v);
		usleep(20000);
	}
	return 0;
}

static void put(int fd, const char *s)
{
	CHECK(write(fd, s, strlen(s)) == (ssize_t)strlen(s));
}

/* fds close-loop|close-range DIR CALLS: closes every descriptor above 2 as daemons do,
   opens its own files (one kept at 1000, as a daemon keeps its data file high), calls. */
static int fds(const char *how, const char *dir, long count)
{
	char a[4096], b[4096];
	int fa, fb;

	calls(30000);
	if (strcmp(how, "close-loop") == 0) {
		for (int fd = 3; fd < 64; fd++)
			close(fd);
		for (int fd = 1000; fd < 1064; fd++)
			close(fd);
	} else {
		CHECK(syscall(SYS_close_range, 3u, ~0u, 0) == 0);
	}
	snprintf(a, sizeof(a), "%s/program.out", dir);
	snprintf(b, sizeof(b), "%s/daemon.dat", dir);
	fa = open(a, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	fb = open(b, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fa >= 0 && fb >= 0);
	CHECK(fcntl(fb, F_DUPFD, 1000) == 1000);
	close(fb);
	put(fa, "program data\n");
	put(1000, "daemon data\n");
	calls(count);
	put(fa, "end\n");
	put(1000, "end\n");
	printf("calls %ld\n", 30000 + count);
	return 0;
}

static long churn_calls;

static void *short_thread(void *arg)
{
	(void)arg;
	calls(churn_calls);
	return NULL;
}

static long peak_rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			kib = atol(line + 6);
	if (f)
		fclose(f);
	return kib;
}

/* churn THREADS CALLS: THREADS short-lived threads, 16 alive at a time. */
static int churn(long threads, long count)
{
	pthread_t t[16];

	churn_calls = count;
	for (long done = 0; done < threads; done += 16) {
		for (int i = 0; i < 16; i++)
			CHECK(pthread_create(&t[i], NULL, short_thread, NULL) == 0);
		for (int i = 0; i < 16; i++)
			pthread_join(t[i], NULL);
	}
	printf("calls %ld\n", threads * count);
	fprintf(stderr, "peak_rss_kib=%ld\n", peak_rss_kib());
	return 0;
}

/* cancel: a worker calls until cancelled; its only cancellation point of its own is rare,
   so a cancellation lands wherever cuaudit writes, if cuaudit lets it. */
static void *until_cancelled(void *arg)
{
	(void)arg;
	for (long i = 1;; i++) {
		cuDeviceGetCount(&n);
		if (i % 200000 == 0)
			pthread_testcancel();
	}
	return NULL;
}

static int cancel(void)
{
	pthread_t t;

	CHECK(pthread_create(&t, NULL, until_cancelled, NULL) == 0);
	usleep(30000);
	pthread_cancel(t);
	pthread_join(t, NULL);
	printf("cancelled\n");
	return 0;
}

/* sigterm: SIGTERM reaches the calling worker at a random point, often inside a flush of
   its trace buffer; the handler calls exit(). */
static void on_term(int sig)
{
	(void)sig;
	exit(0);
}

static void *forever(void *arg)
{
	sigset_t s;

	(void)arg;
	sigemptyset(&s);
	sigaddset(&s, SIGTERM);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	for (;;)
		cuDeviceGetCount(&n);
	return NULL;
}

static int sigterm(long delay_us)
{
	struct sigaction sa;
	sigset_t s;
	pthread_t t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&s);
	sigaddset(&s, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	CHECK(pthread_create(&t, NULL, forever, NULL) == 0);
	usleep((useconds_t)delay_us);
	kill(getpid(), SIGTERM);
	for (;;)
		pause();
}

/* profiler: 5 calls, Start, 7 calls, Stop, 11 calls. */
static int profiler(void)
{
	calls(5);
	CHECK(cuProfilerStart() == CUDA_SUCCESS);
	calls(7);
	CHECK(cuProfilerStop() == CUDA_SUCCESS);
	calls(11);
	printf("profiler range done\n");
	return 0;
}

static void *call_forever(void *arg)
{
	(void)arg;
	for (;;)
		CHECK(cuDeviceGetCount(&n) == CUDA_SUCCESS);
	return NULL;
}

static const char *thread_program;

static void *exec_thread(void *arg)
{
	char *const next[] = { (char *)thread_program, "calls", "1000", NULL };

	calls((long)(intptr_t)arg);
	execv(thread_program, next);
	perror("execv");
	_exit(127);
}

static int thread_exec(long count, const char *program)
{
	pthread_t t;

	thread_program = program;
	fflush(stdout);
	CHECK(pthread_create(&t, NULL, exec_thread, (void *)(intptr_t)count) == 0);
	for (;;)
		CHECK(cuDeviceGetCount(&n) == CUDA_SUCCESS);
}

static int vfork_exec(long count, const char *program)
{
	int status;
	pid_t child;

	calls(count);
	fflush(stdout);
	child = vfork();
	CHECK(child >= 0);
	if (child == 0) {
		execl(program, program, (char *)NULL);
		_exit(127);
	}
	CHECK(waitpid(child, &status, 0) == child);
	calls(count);
	printf("vfork child status %d\n", WEXITSTATUS(status));
	return 0;
}

/* failfork N: N calls, an exec that fails with EACCES (a directory), then 3 forked children
   that make N calls each and exit normally. */
static int failed_exec_then_fork(long count)
{
	char *const next[] = { "/", NULL };

	calls(count);
	fflush(stdout);
	CHECK(execv("/", next) == -1 && errno == EACCES);
	for (int i = 0; i < 3; i++) {
		pid_t child = fork();
		int status;

		CHECK(child >= 0);
		if (child == 0) {
			calls(count);
			exit(0);
		}
		CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0);
	}
	printf("3 children done\n");
	return 0;
}

/* forkseq N COUNT [CHILD]: COUNT calls, then N children forked one after another (30 ms
   apart), each making CHILD calls (COUNT when not given) and calling exit(). */
static int fork_in_sequence(int n, long count, long child_count)
{
	calls(count);
	for (int i = 0; i < n; i++) {
		pid_t child;
		int status;

		usleep(30000);
		child = fork();
		CHECK(child >= 0);
		if (child == 0) {
			calls(child_count);
			exit(0);
		}
		CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0);
	}
	printf("%d children done\n", n);
	return 0;
}

/* A thread named before its first call, which ends before the process is killed. */
static void *named_thread(void *arg)
{
	CHECK(pthread_setname_np(pthread_self(), "worker-a") == 0);
	calls((long)arg);
	/* Past CUAUDIT_FLUSH_INTERVAL=1: its next call writes its records out. */
	usleep(1100000);
	calls(1);
	printf("worker %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	return NULL;
}

int main(int argc, char **argv)
{
	CHECK(argc >= 2);
	/* nocalls PROGRAM ARGS...: the driver is loaded, no call is made, PROGRAM replaces us. */
	if (strcmp(argv[1], "nocalls") == 0 && argc >= 3) {
		fflush(stdout);
		execv(argv[2], argv + 2);
		return 127;
	}
	CHECK(cuInit(0) == CUDA_SUCCESS);
	if (strcmp(argv[1], "service") == 0 && argc == 3)
		return service(atol(argv[2]));
	/* named N: a thread named worker-a makes N + 1 calls (written out) and ends; then the
	   service's N calls and heartbeat. */
	if (strcmp(argv[1], "named") == 0 && argc == 3) {
		pthread_t t;

		CHECK(pthread_create(&t, NULL, named_thread, (void *)atol(argv[2])) == 0);
		CHECK(pthread_join(t, NULL) == 0);
		return service(atol(argv[2]));
	}
	/* paced N: a call, a pause past CUAUDIT_FLUSH_INTERVAL=1, a call (its thread's records
	   are written out), then N calls kept in memory until exit. */
	if (strcmp(argv[1], "paced") == 0 && argc == 3) {
		calls(1);
		usleep(1100000);
		calls(1);
		calls(atol(argv[2]));
		printf("calls %s\n", argv[2]);
		return 0;
	}
	/* bracketed N: cuDriverGetVersion, N calls, cuDriverGetVersion again. */
	if (strcmp(argv[1], "bracketed") == 0 && argc == 3) {
		int v;

		CHECK(cuDriverGetVersion(&v) == CUDA_SUCCESS);
		calls(atol(argv[2]));
		CHECK(cuDriverGetVersion(&v) == CUDA_SUCCESS);
		printf("calls %ld\n", atol(argv[2]) + 2);
		return 0;
	}
	if (strcmp(argv[1], "calls") == 0 && argc == 3) {
		calls(atol(argv[2]));
		printf("calls %s\n", argv[2]);
		return 0;
	}
	if (strcmp(argv[1], "fds") == 0 && argc == 5)
		return fds(argv[2], argv[3], atol(argv[4]));
	if (strcmp(argv[1], "churn") == 0 && argc == 4)
		return churn(atol(argv[2]), atol(argv[3]));
	if (strcmp(argv[1], "cancel") == 0)
		return cancel();
	if (strcmp(argv[1], "sigterm") == 0 && argc == 3)
		return sigterm(atol(argv[2]));
	if (strcmp(argv[1], "profiler") == 0)
		return profiler();
	if (strcmp(argv[1], "forkseq") == 0 && (argc == 4 || argc == 5))
		return fork_in_sequence(atoi(argv[2]), atol(argv[3]),
					atol(argv[argc == 5 ? 4 : 3]));
	if (strcmp(argv[1], "failfork") == 0 && argc == 3)
		return failed_exec_then_fork(atol(argv[2]));
	/* launch N PROGRAM ARGS...: N calls, then the workload replaces this image. If the exec
	   fails, N more calls and status 127. */
	if (strcmp(argv[1], "launch") == 0 && argc >= 4) {
		calls(atol(argv[2]));
		fflush(stdout);
		execv(argv[3], argv + 3);
		printf("execv: %s\n", strerror(errno));
		calls(atol(argv[2]));
		return 127;
	}
	/* closed N PROGRAM: N calls, every descriptor above 2 closed (cuaudit's too), then
	   PROGRAM ("calls 1000") replaces us. */
	if (strcmp(argv[1], "closed") == 0 && argc == 4) {
		char *const next[] = { argv[3], "calls", "1000", NULL };

		calls(atol(argv[2]));
		fflush(stdout);
		CHECK(syscall(SYS_close_range, 3u, ~0u, 0) == 0);
		execv(argv[3], next);
		return 127;
	}
	/* vfork N PROGRAM: N calls, a vfork child execs PROGRAM, N more calls. */
	if (strcmp(argv[1], "vfork") == 0 && argc == 4)
		return vfork_exec(atol(argv[2]), argv[3]);
	/* search N PROGRAM: N calls, then two tries at programs that are not there (as Python's
	   os.execvp walks PATH) and an execvp of a name on no PATH entry, then PROGRAM with
	   "calls 1000". */
	if (strcmp(argv[1], "search") == 0 && argc == 4) {
		char *const next[] = { argv[3], "calls", "1000", NULL };

		calls(atol(argv[2]));
		fflush(stdout);
		execv("/nonexistent/a/output_prog", next);
		execv("/nonexistent/b/output_prog", next);
		execvp("cuaudit_no_such_program", next); /* a bare name on no PATH entry */
		execv(argv[3], next);
		printf("execv: %s\n", strerror(errno));
		return 127;
	}
	/* busy N: a second thread calls without end; the main thread makes N calls and exits. */
	if (strcmp(argv[1], "busy") == 0 && argc == 3) {
		pthread_t t;

		CHECK(pthread_create(&t, NULL, call_forever, NULL) == 0);
		calls(atol(argv[2]));
		printf("exiting\n");
		fflush(stdout);
		exit(0);
	}
	/* thread N PROGRAM: a second thread makes N calls and execs PROGRAM ("calls 1000") while
	   the main thread keeps calling. */
	if (strcmp(argv[1], "thread") == 0 && argc == 4)
		return thread_exec(atol(argv[2]), argv[3]);
	/* list FORM N PROGRAM: N calls, then one of the exec functions with three arguments
	   ("first", "two words", ""); execle and execvpe pass an environment of their own. */
	if (strcmp(argv[1], "list") == 0 && argc == 5) {
		extern char **environ;
		char *env[256] = { "CUA_LIST=from-execle" };
		int k = 1;

		/* execle's environment: ours for the loader and cuaudit, and one variable more. */
		for (char **e = environ; *e && k < 255; e++)
			if (strncmp(*e, "LD_", 3) == 0 || strncmp(*e, "CUAUDIT_", 8) == 0)
				env[k++] = *e;
		calls(atol(argv[3]));
		fflush(stdout);
		char *const args[] = { "first", "two words", "", NULL };

		if (strcmp(argv[2], "execl") == 0)
			execl(argv[4], "first", "two words", "", (char *)NULL);
		else if (strcmp(argv[2], "execle") == 0)
			execle(argv[4], "first", "two words", "", (char *)NULL, env);
		else if (strcmp(argv[2], "execlp") == 0)
			execlp(argv[4], "first", "two words", "", (char *)NULL);
		else if (strcmp(argv[2], "execve") == 0)
			execve(argv[4], args, environ);
		else if (strcmp(argv[2], "execv") == 0)
			execv(argv[4], args);
		else if (strcmp(argv[2], "execvp") == 0)
			execvp(argv[4], args);
		else if (strcmp(argv[2], "execvpe") == 0)
			execvpe(argv[4], args, env);
		else if (strcmp(argv[2], "fexecve") == 0)
			fexecve(open(argv[4], O_RDONLY | O_CLOEXEC), args, environ);
		else if (strcmp(argv[2], "execveat") == 0)
			execveat(AT_FDCWD, argv[4], args, environ, 0);
		printf("%s: %s\n", argv[2], strerror(errno));
		return 127;
	}
	/* args: what the exec'd program was given. */
	if (strcmp(argv[1], "args") == 0 || (argc == 3 && strcmp(argv[1], "two words") == 0)) {
		for (int i = 0; i < argc; i++)
			printf("argv[%d]=<%s>\n", i, argv[i]);
		printf("CUA_LIST=<%s>\n", getenv("CUA_LIST") ? getenv("CUA_LIST") : "(unset)");
		return 0;
	}
	fprintf(stderr, "unknown mode\n");
	return 2;
}
