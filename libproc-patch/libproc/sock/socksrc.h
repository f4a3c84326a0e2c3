/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * socksrc.h: a source of socket facts, and the facts it finds.  Not
 * installed.
 *
 * A source is an ops table (as illumos' ps_ops_t): each source file
 * exports exactly one.  It finds facts and fills a sockfacts_t; it never
 * formats, and never builds or orders record items: sockrec_add() turns
 * the facts into the record's items, the same way for every source, so
 * that every source prints the same bytes for every fact it knows.
 */
#ifndef	_SOCKSRC_H
#define	_SOCKSRC_H

#include <linux/sock_diag.h>
#include <stddef.h>
#include <sys/socket.h>

#include "core/Pcontrol.h"
#include "netdiag/diag_parse.h"
#include "sock/sockid.h"
#include "sock/sockopts.h"

/* sf_have: the facts that are known. */
#define	SF_DOMAIN	0x0001
#define	SF_TYPE		0x0002
#define	SF_PROTOCOL	0x0004
#define	SF_LINGER	0x0008
#define	SF_SNDBUF	0x0010
#define	SF_RCVBUF	0x0020
#define	SF_NAME		0x0040
#define	SF_PEER		0x0080
#define	SF_CRED		0x0100
#define	SF_PEERCOMM	0x0200	/* sf_peercomm: sock_peer.c's proof held */
#define	SF_STATE	0x0400	/* sf_state */
#define	SF_QUEUES	0x0800	/* sf_queues, sf_rq, sf_wq */
#define	SF_GROUPS	0x1000	/* sf_groups, sf_ngroups */
#define	SF_IFNAME	0x2000	/* sf_ifname */

/* The netlink groups kept, in words of 32: as many as the tables hold. */
#define	SF_NLGROUPS_MAX	DIAG_NLGROUPS_MAX
/* An interface's name, with its NUL (IF_NAMESIZE). */
#define	SF_IFNAMSZ	16

typedef struct sockfacts {
	uint_t		sf_have;	/* SF_* */
	int		sf_domain;
	int		sf_type;
	int		sf_protocol;
	prsockbool_t	sf_bools;	/* the booleans known, and set */
	struct linger	sf_linger;
	int		sf_sndbuf;
	int		sf_rcvbuf;
	struct sockaddr_storage sf_name;
	socklen_t	sf_namelen;
	struct sockaddr_storage sf_peer;
	socklen_t	sf_peerlen;
	struct ucred	sf_cred;	/* SO_PEERCRED */
	char		sf_peercomm[PRFNSZ];	/* its process's comm */
	/*
	 * State and queues, as prsockstate_t (libproc.h) says: sf_state a
	 * PR_SS_* (a TCP or connection-oriented unix socket), sf_queues
	 * PR_SSQ_QUEUED or PR_SSQ_BACKLOG for what sf_rq and sf_wq are.
	 */
	int		sf_state;
	uint_t		sf_queues;
	uint32_t	sf_rq, sf_wq;
	/* Every netlink group joined: sf_ngroups words of 32. */
	uint32_t	sf_groups[SF_NLGROUPS_MAX];
	uint_t		sf_ngroups;
	/* A packet socket's interface, by name (sock_ifname.c). */
	char		sf_ifname[SF_IFNAMSZ];
	char		sf_err[PERRMSG_MAX];	/* why facts are missing */
	/*
	 * A source that cannot find out some facts at all says why here (a
	 * static string); sockrec_add() then lists the facts of this
	 * socket that are not known (PR_SOCKGAPS).  sf_gaps: SF_PEER for a
	 * peer that is connected but whose name is not known; SF_PEERCOMM
	 * for a peer process that could not be proven (for want of fds, or
	 * asked inside the target, with no pidfd of the peer here).
	 */
	const char	*sf_gapwhy;
	uint_t		sf_gaps;
	/*
	 * What the kernel's socket tables said of the socket, for a source
	 * that asks it the rest (sock_table.c): sf_cookie, its cookie (0:
	 * not known), by which the socket asked is known to be this one;
	 * sf_nopeer, it has no peer (no getpeername to make; also set by a
	 * source whose getpeername said ENOTCONN).
	 */
	uint64_t	sf_cookie;
	int		sf_nopeer;
} sockfacts_t;

/*
 * One socket the walk asks about, among others (sc_facts): the
 * target's fd, its inode as the walk saw it, its record in the socket
 * tables the walk holds (NULL when it holds none, or the socket is in
 * none: netdiag, below this layer), its facts, and its answer.
 */
struct diag_table;
struct dent;
typedef struct sockask {
	int		sa_fd;
	uint64_t	sa_ino;
	const struct diag_table *sa_tab;
	const struct dent *sa_dent;	/* in sa_tab */
	sockfacts_t	sa_facts;
	int		sa_err;
} sockask_t;

/*
 * A source: its ops table, the same for every source.  Its functions
 * return an errno: 0, or a positive errno value (Pcontrol.h), but where
 * said.
 *  sc_id	which source (psocksrc_t); sc_name, its name in messages
 *  sc_probe	can it serve this target?  how is SOCKSRC_ASKED (chosen by
 *		name) or SOCKSRC_AUTO (auto tries it: its own rules for auto
 *		apply too).  0, or an errno with the reason in the handle's
 *		message (Pseterr), without the source's name; or, under
 *		auto only, SOCKSRC_PASS (socksrc_pass()): auto passes it by
 *		without asking it, for the reason in the handle's message
 *		("": none worth saying).
 *  sc_batch	(optional) the fds the walk is about to ask about, in
 *		increasing order: a source may fetch ahead.  Returns nothing.
 *  sc_facts	the facts of n sockets at once, each answer in its sa_err:
 *		0 (the facts found, and in sf_err why any are missing),
 *		ENOENT (closed since), ESTALE (replaced since), ESRCH
 *		(target gone).  It may take what the socket tables hold
 *		exactly from each socket's record (sa_dent:
 *		sockfacts_from_table()) and ask only the rest; a source that
 *		asks one socket at a time goes through sockask_each().
 *  sc_release	(optional) let go of P->src_data.  Returns nothing.
 *  sc_parallel	sc_facts may be called from several threads at once.
 * A source that also finds every fact of every fd at once (bpf) provides
 * the walk and the sockets besides (sockprov.h), registered beside it.
 */
#define	SOCKSRC_ASKED	0
#define	SOCKSRC_AUTO	1
#define	SOCKSRC_PASS	(-1)

typedef struct socksrc_ops {
	psocksrc_t	sc_id;
	const char	*sc_name;
	int		(*sc_probe)(struct ps_prochandle *, int);
	void		(*sc_batch)(struct ps_prochandle *, const int *,
			    size_t);
	void		(*sc_facts)(struct ps_prochandle *, sockask_t *,
			    size_t);
	void		(*sc_release)(struct ps_prochandle *);
	int		sc_parallel;
} socksrc_ops_t;

/*
 * sc_probe's SOCKSRC_PASS, with why (a static string, or "" to pass by
 * in silence) as the handle's message (socksrc.c).
 */
extern int socksrc_pass(struct ps_prochandle *, const char *);
/*
 * sc_facts for a source that asks one socket at a time: one(P, fd, ino,
 * facts) for each, its errno in sa_err (socksrc.c).
 */
typedef int sockfacts_one_f(struct ps_prochandle *, int, uint64_t,
    sockfacts_t *);
extern void sockask_each(struct ps_prochandle *, sockask_t *, size_t,
    sockfacts_one_f *);
/*
 * The facts of n sockets of the target through pidfd_getfd(2): each
 * duplicated here, asked (sock_local_facts_many) and closed, batched to
 * the fds this process may spare (sock_getfd.c).  For the pidfd source,
 * and for a source that asks pidfd_getfd what it cannot tell (bpf).
 * sock_getfd: pidfd_getfd of fd, asked again while an exec hands the
 * process over; the fd, or -1 with errno.
 */
extern void sock_getfd_facts(struct ps_prochandle *, sockask_t *, size_t);
extern int sock_getfd(struct ps_prochandle *, int);

/*
 * The facts of a socket open in this process, which must be the one
 * whose inode the walk saw (else ESTALE): sock_local.c, for the sources
 * that bring the target's socket here (pidfd, the agent's passing).
 */
extern int sock_local_facts(int, uint64_t, sockfacts_t *);
/*
 * The same for n sockets open here at once: s[i] of inode ino[i] into
 * *sf[i], its sock_local_facts() answer in err[i]; a socket whose s[i]
 * is negative is passed over.  Their getsockopt calls go in as few
 * system calls as the kernel allows (sock_ring.c).
 */
extern void sock_local_facts_many(const int *, const uint64_t *,
    sockfacts_t *const *, int *, size_t);
/*
 * Does the kernel refuse option row of the table to every socket of the
 * domain (SO_PASSCRED of inet sockets since Linux 6.16)?  Then it is
 * never a fact a socket of that domain could have (sock_local.c).
 */
extern int sock_family_refuses(int, int);
/*
 * Close a duplicate of the target's socket, never waiting on it for
 * SO_LINGER (sock_close.c); the facts, when known, say its linger.
 */
extern void sock_close(int, const sockfacts_t *);
/* The same for n sockets (s[i] negative: none), sf[i] each's facts. */
extern void sock_close_many(const int *, sockfacts_t *const *, size_t);

/*
 * The facts the kernel's socket tables hold of entry e of table dt
 * (netdiag/diag_table.h), into sf (sock_table.c).  With exact, only those
 * the tables hold exactly as the calls would give them, with the cookie
 * and whether it has a peer: for a source that asks the socket the rest.
 * Without, every fact they hold, and a unix peer whose name they do not
 * give is a gap (the diag source, which asks nothing).
 */
extern void sockfacts_from_table(sockfacts_t *, const struct diag_table *,
    const struct dent *, int);
/*
 * The state and queues of entry e (NULL: none), into facts that have no
 * queues, where the socket said the same state or none: for a source
 * that asked the socket, which cannot tell some of them (a unix
 * listener's backlog).
 */
extern void sockfacts_queues_from_table(sockfacts_t *,
    const struct diag_table *, const struct dent *);
/*
 * The backlog of each unix listener among n asked sockets that the walk's
 * tables did not give (they were made after the tables were dumped, or
 * none were: --no-endpoints): one dump of the unix table of the
 * target's namespace for them all; where none has it, the backlog is
 * said to be missing (sf_gapwhy), never left out unsaid.
 */
extern void sockask_backlogs(struct ps_prochandle *, sockask_t *, size_t);

/* sockrec.c: facts in, record items out. */
extern void sockfacts_init(sockfacts_t *);
/* One option of the table, whose value val (of sockopt_size()) is known. */
extern void sockfacts_set_opt(sockfacts_t *, const sockopt_t *,
    const void *);
extern void sockfacts_error(sockfacts_t *, const char *, ...)
    __attribute__((__format__(__printf__, 2, 3)));
extern void sockrec_add(fdrec_t *, const sockfacts_t *);
/*
 * A packet socket's interface by name (sf_ifname, SF_IFNAME), asked in
 * the target's network namespace; nothing for any other socket
 * (sock_ifname.c).
 */
extern void sock_ifname(struct ps_prochandle *, sockfacts_t *);
/*
 * A TCP socket's state and queues from the kernel's own counters, for
 * the sources that read them (diag, bpf): rcv, rcv_nxt - copied_seq
 * (which counts a FIN received and not read); snd, write_seq - snd_una;
 * fin, whether a FIN was received (1), was not (0), or is not known
 * (-1).  The queues are then what SIOCINQ and SIOCOUTQ say: nothing
 * while the handshake is under way, no FIN counted; not known where the
 * FIN cannot be told.  A listener: rcv waiting, snd the limit.
 */
extern void sockfacts_tcp(sockfacts_t *, int, uint32_t, uint32_t, int);
/*
 * Which state line a socket of domain, type and protocol (-1: not
 * known) has: SOCKSTATE_LINE (state and queues), SOCKSTATE_QUEUED
 * (queues alone), or 0 (none).
 */
#define	SOCKSTATE_LINE		1
#define	SOCKSTATE_QUEUED	2
extern int sockstate_kind(int, int, int);

/*
 * sock_state.c: a socket's state, queues and netlink groups as the
 * socket itself answers them, for the sources that ask it (sock_local.c,
 * the agent's batch in the target).  The questions are a table
 * (sockstate_questions(), SW_N rows, row SWQ_X of bit SW_X): a getsockopt,
 * or an ioctl whose answer is an int, each with its room in a
 * sockstate_ans_t (sockstate_slot()).  sockstate_wants(): the questions
 * that the facts known so far leave for a socket of its family and type.
 * The source asks them and notes each answered one (sockstate_answered(),
 * with the length the kernel gave, which may be more than the room);
 * sockstate_take() then makes facts of the answers that apply to the
 * socket, by the one rule of each, never over a fact known already.  A
 * unix socket's state needs no question of its own: it comes from
 * SO_ACCEPTCONN and its peer (SF_PEER, or sf_nopeer), answers or not.
 */
enum {
	SWQ_TCPINFO,		/* getsockopt IPPROTO_TCP TCP_INFO */
	SWQ_INQ,		/* ioctl SIOCINQ */
	SWQ_OUTQ,		/* ioctl SIOCOUTQ */
	SWQ_MEMINFO,		/* getsockopt SOL_SOCKET SO_MEMINFO */
	SWQ_GROUPS,		/* getsockopt SOL_NETLINK
				   NETLINK_LIST_MEMBERSHIPS */
	SW_N
};
#define	SW_TCPINFO	(1U << SWQ_TCPINFO)
#define	SW_INQ		(1U << SWQ_INQ)
#define	SW_OUTQ		(1U << SWQ_OUTQ)
#define	SW_MEMINFO	(1U << SWQ_MEMINFO)
#define	SW_GROUPS	(1U << SWQ_GROUPS)

/* TCP_INFO's first bytes, enough for a listener's tcpi_sacked. */
#define	SOCKSTATE_TCPI_LEN	\
	(offsetof(struct tcp_info, tcpi_sacked) + sizeof (uint32_t))
/* SO_MEMINFO's first words, enough for SK_MEMINFO_WMEM_ALLOC. */
#define	SOCKSTATE_MEM_N		(SK_MEMINFO_WMEM_ALLOC + 1)

typedef struct sockstate_ans {
	uint_t		st_got;		/* SW_*: answered (no error) */
	socklen_t	st_len[SW_N];	/* each one's length, as given */
	uint8_t		st_tcpi[SOCKSTATE_TCPI_LEN];
	int		st_inq, st_outq;
	uint32_t	st_mem[SOCKSTATE_MEM_N];
	uint32_t	st_groups[SF_NLGROUPS_MAX];
} sockstate_ans_t;

typedef struct sockstate_q {
	int		sq_ioctl;	/* 1: ioctl(sq_name); 0: getsockopt */
	int		sq_level;
	int		sq_name;
	size_t		sq_off;		/* its answer in sockstate_ans_t */
	size_t		sq_size;	/* and its room there */
} sockstate_q_t;

extern const sockstate_q_t *sockstate_questions(void);
extern void *sockstate_slot(sockstate_ans_t *, int);
extern void sockstate_answered(sockstate_ans_t *, int, socklen_t);
extern uint_t sockstate_wants(const sockfacts_t *);
extern void sockstate_take(sockfacts_t *, const sockstate_ans_t *);

/*
 * sock_peer.c: the one rule for naming a unix socket's peer.  Where the
 * process that has sf_cred's pid is proven to be the one SO_PEERCRED
 * recorded, sock_peer_name() sets sf_peercomm and SF_PEERCOMM; where
 * pfiles had no fd to spare for the proof, the gap SF_PEERCOMM.  The
 * proof is a pidfd of the recorded process, which pidfd_of(arg) gives
 * (or -errno), and which sock_peer_name() closes: sock_peer_pidfd, of
 * the socket (an int *) here, SO_PEERPIDFD (Linux 6.5); or
 * sock_peer_pidfd_ino, pidfd_open of the pid whose pidfs inode (Linux
 * 6.9) is the one read with it (a sock_peer_ino_t *).
 */
typedef int sock_peer_pidfd_f(const void *);
typedef struct sock_peer_ino {
	pid_t		pi_pid;
	uint64_t	pi_ino;
} sock_peer_ino_t;

extern sock_peer_pidfd_f sock_peer_pidfd, sock_peer_pidfd_ino;
extern void sock_peer_name(sockfacts_t *, sock_peer_pidfd_f *,
    const void *);

#endif	/* _SOCKSRC_H */
