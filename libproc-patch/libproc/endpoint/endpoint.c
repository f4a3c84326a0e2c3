/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * endpoint.c: who holds the other end of each of the target's sockets
 * whose other end is on this host (PR_ENDPOINTS), and who else holds each
 * of the target's sockets itself (PR_SHARED: a dup, a listener that
 * forked workers inherited, a socket passed over SCM_RIGHTS).
 *
 * Once per walk, before its first record:
 *  1. the target's fds that are sockets, and their inodes: from the
 *     source when it lists them (Psock_inodes: the bpf source's inode
 *     pass), else from the target's table read once (fdtab_read(): a
 *     statx of each /proc/PID/fd/N), since the walk streams in fd order
 *     and a socket's other end may be an fd not walked yet;
 *  2. the other end of each: first from the facts the source gave with
 *     1. (sockid.h; the bpf source), for the sockets whose other end
 *     they settle (endpoint_settle.c); then, for the others, from the
 *     kernel's socket tables (diag_table.c, in the target's network
 *     namespace, or in the socket's own where it is not there:
 *     diag_nets.c): a unix socket's peer inode (UNIX_DIAG_PEER); for a
 *     connected TCP, MPTCP, UDP or UDP-Lite socket, the socket whose own
 *     address and port are this one's peer's and the reverse.  No list
 *     of local addresses is needed: a socket with that reversed 4-tuple
 *     is in the tables of the namespace only when the peer's address is
 *     one of the namespace's own (loopback or an address assigned there;
 *     a transparent proxy's socket, bound to a foreign address, is the
 *     other end too), so the lookup is the test, with no second dump and
 *     no window between the two;
 *  3. the holders of each other end and of each of the target's own
 *     sockets: the target's own fds (from 1.), then ONE pass over the fd
 *     tables of every other process in /proc (readlink of each fd),
 *     keeping only the fds of those inodes and counting the tables
 *     pfiles may not read; and for an other end that no process holds,
 *     a second pass over the tables of threads that have one of their
 *     own (unshare(CLONE_FILES): /proc/PID/fd shows the main thread's).
 *     The target's own sockets need no socket table: where 2. cannot be
 *     done (a network namespace pfiles may not enter), they are still
 *     looked for, and only PR_ENDPOINTS is missing.
 * Then endpoints_of() and endpoints_shared() answer per socket from
 * memory (the index, endpoint_index.c), and endpoints_dent() with what
 * the tables of 2. know of each of the target's sockets, which the walk
 * does not ask again; the walk takes the fds and the sockets' stats of
 * 1. from the table (fdtab.h).  Reading the fd tables of 1. and 3. is
 * endpoint_scan.c's; this file puts the steps together.
 *
 * An other end that no fd table pfiles read holds has no holder named
 * nor counted: it may be held where pfiles may not look (a table it may
 * not read, a process outside its pid namespace, an fd made since the
 * run's index), or by no process at all (in flight in an SCM_RIGHTS
 * message, held by the kernel), and no source can tell which.  Where
 * some fds could not be looked at, ep_why says so (say_unheld()).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/Pshare.h"
#include "endpoint/endpoint_impl.h"
#include "sources/psock.h"

const char *
Pendpoints_why(struct ps_prochandle *P)
{
	return (P == NULL || P->ep_why[0] == '\0' ? NULL : P->ep_why);
}

void
endpoints_free(endpoints_t *en)
{
	if (en == NULL)
		return;
	free(en->en_own.h_v);
	diag_nets_free(en->en_nets);
	free(en->en_ids.i_v);
	free(en->en_other.h_v);
	free(en->en_peers);
	free(en->en_ix);
	free(en->en_missed);
	free(en);
}

/*
 * The first dump of the socket tables, made while the target's table is
 * read (1. above), on a thread of its own: the dump is the kernel's work
 * and the reading ours, and with more than one CPU the two overlap.  It
 * is the dump of the group that every lookup makes first (TCP of
 * AF_INET, diag_table.c), and only once the pass has seen a socket (the
 * pass tells, ep_signal(): a process with none costs no dump); not when
 * a source lists the sockets (the pass then tells nothing until its end,
 * and the source's facts may settle every other end).  In a run over
 * many processes (Pshare) the tables are the run's, for processes that
 * have sockets: TCP of AF_INET and then the unix sockets' are dumped at
 * once, for the run's first process, while its pass (or the bpf source's
 * one pass over every task) runs.
 */
typedef struct early {
	pthread_mutex_t	ea_lock;
	pthread_cond_t	ea_cond;
	int		ea_told;	/* -1 not yet, else what was told */
	struct ps_prochandle *ea_P;
	diag_table_t	*ea_dt;
	pthread_t	ea_thread;
	epsignal_t	ea_sig;
	epsignal_t	*ea_sigp;	/* &ea_sig while the thread runs */
} early_t;

static void
early_tell(void *arg, int socket)
{
	early_t *ea = arg;

	(void) pthread_mutex_lock(&ea->ea_lock);
	ea->ea_told = socket;
	(void) pthread_cond_signal(&ea->ea_cond);
	(void) pthread_mutex_unlock(&ea->ea_lock);
}

static void *
early_dump(void *arg)
{
	early_t *ea = arg;
	int go;

	(void) pthread_mutex_lock(&ea->ea_lock);
	while (ea->ea_told < 0)
		(void) pthread_cond_wait(&ea->ea_cond, &ea->ea_lock);
	go = ea->ea_told;
	(void) pthread_mutex_unlock(&ea->ea_lock);
	if (go)
		diag_table_dump(ea->ea_P, ea->ea_dt, DT_TCP4);
	/* A run's tables serve every process: unix sockets' too. */
	if (go && ps_many(ea->ea_P))
		diag_table_dump(ea->ea_P, ea->ea_dt, DT_UNIX);
	return (NULL);
}

static void
early_start(early_t *ea, struct ps_prochandle *P, diag_nets_t *dn)
{
	sigset_t all, old;

	memset(ea, 0, sizeof (*ea));
	ea->ea_sigp = NULL;
	if (dn == NULL || dn->dn_tab[0]->dt_nserr[0] != '\0' ||
	    diag_table_dumped(dn->dn_tab[0], DT_TCP4) || !Pconcurrent())
		return;
	(void) pthread_mutex_init(&ea->ea_lock, NULL);
	(void) pthread_cond_init(&ea->ea_cond, NULL);
	ea->ea_told = -1;
	ea->ea_P = P;
	ea->ea_dt = dn->dn_tab[0];
	ea->ea_sig.sg_fn = early_tell;
	ea->ea_sig.sg_arg = ea;
	(void) sigfillset(&all);
	(void) pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&ea->ea_thread, NULL, early_dump, ea) == 0)
		ea->ea_sigp = &ea->ea_sig;
	/*
	 * A run's first process: its tables will serve every other, which
	 * have sockets; dumped at once, while the pass (or the bpf source's
	 * one pass over every task) runs.
	 */
	if (ea->ea_sigp != NULL && ps_many(P))
		ep_signal(ea->ea_sigp, 1);
	(void) pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ea->ea_sigp == NULL) {
		(void) pthread_mutex_destroy(&ea->ea_lock);
		(void) pthread_cond_destroy(&ea->ea_cond);
	}
}

