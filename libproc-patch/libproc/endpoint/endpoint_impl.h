/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * endpoint_impl.h: what the files of endpoint/ share, and nothing else
 * includes.  Not installed.
 *
 * The work is in three parts, one file each, put together once per walk
 * by endpoints_resolve() (endpoint.c):
 *  - endpoint_scan.c reads fd tables: the target's own socket fds, and
 *    the one pass over every other process's for the holders of the
 *    other ends and of the target's own sockets (and, for an other end
 *    that no process holds, the tables of threads that have their own);
 *  - endpoint_settle.c finds the other end of each of the target's
 *    sockets: from the source's facts where they settle it, else from
 *    the kernel's socket tables (netdiag/);
 *  - endpoint_index.c keeps the answers by inode (the holders, sorted;
 *    the index of the target's socket inodes) and answers from them
 *    (endpoints_of(), endpoints_shared()).
 * Every function here returns an errno (Pcontrol.h) unless it says
 * otherwise.
 */
#ifndef	_ENDPOINT_IMPL_H
#define	_ENDPOINT_IMPL_H

#include "endpoint/endpoint.h"
#include "fdtab/fdtab.h"
#include "sock/sockid.h"
#include "netdiag/diag_nets.h"

/* The room of a pass over fd tables (fdtab_next()). */
typedef struct epbuf {
	char		b_dents[FDTAB_DENTS];
	int		b_fds[FDTAB_BATCH];
} epbuf_t;

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
 * A socket of the target not in a run's tables of an earlier turn: made
 * since, or in no table; em_nopeer once the walk found it has no peer.
 */
typedef struct epmissed {
	uint64_t	em_ino;
	int		em_nopeer;
} epmissed_t;

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
	const fdtab_t	*en_tab;	/* its table, as the walk has it */
	diag_nets_t	*en_nets;	/* the tables, when the walk's own */
	ids_t		en_ids;		/* of each, when the source gave them */
	holds_t		en_other;	/* of the other ends and of the */
					/* target's sockets, elsewhere */
	eppeer_t	*en_peers;	/* in the order found */
	size_t		en_npeers;
	epindex_t	*en_ix;		/* of en_own's inodes, sorted */
	size_t		en_nix;
	size_t		en_finger[2];	/* where the last lookups ended */
	unsigned	en_lastf;	/* the finger moved last */
	uint_t		en_unreadable;	/* fd tables pfiles may not read */
	uint_t		en_scanfail;	/* of those, failed otherwise (EMFILE) */
	int		en_scanerr;	/* the first such failure's errno */
	size_t		en_ambiguous;	/* sockets whose other end is one of */
					/* several with the same addresses */
	int		en_outside;	/* processes outside pfiles' pid */
					/* namespace hold fds it cannot see */
	int		en_scanned;	/* the other processes were read */
	size_t		en_unheld;	/* sockets whose other end no table */
					/* read holds, where some were not */
	size_t		en_links;	/* fd links the scans read */
	int		en_stale;	/* the run's holders, of an earlier */
					/* turn, may lack an other end's */
	epmissed_t	*en_missed;	/* sockets not in the run's tables */
	size_t		en_nmissed;	/* of an earlier turn, sorted */
	size_t		en_unlisted;	/* of those, not found since to */
					/* have no other end (no peer) */
	int		en_nopeers;	/* no other end could be looked */
					/* for (ep_why says why) */
};

/* endpoint_index.c: holders, and the index of the answers. */

/* One holder more in h: 0, or ENOMEM. */
extern int ep_holds_add(holds_t *, uint64_t, pid_t, int);
/* The first holder of ino in h (sorted), or h_n. */
extern size_t ep_first_of(const holds_t *, uint64_t);
/* qsort's order of holders: by inode, then pid, then fd. */
extern int ep_hold_cmp(const void *, const void *);
/* A process's own socket fds into ep_hold_cmp's order: 0, or ENOMEM. */
extern int ep_sort_own(holds_t *);
/* The index of en_own's inodes (sorted), no other ends yet. */
extern int ep_ix_build(endpoints_t *);
/*
 * Where each other end of en_peers is, into *wherep (the caller frees
 * it): the place of its first holder in en_own, or IX_OTHER | its entry
 * in en_peers when the target does not hold it.
 */
