/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mkseeds: write seed inputs for the harnesses from real kernel data.
 *
 *	mkseeds DIR
 *
 * writes DIR/fdinfo/, DIR/procfs/, DIR/maps/, DIR/sockfmt/ and
 * DIR/marshal/ (the directories must exist).  It opens one fd of each
 * kind it can (files with POSIX, OFD and flock locks, a pipe, TCP, UDP,
 * unix named, abstract and unnamed, a socketpair, netlink, eventfd,
 * epoll, inotify, timerfd, signalfd, a directory, memfd), then:
 *
 *   fdinfo	/proc/self/fdinfo/N of each, whole and with chunk sizes;
 *   procfs	its own stat (with a comm holding ") ("), cmdline, limits
 *		and status, and those of pid 1 and of kthreadd (pid 2);
 *   maps	its own /proc/self/maps, seen from the main thread and from
 *		another thread (sp and pc of each), cut to a few KiB;
 *   sockfmt	the records libproc builds for each fd, through Pgrab and
 *		Pfdinfo_iter on a child that inherited them;
 *   marshal	the batch of calls pfiles makes per socket, with this
 *		process's stack pointer and stack mapping, and the answers
 *		those calls give here.
 *
 * The seeds are raw: `make fuzz-cmin` minimizes them with the corpus.
 * Hand-made edge cases (overlong and truncated lines, odd lengths) are
 * written here too, next to the real ones; seeds named keep-* survive
 * every minimization, as examples and as regression tests.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libproc.h"
#include "core/procfs_parse.h"

#define	MAXFDS		64
#define	FIXED_SIZE	offsetof(prfdinfo_t, pr_misc_size)
#define	SF_RAW		0x01	/* as in sockfmt.c */
#define	SF_STATONLY	0x02

static const char *outdir;
static char tmpdir[] = "/tmp/mkseeds.XXXXXX";
static int fds[MAXFDS];
static const char *fdnames[MAXFDS];	/* what each is, for seed names */
static int nfds;

static void
die(const char *what)
{
	(void) fprintf(stderr, "mkseeds: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Write one seed: DIR/TARGET/NAME, from pieces (buf, len), NULL-ended. */
static void
seed(const char *target, const char *name, ...)
{
	char path[4096];
	const void *p;
	va_list ap;
	FILE *f;

	(void) snprintf(path, sizeof (path), "%s/%s/%s", outdir, target, name);
	if ((f = fopen(path, "w")) == NULL)
		die(path);
	va_start(ap, name);
	while ((p = va_arg(ap, const void *)) != NULL) {
		size_t len = va_arg(ap, size_t);

		if (fwrite(p, 1, len, f) != len)
			die(path);
	}
	va_end(ap);
	if (fclose(f) != 0)
		die(path);
}

/* All of a file (at most bufsz), or -1. */
static ssize_t
slurp(const char *path, char *buf, size_t bufsz)
{
	size_t got = 0;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (-1);
	while (got < bufsz && (n = read(fd, buf + got, bufsz - got)) > 0)
		got += (size_t)n;
	(void) close(fd);
	return ((ssize_t)got);
}

static void
keep(int fd, const char *what)
{
	if (fd < 0)
		die(what);
	if (nfds < MAXFDS) {
		fdnames[nfds] = what;
		fds[nfds++] = fd;
	}
}

static void
open_files(void)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char path[256];
	int fd;

	(void) snprintf(path, sizeof (path), "%s/locked", tmpdir);
	keep(fd = open(path, O_RDWR | O_CREAT | O_APPEND, 0644), "posix-lock");
	if (write(fd, "0123456789", 10) != 10 || fcntl(fd, F_SETLK, &fl) != 0)
		die("posix lock");
	(void) snprintf(path, sizeof (path), "%s/ofd", tmpdir);
	keep(fd = open(path, O_RDWR | O_CREAT, 0600), "ofd-lock");
	fl.l_type = F_RDLCK;
	fl.l_start = 10;
	fl.l_len = 20;
	if (fcntl(fd, F_OFD_SETLK, &fl) != 0)
		die("ofd lock");
	(void) snprintf(path, sizeof (path), "%s/flock", tmpdir);
	keep(fd = open(path, O_WRONLY | O_CREAT | O_SYNC, 0600), "flock");
	if (flock(fd, LOCK_EX) != 0)
		die("flock");
	keep(open(tmpdir, O_RDONLY | O_DIRECTORY), "dir");
	keep(open("/dev/null", O_WRONLY | O_NONBLOCK), "devnull");
	keep(open(tmpdir, O_PATH), "O_PATH");
	keep(memfd_create("seed", MFD_CLOEXEC), "memfd");
}

static void
open_special(void)
{
	int p[2], ep, in;
	struct epoll_event ev = { .events = EPOLLIN };
	struct itimerspec its = { .it_value = { 100, 0 } };
	sigset_t ss;

	if (pipe2(p, O_NONBLOCK) != 0)
		die("pipe");
	keep(p[0], "pipe");
	keep(p[1], "pipe");
	keep(eventfd(7, EFD_CLOEXEC), "eventfd");
	keep(ep = epoll_create1(0), "epoll");
	ev.data.fd = p[0];
	if (epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) != 0)
		die("epoll_ctl");
	keep(in = inotify_init1(IN_NONBLOCK), "inotify");
	if (inotify_add_watch(in, tmpdir, IN_CREATE | IN_DELETE) < 0)
		die("inotify_add_watch");
	keep(p[0] = timerfd_create(CLOCK_MONOTONIC, 0), "timerfd");
	(void) timerfd_settime(p[0], 0, &its, NULL);
	(void) sigemptyset(&ss);
	(void) sigaddset(&ss, SIGUSR1);
	keep(signalfd(-1, &ss, 0), "signalfd");
}

static int tcp_client;	/* for the marshal seeds */

