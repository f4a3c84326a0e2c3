/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * expect.h: the pfiles text a sockfix process must produce, computed from
 * sockfix's manifest (its own view of its fds, see fixtures/sockfix.c) by
 * the rules of the output contract, the manual page pfiles(1)
 * (libproc-patch/pfiles/pfiles.1).
 *
 * This is an independent reading of the contract: it shares no code with
 * pfiles, so that a test compares two implementations, not one with
 * itself.
 */
#ifndef	_EXPECT_H
#define	_EXPECT_H

#include <stddef.h>
#include <sys/types.h>

/* Socket options as the manifest names them, in pfiles' print order. */
enum mf_opt {
	MF_SO_DEBUG, MF_SO_REUSEADDR, MF_SO_KEEPALIVE, MF_SO_DONTROUTE,
	MF_SO_BROADCAST, MF_SO_OOBINLINE, MF_SO_REUSEPORT, MF_SO_PASSCRED,
	MF_SO_ACCEPTCONN, MF_TCP_NODELAY, MF_SO_SNDBUF, MF_SO_RCVBUF,
	MF_NOPTS
};

#define	MF_ADDR_MAX	128	/* bytes kept of an address */
#define	MF_MAX_LOCKS	4
#define	MF_MAX_PAIRS	64
#define	MF_MAX_GROUPS	32	/* netlink groups of one socket */
#define	MF_MAX_HOLDERS	16	/* "holder" lines */
#define	MF_IFNAME_MAX	16

typedef struct mf_val {
	int	v_known;	/* 1: value holds; 0: absent or an error */
	int	v_value;
} mf_val_t;

typedef struct mf_addr {
	int		a_known;	/* 0: the call failed */
	size_t		a_len;
	unsigned char	a_bytes[MF_ADDR_MAX];
} mf_addr_t;

typedef struct mf_fd {
	int		f_fd;
	char		f_kind[32];
	unsigned	f_mode;
	unsigned	f_devmaj, f_devmin, f_rdevmaj, f_rdevmin;
	unsigned long long f_ino;
	unsigned	f_uid, f_gid;
	long long	f_size;
	unsigned	f_getfl;
	int		f_getfd;
	int		f_has_offset;	/* lseek succeeded */
	long long	f_offset;
	char		*f_link;	/* NULL when readlink failed */
	int		f_nlocks;
	struct {
		int	l_write;
		int	l_pid;
	}		f_locks[MF_MAX_LOCKS];
	int		f_is_socket;	/* a "socket" line was seen */
	int		f_type, f_protocol, f_domain;
	mf_val_t	f_opt[MF_NOPTS];
	int		f_linger_known, f_linger_onoff, f_linger_secs;
	mf_addr_t	f_sockname, f_peername;
	int		f_cred_known;
	int		f_cred_pid;
	int		f_ss_known;	/* a "sockstate" line was seen: */
	int		f_ss_state;	/* the kernel's state number */
	int		f_ss_backlog;	/* "backlog" (else "queued") */
	unsigned	f_ss_a, f_ss_b;	/* to read, to send; waiting, limit */
	int		f_ngroups;	/* netlink groups; -1: no line */
	unsigned	f_groups[MF_MAX_GROUPS];	/* numbers, from 1 */
	char		f_ifname[MF_IFNAME_MAX + 1];	/* "" : no line */
} mf_fd_t;

/* Another process's fd on a socket of the fixture's ("holder"). */
typedef struct mf_holder {
	int		h_pfd;		/* the fixture's fd on that socket */
	pid_t		h_pid;
	int		h_fd;
	char		h_comm[17];
} mf_holder_t;

typedef struct manifest {
	pid_t		m_pid;
	char		m_comm[17];
	char		*m_cmdline;	/* argv bytes, NULs included */
	size_t		m_cmdlen;
	unsigned long long m_rlim_cur, m_rlim_max;
	char		m_skipped[512];	/* "SET ERRNO\n" lines */
	int		m_pairs[MF_MAX_PAIRS][2];	/* "pair FD1 FD2" */
	size_t		m_npairs;
	mf_holder_t	m_holders[MF_MAX_HOLDERS];
	size_t		m_nholders;
	mf_fd_t		*m_fds;
	size_t		m_nfds;
} manifest_t;

