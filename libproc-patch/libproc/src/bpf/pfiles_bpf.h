/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * pfiles_bpf.h: the record that the BPF task-file iterator (pfiles.bpf.c)
 * writes for every fd of the target, one after another, with
 * bpf_seq_write(); shared by the BPF program and user space
 * (bpfrec_parse.c).
 *
 * A record is its fixed part (PFB_RECFIXED bytes, every field before
 * r_path) and then the path's bytes, its NUL and zeros up to the next
 * multiple of 8: PFB_RECSIZE(r_path_len) bytes, from PFB_RECFIXED + 8 to
 * PFB_RECSIZE_MAX (sizeof (struct pfb_rec)).  A netlink socket's (a
 * socket of sockfs, whose path is empty) is followed by its group words,
 * r_ngroups of them, and zeros up to the next multiple of 8:
 * PFB_RECSIZE(0) + PFB_GROUPS_SIZE(r_ngroups).  It starts with PFB_MAGIC,
 * PFB_VERSION and its size, r_recsize; the next record starts right
 * after it.  Only fixed-width types, every field at its natural
 * alignment and every hole an explicit pad (zero), so that the layout is
 * the same for clang -target bpf and for the host's C compiler on a
 * little-endian 64-bit machine (the record is in the kernel's byte order:
 * it never leaves the machine).
 *
 * Include <linux/types.h> (user space) or vmlinux.h (BPF) first.
 */
#ifndef	_PFILES_BPF_H
#define	_PFILES_BPF_H

#define	PFB_MAGIC	0x31424650U	/* "PFB1" in memory order */
#define	PFB_VERSION	3	/* 1: every record PFB_RECSIZE_MAX bytes; */
				/* 2: no state, queues or netlink groups */

#define	PFB_PATH_MAX	4096	/* PATH_MAX: what readlink of /proc/PID/fd/N */
				/* can give, NUL included */
#define	PFB_MAXLOCKS	8	/* locks kept per fd; the rest are counted */
#define	PFB_LOCKWALK	64	/* list entries looked at per lock list */
#define	PFB_ADDR_MAX	128	/* sizeof (struct sockaddr_storage) */
#define	PFB_NLGROUPS_MAX 64	/* netlink group words kept (32 groups */
				/* each): SF_NLGROUPS_MAX */
#define	PFB_QWALK	64	/* receive queue entries summed per socket */

/*
 * The second program (pfiles_sock_inodes) writes only this, one per
 * socket of the table /proc/PID/fd shows (not an O_PATH one), for the
 * endpoints (endpoint.c), before the walk; without a pid filter, of every
 * process, each record then saying whose (the holders of a run): the socket's inode, and what
 * tells where its other end is: whether it is in the process's network
 * namespace, its family, protocol and TCP state; a unix socket's peer's
 * inode; an inet socket's two ends as getsockname and getpeername give
 * them.
 */
#define	PFB_INO_MAGIC	0x34494250	/* "PBI4" (2: i_netns an inode; */
					/* 3: i_tgid) */

/* i_have */
#define	PFB_I_OWNNET	0x0001	/* i_ownnet */
#define	PFB_I_PROTO	0x0002	/* i_family, i_protocol, i_state */
#define	PFB_I_UNIXPEER	0x0004	/* i_peer_ino: sock_i_ino(unix_peer(sk)), */
				/* 0 when it has none or it has no inode */
#define	PFB_I_ENDS	0x0008	/* i_own, i_peer and their ports: */
				/* getpeername would succeed */
#define	PFB_I_ALL	0x000f

struct pfb_ino {
	__u32	i_magic;	/* PFB_INO_MAGIC */
	__s32	i_fd;
	__u64	i_ino;
	__u32	i_have;		/* PFB_I_* */
	__u32	i_ownnet;	/* 1: its network namespace is the */
				/* process's (its main thread's), 0: not */
	__u16	i_family;	/* SO_DOMAIN */
	__u16	i_protocol;	/* SO_PROTOCOL */
	__u8	i_state;	/* sk_state (TCP_*) */
	__u8	i_pad0[3];
	__u64	i_peer_ino;
	__u8	i_own[16];	/* IPv6; an AF_INET socket's v4 mapped */
	__u8	i_peer[16];
	__u16	i_own_port;	/* network order */
	__u16	i_peer_port;
	__s32	i_tgid;		/* its process, in the reader's pid */
				/* namespace; 0: not seen there */
};

#define	PFB_INOSIZE	80	/* sizeof (struct pfb_ino) */

