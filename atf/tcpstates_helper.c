/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tcpstates_helper: for t_tcpstates, one process in a network namespace
 * of its own that holds TCP sockets in each state the kernel reports for
 * a socket a process holds, and says, from its own view, what it did.
 *
 *	tcpstates_helper [-t SECONDS]
 *
 * Every address is the namespace's loopback (127.0.0.1, ::1): nothing
 * leaves it.  Its lo is taken down part way: what is sent after that (data,
 * a FIN) is never acknowledged, so those sockets stay in FIN_WAIT1 and
 * LAST_ACK, their bytes to send held still.  What it holds:
 *
 *   lsnp     a listener (backlog 16) that the pairs below connect to,
 *            each connection accepted
 *   lsn      a listener (backlog 7) that wait1 and wait2 connected to,
 *            never accepted: 2 waiting of 7
 *   lsn0     a listener of backlog 0 whose queue is full with wait0; the
 *            SYN of synsent, which connects to it without blocking, is
 *            dropped (TCP_SYNCNT 127: it keeps trying): SYN_SENT
 *   bound    bound to 127.0.0.1, never connected nor listening: CLOSE
 *   e        a pair (a the client, b the accepted end): a wrote 100
 *            bytes, b read none
 *   f        a wrote 1000 bytes, b 200, neither read; then a shut down
 *            for writing (lo up): a FIN_WAIT2, b CLOSE_WAIT
 *   g        a wrote 1000 bytes and shut down (lo up); then, lo down, b
 *            wrote 300 and shut down: b LAST_ACK
 *   i        a wrote 50 (lo up); then, lo down, 400, and shut down:
 *            FIN_WAIT1
 *   k        lo down, a wrote 77: ESTABLISHED with bytes to send
 *   e6, lsn6 a pair on ::1 (a wrote 37 bytes) and its listener; left out
 *            where the namespace has no IPv6 ("nov6 REASON")
 *   of other kinds, for the cross-check with ss (bench/sscheck.py): a
 *   unix stream socketpair (us: a wrote 7 bytes), a unix listener (ulsn)
 *   with one client (uc) not accepted, a unix datagram socketpair (ud: a
 *   datagram of 11 bytes queued), a UDP socket bound to 127.0.0.1 (udp)
 *   with a datagram of 33 bytes sent to itself, a raw ICMP socket (raw);
 *   each written to before lo goes down
 *   other holders: lsn's socket dup'ed to fd 100, and a child (comm
 *   "tcpstates-kid") that holds lsn and e's b end (at the same fds)
 *
 * Lines on stdout, then "ready":
 *   pid PID                    its own
 *   sock NAME FD INO KIND ARG  KIND listen (ARG the backlog it asked),
 *                              conn (ARG the other end's NAME, "-" when
 *                              no process holds it), bound or synsent
 *                              (ARG "-"), other (ARG what it is)
 *   pending NAME N             connections to listener NAME that it made
 *                              and did not accept
 *   wrote NAME BYTES LO        bytes written to NAME, lo "up" or "down"
 *   shut NAME LO               shutdown(SHUT_WR) of NAME
 *   holder NAME PID FD         another fd that holds NAME's socket
 *   view NAME STATE INQ OUTQ   at the end, of each TCP socket: TCP_INFO's
 *                              tcpi_state, SIOCINQ, SIOCOUTQ; of a
 *                              listener, tcpi_unacked and tcpi_sacked
 * or, where the namespace cannot be made, "skip REASON" (then "ready").
 * Then it waits for end of file on stdin, or SECONDS (default 120), and
 * exits 0 (the child with it); 1 on an error ("error WHAT: ERRNO").
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/sockios.h>

#define	MAX_SOCKS	48
#define	WAIT_MS		5000
#define	DUP_FD		100

/* A TCP socket it holds, for the views at the end. */
typedef struct tsock {
	char	t_name[16];
	int	t_fd;
	int	t_listen;
} tsock_t;

static tsock_t socks[MAX_SOCKS];
static int nsocks;
static const char *lo = "up";

static void __attribute__((__noreturn__))
die(const char *what)
{
	(void) printf("error %s: %s\n", what, strerror(errno));
	(void) fflush(stdout);
	_exit(1);
}

/* Say "sock NAME FD INO KIND ARG"; a TCP socket is kept for its view. */
static void
say_sock(const char *name, int fd, const char *kind, const char *arg)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		die("fstat");
	(void) printf("sock %s %d %llu %s %s\n", name, fd,
	    (unsigned long long)st.st_ino, kind, arg);
	if (strcmp(kind, "other") == 0)
		return;
	if (nsocks == MAX_SOCKS)
		die("too many sockets");
	(void) snprintf(socks[nsocks].t_name, sizeof (socks[0].t_name), "%s",
	    name);
	socks[nsocks].t_fd = fd;
	socks[nsocks].t_listen = strcmp(kind, "listen") == 0;
	nsocks++;
}

