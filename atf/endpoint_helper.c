/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * endpoint_helper: processes that hold the two ends of local connections
 * between them, for t_endpoint.  Each process says, from its own view,
 * which fds it holds and which end of which connection each is.
 *
 *	endpoint_helper [-t SECONDS] [-p PATH] MODE
 *
 * The parent makes every connection itself, forks, and the fds each
 * process keeps are closed in the others before anything is reported.
 * A connection has two ends, "a" (socketpair's sv[0], the connecting
 * client) and "b" (sv[1], the end accept gave):
 *
 *   cross   a socketpair (sp), a unix stream connection to an abstract
 *           name (unix) and a loopback TCP connection (tcp); the parent
 *           keeps the a ends and the listeners, one child (comm
 *           "ep\x1bchild") the b ends.  The parent's socketpair end,
 *           its first socket, is moved to fd 90 (above the others):
 *           its fd order is not the order of its sockets' inodes.
 *   two     a loopback TCP connection; the parent keeps a, two children
 *           hold b: the one with the lower pid moves it to fd 60, the
 *           other keeps it where it was (so pid order is not fd order).
 *   many    a socketpair; the parent keeps a, ten children hold b.
 *   nobody  a socketpair; the parent (run it as root) keeps a, one child
 *           that has become uid and gid 65534 (dumpable again) holds b.
 *   ambient a socketpair; one child that has become uid and gid 65534
 *           (no capability) holds b; the parent (run it as root) keeps
 *           a and becomes uid and gid 65534 too, keeping one capability
 *           (CAP_NET_BIND_SERVICE, permitted, effective and ambient):
 *           its fd directory opens to 65534, its links do not (reading
 *           them needs ptrace access, refused to a process with fewer
 *           capabilities).
 *   reuseport  two UDP sockets bound with SO_REUSEPORT to one loopback
 *           address and port, each connected to a third UDP socket,
 *           which is connected back to that address and port: either of
 *           the two could be its other end.  The parent keeps the third
 *           (the a end of "udpa"), one child the two (the b ends of
 *           "udpa" and "udpb"; "udpb" has no a end).
 *   shared  a socketpair (sp) and a loopback TCP connection (tcp); the
 *           parent keeps both ends of each, one child (forked after)
 *           the b ends too: the other end of the parent's a ends is held
 *           by the parent and by the child.
 *   thread  a socketpair (sp); the parent keeps a.  One child starts a
 *           thread (comm "ep-thread") that takes a file table of its
 *           own (unshare(CLONE_FILES)), after which the child's main
 *           thread closes b: only that thread's table holds b.  The
 *           thread reports itself (role "thread", its thread id as the
 *           PID of its lines); the child reports no hold.
 *   udpserver  two UDP clients, each connected to a UDP server that is
 *           connected to no one: "udps" to a server bound to 127.0.0.1,
 *           "udpw" to one bound to the wildcard address (the client
 *           connected to 127.0.0.1 and its port).  The parent keeps the
 *           clients (a), one child the servers (b).
 *   dualstack  three UDP clients, each connected to a server on
 *           loopback that is connected to no one, across the families:
 *           "u46" an AF_INET client connected to 127.0.0.1 and the port
 *           of an AF_INET6 server bound to :: with IPV6_V6ONLY off;
 *           "u64" an AF_INET6 client connected to ::ffff:127.0.0.1 and
 *           the port of an AF_INET server bound to 0.0.0.0; "u46o" an
 *           AF_INET client connected to 127.0.0.1 and the port of an
 *           AF_INET6 server bound to :: with IPV6_V6ONLY on.  Each
 *           client sends one datagram before the fork; the parent keeps
 *           the clients (a), one child the servers (b), and the child
 *           says after its hold lines which of them the datagrams
 *           reached: "got CONN BYTES" (0: none came).
 *   nscross as cross, as root; then the child, before it reports, moves
 *           to a new network namespace of its own
 *           (unshare(CLONE_NEWNET)): it holds sockets of the parent's.
 *   nsaccept  as root: a unix stream connection to a listener bound to a
 *           path, whose client socket a thread of the parent made in a
 *           new network namespace: both ends (the accepted one too) are
 *           of that namespace, both processes of the first.  The parent
 *           keeps a (the client), one child b.
 *   outside  (with -p PATH) connects a unix stream socket to the
 *           listener at PATH (which its caller made and accepts from)
 *           and reports it as the a end of "out", alone; meant to run as
 *           pid 1 of a pid namespace whose /proc does not show the
 *           listener's process.
 *   inflight  run as root (alone in a pid namespace of its own, as its
 *           pid 1 with its own /proc, or not): forks a child that exits
 *           at once and is left a zombie (root's, never reaped while this
 *           runs); makes a socketpair and sends its b end over a second
 *           socketpair, into that pair's receive queue, and closes it:
 *           the b end is in flight, held by no process.  Then becomes
 *           uid and gid 65534 (dumpable again) and reports, with no
 *           child of its own: the a end ("sp") and the two ends of the
 *           carrier ("carrier" a and b, both its own), and
 *           "zombie PID UID STATE ERRNO": the zombie's uid and state
 *           as /proc/PID/status says, and the errno of opening its
 *           /proc/PID/fd as 65534 (0: it could).
 *
 * Every process writes its lines to stdout with one write(2) each block,
 * then the parent writes its own and "end":
 *
 *   proc ROLE PID UID COMMLEN COMMHEX   prctl(PR_GET_NAME), getuid()
 *   hold ROLE PID FD CONN END INO CRED  a socket fd it holds: the
 *                                       connection and end it is, its
 *                                       fstat ino, its SO_PEERCRED pid
 *                                       (-1 when that fails)
 *   got CONN BYTES                      (dualstack) what the server
 *                                       of CONN received
 *   ends PID FD OWN PEER                after the hold line of an
 *                                       AF_INET socket: getsockname and
 *                                       getpeername, ADDR:PORT each
 *                                       (inet_ntop; "-" when the call
 *                                       fails)
 *
 * Then it waits until stdin reaches end of file or says "exit", or
 * SECONDS (default 120) have passed; it closes the children's control
 * pipes (each child exits on their end of file), reaps them (SIGKILL
 * after 5 seconds) and exits 0; 1 on an error, 2 on a usage error.
 * Every child also has PR_SET_PDEATHSIG(SIGKILL) and an alarm.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#define	MAX_CHILD	10
