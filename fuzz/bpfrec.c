/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bpfrec.c: fuzzing harness of the BPF record parser (bpfrec_parse.c).
 *
 * Input: one byte of options, then a stream of records as the BPF
 * task-file iterator writes them (bpf/pfiles_bpf.h): each its fixed part
 * and its path, NUL and zeros to a multiple of 8, r_recsize bytes in all.
 * Option bit 0 writes a good header (magic, version, and a size in range:
 * the record's own when it is one, else one made from r_path_len) over
 * every record before it is parsed, so that the fuzzer reaches the checks
 * of the fields; bit 1 takes the next byte to choose where the prefix
 * below is cut (as the loader's reads may cut a record anywhere).
 *
 * The stream is parsed record after record, as bpf_load.c does, from one
 * buffer and again from a copy of each record in a buffer of exactly its
 * size (a read past a record is caught); the two must agree.  The model:
 * a record taken is r_recsize bytes long, a multiple of 8 from
 * PFB_RECSIZE(0) to PFB_RECSIZE_MAX, no more than the bytes given; its
 * path (or the empty one of an error), the NUL and only zeros after it
 * fill r_path to the record's end.  Bytes that hold less than the size
 * their header says must ask for more (0), and every prefix of a record
 * taken must ask for more, never succeed.  A record taken must be one the
 * iterator can write: counts and lengths in range, the path and every
 * address inside the record, the booleans known, a peer's pid only on a
 * unix socket, a state only of a TCP or connection-oriented unix socket,
 * queues only of a socket that has them, a FIN only of TCP's, and so on.
 * A socket of sockfs (PFB_H_SOCKFS) carries no path: the parser makes
 * sockfs_dname()'s "socket:[INO]" from its inode, which the model checks
 * against snprintf's; a netlink socket's group words follow its empty
 * path, inside the record, and only zeros after them.
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/types.h>

#include "src/bpf/pfiles_bpf.h"
#include "src/bpf/bpfrec_parse.h"
#include "fuzz.h"

#define	OPT_FIXHDR	0x01
#define	OPT_PIECES	0x02
#define	OPT_INODES	0x04	/* records of the second program */

#define	HDRSIZE	offsetof(struct pfb_rec, r_have)	/* magic .. r_recsize */

static uint16_t
get16(const uint8_t *rec, size_t off)
{
	uint16_t v;

	memcpy(&v, rec + off, sizeof (v));
	return (v);
}

static uint32_t
get32(const uint8_t *rec, size_t off)
{
	uint32_t v;

	memcpy(&v, rec + off, sizeof (v));
	return (v);
}

static int
size_ok(size_t size)
{
	return (size >= PFB_RECSIZE(0) && size <= PFB_RECSIZE_MAX &&
	    size % 8 == 0);
}

/* Needs avail >= HDRSIZE; reads r_path_len only when avail holds it. */
static void
fix_header(uint8_t *rec, size_t avail)
{
	uint32_t magic = PFB_MAGIC, plen;
	uint16_t version = PFB_VERSION, size;

	size = get16(rec, offsetof(struct pfb_rec, r_recsize));
	if (!size_ok(size)) {
		plen = avail >= offsetof(struct pfb_rec, r_nlocks) ?
		    get32(rec, offsetof(struct pfb_rec, r_path_len)) : size;
		size = PFB_RECSIZE(plen % PFB_PATH_MAX);
	}
	memcpy(rec + offsetof(struct pfb_rec, r_magic), &magic, 4);
	memcpy(rec + offsetof(struct pfb_rec, r_version), &version, 2);
	memcpy(rec + offsetof(struct pfb_rec, r_recsize), &size, 2);
}

static int
inside(const void *p, size_t n, const uint8_t *rec, size_t size)
{
	const uint8_t *q = p;

	return (q >= rec && q + n <= rec + size);
}

/* The bytes of a record taken after its path's: its group words'. */
static size_t
groups_bytes(const bpfrec_t *br)
{
	if (!(br->br_sock_have & BPFREC_S_GROUPS) || br->br_ngroups == 0)
		return (0);
	return (PFB_GROUPS_SIZE(br->br_ngroups));
}

/*
 * The state, queues and groups of a socket taken: of the kinds of socket
 * that have them, from the record's own bytes.
 */
static void
check_state(const bpfrec_t *br, const uint8_t *rec, size_t size)
{
	uint32_t have = br->br_sock_have, rq, wq;
	int inet = br->br_family == AF_INET || br->br_family == AF_INET6;
	int tcp = inet && br->br_type == SOCK_STREAM &&
	    br->br_protocol == IPPROTO_TCP;
	int unixconn = br->br_family == AF_UNIX &&
	    (br->br_type == SOCK_STREAM || br->br_type == SOCK_SEQPACKET);
	uint8_t state = rec[offsetof(struct pfb_rec, r_state)];

	rq = get32(rec, offsetof(struct pfb_rec, r_rq));
	wq = get32(rec, offsetof(struct pfb_rec, r_wq));
	FUZZ_CHECK((int)state == br->br_state && rq == br->br_rq &&
	    wq == br->br_wq);
	if (have & BPFREC_S_STATE)
		FUZZ_CHECK((tcp || unixconn) && state != 0);
	else
		FUZZ_CHECK(state == 0);
	if (have & BPFREC_S_QUEUES)
		FUZZ_CHECK((have & BPFREC_S_STATE) || (inet &&
		    (br->br_type == SOCK_DGRAM || br->br_type == SOCK_RAW)) ||
		    (br->br_family == AF_UNIX && br->br_type == SOCK_DGRAM));
	else
		FUZZ_CHECK(rq == 0 && wq == 0);
	FUZZ_CHECK(!(have & BPFREC_S_FIN) ||
	    (tcp && (have & BPFREC_S_QUEUES)));
	if (!(have & BPFREC_S_GROUPS)) {
		FUZZ_CHECK(br->br_ngroups == 0 && br->br_groups == NULL &&
		    get16(rec, offsetof(struct pfb_rec, r_ngroups)) == 0);
		return;
	}
	FUZZ_CHECK(br->br_family == AF_NETLINK &&
	    (br->br_have & BPFREC_SOCKFS));
	FUZZ_CHECK(br->br_ngroups <= BPFREC_NLGROUPS_MAX &&
	    br->br_ngroups == get16(rec, offsetof(struct pfb_rec,
	    r_ngroups)));
	if (br->br_ngroups == 0) {
		FUZZ_CHECK(br->br_groups == NULL);
		return;
	}
	/* After the empty path's 8 bytes, to the record's end. */
	FUZZ_CHECK(br->br_groups == rec + PFB_RECFIXED + PFB_GROUPS_AT);
	FUZZ_CHECK(size == PFB_RECFIXED + PFB_GROUPS_AT +
	    groups_bytes(br));
	FUZZ_CHECK(inside(br->br_groups, br->br_ngroups * 4, rec, size));
	for (size_t i = PFB_RECFIXED + PFB_GROUPS_AT + br->br_ngroups * 4;
	    i < size; i++)
		FUZZ_CHECK(rec[i] == 0);
}

static void
check_sane(const bpfrec_t *br, const uint8_t *rec, size_t size)
{
	size_t pend;

	FUZZ_CHECK(br->br_err == NULL);
	/* The size: the header's, in range; the path and zeros fill it. */
	FUZZ_CHECK(size_ok(size));
	FUZZ_CHECK(size == get16(rec, offsetof(struct pfb_rec, r_recsize)));
	FUZZ_CHECK(get32(rec, offsetof(struct pfb_rec, r_magic)) == PFB_MAGIC);
	FUZZ_CHECK(get16(rec, offsetof(struct pfb_rec, r_version)) ==
	    PFB_VERSION);
	pend = PFB_RECFIXED + get32(rec, offsetof(struct pfb_rec,
	    r_path_len)) + 1;
	FUZZ_CHECK((br->br_have & BPFREC_SOCKFS) || br->br_path_len ==
	    get32(rec, offsetof(struct pfb_rec, r_path_len)));
	FUZZ_CHECK(PFB_RECSIZE(pend - 1 - PFB_RECFIXED) <= size);
	FUZZ_CHECK(rec[pend - 1] == 0);
	/* Zeros to the end, or to a netlink socket's group words. */
	for (size_t i = pend; i < size - groups_bytes(br); i++)
		FUZZ_CHECK(rec[i] == 0);
	FUZZ_CHECK(br->br_fd >= 0 && br->br_tgid >= 0);
	FUZZ_CHECK(br->br_nlocks <= BPFREC_MAXLOCKS);
	FUZZ_CHECK(br->br_locks_more == 0 || br->br_nlocks == BPFREC_MAXLOCKS);
	for (unsigned int i = 0; i < br->br_nlocks; i++) {
		const bpfrec_lock_t *l = &br->br_locks[i];

		FUZZ_CHECK(l->bl_kind >= BPFREC_LK_POSIX &&
		    l->bl_kind <= BPFREC_LK_OTHER);
		FUZZ_CHECK(l->bl_type == F_RDLCK || l->bl_type == F_WRLCK ||
		    l->bl_type == F_UNLCK);
		FUZZ_CHECK(l->bl_kind != BPFREC_LK_OFD || l->bl_pid == -1);
	}
	if (br->br_have & BPFREC_SOCKFS) {
		/* sockfs_dname(): "socket:[INO]", made from the inode */
		char name[32];

		FUZZ_CHECK(get32(rec, offsetof(struct pfb_rec, r_path_len)) ==
		    0 && size == PFB_RECSIZE(0) + groups_bytes(br));
		FUZZ_CHECK((br->br_mode & S_IFMT) == S_IFSOCK &&
		    (br->br_have & BPFREC_SOCK) && br->br_anon == NULL);
		FUZZ_CHECK(br->br_path == br->br_sockpath);
		FUZZ_CHECK((size_t)snprintf(name, sizeof (name), "socket:[%llu]",
		    (unsigned long long)br->br_ino) == br->br_path_len &&
		    memcmp(name, br->br_path, br->br_path_len + 1) == 0);
	} else if (br->br_path != NULL) {
		FUZZ_CHECK(br->br_path_err == 0);
		FUZZ_CHECK(br->br_path_len < PFB_PATH_MAX);
		FUZZ_CHECK(br->br_path == (const char *)rec + PFB_RECFIXED);
		FUZZ_CHECK(inside(br->br_path, br->br_path_len + 1, rec,
		    size));
		FUZZ_CHECK(memchr(br->br_path, '\0', br->br_path_len) == NULL);
		FUZZ_CHECK(br->br_path[br->br_path_len] == '\0');
	} else {
		FUZZ_CHECK(br->br_path_err > 0 && br->br_path_len == 0);
		FUZZ_CHECK(br->br_anon == NULL);
	}
	if (br->br_anon != NULL) {
		FUZZ_CHECK((br->br_mode & S_IFMT) == 0);
		FUZZ_CHECK(br->br_anon >= br->br_path &&
		    br->br_anon + br->br_anon_len ==
		    br->br_path + br->br_path_len);
	}
	FUZZ_CHECK(br->br_major < 4096 && br->br_rmajor < 4096);
	FUZZ_CHECK(br->br_size >= 0);
	if (!(br->br_have & BPFREC_SOCK)) {
		FUZZ_CHECK(br->br_sock_have == 0 && br->br_bools_known == 0 &&
		    br->br_groups == NULL);
		return;
	}
	FUZZ_CHECK((br->br_mode & S_IFMT) == S_IFSOCK);
	FUZZ_CHECK((br->br_bools & ~br->br_bools_known) == 0);
	FUZZ_CHECK((br->br_bools_known & ~(unsigned)BPFREC_SO_ALL) == 0);
	FUZZ_CHECK(br->br_linger_on == 0 || br->br_linger_on == 1);
	FUZZ_CHECK(br->br_peer_pid >= 0);
	FUZZ_CHECK(br->br_peer_pid == 0 ||
	    (br->br_sock_have & BPFREC_S_PEERPID));
	/* SO_PEERCRED's pid is a unix socket's fact, no other family's. */
	FUZZ_CHECK(!(br->br_sock_have & BPFREC_S_PEERPID) ||
	    br->br_family == AF_UNIX);
	for (int k = 0; k < 2; k++) {
		const bpfrec_addr_t *a = k == 0 ? &br->br_sockname :
		    &br->br_peername;

		if (a->ba_err != 0) {
			FUZZ_CHECK(a->ba_err > 0 && a->ba_len == 0 &&
			    a->ba_data == NULL);
			continue;
		}
		if (!(br->br_sock_have & BPFREC_S_SK))
			continue;
		FUZZ_CHECK(a->ba_len >= 2 && a->ba_len <= BPFREC_ADDR_MAX);
		FUZZ_CHECK(inside(a->ba_data, a->ba_len, rec, PFB_RECFIXED));
		FUZZ_CHECK((a->ba_data[0] | a->ba_data[1] << 8) ==
		    br->br_family);
		/* A packet socket's: sockaddr_ll to its interface index */
		FUZZ_CHECK(br->br_family != AF_PACKET || a->ba_len == 8);
	}
	check_state(br, rec, size);
}

static void
check_same(const bpfrec_t *a, const bpfrec_t *b, const uint8_t *ra,
    const uint8_t *rb)
{
	FUZZ_CHECK(a->br_have == b->br_have && a->br_fd == b->br_fd);
	FUZZ_CHECK(a->br_mode == b->br_mode && a->br_ino == b->br_ino);
	FUZZ_CHECK(a->br_size == b->br_size && a->br_pos == b->br_pos);
	FUZZ_CHECK(a->br_fflags == b->br_fflags);
	FUZZ_CHECK(a->br_path_len == b->br_path_len);
	FUZZ_CHECK(a->br_path_err == b->br_path_err);
	FUZZ_CHECK((a->br_path == NULL) == (b->br_path == NULL));
	FUZZ_CHECK(a->br_path == NULL || (a->br_have & BPFREC_SOCKFS) ||
	    a->br_path - (const char *)ra == b->br_path - (const char *)rb);
	FUZZ_CHECK(a->br_path == NULL ||
	    memcmp(a->br_path, b->br_path, a->br_path_len) == 0);
	FUZZ_CHECK(a->br_nlocks == b->br_nlocks);
	FUZZ_CHECK(a->br_locks_more == b->br_locks_more);
	FUZZ_CHECK(memcmp(a->br_locks, b->br_locks, sizeof (a->br_locks)) == 0);
	FUZZ_CHECK(a->br_sock_have == b->br_sock_have);
	FUZZ_CHECK(a->br_bools == b->br_bools);
	FUZZ_CHECK(a->br_sockname.ba_len == b->br_sockname.ba_len);
	FUZZ_CHECK(a->br_peername.ba_len == b->br_peername.ba_len);
	FUZZ_CHECK(a->br_peer_pid == b->br_peer_pid);
	FUZZ_CHECK(a->br_state == b->br_state && a->br_rq == b->br_rq &&
	    a->br_wq == b->br_wq && a->br_ngroups == b->br_ngroups);
	FUZZ_CHECK((a->br_groups == NULL) == (b->br_groups == NULL));
	FUZZ_CHECK(a->br_groups == NULL ||
	    (a->br_groups - ra == b->br_groups - rb &&
	    memcmp(a->br_groups, b->br_groups, a->br_ngroups * 4) == 0));
}

/*
 * With OPT_INODES, the stream is the second program's records (struct
 * pfb_ino), PFB_INOSIZE bytes each (OPT_FIXHDR writes the magic and a
 * good fd): one taken holds only the facts its flags name, as the model
 * below says from the bytes themselves; the same bytes alone give the
 * same; fewer bytes are refused.
 */
static void
inode_records(uint8_t *buf, size_t n, uint8_t opt)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0xff, 0xff };
	psockid_t id, again;
	const char *why;
	uint8_t copy[PFB_INOSIZE];
	uint32_t magic = PFB_INO_MAGIC, have;
	int32_t fd, tgid;

	for (size_t off = 0; n - off >= PFB_INOSIZE; off += PFB_INOSIZE) {
		uint8_t *rec = buf + off;

		if (opt & OPT_FIXHDR) {
			memcpy(rec + offsetof(struct pfb_ino, i_magic), &magic,
			    sizeof (magic));
			rec[offsetof(struct pfb_ino, i_fd) + 3] &= 0x7f;
		}
		if (bpfino_parse(rec, PFB_INOSIZE, &id, &why) != 0) {
			FUZZ_CHECK(why != NULL);
			break;
		}
		FUZZ_CHECK(why == NULL);
		memcpy(&fd, rec + offsetof(struct pfb_ino, i_fd), sizeof (fd));
		memcpy(&have, rec + offsetof(struct pfb_ino, i_have),
		    sizeof (have));
		FUZZ_CHECK(fd >= 0 && id.sid_fd == fd && id.sid_have == have);
		memcpy(&tgid, rec + offsetof(struct pfb_ino, i_tgid),
		    sizeof (tgid));
		FUZZ_CHECK(tgid >= 0 && id.sid_pid == tgid);
		FUZZ_CHECK((have & ~(uint32_t)PSI_ALL) == 0);
		if (!(have & PSI_PROTO))
			FUZZ_CHECK(id.sid_family == 0 && id.sid_protocol == 0 &&
			    id.sid_state == 0);
		if (!(have & PSI_OWNNET))
			FUZZ_CHECK(id.sid_ownnet == 0);
		FUZZ_CHECK(id.sid_ownnet == 0 || id.sid_ownnet == 1);
		if (have & PSI_UNIXPEER)
			FUZZ_CHECK(id.sid_family == AF_UNIX);
		else
			FUZZ_CHECK(id.sid_peer_ino == 0);
		if (have & PSI_ENDS) {
			FUZZ_CHECK(id.sid_family == AF_INET ||
			    id.sid_family == AF_INET6);
			if (id.sid_family == AF_INET)
				FUZZ_CHECK(memcmp(id.sid_own, mapped, 12) == 0 &&
				    memcmp(id.sid_peer, mapped, 12) == 0);
		} else {
			FUZZ_CHECK(id.sid_own_port == 0 &&
			    id.sid_peer_port == 0);
			for (size_t i = 0; i < 16; i++)
				FUZZ_CHECK(id.sid_own[i] == 0 &&
				    id.sid_peer[i] == 0);
		}
		memcpy(copy, rec, PFB_INOSIZE);
		FUZZ_CHECK(bpfino_parse(copy, PFB_INOSIZE, &again, &why) == 0);
		FUZZ_CHECK(memcmp(&id, &again, sizeof (id)) == 0);
		FUZZ_CHECK(bpfino_parse(copy, PFB_INOSIZE - 1 - off % 8, &again,
		    &why) == -1 && why != NULL);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	bpfrec_t whole, alone, part;
	uint8_t *buf, *copy;
	size_t off, cut, n;
	ssize_t r, r2;
	fuzz_in_t in;
	uint8_t opt, piece = 0;

	if (len > FUZZ_MAXLEN)
		return (0);
	fuzz_in_init(&in, data, len);
	opt = fuzz_u8(&in);
	if (opt & OPT_PIECES)
		piece = fuzz_u8(&in);
	buf = fuzz_copy(&in, in.fi_left, &n);
	if (opt & OPT_INODES) {
		inode_records(buf, n, opt);
		free(buf);
		return (0);
	}

	for (off = 0; off < n; off += (size_t)r) {
		if ((opt & OPT_FIXHDR) && n - off >= HDRSIZE)
			fix_header(buf + off, n - off);
		r = bpfrec_parse(buf + off, n - off, &whole);
		FUZZ_CHECK(r == -1 || (r >= 0 && (size_t)r <= n - off));
		if (r == 0) {
			/* Less than a header, or than the size it says. */
			FUZZ_CHECK(whole.br_err == NULL);
			FUZZ_CHECK(n - off < HDRSIZE ||
			    n - off < get16(buf + off,
			    offsetof(struct pfb_rec, r_recsize)));
			break;
		}
		if (r < 0) {
			FUZZ_CHECK(whole.br_err != NULL);
			break;
		}
		check_sane(&whole, buf + off, (size_t)r);

		/* The same record alone, in a buffer of exactly its size. */
		if ((copy = malloc((size_t)r)) == NULL)
			abort();
		memcpy(copy, buf + off, (size_t)r);
		r2 = bpfrec_parse(copy, (size_t)r, &alone);
		FUZZ_CHECK(r2 == r);
		check_same(&whole, &alone, buf + off, copy);

		/* A prefix never yields a record: it asks for more. */
		cut = (opt & OPT_PIECES) ? (size_t)piece * 19 % (size_t)r :
		    (size_t)r - 1;
		r2 = bpfrec_parse(copy, cut, &part);
		FUZZ_CHECK(r2 == 0);
		free(copy);
	}
	free(buf);
	return (0);
}
