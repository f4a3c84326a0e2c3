/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bpfrec_parse.c: the decoding and checking of the BPF iterator's records
 * (bpfrec_parse.h).  Every field is read with memcpy from its offset in
 * struct pfb_rec, so the input needs no alignment; nothing past the
 * record (r_recsize bytes, the fixed part and as much of r_path as the
 * path uses) is read.
 */
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/types.h>
#include <netinet/in.h>

#include "src/bpf/pfiles_bpf.h"
#include "src/bpf/bpfrec_parse.h"

_Static_assert(sizeof (struct pfb_rec) == PFB_RECSIZE_MAX,
	"pfb_rec has the size pfiles_bpf.h says");
_Static_assert(offsetof(struct pfb_rec, r_path) == PFB_RECFIXED,
	"the path follows the fixed part");
_Static_assert(PFB_RECSIZE(0) == PFB_RECFIXED + 8 &&
	PFB_RECSIZE(PFB_PATH_MAX - 1) == PFB_RECSIZE_MAX,
	"record sizes span the fixed part + 8 to the whole struct");
_Static_assert(PFB_RECSIZE_MAX <= 0xffff && PFB_RECFIXED % 8 == 0,
	"r_recsize holds every size; the path starts 8-aligned");
_Static_assert(BPFREC_MAXLOCKS == PFB_MAXLOCKS, "lock counts agree");
_Static_assert(BPFREC_ADDR_MAX == PFB_ADDR_MAX, "address sizes agree");
_Static_assert(BPFREC_RECSIZE_MAX == PFB_RECSIZE_MAX, "record sizes agree");
_Static_assert(BPFREC_OWNTABLE == PFB_H_OWNTABLE &&
	BPFREC_SOCKFS == PFB_H_SOCKFS, "r_have's flags are br_have's");
_Static_assert(BPFREC_S_PEERPID == PFB_S_PEERPID &&
	BPFREC_S_PEERINO == PFB_S_PEERINO && BPFREC_S_STATE == PFB_S_STATE &&
	BPFREC_S_QUEUES == PFB_S_QUEUES && BPFREC_S_FIN == PFB_S_FIN &&
	BPFREC_S_GROUPS == PFB_S_GROUPS, "r_sock_have's are br_sock_have's");
_Static_assert(BPFREC_NLGROUPS_MAX == PFB_NLGROUPS_MAX &&
	PFB_RECSIZE(0) + PFB_GROUPS_SIZE(PFB_NLGROUPS_MAX) <= PFB_RECSIZE_MAX,
	"netlink group words agree, and fit in a record");
_Static_assert(sizeof (struct pfb_ino) == PFB_INOSIZE &&
	BPFINO_SIZE == PFB_INOSIZE, "inode record sizes agree");
_Static_assert(PSI_OWNNET == PFB_I_OWNNET && PSI_PROTO == PFB_I_PROTO &&
	PSI_UNIXPEER == PFB_I_UNIXPEER && PSI_ENDS == PFB_I_ENDS &&
	PSI_ALL == PFB_I_ALL, "the inode record's flags are psockid_t's");

#define	FIELD(p, f, v)	\
	(memcpy(&(v), (const uint8_t *)(p) + offsetof(struct pfb_rec, f), \
	    sizeof (v)))

#define	H_ALL	(PFB_H_STAT | PFB_H_FILE | PFB_H_LOCKS | PFB_H_SOCK | \
	PFB_H_LOCKS_CUT | PFB_H_LOCKPID_GLOBAL | PFB_H_OWNTABLE | PFB_H_SOCKFS)
#define	S_ALL	(PFB_S_SK | PFB_S_LINGER | PFB_S_BUFS | PFB_S_PEERPID | \
	PFB_S_PEERINO | PFB_S_STATE | PFB_S_QUEUES | PFB_S_FIN | PFB_S_GROUPS)

static const char anon_pfx[] = "anon_inode:";

/* The decimal digits of 0 to 99, two by two. */
static const char pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930"
    "31323334353637383940414243444546474849505152535455565758596061"
    "62636465666768697071727374757677787980818283848586878889909192"
    "93949596979899";

