/*
 * Pfdinfo.c: the walk over a process's open files.
 *
 * The fds come from getdents64(2) on /proc/PID/fd, which the kernel lists
 * in increasing fd order, so the walk streams: a batch of fd numbers at a
 * time, one record per fd in a buffer reused from fd to fd, whatever the
 * number of fds.  Per fd the walk makes one stat and (but for sockets) one
 * readlink of /proc/PID/fd/N and, unless the caller asked for stat only,
 * one open+read+close of /proc/PID/fdinfo/N; sockets get their facts from
 * the chosen source (socksrc.c).  Nothing else of /proc is read per fd.
 *
 * When the machine has more than one CPU and the source of socket facts
 * can be used from several threads (pidfd, or none), records are built
 * by worker threads ahead of the caller (fdpipe.c); the caller's function
 * is still called in fd order, on the caller's thread.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fdwalk.h"

#define	DENTS_BUFSZ	32768
#define	BATCH_MAX	(DENTS_BUFSZ / 24)	/* fds one getdents can give */
#define	FD_RETRIES	3	/* an fd replaced while being read, again */

static int
open_fdinfo_dir(struct ps_prochandle *P)
{
	if (P->fdinfofd >= 0)
		return (0);
	P->fdinfofd = Pprocopen(P, "fdinfo", O_RDONLY | O_DIRECTORY);
	return (P->fdinfofd < 0 ? -1 : 0);
}

/*
 * Read and parse /proc/PID/fdinfo/N.  fdinfo is one seq_file record, so a
 * read that returns less than was asked for has reached the end, and
 * usually one read(2) is all it takes; reading stops, too, once the lines
 * of the file's own type begin (an epoll fd's list of every fd it
 * watches is not needed).
 */
static int
read_fdinfo(struct ps_prochandle *P, const char *name, fdscratch_t *fs)
{
	fdinfo_parser_t fp;
	ssize_t n;
	int fd, err = 0;

	if ((fd = openat(P->fdinfofd, name, O_RDONLY | O_CLOEXEC)) < 0)
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
	(void) close(fd);
	return (err);
}