/*
 * Parse a manifest (the text before "end").  Returns NULL with a
 * message in err on a malformed manifest.
 */
manifest_t	*mf_parse(const char *text, char *err, size_t errlen);
void		mf_free(manifest_t *);

/* The first fd of the given kind, or NULL. */
const mf_fd_t	*mf_find_kind(const manifest_t *, const char *kind);

/* The errno with which set name was skipped, or 0 when it was not. */
int		mf_skipped(const manifest_t *, const char *name);

/* The manifest's names of the options, in mf_opt_t's order. */
extern const char *const mf_opt_names[MF_NOPTS];

/*
 * Text from the target through the contract's rule (pfiles.1, "Text
 * from the target"), written apart from pfiles' own: the n bytes at src,
 * cut at width bytes (SIZE_MAX: no cut) where a unit ends.  Returns a
 * malloc'd NUL-terminated string, its length in *lenp (when not NULL);
 * aborts when out of memory.
 */
char		*exp_escape(const void *src, size_t n, size_t width,
		    size_t *lenp);

/* expect_pfiles() flags. */
#define	EXP_NFLAG	0x1	/* pfiles -n */
#define	EXP_DIAG	0x2	/* pfiles --via=diag: only the facts the */
				/* kernel's socket tables give (below) */

/*
 * --via=diag (pfiles.1, "diag"): of the socket facts, only the type,
 * SO_ACCEPTCONN, SO_SNDBUF, SO_RCVBUF, the sockname and peername lines
 * and the endpoint lines (from the kernel's tables, with every source)
 * are shown; the other booleans, TCP_NODELAY, SO_LINGER and the
 * peer line (SO_PEERCRED) are not, nor the peername of a unix socket
 * whose peer no fd holds (a client its listener has not accepted: the
 * tables find a peer's name by its inode, and a socket has one only
 * once a file holds it; in the manifest, a unix socket in no "pair"),
 * and pfiles names, once per pid on stderr, those of them that applied
 * to some socket of the process:
 *
 *	pfiles: ARG: not shown: LIST (EXP_DIAG_WHY)
 */
#define	EXP_DIAG_WHY	"diag: the kernel's socket tables do not hold them"

/*
 * LIST above for the process of the manifest, in the options' order:
 * each boolean that getsockopt answered for some socket (TCP_NODELAY
 * only for an inet stream), SO_LINGER when some socket answered it, and
 * SO_PEERCRED when some unix socket has a peername.  A malloc'd string,
 * "" when nothing applied (then pfiles prints no such line).
 */
char		*expect_diag_gaps(const manifest_t *);

/*
 * The whole stderr of pfiles --via=diag ARG for the process of the
 * manifest: the "not shown:" line, or "" (malloc'd).
 */
char		*expect_diag_stderr(const manifest_t *, const char *arg);

/*
 * The endpoint lines of a socket (pfiles.1, "Socket lines" 5):
 * the manifest's "pair" lines say which of the fixture's fds are the
 * two ends of each connection it made, and nothing else holds them; the
 * holders of a socket's other end are the fixture's fds on the other
 * fd's socket (the same ino), in fd order, at most EXP_ENDPOINTS_MAX,
 * then "and N more".
 */
#define	EXP_ENDPOINTS_MAX	8

/*
 * The state line of a socket ("Socket lines" 4), from the manifest's
 * "sockstate": a TCP socket and a unix stream or seqpacket one have
 * "state:" (by expect.c's own table of the kernel's state names; a unix
 * socket LISTEN, CONNECTED or UNCONNECTED) with its queued bytes or its
 * backlog; a UDP, raw or unix datagram one "queued:" alone.  Then the
 * "shared with:" lines ("Socket lines" 7): the other fds on the same
 * socket, the fixture's own first in fd order, then the "holder" lines'
 * by pid then fd, EXP_ENDPOINTS_MAX at most, then "and N more".
 */

/*
 * The exact text pfiles prints for the process of the manifest: its
 * block (header, rlimit line, every fd).  Returns a malloc'd string, or
 * NULL with a message in err when the manifest holds something the
 * contract does not say how to print.
 */
char		*expect_pfiles(const manifest_t *, int flags, char *err,
		    size_t errlen);

/* The kernel's O_LARGEFILE on the compiler's target (expect_oflags.c). */
extern const int expect_o_largefile;

#endif	/* _EXPECT_H */
