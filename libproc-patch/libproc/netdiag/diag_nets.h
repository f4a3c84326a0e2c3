/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diag_nets.h: a socket's record in the kernel's socket tables of its
 * own network namespace, which need not be its holder's.  Not
 * installed.
 *
 * A process's sockets are mostly in its own network namespace, whose
 * tables (diag_table.h) are the first asked.  Not all: a unix socket
 * accepted from a client of another namespace is in the client's; a
 * process that moved to a new namespace (unshare(CLONE_NEWNET)), or was
 * sent sockets over SCM_RIGHTS, holds sockets of the namespaces they were
 * made in.  The diag source (sock_diag.c) and the endpoints (endpoint/)
 * look a socket up through this module, and share one set where the
 * diag source serves (Psock_tables()).
 *
 * In a run whose handles share what they learn (Pshare), a namespace's
 * table is the run's: made by the first handle that needs it, its dumps
 * made once and kept for every handle after (their records are then the
 * run's, as ss's and lsof's are of their one pass).  A set borrows such
 * tables and does not free or quiet them.
 */
#ifndef	_DIAG_NETS_H
#define	_DIAG_NETS_H

#include "netdiag/diag_table.h"

#define	DN_MAX		8	/* namespaces' tables kept per process */

typedef struct diag_nets {
	diag_table_t	*dn_tab[DN_MAX];	/* [0]: the process's */
	size_t		dn_n;
	int		dn_own;		/* index of pfiles' own, or: */
#define	DN_UNTRIED	(-1)		/* not looked for yet */
#define	DN_NONE		(-2)		/* none to be had */
	unsigned	dn_borrowed;	/* bit i: dn_tab[i] is the run's */
					/* (core/Pshare.h), not freed here */
	int		dn_askerr;	/* why a socket's namespace could not */
					/* be asked (the first time), or 0 */
} diag_nets_t;

/*
 * The set for the target: the table of its network namespace first
 * (diag_table_new()).  NULL with errno and the handle's message, as
 * diag_table_new().
 */
extern diag_nets_t *diag_nets_new(struct ps_prochandle *);
extern void diag_nets_free(diag_nets_t *);
/*
 * No dump will be made any more: the tables' netlink sockets (an fd each)
 * and receive buffers are let go; lookups go on as before, and a dump
 * asked for is not made.
 */
extern void diag_nets_quiet(diag_nets_t *);

/*
 * The record of the target's socket fd (inode ino), from the tables of
 * the process's network namespace, else of the socket's own: the socket
 * is asked which one it is in (SIOCGSKNS on a duplicate, pidfd_getfd:
 * this needs ptrace access to the target and CAP_NET_ADMIN over that
 * namespace); where it cannot be asked, pfiles' own namespace's tables
 * are looked in (a lookup by inode finds the socket or nothing, never
 * another).  The table it was found in into *dtp; NULL when none holds
 * it.  Not thread-safe: the caller serialises.
 */
extern const dent_t *diag_nets_find(struct ps_prochandle *, diag_nets_t *,
    int, uint64_t, diag_table_t **);

#endif	/* _DIAG_NETS_H */
