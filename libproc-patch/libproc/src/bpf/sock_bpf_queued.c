/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_bpf_queued.c: the sockets of the bpf source's load-time check
 * (sock_bpf_check.c) that hold something: bytes and datagrams not read,
 * a FIN received, connections not accepted, netlink groups past the
 * first 32.  Each is made in a state the check knows, and what it must
 * show is said with it (bpf_ckwant_t): the program's state line and
 * groups must be those, whatever the calls the pidfd source makes give
 * (a unix listener's backlog is not a call's answer).  A socket whose
 * state does not settle within a bound (a TCP acknowledgement not yet
 * seen on a loaded machine) is closed and not checked, never checked in
 * a state that may change while it is read.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "src/bpf/sock_bpf.h"

/* The longest wait for the sockets' states to settle, and each nap. */
#define	SETTLE_US	200000
#define	SETTLE_NAP_US	200

/* The bytes and datagrams queued: sizes no two of which are equal. */
#define	Q_STREAM_SENT	100
#define	Q_STREAM_READ	30
#define	Q_SEQ_A		10
#define	Q_SEQ_B		20
#define	Q_DGRAM_A	55
#define	Q_DGRAM_B	66
#define	Q_TCP		1234
#define	Q_TCP_FIN	77
#define	Q_BACKLOG	3

typedef struct made {
	bpf_ck_add_f	*m_add;
	void		*m_arg;
} made_t;

/*
 * fd, as what, must show its state (0: queues alone) and queues, a
 * listener's its backlog: rd and snd (-1: any value).
 */
static void
want(const made_t *m, int fd, const char *what, int state, int64_t rd,
    int64_t snd)
{
	bpf_ckwant_t w;

	memset(&w, 0, sizeof (w));
	w.w_state = state;
	w.w_queues = state == PR_SS_LISTEN ? PR_SSQ_BACKLOG : PR_SSQ_QUEUED;
	w.w_read = rd;
	w.w_send = snd;
	m->m_add(m->m_arg, fd, what, &w);
}

static void
close2(int a, int b)
{
	(void) close(a);
	(void) close(b);
}

/* n bytes of 'q' on s: 1 when all were sent. */
static int
send_n(int s, size_t n)
{
	char buf[Q_TCP];

	memset(buf, 'q', sizeof (buf));
	return (n <= sizeof (buf) && send(s, buf, n, MSG_NOSIGNAL) ==
	    (ssize_t)n);
}

/*
 * Unix sockets: a stream's 100 bytes of which 30 were read (the rest of a
 * partly read skb), a seqpacket's two messages (summed), a datagram
 * socket's two datagrams (the first one's length), a seqpacket listener
 * with a client not accepted.
 */
static void
make_unix_queued(const made_t *m)
{
	struct sockaddr_un sun;
	socklen_t len;
	char buf[Q_STREAM_READ];
	int sv[2], l, c;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0) {
		if (send_n(sv[0], Q_STREAM_SENT) && read(sv[1], buf,
		    sizeof (buf)) == (ssize_t)sizeof (buf)) {
			want(m, sv[1], "AF_UNIX stream, partly read",
			    PR_SS_ESTABLISHED, Q_STREAM_SENT - Q_STREAM_READ, 0);
			want(m, sv[0], "AF_UNIX stream, sent", PR_SS_ESTABLISHED,
			    0, -1);
		} else {
			close2(sv[0], sv[1]);
		}
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0) {
		if (send_n(sv[0], Q_SEQ_A) && send_n(sv[0], Q_SEQ_B)) {
			want(m, sv[1], "AF_UNIX seqpacket, two messages",
			    PR_SS_ESTABLISHED, Q_SEQ_A + Q_SEQ_B, 0);
			want(m, sv[0], "AF_UNIX seqpacket, sent",
			    PR_SS_ESTABLISHED, 0, -1);
		} else {
			close2(sv[0], sv[1]);
		}
	}
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) == 0) {
		if (send_n(sv[0], Q_DGRAM_A) && send_n(sv[0], Q_DGRAM_B)) {
			want(m, sv[1], "AF_UNIX datagram, two datagrams", 0,
			    Q_DGRAM_A, 0);
			want(m, sv[0], "AF_UNIX datagram, sent", 0, 0, -1);
		} else {
			close2(sv[0], sv[1]);
		}
	}
	memset(&sun, 0, sizeof (sun));
	sun.sun_family = AF_UNIX;
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    (size_t)snprintf(sun.sun_path + 1, sizeof (sun.sun_path) - 1,
	    "pfiles-check-%d-q", (int)getpid()));
	if ((l = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) < 0)
		return;
	if (bind(l, (struct sockaddr *)&sun, len) != 0 ||
	    listen(l, Q_BACKLOG) != 0 || (c = socket(AF_UNIX, SOCK_SEQPACKET |
	    SOCK_CLOEXEC, 0)) < 0) {
		(void) close(l);
		return;
	}
	if (connect(c, (struct sockaddr *)&sun, len) != 0) {
		close2(l, c);
		return;
	}
	want(m, l, "AF_UNIX seqpacket listener, one waiting", PR_SS_LISTEN, 1,
	    Q_BACKLOG);
	want(m, c, "AF_UNIX seqpacket, not accepted", PR_SS_ESTABLISHED, 0,
	    -1);
}