/* The pass has ended: told, if it had not, and the dump waited for. */
static void
early_end(early_t *ea)
{
	if (ea->ea_sigp == NULL)
		return;
	ep_signal(ea->ea_sigp, 0);
	(void) pthread_join(ea->ea_thread, NULL);
	(void) pthread_mutex_destroy(&ea->ea_lock);
	(void) pthread_cond_destroy(&ea->ea_cond);
}

/* What endpoints_resolve() carries from one step to the next. */
typedef struct resolve {
	struct ps_prochandle *rs_P;
	endpoints_t	*rs_en;
	diag_nets_t	*rs_dn;		/* the tables looked in */
	diag_nets_t	*rs_mine;	/* of them, made for this walk */
	int		rs_dnerr;	/* why there are none */
	holds_t		rs_ask;		/* sockets left to the tables */
	uint64_t	*rs_want;	/* the other ends and the */
	size_t		rs_nwant;	/* target's sockets, sorted */
	uint32_t	*rs_where;	/* where each is (ep_ix_places()) */
	epbuf_t		*rs_buf;
} resolve_t;

/*
 * 1. above: the target's sockets, while the first dump is made.  Gone
 * for a moment while an exec hands the pid over: again, as the walk
 * does.  0 or an errno.
 */
static int
resolve_own(resolve_t *rs, fdtab_t *tab)
{
	struct ps_prochandle *P = rs->rs_P;
	early_t ea;
	int err;

	early_start(&ea, P, rs->rs_dn);
	for (int i = 0; ((err = ep_read_own(P, rs->rs_en, tab, ea.ea_sigp)) ==
	    ENOENT || err == ESRCH) && i < EXEC_SETTLE_MS && !Pexiting(P);
	    i++)
		(void) usleep(1000);
	early_end(&ea);
	if (err != 0)
		PDEBUG(P, "endpoints: none (%s)", strerror(err));
	return (err);
}

/*
 * 2. above: the other end of each socket, and the index of them.  0 or
 * an errno; ENODATA when the tables could not be had (said in ep_why
 * when the reason is the namespace's).
 */