extern int ep_ix_places(endpoints_t *, uint32_t **);
/* The other ends, where ep_ix_places() found them, into the index. */
extern void ep_ix_link(endpoints_t *, const uint32_t *);
/*
 * The inodes whose holders the one pass over every other process looks
 * for, sorted, each once, into *wantp (the caller frees it) and their
 * number into *np: every other end (PR_ENDPOINTS), whether the target
 * holds it or not, and every socket of the target's index (PR_SHARED:
 * the other fds that hold it).  A process that holds none of them adds
 * nothing to what the pass keeps.
 */
extern int ep_wanted(const endpoints_t *, uint64_t **, size_t *);
/*
 * The n sorted other ends of want that neither the target nor any
 * process read holds: kept at the front of want, their number returned.
 */
extern size_t ep_unfound(endpoints_t *, uint64_t *, size_t);
/*
 * The target's sockets (of the linked index) whose other end is known
 * and held by no fd found: neither the target's nor any table's read.
 */
extern size_t ep_unheld(const endpoints_t *);

/* endpoint_scan.c: fd tables. */

/*
 * Told once (ep_signal()) by the pass over the target's table, as soon as
 * it has seen a socket (1); or by whoever ends it, that it saw none (0).
 */
typedef struct epsignal {
	void		(*sg_fn)(void *, int);
	void		*sg_arg;
	_Atomic int	sg_sent;
} epsignal_t;
extern void ep_signal(epsignal_t *, int);

/*
 * The target's socket fds into en_own (and the source's facts of them
 * into en_ids, when it gives them), sorted by ep_hold_cmp; when the
 * source does not list them, from the target's table read into the
 * given one (fdtab_read()), which tells sig (when not NULL) of the first
 * socket it sees.
 */
extern int ep_read_own(struct ps_prochandle *, endpoints_t *, fdtab_t *,
    epsignal_t *);
/*
 * The one pass over every other process's fd table: the holders of the
 * given inodes (sorted) into en_other, sorted, the count of tables
 * pfiles may not read, and whether processes outside pfiles' pid
 * namespace (which its /proc does not show) may hold some.
 */
extern int ep_scan_others(struct ps_prochandle *, endpoints_t *,
    const uint64_t *, size_t, epbuf_t *);
/*
 * The second pass, for the given inodes (sorted) that no process's
 * table holds: the fd tables of threads that have one of their own
 * (unshare(CLONE_FILES)), of every process, the target's too.  Their
 * holders into en_other, sorted, by thread id.
 */
extern int ep_scan_threads(struct ps_prochandle *, endpoints_t *,
    const uint64_t *, size_t, epbuf_t *);

/*
 * The inode of the socket fd of pid, as its link says now (a readlink),
 * or 0 (not a socket, closed, not readable).
 */
extern uint64_t ep_fd_ino(pid_t, int);
/* Does pfiles' /proc show every process of the machine? */
extern int ep_sees_every_process(void);

/* endpoint_share.c: the run's holders (core/Pshare.h). */

/*
 * The holders of the nwant sorted inodes of want (the other ends and the
 * target's sockets, ep_wanted()) that are not the target's, into
 * en_other, from the run's index of every process's socket fds, which
 * the first handle that needs it makes (the source's sp_holders, else
 * one pass over every fd table), and which the target's own table then
 * brings up to date for the handles after.
 * Then, for an other end no process holds, the threads' own tables, the
 * same way.  0 or an errno.
 */
extern int ep_share_holders(struct ps_prochandle *, endpoints_t *,
    uint64_t *, size_t, epbuf_t *);

/* endpoint_settle.c: the other ends. */

/*
 * The other ends that the source's facts (en_ids) settle, into
 * en_peers; the sockets they do not, into the holds given (sorted), for
 * the tables.
 */
extern int ep_settle_all(struct ps_prochandle *, endpoints_t *, holds_t *);
/*
 * The other end of each socket of the holds given (sorted, some of the
 * target's) that has one in the tables, into en_peers after those found
 * already.
 */
extern int ep_find_peers(struct ps_prochandle *, endpoints_t *,
    diag_nets_t *, const holds_t *);

#endif	/* _ENDPOINT_IMPL_H */
