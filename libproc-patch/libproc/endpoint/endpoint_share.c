/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * endpoint_share.c: the holders of the other ends and of the target's own
 * sockets, for a run over many processes (core/Pshare.h): one index of
 * every process's socket fds, made once per run and serving every
 * handle, instead of a pass over every fd table per process examined.
 *
 * Without a share, each walk reads every other process's fd table
 * (endpoint_scan.c): for pfiles /proc/ * that is (processes examined) x
 * (fds of the machine) links.  With one, the first handle that has a
 * socket makes the index: from the source, when it lists
 * every socket fd of the machine without reading tables (sp_holders: the
 * bpf source's one pass over every task's files), else by one pass over
 * every other process's table, a readlink per fd, keeping every socket
 * fd (not only the ones it wants); its own come from its own table
 * (ep_read_own).  Each handle after answers from memory, and brings the
 * index up to date with its own table, read for its walk anyway (so the
 * fds of a process examined are its walk's, not the pass's).
 *
 * The index is of the run, not of the moment: a holder found in it by a
 * handle of a later turn, of an other end or of the target's own socket
 * alike, is named only if its link still says that socket (one readlink
 * per other holder of the target's sockets and their other ends, never
 * per fd of the machine).
 * An other end in the tables that the index does not hold (a connection
 * made since the pass) makes the pass again once the tables the run has
 * read for its targets since add up to that pass's size (so that passes
 * cost the run no more than its own walks: linear, not quadratic, in the
 * processes examined); until then no holder is named or counted for it,
 * and ep_why says that the run read the tables before (endpoint.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/Pshare.h"
#include "endpoint/endpoint_impl.h"
#include "sources/psock.h"

/* How many socket fds of the index a process holds. */
typedef struct pidn {
	pid_t		pn_pid;
	size_t		pn_n;
} pidn_t;

typedef struct epshare {
	holds_t		es_holds;	/* every socket fd read, sorted */
	int		es_built;
	unsigned	es_turn;	/* of the handle that made it */
	unsigned	es_snapshot;	/* the source's pass it is of, or 0 */
	uint_t		es_unreadable;	/* as endpoints_t's, of the pass */
	uint_t		es_scanfail;
	int		es_scanerr;
	int		es_outside;
	size_t		es_cost;	/* fds the pass looked at */
	size_t		es_credit;	/* fds the targets' walks read since */
	struct pidn	*es_pids;	/* socket fds per process, by pid */
	size_t		es_npids;
	holds_t		es_threads;	/* the threads' own tables' */
	int		es_threads_built;
	unsigned	es_threads_turn;
} epshare_t;

/* The share's hook (core/Phook.h): the holders go with it. */
static void
ep_share_free(void *arg)
{
	epshare_t *es = arg;

	free(es->es_holds.h_v);
	free(es->es_pids);
	free(es->es_threads.h_v);
	free(es);
}

/* sp_holders' callback: one socket fd more. */
static int
add_holder(void *arg, uint64_t ino, pid_t pid, int fd)
{
	return (pid > 0 ? ep_holds_add(arg, ino, pid, fd) : 0);
}

static int
pidn_cmp(const void *a, const void *b)
{
	const pidn_t *x = a, *y = b;

	return (x->pn_pid < y->pn_pid ? -1 : x->pn_pid > y->pn_pid);
}

/* The count of pid's socket fds in the index, or NULL. */
static pidn_t *
pidn_of(const epshare_t *es, pid_t pid)
{
	pidn_t key = { pid, 0 };

	return (es->es_npids == 0 ? NULL : bsearch(&key, es->es_pids,
	    es->es_npids, sizeof (pidn_t), pidn_cmp));
}

/* The counts of each process's socket fds in the index: 0, or ENOMEM. */
static int
count_pids(epshare_t *es)
{
	const holds_t *h = &es->es_holds;
	pidn_t *v;
	size_t n = 0;

	if ((v = malloc((h->h_n + 1) * sizeof (*v))) == NULL)
		return (ENOMEM);
	for (size_t i = 0; i < h->h_n; i++) {
		v[i].pn_pid = h->h_v[i].eh_pid;
		v[i].pn_n = 1;
	}
	qsort(v, h->h_n, sizeof (*v), pidn_cmp);
	for (size_t i = 0; i < h->h_n; i++) {
		if (n > 0 && v[n - 1].pn_pid == v[i].pn_pid)
			v[n - 1].pn_n++;
		else
			v[n++] = v[i];
	}
	free(es->es_pids);
	es->es_pids = v;
	es->es_npids = n;
	return (0);
}

/*
 * The index made (again): from the source when it lists every socket fd,
 * else by one pass over every other process's table; the target's own
 * from its own pass, which has just been made.  0 or an errno.
 */
static int
build(struct ps_prochandle *P, epshare_t *es, const endpoints_t *en,
    epbuf_t *buf)
{
	endpoints_t scan;
	int err;

	memset(&scan, 0, sizeof (scan));
	if ((err = Psock_holders(P, add_holder, &scan.en_other)) == 0) {
		/* The kernel's view of every task: nothing unreadable. */
		scan.en_outside = !ep_sees_every_process();
		es->es_snapshot = Psock_snapshot(P, 1);
		PDEBUG(P, "endpoints: the run's index from the source: %zu "
		    "socket fds", scan.en_other.h_n);
	} else {
		scan.en_other.h_n = 0;
		es->es_snapshot = 0;
		if ((err = ep_scan_others(P, &scan, NULL, 0, buf)) != 0) {
			free(scan.en_other.h_v);
			return (err);
		}
		PDEBUG(P, "endpoints: the run's index: %zu fd links read, "
		    "%zu socket fds", scan.en_links, scan.en_other.h_n);
	}
	/* Its own: the walk's, and none of a pass's. */
	for (size_t i = 0; i < scan.en_other.h_n; ) {
		if (scan.en_other.h_v[i].eh_pid == P->pid)
			scan.en_other.h_v[i] =
			    scan.en_other.h_v[--scan.en_other.h_n];
		else
			i++;
	}
	for (size_t i = 0; i < en->en_own.h_n && err == 0; i++)
		err = ep_holds_add(&scan.en_other, en->en_own.h_v[i].eh_ino,
		    P->pid, en->en_own.h_v[i].eh_fd);
	if (err != 0) {
		free(scan.en_other.h_v);
		return (err);
	}
	if (scan.en_other.h_n > 1)
		qsort(scan.en_other.h_v, scan.en_other.h_n, sizeof (ephold_t),
		    ep_hold_cmp);
	free(es->es_holds.h_v);
	es->es_holds = scan.en_other;
	es->es_built = 1;
	es->es_turn = P->share_turn;
	es->es_unreadable = scan.en_unreadable;
	es->es_scanfail = scan.en_scanfail;
	es->es_scanerr = scan.en_scanerr;
	es->es_outside = scan.en_outside;
	es->es_cost = scan.en_links;
	es->es_credit = 0;
	return (count_pids(es));
}

/* Does the index hold the target's socket fds as its own table does? */
static int
current(const epshare_t *es, struct ps_prochandle *P, const holds_t *own)
{
	const pidn_t *pn = pidn_of(es, P->pid);

	if ((pn != NULL ? pn->pn_n : 0) != own->h_n)
		return (0);
	for (size_t i = 0; i < own->h_n; i++) {
		const holds_t *h = &es->es_holds;
		size_t j = ep_first_of(h, own->h_v[i].eh_ino);

		while (j < h->h_n && h->h_v[j].eh_ino == own->h_v[i].eh_ino &&
		    (h->h_v[j].eh_pid != P->pid ||
		    h->h_v[j].eh_fd != own->h_v[i].eh_fd))
			j++;
		if (j == h->h_n || h->h_v[j].eh_ino != own->h_v[i].eh_ino)
			return (0);
	}
	return (1);
}

/*
 * The target's entries of the index replaced by its own table's (en_own,
 * sorted by inode then fd): one merge, when they differ (a binary search
 * per socket fd of its own tells).  0, or ENOMEM.
 */
static int
feed(struct ps_prochandle *P, epshare_t *es, const holds_t *own)
{
	holds_t *h = &es->es_holds;
	ephold_t *v;
	pidn_t *pn;
	size_t i = 0, j = 0, n = 0;

	if (current(es, P, own))
		return (0);

	if ((v = malloc((h->h_n + own->h_n + 1) * sizeof (*v))) == NULL)
		return (ENOMEM);
	while (i < h->h_n || j < own->h_n) {
		ephold_t o;

		if (i < h->h_n && h->h_v[i].eh_pid == P->pid) {
			i++;
			continue;
		}
		if (j < own->h_n) {
			o = own->h_v[j];
			o.eh_pid = P->pid;
		}
		if (j == own->h_n || (i < h->h_n &&
		    ep_hold_cmp(&h->h_v[i], &o) < 0))
			v[n++] = h->h_v[i++];
		else {
			v[n++] = o;
			j++;
		}
	}
	h->h_cap = h->h_n + own->h_n + 1;
	free(h->h_v);
	h->h_v = v;
	h->h_n = n;
	if ((pn = pidn_of(es, P->pid)) != NULL) {
		pn->pn_n = own->h_n;
		return (0);
	}
	return (count_pids(es));
}

/*
 * The holders in h of the nwant inodes of want, but the target's, into
 * en_other (in order: want and h are sorted).  Of an earlier turn, each
 * is checked against its link first.  0, or ENOMEM.
 */
static int
answer(struct ps_prochandle *P, endpoints_t *en, const holds_t *h,
    int stale, const uint64_t *want, size_t nwant)
{
	for (size_t k = 0; k < nwant; k++) {
		for (size_t j = ep_first_of(h, want[k]); j < h->h_n &&
		    h->h_v[j].eh_ino == want[k]; j++) {
			const ephold_t *e = &h->h_v[j];

			if (e->eh_pid == P->pid)
				continue;
			if (stale) {
				en->en_links++;
				if (ep_fd_ino(e->eh_pid, e->eh_fd) != e->eh_ino)
					continue;	/* let go since */
			}
			if (ep_holds_add(&en->en_other, e->eh_ino, e->eh_pid,
			    e->eh_fd) != 0)
				return (ENOMEM);
		}
	}
	return (0);
}

/* The fds of the target's table its walk reads. */
static size_t
own_size(const endpoints_t *en)
{
	size_t n = 0;

	if (en->en_tab == NULL || !en->en_tab->ft_listed)
		return (en->en_own.h_n);
	for (size_t r = 0; r < en->en_tab->ft_nruns; r++)
		n += (size_t)en->en_tab->ft_runs[r].r_n;
	return (n);
}

/* The run's holders, attached to its share at first use; NULL: no memory. */
static epshare_t *
share_of(ps_share_t *sh)
{
	epshare_t *es;

	if ((es = Phook_get(sh->ps_hooks, ep_share_free)) != NULL)
		return (es);
	if ((es = calloc(1, sizeof (*es))) == NULL)
		return (NULL);
	if (Phook_set(sh->ps_hooks, ep_share_free, es, PHOOK_FIRST) != 0) {
		free(es);
		return (NULL);
	}
	return (es);
}

int
ep_share_holders(struct ps_prochandle *P, endpoints_t *en, uint64_t *want,
    size_t nwant, epbuf_t *buf)
{
	ps_share_t *sh = P->share;
	epshare_t *es;
	size_t before;
	int err, stale;

	if ((es = share_of(sh)) == NULL)
		return (ENOMEM);
	if (nwant == 0 && !es->es_built)
		return (0);		/* nothing to look for, or to feed */
	if (!es->es_built) {
		if ((err = build(P, es, en, buf)) != 0)
			return (err);
	} else {
		es->es_credit += own_size(en);
		if ((err = feed(P, es, &en->en_own)) != 0)
			return (err);
	}
	if (nwant == 0)
		return (0);
	/*
	 * Of an earlier turn: checked again, unless the index and this
	 * walk's records are of one pass of the source (one snapshot, as
	 * lsof's: a holder is then as the records are).
	 */
	stale = es->es_turn != P->share_turn && (es->es_snapshot == 0 ||
	    es->es_snapshot != Psock_snapshot(P, 0));
	if ((err = answer(P, en, &es->es_holds, stale, want, nwant)) != 0)
		return (err);
	/* An other end nobody holds, in an index of an earlier turn. */
	if (stale && (nwant = ep_unfound(en, want, nwant)) > 0 &&
	    es->es_credit >= es->es_cost) {
		PDEBUG(P, "endpoints: %zu other ends not in the run's index: "
		    "it is made again", nwant);
		before = en->en_other.h_n;
		if ((err = build(P, es, en, buf)) != 0 ||
		    (err = answer(P, en, &es->es_holds, 0, want, nwant)) != 0)
			return (err);
		if (before > 0 && en->en_other.h_n > before)
			qsort(en->en_other.h_v, en->en_other.h_n,
			    sizeof (ephold_t), ep_hold_cmp);
		stale = 0;
	}
	en->en_unreadable = es->es_unreadable;
	en->en_scanfail = es->es_scanfail;
	en->en_scanerr = es->es_scanerr;
	en->en_outside = es->es_outside;
	en->en_scanned = 1;
	if (nwant == 0 || (nwant = ep_unfound(en, want, nwant)) == 0)
		return (0);
	/* Held by no process: by a thread with a table of its own? */
	if (!es->es_threads_built) {
		endpoints_t scan;

		memset(&scan, 0, sizeof (scan));
		if ((err = ep_scan_threads(P, &scan, NULL, 0, buf)) != 0) {
			free(scan.en_other.h_v);
			return (err);
		}
		es->es_threads = scan.en_other;
		es->es_threads_built = 1;
		es->es_threads_turn = P->share_turn;
	}
	before = en->en_other.h_n;
	if ((err = answer(P, en, &es->es_threads, es->es_threads_turn !=
	    P->share_turn, want, nwant)) != 0)
		return (err);
	if (en->en_other.h_n > before && before > 0)
		qsort(en->en_other.h_v, en->en_other.h_n, sizeof (ephold_t),
		    ep_hold_cmp);
	/* Still nobody's, and the index not this turn's: not seen since. */
	en->en_stale = stale && ep_unfound(en, want, nwant) > 0;
	return (0);
}