static void
open_tcp(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct linger lg = { 1, 5 };
	socklen_t len = sizeof (sin);
	int l, c, a, one = 1, sz = 65536;

	keep(l = socket(AF_INET, SOCK_STREAM, 0), "tcp");
	(void) setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof (one));
	(void) setsockopt(l, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof (one));
	if (bind(l, (struct sockaddr *)&sin, sizeof (sin)) != 0 ||
	    listen(l, 4) != 0 || getsockname(l, (struct sockaddr *)&sin,
	    &len) != 0)
		die("tcp listen");
	keep(c = socket(AF_INET, SOCK_STREAM, 0), "tcp");
	tcp_client = c;
	(void) setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof (lg));
	(void) setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof (one));
	(void) setsockopt(c, SOL_SOCKET, SO_SNDBUF, &sz, sizeof (sz));
	if (connect(c, (struct sockaddr *)&sin, sizeof (sin)) != 0)
		die("tcp connect");
	keep(a = accept(l, NULL, NULL), "accept");
}

static void
open_udp(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK), .sin_port = 0 };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6,
	    .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int s, one = 1;

	keep(s = socket(AF_INET, SOCK_DGRAM, 0), "udp");
	(void) setsockopt(s, SOL_SOCKET, SO_BROADCAST, &one, sizeof (one));
	if (bind(s, (struct sockaddr *)&sin, sizeof (sin)) != 0)
		die("udp bind");
	/* No IPv6 on this machine: leave it out. */
	if ((s = socket(AF_INET6, SOCK_DGRAM, 0)) >= 0 &&
	    bind(s, (struct sockaddr *)&sin6, sizeof (sin6)) == 0)
		keep(s, "udp6");
}

static void
open_unix(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len;
	int l, c, sp[2], one = 1;

	(void) snprintf(sun.sun_path, sizeof (sun.sun_path), "%s/sock",
	    tmpdir);
	keep(l = socket(AF_UNIX, SOCK_STREAM, 0), "unix");
	if (bind(l, (struct sockaddr *)&sun, sizeof (sun)) != 0 ||
	    listen(l, 4) != 0)
		die("unix listen");
	keep(c = socket(AF_UNIX, SOCK_STREAM, 0), "unix");
	(void) setsockopt(c, SOL_SOCKET, SO_PASSCRED, &one, sizeof (one));
	if (connect(c, (struct sockaddr *)&sun, sizeof (sun)) != 0)
		die("unix connect");
	keep(accept(l, NULL, NULL), "unix accept");

	/* Abstract, with a byte that must be escaped. */
	memset(sun.sun_path, 0, sizeof (sun.sun_path));
	(void) snprintf(sun.sun_path + 1, sizeof (sun.sun_path) - 1,
	    "mkseeds\001%d", (int)getpid());
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(sun.sun_path + 1));
	keep(l = socket(AF_UNIX, SOCK_SEQPACKET, 0), "abstract");
	if (bind(l, (struct sockaddr *)&sun, len) != 0)
		die("abstract bind");
	keep(socket(AF_UNIX, SOCK_DGRAM, 0), "unnamed");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0)
		die("socketpair");
	keep(sp[0], "socketpair");
	keep(sp[1], "socketpair");
}

static void
open_netlink(void)
{
	struct sockaddr_nl snl = { .nl_family = AF_NETLINK };
	int s;

	keep(s = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE), "netlink");
	if (bind(s, (struct sockaddr *)&snl, sizeof (snl)) != 0)
		die("netlink bind");
	if ((s = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_SOCK_DIAG)) >= 0)
		keep(s, "netlink diag");
}

/*
 * fdinfo: each fd's file, fed whole and in pieces of 1, 7 and 64.  The
 * files with locks are always kept in the corpus (keep-), as examples.
 */
static void
fdinfo_seeds(void)
{
	static const uint8_t whole[] = { 0 };
	static const uint8_t chunky[] = { 3, 1, 7, 64 };
	char path[64], name[128], buf[8192];
	const char *pfx;
	ssize_t n;

	for (int i = 0; i < nfds; i++) {
		(void) snprintf(path, sizeof (path), "/proc/self/fdinfo/%d",
		    fds[i]);
		if ((n = slurp(path, buf, sizeof (buf))) < 0)
			die(path);
		pfx = memmem(buf, (size_t)n, "lock:", 5) != NULL ? "keep-real" :
		    "real";
		(void) snprintf(name, sizeof (name), "%s-%02d-%s", pfx, i,
		    fdnames[i]);
		seed("fdinfo", name, (const void *)whole, sizeof (whole),
		    (const void *)buf, (size_t)n, NULL);
		(void) strncat(name, "-chunks",
		    sizeof (name) - strlen(name) - 1);
		seed("fdinfo", name, (const void *)chunky, sizeof (chunky),
		    (const void *)buf, (size_t)n, NULL);
	}
}

