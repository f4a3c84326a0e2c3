/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_bpf_check.c: the bpf source's check at each load (sock_bpf.h).
 *
 * The program reads the kernel's structures, whose members move and
 * change meaning between releases (SO_PASSCRED left socket->flags in
 * 6.16; 6.1's iterator visits each thread's table); a record that is
 * wrong on some kernel would print a false fact.  So before the source
 * serves, it shows files of pfiles' own, made here for the purpose:
 * sockets of every family pfiles names (unix stream, datagram and
 * seqpacket, TCP and UDP over IPv4 and IPv6, netlink, packet), listening,
 * connected and unbound, each option pfiles prints set on some and off on
 * others, and a pipe and an eventfd, while a thread of ours shares the
 * fd table; and sockets that hold something, in states the check knows
 * (sock_bpf_queued.c).  Each record that the walk would take as it is
 * must give the same record items as the calls the pidfd source makes on
 * the same socket (sock_local.c) and the same stat, flags and path as
 * fstat(2), fcntl(2) and readlink(2); a socket made in a known state must
 * show that state, its queues and netlink groups; every fd must be shown
 * once.  On the first difference the source is refused, with what
 * differed.
 *
 * A socket's state line and netlink groups are compared with the calls'
 * where the calls give them: the state where they know it, the queues
 * where they know them (a unix listener's backlog is the socket tables',
 * not a call's answer).  Where they give none, what the check made the
 * socket show is the answer.
 *
 * A family this process may not make a socket of (packet without
 * CAP_NET_RAW, IPv6 where it is disabled) is not checked; the walk takes
 * such sockets of the target as they are only if they pass the same
 * rules, which those it could make here prove.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netpacket/packet.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

#include "src/bpf/sock_bpf.h"

#define	CK_MAX		64	/* the fds made */
#define	CK_WHAT_MAX	48

typedef struct ckfd {
	int		cf_fd;
	int		cf_seen;
	int		cf_wanted;	/* cf_want says what it must show */
	bpf_ckwant_t	cf_want;
	char		cf_what[CK_WHAT_MAX];
} ckfd_t;

typedef struct check {
	ckfd_t		ck_fds[CK_MAX];
	int		ck_n;
	unsigned int	ck_hz;
	int		ck_lastfd;	/* of the last record, -1 at first */
	int		ck_failed;	/* a record differed: why says how */
	unsigned int	ck_compared;	/* records compared */
	char		*ck_why;
	size_t		ck_whysz;
} check_t;

/*
 * Keep fd (when it was made) to be checked, as what, and with what it
 * must show when want is not NULL (bpf_ck_add_f).
 */
static void
ck_add_want(void *arg, int fd, const char *what, const bpf_ckwant_t *want)
{
	check_t *ck = arg;
	ckfd_t *cf;

	if (fd < 0)
		return;
	if (ck->ck_n == CK_MAX) {
		(void) close(fd);
		return;
	}
	cf = &ck->ck_fds[ck->ck_n++];
	memset(cf, 0, sizeof (*cf));
	cf->cf_fd = fd;
	if (want != NULL) {
		cf->cf_want = *want;
		cf->cf_wanted = 1;
	}
	(void) snprintf(cf->cf_what, CK_WHAT_MAX, "%s", what);
}

static void
ck_add(check_t *ck, int fd, const char *what)
{
	ck_add_want(ck, fd, what, NULL);
}

/*
 * Which options a socket is made with: none, all, or one of the patterns
 * 0 to 5.  Row r of the option table (13 rows) has a code, the r-th pair
 * {a, b} of the numbers 0 to 5, and pattern p sets the rows whose code
 * holds p.  No code holds another, so for any two options some pattern
 * sets one and not the other: a program that reads one option for
 * another is seen.  Each option is on in two patterns and off in four.
 */
#define	OPTS_NONE	(-1)
#define	OPTS_ALL	6
#define	OPTS_PATTERNS	6

_Static_assert(SOCKOPT_N <= OPTS_PATTERNS * (OPTS_PATTERNS - 1) / 2,
    "a pair of patterns for every option");

static int
opt_on(int pattern, int row)
{
	int a, b, r = 0;

	if (pattern == OPTS_ALL)
		return (1);
	for (a = 0; a < OPTS_PATTERNS; a++) {
		for (b = a + 1; b < OPTS_PATTERNS; b++, r++) {
			if (r == row)
				return (pattern == a || pattern == b);
		}
	}
	return (0);
}

/*
 * The options of pattern on (a boolean 1, SO_LINGER on for 7 s, the
 * buffers 8 KiB); an option the socket refuses is left as it is.
 */
static void
opts_set(int s, int pattern)
{
	const sockopt_t *opts = sockopt_table();
	struct linger l = { 1, 7 };
	int v;

	for (int row = 0; pattern != OPTS_NONE && row < SOCKOPT_N; row++) {
		const sockopt_t *o = &opts[row];

		if (!opt_on(pattern, row))
			continue;
		v = o->so_kind == SOK_INT ? 8192 : 1;
		(void) setsockopt(s, o->so_level, o->so_optname,
		    o->so_kind == SOK_LINGER ? (const void *)&l :
		    (const void *)&v, (socklen_t)sockopt_size(o));
	}
}

static int
sock_new(int domain, int type, int proto, int pattern)
{
	int s = socket(domain, type | SOCK_CLOEXEC, proto);

	if (s >= 0)
		opts_set(s, pattern);
	return (s);
}

/* An abstract unix name of ours: "\0pfiles-check-PID-tag". */
static socklen_t
unix_abstract(struct sockaddr_un *sun, const char *tag)
{
	int n;

	memset(sun, 0, sizeof (*sun));
	sun->sun_family = AF_UNIX;
	n = snprintf(sun->sun_path + 1, sizeof (sun->sun_path) - 1,
	    "pfiles-check-%d-%s", (int)getpid(), tag);
	return ((socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    (size_t)n));
}

static void
make_unix(check_t *ck)
{
	struct sockaddr_un sun;
	socklen_t len;
	int sv[2], a, b, l;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0) {
		opts_set(sv[0], OPTS_ALL);
		ck_add(ck, sv[0], "AF_UNIX stream pair, options on");
		ck_add(ck, sv[1], "AF_UNIX stream pair");
	}
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) == 0) {
		ck_add(ck, sv[0], "AF_UNIX datagram pair");
		ck_add(ck, sv[1], "AF_UNIX datagram pair");
	}
	/* a datagram socket with a name, and one autobound, connected */
	if ((a = sock_new(AF_UNIX, SOCK_DGRAM, 0, OPTS_ALL)) >= 0) {
		len = unix_abstract(&sun, "d");
		(void) bind(a, (struct sockaddr *)&sun, len);
		if ((b = sock_new(AF_UNIX, SOCK_DGRAM, 0, OPTS_NONE)) >= 0)
			(void) connect(b, (struct sockaddr *)&sun, len);
		ck_add(ck, a, "AF_UNIX datagram, named, options on");
		ck_add(ck, b, "AF_UNIX datagram, connected");
	}
	if ((l = sock_new(AF_UNIX, SOCK_SEQPACKET, 0, OPTS_ALL)) >= 0) {
		len = unix_abstract(&sun, "l");
		if (bind(l, (struct sockaddr *)&sun, len) == 0)
			(void) listen(l, 4);
		ck_add(ck, l, "AF_UNIX seqpacket listening, options on");
	}
	ck_add(ck, sock_new(AF_UNIX, SOCK_STREAM, 0, OPTS_NONE),
	    "AF_UNIX unbound");
	for (int p = 0; p < OPTS_PATTERNS; p++) {
		char what[CK_WHAT_MAX];

		(void) snprintf(what, sizeof (what), "AF_UNIX unbound, "
		    "options of pattern %d", p);
		ck_add(ck, sock_new(AF_UNIX, SOCK_STREAM, 0, p), what);
	}
}

