/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fdbuild.c: the record of one open file, and of a chunk of them.
 *
 * Per fd: one stat and (but for sockets) one readlink of /proc/PID/fd/N
 * and, unless the caller asked for stat only, one open+read+close of
 * /proc/PID/fdinfo/N (fdinfo_parse.c reads it).  The stat and the inode
 * are taken from the table read for the endpoints where it was read
 * (fdtab_read()).  A chunk's sockets get their facts from the chosen
 * source at once (sources/registry.c).  An fd replaced while being read
 * is read again, FD_RETRIES times at most.  Used by the walk
 * (Pfdinfo.c), its worker threads (fdpipe.c) and a source's own walk.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "endpoint/endpoint.h"
#include "sources/psock.h"
#include "sock/sock_ring.h"
#include "sock/socksrc.h"
#include "walk/fdwalk.h"

#define	FD_RETRIES	8	/* an fd replaced while being read, again */

/*
 * fdinfo's directory, held for the walk; not where RLIMIT_NOFILE leaves
 * no fd to spare (Pfd_room()): each file is then opened through the
 * process's directory (fdinfo_open), and the walk holds one fd fewer.
 */
int
fdwalk_fdinfo_dir(struct ps_prochandle *P)
{
	if (P->fdinfofd >= 0 || Pfd_room() == 0)
		return (0);
	P->fdinfofd = Pprocopen(P, "fdinfo", O_RDONLY | O_DIRECTORY);
	return (P->fdinfofd < 0 ? -1 : 0);
}

static int
fdinfo_open(struct ps_prochandle *P, const char *name)
{
	char path[32];

	if (P->fdinfofd >= 0)
		return (openat(P->fdinfofd, name, O_RDONLY | O_CLOEXEC));
	(void) snprintf(path, sizeof (path), "fdinfo/%s", name);
	return (Pprocopen(P, path, O_RDONLY));
}

/*
 * Let go of the fdinfo files a chunk read (fs_closes): together, in one
 * system call where the kernel allows it (sock_ring.c).
 */
static void
close_fdinfos(fdscratch_t *fs)
{
	sockring_close(fs->fs_closes, fs->fs_nclose);
	fs->fs_nclose = 0;
}

/*
 * Read and parse /proc/PID/fdinfo/N.  fdinfo is one seq_file record, so a
 * read that returns less than was asked for has reached the end, and
 * usually one read(2) is all it takes; reading stops, too, once the lines
 * of the file's own type begin (an epoll fd's list of every fd it
 * watches is not needed).  The file is closed by the chunk's end
 * (close_fdinfos()), or sooner when RLIMIT_NOFILE leaves few fds to
 * spare (Pfd_room()); out of fds, those of the chunk so far are closed
 * and the open tried again.
 */