static void
fdinfo_edge_seeds(void)
{
	static const uint8_t whole[] = { 0 };
	static const uint8_t split[] = { 2, 255, 1 };
	static const uint8_t odd_chunks[] = { 2, 1, 8 };
	static const char trunc[] = "pos:\t12\nflags:\t0100002\nmnt_id:\t2";
	static const char odd[] =
	    "pos:\t9223372036854775807\nflags:\t037777777777\n"
	    "ino:\t18446744073709551615\nmnt_id:\t2147483647\n"
	    "lock:\t1: LEASE  ACTIVE    READ  -1 00:00:0 0 EOF\n"
	    "lock:\t2: POSIX  MANDATORY UNLCK 2147483647 fe:00:1 0 EOF\n"
	    "lock:\t3: DELEG  ACTIVE    WRITE 1 00:00:0 0 EOF\n"
	    "pos:\t9223372036854775808\nflags:\t8\nmnt_id:\t-1\n"
	    "pos: \t 5 \t\npos:\npos:\t1 2\nlock:\t1:\nlock:\tx: A B C 1\n"
	    "eventfd-count:\t7\ntfd:        5 events:       19 data: 5\n";
	static const char over[] = "pos:\t9223372036854775808\n"
	    "flags:\t40000000000\nmnt_id:\t2147483648\n"
	    "lock:\t1: POSIX ADVISORY WRITE 2147483648 0:0:0 0 EOF\n";
	static const char after[] =
	    "pos:\t1\nflags:\t02\neventfd-count:\t3\npos:\t2\n"
	    "lock:\t1: POSIX ADVISORY WRITE 1 0:0:0 0 EOF\n\nino:\t9";
	char line[2048], *many;
	size_t n, off;

	seed("fdinfo", "keep-edge-truncated", (const void *)whole,
	    sizeof (whole), (const void *)trunc, sizeof (trunc) - 1, NULL);
	seed("fdinfo", "keep-edge-values", (const void *)split, sizeof (split),
	    (const void *)odd, sizeof (odd) - 1, NULL);

	/* Lines of 256 (kept) and 257 (passed over) bytes, then 520. */
	n = (size_t)snprintf(line, sizeof (line), "pos:\t%0251d\n", 42);
	n += (size_t)snprintf(line + n, sizeof (line) - n, "pos:\t%0252d\n",
	    43);
	memset(line + n, 'x', 520);
	(void) memcpy(line + n + 520, "\nflags:\t02\n", 11);
	seed("fdinfo", "keep-edge-long-lines", (const void *)split,
	    sizeof (split), (const void *)line, n + 531, NULL);

	/* Known keys after a type's own line: the parser is done by then. */
	seed("fdinfo", "keep-edge-after-type-lines", (const void *)split,
	    sizeof (split), (const void *)after, sizeof (after) - 1, NULL);

	/* Values one past what their fields hold. */
	seed("fdinfo", "keep-edge-overflows", (const void *)whole,
	    sizeof (whole), (const void *)over, sizeof (over) - 1, NULL);

	/* An overlong last line, unterminated, that starts well. */
	n = (size_t)snprintf(line, sizeof (line), "flags:\t02\npos:\t7");
	memset(line + n, ' ', 300);
	seed("fdinfo", "keep-edge-overlong-last", (const void *)odd_chunks,
	    sizeof (odd_chunks), (const void *)line, n + 300, NULL);

	/* More lock lines than are kept. */
	if ((many = malloc(300 * 64)) == NULL)
		die("malloc");
	for (off = 0, n = 1; n <= 300; n++)
		off += (size_t)sprintf(many + off,
		    "lock:\t%zu: FLOCK ADVISORY WRITE %zu 0:0:0 0 EOF\n", n, n);
	seed("fdinfo", "keep-edge-many-locks", (const void *)whole,
	    sizeof (whole), (const void *)many, off, NULL);
	free(many);
}

/* procfs: header (resource, cmdline buffer size), then the text. */
static void
procfs_seed(const char *name, int resource, const char *path)
{
	uint8_t hdr[2] = { (uint8_t)resource, 80 };
	char buf[8192];
	ssize_t n;

	if ((n = slurp(path, buf, sizeof (buf))) < 0)
		return;		/* pid 2 may not be visible */
	seed("procfs", name, (const void *)hdr, sizeof (hdr),
	    (const void *)buf, (size_t)n, NULL);
}

static void
procfs_seeds(void)
{
	char comm[16];

	procfs_seed("keep-self-stat", RLIMIT_NOFILE, "/proc/self/stat");
	(void) prctl(PR_GET_NAME, comm);
	(void) prctl(PR_SET_NAME, "a) (b c) S 1");
	procfs_seed("keep-self-stat-parens", RLIMIT_NOFILE, "/proc/self/stat");
	(void) prctl(PR_SET_NAME, comm);
	procfs_seed("keep-self-cmdline", RLIMIT_NOFILE, "/proc/self/cmdline");
	procfs_seed("keep-self-limits-nofile", RLIMIT_NOFILE,
	    "/proc/self/limits");
	procfs_seed("self-limits-stack", RLIMIT_STACK, "/proc/self/limits");
	procfs_seed("init-stat", RLIMIT_RTTIME, "/proc/1/stat");
	procfs_seed("init-cmdline", RLIMIT_CPU, "/proc/1/cmdline");
	procfs_seed("keep-kthreadd-stat", -1, "/proc/2/stat");
	procfs_seed("keep-self-status", RLIMIT_NOFILE, "/proc/self/status");
	procfs_seed("init-status", RLIMIT_NOFILE, "/proc/1/status");
	/* A status cut inside TracerPid's value; keys not at a line start. */
	seed("procfs", "keep-edge-status-cut", (const void *)"\x07\x50", 2,
	    (const void *)"Name:\tState: Z\nState:\t\tt (tracing stop)\n"
	    "Seccomp_filters:\t1\nSeccomp:\t2\nTracerPid:\t42", 83, NULL);
	/* A stat line cut right after the comm, and after the state. */
	seed("procfs", "keep-edge-stat-cut", (const void *)"\x07\x50", 2,
	    (const void *)"1 (a) ", 6, NULL);
	seed("procfs", "keep-edge-stat-state", (const void *)"\x07\x50", 2,
	    (const void *)"1 (a) S", 7, NULL);
}

/*
 * maps: header (sp and pc, 8 bytes each, little-endian; a byte that
 * seeds the sizes of the pieces), then the text.  The real texts are
 * this process's own, from the main thread and from a thread of its
 * own (a glibc stack over its guard page), cut to the lines that matter
 * so that each seed stays under MAPS_SEED_MAX: the lines of sp and pc,
 * the line before sp's (the guard), the named and anonymous ones, and
 * as many of the others as fit.  The edge cases are built from known
 * numbers.
 */
#define	MAPS_SEED_MAX	3584

static void
maps_seed(const char *name, uint64_t sp, uint64_t pc, uint8_t pieces,
    const char *text, size_t len)
{
	uint8_t hdr[17];

	for (int i = 0; i < 8; i++) {
		hdr[i] = (uint8_t)(sp >> (8 * i));
		hdr[8 + i] = (uint8_t)(pc >> (8 * i));
	}
	hdr[16] = pieces;
	seed("maps", name, (const void *)hdr, sizeof (hdr),
	    (const void *)text, len, NULL);
}

