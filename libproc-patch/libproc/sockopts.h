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

/* The table, in printing order; the booleans first, in bit order. */
static inline const sockopt_t *
sockopt_table(void)
{
	static const sockopt_t table[SOCKOPT_N] = {
		{ "SO_DEBUG", SOL_SOCKET, SO_DEBUG, SOK_BOOL,
		    PR_SO_DEBUG, 0, SOF_ANY },
		{ "SO_REUSEADDR", SOL_SOCKET, SO_REUSEADDR, SOK_BOOL,
		    PR_SO_REUSEADDR, 0, SOF_ANY },
		{ "SO_KEEPALIVE", SOL_SOCKET, SO_KEEPALIVE, SOK_BOOL,
		    PR_SO_KEEPALIVE, 0, SOF_ANY },
		{ "SO_DONTROUTE", SOL_SOCKET, SO_DONTROUTE, SOK_BOOL,
		    PR_SO_DONTROUTE, 0, SOF_ANY },
		{ "SO_BROADCAST", SOL_SOCKET, SO_BROADCAST, SOK_BOOL,
		    PR_SO_BROADCAST, 0, SOF_ANY },
		{ "SO_OOBINLINE", SOL_SOCKET, SO_OOBINLINE, SOK_BOOL,
		    PR_SO_OOBINLINE, 0, SOF_ANY },
		{ "SO_REUSEPORT", SOL_SOCKET, SO_REUSEPORT, SOK_BOOL,
		    PR_SO_REUSEPORT, 0, SOF_ANY },
		{ "SO_PASSCRED", SOL_SOCKET, SO_PASSCRED, SOK_BOOL,
		    PR_SO_PASSCRED, 0, SOF_ANY },
		{ "SO_ACCEPTCONN", SOL_SOCKET, SO_ACCEPTCONN, SOK_BOOL,
		    PR_SO_ACCEPTCONN, 0, SOF_ANY },
		{ "TCP_NODELAY", IPPROTO_TCP, TCP_NODELAY, SOK_BOOL,
		    PR_TCP_NODELAY, 0, SOF_TCP },
		{ "SO_LINGER", SOL_SOCKET, SO_LINGER, SOK_LINGER,
		    0, PR_SOCKOPT_LINGER, SOF_ANY },
		{ "SO_SNDBUF", SOL_SOCKET, SO_SNDBUF, SOK_INT,
		    0, PR_SOCKOPT_SNDBUF, SOF_ANY },
		{ "SO_RCVBUF", SOL_SOCKET, SO_RCVBUF, SOK_INT,
		    0, PR_SOCKOPT_RCVBUF, SOF_ANY },
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
