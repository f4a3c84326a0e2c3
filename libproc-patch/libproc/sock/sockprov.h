/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sockprov.h: a provider of the whole walk and of the sockets, for a
 * source that finds every fact of every fd in one pass (bpf), and of the
 * socket tables, for a source that holds them (diag).  Not installed.
 *
 * A provider is registered beside its source (sources/registry.c) and
 * serves while that source is the handle's; the walk and the endpoints
 * ask it through sources/psock.h.  It knows neither: the walk gives it
 * what it needs as callbacks (sockwalk_t).  Its functions return an
 * errno (0, or a positive value), but sp_walk, sp_snapshot and
 * sp_tables.  A provider has the members it can serve; the others are
 * NULL.
 *  sp_walk	the whole walk instead of the fd-by-fd one: each record it
 *		finishes to sw_emit, in fd order; an fd whose record it
 *		cannot stand behind built by sw_build.  Returns as
 *		Pfdinfo_iter_flags does.
 *  sp_inodes	the target's sockets, a psockid_t each (sockid.h: the fd,
 *		the inode, and what it knows of the other end) to cb, more
 *		cheaply than a readlink of every fd: for the endpoints,
 *		before the walk.  0, or an errno (the sockets given so far
 *		are not all).
 *  sp_holders	every socket fd of every process of the machine, (inode,
 *		pid, fd) each to cb, without reading each process's fd table:
 *		for the endpoints' holders of the other ends, once per run.
 *  sp_snapshot	the pass of the run (1, 2, ...) whose records the handle's
 *		walk shows (holders 0) and whose socket fds sp_holders gave
 *		(holders 1), or 0: holders of the same pass as the records
 *		are not checked again.
 *  sp_tables	the socket tables the source holds (netdiag/diag_nets.h:
 *		its dumps, by network namespace), for the endpoints, so
 *		that no dump is made twice; NULL when it holds none.  Read
 *		before the walk's threads start, which may add to them.
 */
#ifndef	_SOCKPROV_H
#define	_SOCKPROV_H

#include "core/Pcontrol.h"
#include "sock/sockid.h"

/*
 * What the walk gives sp_walk.  sw_build: the record of fd into rec, the
 * walk's way; 0, ENOENT (not open any more: passed over), or another
 * errno.  sw_emit: a finished record to the walk's caller; what the
 * caller's function returns (not 0: the walk stops).
 */
typedef struct sockwalk {
	int		(*sw_build)(void *, fdrec_t *, int);
	int		(*sw_emit)(void *, fdrec_t *);
	void		*sw_arg;
} sockwalk_t;

struct diag_nets;
typedef struct sockprov_ops {
	int		(*sp_walk)(struct ps_prochandle *, const sockwalk_t *);
	int		(*sp_inodes)(struct ps_prochandle *, psockid_f *,
			    void *);
	int		(*sp_holders)(struct ps_prochandle *, psockhold_f *,
			    void *);
	unsigned	(*sp_snapshot)(struct ps_prochandle *, int);
	struct diag_nets *(*sp_tables)(struct ps_prochandle *);
} sockprov_ops_t;

#endif	/* _SOCKPROV_H */
