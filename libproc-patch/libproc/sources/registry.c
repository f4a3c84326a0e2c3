/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * registry.c: the sources of socket facts, listed; choosing one, and
 * asking it.  The one file that names the sources (src/ *): the
 * interface they serve (sock/socksrc.h) knows none of them.
 *
 * bpf (a BPF task-file iterator: every fact of every fd in one kernel
 * pass; root or CAP_BPF and CAP_PERFMON, Linux 6.1 and later) is fastest
 * for a large process; pidfd (pidfd_getfd(2): the target is neither
 * stopped nor read) is best otherwise; the agent (ptrace(2) and system
 * calls run in the target) serves kernels and sandboxes without
 * pidfd_getfd; diag (NETLINK_SOCK_DIAG) needs no permission on the
 * target but knows fewer facts.  auto tries them in that order, each by
 * the rules of its own probe (bpf only for a large process, the agent
 * never under seccomp).  Each source is probed
 * once per grab, before any fd is walked, so that a source that cannot
 * work is known before anything is printed; why each refused is kept
 * (Psocksrc_why).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sock/sockprov.h"
#include "sock/socksrc.h"
#include "sources/psock.h"

/* The sources (src/ *), and the providers bpf and diag have besides. */
extern const socksrc_ops_t sock_bpf_ops, sock_pidfd_ops, sock_agent_ops,
    sock_diag_ops;
extern const sockprov_ops_t sock_bpf_prov, sock_diag_prov;

/*
 * Every source, by its psocksrc_t, with its provider of the walk and the
 * sockets (sock/sockprov.h) if it has one; auto tries them in this order,
 * each by the rules of its probe.
 */
static const struct {
	const socksrc_ops_t *re_src;
	const sockprov_ops_t *re_prov;
} registry[] = {
	{ &sock_bpf_ops, &sock_bpf_prov },
	{ &sock_pidfd_ops, NULL },
	{ &sock_agent_ops, NULL },
	{ &sock_diag_ops, &sock_diag_prov },
};
#define	NSOURCES	(sizeof (registry) / sizeof (registry[0]))

static const socksrc_ops_t *
source_of(psocksrc_t src)
{
	for (size_t i = 0; i < NSOURCES; i++) {
		if (registry[i].re_src->sc_id == src)
			return (registry[i].re_src);
	}
	return (NULL);
}

/* The chosen source's provider, or NULL. */
static const sockprov_ops_t *
provider(const struct ps_prochandle *P)
{
	for (size_t i = 0; P->src_state == SRC_CHOSEN && i < NSOURCES; i++) {
		if (registry[i].re_src == P->src)
			return (registry[i].re_prov);
	}
	return (NULL);
}

const char *
Psocksrc_name(psocksrc_t src)
{
	const socksrc_ops_t *ops;

	if (src == PSOCK_AUTO)
		return ("auto");
	return ((ops = source_of(src)) != NULL ? ops->sc_name : "?");
}

void
Psockrelease(struct ps_prochandle *P)
{
	if (P->src_state == SRC_CHOSEN && P->src->sc_release != NULL)
		P->src->sc_release(P);
	P->src_data = NULL;
	P->src_state = SRC_UNSET;
	P->src = NULL;
}

/* Prelease's hook (core/Phook.h). */
static void
release_hook(void *P)
{
	Psockrelease(P);
}

/*
 * Probe one source (how: SOCKSRC_ASKED or SOCKSRC_AUTO).  0 when it
 * serves (and is chosen); 1 when auto passes it by (the handle's message
 * says why, or is ""); else -1 with errno, and the handle's message
 * "NAME: reason".
 */
static int
probe(struct ps_prochandle *P, const socksrc_ops_t *ops, int how)
{
	char reason[PERRMSG_MAX];
	int err;

	P->errmsg[0] = '\0';
	if ((err = ops->sc_probe(P, how)) == SOCKSRC_PASS)
		return (1);
	if (err == 0) {
		P->src = ops;
		P->src_state = SRC_CHOSEN;
		(void) Phook_set(P->hooks, release_hook, P, PHOOK_FIRST);
		PDEBUG(P, "socket facts: %s serves", ops->sc_name);
		return (0);
	}
	(void) snprintf(reason, sizeof (reason), "%s", P->errmsg[0] != '\0' ?
	    P->errmsg : strerror(err));
	(void) memcpy(P->src_why[ops->sc_id], reason, sizeof (reason));
	(void) Pseterr(P, err, "%s: %s", ops->sc_name, reason);
	return (-1);
}

/* Add one reason to those so far: "a; b", cut, never overrun. */
static void
add_reason(char *why, size_t size, const char *reason)
{
	size_t len = strlen(why), n = strlen(reason);

	if (len > 0 && size - len > 2) {
		(void) memcpy(why + len, "; ", 2);
		len += 2;
	}
	if (n > size - 1 - len)
		n = size - 1 - len;
	(void) memcpy(why + len, reason, n);
	why[len + n] = '\0';
}

/* Auto passed a source by: its reason, if it gave one, with the others. */
static void
add_passed(char *why, size_t size, const char *name, const char *reason)
{
	char line[PERRMSG_MAX + 64];

	if (reason[0] == '\0')
		return;
	(void) snprintf(line, sizeof (line), "%.32s: %s", name, reason);
	add_reason(why, size, line);
}

