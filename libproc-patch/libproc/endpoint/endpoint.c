/*
 * endpoint.c: who holds the other end of each of the target's sockets
 * whose other end is on this host.
 *
 * Once per walk, before its first record:
 *  1. the target's fds that are sockets, and their inodes: from the
 *     source when it lists them (Psock_inodes: the bpf source's inode
 *     pass), else one readlink of /proc/PID/fd/N per fd ("socket:[INO]"),
 *     since the walk streams in fd order and a socket's other end may be
 *     an fd not walked yet;
 *  2. the other end of each: first from the facts the source gave with
 *     1. (sockid.h; the bpf source), for the sockets whose other end
 *     they settle (settle(), below); then, for the others, from the
 *     kernel's socket tables (diag_table.c, in the target's network
 *     namespace): a unix socket's peer inode (UNIX_DIAG_PEER); for a
 *     connected TCP, MPTCP, UDP or UDP-Lite socket, the socket whose own
 *     address and port are this one's peer's and the reverse.  No list
 *     of local addresses is needed: a socket with that reversed 4-tuple
 *     is in the tables of the namespace only when the peer's address is
 *     one of the namespace's own (loopback or an address assigned there;
 *     a transparent proxy's socket, bound to a foreign address, is the
 *     other end too), so the lookup is the test, with no second dump and
 *     no window between the two;
 *  3. the holders of each other end: the target's own fds first (from
 *     1.); only when some other end is not held by the target, ONE pass
 *     over the fd tables of every other process in /proc (readlink of
 *     each fd), counting those pfiles may not read.
 * Then endpoints_of() answers per socket from memory (the index below).
 *
 * An other end that no fd table pfiles read holds, while some could not
 * be read, is "1 more": a socket in the tables is held by someone, and
 * pfiles cannot know by how many.  Where every table was read and none
 * holds it (in flight in an SCM_RIGHTS message, held by the kernel),
 * nothing is said.  Holders in other processes are looked for only for
 * the other ends that the target does not hold itself.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kconst.h"
#include "netdiag/diag_parse.h"
#include "netdiag/diag_table.h"
#include "endpoint/endpoint.h"

#define	EP_DENTS	32768		/* one getdents64 */
#define	EP_LINK		64		/* "socket:[INO]" and more */
#define	PF_KTHREAD_BIT	0x00200000	/* /proc/PID/stat flags: kthread */
#define	EP_SPLIT_MIN	2048		/* fds: a second thread reads half */

/* A socket fd of a process: its inode, the pid and the fd. */
typedef struct ephold {
	uint64_t	eh_ino;
	pid_t		eh_pid;
	int		eh_fd;
} ephold_t;

/* A socket of the target and its other end. */
typedef struct eppeer {
	uint64_t	ep_ino;
	uint64_t	ep_peer;
} eppeer_t;

/* A growable array of holders. */
typedef struct holds {
	ephold_t	*h_v;
	size_t		h_n, h_cap;
} holds_t;

/* The source's facts of the target's sockets (sockid.h). */
typedef struct ids {
	psockid_t	*i_v;
	size_t		i_n, i_cap;
} ids_t;

/*
 * The index endpoints_of() answers from: the target's socket inodes,
 * sorted and each once (en_own's), each with its first holder in en_own
 * and where its other end is: the other end's first holder in en_own
 * when the target holds it, else (IX_OTHER) the other end's entry in
 * en_peers.  A lookup starts where one of the last two ended and gallops
 * from there: the walk asks in fd order, and sockets made one after
 * another have inodes and fds close together; where both ends of a
 * connection are the target's, the lookups of the index's links go
 * back and forth between two such runs, one finger on each.  So most
 * lookups are a step or two in memory just read, and none is more than
 * two binary searches of the index, whatever the order asked in.
 */
#define	IX_NONE		UINT32_MAX	/* no other end known */
#define	IX_NEAR		64		/* inodes apart: the same run */
#define	IX_OTHER	0x80000000U	/* | index in en_peers */

typedef struct epindex {
	uint64_t	ix_ino;
	uint32_t	ix_own;		/* index in en_own */
	uint32_t	ix_peer;	/* in en_own, IX_OTHER | in en_peers, */
					/* or IX_NONE */
} epindex_t;

struct endpoints {
	holds_t		en_own;		/* the target's socket fds */
	ids_t		en_ids;		/* of each, when the source gave them */
	holds_t		en_other;	/* of wanted inodes, elsewhere */
	eppeer_t	*en_peers;	/* in the order found */
	size_t		en_npeers;
	epindex_t	*en_ix;		/* of en_own's inodes, sorted */
	size_t		en_nix;
	size_t		en_finger[2];	/* where the last lookups ended */
	unsigned	en_lastf;	/* the finger moved last */
	uint_t		en_unreadable;	/* fd tables pfiles may not read */
	int		en_scanned;	/* the other processes were read */
};

/* ------------------------------------------------------------------ */
/* Reading fd tables. */

