/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * race_shim.so: an LD_PRELOAD wrapper, loaded into pfiles by t_race, that
 * makes a race deterministic: at one exact call of pfiles, something
 * happens to the target (or the call fails), and only then does pfiles
 * go on.  Configured by the environment:
 *
 *  RACE_CALL	the call to watch:
 *		  statx		statx(2) of a name in a /proc/.../fd directory
 *				(the walk's stat of fd N)
 *		  pidfd_getfd	syscall(SYS_pidfd_getfd, pidfd, N, 0)
 *		  pidfd_open	syscall(SYS_pidfd_open, N, flags): the grab's
 *				first call
 *		  proc_open	open(2) of "/proc/N" (the grab's first look
 *				at /proc, after pidfd_open)
 *		  close_linger	close(2) of a socket whose SO_LINGER is on
 *				with a time (pfiles' duplicate)
 *		  ptrace	ptrace(2), any request (the agent's every
 *				step: seize, interrupt, registers, go on)
 *		  ns_net	openat(2) of "ns/net" in a directory (a
 *				process's /proc directory: the diag
 *				source's first look at the process)
 *  RACE_ARG	the fd number N the call must name (statx, pidfd_getfd;
 *		"-1" is pidfd_getfd's probe), or the pid (pidfd_open,
 *		proc_open);
 *		unset: any
 *  RACE_NTH	the matching call that acts, 1 for the first (the default)
 *  RACE_TIMES	how many matching calls in a row act, from RACE_NTH on (1,
 *		the default): each acts as RACE_ACTION says, each logged
 *  RACE_WHEN	"before" (the default) or "after" the real call
 *  RACE_ACTION	what happens at that call:
 *		  fifo	write RACE_SAY and a newline into the fifo RACE_CMD,
 *			then wait for a line from the fifo RACE_ACK (the
 *			target's word that it did it)
 *		  kill	SIGKILL the process RACE_PID, then wait until it is
 *			a zombie or gone
 *		  reap	SIGKILL the process RACE_PID, then wait until it is
 *			gone (its parent must reap it)
 *		  fail	the real call is not made: it fails with errno
 *			RACE_ERRNO (a number)
 *		  reapfail  reap, then fail: whatever the kernel would
 *			say of the gone process, the call says RACE_ERRNO
 *		  term	SIGTERM to pfiles itself, before the real call, which
 *			is then made if pfiles' handler returns (pfiles
 *			ends the walk and dies by the signal)
 *		  count	nothing: at pfiles' exit, "CALL count N", the
 *			matching calls it made (RACE_NTH is not used)
 *  RACE_WATCH	(close_linger only) "1": while the real close runs, a
 *		thread of the shim watches the calling thread, and says
 *		whether it ever saw it asleep in the call, and where
 *  RACE_LOG	a file the shim appends one line to when it acts:
 *		"CALL ARG ACTION ok", or "... timeout" when the target did
 *		not answer, or did not die, within RACE_WAIT_MS (default
 *		10000); with RACE_WATCH, also "asleep WCHAN" or "awake".
 *		A test that finds no line knows that the race never came.
 *
 * syscall(2) is wrapped as glibc's own is written: six arguments are
 * taken whatever the call (x86_64 passes them in registers).
 *
 * Every wait is bounded.  Built without sanitizers (atf/Makefile.inc);
 * under SANITIZE=1 pfiles is run with ASAN_OPTIONS=verify_asan_link_order=0.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef	SYS_pidfd_open
#define	SYS_pidfd_open	434
#endif
#ifndef	SYS_pidfd_getfd
#define	SYS_pidfd_getfd	438
#endif

#define	WAIT_MS_DEFAULT	10000

typedef int statx_f(int, const char *, int, unsigned int, struct statx *);
typedef long syscall_f(long, ...);
typedef int close_f(int);

static int matched;		/* matching calls so far (atomic) */

static const char *
env(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return (v != NULL && *v != '\0' ? v : dflt);
}

static void *
real(const char *name)
{
	return (dlsym(RTLD_NEXT, name));
}

static int
wait_ms(void)
{
	int ms = atoi(env("RACE_WAIT_MS", "0"));

	return (ms > 0 ? ms : WAIT_MS_DEFAULT);
}

static long long
now_ms(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

static void
sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	(void) nanosleep(&ts, NULL);
}

/* One line into RACE_LOG, if any. */
static void
say(const char *fmt, ...)
{
	const char *path = getenv("RACE_LOG");
	char line[512];
	va_list ap;
	int fd, n;

	if (path == NULL)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof (line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof (line) - 2)
		n = (int)sizeof (line) - 2;
	line[n++] = '\n';
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
	    0644)) < 0)
		return;
	(void) write(fd, line, (size_t)n);
	((close_f *)real("close"))(fd);
}

