/*
 * sock_src.c: choosing where socket facts come from.
 *
 * pidfd (pidfd_getfd(2): the target is neither stopped nor read) is best;
 * the agent (ptrace(2) and system calls run in the target) serves kernels
 * and sandboxes without pidfd_getfd; diag (NETLINK_SOCK_DIAG and procfs)
 * needs no permission on the target but knows fewer facts.  Each source
 * is probed once per grab, before any fd is walked, so that a source that
 * cannot work is known before anything is printed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "Pcontrol.h"

typedef struct socksrc_ops {
	int	(*so_probe)(struct ps_prochandle *);
	int	(*so_facts)(struct ps_prochandle *, int, uint64_t, fdrec_t *);
	void	(*so_batch)(struct ps_prochandle *, const int *, size_t);
} socksrc_ops_t;

static const socksrc_ops_t socksrc_ops[] = {
	[PSOCK_PIDFD] = { sock_pidfd_probe, sock_pidfd_facts, NULL },
	[PSOCK_AGENT] = { sock_agent_probe, sock_agent_facts,
	    sock_agent_batch },
	[PSOCK_DIAG] = { sock_diag_probe, sock_diag_facts, NULL },
};

const char *
Psocksrc_name(psocksrc_t src)
{
	switch (src) {
	case PSOCK_AUTO:
		return ("auto");
	case PSOCK_PIDFD:
		return ("pidfd");
	case PSOCK_AGENT:
		return ("agent");
	case PSOCK_DIAG:
		return ("diag");
	}
	return ("?");
}

static int
probe(struct ps_prochandle *P, psocksrc_t src)
{
	int err;

	P->socksrc_err[0] = '\0';
	if ((err = socksrc_ops[src].so_probe(P)) == 0) {
		P->socksrc = src;
		P->socksrc_set = 1;
		return (0);
	}
	if (P->socksrc_err[0] == '\0')
		(void) snprintf(P->socksrc_err, sizeof (P->socksrc_err),
		    "%s: %s", Psocksrc_name(src), strerror(err));
	errno = err;
	return (-1);
}

/* Add why one source could not serve to the reasons so far. */
static void
add_reason(char *why, size_t size, const char *reason)
{
	size_t len = strlen(why), n = strlen(reason);

	if (len > 0 && size - len > 2) {
		(void) memcpy(why + len, "; ", 2);
		len += 2;
	}
	if (n > size - 1 - len)
		n = size - 1 - len;	/* cut, never overrun */
	(void) memcpy(why + len, reason, n);
	why[len + n] = '\0';
}

/*
 * With PSOCK_AUTO, the first source that serves; when none does, the
 * error says why each could not, in order.
 */
int
Psetsocksrc(struct ps_prochandle *P, psocksrc_t src)
{
	static const psocksrc_t order[] = {
		PSOCK_PIDFD, PSOCK_AGENT, PSOCK_DIAG
	};
	char why[sizeof (P->socksrc_err)];

	P->socksrc_set = 0;
	P->socksrc_none = 0;
	if (src != PSOCK_AUTO)
		return (probe(P, src));

	why[0] = '\0';
	for (size_t i = 0; i < sizeof (order) / sizeof (order[0]); i++) {
		/*
		 * Not on its own does pfiles run system calls in a process
		 * under seccomp: a call the filter forbids could kill it.
		 * --via=agent asks for that by name.
		 */
		if (order[i] == PSOCK_AGENT && Pseccomp_mode(P) > 0) {
			add_reason(why, sizeof (why), "agent: not used on a "
			    "process under seccomp");
			continue;
		}
		if (probe(P, order[i]) == 0)
			return (0);
		add_reason(why, sizeof (why), P->socksrc_err);
		/* The target went away: no other source will do better. */
		if (errno == ESRCH)
			break;
	}
	(void) memcpy(P->socksrc_err, why, sizeof (why));
	return (-1);
}

psocksrc_t
Psocksrc(struct ps_prochandle *P)
{
	return (P->socksrc_set ? P->socksrc : PSOCK_AUTO);
}

const char *
Psocksrc_error(struct ps_prochandle *P)
{
	return (P->socksrc_err);
}

/* Record why the facts of a socket are missing. */
static void
note_sockerr(fdrec_t *rec, const char *msg)
{
	(void) fdrec_add(rec, PR_SOCKERR, msg, strlen(msg) + 1);
}

void
Psockbatch(struct ps_prochandle *P, const int *fds, size_t nfds)
{
	if (P->socksrc_set && socksrc_ops[P->socksrc].so_batch != NULL)
		socksrc_ops[P->socksrc].so_batch(P, fds, nfds);
}

int
Psockfacts(struct ps_prochandle *P, int fd, uint64_t ino, fdrec_t *rec)
{
	if (!P->socksrc_set && !P->socksrc_none &&
	    Psetsocksrc(P, PSOCK_AUTO) != 0) {
		if (errno == ESRCH)
			return (ESRCH);
		P->socksrc_none = 1;	/* probing again would cost as much */
	}
	if (!P->socksrc_set) {
		note_sockerr(rec, P->socksrc_err);
		return (0);
	}
	return (socksrc_ops[P->socksrc].so_facts(P, fd, ino, rec));
}
