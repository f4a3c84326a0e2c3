/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kconst_generic.h: the kernel constants of isa/ISA/kconst.h that are the
 * same on every ISA the agent knows (asm-generic and the kernel's own
 * headers): included by each ISA's kconst.h, never directly.
 */
#ifndef	_KCONST_GENERIC_H
#define	_KCONST_GENERIC_H

/*
 * include/uapi/asm-generic/fcntl.h: an open file's f_flags, but for
 * O_DIRECTORY, O_NOFOLLOW, O_DIRECT and O_LARGEFILE (each ISA's kconst.h)
 */
#define	K_O_ACCMODE	00000003
#define	K_O_APPEND	00002000
#define	K_O_NONBLOCK	00004000
#define	K_O_DSYNC	00010000
#define	K_O_ASYNC	00020000	/* FASYNC */
#define	K_O_NOATIME	01000000
#define	K_O_CLOEXEC	02000000
#define	K_O_SYNC_BIT	04000000	/* __O_SYNC */
#define	K_O_PATH	010000000
#define	K_O_TMPFILE_BIT	020000000	/* __O_TMPFILE */

/* include/uapi/linux/stat.h */
#define	K_S_IFMT	00170000
#define	K_S_IFSOCK	0140000

/* include/linux/filelock.h: a lock's flc_flags and type */
#define	K_FL_POSIX	1
#define	K_FL_FLOCK	2
#define	K_FL_DELEG	4
#define	K_FL_ACCESS	8
#define	K_FL_LEASE	32
#define	K_FL_DOWNGRADE_PENDING	256
#define	K_FL_UNLOCK_PENDING	512
#define	K_FL_OFDLCK	1024
#define	K_FL_LAYOUT	2048
#define	K_F_RDLCK	0
#define	K_F_WRLCK	1
#define	K_F_UNLCK	2

/* include/linux/socket.h, include/linux/net.h */
#define	K_AF_UNIX	1
#define	K_AF_INET	2
#define	K_AF_INET6	10
#define	K_AF_NETLINK	16
#define	K_AF_PACKET	17
#define	K_AF_BLUETOOTH	31
#define	K_SOCK_STREAM	1
#define	K_SOCK_DGRAM	2
#define	K_SOCK_RAW	3
#define	K_SOCK_SEQPACKET	5
#define	K_SOCK_PACKET	10
#define	K_IPPROTO_TCP	6
#define	K_SOCK_PASSCRED	3	/* socket->flags' bit, before 6.16 */

/* include/net/tcp_states.h, include/linux/tcp.h */
#define	K_TCP_ESTABLISHED	1
#define	K_TCP_SYN_SENT		2
#define	K_TCP_FIN_WAIT1		4
#define	K_TCP_FIN_WAIT2		5
#define	K_TCP_CLOSE		7
#define	K_TCP_CLOSE_WAIT	8
#define	K_TCP_LAST_ACK		9
#define	K_TCP_LISTEN		10
#define	K_TCP_CLOSING		11
#define	K_TCP_NAGLE_OFF		1

/* include/uapi/asm-generic/errno*.h */
#define	K_ENOSYS	38
#define	K_EOPNOTSUPP	95
#define	K_ENOTCONN	107

/* include/linux/pid_namespace.h, include/linux/kdev_t.h */
#define	K_MAX_PID_NS_LEVEL	32
#define	K_MINORBITS	20
#define	K_MINORMASK	((1U << K_MINORBITS) - 1)

/* include/linux/proc_ns.h: the initial pid namespace's inode number */
#define	K_PROC_PID_INIT_INO	0xEFFFFFFCU

#endif	/* _KCONST_GENERIC_H */
