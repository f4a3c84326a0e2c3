/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fdwalk.h: building the record of one fd (fdbuild.c), and handing it to
 * the walk's caller (Pfdinfo.c), shared by the serial walk, the pipelined one
 * (fdpipe.c) and a source's own (sp_walk: the bpf source).  Not
 * installed.
 */
#ifndef	_FDWALK_H
#define	_FDWALK_H

#include <limits.h>

#include "core/Pcontrol.h"
#include "fdtab/fdtab.h"
#include "sock/socksrc.h"
#include "walk/fdinfo_parse.h"

#define	FDINFO_READSZ	4096
/*
 * The fds whose records are built together: their sockets' facts are
 * asked of the source at once (sc_facts).
 */
#define	FDWALK_CHUNK	32

/* What one builder needs besides the records: kept off the stack. */
typedef struct fdscratch {
	fdinfo_t	fs_fdinfo;
	char		fs_readbuf[FDINFO_READSZ];
	char		fs_path[PATH_MAX];
	sockask_t	fs_asks[FDWALK_CHUNK];	/* a chunk's sockets */
	size_t		fs_askof[FDWALK_CHUNK];	/* the index of each's fd */
	sockask_t	fs_ask1;		/* one socket asked alone */
	int		fs_closes[FDWALK_CHUNK];	/* fdinfo files read, */
	size_t		fs_nclose;		/* to close together */
} fdscratch_t;

/*
 * One walk, as Pfdinfo_iter_flags gives it to whichever walk builds the
 * records (the serial one, fdpipe.c's, a source's own: sp_walk): the
 * handle and the walk's flags, the caller's function and argument, what
 * the hand-over adds, and the table read for the endpoints.  Shared by
 * every builder, read only once the walk has begun.
 */
typedef struct fdwalk {
	struct ps_prochandle *fw_P;
	int		fw_flags;	/* PFDI_* */
	proc_fdinfo_f	*fw_func;	/* the caller's */
	void		*fw_cd;
	struct endpoints *fw_ep;	/* endpoint.h; NULL: no PR_ENDPOINTS, */
					/* no PR_SHARED */
	fdtab_t		fw_tab;		/* the table, when the endpoints */
					/* read it; else not read */
} fdwalk_t;

/*
 * Build the record of fd into rec, for the walk fw, nothing taken from
 * the table it read.  0 when it is ready; ENOENT when the fd is not open
 * (any more) or would not hold still; ESRCH when the target is gone;
 * another errno when it cannot be read.  Thread-safe for one walk as
 * long as each caller has its own scratch and record, and the handle's
 * source of socket facts allows it (Pfdinfo_parallel_ok).
 */
extern int fdwalk_build(const fdwalk_t *, fdscratch_t *, fdrec_t *, int);
/*
 * Open fdinfo's directory for the walk (P->fdinfofd), unless it is open
 * or RLIMIT_NOFILE leaves no fd to spare: each fdinfo file is then opened
 * through the process's directory.  0, or -1 with errno.
 */
extern int fdwalk_fdinfo_dir(struct ps_prochandle *);
/*
 * The same for fds[0..n) (n at most FDWALK_CHUNK) into *recs[i], each
 * answer in errs[i]: the sockets among them asked of the source at once,
 * and the stats of those the table read saw taken from it.
 */
extern void fdwalk_build_many(const fdwalk_t *, fdscratch_t *,
    fdrec_t *const *, const int *, int *, size_t);

/*
 * Hand a finished record to the walk's caller: every walk calls this for
 * every record, on the thread that called Pfdinfo_iter_flags, in fd
 * order.  A socket's record gets its PR_ENDPOINTS and PR_SHARED first,
 * appended to rec in place: rec is the builder's own, and is not the
 * caller's to keep.
 * Returns what the caller's function does.
 */
extern int fdwalk_emit(const fdwalk_t *, fdrec_t *);

/*
 * The pipelined walk over fds[0..nfds): records built by worker threads,
 * handed over (fdwalk_emit) in order on the calling thread.  Returns as
 * Pfdinfo_iter does; *used is 0 when it could not start its threads (the
 * caller then walks serially).
 */
extern int fdpipe_walk(const fdwalk_t *, const int *, size_t, int *);

#endif	/* _FDWALK_H */
