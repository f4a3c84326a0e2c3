/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pf_opts.h: pfiles' command line (pf_opts.c).
 */
#ifndef	_PF_OPTS_H
#define	_PF_OPTS_H

#include "libproc.h"

/* What the command line asks for. */
typedef struct pf_args {
	int		pa_json;	/* -J, --json */
	int		pa_statonly;	/* -n, --stat-only */
	int		pa_noendpoints;	/* --no-endpoints */
	psocksrc_t	pa_via;		/* --via=SOURCE */
	int		pa_all;		/* --all: every process, no pid */
	int		pa_first;	/* argv's first pid */
} pf_args_t;

/*
 * argv into *a.  Returns only when pfiles is to examine the pids from
 * argv[a->pa_first] on (at least one), or with --all every process (no
 * pid given); exits 0 after --help or --version, and 2 after saying what
 * is wrong with the command line.
 */
extern void pf_opts_parse(int, char **, pf_args_t *);

#endif	/* _PF_OPTS_H */
