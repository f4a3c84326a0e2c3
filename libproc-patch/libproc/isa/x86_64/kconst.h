/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kconst.h (x86_64): the kernel's constants that the BPF program (which
 * reads the kernel's own values) and user space (which prints them:
 * the formatter's flag names, the endpoints' TCP states) must agree on,
 * written once.  They are the kernel's numbers on this ISA, not the C
 * library's: x86_64 uses include/uapi/asm-generic/fcntl.h and
 * errno-base.h.  Names carry K_ so that they never meet libc's macros.
 * Included by the BPF program (clang -target bpf, for this machine's
 * kernel) and by C; chosen by the Makefile (-I isa/$(ISA)).
 */
#ifndef	_KCONST_H
#define	_KCONST_H

#if !defined(__x86_64__) && !defined(__bpf__)
#error "isa/x86_64/kconst.h holds x86_64's kernel constants only"
#endif

/* include/uapi/asm-generic/fcntl.h: an open file's f_flags */
#define	K_O_ACCMODE	00000003
#define	K_O_APPEND	00002000
#define	K_O_NONBLOCK	00004000
#define	K_O_DSYNC	00010000
#define	K_O_ASYNC	00020000	/* FASYNC */
#define	K_O_DIRECT	00040000
#define	K_O_LARGEFILE	00100000
#define	K_O_DIRECTORY	00200000
#define	K_O_NOFOLLOW	00400000
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

#endif	/* _KCONST_H */