/*
 * A TCP listener on the loopback address of domain (options on), a client
 * connected to it and the accepted end; a UDP socket connected to the
 * listener's address; an unbound TCP socket.  A domain the kernel does
 * not give (IPv6 disabled) is left out.
 */
static void
make_inet(check_t *ck, int domain)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof (ss);
	const char *fam = domain == AF_INET ? "AF_INET" : "AF_INET6";
	char what[CK_WHAT_MAX];
	int l, c, a, u;

	memset(&ss, 0, sizeof (ss));
	ss.ss_family = (sa_family_t)domain;
	if (domain == AF_INET)
		((struct sockaddr_in *)&ss)->sin_addr.s_addr =
		    htonl(INADDR_LOOPBACK);
	else
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	if ((l = sock_new(domain, SOCK_STREAM, 0, OPTS_ALL)) < 0)
		return;
	if (bind(l, (struct sockaddr *)&ss, domain == AF_INET ?
	    sizeof (struct sockaddr_in) : sizeof (struct sockaddr_in6)) != 0 ||
	    listen(l, 4) != 0 ||
	    getsockname(l, (struct sockaddr *)&ss, &len) != 0) {
		(void) snprintf(what, sizeof (what), "%s TCP unbound", fam);
		ck_add(ck, l, what);
		return;
	}
	(void) snprintf(what, sizeof (what), "%s TCP listening, options on",
	    fam);
	ck_add(ck, l, what);
	if ((c = sock_new(domain, SOCK_STREAM, 0, OPTS_NONE)) >= 0) {
		if (connect(c, (struct sockaddr *)&ss, len) == 0 &&
		    (a = accept4(l, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
			(void) snprintf(what, sizeof (what), "%s TCP accepted",
			    fam);
			ck_add(ck, a, what);
		}
		(void) snprintf(what, sizeof (what), "%s TCP connected", fam);
		ck_add(ck, c, what);
	}
	if ((u = sock_new(domain, SOCK_DGRAM, 0, OPTS_ALL)) >= 0) {
		(void) connect(u, (struct sockaddr *)&ss, len);
		(void) snprintf(what, sizeof (what), "%s UDP connected, "
		    "options on", fam);
		ck_add(ck, u, what);
	}
	(void) snprintf(what, sizeof (what), "%s TCP unbound", fam);
	ck_add(ck, sock_new(domain, SOCK_STREAM, 0, OPTS_NONE), what);
	for (int p = 0; domain == AF_INET && p < OPTS_PATTERNS; p++) {
		(void) snprintf(what, sizeof (what), "%s TCP unbound, options "
		    "of pattern %d", fam, p);
		ck_add(ck, sock_new(domain, SOCK_STREAM, 0, p), what);
	}
}

static void
make_others(check_t *ck)
{
	struct sockaddr_nl nl;
	int s;

	if ((s = sock_new(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE,
	    OPTS_ALL)) >= 0) {
		memset(&nl, 0, sizeof (nl));
		nl.nl_family = AF_NETLINK;
		nl.nl_groups = RTMGRP_LINK;
		(void) bind(s, (struct sockaddr *)&nl, sizeof (nl));
		ck_add(ck, s, "AF_NETLINK route, bound, options on");
	}
	ck_add(ck, sock_new(AF_NETLINK, SOCK_DGRAM, NETLINK_SOCK_DIAG,
	    OPTS_NONE), "AF_NETLINK sock_diag");
	/*
	 * CAP_NET_RAW: left out without it.  Made with no protocol and
	 * bound to one on the loopback interface: no receive hook to take
	 * down at the bind, which would wait for an RCU grace period (some
	 * 10 ms; the close waits for one anyway).
	 */
	if ((s = sock_new(AF_PACKET, SOCK_DGRAM, 0, OPTS_NONE)) >= 0) {
		struct sockaddr_ll sll = { .sll_family = AF_PACKET,
		    .sll_protocol = htons(ETH_P_ARP) };

		sll.sll_ifindex = (int)if_nametoindex("lo");
		(void) bind(s, (struct sockaddr *)&sll, sizeof (sll));
		ck_add(ck, s, "AF_PACKET, ARP on lo");
	}
	ck_add(ck, eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), "eventfd");
}

