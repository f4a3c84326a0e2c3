/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pfiles_fmt.h: the formatting of pfiles(1), per the output contract
 * (pfiles.1).  No system calls: everything printed comes from the records
 * of Pfdinfo_iter() and the psinfo, and goes to a stdio stream.
 *
 * pfiles_fmt.c has the header, the stat and flags lines, a file's block
 * and the item index; pf_sockfmt.c the socket lines and the names and
 * addresses of the contract; pf_lbuf.c the line buffer they write to.
 */
#ifndef	_PFILES_FMT_H
#define	_PFILES_FMT_H

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "libproc.h"

/*
 * The comm of a process, for the "peer:" and "endpoint:" lines; NULL when
 * unknown.
 */
typedef const char *pf_comm_f(void *, pid_t);

/*
 * A record's items, found in one walk (proc_fdinfowalk()): the first of
 * each type up to PF_ITEM_MAX, where proc_fdinfo_misc() would walk the
 * items again at every lookup.  Every function here that reads a record's
 * items reads them through its index.
 */
#define	PF_ITEM_MAX	PR_PEERCOMM

typedef struct pf_items {
	const prfdinfo_t *pi_info;
	const void	*pi_p[PF_ITEM_MAX + 1];
	size_t		pi_len[PF_ITEM_MAX + 1];
} pf_items_t;

extern void pf_items(const prfdinfo_t *, pf_items_t *);

/*
 * As proc_fdinfo_misc(): the first item of type, its length; or NULL.
 * In line, as the next: the formatter's files ask some twenty a record.
 */
static inline const void *
pf_item(const pf_items_t *ix, uint_t type, size_t *lenp)
{
	if (type > PF_ITEM_MAX)
		return (proc_fdinfo_misc(ix->pi_info, type, lenp));
	if (lenp != NULL)
		*lenp = ix->pi_len[type];
	return (ix->pi_p[type]);
}

/* An int item (PR_SOCKOPT_TYPE...), or def when the record has none. */
static inline int
pf_int_item(const pf_items_t *ix, uint_t type, int def)
{
	const void *p;
	size_t len;
	int v;

	if ((p = pf_item(ix, type, &len)) == NULL ||
	    len != sizeof (v))
		return (def);
	memcpy(&v, p, sizeof (v));
	return (v);
}

/* Facts of sockets that a source could not find, for one reason. */
#define	PF_GAPSETS	4
typedef struct pf_gapset {
	prsockbool_t	pg_bools;	/* pr_known: booleans never known */
	uint_t		pg_other;	/* PR_GAP_*: other facts never known */
	char		pg_why[256];
} pf_gapset_t;

typedef struct pf_ctx {
	FILE		*pf_out;
	int		pf_statonly;	/* -n */
	pf_comm_f	*pf_comm;
	void		*pf_comm_arg;
	/* What could not be found out, said once per pid by the caller. */
	uint_t		pf_nsockerr;	/* sockets without their facts */
	char		pf_sockerr[256];	/* the first reason */
	uint_t		pf_nlockdrop;	/* fds whose locks were cut short */
	/* The facts never known, by reason (the last takes any more). */
	pf_gapset_t	pf_gapsets[PF_GAPSETS];
	uint_t		pf_ngapsets;
} pf_ctx_t;

extern void pf_header(FILE *, const psinfo_t *, const struct rlimit *);
extern void pf_sysproc(FILE *, const psinfo_t *);
extern int pf_file(pf_ctx_t *, const prfdinfo_t *);
/* The same, of a record whose items the caller has found (pf_items). */
extern int pf_file_items(pf_ctx_t *, const pf_items_t *);

/* What the contract shows of a record, beyond its stat line. */
typedef struct pf_shown {
	const char	*ps_path;	/* PR_PATHNAME, when a string */
	int		ps_pathline;	/* the path line is shown */
	int		ps_socket;	/* the socket lines are */
	int		ps_offset;	/* the offset line is */
} pf_shown_t;
extern void pf_shown(const pf_items_t *, pf_shown_t *);
/* What pf_file adds up in ctx of a record (pfiles_json.c calls it too). */
extern void pf_account(pf_ctx_t *, const pf_items_t *);
/*
 * The facts that the source could not find out for some socket of the
 * process (PR_SOCKGAPS) for one reason (one of ctx's pf_gapsets), as a
 * comma-separated list in the contract's order; nothing when there are
 * none.  Returns how many.
 */
extern int pf_gaps(FILE *, const pf_gapset_t *);

/*
 * The lists of the contract, written once and shared by the text and the
 * JSON output (pfiles_json.c).
 */
typedef void pf_name_f(void *, const char *);
/* The names of the flags line, in its order ("0x%x" for the rest). */
extern void pf_flag_each(int, int, pf_name_f *, void *);

