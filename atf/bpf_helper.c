/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bpf_helper: targets for t_bpf.  The helper says what it made, from its
 * own view, on stdout ("KEY VALUE..." lines, then "ready"), and then waits
 * until its stdin is closed, or SECONDS (argv[1]) have passed, or it is
 * killed.
 *
 *	bpf_helper SECONDS nspeer	a TCP listener, a UDP socket and a
 *					unix listener (autobound abstract
 *					name); then a child process
 *					connects to the listener and this
 *					process accepts.  Says "parent PID"
 *					and "child PID" as its pid
 *					namespace sees them.  Made to run
 *					as the first process of a new pid
 *					(and network) namespace.
 *	bpf_helper SECONDS many N	raises its soft RLIMIT_NOFILE to the
 *					hard one and opens N more fds
 *					(unix socketpairs, a TCP pair on
 *					loopback, pipes); "count K": all
 *					its fds
 *	bpf_helper SECONDS ownfiles	/dev/null at fd 3; then a thread
 *					takes a descriptor table of its own
 *					(unshare CLONE_FILES) and holds a
 *					unix socketpair there, fd 3 its one:
 *					/proc/PID/fd shows the main thread's
 *					table only.  Says "tid TID".
 *	bpf_helper SECONDS leaderless N	opens N more fds as "many" does,
 *					then starts a thread and its main
 *					thread exits (pthread_exit): the
 *					process lives on, its leader a
 *					zombie.  The thread says "tid TID"
 *					and "count K" (all its fds), then
 *					waits as the others do.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

static void
die(const char *what)
{
	(void) fprintf(stderr, "bpf_helper: %s: %s\n", what,
	    strerror(errno));
	exit(1);
}

/* Wait until stdin is closed (or SIGALRM ends the process). */
static void
wait_stdin(void)
{
	ssize_t n;
	char c;

	(void) printf("ready\n");
	(void) fflush(stdout);
	while ((n = read(0, &c, 1)) > 0 || (n < 0 && errno == EINTR))
		;
}

/* The fds of the calling thread's table. */
static int
count_fds(void)
{
	DIR *d = opendir("/proc/thread-self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		die("opendir /proc/thread-self/fd");
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] != '.')
			n++;
	}
	(void) closedir(d);
	return (n - 1);		/* not the directory's own fd */
}