static int
resolve_peers(resolve_t *rs)
{
	struct ps_prochandle *P = rs->rs_P;
	endpoints_t *en = rs->rs_en;
	const holds_t *asked = &en->en_own;
	diag_table_t *dt;
	int err;

	if (rs->rs_dn == NULL) {
		PDEBUG(P, "endpoints: none (%s)", strerror(rs->rs_dnerr));
		return (rs->rs_dnerr != 0 ? rs->rs_dnerr : ENOMEM);
	}
	dt = rs->rs_dn->dn_tab[0];
	if (dt->dt_nserr[0] != '\0') {
		PDEBUG(P, "endpoints: none (%s)", dt->dt_nserr);
		(void) snprintf(P->ep_why, sizeof (P->ep_why), "%s",
		    dt->dt_nserr);
		return (ENODATA);
	}
	if ((en->en_peers = calloc(en->en_own.h_n, sizeof (eppeer_t))) ==
	    NULL)
		return (ENOMEM);
	/* The source's facts first, when it gave them for every socket. */
	if (en->en_ids.i_n == en->en_own.h_n) {
		if ((err = ep_settle_all(P, en, &rs->rs_ask)) != 0)
			return (err);
		asked = &rs->rs_ask;
		PDEBUG(P, "endpoints: %zu other ends from the source's facts, "
		    "%zu sockets left to the tables", en->en_npeers,
		    rs->rs_ask.h_n);
	}
	if ((asked->h_n > 0 &&
	    (err = ep_find_peers(P, en, rs->rs_dn, asked)) != 0) ||
	    (err = ep_ix_build(en)) != 0 ||
	    (err = ep_ix_places(en, &rs->rs_where)) != 0)
		return (err);
	PDEBUG(P, "endpoints: %zu socket fds, %zu with another end here",
	    en->en_own.h_n, en->en_npeers);
	return (0);
}

/*
 * 2. above failed (err): no other end is known, and none is looked for;
 * the holders of the target's own sockets still are (PR_SHARED), and
 * ep_why says why the endpoints are missing, as it would without them.
 * 0, or the errno that ends the walk's endpoints.
 */
static int
resolve_nopeers(resolve_t *rs, int err)
{
	struct ps_prochandle *P = rs->rs_P;
	endpoints_t *en = rs->rs_en;

	if (err == ENOENT || err == ESRCH || err == ENOMEM)
		return (err);	/* gone, or no memory: nothing more */
	en->en_npeers = 0;
	en->en_ambiguous = 0;
	en->en_unlisted = 0;
	free(en->en_missed);
	en->en_missed = NULL;
	en->en_nmissed = 0;
	en->en_nopeers = 1;
	if (P->ep_why[0] == '\0')
		(void) snprintf(P->ep_why, sizeof (P->ep_why), "%s",
		    strerror(err));
	PDEBUG(P, "endpoints: no other end looked for (%s); the holders of "
	    "the %zu socket fds still are", strerror(err), en->en_own.h_n);
	return (en->en_ix == NULL ? ep_ix_build(en) : 0);
}

/*
 * 3. above: the holders of the other ends and of the target's sockets.
 * 0 or an errno.
 */
static int
resolve_holders(resolve_t *rs)
{
	struct ps_prochandle *P = rs->rs_P;
	endpoints_t *en = rs->rs_en;
	size_t nwant;
	int err;

	if ((err = ep_wanted(en, &rs->rs_want, &rs->rs_nwant)) != 0)
		return (err);
	nwant = rs->rs_nwant;
	/* The run's index, made once (endpoint_share.c). */
	if (P->share != NULL)
		return (ep_share_holders(P, en, rs->rs_want, nwant,
		    rs->rs_buf));
	if (nwant > 0 && (err = ep_scan_others(P, en, rs->rs_want, nwant,
	    rs->rs_buf)) != 0)
		return (err);
	/* Held by no process: by a thread with a table of its own? */
	if (nwant > 0 && (nwant = ep_unfound(en, rs->rs_want, nwant)) > 0)
		err = ep_scan_threads(P, en, rs->rs_want, nwant, rs->rs_buf);
	return (err);
}

/*
 * Other ends that no fd table read holds, while some fds could not be
 * read: held there, or by no process (in flight in a message, or held
 * by the kernel).  pfiles cannot tell which, so it names no holder and
 * counts none: said here.
 */