/* Are the n bytes at p all zero?  Compared a block at a time. */
static int
all_zero(const uint8_t *p, size_t n)
{
	static const uint8_t zero[256];

	for (; n > sizeof (zero); p += sizeof (zero), n -= sizeof (zero)) {
		if (memcmp(p, zero, sizeof (zero)) != 0)
			return (0);
	}
	return (memcmp(p, zero, n) == 0);
}

/* Bytes [from, to) of the record are all zero. */
static int
zero_span(const uint8_t *rec, size_t from, size_t to)
{
	return (all_zero(rec + from, to - from));
}

/*
 * sockfs_dname()'s name of a socket, "socket:[INO]", into buf (room for
 * the longest, 29 bytes and a NUL): its length.
 */
static size_t
sockfs_path(uint64_t ino, char *buf)
{
	char d[20];
	size_t n = sizeof (d), len;

	/* The digits from the last, by twos while there are two. */
	for (; ino >= 100; ino /= 100) {
		n -= 2;
		memcpy(d + n, &pairs[2 * (ino % 100)], 2);
	}
	if (ino >= 10) {
		n -= 2;
		memcpy(d + n, &pairs[2 * ino], 2);
	} else {
		d[--n] = (char)('0' + ino);
	}
	memcpy(buf, "socket:[", 8);
	len = 8;
	memcpy(buf + len, d + n, sizeof (d) - n);
	len += sizeof (d) - n;
	buf[len++] = ']';
	buf[len] = '\0';
	return (len);
}

static int
fail(bpfrec_t *br, const char *why)
{
	br->br_err = why;
	return (-1);
}

static int
decode_lock(const uint8_t *p, bpfrec_lock_t *bl)
{
	struct pfb_lock lk;

	memcpy(&lk, p, sizeof (lk));
	if (lk.l_kind < PFB_LK_POSIX || lk.l_kind > PFB_LK_OTHER)
		return (-1);
	switch (lk.l_type) {
	case PFB_F_RDLCK:
		bl->bl_type = F_RDLCK;
		break;
	case PFB_F_WRLCK:
		bl->bl_type = F_WRLCK;
		break;
	case PFB_F_UNLCK:
		bl->bl_type = F_UNLCK;
		break;
	default:
		return (-1);
	}
	/* locks_translate_pid(): an OFD lock has no owning pid. */
	if (lk.l_kind == PFB_LK_OFD && lk.l_pid != -1)
		return (-1);
	bl->bl_kind = (int)lk.l_kind;
	bl->bl_pid = lk.l_pid;
	return (0);
}

/* The length getname gives for the family, or -1 when not fixed. */
static int
addr_len_ok(int family, size_t len)
{
	switch (family) {
	case AF_INET:
		return (len == 16);
	case AF_INET6:
		return (len == 28);
	case AF_UNIX:
		return (len >= 2 && len <= 110);
	case AF_NETLINK:
		return (len == 12);
	case AF_PACKET:
		/* struct sockaddr_ll up to sll_hatype (pfiles_sock.bpf.h) */
		return (len == 8);
	default:
		return (0);
	}
}

static int
decode_addr(const uint8_t *rec, size_t off, int family, bpfrec_addr_t *ba)
{
	struct pfb_addr a;
	const uint8_t *data = rec + off + offsetof(struct pfb_addr, a_data);

	memcpy(&a.a_err, rec + off + offsetof(struct pfb_addr, a_err),
	    sizeof (a.a_err));
	memcpy(&a.a_len, rec + off + offsetof(struct pfb_addr, a_len),
	    sizeof (a.a_len));
	if (a.a_err > 0 || a.a_err < -4095)
		return (-1);
	if (a.a_err != 0) {
		if (a.a_len != 0 || !all_zero(data, PFB_ADDR_MAX))
			return (-1);
		ba->ba_err = -a.a_err;
		ba->ba_len = 0;
		ba->ba_data = NULL;
		return (0);
	}
	if (a.a_len > PFB_ADDR_MAX || !addr_len_ok(family, a.a_len) ||
	    (data[0] | data[1] << 8) != family ||
	    !all_zero(data + a.a_len, PFB_ADDR_MAX - a.a_len))
		return (-1);
	ba->ba_err = 0;
	ba->ba_len = a.a_len;
	ba->ba_data = data;
	return (0);
}

