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
 * target but knows fewer facts.  auto tries them in that order (bpf only
 * for a process of BPF_AUTO_MIN_FDS fds or more).  Each source is probed
 * once per grab, before any fd is walked, so that a source that cannot
 * work is known before anything is printed; why each refused is kept
 * (Psocksrc_why).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sock/socksrc.h"
#include "sources/psock.h"

/*
 * Every source, by its psocksrc_t; auto tries them in this order, but bpf
 * only for a process with at least BPF_AUTO_MIN_FDS fds: below that, its
 * load (7-10 ms, once per run) costs more than the walk it saves
 * (pfiles.1 gives the figures).
 */
static const socksrc_ops_t *const sources[] = {
	&sock_bpf_ops, &sock_pidfd_ops, &sock_agent_ops, &sock_diag_ops
};
#define	BPF_AUTO_MIN_FDS	500
#define	NSOURCES	(sizeof (sources) / sizeof (sources[0]))

static const socksrc_ops_t *
source_of(psocksrc_t src)
{
	for (size_t i = 0; i < NSOURCES; i++) {
		if (sources[i]->sc_id == src)
			return (sources[i]);
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
 * Probe one source.  0 when it serves (and is chosen); else -1 with
 * errno, and the handle's message "NAME: reason".
 */
static int
probe(struct ps_prochandle *P, const socksrc_ops_t *ops)
{
	char reason[PERRMSG_MAX];
	int err;

	P->errmsg[0] = '\0';
	if ((err = ops->sc_probe(P)) == 0) {
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

/*
 * Has the target at least n fds?  Counted from getdents64 of its fd
 * directory (a few calls for thousands), which the walk reads again.
 */
static int
has_fds(struct ps_prochandle *P, long n)
{
	char buf[32768];
	long count = 0;
	ssize_t got;

	if (P->fddirfd < 0 || lseek(P->fddirfd, 0, SEEK_SET) != 0)
		return (0);
	while (count < n + 2 && (got = syscall(SYS_getdents64, P->fddirfd,
	    buf, sizeof (buf))) > 0) {
		for (ssize_t off = 0; off + 19 <= got; ) {
			unsigned short reclen;

			memcpy(&reclen, buf + off + 16, sizeof (reclen));
			if (reclen == 0)
				break;
			count++;
			off += reclen;
		}
	}
	(void) lseek(P->fddirfd, 0, SEEK_SET);
	return (count - 2 >= n);	/* "." and ".." */
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
		if (probe(P, ops) == 0)
			return (0);
		P->src_state = SRC_NONE;	/* not auto's at a socket */
		return (-1);
	}

	why[0] = '\0';
	for (size_t i = 0; i < NSOURCES; i++) {
		/*
		 * Not on its own does pfiles run system calls in a process
		 * under seccomp: a call the filter forbids could kill it.
		 * --via=agent asks for that by name.
		 */
		const procstatus_t *ps;

		if (sources[i] == &sock_bpf_ops &&
		    !has_fds(P, BPF_AUTO_MIN_FDS)) {
			PDEBUG(P, "socket facts: bpf not tried (fewer than %d "
			    "fds)", BPF_AUTO_MIN_FDS);
			continue;
		}
		/*
		 * bpf holds fds of its own (program, maps, link, iterator)
		 * and prints what pidfd prints: not where RLIMIT_NOFILE
		 * leaves none to spare.
		 */
		if (sources[i] == &sock_bpf_ops && Pfd_room() == 0) {
			PDEBUG(P, "socket facts: bpf not tried (no fd to "
			    "spare)");
			continue;
		}
		if (sources[i] == &sock_agent_ops &&
		    (ps = Pstatus_facts(P)) != NULL && ps->pst_seccomp > 0) {
			add_reason(why, sizeof (why), "agent: not used on a "
			    "process under seccomp");
			PDEBUG(P, "socket facts: agent not tried (seccomp)");
			continue;
		}
		if (probe(P, sources[i]) == 0) {
			/* Why the sources before it did not serve, if any. */
			(void) snprintf(P->errmsg, sizeof (P->errmsg), "%s",
			    why);
			return (0);
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
Psock_walk(struct ps_prochandle *P, int flags, const struct fdwalk *fw,
    int *used)
{
	*used = 0;
	if ((flags & PFDI_STATONLY) || P->src_state != SRC_CHOSEN ||
	    P->src->sc_walk == NULL)
		return (0);
	*used = 1;
	return (P->src->sc_walk(P, flags, fw));
}

int
Psock_inodes(struct ps_prochandle *P, psockid_f *cb,
    void *arg)
{
	if (P->src_state != SRC_CHOSEN || P->src->sc_inodes == NULL)
		return (ENOTSUP);
	return (P->src->sc_inodes(P, cb, arg));
}

unsigned
Psock_snapshot(struct ps_prochandle *P, int holders)
{
	if (P->src_state != SRC_CHOSEN || P->src->sc_snapshot == NULL)
		return (0);
	return (P->src->sc_snapshot(P, holders));
}

int
Psock_walks(struct ps_prochandle *P)
{
	return (P->src_state == SRC_CHOSEN && P->src->sc_walk != NULL);
}

int
Psock_holders(struct ps_prochandle *P, psockhold_f *cb, void *arg)
{
	if (P->src_state != SRC_CHOSEN || P->src->sc_holders == NULL)
		return (ENOTSUP);
	return (P->src->sc_holders(P, cb, arg));
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
	if (P->src->sc_facts_many != NULL) {
		P->src->sc_facts_many(P, asks, n);
		return;
	}
	for (size_t i = 0; i < n; i++)
		asks[i].sa_err = P->src->sc_facts(P, asks[i].sa_fd,
		    asks[i].sa_ino, &asks[i].sa_facts);
}
