/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Pfdinfo.c: the walk over a process's open files.
 *
 * The fds come from /proc/PID/fd (fdtab.h), which the kernel lists in
 * increasing fd order, so the walk streams: a batch of fd numbers at a
 * time, records built FDWALK_CHUNK at a time (fdbuild.c) in buffers
 * reused from chunk to chunk, whatever the number of fds.  Where the
 * endpoints were looked for, the table was read once for them, its fds
 * listed and each socket's stat made (fdtab_read()): the walk takes both
 * from there, and does not make them again.
 *
 * When the machine has more than one CPU and the source of socket facts
 * can be used from several threads (pidfd, or none), records are built
 * by worker threads ahead of the caller (fdpipe.c); the caller's function
 * is still called in fd order, on the caller's thread.
 *
 * Unless the caller asked for stat only, the walk first learns who holds
 * the other end of each of the target's sockets whose other end is on
 * this host, and who else holds each socket itself (endpoint.c), and
 * adds them to their records (PR_ENDPOINTS, PR_SHARED) as each is handed
 * to the caller (fdwalk_emit), in place, whichever walk built it: this
 * one, the pipelined one or a source's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "endpoint/endpoint.h"
#include "sources/psock.h"
#include "walk/fdwalk.h"

/* The next batch of fd numbers; their count, 0 at the end, or -1. */
static long
next_batch(struct ps_prochandle *P, char *dents, int *fds)
{
	long n;

	/* Gone for a moment while an exec hands the pid over: again. */
	for (int i = 0; (n = fdtab_next(P->fddirfd, dents, fds)) < 0 &&
	    errno == ENOENT && i < EXEC_SETTLE_MS && !Pexiting(P); i++)
		(void) usleep(1000);
	if (n < 0 && errno != EPROTO)
		errno = ESRCH;	/* gone: Pexiting has said so, or never left */
	return (n);
}

/*
 * The next batch of fds: from the table read for the endpoints, when it
 * was (the table is not listed twice), else from the directory.
 */
static long
walk_next(const fdwalk_t *fw, fdcursor_t *cur, char *dents, int *fds)
{
	long n = fdtab_fds(&fw->fw_tab, cur, fds, FDTAB_BATCH);

	return (n >= 0 ? n : next_batch(fw->fw_P, dents, fds));
}

/* FDWALK_CHUNK fds at a time: their records built, then handed over. */
static int
serial_walk(const fdwalk_t *fw, fdscratch_t *fs, fdrec_t *recs,
    const int *fds, size_t nfds)
{
	fdrec_t *rp[FDWALK_CHUNK];
	int errs[FDWALK_CHUNK], rv;

	for (int i = 0; i < FDWALK_CHUNK; i++)
		rp[i] = &recs[i];
	for (size_t first = 0; first < nfds; first += FDWALK_CHUNK) {
		size_t n = nfds - first < FDWALK_CHUNK ? nfds - first :
		    FDWALK_CHUNK;

		fdwalk_build_many(fw, fs, rp, fds + first, errs, n);
		for (size_t i = 0; i < n; i++) {
			if (errs[i] == ENOENT)
				continue;
			if (errs[i] != 0) {
				errno = errs[i];
				return (-1);
			}
			if ((rv = fdwalk_emit(fw, &recs[i])) != 0)
				return (rv);
		}
	}
	return (0);
}

/*
 * A socket's record gets PR_ENDPOINTS, then PR_SHARED, from endpoint.c's
 * answers, which cost no system call.  Not an O_PATH descriptor of a
 * socket file (a path, not an endpoint), nor a record of an fd that never
 * held still (PR_CHANGED: its inode is of one moment).
 */