static int
read_fdinfo(struct ps_prochandle *P, const char *name, fdscratch_t *fs)
{
	fdinfo_parser_t fp;
	ssize_t n;
	int fd, err = 0;

	if (P->fdinfofd < 0 && fdwalk_fdinfo_dir(P) != 0)
		return (errno);
	if ((fd = fdinfo_open(P, name)) < 0 &&
	    Pshort_of_fds(errno) && fs->fs_nclose > 0) {
		close_fdinfos(fs);
		fd = fdinfo_open(P, name);
	}
	if (fd < 0)
		return (errno);
	fdinfo_parse_init(&fp, &fs->fs_fdinfo);
	for (;;) {
		n = read(fd, fs->fs_readbuf, sizeof (fs->fs_readbuf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = errno;
		if (n <= 0)
			break;
		fdinfo_parse_feed(&fp, fs->fs_readbuf, (size_t)n);
		if ((size_t)n < sizeof (fs->fs_readbuf) ||
		    fdinfo_parse_done(&fp))
			break;
	}
	fdinfo_parse_end(&fp);
	fs->fs_closes[fs->fs_nclose++] = fd;
	if (fs->fs_nclose >= FDWALK_CHUNK || fs->fs_nclose >= Pfd_room())
		close_fdinfos(fs);
	return (err);
}

/*
 * The stat of what fd N holds.  AT_STATX_DONT_SYNC: the kernel answers
 * from what it has, and never waits on the file's filesystem (a FUSE or
 * NFS server that does not answer would hang us in an uninterruptible
 * sleep).  0 or an errno.
 */
static int
stat_at(int dirfd, const char *name, int flags, struct statx *stx)
{
	if (statx(dirfd, name, flags | AT_STATX_DONT_SYNC, STATX_BASIC_STATS,
	    stx) != 0)
		return (errno);
	return (0);
}

/* Do two stats name the same file? */
static int
same_file(const struct statx *a, const struct statx *b)
{
	return (a->stx_ino == b->stx_ino && a->stx_dev_major ==
	    b->stx_dev_major && a->stx_dev_minor == b->stx_dev_minor &&
	    (a->stx_mode & S_IFMT) == (b->stx_mode & S_IFMT));
}

static void
fill_stat(prfdinfo_t *info, const struct statx *stx)
{
	info->pr_mode = stx->stx_mode;
	info->pr_ino = stx->stx_ino;
	info->pr_size = (int64_t)stx->stx_size;
	info->pr_uid = stx->stx_uid;
	info->pr_gid = stx->stx_gid;
	info->pr_major = stx->stx_dev_major;
	info->pr_minor = stx->stx_dev_minor;
	info->pr_rmajor = stx->stx_rdev_major;
	info->pr_rminor = stx->stx_rdev_minor;
}

static void
fill_fdinfo(fdrec_t *rec, const fdinfo_t *fi)
{
	prfdinfo_t *info = fdrec_info(rec);

	if (fi->fi_have & FDI_FLAGS) {
		info->pr_fileflags = (int)(fi->fi_flags & ~(uint32_t)O_CLOEXEC);
		info->pr_fdflags = (fi->fi_flags & O_CLOEXEC) ? FD_CLOEXEC : 0;
	}
	if (fi->fi_have & FDI_POS)
		info->pr_offset = fi->fi_pos;
	if (fi->fi_have & FDI_MNT_ID)
		info->pr_mnt_id = fi->fi_mnt_id;
	if (fi->fi_nlocks > 0)
		(void) fdrec_add(rec, PR_LOCKS, fi->fi_locks,
		    fi->fi_nlocks * sizeof (fi->fi_locks[0]));
	if (fi->fi_locks_dropped > 0)
		(void) fdrec_add(rec, PR_LOCKS_DROPPED, &fi->fi_locks_dropped,
		    sizeof (fi->fi_locks_dropped));
}

/*
 * One attempt at the record of one fd, and what it learns on the way:
 * what the builders' functions pass instead of a list of arguments.
 */
typedef struct attempt {
	const fdwalk_t	*at_fw;
	fdscratch_t	*at_fs;		/* the builder's own */
	fdrec_t		*at_rec;
	int		at_fd;
	int		at_fresh;	/* nothing taken from the table read */
	int		at_took;	/* the stat is the table read's */
	char		at_name[16];	/* fd's name in /proc/PID/fd */
	struct statx	at_stx;
} attempt_t;

static void
attempt_init(attempt_t *at, const fdwalk_t *fw, fdscratch_t *fs,
    fdrec_t *rec, int fd)
{
	at->at_fw = fw;
	at->at_fs = fs;
	at->at_rec = rec;
	at->at_fd = fd;
	at->at_fresh = 0;
	at->at_took = 0;
}

/*
 * The path of fd N, from the very file whose stat is at_stx: fd N's link
 * is opened (O_PATH: the file's own path, no open of the file itself, no
 * call to its filesystem), and the stat and the link of OUR descriptor
 * are of one file by construction.  A fd switched to another file
 * meanwhile is ESTALE.  A link that cannot be read (a path longer than
 * PATH_MAX) is a note in the record, not an error of the walk.  0 or an
 * errno.
 */
static int
add_path(const attempt_t *at)
{
	struct ps_prochandle *P = at->at_fw->fw_P;
	fdscratch_t *fs = at->at_fs;
	struct statx mine;
	char me[16];
	ssize_t n;
	int f, err;

	if ((f = openat(P->fddirfd, at->at_name, O_PATH | O_CLOEXEC)) < 0)
		return (errno);
	(void) snprintf(me, sizeof (me), "%d", f);
	if ((err = stat_at(f, "", AT_EMPTY_PATH, &mine)) == 0 &&
	    !same_file(&mine, &at->at_stx))
		err = ESTALE;
	if (err == 0 && P->selffdfd < 0 && (P->selffdfd = open("/proc/self/fd",
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		err = errno;
	if (err == 0) {
		n = readlinkat(P->selffdfd, me, fs->fs_path,
		    sizeof (fs->fs_path) - 1);
		if (n >= 0) {
			fs->fs_path[n] = '\0';
			(void) fdrec_add(at->at_rec, PR_PATHNAME, fs->fs_path,
			    (size_t)n + 1);
		} else {
			const char *why = errno == ENAMETOOLONG ?
			    "file name too long" : strerror(errno);

			(void) fdrec_add(at->at_rec, PR_PATHERR, why,
			    strlen(why) + 1);
		}
	}
	(void) close(f);
	return (err);
}

/*
 * A pipe's link, "pipe:[INO]", is made from its inode: when it names the
 * inode of the stat, the two are of one pipe, and no second look is
 * needed.  1 when the path was added so; 0 when add_path must look.
 */
static int
link_names_inode(const attempt_t *at)
{
	fdscratch_t *fs = at->at_fs;
	char want[40];
	ssize_t n;
	int len;

	if (!S_ISFIFO(at->at_stx.stx_mode))
		return (0);
	len = snprintf(want, sizeof (want), "pipe:[%llu]",
	    (unsigned long long)at->at_stx.stx_ino);
	n = readlinkat(at->at_fw->fw_P->fddirfd, at->at_name, fs->fs_path,
	    sizeof (fs->fs_path) - 1);
	if (n != len || memcmp(fs->fs_path, want, (size_t)len) != 0)
		return (0);
	fs->fs_path[n] = '\0';
	(void) fdrec_add(at->at_rec, PR_PATHNAME, fs->fs_path, (size_t)n + 1);
	return (1);
}

/*
 * The path of fd N for a walk that must open nothing of the target's
 * (PFDI_STATONLY): its link, read between two stats that must agree.
 */
static int
add_path_statonly(const attempt_t *at)
{
	int dirfd = at->at_fw->fw_P->fddirfd;
	fdscratch_t *fs = at->at_fs;
	struct statx again;
	ssize_t n;
	int err;

	n = readlinkat(dirfd, at->at_name, fs->fs_path,
	    sizeof (fs->fs_path) - 1);
	if (n < 0 && errno != ENAMETOOLONG)
		return (errno);
	if ((err = stat_at(dirfd, at->at_name, 0, &again)) != 0)
		return (err);
	if (!same_file(&again, &at->at_stx))
		return (ESTALE);
	if (n >= 0) {
		fs->fs_path[n] = '\0';
		(void) fdrec_add(at->at_rec, PR_PATHNAME, fs->fs_path,
		    (size_t)n + 1);
	}
	return (0);
}

/*
 * A new record for the fd with its stat fields, and the fd's name.  The
 * stat is the one the table read took of a socket (fdtab_stat()), unless
 * fresh: then, or when that read did not see the fd as a socket, it is
 * asked.  0 or an errno.
 */
static int
build_stat(attempt_t *at)
{
	int err;

	(void) snprintf(at->at_name, sizeof (at->at_name), "%d", at->at_fd);
	if (fdrec_reset(at->at_rec, at->at_fd) != 0)
		return (errno);
	at->at_took = !at->at_fresh &&
	    fdtab_stat(&at->at_fw->fw_tab, at->at_fd, &at->at_stx);
	if (!at->at_took && (err = stat_at(at->at_fw->fw_P->fddirfd,
	    at->at_name, 0, &at->at_stx)) != 0)
		return (err);
	fill_stat(fdrec_info(at->at_rec), &at->at_stx);
	return (0);
}

/*
 * A socket's record is ready but for its facts: its path, and *ask made
 * ready for the source (its record in the walk's socket tables, if any).
 */
static void
ask_ready(const attempt_t *at, sockask_t *ask)
{
	fdscratch_t *fs = at->at_fs;
	int n = snprintf(fs->fs_path, sizeof (fs->fs_path), "socket:[%llu]",
	    (unsigned long long)at->at_stx.stx_ino);

	(void) fdrec_add(at->at_rec, PR_PATHNAME, fs->fs_path, (size_t)n + 1);
	ask->sa_fd = at->at_fd;
	ask->sa_ino = (uint64_t)at->at_stx.stx_ino;
	ask->sa_tab = NULL;
	ask->sa_dent = endpoints_dent(at->at_fw->fw_ep, ask->sa_ino,
	    &ask->sa_tab);
	sockfacts_init(&ask->sa_facts);
	ask->sa_err = 0;
}

/*
 * The part of one attempt at the record of the fd that is not a socket's
 * facts: all of it but for a socket, whose facts are then to be asked:
 * *ask is made ready for that and *sockp set.  ESTALE when the fd was
 * replaced while being read.  Every fact of the record must come from
 * one open file: the stat, the path (add_path), fdinfo (its ino: must be
 * the stat's) and the socket facts (each source checks the inode of what
 * it asks).  A stat taken from the table read is of a moment before:
 * fdinfo's ino, which a kernel without it does not give, must be the
 * stat's.
 *
 * A socket's link says only "socket:[INO]", which the stat already
 * tells, so it is not read.  An O_PATH descriptor of a socket file is a
 * path, not a socket endpoint: fdinfo's flags say which.
 */
static int
build_front(attempt_t *at, sockask_t *ask, int *sockp)
{
	const fdinfo_t *fi = &at->at_fs->fs_fdinfo;
	int err;

	*sockp = 0;
	if ((err = build_stat(at)) != 0)
		return (err);
	if (at->at_fw->fw_flags & PFDI_STATONLY) {
		if (S_ISSOCK(at->at_stx.stx_mode))
			return (0);
		return (add_path_statonly(at));
	}
	if ((err = read_fdinfo(at->at_fw->fw_P, at->at_name, at->at_fs)) != 0)
		return (err);
	if ((fi->fi_have & FDI_INO) ? fi->fi_ino !=
	    (uint64_t)at->at_stx.stx_ino : at->at_took)
		return (ESTALE);
	fill_fdinfo(at->at_rec, fi);
	if (S_ISSOCK(at->at_stx.stx_mode) &&
	    !((fi->fi_have & FDI_FLAGS) && (fi->fi_flags & O_PATH))) {
		ask_ready(at, ask);
		*sockp = 1;
		return (0);
	}
	if (!link_names_inode(at) && (err = add_path(at)) != 0)
		return (err);
	return (0);
}

/* One attempt at the record of the fd, its socket facts asked alone. */
static int
build_once(attempt_t *at)
{
	sockask_t *ask = &at->at_fs->fs_ask1;
	int err, sock;

	if ((err = build_front(at, ask, &sock)) != 0 || !sock)
		return (err);
	close_fdinfos(at->at_fs);	/* the fds the source may need */
	Psockfacts(at->at_fw->fw_P, ask, 1);
	if (ask->sa_err == 0) {
		sock_ifname(at->at_fw->fw_P, &ask->sa_facts);
		sockrec_add(at->at_rec, &ask->sa_facts);
	}
	return (ask->sa_err);
}

/* fdwalk_build's answer for a record whose last attempt gave err. */
static int
build_answer(struct ps_prochandle *P, int err)
{
	switch (err) {
	case 0:
		return (0);
	case ENOENT:
	case EBADF:
		return (ENOENT);	/* closed: skip it */
	default:
		return (err == ESRCH || Pexited(P) ? ESRCH : err);
	}
}

/*
 * The record of the fd after a first attempt that gave err: again while
 * it is ESTALE, each time with nothing taken from before.
 */
static int
build_again(attempt_t *at, int err, int tries)
{
	at->at_fresh = 1;
	for (int i = tries; i < FD_RETRIES && err == ESTALE; i++)
		err = build_once(at);
	/*
	 * It never held still: what it holds is changing all the time.  It
	 * is shown, with the stat of one moment and nothing that would need
	 * a second look to be sure of, and marked so.
	 */
	if (err == ESTALE && (err = build_stat(at)) == 0)
		(void) fdrec_add(at->at_rec, PR_CHANGED, NULL, 0);
	return (build_answer(at->at_fw->fw_P, err));
}

int
fdwalk_build(const fdwalk_t *fw, fdscratch_t *fs, fdrec_t *rec, int fd)
{
	attempt_t at;
	int err;

	attempt_init(&at, fw, fs, rec, fd);
	err = build_again(&at, ESTALE, 0);
	close_fdinfos(fs);
	return (err);
}

/*
 * The facts of the nask sockets of a chunk asked at once, into their
 * records; a socket whose facts could not be had is built again.
 */
static void
ask_chunk(const fdwalk_t *fw, fdscratch_t *fs, fdrec_t *const *recs,
    const int *fds, int *errs, size_t nask)
{
	attempt_t at;

	/* Closed first: the source may need the fds. */
	close_fdinfos(fs);
	Psockfacts(fw->fw_P, fs->fs_asks, nask);
	for (size_t k = 0; k < nask; k++) {
		sockask_t *a = &fs->fs_asks[k];
		size_t j = fs->fs_askof[k];

		if (a->sa_err == 0) {
			sock_ifname(fw->fw_P, &a->sa_facts);
			sockrec_add(recs[j], &a->sa_facts);
		} else {
			attempt_init(&at, fw, fs, recs[j], fds[j]);
			errs[j] = build_again(&at, a->sa_err, 1);
		}
	}
}

void
fdwalk_build_many(const fdwalk_t *fw, fdscratch_t *fs, fdrec_t *const *recs,
    const int *fds, int *errs, size_t n)
{
	attempt_t at;
	size_t nask = 0;

	for (size_t i = 0; i < n; i++) {
		int sock, err;

		attempt_init(&at, fw, fs, recs[i], fds[i]);
		err = build_front(&at, &fs->fs_asks[nask], &sock);
		if (err == 0 && sock) {
			fs->fs_askof[nask++] = i;
			errs[i] = 0;
		} else {
			errs[i] = err == 0 ? 0 : build_again(&at, err, 1);
		}
		if (nask == FDWALK_CHUNK || (i == n - 1 && nask > 0)) {
			ask_chunk(fw, fs, recs, fds, errs, nask);
			nask = 0;
		}
	}
	close_fdinfos(fs);
}