static void
lo_set(int up)
{
	struct ifreq ifr;
	int s;

	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		die("socket for lo");
	memset(&ifr, 0, sizeof (ifr));
	(void) strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) != 0)
		die("SIOCGIFFLAGS lo");
	if (up)
		ifr.ifr_flags |= IFF_UP;
	else
		ifr.ifr_flags &= ~IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0)
		die("SIOCSIFFLAGS lo");
	(void) close(s);
	lo = up ? "up" : "down";
}

static struct tcp_info
tcp_info(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof (ti);

	memset(&ti, 0, sizeof (ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0)
		die("TCP_INFO");
	return (ti);
}

static int
queue_of(int fd, unsigned long req)
{
	int n;

	if (ioctl(fd, req, &n) != 0)
		die(req == SIOCINQ ? "SIOCINQ" : "SIOCOUTQ");
	return (n);
}

/*
 * Wait, WAIT_MS naps of 1 ms at most, for fd to be in state with inq
 * and outq bytes queued (-1: any); a listener, inq connections waiting.
 */
static void
await(int fd, int state, int inq, int outq)
{
	struct tcp_info ti;

	for (int ms = 0; ms < WAIT_MS; ms++) {
		ti = tcp_info(fd);
		if ((state < 0 || ti.tcpi_state == state) && (inq < 0 ||
		    (state == TCP_LISTEN ? (int)ti.tcpi_unacked :
		    queue_of(fd, SIOCINQ)) == inq) && (outq < 0 ||
		    queue_of(fd, SIOCOUTQ) == outq))
			return;
		(void) usleep(1000);
	}
	errno = ETIMEDOUT;
	die("waiting for a socket's state");
}

static socklen_t
loopback(int family, int port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof (*ss));
	if (family == AF_INET6) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = in6addr_loopback;
		sin6->sin6_port = htons((uint16_t)port);
		return (sizeof (*sin6));
	}
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin->sin_port = htons((uint16_t)port);
	return (sizeof (*sin));
}

/* A TCP socket bound to the loopback address, any port; -1 on an error. */
static int
bound(int family)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(family, 0, &ss);
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&ss, len) != 0) {
		(void) close(fd);
		return (-1);
	}
	return (fd);
}

static int
port_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof (ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		die("getsockname");
	return (ntohs(ss.ss_family == AF_INET6 ?
	    ((struct sockaddr_in6 *)&ss)->sin6_port :
	    ((struct sockaddr_in *)&ss)->sin_port));
}

static int
listener(const char *name, int family, int backlog)
{
	char arg[16];
	int fd = bound(family);

	if (fd < 0 || listen(fd, backlog) != 0)
		die("listen");
	(void) snprintf(arg, sizeof (arg), "%d", backlog);
	say_sock(name, fd, "listen", arg);
	return (fd);
}

/* A client of the listener lfd (flags: SOCK_NONBLOCK, or 0). */
static int
client(int lfd, int flags)
{
	struct sockaddr_storage ss, mine;
	socklen_t len = sizeof (mine);
	int fd;

	if (getsockname(lfd, (struct sockaddr *)&mine, &len) != 0 ||
	    (fd = socket(mine.ss_family, SOCK_STREAM | SOCK_CLOEXEC | flags,
	    0)) < 0)
		die("client socket");
	len = loopback(mine.ss_family, port_of(lfd), &ss);
	if (flags != 0) {
		int n = 127;

		if (setsockopt(fd, IPPROTO_TCP, TCP_SYNCNT, &n,
		    sizeof (n)) != 0)
			die("TCP_SYNCNT");
	}
	if (connect(fd, (struct sockaddr *)&ss, len) != 0 &&
	    !(flags != 0 && errno == EINPROGRESS))
		die("connect");
	return (fd);
}

static void
put(const char *name, int fd, int n)
{
	char buf[1000];

	memset(buf, 'x', sizeof (buf));
	if (n > (int)sizeof (buf) || write(fd, buf, (size_t)n) != n)
		die("write");
	(void) printf("wrote %s %d %s\n", name, n, lo);
}

static void
shut(const char *name, int fd)
{
	if (shutdown(fd, SHUT_WR) != 0)
		die("shutdown");
	(void) printf("shut %s %s\n", name, lo);
}