/*
 * The bytes of a socket's name that pfiles shows: all of a unix, inet,
 * inet6 or netlink name; of a packet socket's struct sockaddr_ll, its
 * family, protocol and interface index (not the device's type and
 * address, which the bpf program does not read); of any other family's,
 * the family alone.
 */
static size_t
name_shown(const void *name, size_t len)
{
	sa_family_t fam;

	if (len < sizeof (fam))
		return (len);
	memcpy(&fam, name, sizeof (fam));
	if (fam == AF_UNIX || fam == AF_INET || fam == AF_INET6 ||
	    fam == AF_NETLINK)
		return (len);
	if (fam == AF_PACKET && len >= offsetof(struct sockaddr_ll,
	    sll_hatype))
		return (offsetof(struct sockaddr_ll, sll_hatype));
	return (sizeof (fam));
}

/*
 * Do the program's state line (vp, lp) and the calls' (vc, lc) differ
 * in a fact the calls know: the state, and the queues where the calls
 * know them?
 */
static int
state_differs(const void *vp, size_t lp, const void *vc, size_t lc)
{
	prsockstate_t p, c;

	if (lp != sizeof (p) || lc != sizeof (c))
		return (1);
	memcpy(&p, vp, sizeof (p));
	memcpy(&c, vc, sizeof (c));
	return (p.pr_state != c.pr_state || (c.pr_queues != 0 &&
	    (p.pr_queues != c.pr_queues || p.pr_read != c.pr_read ||
	    p.pr_send != c.pr_send)));
}