/* Is a line (not NUL-ended) one that a cut text must keep? */
static int
maps_must(const char *line, size_t n, const char *next, size_t nextn,
    uint64_t sp, uint64_t pc)
{
	unsigned long long lo, hi;
	char buf[128];

	for (int i = 0; i < 2; i++) {
		const char *l = i == 0 ? line : next;
		size_t ln = i == 0 ? n : nextn;

		if (l == NULL)
			continue;
		if (ln >= sizeof (buf))
			ln = sizeof (buf) - 1;
		memcpy(buf, l, ln);
		buf[ln] = '\0';
		if (sscanf(buf, "%llx-%llx", &lo, &hi) != 2)
			continue;
		/* This line holds sp or pc; or the next holds sp. */
		if (sp >= lo && sp < hi)
			return (1);
		if (i == 0 && pc >= lo && pc < hi)
			return (1);
	}
	return (memmem(line, n, "[vdso]", 6) != NULL ||
	    memmem(line, n, "[stack]", 7) != NULL ||
	    memmem(line, n, "[heap]", 6) != NULL);
}

/*
 * The lines of in that a seed keeps, in their order, into out: first
 * those it must, then the anonymous and [named] ones, then those of
 * files, each kind while there is room.  An unterminated tail is left.
 */
static size_t
maps_cut(const char *in, size_t len, uint64_t sp, uint64_t pc, char *out,
    size_t outsz)
{
	const char *end = in + len, *p, *nl, *next, *nnl;
	size_t sum[3] = { 0, 0, 0 }, room[3], n, nextn, o = 0;
	int kind;

	/* Pass k sizes kind k; the last pass copies what was chosen. */
	for (int pass = 0; pass < 4; pass++) {
		size_t used[3] = { 0, 0, 0 };

		for (p = in; p < end; p = nl + 1) {
			if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
				break;
			n = (size_t)(nl - p) + 1;
			next = nl + 1 < end ? nl + 1 : NULL;
			nextn = 0;
			if (next != NULL) {
				nnl = memchr(next, '\n', (size_t)(end - next));
				nextn = nnl != NULL ? (size_t)(nnl - next) :
				    (size_t)(end - next);
			}
			if (maps_must(p, n - 1, next, nextn, sp, pc))
				kind = 0;
			else
				kind = memchr(p, '/', n) == NULL ? 1 : 2;
			if (kind > pass || (pass < 3 && kind < pass))
				continue;
			room[kind] = outsz;
			for (int k = 0; k < kind; k++)
				room[kind] -= sum[k] < room[kind] ?
				    sum[k] : room[kind];
			if (used[kind] + n > room[kind])
				continue;
			used[kind] += n;
			if (pass < 3) {
				sum[kind] += n;
			} else {
				memcpy(out + o, p, n);
				o += n;
			}
		}
	}
	return (o);
}

static char maps_text[1 << 20];

static void
maps_real_seed(const char *name, uint64_t sp, uint64_t pc, uint8_t pieces)
{
	char out[MAPS_SEED_MAX];
	ssize_t n;

	if ((n = slurp("/proc/self/maps", maps_text, sizeof (maps_text))) < 0)
		die("/proc/self/maps");
	maps_seed(name, sp, pc, pieces, out,
	    maps_cut(maps_text, (size_t)n, sp, pc, out, sizeof (out)));
}

/* A thread's own view: its stack is glibc's, over a guard page. */
static void *
maps_thread(void *arg)
{
	uint64_t sp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	uint64_t vdso = (uint64_t)getauxval(AT_SYSINFO_EHDR);

	/* pc: inside the vDSO, where the agent looks for a syscall. */
	maps_real_seed("keep-real-thread", sp, vdso != 0 ? vdso + 0x10 : 0,
	    61);
	return (arg);
}

