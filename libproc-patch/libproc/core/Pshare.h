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
 * each part is its module's, attached with a hook that frees it with the
 * share (core/Phook.h).  A share serves one handle at a time.
 */
#ifndef	_PSHARE_H
#define	_PSHARE_H

#include <stddef.h>
#include <sys/types.h>

#include "core/Phook.h"

struct ps_share {
	pid_t		*ps_pids;	/* the run's, in order (Pshare_pids) */
	size_t		ps_npids;
	unsigned	ps_turns;	/* handles attached so far */
	phook_t		ps_hooks[PHOOKS];	/* the modules' parts */
};

/*
 * Is the handle one of a run over many processes (more than one pid)?  The
 * one rule for what only such a run does: bpf's pass over every task
 * keeping records, the tables dumped at once for the first process.
 */
struct ps_prochandle;
extern int ps_many(const struct ps_prochandle *);

#endif	/* _PSHARE_H */