/*
 * With PSOCK_AUTO, the first source that serves; the message then says
 * why each before it could not, in order ("" when the first served), and
 * when none serves, why each could not.
 */
int
Psetsocksrc(struct ps_prochandle *P, psocksrc_t src)
{
	const socksrc_ops_t *ops;
	char why[PERRMSG_MAX];
	int err = ENOTSUP;

	if (P == NULL) {
		errno = EINVAL;
		return (-1);
	}
	/* Refused before the source in use is let go: it stays chosen. */
	if (src != PSOCK_AUTO && (ops = source_of(src)) == NULL) {
		(void) Pseterr(P, EINVAL, "no such source: %d", (int)src);
		return (-1);
	}
	Psockrelease(P);
	for (int i = 0; i < PSOCK_NSRC; i++)
		P->src_why[i][0] = '\0';
	if (src != PSOCK_AUTO) {
		if (probe(P, ops, SOCKSRC_ASKED) == 0)
			return (0);
		P->src_state = SRC_NONE;	/* not auto's at a socket */
		return (-1);
	}

	why[0] = '\0';
	for (size_t i = 0; i < NSOURCES; i++) {
		const socksrc_ops_t *o = registry[i].re_src;
		int r;

		if ((r = probe(P, o, SOCKSRC_AUTO)) == 0) {
			/* Why the sources before it did not serve, if any. */
			(void) snprintf(P->errmsg, sizeof (P->errmsg), "%s",
			    why);
			return (0);
		}
		if (r == 1) {
			add_passed(why, sizeof (why), o->sc_name, P->errmsg);
			continue;
		}
		err = errno;
		PDEBUG(P, "socket facts: %s", P->errmsg);
		add_reason(why, sizeof (why), P->errmsg);
		/* The target went away: no other source will do better. */
		if (err == ESRCH)
			break;
	}
	P->src_state = SRC_NONE;
	(void) Pseterr(P, err, "%s", why);
	return (-1);
}

const char *
Psocksrc_why(struct ps_prochandle *P, psocksrc_t src)
{
	if (P == NULL || src <= PSOCK_AUTO || src >= PSOCK_NSRC ||
	    P->src_why[src][0] == '\0')
		return (NULL);
	return (P->src_why[src]);
}

psocksrc_t
Psocksrc(struct ps_prochandle *P)
{
	if (P == NULL) {
		errno = EINVAL;
		return (PSOCK_AUTO);
	}
	return (P->src_state == SRC_CHOSEN ? P->src->sc_id : PSOCK_AUTO);
}

int
Psock_walk(struct ps_prochandle *P, const sockwalk_t *sw)
{
	return (provider(P)->sp_walk(P, sw));
}

int
Psock_walks(struct ps_prochandle *P)
{
	const sockprov_ops_t *sp = provider(P);

	return (sp != NULL && sp->sp_walk != NULL);
}

int
Psock_inodes(struct ps_prochandle *P, psockid_f *cb, void *arg)
{
	const sockprov_ops_t *sp = provider(P);

	return (sp != NULL && sp->sp_inodes != NULL ?
	    sp->sp_inodes(P, cb, arg) : ENOTSUP);
}

unsigned
Psock_snapshot(struct ps_prochandle *P, int holders)
{
	const sockprov_ops_t *sp = provider(P);

	return (sp != NULL && sp->sp_snapshot != NULL ?
	    sp->sp_snapshot(P, holders) : 0);
}

int
Psock_holders(struct ps_prochandle *P, psockhold_f *cb, void *arg)
{
	const sockprov_ops_t *sp = provider(P);

	return (sp != NULL && sp->sp_holders != NULL ?
	    sp->sp_holders(P, cb, arg) : ENOTSUP);
}

struct diag_nets *
Psock_tables(struct ps_prochandle *P)
{
	const sockprov_ops_t *sp = provider(P);

	return (sp != NULL && sp->sp_tables != NULL ? sp->sp_tables(P) :
	    NULL);
}

int
Psock_parallel_ok(struct ps_prochandle *P)
{
	return (P->src_state == SRC_CHOSEN && P->src->sc_parallel);
}

void
Psockbatch(struct ps_prochandle *P, const int *fds, size_t nfds)
{
	if (P->src_state == SRC_CHOSEN && P->src->sc_batch != NULL)
		P->src->sc_batch(P, fds, nfds);
}

void
Psockfacts(struct ps_prochandle *P, sockask_t *asks, size_t n)
{
	if (P->src_state == SRC_UNSET && Psetsocksrc(P, PSOCK_AUTO) != 0 &&
	    errno == ESRCH) {
		for (size_t i = 0; i < n; i++)
			asks[i].sa_err = ESRCH;
		return;
	}
	if (P->src_state == SRC_NONE) {
		for (size_t i = 0; i < n; i++) {
			sockfacts_error(&asks[i].sa_facts, "%s", P->errmsg);
			asks[i].sa_err = 0;
		}
		return;
	}
	P->src->sc_facts(P, asks, n);
}
