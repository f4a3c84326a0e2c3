/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * endpoint.h: the processes at the other end of a local socket (the
 * holders of the socket that is connected to one of the target's), for
 * PR_ENDPOINTS, and the other holders of the target's sockets themselves,
 * for PR_SHARED.  Not installed.
 *
 * endpoints_resolve() is called once per walk, before the walk's first
 * record (and before its threads start): it learns the target's socket
 * inodes and their fds, the other end of each (diag_table.c), and who
 * holds those other ends and the target's sockets themselves.
 * endpoints_of() and endpoints_shared() then answer for one socket of
 * the target by its inode, from memory, with no system call.
 */
#ifndef	_ENDPOINT_H
#define	_ENDPOINT_H

#include "core/Pcontrol.h"

typedef struct endpoints endpoints_t;

/*
 * What is known of the other ends of the target's sockets, or NULL when
 * nothing is (no socket, no table of its network namespace, no memory:
 * the records then simply have no PR_ENDPOINTS; LIBPROC_DEBUG says why).
 */
struct fdtab;
extern endpoints_t *endpoints_resolve(struct ps_prochandle *, struct fdtab *);
extern void endpoints_free(endpoints_t *);

/*
 * The PR_ENDPOINTS payload of the target's socket of inode ino into buf
 * (room for PR_ENDPOINTS_MAX holders): its length, or 0 when the socket
 * has no other end on this host that anyone is known to hold.  It keeps
 * where its lookup ended, for the next one: one caller at a time.
 */
extern size_t endpoints_of(endpoints_t *, uint64_t, void *, size_t);
/*
 * The PR_SHARED payload of the target's socket of inode ino held at fd
 * into buf (as endpoints_of()): the other fds that hold that very socket,
 * the target's own first, then other processes', by pid then fd; 0 when
 * no other fd found holds it.  From the same pass as endpoints_of()'s
 * answers, one caller at a time.
 */
extern size_t endpoints_shared(endpoints_t *, uint64_t, int, void *, size_t);

/*
 * The walk's record of one of the target's sockets, its facts in: one
 * that was missing from a run's tables of an earlier turn and that has
 * no peer has no other end to look for (endpoint_settle.c).  One caller
 * at a time, as endpoints_of().
 */
extern void endpoints_seen(endpoints_t *, const prfdinfo_t *);
/*
 * The walk is over: what its answers lacked, and why, into the handle's
 * ep_why (Pendpoints_why()); nothing for NULL.
 */
extern void endpoints_end(struct ps_prochandle *, const endpoints_t *);

/*
 * The record of socket ino in the socket tables that were dumped for the
 * endpoints, when the endpoints made them for this walk (not the diag
 * source's, which it may add to during the walk), and its table into
 * *dtp; else NULL.  Safe from several threads: the tables are not
 * added to after endpoints_resolve().
 */
struct diag_table;
struct dent;
extern const struct dent *endpoints_dent(const endpoints_t *, uint64_t,
    const struct diag_table **);

/* The size of the largest payload endpoints_of() or _shared() makes. */
#define	ENDPOINTS_BUFSZ	(sizeof (prendpoints_t) + \
	PR_ENDPOINTS_MAX * sizeof (prendpoint_t))

#endif	/* _ENDPOINT_H */