static void
add_endpoints(endpoints_t *ep, fdrec_t *rec)
{
	const prfdinfo_t *info = fdrec_info(rec);
	uint8_t ends[ENDPOINTS_BUFSZ];
	size_t len;

	if (ep == NULL || !S_ISSOCK(info->pr_mode) ||
	    (info->pr_fileflags & O_PATH) ||
	    proc_fdinfo_misc(info, PR_CHANGED, NULL) != NULL)
		return;
	endpoints_seen(ep, info);
	if ((len = endpoints_of(ep, info->pr_ino, ends, sizeof (ends))) > 0)
		(void) fdrec_add(rec, PR_ENDPOINTS, ends, len);
	if ((len = endpoints_shared(ep, info->pr_ino, info->pr_fd, ends,
	    sizeof (ends))) > 0)
		(void) fdrec_add(rec, PR_SHARED, ends, len);
}

int
fdwalk_emit(const fdwalk_t *fw, fdrec_t *rec)
{
	add_endpoints(fw->fw_ep, rec);
	return (fw->fw_func(fw->fw_cd, fdrec_info(rec)));
}

/* May records be built on several threads?  Not through ptrace. */
static int
parallel_ok(struct ps_prochandle *P, int flags)
{
	if (!Pconcurrent())
		return (0);
	return ((flags & PFDI_STATONLY) || Psock_parallel_ok(P));
}

/*
 * Get ready what the builders share, before any thread starts: fdinfo's
 * directory, the source of socket facts, and who holds the other ends of
 * the target's local sockets and the sockets themselves, learnt before
 * the first record as the walk streams in fd order (not asked for with
 * PFDI_NOENDPOINTS).  A walk of stat only opens nothing of the target's
 * and asks no source.
 */
static void
walk_begin(fdwalk_t *fw, struct ps_prochandle *P, int flags,
    proc_fdinfo_f *func, void *cd)
{
	int statonly = (flags & PFDI_STATONLY) != 0;

	fw->fw_func = func;
	fw->fw_cd = cd;
	fw->fw_P = P;
	fw->fw_flags = flags;
	if (!statonly) {
		if (P->src_state == SRC_UNSET)
			(void) Psetsocksrc(P, PSOCK_AUTO);
	}
	P->ep_why[0] = '\0';
	memset(&fw->fw_tab, 0, sizeof (fw->fw_tab));
	fw->fw_ep = statonly || (flags & PFDI_NOENDPOINTS) ? NULL :
	    endpoints_resolve(P, &fw->fw_tab);
	if (fw->fw_ep == NULL)
		fdtab_clear(&fw->fw_tab);	/* the walk lists the table */
	/*
	 * Before the builders' threads start, and after the endpoints'
	 * pass over every fd table, which then has one fd more where
	 * RLIMIT_NOFILE is low; a source that walks by itself (bpf)
	 * builds on its one thread, and most of its records need no
	 * fdinfo: opened at first use there.
	 */
	if (!statonly && !Psock_walks(P))
		(void) fdwalk_fdinfo_dir(P);
}

/*
 * The fd-by-fd walk: a batch of fd numbers at a time, told to the source,
 * then built on worker threads ahead of the caller (fdpipe.c) where that
 * is allowed, else here.  Returns as Pfdinfo_iter_flags does.
 */
static int
walk_batches(const fdwalk_t *fw)
{
	struct ps_prochandle *P = fw->fw_P;
	fdscratch_t *fs = calloc(1, sizeof (*fs));
	char *dents = malloc(FDTAB_DENTS);
	int *fds = malloc(FDTAB_BATCH * sizeof (int));
	fdrec_t recs[FDWALK_CHUNK];
	fdcursor_t cur = { 0, 0 };
	int rv = -1, e = ENOMEM, par, used;
	long nfds;

	memset(recs, 0, sizeof (recs));
	if (fs == NULL || dents == NULL || fds == NULL)
		goto out;
	par = parallel_ok(P, fw->fw_flags);
	if (lseek(P->fddirfd, 0, SEEK_SET) != 0) {
		e = errno;
		goto out;
	}
	rv = 0;			/* a process may have no fds at all */
	while ((nfds = walk_next(fw, &cur, dents, fds)) > 0) {
		used = 0;
		Ptick(P);
		if (!(fw->fw_flags & PFDI_STATONLY))
			Psockbatch(P, fds, (size_t)nfds);
		if (par)
			rv = fdpipe_walk(fw, fds, (size_t)nfds, &used);
		if (!used)
			rv = serial_walk(fw, fs, recs, fds, (size_t)nfds);
		if (rv != 0)
			break;
	}
	e = errno;
	if (nfds < 0)
		rv = -1;
out:
	for (int i = 0; i < FDWALK_CHUNK; i++)
		fdrec_free(&recs[i]);
	free(fs);
	free(dents);
	free(fds);
	errno = e;
	return (rv);
}