static void
maps_seeds(void)
{
	uint64_t sp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	uint64_t pc = (uint64_t)(uintptr_t)&maps_seeds;
	const uint64_t guard = 0x7f0000001000ULL, stk = guard + 0x1000;
	const uint64_t stkhi = stk + 0x800000, exe = 0x555555554000ULL;
	char text[4096], *big;
	size_t n;
	pthread_t t;
	int err;

	maps_real_seed("keep-real-main", sp, pc, 7);
	maps_real_seed("real-main-bytewise", sp, pc, 0);
	if ((err = pthread_create(&t, NULL, maps_thread, NULL)) != 0 ||
	    (err = pthread_join(t, NULL)) != 0) {
		errno = err;
		die("pthread");
	}

	/*
	 * A thread stack over its guard, sp in it; pc two bytes below the
	 * end of the program's text (pc + 2 == hi: executable).
	 */
	n = (size_t)snprintf(text, sizeof (text),
	    "%llx-%llx r-xp 00001000 fe:00 4242                       "
	    "/usr/bin/prog\n"
	    "%llx-%llx rw-p 00000000 00:00 0                          "
	    "[heap]\n"
	    "%llx-%llx ---p 00000000 00:00 0 \n"
	    "%llx-%llx rw-p 00000000 00:00 0 \n"
	    "7ffff7fc1000-7ffff7fc3000 r-xp 00000000 00:00 0                  "
	    "[vdso]\n"
	    "7ffffffde000-7ffffffff000 rw-p 00000000 00:00 0                  "
	    "[stack]\n",
	    (unsigned long long)exe, (unsigned long long)exe + 0x1000,
	    (unsigned long long)exe + 0x2000, (unsigned long long)exe + 0x23000,
	    (unsigned long long)guard, (unsigned long long)stk,
	    (unsigned long long)stk, (unsigned long long)stkhi);
	maps_seed("keep-edge-guarded-pc-end", stkhi - 0x100, exe + 0x1000 - 2,
	    13, text, n);
	/* The same, pc one byte further: pc + 2 > hi, not executable. */
	maps_seed("keep-edge-pc-past-end", stkhi - 0x100, exe + 0x1000 - 1,
	    200, text, n);

	/*
	 * Mappings over something that is not quite a guard: a gap
	 * between them, a shared ---s, a named mapping over a ---p.  sp
	 * in each: not a stack of a known kind.
	 */
	n = 0;
	for (int i = 0; i < 3; i++) {
		static const char *const low[] = { "---p", "---s", "---p" };
		static const char *const name[] = { "", "", "/memfd:x" };
		uint64_t base = 0x7f0000900000ULL + (uint64_t)i * 0x100000;

		n += (size_t)snprintf(text + n, sizeof (text) - n,
		    "%llx-%llx %s 00000000 00:00 0 \n"
		    "%llx-%llx rw-p 00000000 00:00 0 %s\n",
		    (unsigned long long)base,
		    (unsigned long long)base + 0x1000, low[i],
		    (unsigned long long)base + (i == 0 ? 0x2000 : 0x1000),
		    (unsigned long long)base + 0x100000, name[i]);
	}
	maps_seed("keep-edge-gap-under", 0x7f0000902000ULL, 0, 11, text, n);
	maps_seed("keep-edge-shared-under", 0x7f0000a01000ULL, 0, 17, text, n);
	maps_seed("keep-edge-named-over-guard", 0x7f0000bfffffULL, 0, 2, text,
	    n);

	/*
	 * Malformed lines between the guard and the stack: they are not
	 * "the previous line", so the stack is still over its guard.
	 * Before them, a [vdso] with leading zeros (which is fine); then
	 * overflowing numbers, an empty and an inverted range, a cut
	 * line, a 0x, a NUL, an empty line.
	 */
	n = (size_t)snprintf(text, sizeof (text),
	    "00000000000000001000-00000000000000002000 r-xp 0 0:0 0 [vdso]\n"
	    "%llx-%llx ---p 00000000 00:00 0 \n"
	    "10000000000000000-10000000000001000 rw-p 00000000 00:00 0\n"
	    "1000-fffffffffffffffff r-xp 00000000 00:00 0\n"
	    "3000-3000 rw-p 00000000 00:00 0 [vdso]\n"
	    "5000-4000 rw-p 00000000 00:00 0 [vdso]\n"
	    "6000-7000 rw\n"
	    "0x6000-0x7000 r-xp 00000000 00:00 0\n"
	    "8000-9000%c r-xp 00000000 00:00 0\n"
	    "\n"
	    "%llx-%llx rw-p 00000000 00:00 0 \n",
	    (unsigned long long)guard, (unsigned long long)stk, '\0',
	    (unsigned long long)stk, (unsigned long long)stkhi);
	maps_seed("keep-edge-malformed", stk, 0x1ffe, 3, text, n);

	/*
	 * The top of the address space: pc + 2 == hi there, then pc past
	 * it, where pc + 2 wraps.
	 */
	n = (size_t)snprintf(text, sizeof (text),
	    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0"
	    "                  [vsyscall]\n"
	    "fffffffffffff000-ffffffffffffffff r-xp 00000000 00:00 0\n");
	maps_seed("keep-edge-top", UINT64_MAX - 1, UINT64_MAX - 2, 1, text,
	    n);
	maps_seed("keep-edge-top-pc-wraps", 0xffffffffff600000ULL,
	    UINT64_MAX - 1, 90, text, n);

	/* A [vdso] last, without its newline. */
	n = (size_t)snprintf(text, sizeof (text),
	    "%llx-%llx rw-p 00000000 00:00 0          [stack]\n"
	    "7ffff7fc1000-7ffff7fc3000 r-xp 00000000 00:00 0 [vdso]",
	    (unsigned long long)stk, (unsigned long long)stkhi);
	maps_seed("keep-edge-unterminated", stk, 0x7ffff7fc1000ULL, 5, text,
	    n);

	/*
	 * Overlong lines: a guard whose name is cut at MAPS_LINEMAX - 1
	 * bytes, right where what looks like a [vdso] line holding pc
	 * begins (it is dropped, not read as a line); then 1500 bytes of
	 * junk; then the stack over the guard.
	 */
	if ((big = malloc(4096)) == NULL)
		die("malloc");
	n = (size_t)snprintf(big, 4096, "%llx-%llx ---p 00000000 00:00 0 /",
	    (unsigned long long)guard, (unsigned long long)stk);
	memset(big + n, 'n', 700);
	(void) memcpy(big + MAPS_LINEMAX - 1, "1000-2000 r-xp 0 0:0 0 [vdso]",
	    29);
	n += 700;
	big[n++] = '\n';
	memset(big + n, '7', 1500);
	n += 1500;
	big[n++] = '\n';
	n += (size_t)snprintf(big + n, 4096 - n,
	    "%llx-%llx rw-p 00000000 00:00 0 \n",
	    (unsigned long long)stk, (unsigned long long)stkhi);
	maps_seed("keep-edge-overlong", stk + 0x10, 0x1800, 37, big, n);
	free(big);
}

/*
 * sockfmt: one seed per record Pfdinfo_iter gives for the child, with the
 * record's sockname (or peername) as the address, the items as a list,
 * and again as a raw record.
 */