/* The first boolean option two prsockbool_t give apart, into fact. */
static int
bools_differ(const void *vp, const void *vc, char *fact, size_t factsz)
{
	const sockopt_t *opts = sockopt_table();
	prsockbool_t bp, bc;

	memcpy(&bp, vp, sizeof (bp));
	memcpy(&bc, vc, sizeof (bc));
	for (int r = 0; r < PR_SO_NBOOL; r++) {
		uint_t bit = opts[r].so_bit;

		if (((bp.pr_known ^ bc.pr_known) & bit) ||
		    ((bp.pr_set ^ bc.pr_set) & bit)) {
			(void) snprintf(fact, factsz, "%s", opts[r].so_name);
			return (1);
		}
	}
	return (0);
}

/* The first fact that the record of a socket and the calls give apart. */
static int
items_differ(const prfdinfo_t *p, const prfdinfo_t *c, char *fact,
    size_t factsz)
{
	static const struct {
		uint_t		type;
		const char	*name;
	} items[] = {
		{ PR_SOCKOPT_DOMAIN, "SO_DOMAIN" },
		{ PR_SOCKOPT_TYPE, "SO_TYPE" },
		{ PR_SOCKOPT_PROTOCOL, "SO_PROTOCOL" },
		{ PR_SOCKOPTS_BOOL_OPTS, "the options" },
		{ PR_SOCKOPT_LINGER, "SO_LINGER" },
		{ PR_SOCKOPT_SNDBUF, "SO_SNDBUF" },
		{ PR_SOCKOPT_RCVBUF, "SO_RCVBUF" },
		{ PR_SOCKETNAME, "sockname" },
		{ PR_PEERSOCKNAME, "peername" },
		{ PR_PEERCRED, "SO_PEERCRED" },
		{ PR_SOCKERR, "an error" },
		{ PR_SOCKGAPS, "facts not known" },
		{ PR_SOCKSTATE, "the state line" },
		{ PR_NLGROUPS, "the netlink groups" },
	};
	for (size_t i = 0; i < sizeof (items) / sizeof (items[0]); i++) {
		size_t lp, lc;
		const void *vp = proc_fdinfo_misc(p, items[i].type, &lp);
		const void *vc = proc_fdinfo_misc(c, items[i].type, &lc);
		struct ucred up, uc;

		if (vp == NULL && vc == NULL)
			continue;
		/* What the calls do not give, the made socket's want says. */
		if (vc == NULL && (items[i].type == PR_SOCKSTATE ||
		    items[i].type == PR_NLGROUPS))
			continue;
		if (vp == NULL || vc == NULL) {
			(void) snprintf(fact, factsz, "%s %s", items[i].name,
			    vp == NULL ? "missing" : "not given by the calls");
			return (1);
		}
		if (items[i].type == PR_SOCKOPTS_BOOL_OPTS &&
		    lp == sizeof (prsockbool_t) && lc == sizeof (prsockbool_t)) {
			if (bools_differ(vp, vc, fact, factsz))
				return (1);
			continue;
		}
		if (items[i].type == PR_SOCKETNAME ||
		    items[i].type == PR_PEERSOCKNAME) {
			lp = name_shown(vp, lp);
			lc = name_shown(vc, lc);
		}
		if (items[i].type == PR_SOCKSTATE) {
			if (!state_differs(vp, lp, vc, lc))
				continue;
		/* pfiles shows the peer's pid only */
		} else if (items[i].type == PR_PEERCRED && lp == sizeof (up) &&
		    lc == sizeof (uc)) {
			memcpy(&up, vp, sizeof (up));
			memcpy(&uc, vc, sizeof (uc));
			if (up.pid == uc.pid)
				continue;
		} else if (lp == lc && memcmp(vp, vc, lp) == 0) {
			continue;
		}
		(void) snprintf(fact, factsz, "%s", items[i].name);
		return (1);
	}
	return (0);
}