/* r_have: which groups of facts the record holds. */
#define	PFB_H_STAT	0x0001	/* r_mode ... r_nlink */
#define	PFB_H_FILE	0x0002	/* r_fflags, r_pos, r_mnt_id */
#define	PFB_H_LOCKS	0x0004	/* r_locks, r_nlocks, r_locks_more */
#define	PFB_H_SOCK	0x0008	/* the socket part */
#define	PFB_H_LOCKS_CUT	0x0010	/* a lock list was longer than */
				/* PFB_LOCKWALK: r_locks_more is a floor */
#define	PFB_H_LOCKPID_GLOBAL 0x0020 /* lock pids are init_pid_ns numbers */
				/* (the reader is in another pid ns) */
#define	PFB_H_OWNTABLE	0x0040	/* the fd is in a table of a thread of its
				   own (unshare CLONE_FILES), not in the
				   one /proc/PID/fd shows */
#define	PFB_H_SOCKFS	0x0080	/* a socket of sockfs: its path is
				   "socket:[" r_ino "]" (sockfs_dname()),
				   not in r_path (r_path_len 0) */

/* pfb_lock.l_kind, as the words of fdinfo's lock: lines. */
#define	PFB_LK_POSIX	1
#define	PFB_LK_OFD	2
#define	PFB_LK_FLOCK	3
#define	PFB_LK_OTHER	4	/* LEASE, DELEG, ACCESS, UNKNOWN */

/* pfb_lock.l_type: the kernel's F_RDLCK, F_WRLCK, F_UNLCK. */
#define	PFB_F_RDLCK	0
#define	PFB_F_WRLCK	1
#define	PFB_F_UNLCK	2

struct pfb_lock {
	__u32	l_kind;		/* PFB_LK_* */
	__u32	l_type;		/* PFB_F_* */
	__s32	l_pid;		/* as fdinfo prints it: -1 for OFD, <= 0 */
				/* remote, else the owner */
	__u32	l_flags;	/* the kernel's flc_flags */
};

/* Bits of r_bools and r_bools_known, in the order pfiles prints them. */
#define	PFB_SO_DEBUG		0x0001
#define	PFB_SO_REUSEADDR	0x0002
#define	PFB_SO_KEEPALIVE	0x0004
#define	PFB_SO_DONTROUTE	0x0008
#define	PFB_SO_BROADCAST	0x0010
#define	PFB_SO_OOBINLINE	0x0020
#define	PFB_SO_REUSEPORT	0x0040
#define	PFB_SO_PASSCRED		0x0080
#define	PFB_SO_ACCEPTCONN	0x0100
#define	PFB_TCP_NODELAY		0x0200
#define	PFB_SO_ALL		0x03ff

/* pfb_addr.a_err when getname was not computed for this family. */
#define	PFB_ENOTCOMPUTED	(-38)	/* -ENOSYS */

/*
 * An address as getsockname(2)/getpeername(2) would return it inside the
 * target: a_len bytes of a_data (a struct sockaddr_*), or a_err (-errno)
 * when the call would fail.
 */
struct pfb_addr {
	__s32	a_err;		/* 0, or -ENOTCONN, -EOPNOTSUPP, ... */
	__u32	a_len;		/* <= PFB_ADDR_MAX */
	__u8	a_data[PFB_ADDR_MAX];
};

/* r_sock_have: which socket facts are known. */
#define	PFB_S_SK	0x0001	/* the socket has a struct sock */
#define	PFB_S_LINGER	0x0002	/* r_linger_on, r_lingertime */
#define	PFB_S_BUFS	0x0004	/* r_sndbuf, r_rcvbuf */
#define	PFB_S_PEERPID	0x0008	/* r_peer_pid (SO_PEERCRED) */
#define	PFB_S_PEERINO	0x0010	/* r_peer_ino: that pid's pidfs inode */
#define	PFB_S_STATE	0x0020	/* r_state: sk_state (TCP_*) */
#define	PFB_S_QUEUES	0x0040	/* r_rq, r_wq (below) */
#define	PFB_S_FIN	0x0080	/* a FIN was received (SOCK_DONE): of */
				/* TCP, with PFB_S_QUEUES */
#define	PFB_S_GROUPS	0x0100	/* r_ngroups netlink group words follow */
				/* the path */