typedef enum {
	PF_OPT_BOOL,		/* a boolean known: value 0 or 1 */
	PF_OPT_VALUE,		/* SO_LINGER (seconds, on), SO_SNDBUF... */
	PF_OPT_OFF		/* SO_LINGER known to be off */
} pf_optkind_t;
typedef void pf_opt_f(void *, const char *, pf_optkind_t, int);
/* The options known of a socket, in the table's (the contract's) order. */
extern void pf_sockopt_each(const pf_items_t *, pf_opt_f *, void *);

/*
 * The endpoint lines of a socket (PR_ENDPOINTS): fn once per holder of
 * the other end (pid, fd, more 0), in the item's order, then once with
 * more > 0 (pid 0, fd -1) when there are more than are listed.
 */
typedef void pf_endpoint_f(void *, pid_t, int, uint_t);
extern void pf_endpoint_each(const prfdinfo_t *, pf_endpoint_f *, void *);
/* The same, of a record whose items the caller has found (pf_items). */
extern void pf_endpoint_each_items(const pf_items_t *, pf_endpoint_f *,
    void *);

/* The same for any list of holders of the form (PR_ENDPOINTS, PR_SHARED). */
extern void pf_holders_each(const pf_items_t *, uint_t, pf_endpoint_f *,
    void *);

/*
 * A socket's state line (PR_SOCKSTATE): 1 with *st where the record has
 * one the contract shows, else 0.  pf_state_name: "ESTABLISHED"...,
 * for a unix socket "LISTEN", "CONNECTED", "UNCONNECTED"; NULL when the
 * state has no name for a socket of the domain.
 */
extern int pf_sockstate(const pf_items_t *, prsockstate_t *);
extern const char *pf_state_name(int, int);
/* "ETH_P_ALL"... of a packet socket's protocol; NULL when it has none. */
extern const char *pf_ethproto_name(unsigned);
/*
 * A netlink socket's groups into words (at most max): first (its name's
 * nl_groups), then the further words of PR_NLGROUPS.  Their number.
 */
extern uint_t pf_nlgroups(const pf_items_t *, unsigned, uint32_t *, uint_t);

/* "SOCK_STREAM"...; NULL for a type with no name. */
extern const char *pf_socktype_name(int);

/*
 * The peer of a unix socket, where the contract has a "peer:" line: its
 * pid (SO_PEERCRED), or 0 for no line; *comm the name of its process
 * where the source proved the process that has that pid now to be the
 * one the kernel recorded (PR_PEERCOMM), else NULL: a pid is never named
 * by its number alone.
 */
extern pid_t pf_peer(const pf_items_t *, const char **);
/* "AF_INET"..., "NETLINK_ROUTE"...: NULL when it has no name. */
extern const char *pf_family_name(int);
extern const char *pf_netlink_proto_name(int);

/* A socket address, decoded as the contract shows it. */
typedef enum {
	PF_ADDR_INET = 1,	/* AF_INET, AF_INET6: pa_addr, pa_port */
	PF_ADDR_PATH,		/* AF_UNIX: pa_name is the path */
	PF_ADDR_ABSTRACT,	/* AF_UNIX: pa_name follows the NUL */
	PF_ADDR_UNNAMED,	/* AF_UNIX, no name */
	PF_ADDR_NETLINK,	/* pa_protocol, pa_protoname, pa_nlpid... */
	PF_ADDR_PACKET,		/* pa_ifindex, pa_ethproto, pa_ethname */
	PF_ADDR_OTHER		/* only the family */
} pf_addrkind_t;

typedef struct pf_addr {
	pf_addrkind_t	pa_kind;
	int		pa_family;
	const char	*pa_famname;	/* NULL: no name, AF_%d */
	char		pa_addr[46];	/* INET6_ADDRSTRLEN */
	size_t		pa_addrlen;	/* its strlen */
	unsigned	pa_port;
	const void	*pa_name;	/* unix: the target's bytes */
	size_t		pa_namelen;
	int		pa_protocol;
	const char	*pa_protoname;	/* NULL: "protocol %d" */
	unsigned	pa_nlpid, pa_nlgroups;
	int		pa_ifindex;	/* packet: 0 for none */
	unsigned	pa_ethproto;	/* packet: host order */
	const char	*pa_ethname;	/* NULL: "0x%04x" */
} pf_addr_t;

/* Decode len bytes of a sockaddr: 0, or -1 when too short for one. */
extern int pf_addr_decode(const void *, size_t, int, pf_addr_t *);

/* One address line: "\t<label>: AF_..." (protocol: SO_PROTOCOL, or -1). */
extern void pf_sockaddr(FILE *, const char *, const void *, size_t, int);
/* The flags line's text, without the leading spaces. */
extern void pf_fileflags(FILE *, int, int);
/* The type word of the stat line, into buf. */
extern const char *pf_typeword(mode_t, const char *, char *, size_t);

#endif	/* _PFILES_FMT_H */
