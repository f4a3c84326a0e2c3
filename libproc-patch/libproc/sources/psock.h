/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * psock.h: what the walk (walk/) and the endpoints (endpoint/) ask of the
 * handle's source of socket facts, chosen by Psetsocksrc() or, at first
 * use, by auto (registry.c).  Not installed.
 */
#ifndef	_PSOCK_H
#define	_PSOCK_H

#include "core/Pcontrol.h"
#include "sock/sockid.h"
#include "sock/sockprov.h"

/*
 * Let the source's per-handle state go (a new Psetsocksrc; Prelease, by
 * the hook the source's choice registers).
 */
extern void Psockrelease(struct ps_prochandle *);
/*
 * The facts of n sockets (socksrc.h: each its fd, the inode the walk saw,
 * and the facts known already), from the handle's source (registry.c),
 * chosen by Psetsocksrc or, at first use, by auto; several at once where
 * the source can.  Each answer is in its sa_err: 0, ENOENT (closed since
 * the walk saw it), ESTALE (replaced since), ESRCH (the target is gone).
 */
struct sockask;
extern void Psockfacts(struct ps_prochandle *, struct sockask *, size_t);
/* The walk's next batch of fds, told to the source before it is walked. */
extern void Psockbatch(struct ps_prochandle *, const int *, size_t);
/*
 * Does the chosen source provide the whole walk (sock/sockprov.h: bpf,
 * which finds every fact at once)?  Then Psock_walk is that walk, to
 * which the walk gives how to build a record its way and where to hand
 * each record; it returns as Pfdinfo_iter_flags does.
 */
extern int Psock_walks(struct ps_prochandle *);
extern int Psock_walk(struct ps_prochandle *, const sockwalk_t *);
/*
 * The target's sockets, a psockid_t each (sockid.h), from a source's
 * provider that knows them cheaply (bpf): returns an errno, ENOTSUP when the source
 * cannot.
 */
extern int Psock_inodes(struct ps_prochandle *, psockid_f *, void *);
/*
 * Every socket fd of the machine from the source, when it lists them
 * without reading fd tables (sp_holders): 0, or an errno (ENOTSUP: it
 * does not).
 */
extern int Psock_holders(struct ps_prochandle *, psockhold_f *, void *);
/*
 * The pass of the run that the handle's records (holders 0) or the
 * source's socket fds of the machine (holders 1) come from, or 0 (not
 * one of the run's passes).
 */
extern unsigned Psock_snapshot(struct ps_prochandle *, int);
/*
 * The socket tables the chosen source holds (sp_tables: diag's), for the
 * endpoints to share, or NULL.  Only before the walk's threads start.
 */
struct diag_nets;
extern struct diag_nets *Psock_tables(struct ps_prochandle *);
/* May records be built on several threads?  Only if the source says so. */
extern int Psock_parallel_ok(struct ps_prochandle *);

#endif	/* _PSOCK_H */
