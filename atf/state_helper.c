/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * state_helper: a target for t_bpf's state cases, whose sockets hold
 * something, each in a state it has waited for.  It says on stdout, for
 * each, what the kernel's own calls on it say, then "ready", and waits
 * until its stdin is closed, or SECONDS (argv[1]) have passed:
 *
 *	sock FD FAMILY WHAT STATE QUEUES READ SEND
 *
 * FAMILY "inet" or "unix";
 * STATE the kernel's TCP state number (TCP_INFO's tcpi_state; a unix
 * socket's LISTEN 10, ESTABLISHED 1 with a peer, CLOSE 7 without) or 0
 * for a socket with queues alone; QUEUES "queued" or "backlog"; READ and
 * SEND what SIOCINQ and SIOCOUTQ say (a TCP listener's TCP_INFO
 * tcpi_unacked and tcpi_sacked; a unix listener's clients that the
 * helper connected and the backlog it asked listen(2) for; an inet
 * datagram socket's SO_MEMINFO read and write memory); and
 *
 *	groups FD W0 W1 ...	NETLINK_LIST_MEMBERSHIPS's words
 *	packet FD IFINDEX PROTO	getsockname's sll_ifindex and protocol
 *
 * The sockets: a TCP listener with two clients not accepted (and the
 * clients), an accepted connection with 1234 bytes not read, one whose
 * peer sent 77 bytes and its FIN (CLOSE_WAIT; the peer in FIN_WAIT2),
 * one closed by both ends (CLOSE) with 55 bytes and the FIN not read
 * (its peer, CLOSE too, with the FIN not read), a UDP socket with three
 * datagrams queued; a unix stream pair with 70
 * bytes of 100 not read, a unix listener with a client waiting, a
 * seqpacket pair with two messages, one with LONG_MSGS messages (more
 * than the bpf program sums), a datagram pair with two datagrams; a
 * netlink route socket in groups 1 and 33; a packet socket for ARP on
 * lo (left out without CAP_NET_RAW).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netpacket/packet.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>

#define	LONG_MSGS	100	/* more than the program's PFB_QWALK */
#define	SETTLE_MS	5000

static void
die(const char *what)
{
	(void) fprintf(stderr, "state_helper: %s: %s\n", what,
	    strerror(errno));
	exit(1);
}

static void
send_n(int s, size_t n)
{
	char buf[2048];

	memset(buf, 's', sizeof (buf));
	if (n > sizeof (buf) || send(s, buf, n, MSG_NOSIGNAL) != (ssize_t)n)
		die("send");
}

static int
ioc(int s, unsigned long req)
{
	int v = 0;

	if (ioctl(s, req, &v) != 0)
		die("ioctl");
	return (v);
}

static struct tcp_info
tcp_info(int s)
{
	struct tcp_info ti;
	socklen_t len = sizeof (ti);

	memset(&ti, 0, sizeof (ti));
	if (getsockopt(s, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0)
		die("TCP_INFO");
	return (ti);
}

static long
since_ms(const struct timespec *t0)
{
	struct timespec t;

	(void) clock_gettime(CLOCK_MONOTONIC, &t);
	return ((t.tv_sec - t0->tv_sec) * 1000 +
	    (t.tv_nsec - t0->tv_nsec) / 1000000);
}

/*
 * Until s has events (poll), and, with state, is in that TCP state with
 * nothing it sent left to be acknowledged.
 */
static void
settle(int s, short events, int state)
{
	struct pollfd pfd = { s, events, 0 };
	struct timespec t0;

	(void) clock_gettime(CLOCK_MONOTONIC, &t0);
	while (since_ms(&t0) < SETTLE_MS) {
		pfd.revents = 0;
		if (events != 0)
			(void) poll(&pfd, 1, 100);
		if ((pfd.revents & events) == events && (state == 0 ||
		    (tcp_info(s).tcpi_state == state &&
		    ioc(s, SIOCOUTQ) == 0)))
			return;
		(void) usleep(1000);
	}
	(void) fprintf(stderr, "state_helper: fd %d did not settle\n", s);
	exit(1);
}

/* A TCP socket, as TCP_INFO, SIOCINQ and SIOCOUTQ give it. */
static void
say_tcp(int s, const char *what)
{
	struct tcp_info ti = tcp_info(s);

	if (ti.tcpi_state == 10)
		(void) printf("sock %d inet %s 10 backlog %u %u\n", s, what,
		    ti.tcpi_unacked, ti.tcpi_sacked);
	else
		(void) printf("sock %d inet %s %u queued %d %d\n", s, what,
		    ti.tcpi_state, ioc(s, SIOCINQ), ioc(s, SIOCOUTQ));
}

/*
 * Connections to the listener l (at sin): n clients into c[], the first
 * naccept of them accepted into a[], the rest left waiting.
 */
static void
tcp_clients(int l, const struct sockaddr_in *sin, int *c, int n, int *a,
    int naccept)
{
	for (int i = 0; i < n; i++) {
		if ((c[i] = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
		    connect(c[i], (const struct sockaddr *)sin,
		    sizeof (*sin)) != 0)
			die("TCP connect");
		settle(l, POLLIN, 0);
		if (i < naccept && (a[i] = accept(l, NULL, NULL)) < 0)
			die("accept");
	}
	/* The clients not accepted, all in the accept queue. */
	for (int i = 0; i < SETTLE_MS &&
	    (int)tcp_info(l).tcpi_unacked != n - naccept; i++)
		(void) usleep(1000);
}

static void
make_tcp(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof (sin);
	int l, c[5], a[3];

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((l = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    bind(l, (struct sockaddr *)&sin, sizeof (sin)) != 0 ||
	    listen(l, 7) != 0 ||
	    getsockname(l, (struct sockaddr *)&sin, &len) != 0)
		die("TCP listener");
	tcp_clients(l, &sin, c, 5, a, 3);
	send_n(c[0], 1234);
	settle(a[0], POLLIN, 0);
	settle(c[0], 0, 1);
	send_n(c[1], 77);
	(void) shutdown(c[1], SHUT_WR);
	settle(a[1], POLLIN | POLLRDHUP, 8);
	settle(c[1], 0, 5);
	/* Both ends closed, the last with 55 bytes and the FIN not read. */
	send_n(c[2], 55);
	(void) shutdown(c[2], SHUT_WR);
	settle(a[2], POLLIN | POLLRDHUP, 8);
	(void) shutdown(a[2], SHUT_WR);
	settle(a[2], 0, 7);
	settle(c[2], 0, 7);
	say_tcp(l, "tcp-listener-2-waiting");
	say_tcp(a[0], "tcp-1234-unread");
	say_tcp(c[0], "tcp-1234-sent");
	say_tcp(a[1], "tcp-close-wait");
	say_tcp(c[1], "tcp-fin-wait2");
	say_tcp(a[2], "tcp-close-55-unread");
	say_tcp(c[2], "tcp-close-fin-unread");
	say_tcp(c[3], "tcp-not-accepted");
}

static void
make_udp(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof (sin);
	uint32_t mem[SK_MEMINFO_VARS];
	int r, s;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((r = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
	    bind(r, (struct sockaddr *)&sin, sizeof (sin)) != 0 ||
	    getsockname(r, (struct sockaddr *)&sin, &len) != 0 ||
	    (s = socket(AF_INET, SOCK_DGRAM, 0)) < 0)
		die("UDP");
	for (int i = 0; i < 3; i++)
		if (sendto(s, "datagram", 5 + (size_t)i, 0,
		    (struct sockaddr *)&sin, sizeof (sin)) != 5 + i)
			die("sendto");
	settle(r, POLLIN, 0);
	for (int k = 0; k < 2; k++) {
		len = sizeof (mem);
		if (getsockopt(k == 0 ? r : s, SOL_SOCKET, SO_MEMINFO, mem,
		    &len) != 0)
			die("SO_MEMINFO");
		(void) printf("sock %d inet %s 0 queued %u %u\n",
		    k == 0 ? r : s,
		    k == 0 ? "udp-3-queued" : "udp-sender",
		    mem[SK_MEMINFO_RMEM_ALLOC], mem[SK_MEMINFO_WMEM_ALLOC]);
	}
}

/* A unix socket, not listening, as SIOCINQ and SIOCOUTQ give it. */
static void
say_unix(int s, const char *what, int state)
{
	(void) printf("sock %d unix %s %d queued %d %d\n", s, what, state,
	    ioc(s, SIOCINQ), ioc(s, SIOCOUTQ));
}

static void
make_unix(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len;
	char buf[30];
	int sv[2], qv[2], lv[2], dv[2], l, c = -1;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET, 0, qv) != 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET, 0, lv) != 0 ||
	    socketpair(AF_UNIX, SOCK_DGRAM, 0, dv) != 0)
		die("socketpair");
	send_n(sv[0], 100);
	if (read(sv[1], buf, sizeof (buf)) != (ssize_t)sizeof (buf))
		die("read");
	send_n(qv[0], 10);
	send_n(qv[0], 20);
	for (int i = 0; i < LONG_MSGS; i++)
		send_n(lv[0], 3);
	send_n(dv[0], 55);
	send_n(dv[0], 66);
	(void) snprintf(sun.sun_path + 1, sizeof (sun.sun_path) - 1,
	    "state-helper-%d", (int)getpid());
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(sun.sun_path + 1));
	if ((l = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    bind(l, (struct sockaddr *)&sun, len) != 0 || listen(l, 5) != 0 ||
	    (c = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    connect(c, (struct sockaddr *)&sun, len) != 0)
		die("unix listener");
	say_unix(sv[1], "unix-70-unread", 1);
	say_unix(sv[0], "unix-sent", 1);
	say_unix(qv[1], "seqpacket-2-messages", 1);
	say_unix(lv[1], "seqpacket-many-messages", 1);
	say_unix(dv[1], "dgram-2-datagrams", 0);
	say_unix(dv[0], "dgram-sent", 0);
	(void) printf("sock %d unix unix-listener-1-waiting 10 backlog 1 5\n",
	    l);
	say_unix(c, "unix-not-accepted", 1);
}

static void
make_netlink_packet(void)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
	    .sll_protocol = htons(ETH_P_ARP) };
	socklen_t len = sizeof (sll);
	uint32_t w[8];
	int s, g = 33;

	if ((s = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE)) < 0 ||
	    bind(s, (struct sockaddr *)&nl, sizeof (nl)) != 0 ||
	    setsockopt(s, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g,
	    sizeof (g)) != 0)
		die("netlink");
	len = sizeof (w);
	if (getsockopt(s, SOL_NETLINK, NETLINK_LIST_MEMBERSHIPS, w, &len) != 0)
		die("NETLINK_LIST_MEMBERSHIPS");
	(void) printf("groups %d", s);
	for (size_t i = 0; i < len / 4 && i < 8; i++)
		(void) printf(" %u", w[i]);
	(void) printf("\n");
	if ((s = socket(AF_PACKET, SOCK_DGRAM, 0)) < 0)
		return;		/* no CAP_NET_RAW */
	sll.sll_ifindex = (int)if_nametoindex("lo");
	len = sizeof (sll);
	if (bind(s, (struct sockaddr *)&sll, sizeof (sll)) != 0 ||
	    getsockname(s, (struct sockaddr *)&sll, &len) != 0)
		die("packet");
	(void) printf("packet %d %d %u\n", s, sll.sll_ifindex,
	    ntohs(sll.sll_protocol));
}

static void
on_alarm(int sig)
{
	(void) sig;
	_exit(0);
}

int
main(int argc, char **argv)
{
	ssize_t n;
	char c;

	if (argc != 2 || atoi(argv[1]) <= 0) {
		(void) fprintf(stderr, "usage: state_helper SECONDS\n");
		return (2);
	}
	(void) signal(SIGALRM, on_alarm);
	(void) signal(SIGPIPE, SIG_IGN);
	(void) alarm((unsigned)atoi(argv[1]));
	make_tcp();
	make_udp();
	make_unix();
	make_netlink_packet();
	(void) printf("ready\n");
	(void) fflush(stdout);
	while ((n = read(0, &c, 1)) > 0 || (n < 0 && errno == EINTR))
		;
	return (0);
}
