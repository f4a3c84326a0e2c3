/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diag_table.h: the kernel's socket tables (NETLINK_SOCK_DIAG) of one
 * network namespace, dumped into memory and looked up by inode, and for
 * inet sockets by their addresses and ports.  Not installed.
 *
 * The diag source of socket facts (sock_diag.c) and the resolver of the
 * processes at the other end of a local socket (endpoint.c) both read
 * the tables through this module; where the diag source serves a
 * handle, both share its table, so that no dump is made twice.
 *
 * A dump is made group by group (diag_groups[] of diag_table.c: the
 * dumps that may hold a socket of one kind), and only when asked for:
 * diag_table_next() dumps the first group not dumped yet, in the order
 * of the groups, and diag_table_dump() one named group.  A table is not
 * thread-safe: its user serialises the calls (sock_diag.c holds its
 * lock; endpoint.c runs before the walk's threads start).
 */
#ifndef	_DIAG_TABLE_H
#define	_DIAG_TABLE_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "core/Pcontrol.h"

/* The groups, by the index diag_table_dump() takes. */
#define	DT_TCP4		0	/* TCP and MPTCP of AF_INET */
#define	DT_TCP6		1	/* TCP and MPTCP of AF_INET6 */
#define	DT_UNIX		2
#define	DT_UDP		3	/* UDP of both families */
#define	DT_NETLINK	4
#define	DT_PACKET	5
#define	DT_UDPLITE	6	/* UDP-Lite of both families */
#define	DT_RAW		7	/* raw sockets of both families */
#define	DT_NGROUPS	8

/*
 * One socket of a dump, compact (a busy host has tens of thousands): its
 * names (getsockname's bytes, then getpeername's) and a netlink socket's
 * group words are in the table's arena.  de_have holds the DS_* bits of
 * diag_parse.h that are kept: DS_NAME, DS_PEER, DS_PEER_INO, DS_MEM,
 * DS_RQLEN, DS_SHUTDOWN.  The inodes are 32 bits, as every dump gives
 * them (a socket's inode number is never wider).
 *
 *  de_rq, de_wq	the socket's queues as its kind counts them
 *			(DS_RQLEN): TCP and MPTCP, idiag_rqueue and
 *			idiag_wqueue; UDP, UDP-Lite and raw,
 *			SK_MEMINFO_RMEM_ALLOC and SK_MEMINFO_WMEM_ALLOC;
 *			unix, UNIX_DIAG_RQLEN (diag_parse.h says what each
 *			is).  Netlink and packet: none.
 *  de_shutdown		the sk_shutdown bits (DS_SHUTDOWN).
 *  de_ngroups		netlink: the words of its groups in the arena after
 *			its names, trimmed of the zero words at the end
 *			(diag_table_groups()).
 */
typedef struct dent {
	uint64_t	de_cookie;	/* SO_COOKIE's (diag_parse.h) */
	uint32_t	de_ino;
	uint32_t	de_peer_ino;
	uint32_t	de_next;	/* in its hash chain: index + 1; 0 ends */
	uint32_t	de_sndbuf, de_rcvbuf;
	uint32_t	de_rq, de_wq;
	uint32_t	de_names;	/* arena offset: name, peer, groups */
	uint16_t	de_have;
	uint16_t	de_protocol;
	uint8_t		de_family, de_type, de_state;
	uint8_t		de_namelen, de_peerlen;
	uint8_t		de_bound;	/* inet: bound to an interface */
	uint8_t		de_dual;	/* AF_INET6 taking IPv4 too: */
					/* IPV6_V6ONLY known off */
	uint8_t		de_shutdown;
	uint8_t		de_ngroups;	/* at most DIAG_NLGROUPS_MAX */
} dent_t;

typedef struct diag_table {
	int		dt_sock;	/* NETLINK_SOCK_DIAG, in the namespace */
	char		dt_nserr[PERRMSG_MAX];	/* why there is none */
	dev_t		dt_nsdev;	/* the namespace (its nsfs file) */
	ino_t		dt_nsino;
	uint32_t	dt_seq;
	uint32_t	dt_dumped;	/* bit g: group g dumped */
	int		dt_reqerr[DT_NGROUPS][2];	/* each dump's errno */
	uint8_t		*dt_buf;	/* one datagram of a dump */
	dent_t		*dt_ent;
	size_t		dt_nent, dt_capent;
	uint8_t		*dt_arena;
	size_t		dt_narena, dt_caparena;
	uint32_t	*dt_hash;	/* by inode: index + 1 of a chain's first */
	size_t		dt_nhash;	/* a power of 2 */
	size_t		dt_hashed;	/* entries in the hash so far */
	int		dt_err;		/* a callback's: ENOMEM */
	/* By addresses and ports (inet), made at first use: */
	uint32_t	*dt_thash;	/* index + 1 of a chain's first */
	uint32_t	*dt_tnext;	/* per entry: the next in its chain */
	size_t		dt_nthash;	/* a power of 2 */
	size_t		dt_tfor;	/* dt_nent when it was made */
	/* A run's (Pshare): the turn of its first dump, lookups since. */
	unsigned	dt_turn;
	size_t		dt_credit;
} diag_table_t;

/*
 * A new table for the target's network namespace (diag_table_new), or
 * for the namespace of the nsfs file nsfd (diag_table_new_in, which
 * does not keep nsfd): its netlink socket is made there (by a
 * short-lived thread that enters it, when it is not ours).  NULL with
 * errno and the handle's message when the target or memory is missing;
 * a table whose dt_nserr says why it cannot be dumped when the namespace
 * may not be entered (it holds no socket).
 */
extern diag_table_t *diag_table_new(struct ps_prochandle *);
extern diag_table_t *diag_table_new_in(struct ps_prochandle *, int);
extern void diag_table_free(diag_table_t *);

/*
 * Dump the first group not dumped yet: 1, or 0 when every group has
 * been.  diag_table_dump() dumps group g unless it has been.  A dump
 * that failed is remembered in dt_reqerr (the last time it was made);
 * ENOENT is one the kernel cannot make, for want of its module: no
 * failure, but the sockets of that kind cannot be found.
 */
extern int diag_table_next(struct ps_prochandle *, diag_table_t *);
extern void diag_table_dump(struct ps_prochandle *, diag_table_t *, int);
/*
 * Why a socket of kind (diag_kind.h; NULL: not known) is in none of the
 * dumps made: of the dumps that could hold it, the first that failed
 * ("the tcp dump failed: REASON"), else those the kernel has not ("this
 * kernel gives no raw, raw6 dump", and why where that is known), into
 * buf; "" when every such dump was made.
 */
struct diag_req;
extern void diag_table_why(const diag_table_t *, const struct diag_req *,
    char *, size_t);
/* Has group g been dumped? */
extern int diag_table_dumped(const diag_table_t *, int);

/* The socket of inode ino (the latest record of it), or NULL. */
extern const dent_t *diag_table_lookup(const diag_table_t *, uint64_t);
/*
 * The same, after dumping the groups not dumped yet until it is found.  A
 * table of a run (Pshare) dumped in an earlier handle's turn, which lacks
 * the socket (made since, or in no table: unbound), is dumped again, its
 * new records after the old ones, once the lookups made in it since its
 * dumps add up to half its records: the run's dumps cost no more than
 * twice its lookups.
 */
extern const dent_t *diag_table_find(struct ps_prochandle *, diag_table_t *,
    uint64_t);
/*
 * Was the table dumped in an earlier turn of the handle's run, and not
 * again since: may a socket made since be missing from it?
 */
extern int diag_table_stale(const struct ps_prochandle *,
    const diag_table_t *);

/* e's name (getsockname) and peer name (getpeername), into ss. */
extern void diag_table_name(const diag_table_t *, const dent_t *,
    struct sockaddr_storage *, socklen_t *);
extern void diag_table_peer(const diag_table_t *, const dent_t *,
    struct sockaddr_storage *, socklen_t *);
/* e's netlink group words (de_ngroups of them), into w. */
extern void diag_table_groups(const diag_table_t *, const dent_t *,
    uint32_t *);

/*
 * The inode of the other end of the connected inet socket e on this
 * host: the socket of the same transport (TCP or MPTCP, UDP, UDP-Lite)
 * whose own address and port are e's peer's and whose peer's are e's
 * own, in the tables dumped so far (an AF_INET address and its
 * v4-mapped AF_INET6 form are one); for a UDP or UDP-Lite socket that
 * has none, the server (bound, connected to no one) that takes its
 * datagrams (of either family, where the kernel would hand it them: see
 * udp_server()).  0 when there is none; DIAG_REV_MANY when two sockets of
 * different inodes would do (never a guess); ENOMEM in *errp when the
 * index could not be made.
 */
#define	DIAG_REV_MANY	UINT64_MAX
extern uint64_t diag_table_reverse(diag_table_t *, const dent_t *, int *);

#endif	/* _DIAG_TABLE_H */