/*
 * The state and queues (r_state, r_rq, r_wq; pfiles_bpf.h says what the
 * queues count), only of the sockets that have them, as the program
 * gives them: a state of TCP and connection-oriented unix sockets, queues
 * of those and of inet datagram, inet raw and unix datagram sockets, a
 * FIN of TCP's with its queues.
 */
static int
decode_state(const uint8_t *rec, __u32 have, int fam, int type, int proto,
    bpfrec_t *br)
{
	int inet = fam == AF_INET || fam == AF_INET6;
	int tcp = inet && type == SOCK_STREAM && proto == IPPROTO_TCP;
	int line = tcp ||
	    (fam == AF_UNIX && (type == SOCK_STREAM || type == SOCK_SEQPACKET));
	int queued = (inet && (type == SOCK_DGRAM || type == SOCK_RAW)) ||
	    (fam == AF_UNIX && type == SOCK_DGRAM);
	__u32 rq, wq;
	__u8 state;

	FIELD(rec, r_state, state);
	FIELD(rec, r_rq, rq);
	FIELD(rec, r_wq, wq);
	if ((have & PFB_S_STATE) ? !line || state == 0 : state != 0)
		return (fail(br, "socket: state"));
	if ((have & PFB_S_QUEUES) ? !(queued || (have & PFB_S_STATE)) :
	    rq != 0 || wq != 0)
		return (fail(br, "socket: queues"));
	if ((have & PFB_S_FIN) && (!(have & PFB_S_QUEUES) || !tcp))
		return (fail(br, "socket: a FIN of no TCP socket's queues"));
	br->br_state = state;
	br->br_rq = rq;
	br->br_wq = wq;
	return (0);
}

/*
 * A netlink socket's group words, after its empty path, which
 * decode_path() found to fill the record (groups_tail()), and zeros
 * after them.
 */
static int
decode_groups(const uint8_t *rec, __u32 have, int fam, bpfrec_t *br)
{
	const uint8_t *w = rec + PFB_RECFIXED + PFB_GROUPS_AT;
	__u16 n;

	FIELD(rec, r_ngroups, n);
	if (!(have & PFB_S_GROUPS))
		return (n == 0 ? 0 : fail(br, "socket: groups without their "
		    "flag"));
	if (fam != AF_NETLINK || n > PFB_NLGROUPS_MAX ||
	    !(br->br_have & PFB_H_SOCKFS) ||
	    !all_zero(w + n * 4, PFB_GROUPS_SIZE(n) - n * 4))
		return (fail(br, "socket: netlink groups"));
	br->br_groups = n > 0 ? w : NULL;
	br->br_ngroups = n;
	return (0);
}

