/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_sockstate_local: a socket's state, queues and netlink groups as the
 * sources that ask the socket itself find them (sock/sock_state.c):
 * sock_local_facts(), which the pidfd source and the agent's passing
 * share; the pidfd source, with the walk's socket tables and without;
 * the agent passing the sockets; and the agent's batch in a target under
 * a seccomp filter (a target that is never asked to pass them).
 *
 * The test makes its sockets itself, and a child it forks holds them too
 * (the very same sockets, by the same fd numbers).  What each must show
 * is what the test did -- the connections it made and did not accept,
 * the backlog it gave, the bytes it wrote, the shutdown, the groups it
 * joined -- or, where the kernel's figure is memory and not bytes (a
 * unix socket's send queue, a UDP socket's queues), the test's own
 * SIOCOUTQ or SO_MEMINFO of the same socket.  The loopback's packets are
 * waited for (bounded) until the test's own view has settled.
 *
 * A unix listener's backlog is known only from the socket tables: asked
 * of the socket alone (sock_local_facts, the agent) it must be unknown;
 * with the tables, it must be right where it is given.
 *
 * agent_batch_refused: a target whose seccomp filter would kill it for
 * an ioctl: the agent's batch is refused whole before it runs, and made
 * again without the state's calls; the target lives, the other facts
 * stand, and the state and queues are a gap, with why.
 *
 * take_rules: sock_state.c's rules on made-up answers, as a target's
 * kernel might give them: a longer netlink group list than its room, a
 * TCP_INFO too short, answers that do not apply to the socket.
 */
#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libproc.h"
#include "sock/socksrc.h"
#include "testutil.h"

#define	SETTLE_MS	5000	/* the loopback's packets, at most */
#define	HOLD_SECONDS	120	/* a holder left behind exits by itself */
#define	NBACKLOG	5	/* listeners of backlog 1..NBACKLOG */
#define	TCP_BYTES	1000	/* written, not read */
#define	HALF_BYTES	10	/* written before the shutdown */
#define	UNIX_BYTES	123
#define	DGRAM_BYTES	55
#define	NDGRAMS		3
#define	NL_GROUP	33	/* a group past the first 32 */
#define	MAXEXP		64

/* Queues known only from the socket tables (a unix listener's). */
#define	EX_TABLE_QUEUES	0x1

/* What one socket must show. */
typedef struct expect {
	int		e_fd;
	const char	*e_what;
	int		e_state;	/* PR_SS_*, 0: queues alone */
	uint_t		e_queues;	/* PR_SSQ_* */
	uint32_t	e_rq, e_wq;
	int		e_flags;
} expect_t;

/* The sockets the test made, and what each must show. */
typedef struct fixture {
	expect_t	f_exp[MAXEXP];
	int		f_nexp;
	int		f_nl;		/* the netlink socket */
	uint32_t	f_groups[2];	/* its group words, as joined */
	int		f_packet;	/* a packet socket, or -1 */
} fixture_t;

static expect_t *
expect(fixture_t *f, int fd, const char *what, int state, uint_t queues)
{
	expect_t *e;

	ATF_REQUIRE(f->f_nexp < MAXEXP);
	e = &f->f_exp[f->f_nexp++];
	memset(e, 0, sizeof (*e));
	e->e_fd = fd;
	e->e_what = what;
	e->e_state = state;
	e->e_queues = queues;
	return (e);
}