static int
record_seed(void *arg, const prfdinfo_t *info)
{
	const pr_misc_header_t *h;
	const void *sa, *pp;
	uint8_t pre[6], *items, flags = info->pr_fd % 3 == 2 ? SF_STATONLY : 0;
	size_t salen = 0, plen, off, n = 0;
	int proto = -1;
	char name[64];

	if ((sa = proc_fdinfo_misc(info, PR_SOCKETNAME, &salen)) == NULL)
		sa = proc_fdinfo_misc(info, PR_PEERSOCKNAME, &salen);
	if (sa == NULL)
		sa = "";	/* salen is 0 */
	if ((pp = proc_fdinfo_misc(info, PR_SOCKOPT_PROTOCOL, &plen)) != NULL &&
	    plen == sizeof (proto))
		memcpy(&proto, pp, sizeof (proto));
	if (salen > 255)
		salen = 255;
	pre[0] = flags;
	pre[1] = (uint8_t)salen;
	memcpy(pre + 2, &proto, sizeof (proto));	/* little-endian host */

	/* The items, each as type, 16-bit length, payload. */
	if ((items = malloc(info->pr_misc_size * 2 + 1)) == NULL)
		die("malloc");
	for (off = 0; off + sizeof (*h) <= info->pr_misc_size;
	    off += (h->pr_misc_size + 7) & ~7U) {
		h = (const void *)(info->pr_misc + off);
		plen = h->pr_misc_size - sizeof (*h);
		items[n++] = (uint8_t)h->pr_misc_type;
		items[n++] = (uint8_t)plen;
		items[n++] = (uint8_t)(plen >> 8);
		memcpy(items + n, info->pr_misc + off + sizeof (*h), plen);
		n += plen;
	}
	(void) snprintf(name, sizeof (name), "real-fd%d", info->pr_fd);
	seed("sockfmt", name, (const void *)pre, sizeof (pre), sa, salen,
	    (const void *)info, FIXED_SIZE, (const void *)items, n, NULL);
	pre[0] = flags | SF_RAW;
	(void) snprintf(name, sizeof (name), "real-fd%d-raw", info->pr_fd);
	seed("sockfmt", name, (const void *)pre, sizeof (pre), sa, salen,
	    (const void *)info, FIXED_SIZE, (const void *)info->pr_misc,
	    (size_t)info->pr_misc_size, NULL);
	free(items);
	return (0);
}

/* Addresses of other families and at odd lengths, with an empty record. */
static void
sockaddr_seed(const char *name, int family, size_t len, int proto,
    const void *tail, size_t taillen)
{
	uint8_t buf[2 + 4 + 256];
	sa_family_t f = (sa_family_t)family;

	memset(buf, 0, sizeof (buf));
	buf[1] = (uint8_t)len;
	memcpy(buf + 2, &proto, sizeof (proto));
	memcpy(buf + 6, &f, sizeof (f));
	if (taillen > 0)
		memcpy(buf + 6 + sizeof (f), tail, taillen);
	seed("sockfmt", name, (const void *)buf, 6 + len, NULL);
}

/*
 * A raw record (SF_RAW) that ends with a PR_PATHNAME item without its
 * NUL, and without padding: the last bytes of the record.
 */
static void
path_unterminated_seed(void)
{
	static const char path[] = "/tmp/x";
	uint8_t pre[6] = { SF_RAW, 0, 0xff, 0xff, 0xff, 0xff };
	pr_misc_header_t h = { sizeof (h) + sizeof (path) - 1, PR_PATHNAME };
	prfdinfo_t info;

	memset(&info, 0, sizeof (info));
	info.pr_fd = 3;
	info.pr_mode = S_IFREG | 0644;
	info.pr_offset = 0;
	seed("sockfmt", "keep-edge-path-unterminated", (const void *)pre,
	    sizeof (pre), (const void *)&info, FIXED_SIZE, (const void *)&h,
	    sizeof (h), (const void *)path, sizeof (path) - 1, NULL);
}

