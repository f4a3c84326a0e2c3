/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * peer_helper: for t_peer, a daemon's pid taken by another process, in a
 * pid namespace of its own (so that the pid can be chosen through
 * /proc/sys/kernel/ns_last_pid without touching the machine's).  It says
 * what it made, from its own view, on stdout ("KEY VALUE" lines, then
 * "ready"), and keeps it until its stdin is closed.
 *
 *	peer_helper reuse	in a new pid and mount namespace (a /proc of
 *				its own): "init PID", the namespace's first
 *				process as this one's namespace sees it; then,
 *				as the new namespace sees them: a daemon
 *				("daemon PID") that listens on an abstract
 *				unix socket, forks its server ("server PID",
 *				which keeps the listener and accepts one
 *				connection) and exits, and is reaped; a client
 *				that connects ("client PID"); then a process
 *				that takes the daemon's pid ("impostor PID").
 *				Each names itself by its role (comm
 *				"peer-daemon", "peer-server", "peer-client",
 *				"peer-impostor").  Where a namespace cannot
 *				be made: "skip REASON".
 *	peer_helper netns	in a new network namespace of its own (the
 *				caller's pid namespace): this process ("server
 *				PID", comm "peer-server") listens on an abstract
 *				unix socket there, a child ("client PID", comm
 *				"peer-client") connects to it, and the server
 *				accepts; "sfd FD" and "cfd FD", the accepted
 *				and the connected socket, and "scred PID" and
 *				"ccred PID", the SO_PEERCRED pid each holder
 *				reads of its own.  Where the namespace cannot
 *				be made: "skip REASON".
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static struct sockaddr_un addr;
static socklen_t addrlen;

static void
die(const char *what)
{
	(void) printf("error %s: %s\n", what, strerror(errno));
	(void) fflush(stdout);
	_exit(1);
}

/*
 * A child named name; 0 in the child.  The namespace's first process
 * dies with this one (and every other process of the namespace with it).
 */
static pid_t
child(const char *name)
{
	pid_t pid;

	(void) fflush(stdout);
	if ((pid = fork()) < 0)
		die("fork");
	if (pid == 0) {
		if (getpid() == 1)
			(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
		(void) prctl(PR_SET_NAME, name);
	}
	return (pid);
}

/* One line from fd (a pid), byte by byte (reports may come together). */
static pid_t
read_pid(int fd)
{
	char buf[32] = "";
	size_t n = 0;

	while (n < sizeof (buf) - 1 && read(fd, &buf[n], 1) == 1 &&
	    buf[n] != '\n')
		n++;
	if (n == 0 || buf[n] != '\n')
		die("a child's report");
	buf[n] = '\0';
	return ((pid_t)atoi(buf));
}

static void
report(int fd)
{
	char buf[32];
	int n = snprintf(buf, sizeof (buf), "%d\n", (int)getpid());

	if (write(fd, buf, (size_t)n) != n)
		_exit(1);
}

/* The server: keeps the listener, accepts one client, says so. */
static void
serve(int ls, int rep)
{
	int c;

	report(rep);
	if ((c = accept(ls, NULL, NULL)) < 0)
		_exit(1);
	report(rep);
	for (;;)
		(void) pause();
}

/* The daemon: listens, forks its server, exits. */
static void
daemonize(int rep)
{
	int ls = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (ls < 0 || bind(ls, (struct sockaddr *)&addr, addrlen) != 0 ||
	    listen(ls, 4) != 0)
		die("listen");
	if (child("peer-server") == 0)
		serve(ls, rep);
	_exit(0);
}

static void
connect_client(int rep)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0 || connect(s, (struct sockaddr *)&addr, addrlen) != 0)
		die("connect");
	report(rep);
	for (;;)
		(void) pause();
}

/* The next fork in this namespace gets pid. */
static void
next_pid(pid_t pid)
{
	char buf[32];
	int fd, n = snprintf(buf, sizeof (buf), "%d", (int)pid - 1);

	if ((fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY)) < 0 ||
	    write(fd, buf, (size_t)n) != n)
		die("ns_last_pid");
	(void) close(fd);
}

