/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pr_calls.c: illumos' pr_* wrappers, each a system call run in the
 * target through Psyscall() (and so through an agent made for the call
 * when the caller holds none).  With a NULL handle they act on the
 * calling process, as on illumos.  All return -1 with errno set on
 * failure: the call's own errno, or the reason it could not be made.
 *
 * Buffers: a by-reference object is at most MAXARGL bytes.  A larger
 * buffer is described as MAXARGL bytes, and the length handed to the
 * call says no more (marshal.c clamps it), so the target's kernel never
 * writes past what is read back.  A length that the target writes back
 * is at most the buffer's size: unlike a local getsockname(), a
 * truncated address is not announced by a larger *namelen.
 *
 * A buffer with a length that goes in and comes back (getsockopt's
 * optval, getsockname's name) is not the caller's object in the batch:
 * Psyscall copies a whole output object back, and the caller's length
 * may overstate its buffer, which a local getsockopt() forgives, for it
 * writes only the value.  So the call writes into a buffer of ours, and
 * only the bytes the call says it wrote go to the caller's (lencall).
 *
 * Arguments (libproc.3, ERRORS): the system call answers for its own
 * arguments, here and in the target alike; only a NULL object that the
 * C library declares nonnull, which may not reach it, gets the EFAULT
 * that the call would give without being made.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent/marshal.h"
#include "core/Pcontrol.h"

/* A by-reference argument; objects past MAXARGL are cut to it. */
static void
byref(argdes_t *a, void *obj, size_t size, int inout)
{
	argdes_byref(a, obj, size > MAXARGL ? MAXARGL : size, inout);
}

/*
 * An object the caller may leave out: by reference when there is one,
 * else a null pointer (the call then fails in the target as it would
 * here, with EFAULT where the object is required).
 */
static void
objarg(argdes_t *a, void *obj, size_t size, int inout)
{
	if (obj != NULL)
		byref(a, obj, size, inout);
	else
		argdes_byval(a, 0);
}

/* Run the call; its return value, or -1 with errno. */
static long
call(struct ps_prochandle *P, int nr, uint_t nargs, argdes_t *args)
{
	sysret_t rv;
	int err;

	if ((err = Psyscall(P, &rv, nr, nargs, args)) == -1)
		return (-1);		/* errno says why */
	if (err != 0) {
		errno = err;
		return (-1);
	}
	return (rv.sys_rval1);
}

/*
 * Run call nr, whose last two arguments are a buffer and its length
 * (in, and back), on buf and *lenp (4 bytes: an int or a socklen_t).
 * The target writes into a buffer of ours; on success, the length the
 * call gave back (at most the one given: marshal.c sees to that) goes to
 * *lenp and that many units (bytes, or marshal_optlen_unit's) to buf.
 * On failure neither is written.
 */
static int
lencall(struct ps_prochandle *P, int nr, argdes_t *a, uint_t nargs,
    void *buf, void *lenp)
{
	uint8_t bounce[MAXARGL];
	uint32_t len;
	size_t size = 0, unit = nr != SYS_getsockopt ? 1 :
	    marshal_optlen_unit(a[1].arg_value, a[2].arg_value);
	long r;

	if (lenp == NULL) {
		/* The call sees the NULLs and answers, as it would here. */
		argdes_byval(&a[nargs - 2], 0);
		argdes_byval(&a[nargs - 1], 0);
		return ((int)call(P, nr, nargs, a));
	}
	memcpy(&len, lenp, sizeof (len));
	if (buf != NULL) {
		if (len > MAXARGL / unit)
			len = (uint32_t)(MAXARGL / unit);
		size = (size_t)len * unit;
		argdes_byref(&a[nargs - 2], bounce, size, AI_OUTPUT);
	} else {
		argdes_byval(&a[nargs - 2], 0);	/* likewise */
	}
	argdes_byref(&a[nargs - 1], &len, sizeof (len), AI_INOUT);
	if ((r = call(P, nr, nargs, a)) != 0)
		return ((int)r);
	if (len > size / unit)	/* marshal.c clamps it; make sure */
		len = (uint32_t)(size / unit);
	if (len > 0)
		memcpy(buf, bounce, (size_t)len * unit);
	memcpy(lenp, &len, sizeof (len));
	return (0);
}

int
pr_getsockopt(struct ps_prochandle *P, int sock, int level, int optname,
    void *optval, int *optlen)
{
	argdes_t a[5];

	if (P == NULL) {
		socklen_t len = optlen != NULL ? (socklen_t)*optlen : 0;
		int r = getsockopt(sock, level, optname, optval,
		    optlen != NULL ? &len : NULL);

		if (r == 0 && optlen != NULL)
			*optlen = (int)len;
		return (r);
	}
	if (optlen != NULL && *optlen < 0) {
		errno = EINVAL;
		return (-1);
	}
	argdes_byval(&a[0], sock);
	argdes_byval(&a[1], level);
	argdes_byval(&a[2], optname);
	return (lencall(P, SYS_getsockopt, a, 5, optval, optlen));
}

typedef int local_name_f(int, struct sockaddr *, socklen_t *);

static int
sockname(struct ps_prochandle *P, int nr, local_name_f *local, int sock,
    struct sockaddr *name, socklen_t *namelen)
{
	argdes_t a[3];

	if (P == NULL)
		return (local(sock, name, namelen));
	argdes_byval(&a[0], sock);
	return (lencall(P, nr, a, 3, name, namelen));
}

int
pr_getsockname(struct ps_prochandle *P, int sock, struct sockaddr *name,
    socklen_t *namelen)
{
	return (sockname(P, SYS_getsockname, getsockname, sock, name,
	    namelen));
}

int
pr_getpeername(struct ps_prochandle *P, int sock, struct sockaddr *name,
    socklen_t *namelen)
{
	return (sockname(P, SYS_getpeername, getpeername, sock, name,
	    namelen));
}

/* The size of the object that fcntl command cmd takes by reference. */
static size_t
fcntl_objsize(int cmd)
{
	switch (cmd) {
	case F_GETLK:
	case F_SETLK:
	case F_SETLKW:
	case F_OFD_GETLK:
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
		return (sizeof (struct flock));
	case F_GETOWN_EX:
	case F_SETOWN_EX:
		return (sizeof (struct f_owner_ex));
#ifdef	F_GET_RW_HINT
	case F_GET_RW_HINT:
	case F_SET_RW_HINT:
	case F_GET_FILE_RW_HINT:
	case F_SET_FILE_RW_HINT:
		return (sizeof (uint64_t));
#endif
	default:
		return (0);	/* an int, or nothing: by value */
	}
}

int
pr_fcntl(struct ps_prochandle *P, int fd, int cmd, void *argp)
{
	size_t objsize = fcntl_objsize(cmd);
	argdes_t a[3];

	if (P == NULL)
		return (fcntl(fd, cmd, argp));
	argdes_byval(&a[0], fd);
	argdes_byval(&a[1], cmd);
	if (objsize != 0 && argp != NULL)
		byref(&a[2], argp, objsize, AI_INOUT);
	else
		argdes_byval(&a[2], (long)argp);
	return ((int)call(P, SYS_fcntl, 3, a));
}

int
pr_fstat(struct ps_prochandle *P, int fd, struct stat *sb)
{
	argdes_t a[2];

	if (P == NULL && sb == NULL) {
		/* fstat() is nonnull: the call's EBADF, else its EFAULT. */
		if (fcntl(fd, F_GETFD) != -1)
			errno = EFAULT;
		return (-1);
	}
	if (P == NULL)
		return (fstat(fd, sb));
	argdes_byval(&a[0], fd);
	objarg(&a[1], sb, sizeof (*sb), AI_OUTPUT);
	return ((int)call(P, SYS_fstat, 2, a));
}

off_t
pr_lseek(struct ps_prochandle *P, int fd, off_t offset, int whence)
{
	argdes_t a[3];

	if (P == NULL)
		return (lseek(fd, offset, whence));
	argdes_byval(&a[0], fd);
	argdes_byval(&a[1], (long)offset);
	argdes_byval(&a[2], whence);
	return ((off_t)call(P, SYS_lseek, 3, a));
}

int
pr_open(struct ps_prochandle *P, const char *path, int oflag, mode_t mode)
{
	size_t len;
	argdes_t a[4];

	/* Here too: open() is nonnull. */
	if (path == NULL) {
		errno = EFAULT;
		return (-1);
	}
	if (P == NULL)
		return (open(path, oflag, mode));
	if ((len = strlen(path) + 1) > MAXARGL) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	argdes_byval(&a[0], AT_FDCWD);
	/* The object is only read by the call: cast away const. */
	byref(&a[1], (void *)(uintptr_t)path, len, AI_INPUT);
	argdes_byval(&a[2], oflag);
	argdes_byval(&a[3], (long)mode);
	return ((int)call(P, SYS_openat, 4, a));
}

int
pr_close(struct ps_prochandle *P, int fd)
{
	argdes_t a[1];

	if (P == NULL)
		return (close(fd));
	argdes_byval(&a[0], fd);
	return ((int)call(P, SYS_close, 1, a));
}

int
pr_getrlimit(struct ps_prochandle *P, int resource, struct rlimit *rlp)
{
	argdes_t a[2];

	if (P == NULL && rlp == NULL) {
		/*
		 * getrlimit() is nonnull (and glibc's would succeed): the
		 * call's EINVAL for a resource out of range, else EFAULT.
		 */
		errno = (unsigned)resource >= RLIM_NLIMITS ? EINVAL : EFAULT;
		return (-1);
	}
	if (P == NULL)
		return (getrlimit(resource, rlp));
	argdes_byval(&a[0], resource);
	objarg(&a[1], rlp, sizeof (*rlp), AI_OUTPUT);
	return ((int)call(P, SYS_getrlimit, 2, a));
}
