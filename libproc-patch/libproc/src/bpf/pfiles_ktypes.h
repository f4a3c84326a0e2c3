/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * pfiles_ktypes.h: the kernel's types, as much of each as pfiles.bpf.c
 * reads, declared here so that building the program depends on nothing
 * of the build machine's kernel.  Every struct is relocated at load
 * (CO-RE, preserve_access_index): the running kernel resolves each
 * member by its name in its own BTF, wherever it is in the kernel's
 * struct (inside anonymous unions and structs too), so a member is
 * declared here flat, with the kernel's C type and size (a load's size
 * is the local type's), in any order.
 *
 * What differs between the kernels pfiles supports (6.1 and later) is
 * declared in flavours, a struct whose name is the kernel's plus
 * "___suffix" (the suffix is dropped when matching); the program asks
 * bpf_core_field_exists() which one the running kernel has:
 *
 *   sock___scm		sk_scm_credentials (6.16 and later: SO_PASSCRED
 *			moved from socket->flags to the sock)
 *   file_lock_core___new  the lock's common part (6.9 and later)
 *   file_lock___old	the lock with its fl_* members (before 6.9)
 *   pid___ino		the pid's pidfs inode (6.9 and later)
 *   unix_sock___inq	inq_len, the bytes a unix stream socket has to
 *			read, which SIOCINQ gives (6.17 and later; before,
 *			the receive queue is summed)
 *
 * The build check (kernels/btfcheck.sh) compiles the program with
 * PFB_VMLINUX_H naming a vmlinux.h made from a kernel's BTF: then the
 * kernel's own declarations replace the ones below, and every member the
 * program uses unconditionally must exist there with a compatible type.
 * The flavours are ours in both builds.
 */
#ifndef	_PFILES_KTYPES_H
#define	_PFILES_KTYPES_H

#ifdef	PFB_VMLINUX_H
#include PFB_VMLINUX_H
#else	/* !PFB_VMLINUX_H */

typedef unsigned char		__u8;
typedef signed char		__s8;
typedef unsigned short		__u16;
typedef short			__s16;
typedef unsigned int		__u32;
typedef int			__s32;
typedef unsigned long long	__u64;
typedef long long		__s64;
typedef __u16			__be16;
typedef __u32			__be32;
typedef __u32			__wsum;

/* include/uapi/linux/bpf.h: the map types the program makes */
enum bpf_map_type {
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
};

typedef __u32			dev_t;
typedef __u16			umode_t;
typedef long long		loff_t;
typedef int			pid_t;

#pragma clang attribute push (__attribute__((preserve_access_index)), \
	apply_to = record)

typedef struct { __u32 val; } kuid_t;
typedef struct { __u32 val; } kgid_t;
typedef struct { int counter; } atomic_t;
typedef struct refcount_struct { atomic_t refs; } refcount_t;

struct list_head {
	struct list_head	*next;
	struct list_head	*prev;
};

struct seq_file;
struct pid_namespace;
struct net;
struct dentry;

/* include/linux/bpf.h: the iterator's context (DEFINE_BPF_ITER_FUNC) */
struct bpf_iter_meta {
	struct seq_file		*seq;
	__u64			session_id;
	__u64			seq_num;
};

struct bpf_iter__task_file {
	struct bpf_iter_meta	*meta;
	struct task_struct	*task;
	__u32			fd;
	struct file		*file;
};

/* include/linux/pid.h */
struct upid {
	int			nr;
	struct pid_namespace	*ns;
};

struct pid {
	unsigned int		level;
	struct upid		numbers[];
};

/* include/linux/nsproxy.h */
struct nsproxy {
	struct net		*net_ns;
};

/* include/linux/sched.h */
struct task_struct {
	struct task_struct	*group_leader;
	struct pid		*thread_pid;
	struct files_struct	*files;
	struct nsproxy		*nsproxy;
};

/* include/linux/fdtable.h */
struct fdtable {
	unsigned int		max_fds;
	unsigned long		*close_on_exec;
};

struct files_struct {
	struct fdtable		*fdt;
};

/* include/linux/mount.h, fs/mount.h */
struct vfsmount {
	struct dentry		*mnt_root;
};

struct mount {
	struct vfsmount		mnt;
	int			mnt_id;
};

/* include/linux/path.h, include/linux/fs.h */
struct path {
	struct vfsmount		*mnt;
	struct dentry		*dentry;
};

struct super_block {
	dev_t			s_dev;
};

struct file_lock_context {
	struct list_head	flc_flock;
	struct list_head	flc_posix;
	struct list_head	flc_lease;
};

struct inode {
	umode_t			i_mode;
	kuid_t			i_uid;
	kgid_t			i_gid;
	struct super_block	*i_sb;
	unsigned long		i_ino;
	unsigned int		__i_nlink;
	dev_t			i_rdev;
	loff_t			i_size;
	struct file_lock_context *i_flctx;
};