static int
holds_add(holds_t *h, uint64_t ino, pid_t pid, int fd)
{
	if (h->h_n == h->h_cap) {
		size_t cap = h->h_cap == 0 ? 256 : h->h_cap * 2;
		ephold_t *v = realloc(h->h_v, cap * sizeof (*v));

		if (v == NULL)
			return (ENOMEM);
		h->h_v = v;
		h->h_cap = cap;
	}
	h->h_v[h->h_n].eh_ino = ino;
	h->h_v[h->h_n].eh_pid = pid;
	h->h_v[h->h_n].eh_fd = fd;
	h->h_n++;
	return (0);
}

/* By inode, then pid, then fd. */
static int
hold_cmp(const void *a, const void *b)
{
	const ephold_t *x = a, *y = b;

	if (x->eh_ino != y->eh_ino)
		return (x->eh_ino < y->eh_ino ? -1 : 1);
	if (x->eh_pid != y->eh_pid)
		return (x->eh_pid < y->eh_pid ? -1 : 1);
	return ((x->eh_fd > y->eh_fd) - (x->eh_fd < y->eh_fd));
}

/*
 * Sort n elements of sz bytes by the unsigned key of ksz bytes (4 or 8)
 * at offset koff, stably: a byte at a time from the lowest (LSD radix),
 * skipping a byte that is the same in every element.  Linear, where
 * qsort's comparisons were a tenth of the endpoints' time on 20,000
 * sockets.  0, or ENOMEM.
 */
/* The byte-th lowest byte of the unsigned key at koff of element e. */
static unsigned
key_byte(const uint8_t *e, size_t koff, size_t ksz, size_t byte)
{
	uint64_t k;
	uint32_t k32;

	if (ksz == sizeof (k32)) {
		memcpy(&k32, e + koff, sizeof (k32));
		k = k32;
	} else {
		memcpy(&k, e + koff, sizeof (k));
	}
	return ((unsigned)(k >> (8 * byte)) & 0xff);
}

static int
radix_sort(void *base, size_t n, size_t sz, size_t koff, size_t ksz)
{
	uint8_t *a = base, *b, *from, *to;
	size_t count[256];

	if (n < 2)
		return (0);
	if ((b = malloc(n * sz)) == NULL)
		return (ENOMEM);
	from = a;
	to = b;
	for (size_t byte = 0; byte < ksz; byte++) {
		size_t sum = 0;

		memset(count, 0, sizeof (count));
		for (size_t i = 0; i < n; i++)
			count[key_byte(from + i * sz, koff, ksz, byte)]++;
		if (count[key_byte(from, koff, ksz, byte)] == n)
			continue;	/* every element alike here */
		for (size_t d = 0; d < 256; d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			memcpy(to + count[key_byte(from + i * sz, koff, ksz,
			    byte)]++ * sz, from + i * sz, sz);
		to = from;
		from = from == a ? b : a;
	}
	if (from != a)
		memcpy(a, from, n * sz);
	free(b);
	return (0);
}

/*
 * A process's own socket fds, by inode then fd (hold_cmp's order: its
 * pid is theirs all): by fd first, unless they came in that order (the
 * bpf source's), then stably by inode.  0, or ENOMEM.
 */
static int
sort_own(holds_t *h)
{
	size_t i = 1;
	int err;

	while (i < h->h_n && h->h_v[i - 1].eh_fd < h->h_v[i].eh_fd)
		i++;
	if (i < h->h_n && (err = radix_sort(h->h_v, h->h_n, sizeof (ephold_t),
	    offsetof(ephold_t, eh_fd), sizeof (int))) != 0)
		return (err);
	return (radix_sort(h->h_v, h->h_n, sizeof (ephold_t),
	    offsetof(ephold_t, eh_ino), sizeof (uint64_t)));
}

/* A decimal name: its value, or -1. */
static long
decimal(const char *s)
{
	long v = 0;

	if (*s == '\0')
		return (-1);
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' || v > (INT32_MAX - 9) / 10)
			return (-1);
		v = v * 10 + (*s - '0');
	}
	return (v);
}

/* The inode of a link "socket:[INO]" of n bytes, or 0. */
static uint64_t
socket_ino(const char *link, ssize_t n)
{
	uint64_t v = 0;
	ssize_t i = 8;

	if (n < 10 || memcmp(link, "socket:[", 8) != 0 || link[n - 1] != ']')
		return (0);
	for (; i < n - 1; i++) {
		if (link[i] < '0' || link[i] > '9' || v > UINT64_MAX / 10)
			return (0);
		v = v * 10 + (uint64_t)(link[i] - '0');
	}
	return (v);
}