static void
sockfmt_edge_seeds(void)
{
	uint8_t bytes[sizeof (((struct sockaddr_un *)0)->sun_path)];
	uint8_t storage[sizeof (struct sockaddr_storage) - 2];
	static const uint8_t in6[] = { 0x1f, 0x90, 0, 0, 0, 0, 0xfe, 0x80,
	    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	static const uint8_t nl[] = { 0, 0, 0x39, 0x30, 0, 0, 1, 0, 0, 0 };

	for (size_t i = 0; i < sizeof (bytes); i++)
		bytes[i] = (uint8_t)(i * 37);
	sockaddr_seed("keep-edge-unix-full", AF_UNIX, 2 + sizeof (bytes), 0,
	    bytes + 1, sizeof (bytes) - 1);
	bytes[0] = 0;
	sockaddr_seed("keep-edge-unix-abstract-bytes", AF_UNIX,
	    2 + sizeof (bytes), 0, bytes, sizeof (bytes));
	sockaddr_seed("keep-edge-unix-unnamed", AF_UNIX, 2, 0, NULL, 0);
	/* Longer than a sockaddr_un, as a sockaddr_storage can be. */
	memset(storage, 'x', sizeof (storage));
	storage[0] = '/';
	sockaddr_seed("keep-edge-unix-storage", AF_UNIX, 2 + sizeof (storage),
	    0, storage, sizeof (storage));
	sockaddr_seed("keep-edge-inet-short", AF_INET, 15, 6, in6, 13);
	sockaddr_seed("keep-edge-inet6-scoped", AF_INET6, 28, 17, in6,
	    sizeof (in6));
	sockaddr_seed("keep-edge-inet6-short", AF_INET6, 27, 17, in6,
	    sizeof (in6));
	sockaddr_seed("keep-edge-netlink-groups", AF_NETLINK, 12, 99, nl,
	    sizeof (nl));
	sockaddr_seed("keep-edge-packet", AF_PACKET, 20, 0, in6, 18);
	sockaddr_seed("keep-edge-unknown-family", 200, 16, 0, NULL, 0);
	sockaddr_seed("keep-edge-netlink-short", AF_NETLINK, 8, 0, nl,
	    sizeof (nl));
	path_unterminated_seed();
	sockaddr_seed("keep-edge-one-byte", AF_INET, 1, 0, NULL, 0);
}

/*
 * marshal: batches as the agent builds them, in the harness's encoding
 * (fuzz/marshal.c), with a real stack pointer and stack mapping of this
 * process and the answers real calls give on a real TCP socket.
 */
typedef struct sbuf {
	uint8_t	sb_buf[16384];
	size_t	sb_len;
} sbuf_t;

static void
put(sbuf_t *sb, const void *p, size_t n)
{
	if (n > sizeof (sb->sb_buf) - sb->sb_len)
		die("seed too big");
	memcpy(sb->sb_buf + sb->sb_len, p, n);
	sb->sb_len += n;
}

static void
put8(sbuf_t *sb, unsigned v)
{
	uint8_t b = (uint8_t)v;

	put(sb, &b, 1);
}

static void
putle(sbuf_t *sb, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put8(sb, (unsigned)(v >> (8 * i)) & 0xff);
}

#define	M_STACK		0x01
#define	MARSHAL_MAXCALLS_SEED	64	/* marshal.h's MARSHAL_MAXCALLS */

/* A by-value argument, given as 8 bytes. */
static void
m_byval(sbuf_t *sb, long v)
{
	put8(sb, AT_BYVAL | 0x20);
	putle(sb, 0, 2);
	putle(sb, (uint64_t)v, 8);
}

/* A call's number, given as 4 bytes. */
static void
m_sys(sbuf_t *sb, int sys)
{
	put8(sb, 0xff);
	putle(sb, (uint64_t)(uint32_t)sys, 4);
}

/* A by-reference argument; in is its input bytes (NULL: output only). */
static void
m_byref(sbuf_t *sb, int inout, size_t size, const void *in)
{
	put8(sb, AT_BYREF | inout << 2);
	putle(sb, size, 2);
	put8(sb, 0);
	if (inout & AI_INPUT)
		put(sb, in, size);
}

/* The [stack] mapping of this process: its start, or 0. */
static uint64_t
stack_start(void)
{
	unsigned long long lo = 0, hi;
	char line[512];
	FILE *f;

	if ((f = fopen("/proc/self/maps", "r")) == NULL)
		return (0);
	while (fgets(line, sizeof (line), f) != NULL) {
		if (strstr(line, "[stack]") != NULL &&
		    sscanf(line, "%llx-%llx", &lo, &hi) == 2)
			break;
		lo = 0;
	}
	(void) fclose(f);
	return (lo);
}

static void
m_stack_area(sbuf_t *sb, size_t budget)
{
	uint64_t sp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	uint64_t lo = stack_start();

	put8(sb, M_STACK);
	putle(sb, sp, 8);
	putle(sb, lo != 0 && lo < sp ? sp - lo : 8 * 1024 * 1024, 4);
	putle(sb, budget, 4);
}

/* An area given outright: [lo, lo + len). */
static void
m_area(sbuf_t *sb, uint64_t lo, uint32_t len)
{
	put8(sb, 0);
	putle(sb, lo, 8);
	putle(sb, len, 4);
	putle(sb, 0, 8);
}

/* getsockopt(fd, level, name, &v, &len) on fd here: call and answer. */
static void
m_getsockopt(sbuf_t *sb, sbuf_t *ans, int fd, int level, int name,
    size_t size)
{
	uint8_t v[64] = { 0 };
	socklen_t len = (socklen_t)size;
	uint32_t len32 = (uint32_t)size;

	(void) getsockopt(fd, level, name, v, &len);
	m_sys(sb, SYS_getsockopt);
	put8(sb, 5);
	m_byval(sb, fd);
	m_byval(sb, level);
	m_byval(sb, name);
	m_byref(sb, AI_OUTPUT, size, NULL);
	m_byref(sb, AI_INOUT, 4, &len32);
	/* Outputs in call order, each in a room of 8-byte multiples. */
	put(ans, v, (size + 7) & ~(size_t)7);
	len32 = (uint32_t)len;
	put(ans, &len32, 4);
	putle(ans, 0, 4);
}

static void
m_getname(sbuf_t *sb, sbuf_t *ans, int fd, int peer)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof (ss);
	uint32_t len32 = sizeof (ss);

	memset(&ss, 0, sizeof (ss));
	(void) (peer ? getpeername : getsockname)(fd, (struct sockaddr *)&ss,
	    &len);
	m_sys(sb, peer ? SYS_getpeername : SYS_getsockname);
	put8(sb, 3);
	m_byval(sb, fd);
	m_byref(sb, AI_OUTPUT, sizeof (ss), NULL);
	m_byref(sb, AI_INOUT, 4, &len32);
	put(ans, &ss, sizeof (ss));
	len32 = (uint32_t)len;
	put(ans, &len32, 4);
	putle(ans, 0, 4);
}

/* The batch pfiles runs for one socket, with the socket's answers. */
static void
marshal_socket_seed(const char *name, int fd, uint32_t hostile_len)
{
	static const int opts[] = { SO_TYPE, SO_PROTOCOL, SO_DOMAIN,
	    SO_DEBUG, SO_REUSEADDR, SO_KEEPALIVE, SO_DONTROUTE, SO_BROADCAST,
	    SO_OOBINLINE, SO_REUSEPORT, SO_PASSCRED, SO_ACCEPTCONN, SO_SNDBUF,
	    SO_RCVBUF };
	static sbuf_t sb, ans;
	uint_t n = 0;

	sb.sb_len = ans.sb_len = 0;
	m_stack_area(&sb, 64 * 1024);
	put8(&sb, (unsigned)(sizeof (opts) / sizeof (opts[0]) + 5));
	for (size_t i = 0; i < sizeof (opts) / sizeof (opts[0]); i++, n++)
		m_getsockopt(&sb, &ans, fd, SOL_SOCKET, opts[i], sizeof (int));
	m_getsockopt(&sb, &ans, fd, SOL_SOCKET, SO_LINGER,
	    sizeof (struct linger));
	m_getsockopt(&sb, &ans, fd, SOL_SOCKET, SO_PEERCRED,
	    sizeof (struct ucred));
	m_getsockopt(&sb, &ans, fd, IPPROTO_TCP, TCP_NODELAY, sizeof (int));
	m_getname(&sb, &ans, fd, 0);
	m_getname(&sb, &ans, fd, 1);
	n += 5;
	for (uint_t c = 0; c < n; c++) {
		put8(&sb, 2);		/* rax: a small value, 0 */
		putle(&sb, 0, 2);
	}
	if (hostile_len != 0)	/* the target lies about SO_TYPE's length */
		memcpy(ans.sb_buf + 8, &hostile_len, 4);
	put(&sb, ans.sb_buf, ans.sb_len);
	seed("marshal", name, (const void *)sb.sb_buf, sb.sb_len, NULL);
}