static void
fill_stat(prfdinfo_t *info, const struct stat *st)
{
	info->pr_mode = st->st_mode;
	info->pr_ino = st->st_ino;
	info->pr_size = st->st_size;
	info->pr_uid = st->st_uid;
	info->pr_gid = st->st_gid;
	info->pr_major = major(st->st_dev);
	info->pr_minor = minor(st->st_dev);
	info->pr_rmajor = major(st->st_rdev);
	info->pr_rminor = minor(st->st_rdev);
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
 * One attempt at the record of fd; ESTALE when the fd was replaced while
 * being read.  A socket's link says only "socket:[INO]", which the stat
 * already tells, so it is not read: readlink of a socket costs the kernel
 * a path walk and a name made up on the spot.  The inode of the stat, of
 * the source's own look at the socket, and of fdinfo must agree.
 */
static int
build_once(struct ps_prochandle *P, int flags, fdscratch_t *fs,
    fdrec_t *rec, int fd)
{
	char name[16];
	struct stat st;
	ssize_t n;
	int err;

	(void) snprintf(name, sizeof (name), "%d", fd);
	if (fdrec_reset(rec, fd) != 0)
		return (errno);
	if (fstatat(P->fddirfd, name, &st, 0) != 0)
		return (errno);
	fill_stat(fdrec_info(rec), &st);

	if (S_ISSOCK(st.st_mode)) {
		n = snprintf(fs->fs_path, sizeof (fs->fs_path), "socket:[%llu]",
		    (unsigned long long)st.st_ino);
	} else {
		n = readlinkat(P->fddirfd, name, fs->fs_path,
		    sizeof (fs->fs_path) - 1);
		if (n < 0)
			return (errno);
		fs->fs_path[n] = '\0';
	}
	(void) fdrec_add(rec, PR_PATHNAME, fs->fs_path, (size_t)n + 1);

	if (flags & PFDI_STATONLY)
		return (0);

	if (S_ISSOCK(st.st_mode) &&
	    (err = Psockfacts(P, fd, (uint64_t)st.st_ino, rec)) != 0)
		return (err);
	if ((err = read_fdinfo(P, name, fs)) != 0)
		return (err);
	if ((fs->fs_fdinfo.fi_have & FDI_INO) &&
	    fs->fs_fdinfo.fi_ino != (uint64_t)st.st_ino)
		return (ESTALE);
	fill_fdinfo(rec, &fs->fs_fdinfo);
	return (0);
}

int
fdwalk_build(struct ps_prochandle *P, int flags, fdscratch_t *fs,
    fdrec_t *rec, int fd)
{
	int err = ESTALE;

	for (int i = 0; i < FD_RETRIES && err == ESTALE; i++)
		err = build_once(P, flags, fs, rec, fd);
	switch (err) {
	case 0:
		return (0);
	case ENOENT:
	case EBADF:
	case ESTALE:
		return (ENOENT);	/* closed, or never still: skip it */
	default:
		return (err == ESRCH || Pexited(P) ? ESRCH : err);
	}
}

/* The fd a directory entry names, or -1 for "." and "..". */
static int
dirent_fd(const char *name)
{
	long v = 0;

	if (*name == '\0')
		return (-1);
	for (; *name != '\0'; name++) {
		if (*name < '0' || *name > '9' || v > (INT_MAX - 9) / 10)
			return (-1);
		v = v * 10 + (*name - '0');
	}
	return ((int)v);
}

/* The next batch of fd numbers; their count, 0 at the end, or -1. */
static long
next_batch(struct ps_prochandle *P, char *dents, int *fds)
{
	long n, count = 0;
	int fd;

	n = syscall(SYS_getdents64, P->fddirfd, dents, DENTS_BUFSZ);
	if (n < 0) {
		if (errno == ENOENT)
			errno = ESRCH;
		return (-1);
	}
	for (long off = 0; off < n; ) {
		struct dirent64 *d = (struct dirent64 *)(void *)(dents + off);

		if (d->d_reclen == 0 || d->d_reclen > n - off ||
		    count == BATCH_MAX) {
			errno = EPROTO;
			return (-1);
		}
		off += d->d_reclen;
		if ((fd = dirent_fd(d->d_name)) >= 0)
			fds[count++] = fd;
	}
	return (count == 0 && n > 0 ? next_batch(P, dents, fds) : count);
}

static int
serial_walk(struct ps_prochandle *P, int flags, fdscratch_t *fs,
    fdrec_t *rec, const int *fds, size_t nfds, proc_fdinfo_f *func, void *cd)
{
	int err, rv;

	for (size_t i = 0; i < nfds; i++) {
		if ((err = fdwalk_build(P, flags, fs, rec, fds[i])) == ENOENT)
			continue;
		if (err != 0) {
			errno = err;
			return (-1);
		}
		if ((rv = func(cd, fdrec_info(rec))) != 0)
			return (rv);
	}
	return (0);
}

/* May records be built on several threads?  Not through ptrace. */
static int
parallel_ok(struct ps_prochandle *P, int flags)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return (0);
	return ((flags & PFDI_STATONLY) || Psock_parallel_ok(P));
}

/* Get ready what the builders share, before any thread starts. */
static void
prepare(struct ps_prochandle *P, int flags)
{
	if (flags & PFDI_STATONLY)
		return;
	(void) open_fdinfo_dir(P);
	if (P->src_state == SRC_UNSET)
		(void) Psetsocksrc(P, PSOCK_AUTO);
}

int
Pfdinfo_iter_flags(struct ps_prochandle *P, int flags, proc_fdinfo_f *func,
    void *cd)
{
	fdscratch_t *fs = malloc(sizeof (*fs));
	char *dents = malloc(DENTS_BUFSZ);
	int *fds = malloc(BATCH_MAX * sizeof (int));
	fdrec_t rec = { NULL, 0 };
	int rv = -1, e = ENOMEM, par, used;
	long nfds;

	if (fs == NULL || dents == NULL || fds == NULL)
		goto out;
	prepare(P, flags);
	par = parallel_ok(P, flags);
	if (lseek(P->fddirfd, 0, SEEK_SET) != 0) {
		e = errno;
		goto out;
	}
	while ((nfds = next_batch(P, dents, fds)) > 0) {
		used = 0;
		if (!(flags & PFDI_STATONLY))
			Psockbatch(P, fds, (size_t)nfds);
		if (par)
			rv = fdpipe_walk(P, flags, fds, (size_t)nfds, func, cd,
			    &used);
		if (!used)
			rv = serial_walk(P, flags, fs, &rec, fds, (size_t)nfds,
			    func, cd);
		if (rv != 0)
			break;
	}
	e = errno;
	if (nfds < 0)
		rv = -1;
	/* A target that exited part-way is not a complete walk. */
	if (rv == 0 && Pexited(P)) {
		rv = -1;
		e = ESRCH;
	}
out:
	fdrec_free(&rec);
	free(fs);
	free(dents);
	free(fds);
	errno = e;
	return (rv);
}

int
Pfdinfo_iter(struct ps_prochandle *P, proc_fdinfo_f *func, void *cd)
{
	return (Pfdinfo_iter_flags(P, 0, func, cd));
}
