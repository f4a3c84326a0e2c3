/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_diag.c: socket facts from the kernel's socket tables
 * (NETLINK_SOCK_DIAG), for when pfiles may not touch the target: no
 * ptrace permission is needed, the target's sockets are neither
 * duplicated nor asked anything, and no thread of it is stopped.
 *
 * The walk gives each socket's inode; the facts come from dumps of the
 * tables of the target's network namespace, kept in memory and looked up
 * by inode (a hash).  A dump is made only when a socket's inode is not in
 * the dumps made so far, family group by family group (diag_table.c), so
 * that a process is served by at most one dump per family and protocol
 * and by none of the families it has no socket of (but a socket in no
 * dump -- made after its family's dump, or of a family the tables do not
 * cover -- has every group not yet dumped dumped).  Per socket there is
 * no system call beyond the walk's own.
 *
 * A dump describes the namespace of the netlink socket that asks: where
 * the target's network namespace is not ours, the socket is made in a
 * short-lived thread that enters the target's namespace (setns), so that
 * pfiles itself does not move; where that is not allowed, every socket
 * says why it has no facts.
 *
 * The tables hold the type, the state (SO_ACCEPTCONN), the send and
 * receive buffers, the names, the state and queues, a netlink socket's
 * groups and a packet socket's interface and protocol (sock_table.c);
 * not the other options, SO_LINGER, a unix peer's credentials, nor the
 * queues of a TCP socket in CLOSE whose unread bytes may end in a FIN
 * or of an MPTCP socket: each record says so (sf_gapwhy), and pfiles
 * names them once per process.  The dumps and the table are
 * diag_table.c's, kept per network namespace by diag_nets.c (a socket
 * need not be in its holder's namespace), which the resolver of
 * endpoints (endpoint.c) shares when this source serves the handle
 * (its provider's sp_tables).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "netdiag/diag_kind.h"
#include "netdiag/diag_parse.h"
#include "netdiag/diag_nets.h"
#include "sock/sockprov.h"
#include "sock/socksrc.h"

/* Why a record lacks the facts the tables do not hold. */
static const char diag_gapwhy[] =
    "diag: the kernel's socket tables do not hold them";

/*
 * The walk's threads share the table: lookups under the read lock, which
 * none waits for once the dumps the process needs are made; a dump under
 * the write lock.
 */
typedef struct diag_state {
	pthread_rwlock_t dg_lock;
	diag_nets_t	*dg_nets;	/* diag_nets.c */
} diag_state_t;

/* ------------------------------------------------------------------ */
/* The source. */

static void
diag_release(struct ps_prochandle *P)
{
	diag_state_t *dg = P->src_data;

	if (dg == NULL)
		return;
	diag_nets_free(dg->dg_nets);
	(void) pthread_rwlock_destroy(&dg->dg_lock);
	free(dg);
	P->src_data = NULL;
}

static int
diag_probe(struct ps_prochandle *P, int how)
{
	diag_state_t *dg;

	if ((dg = calloc(1, sizeof (*dg))) == NULL)
		return (Pseterr(P, ENOMEM, "%s", strerror(ENOMEM)));
	if ((dg->dg_nets = diag_nets_new(P)) == NULL) {
		int err = errno;

		free(dg);
		return (err);
	}
	(void) pthread_rwlock_init(&dg->dg_lock, NULL);
	P->src_data = dg;
	return (0);
}

/* The provider's sp_tables (sock/sockprov.h). */
static diag_nets_t *
diag_tables(struct ps_prochandle *P)
{
	diag_state_t *dg;

	if (P->src_state != SRC_CHOSEN || P->src->sc_id != PSOCK_DIAG ||
	    (dg = P->src_data) == NULL)
		return (NULL);
	return (dg->dg_nets);
}

static int
diag_facts(struct ps_prochandle *P, int fd, uint64_t ino, sockfacts_t *sf)
{
	diag_state_t *dg = P->src_data;
	diag_table_t *dt = dg->dg_nets->dn_tab[0];
	const dent_t *e;

	if (dt->dt_nserr[0] != '\0') {
		sockfacts_error(sf, "diag: %s", dt->dt_nserr);
		return (0);
	}
	(void) pthread_rwlock_rdlock(&dg->dg_lock);
	if ((e = diag_table_lookup(dt, ino)) == NULL) {
		/*
		 * Not in the dumps made so far: the next groups', if any,
		 * then the socket's own namespace's (diag_nets.c).
		 */
		(void) pthread_rwlock_unlock(&dg->dg_lock);
		(void) pthread_rwlock_wrlock(&dg->dg_lock);
		e = diag_nets_find(P, dg->dg_nets, fd, ino, &dt);
	}
	/*
	 * A socket in no dump: of a family the tables do not cover, or made
	 * after its family's dump (at most one dump per family and protocol
	 * is made per process); or of a kind this kernel has no dump of.
	 * Only the dumps that could hold a socket of its kind are reasons.
	 */
	if (e != NULL) {
		sockfacts_from_table(sf, dt, e, 0);
		sf->sf_gapwhy = diag_gapwhy;
	} else {
		char why[PERRMSG_MAX];
		diag_req_t kind;

		diag_table_why(dt, diag_sock_kind(P, fd, &kind) ? &kind :
		    NULL, why, sizeof (why));
		sockfacts_error(sf, "diag: not in the kernel's socket "
		    "tables%s%s%s", why[0] != '\0' ? " (" : "", why,
		    why[0] != '\0' ? ")" : "");
	}
	(void) pthread_rwlock_unlock(&dg->dg_lock);
	return (0);
}

static void
diag_facts_each(struct ps_prochandle *P, sockask_t *asks, size_t n)
{
	sockask_each(P, asks, n, diag_facts);
}

const socksrc_ops_t sock_diag_ops = {
	.sc_id = PSOCK_DIAG,
	.sc_name = "diag",
	.sc_probe = diag_probe,
	.sc_facts = diag_facts_each,
	.sc_release = diag_release,
	.sc_parallel = 1,
};

const sockprov_ops_t sock_diag_prov = {
	.sp_tables = diag_tables,
};