static int
decode_sock(const uint8_t *rec, bpfrec_t *br)
{
	__u32 have, proto, bools, known, pino;
	__u16 fam, type;
	__u8 lon;
	__u64 lt;
	__s32 snd, rcv, ppid;

	FIELD(rec, r_sock_have, have);
	FIELD(rec, r_family, fam);
	FIELD(rec, r_type, type);
	FIELD(rec, r_protocol, proto);
	FIELD(rec, r_bools, bools);
	FIELD(rec, r_bools_known, known);
	FIELD(rec, r_linger_on, lon);
	FIELD(rec, r_lingertime, lt);
	FIELD(rec, r_sndbuf, snd);
	FIELD(rec, r_rcvbuf, rcv);
	FIELD(rec, r_peer_pid, ppid);
	FIELD(rec, r_peer_ino, pino);

	if ((have & ~(__u32)S_ALL) != 0)
		return (fail(br, "socket: unknown flags"));
	if (!(have & PFB_S_SK)) {
		if (have != 0 || !zero_span(rec, offsetof(struct pfb_rec,
		    r_family), offsetof(struct pfb_rec, r_path)))
			return (fail(br, "socket: facts without a sock"));
		br->br_sock_have = 0;
		return (0);
	}
	if ((known & ~(__u32)PFB_SO_ALL) != 0 || (bools & ~known) != 0)
		return (fail(br, "socket: booleans out of range"));
	if (lon > 1 || (!(have & PFB_S_LINGER) && (lon != 0 || lt != 0)))
		return (fail(br, "socket: linger"));
	if (!(have & PFB_S_BUFS) && (snd != 0 || rcv != 0))
		return (fail(br, "socket: buffers"));
	if (ppid < 0 || (!(have & PFB_S_PEERPID) && ppid != 0))
		return (fail(br, "socket: peer pid"));
	if ((have & PFB_S_PEERINO) ? (ppid == 0 || pino == 0) : pino != 0)
		return (fail(br, "socket: peer inode"));
	if (decode_addr(rec, offsetof(struct pfb_rec, r_sockname), fam,
	    &br->br_sockname) != 0)
		return (fail(br, "socket: sockname"));
	if (decode_addr(rec, offsetof(struct pfb_rec, r_peername), fam,
	    &br->br_peername) != 0)
		return (fail(br, "socket: peername"));
	if ((have & PFB_S_PEERPID) && fam != AF_UNIX)
		return (fail(br, "socket: peer pid of a non-unix socket"));
	if (decode_state(rec, have, fam, type, (int)proto, br) != 0 ||
	    decode_groups(rec, have, fam, br) != 0)
		return (-1);

	br->br_sock_have = have;
	br->br_family = fam;
	br->br_type = type;
	br->br_protocol = (int)proto;
	br->br_bools = bools;
	br->br_bools_known = known;
	br->br_linger_on = (int)lon;
	br->br_lingertime = lt;
	br->br_sndbuf = snd;
	br->br_rcvbuf = rcv;
	br->br_peer_pid = ppid;
	br->br_peer_ino = pino;
	return (0);
}

/*
 * The header: magic, version and record size, each said wrong as soon as
 * the bytes that hold it are in.  1 when the whole record is in (its size
 * in *recsizep), 0 when more bytes are needed, -1 when it is wrong.
 */
static int
parse_header(const uint8_t *rec, size_t len, bpfrec_t *br, __u16 *recsizep)
{
	__u32 magic;
	__u16 version, recsize = 0;

	if (len >= sizeof (magic)) {
		FIELD(rec, r_magic, magic);
		if (magic != PFB_MAGIC)
			return (fail(br, "bad magic"));
	}
	if (len >= offsetof(struct pfb_rec, r_have)) {
		FIELD(rec, r_version, version);
		FIELD(rec, r_recsize, recsize);
		if (version != PFB_VERSION)
			return (fail(br, "unknown version"));
		if (recsize < PFB_RECSIZE(0) || recsize > PFB_RECSIZE_MAX ||
		    recsize % 8 != 0)
			return (fail(br, "bad record size"));
	}
	if (len < offsetof(struct pfb_rec, r_have) || len < recsize)
		return (0);
	*recsizep = recsize;
	return (1);
}

/* The flags, the fd and the pid. */
static int
decode_ids(const uint8_t *rec, bpfrec_t *br)
{
	__u32 have, pad;
	__s32 fd, tgid;

	FIELD(rec, r_have, have);
	FIELD(rec, r_fd, fd);
	FIELD(rec, r_tgid, tgid);
	FIELD(rec, r_pad0, pad);
	if ((have & ~(__u32)H_ALL) != 0 || pad != 0)
		return (fail(br, "unknown flags"));
	if (fd < 0 || tgid < 0)
		return (fail(br, "negative fd or pid"));
	br->br_have = have;
	br->br_fd = fd;
	br->br_tgid = tgid;
	return (0);
}

/* A part whose flag is not set: its bytes, f to t, must all be zero. */
static int
unflagged(const uint8_t *rec, bpfrec_t *br, size_t f, size_t t, const char *why)
{
	return (zero_span(rec, f, t) ? 0 : fail(br, why));
}

