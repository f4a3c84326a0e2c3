/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_ring.h: many getsockopt(2) calls, and the ioctls SIOCINQ and
 * SIOCOUTQ, in one system call, through io_uring's
 * SOCKET_URING_OP_GETSOCKOPT (Linux 6.7 and later; SOL_SOCKET options
 * only), SOCKET_URING_OP_SIOCINQ and SOCKET_URING_OP_SIOCOUTQ.  Where the
 * ring cannot serve -- no io_uring, or kernel.io_uring_disabled, or a
 * seccomp filter that refuses it, or a kernel whose sockets take no
 * io_uring command, or an option of another level -- each is asked with
 * getsockopt(2) or ioctl(2), silently: the answer is the same either way.
 * Not installed.
 */
#ifndef	_SOCK_RING_H
#define	_SOCK_RING_H

#include <stddef.h>
#include <sys/socket.h>

/*
 * One option of one socket; or, with sr_level SOCKRING_IOCTL, the ioctl
 * sr_name (SIOCINQ or SIOCOUTQ), whose int answer goes to sr_val (sr_len
 * sizeof (int)).
 */
#define	SOCKRING_IOCTL	(-1)

typedef struct sockopt_req {
	int		sr_fd;
	int		sr_family;	/* the socket's, or -1 when not known */
	int		sr_level;
	int		sr_name;
	void		*sr_val;
	socklen_t	sr_len;		/* in: its room; out: the length given
					   (getsockopt's, which may be more) */
	int		sr_err;		/* out: 0, or the call's errno */
} sockopt_req_t;

/*
 * Ask every request, as getsockopt(2) or ioctl(2) would answer it:
 * through this thread's ring (made at its first use, let go when the
 * thread exits) where it serves, else one call each.  Safe from several
 * threads.
 */
extern void sockring_ask(sockopt_req_t *, size_t);

/*
 * Close the n fds, through this thread's ring in one system call where it
 * serves, else with close(2) each.  For fds whose last close cannot
 * wait (sock_close.c decides which).
 */
extern void sockring_close(const int *, size_t);

/*
 * Does the ring serve options of sockets of this family, as far as is
 * known?  1 until it is seen not to (for the budget tests and the
 * trace); -1 when io_uring itself is not to be had.
 */
extern int sockring_serves(int);

#endif	/* _SOCK_RING_H */