/* A connection to lsnp, accepted: its ends "NAME.a" and "NAME.b". */
static void
pair(int lsnp, const char *name, int end[2])
{
	char a[16], b[16];

	end[0] = client(lsnp, 0);
	if ((end[1] = accept4(lsnp, NULL, NULL, SOCK_CLOEXEC)) < 0)
		die("accept");
	(void) snprintf(a, sizeof (a), "%s.a", name);
	(void) snprintf(b, sizeof (b), "%s.b", name);
	say_sock(a, end[0], "conn", b);
	say_sock(b, end[1], "conn", a);
}

/* lsn with two clients waiting; lsn0 full, and synsent's SYN dropped. */
static void
waiting(void)
{
	int lsn = listener("lsn", AF_INET, 7), lsn0, fd;

	say_sock("wait1", client(lsn, 0), "conn", "-");
	say_sock("wait2", client(lsn, 0), "conn", "-");
	await(lsn, TCP_LISTEN, 2, -1);
	(void) printf("pending lsn 2\n");
	lsn0 = listener("lsn0", AF_INET, 0);
	say_sock("wait0", client(lsn0, 0), "conn", "-");
	await(lsn0, TCP_LISTEN, 1, -1);
	(void) printf("pending lsn0 1\n");
	fd = client(lsn0, SOCK_NONBLOCK);
	say_sock("synsent", fd, "synsent", "-");
	await(fd, TCP_SYN_SENT, -1, -1);
	if ((fd = bound(AF_INET)) < 0)
		die("bind");
	say_sock("bound", fd, "bound", "-");
}

/* The pairs, with lo up: e, f, g (a shut down), i; k made. */
static void
pairs_up(int lsnp, int f[2], int g[2], int i[2], int k[2])
{
	int e[2];

	pair(lsnp, "e", e);
	put("e.a", e[0], 100);
	await(e[1], TCP_ESTABLISHED, 100, 0);
	await(e[0], TCP_ESTABLISHED, 0, 0);
	pair(lsnp, "f", f);
	put("f.a", f[0], 1000);
	put("f.b", f[1], 200);
	await(f[1], -1, 1000, 0);
	await(f[0], -1, 200, 0);
	shut("f.a", f[0]);
	await(f[0], TCP_FIN_WAIT2, -1, -1);
	await(f[1], TCP_CLOSE_WAIT, -1, -1);
	pair(lsnp, "g", g);
	put("g.a", g[0], 1000);
	await(g[1], -1, 1000, 0);
	await(g[0], -1, 0, 0);
	shut("g.a", g[0]);
	await(g[0], TCP_FIN_WAIT2, -1, -1);
	await(g[1], TCP_CLOSE_WAIT, -1, -1);
	pair(lsnp, "i", i);
	put("i.a", i[0], 50);
	await(i[1], -1, 50, 0);
	await(i[0], -1, 0, 0);
	pair(lsnp, "k", k);
}

/* e6 and its listener on ::1, where the namespace has IPv6. */
static void
pair6(void)
{
	int fd = bound(AF_INET6), e6[2];

	if (fd < 0) {
		(void) printf("nov6 %s\n", strerror(errno));
		return;
	}
	if (listen(fd, 4) != 0)
		die("listen ::1");
	say_sock("lsn6", fd, "listen", "4");
	pair(fd, "e6", e6);
	put("e6.a", e6[0], 37);
	await(e6[1], -1, 37, 0);
	await(e6[0], -1, 0, 0);
}

static void
unix_listener(void)
{
	struct sockaddr_un sun;
	socklen_t len;
	int l, c;

	memset(&sun, 0, sizeof (sun));
	sun.sun_family = AF_UNIX;
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    (size_t)snprintf(sun.sun_path + 1, sizeof (sun.sun_path) - 1,
	    "tcpstates.%d", (int)getpid()));
	if ((l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(l, (struct sockaddr *)&sun, len) != 0 || listen(l, 5) != 0)
		die("unix listener");
	if ((c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    connect(c, (struct sockaddr *)&sun, len) != 0)
		die("unix connect");
	say_sock("ulsn", l, "other", "unix-listen");
	say_sock("uc", c, "other", "unix-stream");
}

/* The sockets of other kinds, for the cross-check with ss. */
static void
others(void)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(AF_INET, 0, &ss);
	int us[2], ud[2], u, r;
	char buf[33];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, us) != 0 ||
	    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, ud) != 0)
		die("socketpair");
	say_sock("us.a", us[0], "other", "unix-stream");
	say_sock("us.b", us[1], "other", "unix-stream");
	put("us.a", us[0], 7);
	say_sock("ud.a", ud[0], "other", "unix-dgram");
	say_sock("ud.b", ud[1], "other", "unix-dgram");
	put("ud.a", ud[0], 11);
	unix_listener();
	if ((u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(u, (struct sockaddr *)&ss, len) != 0)
		die("udp");
	len = sizeof (ss);
	memset(buf, 'u', sizeof (buf));
	if (getsockname(u, (struct sockaddr *)&ss, &len) != 0 ||
	    sendto(u, buf, sizeof (buf), 0, (struct sockaddr *)&ss, len) !=
	    (ssize_t)sizeof (buf))
		die("udp sendto");
	say_sock("udp", u, "other", "udp");
	if ((r = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP)) < 0)
		die("raw");
	say_sock("raw", r, "other", "raw");
}