/* The namespace's first process. */
static void
init(int go)
{
	pid_t daemon, server, client, impostor;
	int rep[2];
	char c;

	if (read(go, &c, 1) != 1)	/* "init" said first */
		die("the go");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    NULL) != 0)
		die("mount /proc");
	if (pipe2(rep, O_CLOEXEC) != 0)
		die("pipe");
	if ((daemon = child("peer-daemon")) == 0)
		daemonize(rep[1]);
	server = read_pid(rep[0]);
	if (waitpid(daemon, NULL, 0) != daemon)
		die("waitpid");
	if ((client = child("peer-client")) == 0)
		connect_client(rep[1]);
	(void) read_pid(rep[0]);	/* the client connected */
	(void) read_pid(rep[0]);	/* the server accepted */
	next_pid(daemon);
	if ((impostor = child("peer-impostor")) == 0) {
		for (;;)
			(void) pause();
	}
	(void) printf("daemon %d\nserver %d\nclient %d\nimpostor %d\nready\n",
	    (int)daemon, (int)server, (int)client, (int)impostor);
	(void) fflush(stdout);
	while (read(0, &c, 1) > 0)
		continue;
	_exit(0);	/* the namespace's processes are killed with it */
}

/* "skip REASON", then wait for stdin's end of file. */
static int
skip(const char *what)
{
	char c;

	(void) printf("skip cannot make a %s namespace: %s\nready\n", what,
	    strerror(errno));
	(void) fflush(stdout);
	while (read(0, &c, 1) > 0)
		continue;
	return (0);
}

/* SO_PEERCRED's pid of socket s, as its holder reads it; -1: none. */
static int
cred_pid(int s)
{
	struct ucred uc;
	socklen_t len = sizeof (uc);

	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &uc, &len) != 0)
		return (-1);
	return ((int)uc.pid);
}

/* The netns mode's client: connects, says its pid, fd and cred. */
static void
netns_client(int rep)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), v[3];

	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (s < 0 || connect(s, (struct sockaddr *)&addr, addrlen) != 0)
		die("connect");
	v[0] = (int)getpid();
	v[1] = s;
	v[2] = cred_pid(s);
	if (write(rep, v, sizeof (v)) != (ssize_t)sizeof (v))
		_exit(1);
	for (;;)
		(void) pause();
}

/* The netns mode: a unix connection inside a network namespace. */
static int
netns(void)
{
	int ls = -1, as = -1, rep[2], v[3];
	pid_t client;
	char c;

	if (unshare(CLONE_NEWNET) != 0)
		return (skip("network"));
	if (prctl(PR_SET_NAME, "peer-server") != 0 || pipe2(rep, O_CLOEXEC) !=
	    0 || (ls = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(ls, (struct sockaddr *)&addr, addrlen) != 0 ||
	    listen(ls, 1) != 0)
		die("listen");
	if ((client = child("peer-client")) == 0)
		netns_client(rep[1]);
	if (read(rep[0], v, sizeof (v)) != (ssize_t)sizeof (v) ||
	    (as = accept4(ls, NULL, NULL, SOCK_CLOEXEC)) < 0)
		die("the client");
	(void) printf("server %d\nclient %d\nsfd %d\ncfd %d\nscred %d\n"
	    "ccred %d\nready\n", (int)getpid(), v[0], as, v[1], cred_pid(as),
	    v[2]);
	(void) fflush(stdout);
	while (read(0, &c, 1) > 0)
		continue;
	(void) kill(client, SIGKILL);
	(void) waitpid(client, NULL, 0);
	return (0);
}

int
main(int argc, char **argv)
{
	pid_t pid;
	int go[2];

	if (argc != 2 || (strcmp(argv[1], "reuse") != 0 &&
	    strcmp(argv[1], "netns") != 0)) {
		(void) fprintf(stderr, "usage: peer_helper reuse|netns\n");
		return (2);
	}
	addr.sun_family = AF_UNIX;
	addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    (size_t)snprintf(addr.sun_path + 1, sizeof (addr.sun_path) - 1,
	    "pfiles-t_peer-%d", (int)getpid()));
	if (strcmp(argv[1], "netns") == 0)
		return (netns());
	if (unshare(CLONE_NEWPID | CLONE_NEWNS) != 0)
		return (skip("pid"));
	if (pipe2(go, O_CLOEXEC) != 0)
		die("pipe");
	if ((pid = child("peer_helper")) == 0)
		init(go[0]);
	(void) printf("init %d\n", (int)pid);
	(void) fflush(stdout);
	if (write(go[1], "", 1) != 1)
		die("the go");
	(void) waitpid(pid, NULL, 0);
	return (0);
}
