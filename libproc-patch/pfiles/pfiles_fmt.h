/*
 * pfiles_fmt.h: the formatting of pfiles(1), per the output contract
 * (pfiles.1).  No system calls: everything printed comes from the records
 * of Pfdinfo_iter() and the psinfo, and goes to a stdio stream.
 */
#ifndef	_PFILES_FMT_H
#define	_PFILES_FMT_H

#include <stdio.h>
#include <sys/resource.h>

#include "libproc.h"

/* The comm of a process, for the "peer:" line; NULL when unknown. */
typedef const char *pf_comm_f(void *, pid_t);

typedef struct pf_ctx {
	FILE		*pf_out;
	int		pf_statonly;	/* -n */
	pf_comm_f	*pf_comm;
	void		*pf_comm_arg;
	/* What could not be found out, said once per pid by the caller. */
	uint_t		pf_nsockerr;	/* sockets without their facts */
	char		pf_sockerr[256];	/* the first reason */
	uint_t		pf_nlockdrop;	/* fds whose locks were cut short */
	prsockbool_t	pf_gaps;	/* pr_known: booleans never known */
	uint_t		pf_gapother;	/* PR_GAP_*: other facts never known */
	char		pf_gapwhy[256];	/* the first reason */
} pf_ctx_t;

extern void pf_header(FILE *, const psinfo_t *, const struct rlimit *);
extern void pf_sysproc(FILE *, const psinfo_t *);
extern int pf_file(pf_ctx_t *, const prfdinfo_t *);
/*
 * The facts that the source could not find out for some socket of the
 * process (PR_SOCKGAPS), as a comma-separated list in the contract's
 * order; nothing when there are none.  Returns how many.
 */
extern int pf_gaps(FILE *, const pf_ctx_t *);

/* One address line: "\t<label>: AF_..." (protocol: SO_PROTOCOL, or -1). */
extern void pf_sockaddr(FILE *, const char *, const void *, size_t, int);
/* The flags line's text, without the leading spaces. */
extern void pf_fileflags(FILE *, int, int);
/* The type word of the stat line, into buf. */
extern const char *pf_typeword(mode_t, const char *, char *, size_t);

#endif	/* _PFILES_FMT_H */
