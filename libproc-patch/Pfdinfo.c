/*
 * Pfdinfo.c: the walk over a process's open files.
 *
 * The fds come from getdents64(2) on /proc/PID/fd, which the kernel lists
 * in increasing fd order, so the walk streams: one record at a time, in a
 * buffer reused from fd to fd, whatever the number of fds.  Per fd the
 * walk makes one stat and (but for sockets) one readlink of
 * /proc/PID/fd/N and, unless the
 * caller asked for stat only, one open+read+close of /proc/PID/fdinfo/N;
 * sockets get their facts from the chosen source (sock_src.c).  Nothing
 * else of /proc is read per fd.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "Pcontrol.h"
#include "fdinfo_parse.h"

#define	DENTS_BUFSZ	32768
#define	FDINFO_READSZ	4096
#define	FD_RETRIES	3	/* an fd replaced while being read, again */

/* The state of one walk. */
typedef struct fdwalk {
	struct ps_prochandle *fw_P;
	int		fw_flags;
	fdrec_t		fw_rec;
	fdinfo_t	*fw_fdinfo;
	char		fw_readbuf[FDINFO_READSZ];
	char		fw_path[PATH_MAX];
} fdwalk_t;

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
 * usually one read(2) is all it takes.
 */
static int
read_fdinfo(fdwalk_t *fw, const char *name, fdinfo_t *fi)
{
	fdinfo_parser_t fp;
	ssize_t n;
	int fd;

	if (open_fdinfo_dir(fw->fw_P) != 0)
		return (errno);
	if ((fd = openat(fw->fw_P->fdinfofd, name, O_RDONLY | O_CLOEXEC)) < 0)
		return (errno);
	fdinfo_parse_init(&fp, fi);
	for (;;) {
		n = read(fd, fw->fw_readbuf, sizeof (fw->fw_readbuf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		fdinfo_parse_feed(&fp, fw->fw_readbuf, (size_t)n);
		if ((size_t)n < sizeof (fw->fw_readbuf))
			break;
	}
	fdinfo_parse_end(&fp);
	if (n < 0) {
		int e = errno;
		(void) close(fd);
		return (e);
	}
	(void) close(fd);
	return (0);
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
}

/*
 * Build the record of one fd.  0 when it is ready; ENOENT when the fd is
 * not open (any more); ESTALE when it was replaced while being read (the
 * caller tries again); another errno when it cannot be read.
 *
 * A socket's link says only "socket:[INO]", which the stat already tells,
 * so it is not read: readlink of a socket costs the kernel a path walk and
 * a name made up on the spot.  The inode of the stat, of the source's own
 * look at the socket, and of fdinfo must agree, or the fd was replaced
 * part-way.
 */
static int
build_record(fdwalk_t *fw, int fd)
{
	struct ps_prochandle *P = fw->fw_P;
	fdrec_t *rec = &fw->fw_rec;
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
		n = snprintf(fw->fw_path, sizeof (fw->fw_path), "socket:[%llu]",
		    (unsigned long long)st.st_ino);
	} else {
		n = readlinkat(P->fddirfd, name, fw->fw_path,
		    sizeof (fw->fw_path) - 1);
		if (n < 0)
			return (errno);
		fw->fw_path[n] = '\0';
	}
	(void) fdrec_add(rec, PR_PATHNAME, fw->fw_path, (size_t)n + 1);

	if (fw->fw_flags & PFDI_STATONLY)
		return (0);

	if (S_ISSOCK(st.st_mode) &&
	    (err = Psockfacts(P, fd, (uint64_t)st.st_ino, rec)) != 0)
		return (err);
	if ((err = read_fdinfo(fw, name, fw->fw_fdinfo)) != 0)
		return (err);
	if ((fw->fw_fdinfo->fi_have & FDI_INO) &&
	    fw->fw_fdinfo->fi_ino != (uint64_t)st.st_ino)
		return (ESTALE);
	fill_fdinfo(rec, fw->fw_fdinfo);
	return (0);
}

/*
 * One fd: build its record, retrying a few times when it changes under
 * us, and hand it to func.  Returns func's value, 0 for an fd that went
 * away, or -1 with errno when the walk must end.
 */
static int
walk_one(fdwalk_t *fw, int fd, proc_fdinfo_f *func, void *cd)
{
	int err = ESTALE;

	for (int i = 0; i < FD_RETRIES && err == ESTALE; i++)
		err = build_record(fw, fd);
	if (err == ENOENT || err == EBADF || err == ESTALE)
		return (0);	/* closed, or never still: skip it */
	if (err != 0) {
		errno = (err == ESRCH || Pexited(fw->fw_P)) ? ESRCH : err;
		return (-1);
	}
	return (func(cd, fdrec_info(&fw->fw_rec)));
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

static int
walk_dents(fdwalk_t *fw, char *dents, proc_fdinfo_f *func, void *cd)
{
	struct ps_prochandle *P = fw->fw_P;
	long n;
	int rv, fd;

	if (lseek(P->fddirfd, 0, SEEK_SET) != 0)
		return (-1);
	for (;;) {
		n = syscall(SYS_getdents64, P->fddirfd, dents, DENTS_BUFSZ);
		if (n < 0) {
			if (errno == ENOENT)
				errno = ESRCH;
			return (-1);
		}
		if (n == 0)
			break;
		for (long off = 0; off < n; ) {
			struct dirent64 *d = (struct dirent64 *)
			    (void *)(dents + off);

			if (d->d_reclen == 0 || d->d_reclen > n - off) {
				errno = EPROTO;
				return (-1);
			}
			off += d->d_reclen;
			if ((fd = dirent_fd(d->d_name)) < 0)
				continue;
			if ((rv = walk_one(fw, fd, func, cd)) != 0)
				return (rv);
		}
	}
	/* A target that exited part-way is not a complete walk. */
	if (Pexited(P)) {
		errno = ESRCH;
		return (-1);
	}
	return (0);
}

int
Pfdinfo_iter_flags(struct ps_prochandle *P, int flags, proc_fdinfo_f *func,
    void *cd)
{
	fdwalk_t *fw;
	char *dents;
	int rv, e;

	fw = calloc(1, sizeof (*fw));
	dents = malloc(DENTS_BUFSZ);
	if (fw == NULL || dents == NULL ||
	    (fw->fw_fdinfo = malloc(sizeof (fdinfo_t))) == NULL) {
		if (fw != NULL)
			free(fw->fw_fdinfo);
		free(fw);
		free(dents);
		return (-1);
	}
	fw->fw_P = P;
	fw->fw_flags = flags;

	rv = walk_dents(fw, dents, func, cd);
	e = errno;
	fdrec_free(&fw->fw_rec);
	free(fw->fw_fdinfo);
	free(fw);
	free(dents);
	errno = e;
	return (rv);
}

int
Pfdinfo_iter(struct ps_prochandle *P, proc_fdinfo_f *func, void *cd)
{
	return (Pfdinfo_iter_flags(P, 0, func, cd));
}
