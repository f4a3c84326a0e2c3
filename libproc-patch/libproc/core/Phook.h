/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Phook.h: state that a module of libproc attaches to a handle or to a
 * run's share, and the hook that lets it go.  Not installed.
 *
 * The handle and the share live in core, below every module that hangs
 * state on them; core knows none of those modules.  A module that
 * attaches state registers its release function with it (Phook_set);
 * Prelease and Pshare_destroy call every hook registered (Phook_run).  The
 * release function is the module's own, so it is also the key by which
 * the module finds its state again (Phook_get).
 */
#ifndef	_PHOOK_H
#define	_PHOOK_H

typedef void phook_f(void *);

/*
 * The order of release: a module whose state uses another module's goes
 * first (PHOOK_FIRST: a source of socket facts, which may hold fds in the
 * agent's thread), the one whose state is used last (PHOOK_LAST).
 */
#define	PHOOK_FIRST	0
#define	PHOOK_LAST	1

typedef struct phook {
	phook_f		*ph_free;	/* NULL: the slot is free */
	void		*ph_data;
	int		ph_order;	/* PHOOK_* */
} phook_t;

#define	PHOOKS		4	/* hooks per handle or share, at most */

/*
 * Register free(data) at order, or give free a new data if it is
 * registered already: 0, or ENOSPC (every slot taken: the caller keeps
 * its state to itself).
 */
extern int Phook_set(phook_t *, phook_f *, void *, int);
/* The data registered with free, or NULL. */
extern void *Phook_get(const phook_t *, phook_f *);
/* Call every hook, PHOOK_FIRST's before PHOOK_LAST's; the slots free. */
extern void Phook_run(phook_t *);

#endif	/* _PHOOK_H */