/*
 * Has s settled: events on it (poll), and, with acked, nothing it sent
 * left to be acknowledged (SIOCOUTQ 0)?  Naps until it has, taking each
 * nap from *budget (microseconds), 0 when that runs out first.
 */
static int
settled(int s, short events, int acked, int *budget)
{
	struct pollfd pfd = { s, events, 0 };
	int outq;

	for (;;) {
		pfd.revents = 0;
		if (events != 0)
			(void) poll(&pfd, 1, 0);
		if ((pfd.revents & events) == events && (!acked ||
		    (ioctl(s, SIOCOUTQ, &outq) == 0 && outq == 0)))
			return (1);
		if (*budget <= 0)
			return (0);
		(void) usleep(SETTLE_NAP_US);
		*budget -= SETTLE_NAP_US;
	}
}

/* A TCP client connected to sin: its fd, or -1. */
static int
tcp_client(const struct sockaddr_in *sin)
{
	int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (c >= 0 && connect(c, (const struct sockaddr *)sin,
	    sizeof (*sin)) != 0) {
		(void) close(c);
		c = -1;
	}
	return (c);
}

/*
 * TCP on the loopback address: an accepted connection with 1234 bytes
 * not read, one whose peer sent 77 bytes and its FIN (CLOSE_WAIT, the FIN
 * not counted), and a listener with a client not accepted; each once
 * what was sent is in, and acknowledged.
 */