/* The first fact of the record's stat, flags and path that fd's differ in. */
static const char *
file_differs(const bpfrec_t *br, int fd)
{
	char link[64], path[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fl, fdfl;

	if (fstat(fd, &st) != 0 || (fl = fcntl(fd, F_GETFL)) < 0 ||
	    (fdfl = fcntl(fd, F_GETFD)) < 0)
		return ("fstat or fcntl");
	if (br->br_mode != st.st_mode || br->br_ino != (uint64_t)st.st_ino ||
	    br->br_nlink != st.st_nlink || br->br_size != (int64_t)st.st_size)
		return ("st_mode, st_ino, st_nlink or st_size");
	if (br->br_uid != st.st_uid || br->br_gid != st.st_gid)
		return ("st_uid or st_gid");
	if (br->br_major != major(st.st_dev) ||
	    br->br_minor != minor(st.st_dev) ||
	    br->br_rmajor != major(st.st_rdev) ||
	    br->br_rminor != minor(st.st_rdev))
		return ("st_dev or st_rdev");
	if ((br->br_fflags & ~(uint32_t)O_CLOEXEC) != (uint32_t)fl ||
	    ((br->br_fflags & O_CLOEXEC) != 0) != ((fdfl & FD_CLOEXEC) != 0))
		return ("the flags");
	(void) snprintf(link, sizeof (link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, path, sizeof (path))) < 0 ||
	    (size_t)n != br->br_path_len ||
	    memcmp(path, br->br_path, (size_t)n) != 0)
		return ("the path");
	return (NULL);
}

static int
ck_fail(check_t *ck, const ckfd_t *cf, const char *fact)
{
	ck->ck_failed = 1;
	(void) snprintf(ck->ck_why, ck->ck_whysz, "its record of a file of "
	    "pfiles' own differs from the kernel's calls on this kernel "
	    "(fd %d, %s: %s)", cf->cf_fd, cf->cf_what, fact);
	return (-1);
}

int
bpf_check_record(const bpfrec_t *br, int fd, unsigned int hz, char *fact,
    size_t factsz)
{
	fdrec_t prog = { NULL, 0 }, calls = { NULL, 0 };
	sockfacts_t sf;
	const char *bad;
	int r = 1;

	if ((bad = file_differs(br, fd)) != NULL) {
		(void) snprintf(fact, factsz, "%s", bad);
		return (1);
	}
	if ((br->br_mode & S_IFMT) != S_IFSOCK)
		return (0);
	if (fdrec_reset(&prog, br->br_fd) != 0 ||
	    fdrec_reset(&calls, br->br_fd) != 0) {
		(void) snprintf(fact, factsz, "%s", strerror(errno));
		goto out;
	}
	bpf_sockfacts(br, hz, &sf);
	sockrec_add(&prog, &sf);
	sockfacts_init(&sf);
	if (sock_local_facts(fd, br->br_ino, &sf) != 0) {
		(void) snprintf(fact, factsz, "the socket changed");
		goto out;
	}
	sockrec_add(&calls, &sf);
	r = items_differ(fdrec_info(&prog), fdrec_info(&calls), fact, factsz);
out:
	fdrec_free(&prog);
	fdrec_free(&calls);
	return (r);
}

