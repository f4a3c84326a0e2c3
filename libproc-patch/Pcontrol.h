/*
 * Pcontrol.h: the inside of a process handle, shared by the files of
 * libproc.  Not installed.
 */
#ifndef	_PCONTROL_H
#define	_PCONTROL_H

#include "libproc.h"

struct agent;		/* agent.c */

struct ps_prochandle {
	pid_t		pid;
	int		pidfd;		/* held for the whole grab */
	int		procfd;		/* /proc/PID */
	int		fddirfd;	/* /proc/PID/fd */
	int		fdinfofd;	/* /proc/PID/fdinfo, opened at first use */
	int		memfd;		/* /proc/PID/mem, opened at first use */
	psinfo_t	psinfo;
	psocksrc_t	socksrc;	/* the source chosen, never AUTO once set */
	int		socksrc_set;	/* Psetsocksrc() succeeded */
	int		socksrc_none;	/* auto found no source: ask no more */
	int		seccomp_mode;	/* Pseccomp_mode() + 1; 0: not read */
	char		socksrc_err[256];
	struct agent	*agent;		/* Pcreate_agent() */
};

/*
 * A record under construction: the prfdinfo_t fixed part and its items in
 * one growable buffer, reused from one fd to the next.
 */
typedef struct fdrec {
	uint8_t		*buf;
	size_t		cap;
} fdrec_t;

extern prfdinfo_t *fdrec_info(fdrec_t *);
extern int fdrec_reset(fdrec_t *, int);
extern void fdrec_free(fdrec_t *);
extern int fdrec_add(fdrec_t *, uint_t, const void *, size_t);

/*
 * Sources of socket facts.  batch (optional): the fds the walk is about
 * to ask about, in order (a source may fetch ahead).  probe: 0 when the source can serve this target,
 * else an errno with a message in P->socksrc_err.  facts: add the socket
 * items of fd (whose inode the walk saw as ino) to rec; 0, or an errno
 * when the fd is gone (ENOENT, skip it) or the target is (ESRCH).  A fact
 * that cannot be had is left out, and PR_SOCKERR says why.
 */
extern int sock_pidfd_probe(struct ps_prochandle *);
extern int sock_pidfd_facts(struct ps_prochandle *, int, uint64_t, fdrec_t *);
extern int sock_agent_probe(struct ps_prochandle *);
extern int sock_agent_facts(struct ps_prochandle *, int, uint64_t, fdrec_t *);
extern void sock_agent_batch(struct ps_prochandle *, const int *, size_t);
extern int sock_diag_probe(struct ps_prochandle *);
extern int sock_diag_facts(struct ps_prochandle *, int, uint64_t, fdrec_t *);
extern void sock_diag_free(struct ps_prochandle *);

/*
 * The socket items of s, a socket open in this process that must be the
 * one whose inode the walk saw (else ESTALE).  sock_local.c.
 */
extern int sock_local_facts(int, uint64_t, fdrec_t *);

/*
 * The socket items of fd from the handle's source (chosen by Psetsocksrc,
 * or at first use): 0, or ENOENT/ESTALE/ESRCH as for the sources.
 */
extern int Psockfacts(struct ps_prochandle *, int, uint64_t, fdrec_t *);
/* The walk's next batch of fds, told to the source before it is walked. */
extern void Psockbatch(struct ps_prochandle *, const int *, size_t);

/* Open /proc/PID/<name> relative to the grab; -1 with errno. */
extern int Pprocopen(struct ps_prochandle *, const char *, int);
/*
 * The target's seccomp mode (0 none, 1 strict, 2 filter; -1 unknown),
 * from /proc/PID/status, read once per grab.
 */
extern int Pseccomp_mode(struct ps_prochandle *);

/* Has the target exited (or been reaped)?  Asks the pidfd. */
extern int Pexited(struct ps_prochandle *);

#endif	/* _PCONTROL_H */
