/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nl_victim: a program with known numbers of netlink sends and receives,
 * for t_preadcount's netlink cases.  Built twice (preadcount/Makefile.inc):
 * plainly, and with -O2 -D_FORTIFY_SOURCE=2, which makes gcc call recv and
 * recvfrom through __recv_chk and __recvfrom_chk (every receive below is
 * into a local array with a length the compiler cannot know, sz()).
 *
 * Usage: nl_victim
 *
 * Its plan, call by call (t_preadcount's netlink_expect() is written from
 * this list, not from a run):
 *
 *	two NETLINK_USERSOCK sockets, A connected to B:
 *	  A: send of 10 bytes, twice; sendto B of 11; sendmsg of 12
 *	  B: recv of the 10, twice; recvfrom of the 11; recvmsg of the 12;
 *	     one more recv (MSG_DONTWAIT) that fails with EAGAIN
 *	a NETLINK_SOCK_DIAG socket:
 *	  sendto the kernel of one SOCK_DIAG_BY_FAMILY request for a family
 *	  that does not exist, which the kernel answers with one NLMSG_ERROR;
 *	  recvmsg of that answer; one more recv (MSG_DONTWAIT) that fails
 *	  with EAGAIN, as there is no second answer
 *	none of these is counted (not netlink):
 *	  on a unix datagram socketpair, send, sendto, sendmsg, recv,
 *	  recvfrom, recvmsg of 5 bytes each; send and recv on a closed fd
 *
 * It reports on stdout, as "KEY VALUE" lines written with raw system calls
 * (never counted), what the test cannot know in advance: the sizes of the
 * request it sent to the kernel and of the answer.  errno must be kept by
 * every call, counted or not.  Any surprise is said on stderr and ends it
 * with status 2.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include <errno.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define	BADFD	901	/* an fd the victim keeps closed */

static volatile size_t vzero;

/* N, in a way the compiler cannot fold. */
static size_t
sz(size_t n)
{
	return (n + vzero);
}

static void
sayf(const char *key, long long value)
{
	char line[96];
	int n = snprintf(line, sizeof (line), "%s %lld\n", key, value);

	(void) syscall(SYS_write, 1, line, (size_t)n);
}

static _Noreturn void
die(const char *what, long long got)
{
	char line[256];
	int n = snprintf(line, sizeof (line), "nl_victim: %s (got %lld, "
	    "errno %d)\n", what, got, errno);

	(void) syscall(SYS_write, 2, line, (size_t)n);
	exit(2);
}

static void
expect(long long got, long long want, const char *what)
{
	if (got != want)
		die(what, got);
}

/* A netlink socket of PROTO, bound; its address in *SA. */
static int
nl_socket(int proto, struct sockaddr_nl *sa)
{
	socklen_t len = sizeof (*sa);
	int s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, proto);

	if (s < 0)
		die("socket(AF_NETLINK)", s);
	memset(sa, 0, sizeof (*sa));
	sa->nl_family = AF_NETLINK;
	if (bind(s, (struct sockaddr *)sa, sizeof (*sa)) != 0 ||
	    getsockname(s, (struct sockaddr *)sa, &len) != 0 ||
	    sa->nl_pid == 0)
		die("bind or getsockname of a netlink socket", -1);
	return (s);
}

/* A to B over NETLINK_USERSOCK: every counted entry, with known bytes. */
static void
plan_usersock(void)
{
	static const char msg[] = "0123456789abcdef";
	struct sockaddr_nl sa, sb, from;
	socklen_t fromlen = sizeof (from);
	char buf[64];
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = 12 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int a = nl_socket(NETLINK_USERSOCK, &sa);
	int b = nl_socket(NETLINK_USERSOCK, &sb);

	if (connect(a, (struct sockaddr *)&sb, sizeof (sb)) != 0)
		die("connect A to B", -1);
	errno = 4242;
	expect(send(a, msg, 10, 0), 10, "send 1");
	expect(errno, 4242, "errno kept by a counted send");
	expect(send(a, msg, 10, 0), 10, "send 2");
	expect(sendto(a, msg, 11, 0, (struct sockaddr *)&sb, sizeof (sb)), 11,
	    "sendto");
	expect(sendmsg(a, &mh, 0), 12, "sendmsg");

	errno = 4243;
	expect(recv(b, buf, sz(sizeof (buf)), 0), 10, "recv 1");
	expect(errno, 4243, "errno kept by a counted recv");
	expect(recv(b, buf, sz(sizeof (buf)), 0), 10, "recv 2");
	expect(recvfrom(b, buf, sz(sizeof (buf)), 0, (struct sockaddr *)&from,
	    &fromlen), 11, "recvfrom");
	expect(from.nl_pid, sa.nl_pid, "recvfrom: the sender");
	iov.iov_base = buf;
	iov.iov_len = sizeof (buf);
	expect(recvmsg(b, &mh, 0), 12, "recvmsg");
	errno = 0;
	expect(recv(b, buf, sz(sizeof (buf)), MSG_DONTWAIT), -1,
	    "recv of nothing");
	expect(errno, EAGAIN, "errno kept by a failed recv");
	(void) close(a);
	(void) close(b);
}