static void
make_tcp_queued(const made_t *m)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof (sin);
	int l, c, a, c2, a2, c3, budget = SETTLE_US;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return;
	if (bind(l, (struct sockaddr *)&sin, sizeof (sin)) != 0 ||
	    listen(l, Q_BACKLOG) != 0 ||
	    getsockname(l, (struct sockaddr *)&sin, &len) != 0 ||
	    (c = tcp_client(&sin)) < 0) {
		(void) close(l);
		return;
	}
	if ((a = accept4(l, NULL, NULL, SOCK_CLOEXEC)) >= 0 &&
	    send_n(c, Q_TCP) && settled(a, POLLIN, 0, &budget) &&
	    settled(c, 0, 1, &budget)) {
		want(m, a, "AF_INET TCP, bytes not read", PR_SS_ESTABLISHED,
		    Q_TCP, 0);
		want(m, c, "AF_INET TCP, bytes sent", PR_SS_ESTABLISHED, 0, 0);
	} else {
		close2(a, c);
	}
	if ((c2 = tcp_client(&sin)) >= 0 &&
	    (a2 = accept4(l, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		/*
		 * The peer is not checked: the FIN's acknowledgement is
		 * delayed (CLOSE_WAIT is in pingpong mode), its state
		 * would change while it is read.
		 */
		if (send_n(c2, Q_TCP_FIN) && shutdown(c2, SHUT_WR) == 0 &&
		    settled(a2, POLLIN | POLLRDHUP, 0, &budget))
			want(m, a2, "AF_INET TCP, a FIN received",
			    PR_SS_CLOSE_WAIT, Q_TCP_FIN, 0);
		else
			(void) close(a2);
		(void) close(c2);
	} else if (c2 >= 0) {
		(void) close(c2);
	}
	if ((c3 = tcp_client(&sin)) >= 0 && settled(l, POLLIN, 0, &budget)) {
		want(m, l, "AF_INET TCP listener, one waiting", PR_SS_LISTEN,
		    1, Q_BACKLOG);
		want(m, c3, "AF_INET TCP, not accepted", PR_SS_ESTABLISHED, 0, 0);
	} else {
		close2(l, c3);
	}
}

/*
 * A UDP socket with a datagram to read (its memory, which only the calls
 * can tell: any value here), and the socket that sent it.
 */
static void
make_udp_queued(const made_t *m)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof (sin);
	int r, s, budget = SETTLE_US;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((r = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return;
	if (bind(r, (struct sockaddr *)&sin, sizeof (sin)) != 0 ||
	    getsockname(r, (struct sockaddr *)&sin, &len) != 0 ||
	    (s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) {
		(void) close(r);
		return;
	}
	if (sendto(s, "datagram", 8, 0, (struct sockaddr *)&sin,
	    sizeof (sin)) == 8 && settled(r, POLLIN, 0, &budget)) {
		want(m, r, "AF_INET UDP, a datagram to read", 0, -1, 0);
		want(m, s, "AF_INET UDP, a datagram sent", 0, 0, 0);
	} else {
		close2(r, s);
	}
}

/* A netlink route socket in groups 1 and 33 (words 0x1 and 0x1). */
static void
make_netlink_groups(const made_t *m)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	int g = 33;
	bpf_ckwant_t w;

	if (s < 0)
		return;
	if (bind(s, (struct sockaddr *)&nl, sizeof (nl)) != 0 ||
	    setsockopt(s, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g,
	    sizeof (g)) != 0) {
		(void) close(s);
		return;
	}
	memset(&w, 0, sizeof (w));
	w.w_state = -1;
	w.w_groups[0] = 1;
	w.w_groups[1] = 1;
	w.w_ngroups = 2;
	m->m_add(m->m_arg, s, "AF_NETLINK route, groups 1 and 33", &w);
}

void
bpf_check_make_queued(bpf_ck_add_f *add, void *arg)
{
	made_t m = { add, arg };

	make_unix_queued(&m);
	make_tcp_queued(&m);
	make_udp_queued(&m);
	make_netlink_groups(&m);
}

const char *
bpf_check_want(const bpfrec_t *br, unsigned int hz, const bpf_ckwant_t *w)
{
	fdrec_t prog = { NULL, 0 };
	const void *v;
	prsockstate_t st;
	sockfacts_t sf;
	const char *bad = NULL;
	size_t len;

	if (fdrec_reset(&prog, br->br_fd) != 0)
		return (strerror(errno));
	bpf_sockfacts(br, hz, &sf);
	sockrec_add(&prog, &sf);
	v = proc_fdinfo_misc(fdrec_info(&prog), PR_SOCKSTATE, &len);
	if (w->w_state >= 0) {
		if (v == NULL || len != sizeof (st)) {
			bad = "state and queues missing";
		} else {
			memcpy(&st, v, sizeof (st));
			if (st.pr_state != w->w_state)
				bad = "the state";
			else if (st.pr_queues != w->w_queues ||
			    (w->w_read >= 0 && st.pr_read != w->w_read) ||
			    (w->w_send >= 0 && st.pr_send != w->w_send))
				bad = "the queues";
		}
	}
	v = proc_fdinfo_misc(fdrec_info(&prog), PR_NLGROUPS, &len);
	if (bad == NULL && w->w_ngroups > 0 && (v == NULL ||
	    len != w->w_ngroups * sizeof (w->w_groups[0]) ||
	    memcmp(v, w->w_groups, len) != 0))
		bad = "the netlink groups";
	fdrec_free(&prog);
	return (bad);
}