static void
say_unheld(struct ps_prochandle *P, const endpoints_t *en)
{
	char where[96];

	if (en->en_stale)
		(void) snprintf(where, sizeof (where), "the run read them "
		    "before this process's turn");
	else if (en->en_unreadable > 0)
		(void) snprintf(where, sizeof (where), "%u fd table%s of "
		    "other processes may not be read", en->en_unreadable,
		    en->en_unreadable == 1 ? "" : "s");
	else
		(void) snprintf(where, sizeof (where), "the processes outside "
		    "pfiles' pid namespace are not seen");
	(void) snprintf(P->ep_why, sizeof (P->ep_why), "the other end of %zu "
	    "socket%s is in no fd table pfiles read, and %s: whether a "
	    "process holds %s is not known", en->en_unheld,
	    en->en_unheld == 1 ? "" : "s", where,
	    en->en_unheld == 1 ? "it" : "them");
}

/*
 * What the answers lack, and why, for the handle's ep_why: once the walk
 * is over, when its records have said which sockets missing from the
 * run's tables have no peer (endpoints_seen()).
 */
void
endpoints_end(struct ps_prochandle *P, const endpoints_t *en)
{
	if (en == NULL || en->en_nopeers)
		return;		/* the other ends' failure is said */
	if (en->en_scanfail > 0)
		(void) snprintf(P->ep_why, sizeof (P->ep_why), "%u fd table%s "
		    "of other processes could not be read (%s)",
		    en->en_scanfail, en->en_scanfail == 1 ? "" : "s",
		    strerror(en->en_scanerr));
	else if (en->en_unlisted > 0)
		(void) snprintf(P->ep_why, sizeof (P->ep_why), "%zu socket%s "
		    "not in the socket tables this run read before (made "
		    "since, or in no table): %s other end%s not looked for",
		    en->en_unlisted, en->en_unlisted == 1 ? " is" : "s are",
		    en->en_unlisted == 1 ? "its" : "their",
		    en->en_unlisted == 1 ? " is" : "s are");
	else if (en->en_ambiguous > 0)
		(void) snprintf(P->ep_why, sizeof (P->ep_why), "the other end "
		    "of %zu socket%s is one of several sockets with the same "
		    "addresses (SO_REUSEPORT): not named", en->en_ambiguous,
		    en->en_ambiguous == 1 ? "" : "s");
	else if (en->en_unheld > 0)
		say_unheld(P, en);
}

/* Let go of what the steps made for themselves. */
static void
resolve_end(resolve_t *rs)
{
	free(rs->rs_where);
	free(rs->rs_ask.h_v);
	free(rs->rs_want);
	free(rs->rs_buf);
}

endpoints_t *
endpoints_resolve(struct ps_prochandle *P, fdtab_t *tab)
{
	resolve_t rs;
	endpoints_t *en;
	int err;

	memset(&rs, 0, sizeof (rs));
	rs.rs_P = P;
	if ((en = rs.rs_en = calloc(1, sizeof (*en))) == NULL ||
	    (rs.rs_buf = malloc(sizeof (*rs.rs_buf))) == NULL) {
		free(en);
		return (NULL);
	}
	en->en_tab = tab;
	/* The diag source's table when it serves: no dump made twice. */
	if ((rs.rs_dn = Psock_tables(P)) == NULL &&
	    (rs.rs_dn = rs.rs_mine = diag_nets_new(P)) == NULL)
		rs.rs_dnerr = errno;	/* said below, if it matters */
	/* No socket: nothing to say, not even in the trace. */
	if ((err = resolve_own(&rs, tab)) != 0 || en->en_own.h_n == 0 ||
	    ((err = resolve_peers(&rs)) != 0 &&
	    (err = resolve_nopeers(&rs, err)) != 0) ||
	    (err = resolve_holders(&rs)) != 0)
		goto fail;
	ep_ix_link(en, rs.rs_where);
	/* Held by no fd read, where some fds could not be: said why. */
	if (en->en_scanned && (en->en_unreadable > 0 || en->en_outside ||
	    en->en_stale))
		en->en_unheld = ep_unheld(en);
	resolve_end(&rs);
	/*
	 * Tables made for this walk are kept for it: the walk takes from
	 * them what they hold of each socket (endpoints_dent()); no more
	 * dumps, so not their sockets, which are fds the walk may need.
	 */
	diag_nets_quiet(rs.rs_mine);
	en->en_nets = rs.rs_mine;
	return (en);
fail:
	/*
	 * A process with sockets, and none of their other ends looked for;
	 * not one that is exiting (the walk says so) or gone.
	 */
	if (en->en_own.h_n > 0 && P->ep_why[0] == '\0' &&
	    err != ENOENT && err != ESRCH)
		(void) snprintf(P->ep_why, sizeof (P->ep_why), "%s",
		    strerror(err != 0 ? err : ENOMEM));
	resolve_end(&rs);
	diag_nets_free(rs.rs_mine);
	endpoints_free(en);
	return (NULL);
}