/* One request to the kernel's NETLINK_SOCK_DIAG, one answer. */
static void
plan_sock_diag(void)
{
	struct {
		struct nlmsghdr		nh;
		struct sock_diag_req	req;
	} rq;
	struct sockaddr_nl self, kernel = { .nl_family = AF_NETLINK };
	char buf[8192];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof (buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	const struct nlmsghdr *ans = (const struct nlmsghdr *)buf;
	const struct nlmsgerr *e;
	int s = nl_socket(NETLINK_SOCK_DIAG, &self);
	ssize_t n;

	memset(&rq, 0, sizeof (rq));
	rq.nh.nlmsg_len = NLMSG_LENGTH(sizeof (rq.req));
	rq.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	rq.nh.nlmsg_flags = NLM_F_REQUEST;
	rq.nh.nlmsg_seq = 77;
	rq.req.sdiag_family = 255;	/* >= AF_MAX: EINVAL, one answer */
	expect(sendto(s, &rq, rq.nh.nlmsg_len, 0, (struct sockaddr *)&kernel,
	    sizeof (kernel)), rq.nh.nlmsg_len, "sendto the kernel");
	sayf("diagreq", (long long)rq.nh.nlmsg_len);
	n = recvmsg(s, &mh, 0);
	if (n < (ssize_t)NLMSG_LENGTH(sizeof (*e)) ||
	    ans->nlmsg_type != NLMSG_ERROR || ans->nlmsg_seq != 77)
		die("the kernel's answer: not one NLMSG_ERROR", n);
	e = NLMSG_DATA(ans);
	expect(e->error, -EINVAL, "the kernel's answer: its error");
	sayf("diagans", (long long)n);
	/* Nothing more: the answer was one datagram. */
	expect(recv(s, buf, sz(sizeof (buf)), MSG_DONTWAIT), -1,
	    "a second answer");
	(void) close(s);
}

/* Sends and receives that are not netlink's: none is counted. */
static void
plan_not_netlink(void)
{
	char buf[64];
	struct iovec iov = { .iov_base = buf, .iov_len = 5 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int p[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, p) != 0)
		die("socketpair", -1);
	memset(buf, 'u', sizeof (buf));
	expect(send(p[0], buf, 5, 0), 5, "unix send");
	expect(sendto(p[0], buf, 5, 0, NULL, 0), 5, "unix sendto");
	expect(sendmsg(p[0], &mh, 0), 5, "unix sendmsg");
	expect(recv(p[1], buf, sz(sizeof (buf)), 0), 5, "unix recv");
	expect(recvfrom(p[1], buf, sz(sizeof (buf)), 0, NULL, NULL), 5,
	    "unix recvfrom");
	expect(recvmsg(p[1], &mh, 0), 5, "unix recvmsg");
	(void) close(p[0]);
	(void) close(p[1]);

	(void) close(BADFD);
	errno = 0;
	expect(send(BADFD, buf, 5, 0), -1, "send on a closed fd");
	expect(errno, EBADF, "errno kept by a send on a closed fd");
	errno = 0;
	expect(recv(BADFD, buf, sz(sizeof (buf)), 0), -1,
	    "recv on a closed fd");
	expect(errno, EBADF, "errno kept by a recv on a closed fd");
}

int
main(int argc, char **argv)
{
	if (argc != 1) {
		(void) fprintf(stderr, "usage: nl_victim\n");
		return (2);
	}
	(void) argv;
	plan_usersock();
	plan_sock_diag();
	plan_not_netlink();
	return (0);
}