/* bpf_pfiles_iter's callback: one record of ours. */
static int
ck_record(void *arg, const bpfrec_t *br, const void *raw, size_t rawlen)
{
	check_t *ck = arg;
	char fact[96];
	ckfd_t *cf = NULL;
	const char *bad;

	if (br->br_have & BPFREC_OWNTABLE)
		return (0);
	if (br->br_fd <= ck->ck_lastfd) {
		ck->ck_failed = 1;
		(void) snprintf(ck->ck_why, ck->ck_whysz, "the iterator gave "
		    "fd %d again (after fd %d): a table visited twice",
		    br->br_fd, ck->ck_lastfd);
		return (-1);
	}
	ck->ck_lastfd = br->br_fd;
	for (int i = 0; i < ck->ck_n; i++) {
		if (ck->ck_fds[i].cf_fd == br->br_fd)
			cf = &ck->ck_fds[i];
	}
	if (cf == NULL)
		return (0);
	cf->cf_seen++;
	/* What the walk takes as it is must be right; the rest it builds. */
	if (!bpf_taken_as_is(br))
		return (0);
	if (bpf_check_record(br, cf->cf_fd, ck->ck_hz, fact,
	    sizeof (fact)) != 0)
		return (ck_fail(ck, cf, fact));
	if (cf->cf_wanted && (bad = bpf_check_want(br, ck->ck_hz,
	    &cf->cf_want)) != NULL)
		return (ck_fail(ck, cf, bad));
	ck->ck_compared++;
	return (0);
}

/* The thread that shares our fd table while the iterator walks it. */
static void *
sharer(void *arg)
{
	char c;

	while (read(*(int *)arg, &c, 1) < 0 && errno == EINTR)
		continue;
	return (NULL);
}

int
bpf_check_facts(bpf_pfiles_t *bp, unsigned int *ncomparedp, char *why,
    size_t whysz)
{
	check_t *ck;
	pthread_t t;
	int pipefd[2], r, e, started = 0;

	if ((ck = calloc(1, sizeof (*ck))) == NULL) {
		(void) snprintf(why, whysz, "%s", strerror(errno));
		return (-1);
	}
	ck->ck_hz = bpf_pfiles_hz(bp);
	ck->ck_lastfd = -1;
	ck->ck_why = why;
	ck->ck_whysz = whysz;
	make_unix(ck);
	make_inet(ck, AF_INET);
	make_inet(ck, AF_INET6);
	make_others(ck);
	bpf_check_make_queued(ck_add_want, ck);
	if (pipe2(pipefd, O_CLOEXEC) == 0) {
		ck_add(ck, pipefd[0], "pipe, read end");
		ck_add(ck, pipefd[1], "pipe, write end");
		started = pthread_create(&t, NULL, sharer, &pipefd[0]) == 0;
	}
	why[0] = '\0';
	r = bpf_pfiles_iter(bp, getpid(), ck_record, ck, why, whysz);
	e = errno;
	if (started) {
		/* Wake it: a byte, or, failing that, the end of file. */
		if (write(pipefd[1], "", 1) != 1) {
			for (int i = 0; i < ck->ck_n; i++)
				if (ck->ck_fds[i].cf_fd == pipefd[1])
					ck->ck_fds[i].cf_fd = -1;
			(void) close(pipefd[1]);
		}
		(void) pthread_join(t, NULL);
	}
	for (int i = 0; r == 0 && i < ck->ck_n; i++) {
		if (ck->ck_fds[i].cf_seen != 1)
			r = ck_fail(ck, &ck->ck_fds[i], "not shown");
	}
	if (ck->ck_failed)
		e = EPROTO;
	for (int i = 0; i < ck->ck_n; i++) {
		struct linger off = { 0, 0 };

		/*
		 * SO_LINGER off first: a TCP socket closed with it on waits
		 * for its FIN to be acknowledged (tcp_close()), even with no
		 * data to send: milliseconds, measured.
		 */
		(void) setsockopt(ck->ck_fds[i].cf_fd, SOL_SOCKET, SO_LINGER,
		    &off, sizeof (off));
		(void) close(ck->ck_fds[i].cf_fd);
	}
	*ncomparedp = ck->ck_compared;
	free(ck);
	if (r != 0) {
		errno = e;
		return (-1);
	}
	return (0);
}