static long long
now_ms(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/* The test's own TCP_INFO of s. */
static struct tcp_info
own_tcpinfo(int s)
{
	struct tcp_info ti;
	socklen_t len = sizeof (ti);

	memset(&ti, 0, sizeof (ti));
	ATF_REQUIRE(getsockopt(s, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0);
	return (ti);
}

static int
own_ioctl(int s, unsigned long req)
{
	int v = -1;

	ATF_REQUIRE_MSG(ioctl(s, req, &v) == 0, "ioctl: %s", strerror(errno));
	return (v);
}

/* Wait (bounded) until s's own state is want. */
static void
settle_state(int s, int want)
{
	long long until = now_ms() + SETTLE_MS * tu_time_scale();

	while (own_tcpinfo(s).tcpi_state != want && now_ms() < until)
		(void) usleep(1000);
	ATF_REQUIRE_EQ_MSG(own_tcpinfo(s).tcpi_state, want, "fd %d: state "
	    "%d, not %d", s, own_tcpinfo(s).tcpi_state, want);
}

/* Wait (bounded) until s's own SIOCOUTQ (req) is want. */
static void
settle_queue(int s, unsigned long req, int want)
{
	long long until = now_ms() + SETTLE_MS * tu_time_scale();

	while (own_ioctl(s, req) != want && now_ms() < until)
		(void) usleep(1000);
	ATF_REQUIRE_EQ(own_ioctl(s, req), want);
}

static int
tcp_listener(int backlog, struct sockaddr_in *sin)
{
	socklen_t len = sizeof (*sin);
	int s;

	memset(sin, 0, sizeof (*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ATF_REQUIRE((s = socket(AF_INET, SOCK_STREAM, 0)) >= 0);
	ATF_REQUIRE(bind(s, (struct sockaddr *)sin, sizeof (*sin)) == 0);
	ATF_REQUIRE(listen(s, backlog) == 0);
	ATF_REQUIRE(getsockname(s, (struct sockaddr *)sin, &len) == 0);
	return (s);
}

static int
tcp_client(const struct sockaddr_in *sin)
{
	int s;

	ATF_REQUIRE((s = socket(AF_INET, SOCK_STREAM, 0)) >= 0);
	ATF_REQUIRE_MSG(connect(s, (const struct sockaddr *)sin,
	    sizeof (*sin)) == 0, "connect: %s", strerror(errno));
	return (s);
}

static void
write_all(int s, size_t n)
{
	char buf[2048];

	ATF_REQUIRE(n <= sizeof (buf));
	memset(buf, 'x', n);
	ATF_REQUIRE_EQ(write(s, buf, n), (ssize_t)n);
}

/* Listeners of backlog 1..NBACKLOG, each with 2 clients not accepted. */
static void
make_backlogs(fixture_t *f)
{
	for (int b = 1; b <= NBACKLOG; b++) {
		struct sockaddr_in sin;
		int l = tcp_listener(b, &sin);
		expect_t *e;

		for (int k = 0; k < 2; k++)
			(void) expect(f, tcp_client(&sin), "tcp client of a "
			    "backlog", PR_SS_ESTABLISHED, PR_SSQ_QUEUED);
		{
			long long until = now_ms() + SETTLE_MS *
			    tu_time_scale();

			while (own_tcpinfo(l).tcpi_unacked != 2 &&
			    now_ms() < until)
				(void) usleep(1000);
		}
		e = expect(f, l, "tcp listener", PR_SS_LISTEN,
		    PR_SSQ_BACKLOG);
		e->e_rq = 2;
		e->e_wq = (uint32_t)b;
	}
}

/*
 * A connection with TCP_BYTES written and not read; one whose peer
 * wrote HALF_BYTES and shut down its writing (CLOSE_WAIT here,
 * FIN_WAIT2 there); their listener, with nothing waiting.
 */
static void
make_connections(fixture_t *f)
{
	struct sockaddr_in sin;
	int l = tcp_listener(NBACKLOG, &sin), w, r, c, a;
	expect_t *e;

	w = tcp_client(&sin);
	ATF_REQUIRE((r = accept(l, NULL, NULL)) >= 0);
	c = tcp_client(&sin);
	ATF_REQUIRE((a = accept(l, NULL, NULL)) >= 0);
	write_all(w, TCP_BYTES);
	write_all(c, HALF_BYTES);
	ATF_REQUIRE(shutdown(c, SHUT_WR) == 0);
	settle_queue(w, SIOCOUTQ, 0);
	settle_queue(r, SIOCINQ, TCP_BYTES);
	settle_state(a, TCP_CLOSE_WAIT);
	settle_state(c, TCP_FIN_WAIT2);
	expect(f, l, "tcp listener, all accepted", PR_SS_LISTEN,
	    PR_SSQ_BACKLOG)->e_wq = NBACKLOG;
	(void) expect(f, w, "tcp writer", PR_SS_ESTABLISHED, PR_SSQ_QUEUED);
	e = expect(f, r, "tcp reader", PR_SS_ESTABLISHED, PR_SSQ_QUEUED);
	e->e_rq = TCP_BYTES;
	(void) expect(f, c, "tcp shut down", PR_SS_FIN_WAIT2, PR_SSQ_QUEUED);
	/* SIOCINQ counts no FIN. */
	e = expect(f, a, "tcp close-wait", PR_SS_CLOSE_WAIT, PR_SSQ_QUEUED);
	e->e_rq = HALF_BYTES;
}

/* The test's own SO_MEMINFO of s: receive and send memory. */
static void
own_meminfo(int s, uint32_t *rmem, uint32_t *wmem)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof (mem);

	ATF_REQUIRE(getsockopt(s, SOL_SOCKET, SO_MEMINFO, mem, &len) == 0);
	ATF_REQUIRE(len > SK_MEMINFO_WMEM_ALLOC * sizeof (uint32_t));
	*rmem = mem[SK_MEMINFO_RMEM_ALLOC];
	*wmem = mem[SK_MEMINFO_WMEM_ALLOC];
}

/* A UDP socket with NDGRAMS datagrams queued, and their sender. */
static void
make_udp(fixture_t *f)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof (sin);
	int u, snd;
	expect_t *e;

	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ATF_REQUIRE((u = socket(AF_INET, SOCK_DGRAM, 0)) >= 0);
	ATF_REQUIRE(bind(u, (struct sockaddr *)&sin, sizeof (sin)) == 0);
	ATF_REQUIRE(getsockname(u, (struct sockaddr *)&sin, &len) == 0);
	ATF_REQUIRE((snd = socket(AF_INET, SOCK_DGRAM, 0)) >= 0);
	for (int i = 0; i < NDGRAMS; i++) {
		char d[DGRAM_BYTES];

		memset(d, 'd', sizeof (d));
		ATF_REQUIRE(sendto(snd, d, sizeof (d), 0,
		    (struct sockaddr *)&sin, sizeof (sin)) == sizeof (d));
	}
	settle_queue(snd, SIOCOUTQ, 0);
	e = expect(f, u, "udp, datagrams queued", 0, PR_SSQ_QUEUED);
	own_meminfo(u, &e->e_rq, &e->e_wq);
	ATF_REQUIRE_MSG(e->e_rq >= NDGRAMS * DGRAM_BYTES, "receive memory "
	    "%u for %d datagrams", e->e_rq, NDGRAMS);
	e = expect(f, snd, "udp sender", 0, PR_SSQ_QUEUED);
	own_meminfo(snd, &e->e_rq, &e->e_wq);
}

/*
 * A unix listener with one client not accepted; a stream pair with
 * UNIX_BYTES unread; a datagram pair with one datagram unread.  The
 * sending ends' queues are memory: the test's own SIOCOUTQ.
 */
static void
make_unix(fixture_t *f)
{
	struct sockaddr_un sun;
	socklen_t len;
	int l, cl, sp[2], dg[2];
	expect_t *e;

	memset(&sun, 0, sizeof (sun));
	sun.sun_family = AF_UNIX;
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    (size_t)snprintf(sun.sun_path + 1, sizeof (sun.sun_path) - 1,
	    "t_sockstate_local.%d", (int)getpid()));
	ATF_REQUIRE((l = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0);
	ATF_REQUIRE(bind(l, (struct sockaddr *)&sun, len) == 0);
	ATF_REQUIRE(listen(l, 4) == 0);
	ATF_REQUIRE((cl = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0);
	ATF_REQUIRE(connect(cl, (struct sockaddr *)&sun, len) == 0);
	e = expect(f, l, "unix listener", PR_SS_LISTEN, PR_SSQ_BACKLOG);
	e->e_rq = 1;
	e->e_wq = 4;
	e->e_flags = EX_TABLE_QUEUES;
	e = expect(f, cl, "unix client", PR_SS_ESTABLISHED, PR_SSQ_QUEUED);
	e->e_wq = (uint32_t)own_ioctl(cl, SIOCOUTQ);

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0);
	write_all(sp[0], UNIX_BYTES);
	e = expect(f, sp[0], "unix writer", PR_SS_ESTABLISHED, PR_SSQ_QUEUED);
	e->e_wq = (uint32_t)own_ioctl(sp[0], SIOCOUTQ);
	ATF_REQUIRE(e->e_wq > 0);
	e = expect(f, sp[1], "unix reader", PR_SS_ESTABLISHED, PR_SSQ_QUEUED);
	e->e_rq = UNIX_BYTES;

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_DGRAM, 0, dg) == 0);
	write_all(dg[0], DGRAM_BYTES);
	e = expect(f, dg[0], "unix datagram writer", 0, PR_SSQ_QUEUED);
	e->e_wq = (uint32_t)own_ioctl(dg[0], SIOCOUTQ);
	e = expect(f, dg[1], "unix datagram reader", 0, PR_SSQ_QUEUED);
	e->e_rq = DGRAM_BYTES;
	/* unconnected: neither listening nor with a peer */
	ATF_REQUIRE((l = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0);
	(void) expect(f, l, "unix unconnected", PR_SS_CLOSE, PR_SSQ_QUEUED);
}

/* A netlink socket in group 1 and NL_GROUP; a packet socket if allowed. */
static void
make_other(fixture_t *f)
{
	struct sockaddr_nl snl;
	int g;

	ATF_REQUIRE((f->f_nl = socket(AF_NETLINK, SOCK_RAW,
	    NETLINK_ROUTE)) >= 0);
	memset(&snl, 0, sizeof (snl));
	snl.nl_family = AF_NETLINK;
	snl.nl_groups = 1;
	ATF_REQUIRE(bind(f->f_nl, (struct sockaddr *)&snl,
	    sizeof (snl)) == 0);
	g = NL_GROUP;
	ATF_REQUIRE_MSG(setsockopt(f->f_nl, SOL_NETLINK,
	    NETLINK_ADD_MEMBERSHIP, &g, sizeof (g)) == 0,
	    "NETLINK_ADD_MEMBERSHIP %d: %s", g, strerror(errno));
	f->f_groups[0] = 1;
	f->f_groups[1] = 1U << ((NL_GROUP - 1) % 32);
	f->f_packet = socket(AF_PACKET, SOCK_DGRAM, htons(0x88b5));
}

static void
make_fixture(fixture_t *f)
{
	memset(f, 0, sizeof (*f));
	make_backlogs(f);
	make_connections(f);
	make_udp(f);
	make_unix(f);
	make_other(f);
}

/* ------------------------------------------------------------------ */
/* What a source showed: by fd, the items of the state, groups, name. */

typedef struct shown {
	int		sh_have;	/* a record for the fd */
	int		sh_hstate;	/* PR_SOCKSTATE present */
	prsockstate_t	sh_state;
	uint32_t	sh_groups[SF_NLGROUPS_MAX];
	size_t		sh_ngroups;	/* words of PR_NLGROUPS, 0: none */
	struct sockaddr_storage sh_name;
	size_t		sh_namelen;
	uint_t		sh_gaps;	/* PR_SOCKGAPS' pr_other */
	char		sh_why[128];
} shown_t;

#define	MAXFD	1024

static shown_t *
shown_new(void)
{
	shown_t *sh = calloc(MAXFD, sizeof (*sh));

	ATF_REQUIRE(sh != NULL);
	return (sh);
}

static void
check_one(const char *src, const expect_t *e, int hstate,
    const prsockstate_t *st, int tables)
{
	ATF_CHECK_MSG(hstate, "%s: fd %d (%s): no state item", src, e->e_fd,
	    e->e_what);
	if (!hstate)
		return;
	ATF_CHECK_MSG(st->pr_state == e->e_state, "%s: fd %d (%s): state %d, "
	    "want %d", src, e->e_fd, e->e_what, st->pr_state, e->e_state);
	/*
	 * A unix listener's backlog (EX_TABLE_QUEUES) only the tables tell
	 * (a source's: the walk's, or one dump of the unix table): asked of
	 * the socket alone, it is never a guess.
	 */
	if ((e->e_flags & EX_TABLE_QUEUES) && !tables) {
		ATF_CHECK_MSG(st->pr_queues == 0, "%s: fd %d (%s): queues %u "
		    "without the tables", src, e->e_fd, e->e_what,
		    st->pr_queues);
		return;
	}
	ATF_CHECK_MSG(st->pr_queues == e->e_queues && st->pr_read == e->e_rq &&
	    st->pr_send == e->e_wq, "%s: fd %d (%s): queues %u %u/%u, want "
	    "%u %u/%u", src, e->e_fd, e->e_what, st->pr_queues, st->pr_read,
	    st->pr_send, e->e_queues, e->e_rq, e->e_wq);
}

/* The groups, the packet name, against the test's own. */
static void
check_other(const char *src, const fixture_t *f, const shown_t *sh)
{
	const shown_t *n = &sh[f->f_nl];

	ATF_CHECK_MSG(!n->sh_hstate, "%s: netlink: a state item", src);
	ATF_CHECK_MSG(n->sh_ngroups == 2 && n->sh_groups[0] ==
	    f->f_groups[0] && n->sh_groups[1] == f->f_groups[1],
	    "%s: netlink groups: %zu words, 0x%08x,0x%08x; want "
	    "0x%08x,0x%08x", src, n->sh_ngroups, n->sh_groups[0],
	    n->sh_groups[1], f->f_groups[0], f->f_groups[1]);
	if (f->f_packet >= 0) {
		struct sockaddr_ll own;
		socklen_t len = sizeof (own);
		const shown_t *p = &sh[f->f_packet];

		ATF_REQUIRE(getsockname(f->f_packet, (struct sockaddr *)&own,
		    &len) == 0);
		ATF_CHECK_MSG(p->sh_namelen == len && memcmp(&p->sh_name,
		    &own, len) == 0, "%s: packet name: %zu bytes, want the "
		    "whole sockaddr_ll (%u)", src, p->sh_namelen,
		    (unsigned)len);
	}
}

static void
check_shown(const char *src, const fixture_t *f, const shown_t *sh,
    int tables)
{
	for (int i = 0; i < f->f_nexp; i++) {
		const expect_t *e = &f->f_exp[i];

		ATF_REQUIRE(e->e_fd < MAXFD);
		ATF_CHECK_MSG(sh[e->e_fd].sh_have, "%s: fd %d: no record",
		    src, e->e_fd);
		check_one(src, e, sh[e->e_fd].sh_hstate,
		    &sh[e->e_fd].sh_state, tables);
	}
	check_other(src, f, sh);
}

/* ------------------------------------------------------------------ */
/* Asked here: sock_local_facts() of each of the test's own sockets. */

static void
local_shown(int fd, shown_t *sh)
{
	fdrec_t rec;
	struct stat st;
	sockfacts_t sf;
	const void *p;
	size_t len;

	ATF_REQUIRE(fstat(fd, &st) == 0);
	sockfacts_init(&sf);
	ATF_REQUIRE_EQ(sock_local_facts(fd, (uint64_t)st.st_ino, &sf), 0);
	ATF_CHECK_MSG(sf.sf_err[0] == '\0', "fd %d: %s", fd, sf.sf_err);
	memset(&rec, 0, sizeof (rec));
	ATF_REQUIRE(fdrec_reset(&rec, fd) == 0);
	sockrec_add(&rec, &sf);
	sh->sh_have = 1;
	if ((p = proc_fdinfo_misc(fdrec_info(&rec), PR_SOCKSTATE, &len)) !=
	    NULL && len == sizeof (sh->sh_state)) {
		sh->sh_hstate = 1;
		memcpy(&sh->sh_state, p, len);
	}
	if ((p = proc_fdinfo_misc(fdrec_info(&rec), PR_NLGROUPS, &len)) !=
	    NULL && len <= sizeof (sh->sh_groups)) {
		memcpy(sh->sh_groups, p, len);
		sh->sh_ngroups = len / sizeof (uint32_t);
	}
	if ((p = proc_fdinfo_misc(fdrec_info(&rec), PR_SOCKETNAME, &len)) !=
	    NULL && len <= sizeof (sh->sh_name)) {
		memcpy(&sh->sh_name, p, len);
		sh->sh_namelen = len;
	}
	fdrec_free(&rec);
}

ATF_TC(local_facts);
ATF_TC_HEAD(local_facts, tc)
{
	atf_tc_set_md_var(tc, "descr", "sock_local_facts() of the test's own "
	    "sockets: each one's state and queues as the test made them, a "
	    "unix listener's queues unknown (no tables), every netlink "
	    "group, a packet socket's whole sockaddr_ll");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(local_facts, tc)
{
	fixture_t f;
	shown_t *sh = shown_new();

	make_fixture(&f);
	for (int i = 0; i < f.f_nexp; i++)
		local_shown(f.f_exp[i].e_fd, &sh[f.f_exp[i].e_fd]);
	local_shown(f.f_nl, &sh[f.f_nl]);
	if (f.f_packet >= 0)
		local_shown(f.f_packet, &sh[f.f_packet]);
	check_shown("sock_local_facts", &f, sh, 0);
	free(sh);
}

/* ------------------------------------------------------------------ */
/* Through a source, of a child that holds the same sockets. */

typedef struct holder {
	pid_t	h_pid;
	int	h_hold;		/* closed: the child exits */
} holder_t;

/*
 * acct(2), which the holder never makes, refused: a filter, no more;
 * with kill_ioctl, ioctl(2) kills the process.
 */
static void
filter_self(int kill_ioctl)
{
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_acct, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kill_ioctl ? SYS_ioctl :
		    SYS_acct, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fp = { sizeof (prog) / sizeof (prog[0]), prog };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp) != 0)
		_exit(2);
}