#define	MAX_CONN	3
#define	MOVED_FD	60
#define	CROSS_SP_FD	90
#define	NOBODY		65534
#define	CLOSE_TOP	1024

/* A connection the parent made: its two ends and the listener. */
typedef struct conn {
	const char	*c_name;
	int		c_a, c_b, c_listen;	/* -1: none */
} conn_t;

static conn_t conns[MAX_CONN];
static int nconns;
static int seconds = 120;
static const char *outpath;		/* -p */
static const char *mode;

static void
die(const char *what)
{
	(void) fprintf(stderr, "endpoint_helper[%d]: %s: %s\n", (int)getpid(),
	    what, strerror(errno));
	exit(1);
}

static void
make_socketpair(const char *name)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		die("socketpair");
	conns[nconns++] = (conn_t){ name, sv[0], sv[1], -1 };
}

static void
make_unix(const char *name)
{
	struct sockaddr_un sun;
	socklen_t len;
	int l, a, b, n;

	memset(&sun, 0, sizeof (sun));
	sun.sun_family = AF_UNIX;
	n = snprintf(sun.sun_path + 1, sizeof (sun.sun_path) - 1,
	    "endpoint_helper.%d", (int)getpid());
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	if ((l = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    bind(l, (struct sockaddr *)&sun, len) != 0 || listen(l, 4) != 0)
		die("unix listener");
	if ((a = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    connect(a, (struct sockaddr *)&sun, len) != 0)
		die("unix connect");
	if ((b = accept(l, NULL, NULL)) < 0)
		die("unix accept");
	conns[nconns++] = (conn_t){ name, a, b, l };
}

static void
make_tcp(const char *name)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof (sin);
	int l, a, b;

	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((l = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    bind(l, (struct sockaddr *)&sin, sizeof (sin)) != 0 ||
	    listen(l, 4) != 0 ||
	    getsockname(l, (struct sockaddr *)&sin, &len) != 0)
		die("tcp listener");
	if ((a = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    connect(a, (struct sockaddr *)&sin, sizeof (sin)) != 0)
		die("tcp connect");
	if ((b = accept(l, NULL, NULL)) < 0)
		die("tcp accept");
	conns[nconns++] = (conn_t){ name, a, b, l };
}

/* A unix stream connection to the listener at path: the client socket. */
static int
connect_path(const char *path)
{
	struct sockaddr_un sun;
	int a;

	memset(&sun, 0, sizeof (sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof (sun.sun_path)) {
		errno = ENAMETOOLONG;
		die(path);
	}
	(void) strcpy(sun.sun_path, path);
	if ((a = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    connect(a, (struct sockaddr *)&sun, sizeof (sun)) != 0)
		die("connect to the path");
	return (a);
}

/* A thread that makes the client socket in a new network namespace. */
static void *
ns_client(void *arg)
{
	int *fdp = arg;

	if (unshare(CLONE_NEWNET) != 0)
		die("unshare CLONE_NEWNET (thread)");
	*fdp = connect_path("endpoint_helper.sock");
	return (NULL);
}

/*
 * A unix stream connection to a listener bound to a path in the
 * current directory, whose client a thread made in a network namespace
 * of its own (which the two sockets keep alive).
 */
static void
make_unix_nsclient(const char *name)
{
	struct sockaddr_un sun;
	pthread_t t;
	int l, a = -1, b;

	memset(&sun, 0, sizeof (sun));
	sun.sun_family = AF_UNIX;
	(void) strcpy(sun.sun_path, "endpoint_helper.sock");
	(void) unlink(sun.sun_path);
	if ((l = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    bind(l, (struct sockaddr *)&sun, sizeof (sun)) != 0 ||
	    listen(l, 4) != 0)
		die("unix listener on a path");
	if ((errno = pthread_create(&t, NULL, ns_client, &a)) != 0 ||
	    (errno = pthread_join(t, NULL)) != 0)
		die("the client's thread");
	if ((b = accept(l, NULL, NULL)) < 0)
		die("unix accept");
	(void) unlink(sun.sun_path);
	conns[nconns++] = (conn_t){ name, a, b, l };
}

/* A UDP server bound to addr (network order) and a client connected to it. */
static void
make_udp_server(const char *name, uint32_t addr)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof (sin);
	int a, b;

	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = addr;
	if ((b = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
	    bind(b, (struct sockaddr *)&sin, sizeof (sin)) != 0 ||
	    getsockname(b, (struct sockaddr *)&sin, &len) != 0)
		die("udp server");
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((a = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
	    connect(a, (struct sockaddr *)&sin, sizeof (sin)) != 0)
		die("udp client");
	conns[nconns++] = (conn_t){ name, a, b, -1 };
}

/*
 * A UDP server of family sfam bound to the wildcard address (AF_INET6:
 * with IPV6_V6ONLY v6only), and a client of family cfam connected to
 * loopback (AF_INET6: v4 mapped) and its port, which sends it a datagram.
 */
static void
make_udp_family(const char *name, int sfam, int v6only, int cfam)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t len = sizeof (ss);
	in_port_t port;
	int a, b;

	memset(&ss, 0, sizeof (ss));
	ss.ss_family = (sa_family_t)sfam;
	if ((b = socket(sfam, SOCK_DGRAM, 0)) < 0 || (sfam == AF_INET6 &&
	    setsockopt(b, IPPROTO_IPV6, IPV6_V6ONLY, &v6only,
	    sizeof (v6only)) != 0) || bind(b, (struct sockaddr *)&ss,
	    sfam == AF_INET ? sizeof (*sin) : sizeof (*sin6)) != 0 ||
	    getsockname(b, (struct sockaddr *)&ss, &len) != 0)
		die("udp server");
	port = sfam == AF_INET ? sin->sin_port : sin6->sin6_port;
	memset(&ss, 0, sizeof (ss));
	ss.ss_family = (sa_family_t)cfam;
	if (cfam == AF_INET) {
		sin->sin_port = port;
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else {
		sin6->sin6_port = port;
		if (inet_pton(AF_INET6, "::ffff:127.0.0.1",
		    &sin6->sin6_addr) != 1)
			die("inet_pton");
	}
	if ((a = socket(cfam, SOCK_DGRAM, 0)) < 0 ||
	    connect(a, (struct sockaddr *)&ss, cfam == AF_INET ?
	    sizeof (*sin) : sizeof (*sin6)) != 0 ||
	    send(a, name, strlen(name), 0) != (ssize_t)strlen(name))
		die("udp client");
	conns[nconns++] = (conn_t){ name, a, b, -1 };
}

/* dualstack: what each server received, "got CONN BYTES" lines. */
static void
report_got(void)
{
	char buf[512], dgram[64];
	size_t used = 0;

	for (int i = 0; i < nconns; i++) {
		ssize_t n = recv(conns[i].c_b, dgram, sizeof (dgram),
		    MSG_DONTWAIT);

		used += (size_t)snprintf(buf + used, sizeof (buf) - used,
		    "got %s %zd\n", conns[i].c_name, n < 0 ? (ssize_t)0 : n);
	}
	if (used >= sizeof (buf) || write(1, buf, used) != (ssize_t)used)
		die("write");
}

/*
 * Two UDP sockets of one address and port (SO_REUSEPORT), both
 * connected to a third, the third connected to that address and port.
 */
static void
make_udp_reuseport(void)
{
	struct sockaddr_in ab, r;
	socklen_t len = sizeof (ab);
	int one = 1, a = -1, b = -1, third = -1;

	memset(&ab, 0, sizeof (ab));
	ab.sin_family = AF_INET;
	ab.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	r = ab;
	if ((a = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
	    (b = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
	    (third = socket(AF_INET, SOCK_DGRAM, 0)) < 0)
		die("socket AF_INET SOCK_DGRAM");
	if (setsockopt(a, SOL_SOCKET, SO_REUSEPORT, &one, sizeof (one)) != 0 ||
	    setsockopt(b, SOL_SOCKET, SO_REUSEPORT, &one, sizeof (one)) != 0)
		die("SO_REUSEPORT");
	if (bind(a, (struct sockaddr *)&ab, sizeof (ab)) != 0 ||
	    getsockname(a, (struct sockaddr *)&ab, &len) != 0 ||
	    bind(b, (struct sockaddr *)&ab, sizeof (ab)) != 0)
		die("bind the two to one port");
	len = sizeof (r);
	if (bind(third, (struct sockaddr *)&r, sizeof (r)) != 0 ||
	    getsockname(third, (struct sockaddr *)&r, &len) != 0)
		die("bind the third");
	if (connect(third, (struct sockaddr *)&ab, sizeof (ab)) != 0 ||
	    connect(a, (struct sockaddr *)&r, sizeof (r)) != 0 ||
	    connect(b, (struct sockaddr *)&r, sizeof (r)) != 0)
		die("connect UDP");
	conns[nconns++] = (conn_t){ "udpa", third, a, -1 };
	conns[nconns++] = (conn_t){ "udpb", -1, b, -1 };
}

/* "ADDR:PORT" of an AF_INET name, or "-". */
static void
inet_text(char *buf, size_t size, int ok, const struct sockaddr_in *sin)
{
	char addr[INET_ADDRSTRLEN];

	if (!ok || sin->sin_family != AF_INET ||
	    inet_ntop(AF_INET, &sin->sin_addr, addr, sizeof (addr)) == NULL)
		(void) snprintf(buf, size, "-");
	else
		(void) snprintf(buf, size, "%s:%u", addr,
		    (unsigned)ntohs(sin->sin_port));
}

/* The ends line of fd, when it is an AF_INET socket: its length. */
static size_t
ends_line(char *buf, size_t size, int fd, pid_t who)
{
	struct sockaddr_in own, peer;
	socklen_t olen = sizeof (own), plen = sizeof (peer);
	char otext[32], ptext[32];
	int ook;

	ook = getsockname(fd, (struct sockaddr *)&own, &olen) == 0;
	if (!ook || own.sin_family != AF_INET)
		return (0);
	inet_text(otext, sizeof (otext), ook, &own);
	inet_text(ptext, sizeof (ptext), getpeername(fd,
	    (struct sockaddr *)&peer, &plen) == 0, &peer);
	return ((size_t)snprintf(buf, size, "ends %d %d %s %s\n",
	    (int)who, fd, otext, ptext));
}

/* The hold line of fd, end e of connection name, and its ends line. */
static size_t
hold_line(char *buf, size_t size, const char *role, const char *name,
    int e, int fd, pid_t who)
{
	struct ucred uc;
	socklen_t len = sizeof (uc);
	struct stat st;
	size_t used;
	int cred = -1;

	if (fstat(fd, &st) != 0)
		die("fstat");
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) == 0)
		cred = (int)uc.pid;
	used = (size_t)snprintf(buf, size, "hold %s %d %d %s %c %llu %d\n",
	    role, (int)who, fd, name, e, (unsigned long long)st.st_ino,
	    cred);
	if (used < size)
		used += ends_line(buf + used, size - used, fd, who);
	return (used);
}

/*
 * The lines of one process (or thread: who, its id): proc, then a hold
 * line per end it has: the end ('a' or 'b') of every connection, with
 * end 0 both, with end '-' none.
 */
static void
report(const char *role, int end, int moved_from, int moved_to, pid_t who)
{
	char buf[4096], comm[17] = "";
	size_t used = 0;

	if (prctl(PR_GET_NAME, comm) != 0)
		die("PR_GET_NAME");
	used += (size_t)snprintf(buf + used, sizeof (buf) - used,
	    "proc %s %d %u %zu ", role, (int)who, (unsigned)getuid(),
	    strlen(comm));
	for (size_t i = 0; i < strlen(comm); i++)
		used += (size_t)snprintf(buf + used, sizeof (buf) - used,
		    "%02x", (unsigned char)comm[i]);
	if (comm[0] == '\0')
		used += (size_t)snprintf(buf + used, sizeof (buf) - used, "-");
	used += (size_t)snprintf(buf + used, sizeof (buf) - used, "\n");
	for (int i = 0; i < nconns && end != '-'; i++) {
		for (int k = 0; k < (end == 0 ? 2 : 1); k++) {
			int e = end != 0 ? end : "ab"[k];
			int fd = e == 'a' ? conns[i].c_a : conns[i].c_b;

			if (fd == moved_from)
				fd = moved_to;
			if (fd >= 0 && used < sizeof (buf))
				used += hold_line(buf + used, sizeof (buf) -
				    used, role, conns[i].c_name, e, fd, who);
		}
	}
	if (used >= sizeof (buf)) {
		errno = ENOBUFS;
		die("report");
	}
	if (write(1, buf, used) != (ssize_t)used)
		die("write");
}

/* Close every fd from 3 up but those of keep (n of them). */
static void
close_except(const int *keep, int n)
{
	for (int fd = 3; fd < CLOSE_TOP; fd++) {
		int kept = 0;

		for (int i = 0; i < n; i++)
			kept |= keep[i] == fd;
		if (!kept)
			(void) close(fd);
	}
}

/* The thread of "thread" mode and its child's main thread meet here. */
static pthread_barrier_t meet;

/*
 * The thread: a file table of its own, its comm; waits for the main
 * thread to close b in the process's table, closes every fd of its own
 * table but b, reports itself, and stays.
 */
static void *
files_thread(void *arg)
{
	const char *role = arg;
	int keep = conns[0].c_b;

	if (unshare(CLONE_FILES) != 0)
		die("unshare CLONE_FILES");
	if (prctl(PR_SET_NAME, "ep-thread") != 0)
		die("PR_SET_NAME (thread)");
	(void) pthread_barrier_wait(&meet);	/* unshared */
	(void) pthread_barrier_wait(&meet);	/* b closed in the process's */
	close_except(&keep, 1);
	report(role, 'b', -1, -1, (pid_t)syscall(SYS_gettid));
	(void) pthread_barrier_wait(&meet);	/* reported */
	for (;;)
		(void) pause();
	return (NULL);
}

/* The child of "thread": b only in its thread's table, then its lines. */
static void
thread_holds_b(const char *role)
{
	pthread_t t;

	if ((errno = pthread_barrier_init(&meet, NULL, 2)) != 0 ||
	    (errno = pthread_create(&t, NULL, files_thread, "thread")) != 0)
		die("the thread");
	(void) pthread_barrier_wait(&meet);
	if (close(conns[0].c_b) != 0)
		die("close b");
	(void) pthread_barrier_wait(&meet);
	(void) pthread_barrier_wait(&meet);
	report(role, '-', -1, -1, getpid());
}

/*
 * A child: keeps the b ends (and its control and ready pipes), becomes
 * what the mode says, reads its order from the parent ('m': move the
 * one b end to MOVED_FD; 'k': keep it), reports, tells the parent, and
 * waits for the end of file of its control pipe.
 */
static void
child(const char *role, const char *comm, int ctl, int ready, int nobody)
{
	int keep[MAX_CONN + 2], n = 0, moved = -1;
	char order, c = '.';

	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void) alarm((unsigned)seconds + 10);
	keep[n++] = ctl;
	keep[n++] = ready;
	for (int i = 0; i < nconns; i++)
		keep[n++] = conns[i].c_b;
	close_except(keep, n);
	if (prctl(PR_SET_NAME, comm) != 0)
		die("PR_SET_NAME");
	if (strcmp(mode, "nscross") == 0 && unshare(CLONE_NEWNET) != 0)
		die("unshare CLONE_NEWNET");
	if (nobody) {
		if (setgroups(0, NULL) != 0 ||
		    setresgid(NOBODY, NOBODY, NOBODY) != 0 ||
		    setresuid(NOBODY, NOBODY, NOBODY) != 0)
			die("becoming 65534");
		/* A change of uid made it undumpable: /proc/PID/fd root's. */
		if (prctl(PR_SET_DUMPABLE, 1) != 0)
			die("PR_SET_DUMPABLE");
	}
	if (read(ctl, &order, 1) != 1)
		_exit(1);
	if (order == 'm') {
		if (nconns != 1 || dup2(conns[0].c_b, MOVED_FD) != MOVED_FD ||
		    close(conns[0].c_b) != 0)
			die("moving the b end");
		moved = MOVED_FD;
	}
	if (strcmp(mode, "thread") == 0)
		thread_holds_b(role);
	else
		report(role, 'b', moved >= 0 ? conns[0].c_b : -1, moved,
		    getpid());
	if (strcmp(mode, "dualstack") == 0)
		report_got();
	if (write(ready, &c, 1) != 1)
		die("ready");
	(void) close(ready);
	while (read(ctl, &order, 1) > 0)
		continue;
	_exit(0);
}

static long long
now_ms(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/* Wait for stdin's end of file or "exit", within seconds. */
static void
wait_stdin(void)
{
	long long deadline = now_ms() + (long long)seconds * 1000;
	char line[16];
	size_t len = 0;

	for (;;) {
		struct pollfd pfd = { 0, POLLIN, 0 };
		long long left = deadline - now_ms();
		char ch;

		if (left <= 0 || poll(&pfd, 1, (int)left) < 0)
			return;
		if (pfd.revents == 0)
			continue;
		if (read(0, &ch, 1) != 1)
			return;
		if (ch != '\n') {
			if (len < sizeof (line))
				line[len++] = ch;
			continue;
		}
		if (len == 4 && memcmp(line, "exit", 4) == 0)
			return;
		len = 0;
	}
}

/*
 * The zombie's line: its uid and state from /proc/PID/status, and what
 * opening its fd table gives this process.
 */
static void
zombie_line(pid_t z)
{
	char path[64], line[256];
	unsigned uid = (unsigned)-1;
	char state = '?';
	FILE *fp;
	int fd, err = 0;

	(void) snprintf(path, sizeof (path), "/proc/%d/status", (int)z);
	if ((fp = fopen(path, "r")) == NULL)
		die("fopen the zombie's status");
	while (fgets(line, sizeof (line), fp) != NULL) {
		if (strncmp(line, "State:\t", 7) == 0)
			state = line[7];
		else if (strncmp(line, "Uid:\t", 5) == 0)
			(void) sscanf(line + 5, "%u", &uid);
	}
	(void) fclose(fp);
	(void) snprintf(path, sizeof (path), "/proc/%d/fd", (int)z);
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		err = errno;
	else
		(void) close(fd);
	(void) printf("zombie %d %u %c %d\n", (int)z, uid, state, err);
	(void) fflush(stdout);
}

/* The inflight mode: its lines, then wait; the zombie reaped at the end. */
static int
inflight(void)
{
	struct msghdr mh;
	struct iovec iov;
	union {
		struct cmsghdr	cm;
		char		buf[CMSG_SPACE(sizeof (int))];
	} u;
	siginfo_t si;
	pid_t z;
	int carrier[2];
	char c = 'x';

	if ((z = fork()) < 0)
		die("fork");
	if (z == 0)
		_exit(0);
	/* Until it is a zombie, without reaping it. */
	memset(&si, 0, sizeof (si));
	if (waitid(P_PID, (id_t)z, &si, WEXITED | WNOWAIT) != 0)
		die("waitid");
	make_socketpair("sp");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, carrier) != 0)
		die("socketpair (carrier)");
	memset(&mh, 0, sizeof (mh));
	memset(&u, 0, sizeof (u));
	iov.iov_base = &c;
	iov.iov_len = 1;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof (u.buf);
	u.cm.cmsg_level = SOL_SOCKET;
	u.cm.cmsg_type = SCM_RIGHTS;
	u.cm.cmsg_len = CMSG_LEN(sizeof (int));
	memcpy(CMSG_DATA(&u.cm), &conns[0].c_b, sizeof (int));
	if (sendmsg(carrier[0], &mh, 0) != 1)
		die("sendmsg SCM_RIGHTS");
	(void) close(conns[0].c_b);
	conns[0].c_b = -1;
	conns[nconns++] = (conn_t){ "carrier", carrier[0], carrier[1], -1 };
	if (setgroups(0, NULL) != 0 || setresgid(NOBODY, NOBODY, NOBODY) != 0 ||
	    setresuid(NOBODY, NOBODY, NOBODY) != 0)
		die("becoming 65534");
	if (prctl(PR_SET_DUMPABLE, 1) != 0)
		die("PR_SET_DUMPABLE");
	report("parent", 0, -1, -1, getpid());
	zombie_line(z);
	if (write(1, "end\n", 4) != 4)
		die("write");
	wait_stdin();
	(void) waitpid(z, NULL, 0);
	return (0);
}

static void usage(void);

/* The outside mode: one client socket, its lines, then wait. */
static int
outside(void)
{
	if (outpath == NULL)
		usage();
	conns[nconns++] = (conn_t){ "out", connect_path(outpath), -1, -1 };
	report("parent", 'a', -1, -1, getpid());
	if (write(1, "end\n", 4) != 4)
		die("write");
	wait_stdin();
	return (0);
}

static void
usage(void)
{
	(void) fprintf(stderr, "usage: endpoint_helper [-t SECONDS] "
	    "[-p PATH] cross|two|many|nobody|ambient|reuseport|shared|thread|"
	    "udpserver|dualstack|nscross|nsaccept|outside|inflight\n");
	exit(2);
}

/*
 * The parent of "ambient": uid and gid 65534 with CAP_NET_BIND_SERVICE
 * kept (permitted, effective, inheritable and ambient), dumpable.
 */
static void
become_capable_nobody(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3,
	    0 };
	struct __user_cap_data_struct data[2];
	uint32_t bit = 1U << CAP_NET_BIND_SERVICE;

	if (prctl(PR_SET_KEEPCAPS, 1) != 0 || setgroups(0, NULL) != 0 ||
	    setresgid(NOBODY, NOBODY, NOBODY) != 0 ||
	    setresuid(NOBODY, NOBODY, NOBODY) != 0)
		die("becoming 65534");
	memset(data, 0, sizeof (data));
	data[0].permitted = data[0].effective = data[0].inheritable = bit;
	if (syscall(SYS_capset, &hdr, data) != 0 ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_BIND_SERVICE,
	    0, 0) != 0)
		die("keeping CAP_NET_BIND_SERVICE");
	if (prctl(PR_SET_DUMPABLE, 1) != 0)
		die("PR_SET_DUMPABLE");
}

int
main(int argc, char **argv)
{
	pid_t pids[MAX_CHILD];
	int ctl[MAX_CHILD], ready[2], nchild = 0, c, nobody = 0;
	long long deadline;

	while ((c = getopt(argc, argv, "t:p:")) != -1) {
		if (c == 'p')
			outpath = optarg;
		else if (c != 't' || (seconds = atoi(optarg)) <= 0)
			usage();
	}
	if (optind != argc - 1)
		usage();
	mode = argv[optind];
	(void) signal(SIGPIPE, SIG_IGN);
	if (prctl(PR_SET_NAME, "ep parent") != 0)
		die("PR_SET_NAME");
	if (strcmp(mode, "inflight") == 0)
		return (inflight());
	if (strcmp(mode, "outside") == 0)
		return (outside());
	if (strcmp(mode, "cross") == 0 || strcmp(mode, "nscross") == 0) {
		make_socketpair("sp");
		make_unix("unix");
		make_tcp("tcp");
		if (dup2(conns[0].c_a, CROSS_SP_FD) != CROSS_SP_FD ||
		    close(conns[0].c_a) != 0)
			die("dup2");
		conns[0].c_a = CROSS_SP_FD;
		nchild = 1;
	} else if (strcmp(mode, "two") == 0) {
		make_tcp("tcp");
		nchild = 2;
	} else if (strcmp(mode, "many") == 0) {
		make_socketpair("sp");
		nchild = MAX_CHILD;
	} else if (strcmp(mode, "nobody") == 0 ||
	    strcmp(mode, "ambient") == 0) {
		make_socketpair("sp");
		nchild = 1;
		nobody = 1;
	} else if (strcmp(mode, "reuseport") == 0) {
		make_udp_reuseport();
		nchild = 1;
	} else if (strcmp(mode, "shared") == 0) {
		make_socketpair("sp");
		make_tcp("tcp");
		nchild = 1;
	} else if (strcmp(mode, "thread") == 0) {
		make_socketpair("sp");
		nchild = 1;
	} else if (strcmp(mode, "udpserver") == 0) {
		make_udp_server("udps", htonl(INADDR_LOOPBACK));
		make_udp_server("udpw", htonl(INADDR_ANY));
		nchild = 1;
	} else if (strcmp(mode, "dualstack") == 0) {
		make_udp_family("u46", AF_INET6, 0, AF_INET);
		make_udp_family("u64", AF_INET, 0, AF_INET6);
		make_udp_family("u46o", AF_INET6, 1, AF_INET);
		nchild = 1;
	} else if (strcmp(mode, "nsaccept") == 0) {
		make_unix_nsclient("unixns");
		nchild = 1;
	} else {
		usage();
	}
	if (pipe(ready) != 0)
		die("pipe");
	for (int i = 0; i < nchild; i++) {
		int p[2];
		char role[16], comm[16];

		if (pipe(p) != 0)
			die("pipe");
		(void) snprintf(role, sizeof (role), nchild == 1 ? "child" :
		    "child%d", i);
		if (nchild > 1)
			(void) snprintf(comm, sizeof (comm), "ep-child%d", i);
		else
			(void) snprintf(comm, sizeof (comm), "%s", nobody ?
			    "ep-nobody" : "ep\x1b" "child");
		if ((pids[i] = fork()) < 0)
			die("fork");
		if (pids[i] == 0) {
			(void) close(p[1]);
			(void) close(ready[0]);
			child(role, comm, p[0], ready[1], nobody);
		}
		(void) close(p[0]);
		ctl[i] = p[1];
	}
	(void) close(ready[1]);
	if (strcmp(mode, "ambient") == 0)
		become_capable_nobody();
	/* The parent keeps the a ends and the listeners (shared: all). */
	for (int i = 0; i < nconns && strcmp(mode, "shared") != 0; i++)
		(void) close(conns[i].c_b);
	/* Orders: in "two", the child of the lower pid moves its end. */
	for (int i = 0; i < nchild; i++) {
		char order = 'k';

		if (nchild == 2 && pids[i] < pids[1 - i])
			order = 'm';
		if (write(ctl[i], &order, 1) != 1)
			die("order");
	}
	deadline = now_ms() + 30000;
	for (int got = 0; got < nchild; ) {
		struct pollfd pfd = { ready[0], POLLIN, 0 };
		long long left = deadline - now_ms();
		char buf[MAX_CHILD];
		ssize_t n = 0;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0 ||
		    (n = read(ready[0], buf, sizeof (buf))) <= 0) {
			errno = ETIMEDOUT;
			die("children not ready");
		}
		got += (int)n;
	}
	/*
	 * A child closes its end of the ready pipe after its byte: its fd
	 * table is final only then, so wait for every end closed (end of
	 * file), or pfiles may see the pipe in one run and not the next.
	 */
	for (;;) {
		struct pollfd pfd = { ready[0], POLLIN, 0 };
		long long left = deadline - now_ms();
		char buf[MAX_CHILD];
		ssize_t n = 0;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0 ||
		    (n = read(ready[0], buf, sizeof (buf))) < 0) {
			errno = ETIMEDOUT;
			die("children's ready pipe not closed");
		}
		if (n == 0)
			break;
	}
	report("parent", strcmp(mode, "shared") == 0 ? 0 : 'a', -1, -1,
	    getpid());
	if (write(1, "end\n", 4) != 4)
		die("write");

	wait_stdin();
	for (int i = 0; i < nchild; i++)
		(void) close(ctl[i]);
	deadline = now_ms() + 5000;
	for (int i = 0; i < nchild; i++) {
		while (waitpid(pids[i], NULL, WNOHANG) == 0) {
			if (now_ms() > deadline) {
				(void) kill(pids[i], SIGKILL);
				(void) waitpid(pids[i], NULL, 0);
				break;
			}
			(void) usleep(10000);
		}
	}
	return (0);
}
