/*
 * fdwalk.h: building the record of one fd (Pfdinfo.c), shared by the
 * serial walk and the pipelined one (fdpipe.c).  Not installed.
 */
#ifndef	_FDWALK_H
#define	_FDWALK_H

#include <limits.h>

#include "core/Pcontrol.h"
#include "walk/fdinfo_parse.h"

#define	FDINFO_READSZ	4096

/* What one builder needs besides the record: kept off the stack. */
typedef struct fdscratch {
	fdinfo_t	fs_fdinfo;
	char		fs_readbuf[FDINFO_READSZ];
	char		fs_path[PATH_MAX];
} fdscratch_t;

/*
 * Build the record of fd into rec.  0 when it is ready; ENOENT when the fd
 * is not open (any more) or would not hold still; ESRCH when the target is
 * gone; another errno when it cannot be read.  Thread-safe for one
 * handle as long as each caller has its own scratch and record, and the
 * handle's source of socket facts allows it (Pfdinfo_parallel_ok).
 */
extern int fdwalk_build(struct ps_prochandle *, int, fdscratch_t *,
    fdrec_t *, int);

/*
 * The pipelined walk over fds[0..nfds): records built by worker threads,
 * handed to func in order on the calling thread.  Returns as
 * Pfdinfo_iter does; *used is 0 when it could not start its threads (the
 * caller then walks serially).
 */
extern int fdpipe_walk(struct ps_prochandle *, int, const int *, size_t,
    proc_fdinfo_f *, void *, int *);

#endif	/* _FDWALK_H */
