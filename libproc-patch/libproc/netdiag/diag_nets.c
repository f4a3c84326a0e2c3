/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diag_nets.c: a socket's record in the tables of its own network
 * namespace (diag_nets.h says why that need not be its holder's).
 *
 * The process's namespace's table is asked first, dumping the groups it
 * needs.  A socket in none of its groups is asked for its own namespace:
 * a duplicate of it (pidfd_getfd) answers SIOCGSKNS with an fd of that
 * namespace, whose tables are then made (by a thread that enters it,
 * when it is not pfiles' own) and kept, a few per process.  The same
 * namespace as the process's means the socket is in no table at all
 * (unbound, closed).  Where the socket cannot be asked (no pidfd, ptrace
 * access or CAP_NET_ADMIN refused), pfiles' own namespace's tables are
 * the next best: a socket of the host's namespace in a container's
 * process is the common case, and a lookup by inode cannot mistake one
 * socket for another.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/Pshare.h"
#include "netdiag/diag_nets.h"

#define	SHARED_TABS	64	/* network namespaces' tables a run keeps */

/* The tables a run keeps, by network namespace: the share's part. */
typedef struct shared_tabs {
	diag_table_t	*st_tab[SHARED_TABS];
	size_t		st_n;
} shared_tabs_t;

/* The share's hook (core/Phook.h): the tables go with it. */
static void
shared_tabs_free(void *arg)
{
	shared_tabs_t *sts = arg;

	for (size_t i = 0; i < sts->st_n; i++)
		diag_table_free(sts->st_tab[i]);
	free(sts);
}

/* The run's table of the namespace st names, or NULL. */
static diag_table_t *
shared_table(const struct ps_prochandle *P, const struct stat *st)
{
	const shared_tabs_t *sts;

	if (P->share == NULL || (sts = Phook_get(P->share->ps_hooks,
	    shared_tabs_free)) == NULL)
		return (NULL);
	for (size_t i = 0; i < sts->st_n; i++)
		if (sts->st_tab[i]->dt_nsdev == st->st_dev &&
		    sts->st_tab[i]->dt_nsino == st->st_ino)
			return (sts->st_tab[i]);
	return (NULL);
}

/*
 * A table made for the handle becomes the run's when it shares one (and
 * there is room): 1 when it did (the set borrows it), else 0.
 */
static int
share_table(struct ps_prochandle *P, diag_table_t *dt)
{
	ps_share_t *sh = P->share;
	shared_tabs_t *sts;

	if (sh == NULL)
		return (0);
	if ((sts = Phook_get(sh->ps_hooks, shared_tabs_free)) == NULL) {
		if ((sts = calloc(1, sizeof (*sts))) == NULL)
			return (0);
		if (Phook_set(sh->ps_hooks, shared_tabs_free, sts,
		    PHOOK_FIRST) != 0) {
			free(sts);
			return (0);
		}
	}
	if (sts->st_n == SHARED_TABS)
		return (0);
	sts->st_tab[sts->st_n++] = dt;
	return (1);
}


diag_nets_t *
diag_nets_new(struct ps_prochandle *P)
{
	struct stat st;
	diag_nets_t *dn;

	if ((dn = calloc(1, sizeof (*dn))) == NULL) {
		(void) Pseterr(P, ENOMEM, "%s", strerror(ENOMEM));
		errno = ENOMEM;
		return (NULL);
	}
	if (P->share != NULL && fstatat(P->procfd, "ns/net", &st, 0) == 0 &&
	    (dn->dn_tab[0] = shared_table(P, &st)) != NULL) {
		dn->dn_borrowed = 1;
	} else if ((dn->dn_tab[0] = diag_table_new(P)) == NULL) {
		int err = errno;

		free(dn);
		errno = err;
		return (NULL);
	} else if (share_table(P, dn->dn_tab[0])) {
		dn->dn_borrowed = 1;
	}
	dn->dn_n = 1;
	dn->dn_own = DN_UNTRIED;
	return (dn);
}

void
diag_nets_free(diag_nets_t *dn)
{
	if (dn == NULL)
		return;
	for (size_t i = 0; i < dn->dn_n; i++)
		if (!(dn->dn_borrowed & (1U << i)))
			diag_table_free(dn->dn_tab[i]);
	free(dn);
}

void
diag_nets_quiet(diag_nets_t *dn)
{
	for (size_t i = 0; dn != NULL && i < dn->dn_n; i++) {
		diag_table_t *dt = dn->dn_tab[i];

		if (dn->dn_borrowed & (1U << i))
			continue;	/* the run's: later handles dump more */
		if (dt->dt_sock >= 0)
			(void) close(dt->dt_sock);
		dt->dt_sock = -1;
		free(dt->dt_buf);
		dt->dt_buf = NULL;
	}
}

/* The table kept for the namespace st names, or -1. */
static int
kept(const diag_nets_t *dn, const struct stat *st)
{
	for (size_t i = 0; i < dn->dn_n; i++)
		if (dn->dn_tab[i]->dt_nsdev == st->st_dev &&
		    dn->dn_tab[i]->dt_nsino == st->st_ino)
			return ((int)i);
	return (-1);
}

/*
 * The table of the namespace of nsfd (kept, or made and kept): its
 * index, or -1 when there is no room or it could not be made.
 */
static int
table_of(struct ps_prochandle *P, diag_nets_t *dn, int nsfd)
{
	struct stat st;
	diag_table_t *dt;
	int i;

	if (fstat(nsfd, &st) != 0)
		return (-1);
	if ((i = kept(dn, &st)) >= 0)
		return (i);
	if (dn->dn_n == DN_MAX)
		return (-1);
	if ((dt = shared_table(P, &st)) != NULL) {
		dn->dn_borrowed |= 1U << dn->dn_n;
		dn->dn_tab[dn->dn_n] = dt;
		return ((int)dn->dn_n++);
	}
	if ((dt = diag_table_new_in(P, nsfd)) == NULL)
		return (-1);
	if (share_table(P, dt))
		dn->dn_borrowed |= 1U << dn->dn_n;
	if (dt->dt_nserr[0] != '\0') {
		PDEBUG(P, "diag: network namespace %llu: %s",
		    (unsigned long long)st.st_ino, dt->dt_nserr);
	}
	dn->dn_tab[dn->dn_n] = dt;
	return ((int)dn->dn_n++);
}

/*
 * The network namespace of the target's socket fd, as the socket says:
 * an fd of it, or -1 with the errno of the call that failed.
 */
static int
socket_netns(struct ps_prochandle *P, int fd)
{
	int s, ns, err;

	if (PFD_PIDFD(P) < 0) {
		errno = P->pidfd_err != 0 ? P->pidfd_err : EBADF;
		return (-1);
	}
	if ((s = (int)syscall(SYS_pidfd_getfd, PFD_PIDFD(P), fd, 0)) < 0)
		return (-1);
	ns = ioctl(s, SIOCGSKNS);
	err = errno;
	(void) close(s);
	errno = err;
	return (ns);
}

const dent_t *
diag_nets_find(struct ps_prochandle *P, diag_nets_t *dn, int fd,
    uint64_t ino, diag_table_t **dtp)
{
	const dent_t *e;
	int ns, i;

	*dtp = dn->dn_tab[0];
	if ((e = diag_table_find(P, dn->dn_tab[0], ino)) != NULL)
		return (e);
	if ((ns = socket_netns(P, fd)) >= 0) {
		i = table_of(P, dn, ns);
		(void) close(ns);
	} else {
		if (dn->dn_askerr == 0) {
			dn->dn_askerr = errno;
			PDEBUG(P, "diag: the network namespace of a socket not "
			    "in the process's could not be asked (%s): "
			    "pfiles' own is looked in", strerror(errno));
		}
		if (dn->dn_own == DN_UNTRIED) {
			dn->dn_own = DN_NONE;
			if ((ns = open("/proc/thread-self/ns/net", O_RDONLY |
			    O_CLOEXEC)) >= 0) {
				if ((i = table_of(P, dn, ns)) >= 0)
					dn->dn_own = i;
				(void) close(ns);
			}
		}
		i = dn->dn_own;
	}
	/* The process's own namespace: the socket is in no table. */
	if (i <= 0 || dn->dn_tab[i]->dt_nserr[0] != '\0')
		return (NULL);
	if ((e = diag_table_find(P, dn->dn_tab[i], ino)) != NULL)
		*dtp = dn->dn_tab[i];
	return (e);
}