/* Is ino among the n sorted inodes of want? */
static int
wanted(const uint64_t *want, size_t n, uint64_t ino)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (want[mid] == ino)
			return (1);
		if (want[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (0);
}

/*
 * The socket fds of the fd directory dirfd (of pid) into h: every one,
 * or with want only those whose inode is wanted.  0 or an errno.
 */
static int
read_fd_table(int dirfd, pid_t pid, char *dents, const uint64_t *want,
    size_t nwant, holds_t *h)
{
	char link[EP_LINK];
	long n;

	while ((n = syscall(SYS_getdents64, dirfd, dents, EP_DENTS)) > 0) {
		for (long off = 0; off < n; ) {
			struct dirent64 *d = (struct dirent64 *)(void *)
			    (dents + off);
			ssize_t len;
			uint64_t ino;
			long fd;

			if (d->d_reclen == 0 || d->d_reclen > n - off)
				return (EPROTO);
			off += d->d_reclen;
			if ((fd = decimal(d->d_name)) < 0)
				continue;
			if ((len = readlinkat(dirfd, d->d_name, link,
			    sizeof (link))) <= 0 ||
			    (ino = socket_ino(link, len)) == 0)
				continue;
			if (want != NULL && !wanted(want, nwant, ino))
				continue;
			if (holds_add(h, ino, pid, (int)fd) != 0)
				return (ENOMEM);
		}
	}
	return (n < 0 ? errno : 0);
}

/*
 * Does process pid (whose fd table may not be read) hold no fd at all:
 * a kernel thread, or a zombie?  Its stat line says, to anyone.
 */
static int
holds_nothing(int procdir, long pid)
{
	char path[32], buf[512], *p;
	unsigned long flags;
	ssize_t n;
	int fd;

	(void) snprintf(path, sizeof (path), "%ld/stat", pid);
	if ((fd = openat(procdir, path, O_RDONLY | O_CLOEXEC)) < 0)
		return (errno == ENOENT);	/* gone: holds nothing now */
	n = read(fd, buf, sizeof (buf) - 1);
	(void) close(fd);
	if (n <= 0)
		return (0);
	buf[n] = '\0';
	/* After the comm: state, ppid, pgrp, session, tty, tpgid, flags. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return (0);
	if (p[2] == 'Z' || p[2] == 'X')
		return (1);
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return (0);
	return ((flags & PF_KTHREAD_BIT) != 0);
}

/*
 * The one pass over every other process's fd table: the holders of the
 * nwant inodes of want (sorted), and the processes whose table pfiles
 * may not read.  0 or an errno.
 */
static int
scan_others(struct ps_prochandle *P, endpoints_t *en, const uint64_t *want,
    size_t nwant, char *dents)
{
	struct dirent *d;
	DIR *proc;
	int err = 0;

	if ((proc = opendir("/proc")) == NULL)
		return (errno);
	while (err == 0 && (d = readdir(proc)) != NULL) {
		char path[32];
		long pid = decimal(d->d_name);
		int fdd;

		if (pid <= 0 || pid == (long)P->pid)
			continue;
		(void) snprintf(path, sizeof (path), "%ld/fd", pid);
		if ((fdd = openat(dirfd(proc), path, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) < 0) {
			if ((errno == EACCES || errno == EPERM) &&
			    !holds_nothing(dirfd(proc), pid))
				en->en_unreadable++;
			continue;
		}
		err = read_fd_table(fdd, (pid_t)pid, dents, want, nwant,
		    &en->en_other);
		if (err == EACCES || err == EPERM) {
			en->en_unreadable++;
			err = 0;
		} else if (err != 0 && err != ENOMEM) {
			err = 0;	/* gone meanwhile: it holds nothing */
		}
		(void) close(fdd);
	}
	(void) closedir(proc);
	en->en_scanned = 1;
	if (en->en_other.h_n > 1)
		qsort(en->en_other.h_v, en->en_other.h_n, sizeof (ephold_t),
		    hold_cmp);
	PDEBUG(P, "endpoints: %zu other ends looked for in every process: "
	    "%zu holders, %u fd tables not readable", nwant,
	    en->en_other.h_n, en->en_unreadable);
	return (err);
}

/* The first holder of ino in the sorted h, or h->h_n. */
static size_t
first_of(const holds_t *h, uint64_t ino)
{
	size_t lo = 0, hi = h->h_n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->h_v[mid].eh_ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo);
}

/* ------------------------------------------------------------------ */
/* The index of the answers. */

/*
 * The entry of ino in the index, or NULL; the finger moves to where the
 * lookup ended.
 */
static epindex_t *
ix_find(endpoints_t *en, uint64_t ino)
{
	const epindex_t *v = en->en_ix;
	size_t n = en->en_nix, f, lo, hi, step = 1;
	uint64_t d0, d1;
	unsigned k;

	if (n == 0)
		return (NULL);
	/* Both fingers are below n: ix_build() sets them, and so do we. */
	d0 = v[en->en_finger[0]].ix_ino > ino ?
	    v[en->en_finger[0]].ix_ino - ino : ino - v[en->en_finger[0]].ix_ino;
	d1 = v[en->en_finger[1]].ix_ino > ino ?
	    v[en->en_finger[1]].ix_ino - ino : ino - v[en->en_finger[1]].ix_ino;
	/*
	 * The nearer finger, when it is near; else the one not moved last,
	 * so that each finger stays on a run of its own.
	 */
	k = d0 < d1 ? 0 : 1;
	if ((k == 0 ? d0 : d1) > IX_NEAR)
		k = !en->en_lastf;
	en->en_lastf = k;
	f = en->en_finger[k];
	if (v[f].ix_ino == ino)
		return (&en->en_ix[f]);
	if (v[f].ix_ino < ino) {
		/* Up: every entry below lo is below ino. */
		lo = f + 1;
		while (lo + step - 1 < n && v[lo + step - 1].ix_ino < ino) {
			lo += step;
			step *= 2;
		}
		hi = lo + step - 1 < n ? lo + step : n;
	} else {
		/* Down: every entry from hi on is above ino. */
		hi = f;
		while (hi >= step && v[hi - step].ix_ino > ino) {
			hi -= step;
			step *= 2;
		}
		lo = hi >= step ? hi - step : 0;
	}
	/* The first entry of [lo, hi) that is not below ino. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].ix_ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	en->en_finger[k] = lo < n ? lo : n - 1;
	return (lo < n && v[lo].ix_ino == ino ? &en->en_ix[lo] : NULL);
}

/*
 * The index of en_own's inodes (sorted), no other ends yet: 0, or
 * ENOMEM.
 */
static int
ix_build(endpoints_t *en)
{
	size_t n = 0;

	/* en_peers has at most one entry per en_own's: IX_OTHER | i fits. */
	if (en->en_own.h_n >= IX_OTHER)
		return (ENOMEM);
	if (en->en_own.h_n > 0 && (en->en_ix = malloc(en->en_own.h_n *
	    sizeof (epindex_t))) == NULL)
		return (ENOMEM);
	for (size_t i = 0; i < en->en_own.h_n; i++) {
		uint64_t ino = en->en_own.h_v[i].eh_ino;

		if (i > 0 && en->en_own.h_v[i - 1].eh_ino == ino)
			continue;
		en->en_ix[n].ix_ino = ino;
		en->en_ix[n].ix_own = (uint32_t)i;
		en->en_ix[n].ix_peer = IX_NONE;
		n++;
	}
	en->en_nix = n;
	en->en_finger[0] = 0;
	en->en_finger[1] = n > 0 ? n - 1 : 0;
	return (0);
}

/*
 * Where each other end (en_peers) is: held by the target, its first
 * holder's place in en_own; else IX_OTHER | its entry in en_peers, whose
 * holders endpoints_of() looks for in en_other.  The other ends alone
 * are looked up here, their own sockets in ix_link(): each sequence
 * stays on its runs of inodes.  NULL: no memory.
 */
static uint32_t *
ix_places(endpoints_t *en)
{
	uint32_t *w = malloc((en->en_npeers > 0 ? en->en_npeers : 1) *
	    sizeof (*w));

	for (size_t i = 0; w != NULL && i < en->en_npeers; i++) {
		const epindex_t *y = ix_find(en, en->en_peers[i].ep_peer);

		w[i] = y != NULL ? y->ix_own : IX_OTHER | (uint32_t)i;
	}
	return (w);
}

/* The other ends, where ix_places() found them, into the index. */
static void
ix_link(endpoints_t *en, const uint32_t *where)
{
	for (size_t i = 0; i < en->en_npeers; i++) {
		epindex_t *x = ix_find(en, en->en_peers[i].ep_ino);

		if (x != NULL)
			x->ix_peer = where[i];
	}
}

/* ------------------------------------------------------------------ */
/* The other ends. */

static int
u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return ((*x > *y) - (*x < *y));
}

/* Is e a socket whose other end a 4-tuple names (TCP, UDP...)? */
static int
inet_connected(const dent_t *e)
{
	if (e->de_family != AF_INET && e->de_family != AF_INET6)
		return (0);
	if (e->de_protocol != IPPROTO_TCP && e->de_protocol != IPPROTO_MPTCP &&
	    e->de_protocol != IPPROTO_UDP && e->de_protocol != IPPROTO_UDPLITE)
		return (0);
	return ((e->de_have & (DS_NAME | DS_PEER)) == (DS_NAME | DS_PEER));
}

/*
 * The other end of each socket of ask (sorted, some of the target's) that
 * has one in the tables, after the en_npeers found already.  A TCP
 * connection's other end may be a socket of the other family (a
 * dual-stack socket holds a v4-mapped address): when one is not found,
 * the TCP dump of the other family is made too, once.  0 or an errno.
 */
static int
find_peers(struct ps_prochandle *P, endpoints_t *en, diag_table_t *dt,
    const holds_t *ask)
{
	size_t base = en->en_npeers;
	int err = 0, round;

	/* Every inode asked about in the tables, as the diag source would. */
	for (size_t i = 0; i < ask->h_n; i++) {
		if (i > 0 && ask->h_v[i].eh_ino == ask->h_v[i - 1].eh_ino)
			continue;
		while (diag_table_lookup(dt, ask->h_v[i].eh_ino) == NULL &&
		    diag_table_next(P, dt))
			continue;
	}
	for (round = 0; round < 2; round++) {
		int missed = 0;

		en->en_npeers = base;
		for (size_t i = 0; i < ask->h_n; i++) {
			uint64_t ino = ask->h_v[i].eh_ino, peer = 0;
			const dent_t *e;

			if ((i > 0 && ino == ask->h_v[i - 1].eh_ino) ||
			    (e = diag_table_lookup(dt, ino)) == NULL)
				continue;
			if (e->de_family == AF_UNIX &&
			    (e->de_have & DS_PEER_INO))
				peer = e->de_peer_ino;
			else if (inet_connected(e) &&
			    (peer = diag_table_reverse(dt, e, &err)) == 0 &&
			    err == 0 && (e->de_protocol == IPPROTO_TCP ||
			    e->de_protocol == IPPROTO_MPTCP))
				missed = 1;
			if (err != 0)
				return (err);
			if (peer == 0)
				continue;
			en->en_peers[en->en_npeers].ep_ino = ino;
			en->en_peers[en->en_npeers].ep_peer = peer;
			en->en_npeers++;
		}
		if (!missed || (diag_table_dumped(dt, DT_TCP4) &&
		    diag_table_dumped(dt, DT_TCP6)))
			break;
		diag_table_dump(P, dt, DT_TCP4);
		diag_table_dump(P, dt, DT_TCP6);
	}
	return (0);
}

/* ------------------------------------------------------------------ */
/* The other ends the source's facts settle. */

/*
 * A TCP socket in a state that the dumps list (DIAG_INET_STATES: not
 * SYN_RECV, TIME_WAIT or NEW_SYN_RECV) and whose both ends getpeername
 * and getsockname give (not SYN_SENT, CLOSE or LISTEN): its other end
 * is the socket with the reversed ends, when one is listed.
 */
static int
tcp_connected(const psockid_t *id)
{
	if (id->sid_protocol != IPPROTO_TCP || !(id->sid_have & PSI_ENDS) ||
	    (id->sid_family != AF_INET && id->sid_family != AF_INET6))
		return (0);
	switch (id->sid_state) {
	case K_TCP_ESTABLISHED:
	case K_TCP_FIN_WAIT1:
	case K_TCP_FIN_WAIT2:
	case K_TCP_CLOSE_WAIT:
	case K_TCP_LAST_ACK:
	case K_TCP_CLOSING:
		return (1);
	default:
		return (0);
	}
}

/*
 * The hash of the ends (own, then peer) of a connection: their 64-bit
 * words and ports, each multiplied in (an odd constant), then mixed
 * (murmur3's finalizer), to a slot of n.
 */
static size_t
ends_hash(const uint8_t *a, uint16_t ap, const uint8_t *b, uint16_t bp,
    size_t n)
{
	const uint64_t k = 0x9e3779b97f4a7c15ULL;
	uint64_t w[4], h = ((uint64_t)ap << 16 | bp) * k;

	memcpy(&w[0], a, 8);
	memcpy(&w[1], a + 8, 8);
	memcpy(&w[2], b, 8);
	memcpy(&w[3], b + 8, 8);
	for (size_t i = 0; i < 4; i++)
		h = (h ^ w[i]) * k + (h >> 29);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return ((size_t)h & (n - 1));
}

/* What the facts say of one socket's other end. */
typedef enum { EP_ASK, EP_NONE, EP_PEER } epverdict_t;

typedef struct settler {
	const ids_t	*st_ids;
	uint32_t	*st_hash;	/* index + 1 of the TCP ones; 0 ends */
	uint32_t	*st_next;
	size_t		st_nhash;
} settler_t;

/*
 * The other end of id, as the tables would give it (find_peers()):
 *  - a socket of another network namespace is in none of the tables of
 *    the target's, so has none;
 *  - a unix socket's is its peer's inode (UNIX_DIAG_PEER), 0 none;
 *  - a listening or closed TCP socket has none;
 *  - a connected TCP socket's is the one socket with the reversed ends
 *    (two such: none, as diag_table_reverse() says), found among the
 *    target's own: the tables hold it with its ends, in the namespace
 *    of both.  When the target holds none, it may be another process's:
 *    the tables are asked;
 *  - an unconnected UDP socket has none (no socket's own end is a
 *    wildcard with port 0); a connected UDP or UDP-Lite socket's may be
 *    one of several (SO_REUSEPORT), an MPTCP socket's is listed by two
 *    dumps: the tables are asked, as for a socket the facts do not
 *    describe;
 *  - any other socket (raw, netlink, packet...) has none.
 */
static epverdict_t
settle(const settler_t *st, const psockid_t *id, uint64_t *peerp)
{
	uint64_t found = 0;

	if ((id->sid_have & (PSI_OWNNET | PSI_PROTO)) !=
	    (PSI_OWNNET | PSI_PROTO))
		return (EP_ASK);
	if (!id->sid_ownnet)
		return (EP_NONE);
	if (id->sid_family == AF_UNIX) {
		if (!(id->sid_have & PSI_UNIXPEER))
			return (EP_ASK);
		*peerp = id->sid_peer_ino;
		return (id->sid_peer_ino != 0 ? EP_PEER : EP_NONE);
	}
	if (id->sid_family != AF_INET && id->sid_family != AF_INET6)
		return (EP_NONE);
	switch (id->sid_protocol) {
	case IPPROTO_TCP:
		if (id->sid_state == K_TCP_LISTEN ||
		    id->sid_state == K_TCP_CLOSE)
			return (EP_NONE);
		if (!tcp_connected(id) || st->st_nhash == 0)
			return (EP_ASK);
		for (uint32_t i = st->st_hash[ends_hash(id->sid_peer,
		    id->sid_peer_port, id->sid_own, id->sid_own_port,
		    st->st_nhash)]; i != 0; i = st->st_next[i - 1]) {
			const psockid_t *c = &st->st_ids->i_v[i - 1];

			if (c->sid_ino == id->sid_ino ||
			    c->sid_own_port != id->sid_peer_port ||
			    c->sid_peer_port != id->sid_own_port ||
			    memcmp(c->sid_own, id->sid_peer, 16) != 0 ||
			    memcmp(c->sid_peer, id->sid_own, 16) != 0)
				continue;
			if (found != 0 && found != c->sid_ino)
				return (EP_NONE);	/* two: not a guess */
			found = c->sid_ino;
		}
		if (found == 0)
			return (EP_ASK);
		*peerp = found;
		return (EP_PEER);
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		return ((id->sid_have & PSI_ENDS) ? EP_ASK : EP_NONE);
	case IPPROTO_MPTCP:
		return (EP_ASK);
	default:
		return (EP_NONE);
	}
}

/*
 * The other ends that the source's facts settle, into en_peers; the
 * sockets they do not, into ask (sorted).  0 or an errno.
 */
static int
settle_all(struct ps_prochandle *P, endpoints_t *en, holds_t *ask)
{
	const ids_t *ids = &en->en_ids;
	settler_t st;
	size_t n = 1024;
	int err = 0;

	memset(&st, 0, sizeof (st));
	st.st_ids = ids;
	/* The target's connected TCP sockets of its namespace, by ends. */
	while (n < ids->i_n * 2)
		n *= 2;
	if (ids->i_n > 0 &&
	    ((st.st_hash = calloc(n, sizeof (uint32_t))) == NULL ||
	    (st.st_next = calloc(ids->i_n, sizeof (uint32_t))) == NULL)) {
		free(st.st_hash);
		return (ENOMEM);
	}
	if (st.st_hash != NULL) {
		st.st_nhash = n;
		for (size_t i = 0; i < ids->i_n; i++) {
			const psockid_t *c = &ids->i_v[i];
			size_t b;

			if (!tcp_connected(c) || (c->sid_have & PSI_OWNNET) == 0 ||
			    !c->sid_ownnet)
				continue;
			b = ends_hash(c->sid_own, c->sid_own_port, c->sid_peer,
			    c->sid_peer_port, n);
			st.st_next[i] = st.st_hash[b];
			st.st_hash[b] = (uint32_t)(i + 1);
		}
	}
	for (size_t i = 0; err == 0 && i < ids->i_n; i++) {
		const psockid_t *id = &ids->i_v[i];
		uint64_t peer = 0;

		switch (settle(&st, id, &peer)) {
		case EP_PEER:
			en->en_peers[en->en_npeers].ep_ino = id->sid_ino;
			en->en_peers[en->en_npeers].ep_peer = peer;
			en->en_npeers++;
			break;
		case EP_ASK:
			err = holds_add(ask, id->sid_ino, P->pid, id->sid_fd);
			break;
		case EP_NONE:
			break;
		}
	}
	free(st.st_hash);
	free(st.st_next);
	if (err == 0 && ask->h_n > 1)
		qsort(ask->h_v, ask->h_n, sizeof (ephold_t), hold_cmp);
	return (err);
}

/*
 * The other ends that the target does not hold, sorted, without
 * duplicates, into *wantp: their number, or -1 (ENOMEM).
 */
static long
not_held(const endpoints_t *en, const uint32_t *where, uint64_t **wantp)
{
	uint64_t *want;
	size_t n = 0, k = 0;

	if (en->en_npeers == 0) {
		*wantp = NULL;
		return (0);
	}
	if ((want = malloc(en->en_npeers * sizeof (*want))) == NULL)
		return (-1);
	for (size_t i = 0; i < en->en_npeers; i++) {
		if (where[i] & IX_OTHER)
			want[n++] = en->en_peers[i].ep_peer;
	}
	if (n > 1)
		qsort(want, n, sizeof (*want), u64_cmp);
	for (size_t i = 0; i < n; i++) {
		if (k == 0 || want[k - 1] != want[i])
			want[k++] = want[i];
	}
	*wantp = want;
	return ((long)k);
}

/* One share of the target's fds, read by one thread. */
typedef struct share {
	int		sh_dirfd;
	pid_t		sh_pid;
	const int	*sh_fds;
	size_t		sh_nfds;
	holds_t		sh_holds;
	int		sh_err;
} share_t;

/* The socket fds among a share's fds. */
static void *
read_share(void *arg)
{
	share_t *sh = arg;
	char name[16], link[EP_LINK];

	for (size_t i = 0; i < sh->sh_nfds && sh->sh_err == 0; i++) {
		ssize_t len;
		uint64_t ino;

		(void) snprintf(name, sizeof (name), "%d", sh->sh_fds[i]);
		if ((len = readlinkat(sh->sh_dirfd, name, link,
		    sizeof (link))) <= 0 || (ino = socket_ino(link, len)) == 0)
			continue;
		sh->sh_err = holds_add(&sh->sh_holds, ino, sh->sh_pid,
		    sh->sh_fds[i]);
	}
	return (NULL);
}

/*
 * The fd numbers of the fd directory dirfd, into *fdsp (*np of them).
 * 0 or an errno.
 */
static int
list_fds(int dirfd, char *dents, int **fdsp, size_t *np)
{
	int *fds = NULL, *nf;
	size_t n = 0, cap = 0;
	long got;

	while ((got = syscall(SYS_getdents64, dirfd, dents, EP_DENTS)) > 0) {
		for (long off = 0; off < got; ) {
			struct dirent64 *d = (struct dirent64 *)(void *)
			    (dents + off);
			long fd;

			if (d->d_reclen == 0 || d->d_reclen > got - off) {
				free(fds);
				return (EPROTO);
			}
			off += d->d_reclen;
			if ((fd = decimal(d->d_name)) < 0)
				continue;
			if (n == cap) {
				cap = cap == 0 ? 1024 : cap * 2;
				if ((nf = realloc(fds, cap * sizeof (*fds))) ==
				    NULL) {
					free(fds);
					return (ENOMEM);
				}
				fds = nf;
			}
			fds[n++] = (int)fd;
		}
	}
	if (got < 0) {
		int err = errno;

		free(fds);
		return (err);
	}
	*fdsp = fds;
	*np = n;
	return (0);
}

/* One socket of the target's, as a source lists them (Psock_inodes). */
typedef struct own_cb {
	endpoints_t	*oc_en;
	pid_t		oc_pid;
} own_cb_t;

static int
own_socket(void *arg, const psockid_t *id)
{
	own_cb_t *oc = arg;
	ids_t *ids = &oc->oc_en->en_ids;

	if (ids->i_n == ids->i_cap) {
		size_t cap = ids->i_cap == 0 ? 256 : ids->i_cap * 2;
		psockid_t *v = realloc(ids->i_v, cap * sizeof (*v));

		if (v == NULL)
			return (ENOMEM);
		ids->i_v = v;
		ids->i_cap = cap;
	}
	ids->i_v[ids->i_n++] = *id;
	return (holds_add(&oc->oc_en->en_own, id->sid_ino, oc->oc_pid,
	    id->sid_fd));
}

/*
 * The target's socket fds, sorted by inode: 0 or an errno.  From the
 * source when it knows them cheaply (the bpf source: one pass of 16
 * bytes per socket); else a readlink of each /proc/PID/fd/N, a few
 * microseconds each (a lookup, a check of ptrace access, the link
 * made): with many fds and more than one CPU, a second thread reads half
 * of them.
 */
static int
read_own(struct ps_prochandle *P, endpoints_t *en, char *dents)
{
	own_cb_t oc = { en, P->pid };
	share_t sh[2];
	pthread_t t;
	int d, err, *fds = NULL, two;
	size_t nfds = 0, half;

	if (Psock_inodes(P, own_socket, &oc) == 0) {
		return (sort_own(&en->en_own));
	}
	/* A source that failed part-way: what it gave is read again. */
	en->en_own.h_n = 0;
	en->en_ids.i_n = 0;

	if ((d = openat(P->procfd, "fd", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return (errno);
	if ((err = list_fds(d, dents, &fds, &nfds)) != 0) {
		(void) close(d);
		return (err);
	}
	two = nfds >= EP_SPLIT_MIN && sysconf(_SC_NPROCESSORS_ONLN) > 1;
	half = two ? nfds / 2 : nfds;
	memset(sh, 0, sizeof (sh));
	for (int k = 0; k < 2; k++) {
		sh[k].sh_dirfd = d;
		sh[k].sh_pid = P->pid;
		sh[k].sh_fds = k == 0 ? fds : fds + half;
		sh[k].sh_nfds = k == 0 ? half : nfds - half;
	}
	if (two && pthread_create(&t, NULL, read_share, &sh[1]) != 0)
		two = 0;
	(void) read_share(&sh[0]);
	if (two)
		(void) pthread_join(t, NULL);
	else
		(void) read_share(&sh[1]);
	(void) close(d);
	free(fds);
	en->en_own = sh[0].sh_holds;
	err = sh[0].sh_err != 0 ? sh[0].sh_err : sh[1].sh_err;
	for (size_t i = 0; err == 0 && i < sh[1].sh_holds.h_n; i++) {
		const ephold_t *h = &sh[1].sh_holds.h_v[i];

		err = holds_add(&en->en_own, h->eh_ino, h->eh_pid, h->eh_fd);
	}
	free(sh[1].sh_holds.h_v);
	return (err != 0 ? err : sort_own(&en->en_own));
}

void
endpoints_free(endpoints_t *en)
{
	if (en == NULL)
		return;
	free(en->en_own.h_v);
	free(en->en_ids.i_v);
	free(en->en_other.h_v);
	free(en->en_peers);
	free(en->en_ix);
	free(en);
}

endpoints_t *
endpoints_resolve(struct ps_prochandle *P)
{
	endpoints_t *en;
	diag_table_t *dt, *mine = NULL;
	holds_t ask = { NULL, 0, 0 };
	const holds_t *asked;
	uint64_t *want = NULL;
	uint32_t *where = NULL;
	char *dents;
	long nwant;
	int err;

	if ((en = calloc(1, sizeof (*en))) == NULL ||
	    (dents = malloc(EP_DENTS)) == NULL) {
		free(en);
		return (NULL);
	}
	/* No socket: nothing to say, not even in the trace. */
	if ((err = read_own(P, en, dents)) != 0 || en->en_own.h_n == 0) {
		if (err != 0)
			PDEBUG(P, "endpoints: none (%s)", strerror(err));
		goto fail;
	}
	/* The diag source's table when it serves: no dump made twice. */
	if ((dt = sock_diag_table(P)) == NULL &&
	    (dt = mine = diag_table_new(P)) == NULL) {
		err = errno;
		PDEBUG(P, "endpoints: none (%s)", strerror(err));
		goto fail;
	}
	if (dt->dt_nserr[0] != '\0') {
		PDEBUG(P, "endpoints: none (%s)", dt->dt_nserr);
		goto fail;
	}
	if ((en->en_peers = calloc(en->en_own.h_n, sizeof (eppeer_t))) ==
	    NULL)
		goto fail;
	/* The source's facts first, when it gave them for every socket. */
	asked = &en->en_own;
	if (en->en_ids.i_n == en->en_own.h_n) {
		if ((err = settle_all(P, en, &ask)) != 0)
			goto fail;
		asked = &ask;
		PDEBUG(P, "endpoints: %zu other ends from the source's facts, "
		    "%zu sockets left to the tables", en->en_npeers, ask.h_n);
	}
	if (asked->h_n > 0 && (err = find_peers(P, en, dt, asked)) != 0)
		goto fail;
	if ((err = ix_build(en)) != 0 || (where = ix_places(en)) == NULL ||
	    (nwant = not_held(en, where, &want)) < 0)
		goto fail;
	PDEBUG(P, "endpoints: %zu socket fds, %zu with another end here, "
	    "%ld of those ends held elsewhere", en->en_own.h_n,
	    en->en_npeers, nwant);
	if (nwant > 0 && (err = scan_others(P, en, want, (size_t)nwant,
	    dents)) != 0)
		goto fail;
	ix_link(en, where);
	free(where);
	free(ask.h_v);
	free(want);
	free(dents);
	diag_table_free(mine);
	return (en);
fail:
	free(where);
	free(ask.h_v);
	free(want);
	free(dents);
	diag_table_free(mine);
	endpoints_free(en);
	return (NULL);
}

size_t
endpoints_of(endpoints_t *en, uint64_t ino, void *buf, size_t bufsz)
{
	const epindex_t *x;
	prendpoints_t hdr;
	prendpoint_t end;
	size_t i, j, total, n = 0;
	uint64_t peer;

	if (en == NULL || bufsz < ENDPOINTS_BUFSZ || en->en_npeers == 0 ||
	    (x = ix_find(en, ino)) == NULL)
		return (0);
	if (x->ix_peer == IX_NONE)
		return (0);
	if (x->ix_peer & IX_OTHER) {
		/* Not held by the target: by others, or no one readable. */
		peer = en->en_peers[x->ix_peer & ~IX_OTHER].ep_peer;
		i = en->en_own.h_n;
		j = first_of(&en->en_other, peer);
	} else {
		/* Held by the target: no other process was asked about it. */
		i = x->ix_peer;
		peer = en->en_own.h_v[i].eh_ino;
		j = en->en_other.h_n;
	}
	/* The holders of each list, in order of pid then fd: merged. */
	total = 0;
	while (1) {
		const ephold_t *a = i < en->en_own.h_n &&
		    en->en_own.h_v[i].eh_ino == peer ?
		    &en->en_own.h_v[i] : NULL;
		const ephold_t *b = j < en->en_other.h_n &&
		    en->en_other.h_v[j].eh_ino == peer ?
		    &en->en_other.h_v[j] : NULL;
		const ephold_t *next;

		if (a == NULL && b == NULL)
			break;
		if (a != NULL && (b == NULL || hold_cmp(a, b) < 0)) {
			next = a;
			i++;
		} else {
			next = b;
			j++;
		}
		if (n < PR_ENDPOINTS_MAX) {
			end.pr_pid = next->eh_pid;
			end.pr_fd = next->eh_fd;
			memcpy((uint8_t *)buf + sizeof (hdr) + n * sizeof (end),
			    &end, sizeof (end));
			n++;
		}
		total++;
	}
	hdr.pr_nend = (uint_t)n;
	hdr.pr_more = (uint_t)(total - n);
	/* Held, but only where pfiles may not look: one, at least. */
	if (total == 0 && en->en_scanned && en->en_unreadable > 0)
		hdr.pr_more = 1;
	if (hdr.pr_nend == 0 && hdr.pr_more == 0)
		return (0);
	memcpy(buf, &hdr, sizeof (hdr));
	return (sizeof (hdr) + n * sizeof (end));
}
