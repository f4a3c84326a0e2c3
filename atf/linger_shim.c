/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * linger_shim.so: an LD_PRELOAD wrapper of close(2) for t_harm's
 * linger_not_waited case, which makes a race deterministic: the target
 * lets go of its socket while pfiles still holds a duplicate.
 *
 * When the program closes a socket whose SO_LINGER is on with a time
 * (the first time only), the wrapper kills the process LINGER_SHIM_PID
 * names -- the test's own child, the target -- with SIGKILL and waits
 * until it is a zombie: its fd table is then released, so the duplicate
 * being closed may hold the last reference.  Then it closes.  A close of
 * the last reference lingers for the linger time; any other returns.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define	ZOMBIE_WAIT_MS	5000

typedef int close_f(int);

static close_f *real_close;
static volatile int fired;

/* The State letter of /proc/PID/stat, or 0. */
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
	(void) real_close(fd);
	if (n <= 0)
		return (0);
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || p[1] == '\0' || p[2] == '\0')
		return (0);
	return (p[2]);
}

static void
kill_target(void)
{
	const char *v = getenv("LINGER_SHIM_PID");
	pid_t pid = v != NULL ? (pid_t)atoi(v) : 0;

	if (pid <= 0 || kill(pid, SIGKILL) != 0)
		return;
	for (int ms = 0; ms < ZOMBIE_WAIT_MS; ms++) {
		struct timespec ts = { 0, 1000000 };
		char s = state_of(pid);

		if (s == 'Z' || s == 0)
			return;
		(void) nanosleep(&ts, NULL);
	}
}

int
close(int fd)
{
	struct linger lg;
	socklen_t len = sizeof (lg);

	if (real_close == NULL)
		real_close = (close_f *)dlsym(RTLD_NEXT, "close");
	if (!__atomic_load_n(&fired, __ATOMIC_SEQ_CST) &&
	    getsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, &len) == 0 &&
	    len == sizeof (lg) && lg.l_onoff != 0 && lg.l_linger > 0 &&
	    !__atomic_exchange_n(&fired, 1, __ATOMIC_SEQ_CST))
		kill_target();
	return (real_close(fd));
}