/* filtered: 0 none, 1 filter_self(0), 2 filter_self(1). */
static void
holder_start(holder_t *h, int filtered)
{
	int rp[2], hp[2];
	char c;

	ATF_REQUIRE(pipe2(rp, O_CLOEXEC) == 0 && pipe(hp) == 0);
	ATF_REQUIRE((h->h_pid = fork()) >= 0);
	if (h->h_pid == 0) {
		(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
		(void) alarm(HOLD_SECONDS);
		(void) close(hp[1]);
		if (filtered)
			filter_self(filtered == 2);
		if (write(rp[1], "r", 1) != 1)
			_exit(1);
		(void) read(hp[0], &c, 1);	/* end of file: done */
		_exit(0);
	}
	(void) close(rp[1]);
	(void) close(hp[0]);
	h->h_hold = hp[1];
	ATF_REQUIRE_EQ_MSG(read(rp[0], &c, 1), 1, "the holder did not start");
	(void) close(rp[0]);
}

static void
holder_stop(holder_t *h)
{
	int st;

	(void) close(h->h_hold);
	ATF_CHECK(waitpid(h->h_pid, &st, 0) == h->h_pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0);
}

static int
record_shown(void *arg, const prfdinfo_t *info)
{
	shown_t *sh = arg, *s;
	const void *p;
	size_t len;

	if (info->pr_fd < 0 || info->pr_fd >= MAXFD)
		return (0);
	s = &sh[info->pr_fd];
	s->sh_have = 1;
	if ((p = proc_fdinfo_misc(info, PR_SOCKSTATE, &len)) != NULL &&
	    len == sizeof (s->sh_state)) {
		s->sh_hstate = 1;
		memcpy(&s->sh_state, p, len);
	}
	if ((p = proc_fdinfo_misc(info, PR_NLGROUPS, &len)) != NULL &&
	    len <= sizeof (s->sh_groups)) {
		memcpy(s->sh_groups, p, len);
		s->sh_ngroups = len / sizeof (uint32_t);
	}
	if ((p = proc_fdinfo_misc(info, PR_SOCKETNAME, &len)) != NULL &&
	    len <= sizeof (s->sh_name)) {
		memcpy(&s->sh_name, p, len);
		s->sh_namelen = len;
	}
	if ((p = proc_fdinfo_misc(info, PR_SOCKGAPS, &len)) != NULL &&
	    len > sizeof (prsockgaps_t)) {
		const prsockgaps_t *g = p;

		s->sh_gaps = g->pr_other;
		(void) snprintf(s->sh_why, sizeof (s->sh_why), "%.*s",
		    (int)(len - sizeof (*g)), g->pr_why);
	}
	return (0);
}

/* The walk of the holder through src, with flags. */
static shown_t *
walk_source(const char *what, pid_t pid, psocksrc_t src, int flags)
{
	struct ps_prochandle *P;
	shown_t *sh = shown_new();
	int gerr;

	ATF_REQUIRE_MSG((P = Pgrab(pid, 0, &gerr)) != NULL, "Pgrab: %s",
	    Pgrab_error(gerr));
	ATF_REQUIRE_MSG(Psetsocksrc(P, src) == 0, "%s: %s", what,
	    Perrmsg(P));
	ATF_REQUIRE_MSG(Pfdinfo_iter_flags(P, flags, record_shown, sh) == 0,
	    "%s: walk: %s", what, Perrmsg(P));
	Prelease(P, 0);
	return (sh);
}

static void
check_source(const char *what, const fixture_t *f, pid_t pid,
    psocksrc_t src, int flags)
{
	shown_t *sh = walk_source(what, pid, src, flags);

	check_shown(what, f, sh, 1);
	free(sh);
}

ATF_TC(pidfd_source);
ATF_TC_HEAD(pidfd_source, tc)
{
	atf_tc_set_md_var(tc, "descr", "The pidfd source, of a child holding "
	    "the test's sockets, with the walk's socket tables and without: "
	    "the same states and queues as the test made");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(pidfd_source, tc)
{
	fixture_t f;
	holder_t h;

	make_fixture(&f);
	holder_start(&h, 0);
	check_source("pidfd", &f, h.h_pid, PSOCK_PIDFD, 0);
	check_source("pidfd, no tables", &f, h.h_pid, PSOCK_PIDFD,
	    PFDI_NOENDPOINTS);
	holder_stop(&h);
}

ATF_TC(agent_pass);
ATF_TC_HEAD(agent_pass, tc)
{
	atf_tc_set_md_var(tc, "descr", "The agent, passing the sockets of a "
	    "child holding the test's sockets: the same states and queues");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(agent_pass, tc)
{
	fixture_t f;
	holder_t h;

	make_fixture(&f);
	holder_start(&h, 0);
	check_source("agent", &f, h.h_pid, PSOCK_AGENT, PFDI_NOENDPOINTS);
	holder_stop(&h);
}

ATF_TC(agent_batch);
ATF_TC_HEAD(agent_batch, tc)
{
	atf_tc_set_md_var(tc, "descr", "The agent's batch in a child under a "
	    "seccomp filter (never asked to pass its sockets) holding the "
	    "test's sockets: the same states and queues");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(agent_batch, tc)
{
	fixture_t f;
	holder_t h;

	make_fixture(&f);
	holder_start(&h, 1);
	check_source("agent batch", &f, h.h_pid, PSOCK_AGENT,
	    PFDI_NOENDPOINTS);
	holder_stop(&h);
}

ATF_TC(agent_batch_refused);
ATF_TC_HEAD(agent_batch_refused, tc)
{
	atf_tc_set_md_var(tc, "descr", "The agent's batch in a child whose "
	    "seccomp filter kills it for ioctl: made again without the "
	    "state's calls, the child lives, the queues are a gap with why, "
	    "a unix socket's state stands (it takes no call)");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(agent_batch_refused, tc)
{
	fixture_t f;
	holder_t h;
	shown_t *sh;

	make_fixture(&f);
	holder_start(&h, 2);
	sh = walk_source("agent batch, ioctl killed", h.h_pid, PSOCK_AGENT,
	    PFDI_NOENDPOINTS);
	ATF_CHECK_MSG(kill(h.h_pid, 0) == 0, "the holder is gone");
	for (int i = 0; i < f.f_nexp; i++) {
		const expect_t *e = &f.f_exp[i];
		const shown_t *s = &sh[e->e_fd];
		int is_unix = strncmp(e->e_what, "unix", 4) == 0;

		/* The one fact no call gives comes from the unix table. */
		if (e->e_flags & EX_TABLE_QUEUES) {
			check_one("agent batch, ioctl killed", e, s->sh_hstate,
			    &s->sh_state, 1);
			continue;
		}
		ATF_CHECK_MSG(s->sh_have && (s->sh_gaps & PR_GAP_QUEUES) &&
		    strstr(s->sh_why, "sandbox") != NULL, "fd %d (%s): gaps "
		    "0x%x (%s)", e->e_fd, e->e_what, s->sh_gaps, s->sh_why);
		ATF_CHECK_MSG(!s->sh_hstate || s->sh_state.pr_queues == 0,
		    "fd %d (%s): queues shown", e->e_fd, e->e_what);
		if (is_unix && e->e_state != 0)
			check_one("agent batch, ioctl killed", &(expect_t){
			    .e_fd = e->e_fd, .e_what = e->e_what,
			    .e_state = e->e_state, .e_flags = 0 },
			    s->sh_hstate, &s->sh_state, 0);
	}
	free(sh);
	holder_stop(&h);
}

/* ------------------------------------------------------------------ */
/* sock_state.c's rules, on answers made up here. */

static void
facts_of(sockfacts_t *sf, int domain, int type)
{
	sockfacts_init(sf);
	sf->sf_domain = domain;
	sf->sf_type = type;
	sf->sf_have = SF_DOMAIN | SF_TYPE;
}

/* Every answer, as the agent's batch gets them of every socket. */
static void
all_answered(sockstate_ans_t *st)
{
	memset(st, 0, sizeof (*st));
	for (int i = 0; i < SW_N; i++)
		sockstate_answered(st, i, (socklen_t)
		    sockstate_questions()[i].sq_size);
	st->st_inq = 7;
	st->st_outq = 9;
	st->st_mem[SK_MEMINFO_RMEM_ALLOC] = 700;
	st->st_mem[SK_MEMINFO_WMEM_ALLOC] = 900;
	st->st_tcpi[offsetof(struct tcp_info, tcpi_state)] = PR_SS_LISTEN;
}

ATF_TC_WITHOUT_HEAD(take_rules);
ATF_TC_BODY(take_rules, tc)
{
	sockstate_ans_t st;
	sockfacts_t sf;

	/* A netlink list longer than its room: the room's words. */
	facts_of(&sf, AF_NETLINK, SOCK_RAW);
	ATF_CHECK_EQ(sockstate_wants(&sf), SW_GROUPS);
	all_answered(&st);
	for (int i = 0; i < SF_NLGROUPS_MAX; i++)
		st.st_groups[i] = (uint32_t)i + 1;
	st.st_len[SWQ_GROUPS] = 4096;
	sockstate_take(&sf, &st);
	ATF_CHECK((sf.sf_have & SF_GROUPS) && sf.sf_ngroups ==
	    SF_NLGROUPS_MAX && sf.sf_groups[SF_NLGROUPS_MAX - 1] ==
	    SF_NLGROUPS_MAX);
	ATF_CHECK(!(sf.sf_have & (SF_STATE | SF_QUEUES)));

	/* UDP: SO_MEMINFO's memory, not SIOCINQ's. */
	facts_of(&sf, AF_INET, SOCK_DGRAM);
	ATF_CHECK_EQ(sockstate_wants(&sf), SW_MEMINFO);
	sockstate_take(&sf, &st);
	ATF_CHECK((sf.sf_have & SF_QUEUES) && !(sf.sf_have & SF_STATE) &&
	    sf.sf_rq == 700 && sf.sf_wq == 900);

	/* TCP_INFO too short: no state; a listener's SIOCINQ: refused. */
	facts_of(&sf, AF_INET6, SOCK_STREAM);
	ATF_CHECK_EQ(sockstate_wants(&sf), SW_TCPINFO | SW_INQ | SW_OUTQ);
	st.st_len[SWQ_TCPINFO] = (socklen_t)SOCKSTATE_TCPI_LEN - 1;
	st.st_got &= ~SW_INQ;
	sockstate_take(&sf, &st);
	ATF_CHECK(!(sf.sf_have & (SF_STATE | SF_QUEUES)));

	/* A state the tables gave is not asked, nor changed. */
	facts_of(&sf, AF_INET, SOCK_STREAM);
	sf.sf_state = PR_SS_ESTABLISHED;
	sf.sf_have |= SF_STATE;
	ATF_CHECK_EQ(sockstate_wants(&sf), SW_INQ | SW_OUTQ);
	all_answered(&st);
	sockstate_take(&sf, &st);
	ATF_CHECK(sf.sf_state == PR_SS_ESTABLISHED && sf.sf_queues ==
	    PR_SSQ_QUEUED && sf.sf_rq == 7 && sf.sf_wq == 9);

	/* A unix listener: nothing to ask, its queues not from SIOCOUTQ. */
	facts_of(&sf, AF_UNIX, SOCK_SEQPACKET);
	sf.sf_bools.pr_known = sf.sf_bools.pr_set = PR_SO_ACCEPTCONN;
	ATF_CHECK_EQ(sockstate_wants(&sf), 0);
	st.st_got &= ~SW_INQ;
	sockstate_take(&sf, &st);
	ATF_CHECK(sf.sf_state == PR_SS_LISTEN && !(sf.sf_have & SF_QUEUES));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, local_facts);
	ATF_TP_ADD_TC(tp, pidfd_source);
	ATF_TP_ADD_TC(tp, agent_pass);
	ATF_TP_ADD_TC(tp, agent_batch);
	ATF_TP_ADD_TC(tp, agent_batch_refused);
	ATF_TP_ADD_TC(tp, take_rules);
	return (0);
}