/*
 * r_rq and r_wq, with PFB_S_QUEUES, by the kind of socket:
 *  - a listener (r_state TCP_LISTEN; TCP, unix stream or seqpacket): the
 *    connections waiting to be accepted (TCP sk_ack_backlog; unix, its
 *    receive queue's length) and the limit (sk_max_ack_backlog);
 *  - TCP otherwise: the kernel's raw counters, rcv_nxt - copied_seq (an
 *    unread FIN counted) and write_seq - snd_una, which sockfacts_tcp()
 *    turns into what SIOCINQ and SIOCOUTQ say;
 *  - unix otherwise: SIOCINQ (unix_inq_len()) and SIOCOUTQ
 *    (sk_wmem_alloc - 1);
 *  - inet datagram and raw: sk_rmem_alloc and sk_wmem_alloc - 1, as
 *    SO_MEMINFO gives them.
 */

struct pfb_rec {
	/* 0: header */
	__u32	r_magic;	/* PFB_MAGIC */
	__u16	r_version;	/* PFB_VERSION */
	__u16	r_recsize;	/* this record's: PFB_RECSIZE(r_path_len) */
	__u32	r_have;		/* PFB_H_* */
	__s32	r_fd;
	__s32	r_tgid;		/* the task's, in the reader's pid ns */
	__u32	r_pad0;

	/* 24: the inode, as stat(2) gives it */
	__u32	r_mode;
	__u32	r_nlink;
	__u32	r_uid;		/* in the initial user ns */
	__u32	r_gid;
	__u32	r_dev_major;	/* of the superblock's s_dev */
	__u32	r_dev_minor;
	__u32	r_rdev_major;
	__u32	r_rdev_minor;
	__u64	r_ino;
	__s64	r_size;		/* st_size */

	/* 72: the open file, as /proc/PID/fdinfo/N gives it */
	__u32	r_fflags;	/* flags:, O_CLOEXEC included */
	__s32	r_mnt_id;
	__s64	r_pos;

	/* 88: the path, as readlink(/proc/PID/fd/N) gives it */
	__s32	r_path_err;	/* 0, or -errno of d_path */
	__u32	r_path_len;	/* bytes in r_path, no NUL */

	/* 96: locks held through the file */
	__u32	r_nlocks;	/* in r_locks, <= PFB_MAXLOCKS */
	__u32	r_locks_more;	/* found beyond those */
	struct pfb_lock r_locks[PFB_MAXLOCKS];

	/* 232: the socket */
	__u32	r_sock_have;	/* PFB_S_* */
	__u16	r_family;	/* SO_DOMAIN */
	__u16	r_type;		/* SO_TYPE */
	__u32	r_protocol;	/* SO_PROTOCOL */
	__u32	r_bools;	/* PFB_SO_*: on */
	__u32	r_bools_known;	/* PFB_SO_*: getsockopt would succeed */
	__u8	r_linger_on;	/* SO_LINGER l_onoff */
	__u8	r_state;	/* PFB_S_STATE: sk_state */
	__u16	r_ngroups;	/* PFB_S_GROUPS: words, <= PFB_NLGROUPS_MAX */
	__u64	r_lingertime;	/* sk_lingertime, jiffies: l_linger * HZ */
	__s32	r_sndbuf;	/* SO_SNDBUF */
	__s32	r_rcvbuf;	/* SO_RCVBUF */
	__s32	r_peer_pid;	/* SO_PEERCRED pid, reader's pid ns */
	__u32	r_peer_ino;	/* its struct pid's inode (pidfs), < 2^32 */
	__u32	r_rq;		/* PFB_S_QUEUES: to read, or waiting */
	__u32	r_wq;		/* to send, or the backlog's limit */
	struct pfb_addr r_sockname;
	struct pfb_addr r_peername;

	/*
	 * 560: the path's bytes, its NUL, zeros to a multiple of 8; a
	 * netlink socket's group words after them (PFB_GROUPS_AT)
	 */
	char	r_path[PFB_PATH_MAX];
};

#define	PFB_RECFIXED	560	/* offsetof (struct pfb_rec, r_path) */
#define	PFB_RECSIZE_MAX	4656	/* sizeof (struct pfb_rec) */
/* The size of a record whose path is len bytes long (NUL not counted). */
#define	PFB_RECSIZE(len)	(PFB_RECFIXED + (((len) + 8) & ~7U))
/*
 * A netlink socket's group words: at PFB_GROUPS_AT in r_path, after the
 * empty path's NUL and zeros; n words take PFB_GROUPS_SIZE(n) bytes.
 */
#define	PFB_GROUPS_AT	8
#define	PFB_GROUPS_SIZE(n)	((((n) * 4U) + 7) & ~7U)

#endif	/* _PFILES_BPF_H */