/* With lo down: g's b shuts down too, i's a too, k's a writes. */
static void
lo_down(const int g[2], const int i[2], const int k[2])
{
	lo_set(0);
	put("g.b", g[1], 300);
	shut("g.b", g[1]);
	put("i.a", i[0], 400);
	shut("i.a", i[0]);
	put("k.a", k[0], 77);
	await(g[1], TCP_LAST_ACK, -1, -1);
	await(i[0], TCP_FIN_WAIT1, -1, -1);
	/* What the lost packets' first retransmissions would change: none. */
	(void) usleep(300 * 1000);
}

/* The child: holds lsn and e's b end, nothing else, until its parent dies. */
static void
kid(int lsn, int eb, pid_t parent, int seconds)
{
	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	(void) prctl(PR_SET_NAME, "tcpstates-kid");
	for (int fd = 0; fd < 1024; fd++) {
		if (fd != lsn && fd != eb)
			(void) close(fd);
	}
	(void) alarm((unsigned)seconds + 10);
	for (;;)
		(void) pause();
}

/* lsn's socket at DUP_FD too, and a child holding lsn and e.b. */
static void
holders(int seconds)
{
	int lsn = -1, eb = -1, d;
	pid_t pid, me = getpid();

	for (int n = 0; n < nsocks; n++) {
		if (strcmp(socks[n].t_name, "lsn") == 0)
			lsn = socks[n].t_fd;
		if (strcmp(socks[n].t_name, "e.b") == 0)
			eb = socks[n].t_fd;
	}
	if ((d = fcntl(lsn, F_DUPFD_CLOEXEC, DUP_FD)) < 0)
		die("F_DUPFD");
	(void) fflush(stdout);
	if ((pid = fork()) < 0)
		die("fork");
	if (pid == 0)
		kid(lsn, eb, me, seconds);
	(void) printf("holder lsn %d %d\nholder lsn %d %d\nholder e.b %d %d\n",
	    (int)me, d, (int)pid, lsn, (int)pid, eb);
}

/* Every TCP socket as the kernel says it is now. */
static void
views(void)
{
	for (int n = 0; n < nsocks; n++) {
		struct tcp_info ti = tcp_info(socks[n].t_fd);

		if (socks[n].t_listen)
			(void) printf("view %s %u %u %u\n", socks[n].t_name,
			    ti.tcpi_state, ti.tcpi_unacked, ti.tcpi_sacked);
		else
			(void) printf("view %s %u %d %d\n", socks[n].t_name,
			    ti.tcpi_state, queue_of(socks[n].t_fd, SIOCINQ),
			    queue_of(socks[n].t_fd, SIOCOUTQ));
	}
}

int
main(int argc, char **argv)
{
	int seconds = 120, lsnp, f[2], g[2], i[2], k[2], opt;
	char c;

	while ((opt = getopt(argc, argv, "t:")) != -1) {
		if (opt != 't' || (seconds = atoi(optarg)) <= 0) {
			(void) fprintf(stderr, "usage: tcpstates_helper "
			    "[-t SECONDS]\n");
			return (2);
		}
	}
	(void) alarm((unsigned)seconds);
	(void) printf("pid %d\n", (int)getpid());
	if (unshare(CLONE_NEWNET) != 0) {
		(void) printf("skip cannot make a network namespace: %s\n"
		    "ready\n", strerror(errno));
		(void) fflush(stdout);
		while (read(0, &c, 1) > 0)
			continue;
		return (0);
	}
	lo_set(1);
	lsnp = listener("lsnp", AF_INET, 16);
	pairs_up(lsnp, f, g, i, k);
	waiting();
	pair6();
	others();
	lo_down(g, i, k);
	holders(seconds);
	views();
	(void) printf("ready\n");
	(void) fflush(stdout);
	while (read(0, &c, 1) > 0)
		continue;
	return (0);
}