/* The stat fields, or zeros without PFB_H_STAT. */
static int
decode_stat(const uint8_t *rec, bpfrec_t *br)
{
	__s64 size;

	if (!(br->br_have & PFB_H_STAT))
		return (unflagged(rec, br, offsetof(struct pfb_rec, r_mode),
		    offsetof(struct pfb_rec, r_fflags),
		    "stat fields without the stat flag"));
	FIELD(rec, r_mode, br->br_mode);
	FIELD(rec, r_nlink, br->br_nlink);
	FIELD(rec, r_uid, br->br_uid);
	FIELD(rec, r_gid, br->br_gid);
	FIELD(rec, r_dev_major, br->br_major);
	FIELD(rec, r_dev_minor, br->br_minor);
	FIELD(rec, r_rdev_major, br->br_rmajor);
	FIELD(rec, r_rdev_minor, br->br_rminor);
	FIELD(rec, r_ino, br->br_ino);
	FIELD(rec, r_size, size);
	/* The kernel's dev_t: 12 bits of major, 20 of minor. */
	if (br->br_major >= 1U << 12 || br->br_rmajor >= 1U << 12 ||
	    br->br_minor >= 1U << 20 || br->br_rminor >= 1U << 20)
		return (fail(br, "device number out of range"));
	if ((br->br_mode & ~(__u32)0177777) != 0 || size < 0)
		return (fail(br, "mode or size out of range"));
	br->br_size = size;
	return (0);
}

/* The open file's flags, position and mount, or zeros without PFB_H_FILE. */
static int
decode_file(const uint8_t *rec, bpfrec_t *br)
{
	__s32 mnt;

	FIELD(rec, r_mnt_id, mnt);
	if (!(br->br_have & PFB_H_FILE))
		return (unflagged(rec, br, offsetof(struct pfb_rec, r_fflags),
		    offsetof(struct pfb_rec, r_path_err),
		    "file fields without the file flag"));
	FIELD(rec, r_fflags, br->br_fflags);
	FIELD(rec, r_pos, br->br_pos);
	if (mnt < -1)
		return (fail(br, "mount id out of range"));
	br->br_mnt_id = mnt;
	return (0);
}

/*
 * The bytes after the path's: a netlink socket's group words
 * (PFB_GROUPS_SIZE() of r_ngroups when PFB_S_GROUPS says so), or none.
 * Whether they may be there is decode_groups()'s to say.
 */
static size_t
groups_tail(const uint8_t *rec)
{
	__u32 have;
	__u16 n;

	FIELD(rec, r_sock_have, have);
	FIELD(rec, r_ngroups, n);
	if (!(have & PFB_S_GROUPS) || n == 0 || n > PFB_NLGROUPS_MAX)
		return (0);
	return (PFB_GROUPS_SIZE(n));
}

/*
 * The path: d_path's bytes, or none for an error; then its NUL and zeros
 * to the end of the record, or to a netlink socket's group words.  A
 * socket's sockfs name is made here.
 */
