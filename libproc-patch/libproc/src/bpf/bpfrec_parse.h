/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bpfrec_parse.h: the decoding of the records that the BPF task-file
 * iterator (bpf/pfiles.bpf.c) writes, one per fd; see bpf/pfiles_bpf.h
 * for the layout.  Pure: no I/O, no allocation, no global state.
 *
 * bpfrec_parse() takes bytes of the record stream, checks the first
 * record there field by field (magic, version, size, every length and
 * count, the pads, the flags, the path's NUL and the zeros after it) and
 * decodes it into a bpfrec_t whose strings and addresses point into those
 * bytes (so they live as long as the caller's buffer).  Records vary in
 * size (the path's bytes, rounded up to 8, or a netlink socket's group
 * words; at most PFB_RECSIZE_MAX of bpf/pfiles_bpf.h, BPFREC_RECSIZE_MAX
 * here).  It returns the size of the
 * record consumed (its r_recsize), 0 when the bytes hold less than one
 * whole record (read more), or -1 when the record is malformed (with the
 * reason in br_err; the stream cannot be trusted past it).
 */
#ifndef	_BPFREC_PARSE_H
#define	_BPFREC_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sock/sockid.h"

#define	BPFREC_MAXLOCKS		8	/* PFB_MAXLOCKS */
#define	BPFREC_ADDR_MAX		128	/* PFB_ADDR_MAX */
#define	BPFREC_RECSIZE_MAX	4656	/* PFB_RECSIZE_MAX: the largest */
#define	BPFREC_NLGROUPS_MAX	64	/* PFB_NLGROUPS_MAX, SF_NLGROUPS_MAX */

/* br_have */
#define	BPFREC_STAT		0x0001
#define	BPFREC_FILE		0x0002
#define	BPFREC_LOCKS		0x0004	/* the kernel's locks were read */
#define	BPFREC_SOCK		0x0008	/* a socket */
#define	BPFREC_LOCKS_CUT	0x0010	/* br_locks_more is a floor */
#define	BPFREC_LOCKPID_GLOBAL	0x0020	/* lock pids: init pid ns numbers */
#define	BPFREC_OWNTABLE		0x0040	/* a thread's own table, not the
					   one /proc/PID/fd shows */
#define	BPFREC_SOCKFS		0x0080	/* a socket of sockfs: br_path is
					   "socket:[INO]", made here */

/* br_sock_have */
#define	BPFREC_S_SK		0x0001	/* type, family, protocol, options */
#define	BPFREC_S_LINGER		0x0002
#define	BPFREC_S_BUFS		0x0004
#define	BPFREC_S_PEERPID	0x0008
#define	BPFREC_S_PEERINO	0x0010
#define	BPFREC_S_STATE		0x0020	/* br_state */
#define	BPFREC_S_QUEUES		0x0040	/* br_rq, br_wq: pfiles_bpf.h says */
					/* what they count, by the socket */
#define	BPFREC_S_FIN		0x0080	/* TCP: a FIN was received */
#define	BPFREC_S_GROUPS		0x0100	/* br_groups, br_ngroups */

/* br_locks[].bl_kind: as libproc.h's PR_LOCK_* */
#define	BPFREC_LK_POSIX		1
#define	BPFREC_LK_OFD		2
#define	BPFREC_LK_FLOCK		3
#define	BPFREC_LK_OTHER		4

/* The booleans: as libproc.h's PR_SO_* bits. */
#define	BPFREC_SO_ALL		0x03ff

/* bpfrec_addr_t.ba_err when the iterator does not compute that family's */
#define	BPFREC_ENOTCOMPUTED	38	/* ENOSYS */

typedef struct bpfrec_lock {
	int		bl_kind;	/* BPFREC_LK_* */
	int		bl_type;	/* F_RDLCK, F_WRLCK, F_UNLCK (host's) */
	pid_t		bl_pid;		/* as fdinfo's lock: line; -1 OFD */
} bpfrec_lock_t;

typedef struct bpfrec_addr {
	int		ba_err;		/* 0, or the errno getname gives */
	size_t		ba_len;		/* bytes of ba_data, a sockaddr */
	const uint8_t	*ba_data;
} bpfrec_addr_t;

typedef struct bpfrec {
	uint32_t	br_have;	/* BPFREC_* */
	int		br_fd;
	pid_t		br_tgid;	/* reader's pid ns; 0 not seen there */

	/* BPFREC_STAT */
	uint32_t	br_mode;
	uint32_t	br_nlink;
	uint32_t	br_uid;
	uint32_t	br_gid;
	uint32_t	br_major, br_minor;	/* st_dev */
	uint32_t	br_rmajor, br_rminor;	/* st_rdev */
	uint64_t	br_ino;
	int64_t		br_size;

	/* BPFREC_FILE */
	uint32_t	br_fflags;	/* fdinfo flags:, O_CLOEXEC included */
	int		br_mnt_id;
	int64_t		br_pos;

	/* readlink(/proc/PID/fd/N), br_path_len bytes and a NUL; or */
	/* br_path_err */
	int		br_path_err;	/* errno, 0 when br_path holds it */
	const char	*br_path;	/* in the record, or br_sockpath */
	size_t		br_path_len;
	char		br_sockpath[32];	/* BPFREC_SOCKFS: socket:[INO] */
	/* An anonymous inode's NAME ("anon_inode:NAME", no type bits) */
	const char	*br_anon;
	size_t		br_anon_len;

	/* BPFREC_LOCKS */
	unsigned int	br_nlocks;
	unsigned int	br_locks_more;
	bpfrec_lock_t	br_locks[BPFREC_MAXLOCKS];

	/* BPFREC_SOCK */
	uint32_t	br_sock_have;	/* BPFREC_S_* */
	int		br_family, br_type, br_protocol;
	unsigned int	br_bools;	/* PR_SO_* bits on */
	unsigned int	br_bools_known;	/* PR_SO_* bits getsockopt answers */
	int		br_linger_on;
	uint64_t	br_lingertime;	/* jiffies: seconds * HZ */
	int		br_sndbuf, br_rcvbuf;
	pid_t		br_peer_pid;	/* SO_PEERCRED, 0 none */
	uint32_t	br_peer_ino;	/* its pidfs inode, 0 not known */
	bpfrec_addr_t	br_sockname;
	bpfrec_addr_t	br_peername;
	int		br_state;	/* sk_state (TCP_*, PR_SS_*) */
	uint32_t	br_rq, br_wq;
	/* A netlink socket's groups: br_ngroups words of 32, in the record */
	const uint8_t	*br_groups;
	unsigned int	br_ngroups;

	const char	*br_err;	/* why the record is malformed */
} bpfrec_t;

extern ssize_t bpfrec_parse(const void *, size_t, bpfrec_t *);

/*
 * The second program's records (struct pfb_ino of bpf/pfiles_bpf.h), all
 * BPFINO_SIZE bytes: bpfino_parse() checks one (magic, fd, flags, pads,
 * and that only the facts its flags name are there, an AF_INET socket's
 * ends v4 mapped) and decodes it into a psockid_t: 0, or -1 when it is
 * malformed (the reason in *whyp).
 */
#define	BPFINO_SIZE		80	/* PFB_INOSIZE */
extern int bpfino_parse(const void *, size_t, psockid_t *, const char **);
/* SO_LINGER's l_linger, given the kernel's HZ (> 0). */
extern int bpfrec_linger_secs(const bpfrec_t *, unsigned int);

#endif	/* _BPFREC_PARSE_H */