static void
marshal_seeds(int sock)
{
	static sbuf_t sb;
	uint8_t buf[32] = { 0 };

	marshal_socket_seed("real-socket-batch", sock, 0);
	marshal_socket_seed("keep-real-socket-batch-hostile-len", sock,
	    0xffffffff);

	/* One read(2), explicit area, the target claiming a huge count. */
	sb.sb_len = 0;
	m_area(&sb, 0x7ffc00000000ULL, 4096);
	put8(&sb, 1);
	m_sys(&sb, SYS_read);
	put8(&sb, 3);
	m_byval(&sb, 3);
	m_byref(&sb, AI_OUTPUT, 16, NULL);
	m_byval(&sb, 16);
	put8(&sb, 3);
	putle(&sb, 1000000, 8);
	put(&sb, "0123456789abcdef", 16);
	seed("marshal", "keep-read-rval", (const void *)sb.sb_buf, sb.sb_len,
	    NULL);

	/* An area that holds the block exactly, and a call interrupted. */
	sb.sb_len = 0;
	m_area(&sb, 0x10000, 16);
	put8(&sb, 1);
	m_sys(&sb, SYS_fstat);
	put8(&sb, 2);
	m_byval(&sb, 0);
	m_byref(&sb, AI_OUTPUT, 16, NULL);
	put8(&sb, 1 | 4 * 3);		/* rax: -(512 + 3), ERESTARTNOHAND */
	put(&sb, buf, 16);
	seed("marshal", "keep-tight-area-restart", (const void *)sb.sb_buf,
	    sb.sb_len, NULL);

	/* Invalid, each alone: seven arguments; an object past MAXARGL. */
	sb.sb_len = 0;
	m_area(&sb, 0x10000, 65536);
	put8(&sb, 1);
	m_sys(&sb, SYS_mmap);
	put8(&sb, 7);
	for (int i = 0; i < 7; i++)
		m_byval(&sb, i);
	seed("marshal", "keep-invalid-nargs", (const void *)sb.sb_buf,
	    sb.sb_len, NULL);
	sb.sb_len = 0;
	m_area(&sb, 0x10000, 65536);
	put8(&sb, 1);
	m_sys(&sb, SYS_getcwd);
	put8(&sb, 2);
	put8(&sb, AT_BYREF | AI_OUTPUT << 2);
	putle(&sb, MAXARGL + 1, 2);
	put8(&sb, 0);
	m_byval(&sb, MAXARGL + 1);
	seed("marshal", "keep-invalid-size", (const void *)sb.sb_buf,
	    sb.sb_len, NULL);

	/* Invalid: one call more than a batch may hold. */
	sb.sb_len = 0;
	m_area(&sb, 0x10000, 65536);
	put8(&sb, MARSHAL_MAXCALLS_SEED + 1);
	for (int c = 0; c <= MARSHAL_MAXCALLS_SEED; c++) {
		m_sys(&sb, SYS_getpid);
		put8(&sb, 0);
	}
	seed("marshal", "keep-invalid-ncalls", (const void *)sb.sb_buf,
	    sb.sb_len, NULL);

	/* Every restart code, and the edges of the error range. */
	sb.sb_len = 0;
	m_area(&sb, 0x10000, 65536);
	put8(&sb, 7);
	for (int c = 0; c < 7; c++) {
		m_sys(&sb, SYS_getpid);
		put8(&sb, 0);
	}
	for (int k = 0; k < 5; k++)
		put8(&sb, (unsigned)(1 | 4 * k));	/* -(512 + k) */
	put8(&sb, 0);				/* -4095 */
	putle(&sb, 4095, 2);
	put8(&sb, 0);				/* -4096: not an error */
	putle(&sb, 4096, 2);
	seed("marshal", "keep-restart-codes", (const void *)sb.sb_buf,
	    sb.sb_len, NULL);
}

/* A child that holds the fds until its stdin closes (or 60 s). */
static pid_t
start_holder(int *wfd)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p) != 0)
		die("pipe");
	if ((pid = fork()) < 0)
		die("fork");
	if (pid == 0) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };

		(void) close(p[1]);
		(void) poll(&pfd, 1, 60000);
		(void) read(p[0], &c, 1);
		_exit(0);
	}
	(void) close(p[0]);
	*wfd = p[1];
	return (pid);
}

static void
sockfmt_seeds(void)
{
	struct ps_prochandle *P;
	int err, wfd, st;
	pid_t pid = start_holder(&wfd);

	if ((P = Pgrab(pid, 0, &err)) == NULL) {
		(void) fprintf(stderr, "mkseeds: Pgrab: %s\n",
		    Pgrab_error(err));
	} else {
		if (Pfdinfo_iter(P, record_seed, NULL) != 0)
			(void) fprintf(stderr, "mkseeds: Pfdinfo_iter: %s\n",
			    strerror(errno));
		Prelease(P, 0);
	}
	(void) close(wfd);
	(void) kill(pid, SIGKILL);
	(void) waitpid(pid, &st, 0);
}

static void
cleanup(void)
{
	static const char *const names[] = { "locked", "ofd", "flock", "sock" };
	char path[256];

	for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); i++) {
		(void) snprintf(path, sizeof (path), "%s/%s", tmpdir, names[i]);
		(void) unlink(path);
	}
	(void) rmdir(tmpdir);
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		(void) fprintf(stderr, "usage: mkseeds DIR\n");
		return (2);
	}
	outdir = argv[1];
	if (mkdtemp(tmpdir) == NULL)
		die("mkdtemp");
	(void) atexit(cleanup);
	(void) signal(SIGPIPE, SIG_IGN);

	open_files();
	open_special();
	open_tcp();
	open_udp();
	open_unix();
	open_netlink();

	fdinfo_seeds();
	fdinfo_edge_seeds();
	procfs_seeds();
	maps_seeds();
	sockfmt_seeds();
	sockfmt_edge_seeds();
	marshal_seeds(tcp_client);
	return (0);
}