static int
decode_path(const uint8_t *rec, size_t recsize, bpfrec_t *br)
{
	__u32 have = br->br_have, plen;
	__s32 perr;
	const char *path = (const char *)rec + offsetof(struct pfb_rec, r_path);
	size_t tail = groups_tail(rec), end = recsize - tail;
	size_t room = end - offsetof(struct pfb_rec, r_path);

	FIELD(rec, r_path_err, perr);
	FIELD(rec, r_path_len, plen);
	/* Group words follow an empty path's 8 bytes, and end the record. */
	if (tail != 0 && recsize != PFB_RECSIZE(0) + tail)
		return (fail(br, "record size of the netlink groups"));
	if (plen >= PFB_PATH_MAX || plen + 1 > room)
		return (fail(br, "path length"));
	if (path[plen] != '\0' || !zero_span(rec,
	    offsetof(struct pfb_rec, r_path) + plen + 1, end))
		return (fail(br, "path not NUL-ended and zero-padded"));
	if (have & PFB_H_SOCKFS) {
		if (!(have & PFB_H_STAT) || !(have & PFB_H_SOCK) ||
		    (br->br_mode & S_IFMT) != S_IFSOCK || perr != 0 ||
		    plen != 0)
			return (fail(br, "sockfs name of no socket"));
		br->br_path = br->br_sockpath;
		br->br_path_len = sockfs_path(br->br_ino, br->br_sockpath);
	} else if (perr != 0) {
		if (perr > 0 || perr < -4095 || plen != 0)
			return (fail(br, "path error out of range"));
		br->br_path_err = -perr;
	} else {
		if (memchr(path, '\0', plen) != NULL)
			return (fail(br, "path length"));
		br->br_path = path;
		br->br_path_len = plen;
		if (br->br_mode != 0 && (br->br_mode & S_IFMT) == 0 &&
		    plen >= sizeof (anon_pfx) - 1 &&
		    memcmp(path, anon_pfx, sizeof (anon_pfx) - 1) == 0) {
			br->br_anon = path + sizeof (anon_pfx) - 1;
			br->br_anon_len = plen - (sizeof (anon_pfx) - 1);
		}
	}
	return (0);
}

/* The locks: nlocks decoded, the slots past them zero. */
static int
decode_locks(const uint8_t *rec, bpfrec_t *br)
{
	__u32 have = br->br_have, nlocks, more, u32;

	FIELD(rec, r_nlocks, nlocks);
	FIELD(rec, r_locks_more, more);
	if (!(have & PFB_H_LOCKS)) {
		if ((have & (PFB_H_LOCKS_CUT | PFB_H_LOCKPID_GLOBAL)) != 0)
			return (fail(br, "locks without the locks flag"));
		return (unflagged(rec, br, offsetof(struct pfb_rec, r_nlocks),
		    offsetof(struct pfb_rec, r_sock_have),
		    "locks without the locks flag"));
	}
	if (nlocks > PFB_MAXLOCKS || (more != 0 && nlocks != PFB_MAXLOCKS) ||
	    ((have & PFB_H_LOCKS_CUT) && nlocks != PFB_MAXLOCKS))
		return (fail(br, "lock count"));
	for (u32 = 0; u32 < PFB_MAXLOCKS; u32++) {
		const uint8_t *lp = rec + offsetof(struct pfb_rec, r_locks) +
		    u32 * sizeof (struct pfb_lock);

		if (u32 >= nlocks) {
			if (!all_zero(lp, sizeof (struct pfb_lock)))
				return (fail(br, "unused lock slot"));
		} else if (decode_lock(lp, &br->br_locks[u32]) != 0) {
			return (fail(br, "bad lock"));
		}
	}
	br->br_nlocks = nlocks;
	br->br_locks_more = more;
	return (0);
}

/* The socket's facts, only of a socket and only with PFB_H_SOCK. */
static int
decode_sock_part(const uint8_t *rec, bpfrec_t *br)
{
	if (!(br->br_have & PFB_H_SOCK))
		return (unflagged(rec, br,
		    offsetof(struct pfb_rec, r_sock_have),
		    offsetof(struct pfb_rec, r_path),
		    "socket facts without the socket flag"));
	if ((br->br_mode & S_IFMT) != S_IFSOCK)
		return (fail(br, "socket facts of a non-socket"));
	return (decode_sock(rec, br));
}

ssize_t
bpfrec_parse(const void *buf, size_t len, bpfrec_t *br)
{
	const uint8_t *rec = buf;
	__u16 recsize = 0;
	int whole;

	memset(br, 0, sizeof (*br));
	whole = parse_header(rec, len, br, &recsize);
	if (whole <= 0)
		return (whole);
	if (decode_ids(rec, br) != 0 || decode_stat(rec, br) != 0 ||
	    decode_file(rec, br) != 0 || decode_path(rec, recsize, br) != 0 ||
	    decode_locks(rec, br) != 0 || decode_sock_part(rec, br) != 0)
		return (-1);
	return ((ssize_t)recsize);
}

