/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sockopts.h: the socket options pfiles shows, written once.  Every
 * source asks the kernel from this table, the record builder (sockrec.c)
 * applies its family rules, and the formatter prints from it, in its
 * order, which is the contract's (pfiles.1): the booleans that are on,
 * then SO_LINGER, SO_SNDBUF, SO_RCVBUF.  Not installed.
 */
#ifndef	_SOCKOPTS_H
#define	_SOCKOPTS_H

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "libproc.h"

typedef enum {
	SOK_BOOL,		/* int, on or off: a bit of prsockbool_t */
	SOK_LINGER,		/* struct linger: shown when l_onoff */
	SOK_INT			/* int: shown as NAME(value) */
} sockopt_kind_t;

/* Which sockets answer an option. */
#define	SOF_ANY		0	/* every socket */
#define	SOF_TCP		1	/* inet and inet6 streams only */

typedef struct sockopt {
	const char	*so_name;	/* as printed */
	int		so_level;
	int		so_optname;
	sockopt_kind_t	so_kind;
	uint_t		so_bit;		/* SOK_BOOL: its PR_SO_* bit */
	uint_t		so_item;	/* else: its PR_SOCKOPT_* item */
	int		so_families;	/* SOF_* */
} sockopt_t;

#define	SOCKOPT_N	(PR_SO_NBOOL + 3)

/*
 * A row.  The name printed is the option's own identifier (#opt is not
 * expanded by the preprocessor).
 */
#define	SOCKOPT_BOOL(opt, bit)			\
	{ #opt, SOL_SOCKET, opt, SOK_BOOL, bit, 0, SOF_ANY }
#define	SOCKOPT_TCP(opt, bit)			\
	{ #opt, IPPROTO_TCP, opt, SOK_BOOL, bit, 0, SOF_TCP }
#define	SOCKOPT_VAL(opt, kind, item)		\
	{ #opt, SOL_SOCKET, opt, kind, 0, item, SOF_ANY }

/* The table, in printing order; the booleans first, in bit order. */
static inline const sockopt_t *
sockopt_table(void)
{
	static const sockopt_t table[SOCKOPT_N] = {
		SOCKOPT_BOOL(SO_DEBUG, PR_SO_DEBUG),
		SOCKOPT_BOOL(SO_REUSEADDR, PR_SO_REUSEADDR),
		SOCKOPT_BOOL(SO_KEEPALIVE, PR_SO_KEEPALIVE),
		SOCKOPT_BOOL(SO_DONTROUTE, PR_SO_DONTROUTE),
		SOCKOPT_BOOL(SO_BROADCAST, PR_SO_BROADCAST),
		SOCKOPT_BOOL(SO_OOBINLINE, PR_SO_OOBINLINE),
		SOCKOPT_BOOL(SO_REUSEPORT, PR_SO_REUSEPORT),
		SOCKOPT_BOOL(SO_PASSCRED, PR_SO_PASSCRED),
		SOCKOPT_BOOL(SO_ACCEPTCONN, PR_SO_ACCEPTCONN),
		SOCKOPT_TCP(TCP_NODELAY, PR_TCP_NODELAY),
		SOCKOPT_VAL(SO_LINGER, SOK_LINGER, PR_SOCKOPT_LINGER),
		SOCKOPT_VAL(SO_SNDBUF, SOK_INT, PR_SOCKOPT_SNDBUF),
		SOCKOPT_VAL(SO_RCVBUF, SOK_INT, PR_SOCKOPT_RCVBUF),
	};

	return (table);
}

/* The size of an option's value. */
static inline size_t
sockopt_size(const sockopt_t *o)
{
	return (o->so_kind == SOK_LINGER ? sizeof (struct linger) :
	    sizeof (int));
}

/* Does a socket of this domain and type answer the option? */
static inline int
sockopt_applies(const sockopt_t *o, int domain, int type)
{
	return (o->so_families == SOF_ANY ||
	    ((domain == AF_INET || domain == AF_INET6) &&
	    type == SOCK_STREAM));
}

#endif	/* _SOCKOPTS_H */
