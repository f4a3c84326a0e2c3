/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Pshare.h: what the handles of one run share (Pshare(3LIBPROC) in
 * libproc.h).  Not installed.
 *
 * A run that examines many processes (pfiles /proc/ *) learns things that
 * are the machine's, not one process's: who holds which socket (the fd
 * tables of every process), and the kernel's socket tables of each
 * network namespace.  Each is learned once per run, lazily, by the first
 * handle that needs it, and kept here for the handles that come after;
 * each part is its module's (endpoint/endpoint_share.c, the tables'
 * netdiag/diag_nets.c, the bpf source's one pass src/bpf/bpf_run.c),
 * and freed with the share.  A share serves one handle at a time.
 */
#ifndef	_PSHARE_H
#define	_PSHARE_H

#include <stddef.h>
#include <sys/types.h>

#define	PS_TABS		64	/* network namespaces' tables kept */

struct diag_table;
struct epshare;
struct bpf_run;

struct ps_share {
	pid_t		*ps_pids;	/* the run's, in order (Pshare_pids) */
	size_t		ps_npids;
	unsigned	ps_turns;	/* handles attached so far */
	struct diag_table *ps_tabs[PS_TABS];	/* by network namespace */
	size_t		ps_ntabs;
	struct epshare	*ps_ep;		/* endpoint/endpoint_share.c */
	struct bpf_run	*ps_bpf;	/* src/bpf/bpf_run.c */
};

/*
 * Is the handle one of a run over many processes (more than one pid)?  The
 * one rule for what only such a run does: bpf's pass over every task
 * keeping records, the tables dumped at once for the first process.
 */
struct ps_prochandle;
extern int ps_many(const struct ps_prochandle *);

/* Each module's part, freed with the share. */
extern void ep_share_free(struct epshare *);
extern void bpf_run_free(struct bpf_run *);

#endif	/* _PSHARE_H */