int
bpfrec_linger_secs(const bpfrec_t *br, unsigned int hz)
{
	/* sk_getsockopt(): v.ling.l_linger = sk->sk_lingertime / HZ */
	if (hz == 0)
		return (0);
	return ((int)(br->br_lingertime / hz));
}

#define	IFIELD(p, f, v)	\
	(memcpy(&(v), (const uint8_t *)(p) + offsetof(struct pfb_ino, f), \
	    sizeof (v)))
#define	IZERO(p, f)	\
	all_zero((const uint8_t *)(p) + offsetof(struct pfb_ino, f), \
	    sizeof (((struct pfb_ino *)0)->f))

static int
ifail(const char **whyp, const char *why)
{
	*whyp = why;
	return (-1);
}

int
bpfino_parse(const void *buf, size_t len, psockid_t *si, const char **whyp)
{
	static const uint8_t v4mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};
	__u32 magic, have, ownnet;
	__s32 fd, tgid;

	*whyp = NULL;
	if (len < PFB_INOSIZE)
		return (ifail(whyp, "inode record cut short"));
	IFIELD(buf, i_magic, magic);
	IFIELD(buf, i_fd, fd);
	IFIELD(buf, i_have, have);
	if (magic != PFB_INO_MAGIC)
		return (ifail(whyp, "not an inode record"));
	if (fd < 0)
		return (ifail(whyp, "inode record: bad fd"));
	if ((have & ~(__u32)PFB_I_ALL) != 0 || !IZERO(buf, i_pad0))
		return (ifail(whyp, "inode record: unknown flags or pads"));
	memset(si, 0, sizeof (*si));
	si->sid_fd = fd;
	si->sid_have = have;
	IFIELD(buf, i_ino, si->sid_ino);
	IFIELD(buf, i_tgid, tgid);
	if (tgid < 0)
		return (ifail(whyp, "inode record: bad tgid"));
	si->sid_pid = tgid;
	IFIELD(buf, i_ownnet, ownnet);
	si->sid_ownnet = ownnet == 1;
	IFIELD(buf, i_family, si->sid_family);
	IFIELD(buf, i_protocol, si->sid_protocol);
	IFIELD(buf, i_state, si->sid_state);
	IFIELD(buf, i_peer_ino, si->sid_peer_ino);
	IFIELD(buf, i_own, si->sid_own);
	IFIELD(buf, i_peer, si->sid_peer);
	IFIELD(buf, i_own_port, si->sid_own_port);
	IFIELD(buf, i_peer_port, si->sid_peer_port);

	/* Only the facts the flags name. */
	if (ownnet > 1)
		return (ifail(whyp, "inode record: own network namespace "
		    "neither 0 nor 1"));
	if ((!(have & PFB_I_OWNNET) && ownnet != 0) ||
	    (!(have & PFB_I_PROTO) && (si->sid_family != 0 ||
	    si->sid_protocol != 0 || si->sid_state != 0)) ||
	    (!(have & PFB_I_UNIXPEER) && si->sid_peer_ino != 0) ||
	    (!(have & PFB_I_ENDS) && (!IZERO(buf, i_own) ||
	    !IZERO(buf, i_peer) || si->sid_own_port != 0 ||
	    si->sid_peer_port != 0)))
		return (ifail(whyp, "inode record: facts its flags deny"));
	if ((have & PFB_I_UNIXPEER) &&
	    (!(have & PFB_I_PROTO) || si->sid_family != AF_UNIX))
		return (ifail(whyp, "inode record: a peer inode of no unix "
		    "socket"));
	if ((have & PFB_I_ENDS) && (!(have & PFB_I_PROTO) ||
	    (si->sid_family != AF_INET && si->sid_family != AF_INET6)))
		return (ifail(whyp, "inode record: ends of no inet socket"));
	if ((have & PFB_I_ENDS) && si->sid_family == AF_INET &&
	    (memcmp(si->sid_own, v4mapped, 12) != 0 ||
	    memcmp(si->sid_peer, v4mapped, 12) != 0))
		return (ifail(whyp, "inode record: an AF_INET end not v4 "
		    "mapped"));
	return (0);
}