static int
tcp_listener(struct sockaddr_in *sin, in_addr_t addr)
{
	socklen_t len = sizeof (*sin);
	int fd;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		die("socket AF_INET");
	(void) memset(sin, 0, sizeof (*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(addr);
	if (bind(fd, (struct sockaddr *)sin, sizeof (*sin)) != 0)
		die("bind AF_INET");
	if (listen(fd, 16) != 0)
		die("listen AF_INET");
	if (getsockname(fd, (struct sockaddr *)sin, &len) != 0)
		die("getsockname AF_INET");
	return (fd);
}

static void
nspeer(void)
{
	struct sockaddr_un sun;
	struct sockaddr_in sin;
	socklen_t len = sizeof (sun);
	pid_t parent = getpid(), child;
	int lfd, ufd, afd;
	char c;

	(void) prctl(PR_SET_NAME, "nsp-parent", 0, 0, 0);
	(void) tcp_listener(&sin, INADDR_ANY);
	if ((ufd = socket(AF_INET, SOCK_DGRAM, 0)) < 0)
		die("socket AF_INET SOCK_DGRAM");
	if (bind(ufd, (struct sockaddr *)&sin, sizeof (sin)) != 0)
		die("bind AF_INET SOCK_DGRAM");

	/* Autobind: an abstract name the kernel chooses. */
	if ((lfd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0)
		die("socket AF_UNIX");
	(void) memset(&sun, 0, sizeof (sun));
	sun.sun_family = AF_UNIX;
	if (bind(lfd, (struct sockaddr *)&sun, sizeof (sa_family_t)) != 0)
		die("bind AF_UNIX (autobind)");
	if (listen(lfd, 4) != 0)
		die("listen AF_UNIX");
	if (getsockname(lfd, (struct sockaddr *)&sun, &len) != 0)
		die("getsockname AF_UNIX");

	if ((child = fork()) < 0)
		die("fork");
	if (child == 0) {
		int cfd;

		(void) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() != parent)
			_exit(1);
		(void) prctl(PR_SET_NAME, "nsp-child", 0, 0, 0);
		(void) close(lfd);
		if ((cfd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0)
			die("socket AF_UNIX (child)");
		if (connect(cfd, (struct sockaddr *)&sun, len) != 0)
			die("connect AF_UNIX (child)");
		/* Until the parent's end closes. */
		for (;;) {
			ssize_t n = read(cfd, &c, 1);

			if (n == 0 || (n < 0 && errno != EINTR))
				break;
		}
		_exit(0);
	}
	if ((afd = accept(lfd, NULL, NULL)) < 0)
		die("accept AF_UNIX");
	(void) printf("parent %d\nchild %d\naccepted %d\n", (int)parent,
	    (int)child, afd);
	wait_stdin();
	(void) close(afd);
	(void) kill(child, SIGKILL);
	(void) waitpid(child, NULL, 0);
}

/* Open n more fds: a TCP pair on loopback, socketpairs, pipes. */
static void
open_many(int n)
{
	struct sockaddr_in sin;
	struct rlimit rl;
	int lfd, cfd, afd, sv[2], opened = 0;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		die("getrlimit");
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		die("setrlimit");

	lfd = tcp_listener(&sin, INADDR_LOOPBACK);
	if ((cfd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		die("socket AF_INET (client)");
	if (connect(cfd, (struct sockaddr *)&sin, sizeof (sin)) != 0)
		die("connect AF_INET");
	if ((afd = accept(lfd, NULL, NULL)) < 0)
		die("accept AF_INET");
	opened = 3;
	while (opened + 2 <= n) {
		if (opened % 64 == 3) {
			if (pipe(sv) != 0)
				die("pipe");
		} else if (socketpair(AF_UNIX, opened % 3 == 0 ?
		    SOCK_DGRAM : SOCK_STREAM, 0, sv) != 0) {
			die("socketpair");
		}
		opened += 2;
	}
	if (opened < n && open("/dev/null", O_RDONLY) < 0)
		die("open /dev/null");
}

static void
many(int n)
{
	open_many(n);
	(void) printf("count %d\n", count_fds());
	wait_stdin();
}

/* The process's one live thread once the leader has exited. */
static void *
leaderless_thread(void *arg)
{
	pthread_t leader = *(pthread_t *)arg;

	/* The leader's exit is over once it can be joined. */
	if ((errno = pthread_join(leader, NULL)) != 0)
		die("pthread_join (the main thread)");
	(void) printf("tid %d\ncount %d\n", gettid(), count_fds());
	wait_stdin();
	exit(0);
}

static void
leaderless(int n)
{
	static pthread_t leader;
	pthread_t t;

	open_many(n);
	leader = pthread_self();
	if ((errno = pthread_create(&t, NULL, leaderless_thread,
	    &leader)) != 0)
		die("pthread_create");
	pthread_exit(NULL);
}

/*
 * The first process of a pid namespace gets no signal it has no handler
 * for: SIGALRM needs one.
 */
static void
on_alarm(int sig)
{
	_exit(3);
}

static int ownfiles_pipe[2];

static void *
ownfiles_thread(void *arg)
{
	int sv[2], tid = gettid();
	char c;

	if (unshare(CLONE_FILES) != 0)
		die("unshare CLONE_FILES");
	(void) close(3);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		die("socketpair");
	if (write(ownfiles_pipe[1], &tid, sizeof (tid)) != sizeof (tid))
		die("write");
	for (;;)
		if (read(sv[0], &c, 1) == 0)
			(void) pause();
	return (arg);
}

static void
ownfiles(void)
{
	pthread_t t;
	int tid;

	if (open("/dev/null", O_RDONLY) != 3)
		die("open /dev/null at fd 3");
	if (pipe(ownfiles_pipe) != 0)
		die("pipe");
	if ((errno = pthread_create(&t, NULL, ownfiles_thread, NULL)) != 0)
		die("pthread_create");
	if (read(ownfiles_pipe[0], &tid, sizeof (tid)) != sizeof (tid))
		die("read");
	(void) close(ownfiles_pipe[0]);
	(void) close(ownfiles_pipe[1]);
	(void) printf("tid %d\n", tid);
	wait_stdin();
}

int
main(int argc, char **argv)
{
	struct sigaction sa;
	int secs;

	if (argc < 3 || (secs = atoi(argv[1])) <= 0) {
		(void) fprintf(stderr, "usage: bpf_helper SECONDS nspeer | "
		    "bpf_helper SECONDS many N | bpf_helper SECONDS "
		    "ownfiles | bpf_helper SECONDS leaderless N\n");
		return (2);
	}
	(void) memset(&sa, 0, sizeof (sa));
	sa.sa_handler = on_alarm;
	if (sigaction(SIGALRM, &sa, NULL) != 0)
		die("sigaction");
	(void) alarm((unsigned)secs);
	if (strcmp(argv[2], "nspeer") == 0 && argc == 3)
		nspeer();
	else if (strcmp(argv[2], "ownfiles") == 0 && argc == 3)
		ownfiles();
	else if (strcmp(argv[2], "many") == 0 && argc == 4)
		many(atoi(argv[3]));
	else if (strcmp(argv[2], "leaderless") == 0 && argc == 4)
		leaderless(atoi(argv[3]));
	else
		return (2);
	return (0);
}