struct file {
	struct path		f_path;
	struct inode		*f_inode;
	unsigned int		f_flags;
	loff_t			f_pos;
};

/* include/linux/net.h, include/net/sock.h */
struct socket {
	unsigned long		flags;
	struct sock		*sk;
};

struct socket_alloc {
	struct socket		socket;
	struct inode		vfs_inode;
};

typedef struct {
	struct net		*net;
} possible_net_t;

struct in6_addr {
	__u8			s6_addr[16];
};

struct sock_common {
	__be32			skc_daddr;
	__be32			skc_rcv_saddr;
	__be16			skc_dport;
	unsigned short		skc_family;
	volatile unsigned char	skc_state;
	unsigned char		skc_reuse:4;
	unsigned char		skc_reuseport:1;
	possible_net_t		skc_net;
	struct in6_addr		skc_v6_daddr;
	struct in6_addr		skc_v6_rcv_saddr;
	unsigned long		skc_flags;
};

/* include/linux/skbuff.h */
struct sk_buff {
	struct sk_buff		*next;
	unsigned int		len;
	char			cb[48];
};

struct sk_buff_head {
	struct sk_buff		*next;
	struct sk_buff		*prev;
	__u32			qlen;
};

struct sock {
	struct sock_common	__sk_common;
	struct sk_buff_head	sk_receive_queue;
	struct {
		atomic_t	rmem_alloc;	/* sk_rmem_alloc */
	}			sk_backlog;
	int			sk_rcvbuf;
	refcount_t		sk_wmem_alloc;
	int			sk_sndbuf;
	__u16			sk_type;
	__u16			sk_protocol;
	unsigned long		sk_lingertime;
	__u32			sk_ack_backlog;
	__u32			sk_max_ack_backlog;
	struct pid		*sk_peer_pid;
	struct socket		*sk_socket;
};

enum sock_flags {
	SOCK_DONE,
	SOCK_URGINLINE,
	SOCK_KEEPOPEN,
	SOCK_LINGER,
	SOCK_BROADCAST,
	SOCK_DBG,
	SOCK_LOCALROUTE,
};

/* include/net/inet_sock.h, include/linux/tcp.h */
struct ipv6_pinfo {
	struct in6_addr		saddr;
};

struct inet_sock {
	struct sock		sk;
	struct ipv6_pinfo	*pinet6;
	__be32			inet_saddr;
	__be16			inet_sport;
};

struct tcp_sock {
	__u8			nonagle:4;
	__u32			rcv_nxt;
	__u32			copied_seq;
	__u32			write_seq;
	__u32			snd_una;
};

/* include/net/af_unix.h */
struct sockaddr_un {
	unsigned short		sun_family;
	char			sun_path[108];
};

struct unix_address {
	int			len;
	struct sockaddr_un	name[];
};

struct unix_sock {
	struct sock		sk;
	struct unix_address	*addr;
	struct sock		*peer;
};

/* UNIXCB(skb): an skb's cb of a unix socket */
struct unix_skb_parms {
	__u32			consumed;
};

/* net/netlink/af_netlink.h */
struct netlink_sock {
	struct sock		sk;
	__u32			portid;
	__u32			dst_portid;
	__u32			dst_group;
	__u32			ngroups;
	unsigned long		*groups;
};

/* net/packet/internal.h */
struct packet_sock {
	struct sock		sk;
	int			ifindex;
	__be16			num;
};

#pragma clang attribute pop

#endif	/* PFB_VMLINUX_H */

/*
 * The flavours: what one kernel has and another has not.  Ours in both
 * builds, so that the program compiles whichever kernel's vmlinux.h it
 * is checked against.
 */
#pragma clang attribute push (__attribute__((preserve_access_index)), \
	apply_to = record)

/* 6.16 and later: SO_PASSCRED is the sock's (sk_may_scm_recv() families) */
struct sock___scm {
	__u8			sk_scm_credentials:1;
};

/* 6.9 and later: pidfs, an inode of its own for each process's pid */
struct pid___ino {
	__u64			ino;
};

/* 6.17 and later: what a unix stream socket has to read, kept */
struct unix_sock___inq {
	int			inq_len;
};

/* 6.9 and later: a lock's common part, in every kind of lock */
struct file_lock_core___new {
	struct list_head	flc_list;
	void			*flc_owner;
	unsigned int		flc_flags;
	unsigned char		flc_type;
	int			flc_pid;
	struct file		*flc_file;
};

/* before 6.9: struct file_lock itself */
struct file_lock___old {
	struct list_head	fl_list;
	void			*fl_owner;
	unsigned int		fl_flags;
	unsigned char		fl_type;
	unsigned int		fl_pid;
	struct file		*fl_file;
};

#pragma clang attribute pop

#endif	/* _PFILES_KTYPES_H */