/*
 * The end of a walk that returned rv: what it holds let go, and rv, or
 * -1 (ESRCH) for a target that exited part-way, which is not a complete
 * walk: its fds vanish one by one before its pidfd says so, which looks
 * like fds being closed.  Whether it is exiting is asked after the walk,
 * so that every fd it closed while exiting was already gone.
 */
static int
walk_end(fdwalk_t *fw, int rv)
{
	int e = errno;

	if (rv == 0 && Pexiting(fw->fw_P)) {
		rv = -1;
		e = ESRCH;
	}
	endpoints_end(fw->fw_P, fw->fw_ep);
	endpoints_free(fw->fw_ep);
	fdtab_clear(&fw->fw_tab);
	errno = e;
	return (rv);
}

/* What a source's own walk is given (sock/sockprov.h's sockwalk_t). */
typedef struct prov_walk {
	const fdwalk_t	*pw_fw;
	fdscratch_t	*pw_fs;
} prov_walk_t;

static int
prov_build(void *arg, fdrec_t *rec, int fd)
{
	prov_walk_t *pw = arg;

	return (fdwalk_build(pw->pw_fw, pw->pw_fs, rec, fd));
}

static int
prov_emit(void *arg, fdrec_t *rec)
{
	return (fdwalk_emit(((prov_walk_t *)arg)->pw_fw, rec));
}

/*
 * The walk of a source that finds every fact of every fd at once (bpf):
 * *used says whether there was one; then it returns as
 * Pfdinfo_iter_flags does.
 */
static int
provider_walk(const fdwalk_t *fw, int *used)
{
	struct ps_prochandle *P = fw->fw_P;
	prov_walk_t pw = { fw, NULL };
	sockwalk_t sw = { prov_build, prov_emit, &pw };
	int rv;

	*used = 0;
	if ((fw->fw_flags & PFDI_STATONLY) || !Psock_walks(P))
		return (0);
	*used = 1;
	if ((pw.pw_fs = calloc(1, sizeof (*pw.pw_fs))) == NULL) {
		errno = ENOMEM;
		return (-1);
	}
	rv = Psock_walk(P, &sw);
	free(pw.pw_fs);
	return (rv);
}

/*
 * A source that finds every fact of every fd at once (bpf) walks by
 * itself; else the walk is fd by fd.  Each hands its records over
 * through fdwalk_emit(), which adds their endpoints.
 */
int
Pfdinfo_iter_flags(struct ps_prochandle *P, int flags, proc_fdinfo_f *func,
    void *cd)
{
	fdwalk_t fw;
	int rv, used;

	/* Refused before the walk, or a source, is begun. */
	if (P == NULL || func == NULL ||
	    (flags & ~(PFDI_STATONLY | PFDI_NOENDPOINTS)) != 0) {
		errno = EINVAL;
		return (-1);
	}
	walk_begin(&fw, P, flags, func, cd);
	rv = provider_walk(&fw, &used);
	if (!used) {
		/* The builders' threads find fdinfo's directory open. */
		if (!(flags & PFDI_STATONLY))
			(void) fdwalk_fdinfo_dir(P);
		rv = walk_batches(&fw);
	}
	return (walk_end(&fw, rv));
}

int
Pfdinfo_iter(struct ps_prochandle *P, proc_fdinfo_f *func, void *cd)
{
	return (Pfdinfo_iter_flags(P, 0, func, cd));
}