/* Is this the call of RACE_CALL call naming fd arg that is to act? */
static int
is_the_call(const char *call, long arg)
{
	const char *want = getenv("RACE_ARG");
	int nth = atoi(env("RACE_NTH", "1")), times = atoi(env("RACE_TIMES",
	    "1")), m;

	if (strcmp(env("RACE_CALL", ""), call) != 0 ||
	    (want != NULL && *want != '\0' && atol(want) != arg))
		return (0);
	if (strcmp(env("RACE_ACTION", ""), "count") == 0) {
		(void) __atomic_add_fetch(&matched, 1, __ATOMIC_SEQ_CST);
		return (0);
	}
	m = __atomic_add_fetch(&matched, 1, __ATOMIC_SEQ_CST);
	return (m >= nth && m - nth < (times > 0 ? times : 1));
}

/* The State letter of /proc/PID/stat, 0 when there is none. */
static char
state_of(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	(void) snprintf(path, sizeof (path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (0);
	n = read(fd, buf, sizeof (buf) - 1);
	((close_f *)real("close"))(fd);
	if (n <= 0)
		return (0);
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || p[1] == '\0' || p[2] == '\0')
		return (0);
	return (p[2]);
}

/* fifo: say RACE_SAY to the target, wait for its line back.  0 or -1. */
static int
tell_target(void)
{
	const char *cmd = env("RACE_CMD", ""), *ack = env("RACE_ACK", "");
	char line[256];
	struct pollfd pfd;
	int c, a, rv = -1, ms = wait_ms();
	size_t len;

	/* The target holds both fifos open: neither open waits. */
	if ((c = open(cmd, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return (-1);
	if ((a = open(ack, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		((close_f *)real("close"))(c);
		return (-1);
	}
	len = (size_t)snprintf(line, sizeof (line), "%s\n",
	    env("RACE_SAY", ""));
	if (len < sizeof (line) && write(c, line, len) == (ssize_t)len) {
		long long until = now_ms() + ms;
		int got = 0;

		/* One line back, a byte at a time, within ms in all. */
		while (now_ms() < until) {
			ssize_t n;
			char ch;

			pfd.fd = a;
			pfd.events = POLLIN;
			if (poll(&pfd, 1, 100) <= 0)
				continue;
			if ((n = read(a, &ch, 1)) == 1 && ch == '\n') {
				rv = got > 0 ? 0 : -1;
				break;
			}
			if (n == 1)
				got++;
			else if (n == 0)
				sleep_ms(1);	/* no writer: never, it holds it */
			else if (errno != EAGAIN && errno != EINTR)
				break;
		}
	}
	((close_f *)real("close"))(c);
	((close_f *)real("close"))(a);
	return (rv);
}

/* kill and reap: SIGKILL RACE_PID, wait until zombie (or gone).  0 or -1. */
static int
kill_target(int gone)
{
	pid_t pid = (pid_t)atoi(env("RACE_PID", "0"));

	if (pid <= 0 || kill(pid, SIGKILL) != 0)
		return (-1);
	for (long long until = now_ms() + wait_ms(); now_ms() < until; ) {
		char s = state_of(pid);

		if (s == 0 || (!gone && s == 'Z'))
			return (0);
		sleep_ms(1);
	}
	return (-1);
}

/*
 * The action.  For "fail", 1 (the call is not to be made, errno set);
 * else 0.
 */
static int
act(const char *call, long arg)
{
	const char *what = env("RACE_ACTION", "");
	int rv = -1;

	if (strcmp(what, "fail") == 0 || strcmp(what, "reapfail") == 0) {
		rv = strcmp(what, "fail") == 0 ? 0 : kill_target(1);
		say("%s %ld %s %s", call, arg, what, rv == 0 ? "ok" :
		    "timeout");
		errno = atoi(env("RACE_ERRNO", "5"));
		return (1);
	}
	if (strcmp(what, "term") == 0) {
		say("%s %ld term ok", call, arg);
		(void) raise(SIGTERM);
		return (0);		/* a SIGTERM pfiles catches */
	}
	if (strcmp(what, "fifo") == 0)
		rv = tell_target();
	else if (strcmp(what, "kill") == 0)
		rv = kill_target(0);
	else if (strcmp(what, "reap") == 0)
		rv = kill_target(1);
	say("%s %ld %s %s", call, arg, what, rv == 0 ? "ok" : "timeout");
	return (0);
}

static int
before(void)
{
	return (strcmp(env("RACE_WHEN", "before"), "before") == 0);
}

/* Is dirfd a /proc/.../fd directory? */
static int
is_fd_dir(int dirfd)
{
	char me[64], link[256];
	ssize_t n;

	(void) snprintf(me, sizeof (me), "/proc/self/fd/%d", dirfd);
	if ((n = readlink(me, link, sizeof (link) - 1)) < 4)
		return (0);
	link[n] = '\0';
	return (strncmp(link, "/proc/", 6) == 0 &&
	    strcmp(link + n - 3, "/fd") == 0);
}

/* A name that is a number, as an fd's in /proc/PID/fd; else -2. */
static long
fd_name(const char *name)
{
	char *end;
	long v;

	if (name == NULL || *name < '0' || *name > '9')
		return (-2);
	v = strtol(name, &end, 10);
	return (*end == '\0' ? v : -2);
}

int
statx(int dirfd, const char *name, int flags, unsigned int mask,
    struct statx *stx)
{
	statx_f *fn = (statx_f *)real("statx");
	long fd = fd_name(name);
	int rv, e, the;

	the = fd >= 0 && is_fd_dir(dirfd) && is_the_call("statx", fd);
	if (the && before() && act("statx", fd))
		return (-1);
	rv = fn(dirfd, name, flags, mask, stx);
	e = errno;
	if (the && !before() && act("statx", fd))
		return (-1);
	errno = e;
	return (rv);
}

typedef int openat_f(int, const char *, int, ...);

int
openat(int dirfd, const char *name, int flags, ...)
{
	openat_f *fn = (openat_f *)real("openat");
	mode_t mode = 0;
	va_list ap;
	int rv, e, the;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	the = strcmp(name, "ns/net") == 0 &&
	    is_the_call("ns_net", dirfd);
	if (the && before() && act("ns_net", dirfd))
		return (-1);
	rv = fn(dirfd, name, flags, mode);
	e = errno;
	if (the && !before() && act("ns_net", dirfd))
		return (-1);
	errno = e;
	return (rv);
}

long
syscall(long nr, ...)
{
	syscall_f *fn = (syscall_f *)real("syscall");
	const char *call;
	long a[6], rv;
	va_list ap;
	int e, the, arg;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	call = nr == SYS_pidfd_getfd ? "pidfd_getfd" :
	    nr == SYS_pidfd_open ? "pidfd_open" : NULL;
	arg = nr == SYS_pidfd_getfd ? (int)a[1] : (int)a[0];

	the = call != NULL && is_the_call(call, arg);
	if (the && before() && act(call, arg))
		return (-1);
	rv = fn(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	e = errno;
	if (the && !before() && act(call, arg))
		return (-1);
	errno = e;
	return (rv);
}

typedef int open_f(const char *, int, ...);

/* The pid N of a path "/proc/N", else -2. */
static long
proc_pid_path(const char *path)
{
	return (path != NULL && strncmp(path, "/proc/", 6) == 0 ?
	    fd_name(path + 6) : -2);
}

/* open and open64 (one function on x86_64): proc_open. */
static int
open_as(const char *name, const char *path, int flags, va_list ap)
{
	open_f *fn = (open_f *)real(name);
	/* As glibc: O_TMPFILE holds O_DIRECTORY's bit, not alone. */
	mode_t mode = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ?
	    va_arg(ap, mode_t) : 0;
	long pid = proc_pid_path(path);
	int rv, e, the;

	the = pid > 0 && is_the_call("proc_open", pid);
	if (the && before() && act("proc_open", pid))
		return (-1);
	rv = fn(path, flags, mode);
	e = errno;
	if (the && !before() && act("proc_open", pid))
		return (-1);
	errno = e;
	return (rv);
}

int
open(const char *path, int flags, ...)
{
	va_list ap;
	int rv;

	va_start(ap, flags);
	rv = open_as("open", path, flags, ap);
	va_end(ap);
	return (rv);
}

int
open64(const char *path, int flags, ...)
{
	va_list ap;
	int rv;

	va_start(ap, flags);
	rv = open_as("open64", path, flags, ap);
	va_end(ap);
	return (rv);
}

/* The watcher of a close: the thread it watches, and what it saw. */
typedef struct watch {
	pid_t	w_tid;
	int	w_done;		/* atomic: the close has returned */
	char	w_wchan[128];	/* where it was seen asleep, or "" */
} watch_t;

/*
 * Sample the closing thread until its close returns: asleep (S or D) in
 * the close system call (3 on x86_64), where?
 */
static void *
watcher(void *arg)
{
	watch_t *w = arg;
	char path[96], buf[512];

	while (!__atomic_load_n(&w->w_done, __ATOMIC_SEQ_CST) &&
	    w->w_wchan[0] == '\0') {
		char st;
		ssize_t n;
		int fd;

		(void) snprintf(path, sizeof (path), "/proc/self/task/%d/stat",
		    (int)w->w_tid);
		st = 0;
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
			char *p;

			if ((n = read(fd, buf, sizeof (buf) - 1)) > 0) {
				buf[n] = '\0';
				if ((p = strrchr(buf, ')')) != NULL &&
				    p[1] != '\0')
					st = p[2];
			}
			((close_f *)real("close"))(fd);
		}
		(void) snprintf(path, sizeof (path),
		    "/proc/self/task/%d/syscall", (int)w->w_tid);
		if ((st == 'S' || st == 'D') &&
		    (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
			n = read(fd, buf, sizeof (buf) - 1);
			((close_f *)real("close"))(fd);
			if (n > 0 && atol(buf) == SYS_close) {
				(void) snprintf(path, sizeof (path),
				    "/proc/self/task/%d/wchan", (int)w->w_tid);
				if ((fd = open(path, O_RDONLY |
				    O_CLOEXEC)) >= 0) {
					n = read(fd, buf, sizeof (buf) - 1);
					((close_f *)real("close"))(fd);
					buf[n > 0 ? n : 0] = '\0';
				} else {
					buf[0] = '\0';
				}
				(void) snprintf(w->w_wchan,
				    sizeof (w->w_wchan), "%s",
				    buf[0] != '\0' ? buf : "?");
			}
		}
		{
			struct timespec ts = { 0, 100000 };	/* 0.1 ms */

			(void) nanosleep(&ts, NULL);
		}
	}
	return (NULL);
}

int
close(int fd)
{
	close_f *fn = (close_f *)real("close");
	struct linger lg;
	socklen_t len = sizeof (lg);
	watch_t w;
	pthread_t t;
	int rv, e, watching = 0;

	if (strcmp(env("RACE_CALL", ""), "close_linger") != 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, &len) != 0 ||
	    len != sizeof (lg) || lg.l_onoff == 0 || lg.l_linger <= 0 ||
	    !is_the_call("close_linger", fd))
		return (fn(fd));
	if (before() && act("close_linger", fd))
		return (-1);
	if (strcmp(env("RACE_WATCH", ""), "1") == 0) {
		memset(&w, 0, sizeof (w));
		w.w_tid = (pid_t)syscall(SYS_gettid);
		watching = pthread_create(&t, NULL, watcher, &w) == 0;
	}
	rv = fn(fd);
	e = errno;
	if (watching) {
		__atomic_store_n(&w.w_done, 1, __ATOMIC_SEQ_CST);
		(void) pthread_join(t, NULL);
		if (w.w_wchan[0] != '\0')
			say("asleep %s", w.w_wchan);
		else
			say("awake");
	}
	if (!before() && act("close_linger", fd))
		return (-1);
	errno = e;
	return (rv);
}

/* RACE_ACTION=count: the matching calls, said once at exit. */
__attribute__((destructor))
static void
count_at_exit(void)
{
	if (strcmp(env("RACE_ACTION", ""), "count") == 0)
		say("%s count %d", env("RACE_CALL", ""),
		    __atomic_load_n(&matched, __ATOMIC_SEQ_CST));
}

typedef long ptrace_f(int, pid_t, void *, void *);

long
ptrace(enum __ptrace_request req, ...)
{
	ptrace_f *fn = (ptrace_f *)real("ptrace");
	void *addr, *data;
	va_list ap;
	pid_t pid;

	va_start(ap, req);
	pid = va_arg(ap, pid_t);
	addr = va_arg(ap, void *);
	data = va_arg(ap, void *);
	va_end(ap);
	if (is_the_call("ptrace", (long)req) && act("ptrace", (long)req))
		return (-1);
	return (fn((int)req, pid, addr, data));
}
