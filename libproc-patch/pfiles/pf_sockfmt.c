/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pf_sockfmt.c: the lines pfiles prints of a socket, after its flags
 * line: its type, its options, its addresses, its peer and the holders of
 * its other end; and the names and decodings of the contract that the
 * JSON output (pfiles_json.c) shares with the text.  Also what the source
 * could not find out of a socket, added up for the process's note.
 *
 * The rest of a record's lines, and the index of its items that every
 * function here reads, are pfiles_fmt.c's; the line buffer is pf_lbuf.h's.
 */
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "pf_lbuf.h"
#include "pf_sockfmt.h"
#include "pfiles_fmt.h"
#include "sock/sockopts.h"

#define	NELEM(a)	(sizeof (a) / sizeof ((a)[0]))

const char *
pf_socktype_name(int type)
{
	static const char *const names[] = {
		[SOCK_STREAM] = "SOCK_STREAM", [SOCK_DGRAM] = "SOCK_DGRAM",
		[SOCK_RAW] = "SOCK_RAW", [SOCK_RDM] = "SOCK_RDM",
		[SOCK_SEQPACKET] = "SOCK_SEQPACKET", [SOCK_DCCP] = "SOCK_DCCP",
		[SOCK_PACKET] = "SOCK_PACKET",
	};

	if (type >= 0 && (size_t)type < NELEM(names))
		return (names[type]);
	return (NULL);
}

static void
socktype_line(lbuf_t *lb, int type)
{
	const char *name = pf_socktype_name(type);

	if (name != NULL) {
		lb_chr(lb, '\t');
		lb_str(lb, name);
	} else {
		lb_lit(lb, "\tunknown socket type ");
		lb_int(lb, type);
	}
	lb_chr(lb, '\n');
}

/*
 * The options of a record, in the table's order: every one known, or
 * with shownonly only those the text shows (a boolean that is on).
 */
static void
sockopt_each(const pf_items_t *ix, int shownonly, pf_opt_f *fn, void *arg)
{
	const sockopt_t *opts = sockopt_table();
	prsockbool_t b = { 0, 0 };
	struct linger lg;
	const void *p;
	size_t len;
	int v;

	if ((p = pf_item(ix, PR_SOCKOPTS_BOOL_OPTS, &len)) != NULL &&
	    len == sizeof (b))
		memcpy(&b, p, sizeof (b));
	if (shownonly)
		b.pr_known &= b.pr_set;
	for (int row = 0; row < SOCKOPT_N; row++) {
		const sockopt_t *o = &opts[row];

		if (o->so_kind == SOK_BOOL) {
			if (b.pr_known & o->so_bit)
				fn(arg, o->so_name, PF_OPT_BOOL,
				    (b.pr_set & o->so_bit) != 0);
		} else if ((p = pf_item(ix, o->so_item, &len)) == NULL ||
		    len != sockopt_size(o)) {
			continue;
		} else if (o->so_kind == SOK_LINGER) {
			memcpy(&lg, p, sizeof (lg));
			fn(arg, o->so_name, lg.l_onoff ? PF_OPT_VALUE :
			    PF_OPT_OFF, lg.l_linger);
		} else {
			memcpy(&v, p, sizeof (v));
			fn(arg, o->so_name, PF_OPT_VALUE, v);
		}
	}
}

void
pf_sockopt_each(const pf_items_t *ix, pf_opt_f *fn, void *arg)
{
	sockopt_each(ix, 0, fn, arg);
}

/* The options line: every option of the table, "NAME(-N)," each. */
#define	OPTS_MAX	(SOCKOPT_N * (15 + 2 + 1 + 10 + 1) + 1)

typedef struct opt_text {
	char	*ot_p;		/* the cursor, in room for OPTS_MAX */
	int	ot_n;
} opt_text_t;

static void
opt_text(void *arg, const char *name, pf_optkind_t kind, int value)
{
	opt_text_t *ot = arg;
	char *p = ot->ot_p;

	if (kind == PF_OPT_OFF || (kind == PF_OPT_BOOL && !value))
		return;
	p = put_chr(p, ot->ot_n++ == 0 ? '\t' : ',');
	p = put_mem(p, name, strlen(name));
	if (kind == PF_OPT_VALUE) {
		p = put_chr(p, '(');
		p = put_chr(put_int(p, value), ')');
	}
	ot->ot_p = p;
}

/*
 * The options line, from the option table (sockopts.h), in its order:
 * the booleans that are known to be on, SO_LINGER when l_onoff is set,
 * then the values.  Nothing at all when none is shown.
 */
static void
sockopts_line(lbuf_t *lb, const pf_items_t *ix)
{
	opt_text_t ot = { lb_begin(lb, OPTS_MAX), 0 };

	sockopt_each(ix, 1, opt_text, &ot);
	if (ot.ot_n > 0)
		ot.ot_p = put_chr(ot.ot_p, '\n');
	lb_end(lb, ot.ot_p);
}

const char *
pf_netlink_proto_name(int proto)
{
	static const char *const names[] = {
		[NETLINK_ROUTE] = "NETLINK_ROUTE",
		[NETLINK_UNUSED] = "NETLINK_UNUSED",
		[NETLINK_USERSOCK] = "NETLINK_USERSOCK",
		[NETLINK_FIREWALL] = "NETLINK_FIREWALL",
		[NETLINK_SOCK_DIAG] = "NETLINK_SOCK_DIAG",
		[NETLINK_NFLOG] = "NETLINK_NFLOG",
		[NETLINK_XFRM] = "NETLINK_XFRM",
		[NETLINK_SELINUX] = "NETLINK_SELINUX",
		[NETLINK_ISCSI] = "NETLINK_ISCSI",
		[NETLINK_AUDIT] = "NETLINK_AUDIT",
		[NETLINK_FIB_LOOKUP] = "NETLINK_FIB_LOOKUP",
		[NETLINK_CONNECTOR] = "NETLINK_CONNECTOR",
		[NETLINK_NETFILTER] = "NETLINK_NETFILTER",
		[NETLINK_IP6_FW] = "NETLINK_IP6_FW",
		[NETLINK_DNRTMSG] = "NETLINK_DNRTMSG",
		[NETLINK_KOBJECT_UEVENT] = "NETLINK_KOBJECT_UEVENT",
		[NETLINK_GENERIC] = "NETLINK_GENERIC",
		[NETLINK_SCSITRANSPORT] = "NETLINK_SCSITRANSPORT",
		[NETLINK_ECRYPTFS] = "NETLINK_ECRYPTFS",
		[NETLINK_RDMA] = "NETLINK_RDMA",
		[NETLINK_CRYPTO] = "NETLINK_CRYPTO",
		[NETLINK_SMC] = "NETLINK_SMC",
	};

	if (proto >= 0 && (size_t)proto < NELEM(names))
		return (names[proto]);
	return (NULL);
}

const char *
pf_family_name(int family)
{
	static const char *const names[] = {
		[AF_UNSPEC] = "AF_UNSPEC", [AF_UNIX] = "AF_UNIX",
		[AF_INET] = "AF_INET", [AF_AX25] = "AF_AX25",
		[AF_IPX] = "AF_IPX", [AF_APPLETALK] = "AF_APPLETALK",
		[AF_NETROM] = "AF_NETROM", [AF_BRIDGE] = "AF_BRIDGE",
		[AF_ATMPVC] = "AF_ATMPVC", [AF_X25] = "AF_X25",
		[AF_INET6] = "AF_INET6", [AF_ROSE] = "AF_ROSE",
		[AF_DECnet] = "AF_DECnet", [AF_NETBEUI] = "AF_NETBEUI",
		[AF_SECURITY] = "AF_SECURITY", [AF_KEY] = "AF_KEY",
		[AF_NETLINK] = "AF_NETLINK", [AF_PACKET] = "AF_PACKET",
		[AF_ASH] = "AF_ASH", [AF_ECONET] = "AF_ECONET",
		[AF_ATMSVC] = "AF_ATMSVC", [AF_RDS] = "AF_RDS",
		[AF_SNA] = "AF_SNA", [AF_IRDA] = "AF_IRDA",
		[AF_PPPOX] = "AF_PPPOX", [AF_WANPIPE] = "AF_WANPIPE",
		[AF_LLC] = "AF_LLC", [AF_IB] = "AF_IB", [AF_MPLS] = "AF_MPLS",
		[AF_CAN] = "AF_CAN", [AF_TIPC] = "AF_TIPC",
		[AF_BLUETOOTH] = "AF_BLUETOOTH", [AF_IUCV] = "AF_IUCV",
		[AF_RXRPC] = "AF_RXRPC", [AF_ISDN] = "AF_ISDN",
		[AF_PHONET] = "AF_PHONET", [AF_IEEE802154] = "AF_IEEE802154",
		[AF_CAIF] = "AF_CAIF", [AF_ALG] = "AF_ALG", [AF_NFC] = "AF_NFC",
		[AF_VSOCK] = "AF_VSOCK", [AF_KCM] = "AF_KCM",
		[AF_QIPCRTR] = "AF_QIPCRTR", [AF_SMC] = "AF_SMC",
		[AF_XDP] = "AF_XDP", [45] = "AF_MCTP",
	};

	if (family >= 0 && (size_t)family < NELEM(names))
		return (names[family]);
	return (NULL);
}

/*
 * A unix name: the target's text, a path up to its NUL, or every byte of
 * an abstract name after its leading NUL (inner NULs too).
 */
static void
decode_unix(const void *sa, size_t len, pf_addr_t *a)
{
	const unsigned char *path = (const unsigned char *)sa +
	    offsetof(struct sockaddr_un, sun_path);
	size_t plen = len - offsetof(struct sockaddr_un, sun_path);

	if (len < offsetof(struct sockaddr_un, sun_path))
		plen = 0;
	if (plen > sizeof (((struct sockaddr_un *)0)->sun_path))
		plen = sizeof (((struct sockaddr_un *)0)->sun_path);
	if (plen == 0) {
		a->pa_kind = PF_ADDR_UNNAMED;
	} else if (path[0] != '\0') {
		a->pa_kind = PF_ADDR_PATH;
		a->pa_name = path;
		a->pa_namelen = strnlen((const char *)path, plen);
	} else {
		a->pa_kind = PF_ADDR_ABSTRACT;
		a->pa_name = path + 1;
		a->pa_namelen = plen - 1;
	}
}

int
pf_addr_decode(const void *sa, size_t len, int protocol, pf_addr_t *a)
{
	sa_family_t family;

	memset(a, 0, sizeof (*a));
	if (len < sizeof (family))
		return (-1);
	memcpy(&family, sa, sizeof (family));
	a->pa_family = family;
	a->pa_famname = pf_family_name(family);
	if (family == AF_INET && len >= sizeof (struct sockaddr_in)) {
		struct sockaddr_in sin;
		const uint8_t *q;
		char *p = a->pa_addr;

		memcpy(&sin, sa, sizeof (sin));
		a->pa_kind = PF_ADDR_INET;
		/* Dotted quad, as inet_ntop writes it (without its sprintf). */
		q = (const uint8_t *)&sin.sin_addr;
		for (int i = 0; i < 4; i++) {
			if (i > 0)
				*p++ = '.';
			p = put_uint(p, q[i]);
		}
		*p = '\0';
		a->pa_addrlen = (size_t)(p - a->pa_addr);
		a->pa_port = ntohs(sin.sin_port);
	} else if (family == AF_INET6 &&
	    len >= sizeof (struct sockaddr_in6)) {
		struct sockaddr_in6 sin6;

		memcpy(&sin6, sa, sizeof (sin6));
		a->pa_kind = PF_ADDR_INET;
		(void) inet_ntop(AF_INET6, &sin6.sin6_addr, a->pa_addr,
		    sizeof (a->pa_addr));
		a->pa_addrlen = strlen(a->pa_addr);
		a->pa_port = ntohs(sin6.sin6_port);
	} else if (family == AF_UNIX) {
		decode_unix(sa, len, a);
	} else if (family == AF_NETLINK &&
	    len >= sizeof (struct sockaddr_nl)) {
		struct sockaddr_nl snl;

		memcpy(&snl, sa, sizeof (snl));
		a->pa_kind = PF_ADDR_NETLINK;
		a->pa_protocol = protocol;
		a->pa_protoname = pf_netlink_proto_name(protocol);
		a->pa_nlpid = snl.nl_pid;
		a->pa_nlgroups = snl.nl_groups;
	} else if (family == AF_PACKET &&
	    len >= offsetof(struct sockaddr_ll, sll_hatype)) {
		struct sockaddr_ll sll;

		memset(&sll, 0, sizeof (sll));
		memcpy(&sll, sa, offsetof(struct sockaddr_ll, sll_hatype));
		a->pa_kind = PF_ADDR_PACKET;
		a->pa_ifindex = sll.sll_ifindex;
		a->pa_ethproto = ntohs(sll.sll_protocol);
		a->pa_ethname = pf_ethproto_name(a->pa_ethproto);
	} else {
		a->pa_kind = PF_ADDR_OTHER;
	}
	return (0);
}

/* An inet address's family name, address, port and words. */
#define	INET_REST_MAX	(16 + 1 + sizeof (((pf_addr_t *)0)->pa_addr) + 8 + \
	LB_NUMMAX)

/* ",0x%08x" for each netlink group word past the first. */
static void
lb_nlgroups(lbuf_t *lb, const pf_items_t *ix, unsigned first)
{
	uint32_t w[64];
	uint_t n = ix != NULL ? pf_nlgroups(ix, first, w, 64) : 0;
	char hex[16];

	for (uint_t i = 1; i < n; i++) {
		(void) snprintf(hex, sizeof (hex), ",0x%08x", w[i]);
		lb_str(lb, hex);
	}
}

/* A packet socket's interface and protocol. */
static void
lb_packet(lbuf_t *lb, const pf_items_t *ix, const pf_addr_t *a)
{
	const char *ifname;
	char hex[16];
	size_t len;

	lb_lit(lb, "AF_PACKET ");
	if (a->pa_ifindex == 0) {
		lb_lit(lb, "any");
	} else if (ix != NULL &&
	    (ifname = pf_item(ix, PR_IFNAME, &len)) != NULL && len > 1) {
		lb_esc(lb, ifname, strnlen(ifname, len));
	} else {
		lb_lit(lb, "ifindex ");
		lb_int(lb, a->pa_ifindex);
	}
	lb_lit(lb, "  protocol: ");
	if (a->pa_ethname != NULL) {
		lb_str(lb, a->pa_ethname);
	} else {
		(void) snprintf(hex, sizeof (hex), "0x%04x", a->pa_ethproto);
		lb_str(lb, hex);
	}
}

/*
 * One address line; ix, the record's items for what the name does not
 * hold (netlink groups above 32, a packet socket's interface by name):
 * the socket's own name's, NULL for its peer's.
 */
static void
lb_sockaddr(lbuf_t *lb, const char *label, const void *sa, size_t len,
    int protocol, const pf_items_t *ix)
{
	pf_addr_t a;
	char hex[16], *p;

	if (pf_addr_decode(sa, len, protocol, &a) != 0)
		return;
	lb_chr(lb, '\t');
	lb_str(lb, label);
	lb_lit(lb, ": ");
	switch (a.pa_kind) {
	case PF_ADDR_INET:
		/* "\t%s: %s %s  port: %u\n" */
		p = lb_begin(lb, INET_REST_MAX);
		p = put_mem(p, a.pa_famname, strlen(a.pa_famname));
		p = put_chr(p, ' ');
		p = put_mem(p, a.pa_addr, a.pa_addrlen);
		p = put_lit(p, "  port: ");
		p = put_uint(p, a.pa_port);
		lb_end(lb, p);
		break;
	case PF_ADDR_PATH:
	case PF_ADDR_ABSTRACT:
	case PF_ADDR_UNNAMED:
		lb_lit(lb, "AF_UNIX ");
		if (a.pa_kind == PF_ADDR_ABSTRACT)
			lb_chr(lb, '@');
		lb_esc(lb, a.pa_name, a.pa_namelen);
		break;
	case PF_ADDR_NETLINK:
		lb_lit(lb, "AF_NETLINK ");
		if (a.pa_protoname != NULL) {
			lb_str(lb, a.pa_protoname);
		} else {
			lb_lit(lb, "protocol ");
			lb_int(lb, a.pa_protocol);
		}
		lb_lit(lb, "  pid: ");
		lb_uint(lb, a.pa_nlpid);
		(void) snprintf(hex, sizeof (hex), "%08x", a.pa_nlgroups);
		lb_lit(lb, "  groups: 0x");
		lb_str(lb, hex);
		lb_nlgroups(lb, ix, a.pa_nlgroups);
		break;
	case PF_ADDR_PACKET:
		lb_packet(lb, ix, &a);
		break;
	case PF_ADDR_OTHER:
		if (a.pa_famname != NULL) {
			lb_str(lb, a.pa_famname);
		} else {
			lb_lit(lb, "AF_");
			lb_int(lb, a.pa_family);
		}
		break;
	}
	lb_chr(lb, '\n');
}

void
pf_sockaddr(FILE *out, const char *label, const void *sa, size_t len,
    int protocol)
{
	lbuf_t lb;

	lb_init(&lb, out);
	lb_sockaddr(&lb, label, sa, len, protocol, NULL);
	lb_flush(&lb);
}

void
pf_note_gaps(pf_ctx_t *ctx, const pf_items_t *ix)
{
	const uint8_t *p;
	prsockgaps_t g;
	pf_gapset_t *gs = NULL;
	size_t len, wl;
	const char *why;

	if ((p = pf_item(ix, PR_SOCKGAPS, &len)) == NULL ||
	    len < sizeof (g) + 1)
		return;
	memcpy(&g, p, sizeof (g));
	why = (const char *)p + sizeof (g);
	wl = strnlen(why, len - sizeof (g));
	/* The set of this reason; a new one; or, all taken, the last. */
	for (uint_t i = 0; i < ctx->pf_ngapsets && gs == NULL; i++) {
		if (strlen(ctx->pf_gapsets[i].pg_why) == wl &&
		    memcmp(ctx->pf_gapsets[i].pg_why, why, wl) == 0)
			gs = &ctx->pf_gapsets[i];
	}
	if (gs == NULL && ctx->pf_ngapsets < PF_GAPSETS) {
		gs = &ctx->pf_gapsets[ctx->pf_ngapsets++];
		(void) snprintf(gs->pg_why, sizeof (gs->pg_why), "%.*s",
		    (int)wl, why);
	} else if (gs == NULL) {
		gs = &ctx->pf_gapsets[PF_GAPSETS - 1];
	}
	gs->pg_bools.pr_known |= g.pr_bools;
	gs->pg_other |= g.pr_other;
}

int
pf_gaps(FILE *out, const pf_gapset_t *gs)
{
	static const struct {
		uint_t		g_bit;
		const char	*g_name;
	} other[] = {
		{ PR_GAP_PEERNAME, "peername" },
		{ PR_GAP_PEERCRED, "SO_PEERCRED" },
		{ PR_GAP_PEERCOMM, "peer" },
		{ PR_GAP_STATE, "state" },
		{ PR_GAP_QUEUES, "queues" },
	};
	const sockopt_t *opts = sockopt_table();
	int n = 0;

	/* The table's order: the booleans, then SO_LINGER, SNDBUF, RCVBUF. */
	for (int row = 0; row < SOCKOPT_N; row++) {
		const sockopt_t *o = &opts[row];
		uint_t gap = o->so_kind == SOK_BOOL ?
		    gs->pg_bools.pr_known & o->so_bit :
		    o->so_item == PR_SOCKOPT_LINGER ?
		    gs->pg_other & PR_GAP_LINGER :
		    o->so_item == PR_SOCKOPT_SNDBUF ?
		    gs->pg_other & PR_GAP_SNDBUF :
		    gs->pg_other & PR_GAP_RCVBUF;

		if (gap != 0)
			(void) fprintf(out, "%s%s", n++ > 0 ? "," : "",
			    o->so_name);
	}
	for (size_t i = 0; i < sizeof (other) / sizeof (other[0]); i++) {
		if (gs->pg_other & other[i].g_bit)
			(void) fprintf(out, "%s%s", n++ > 0 ? "," : "",
			    other[i].g_name);
	}
	return (n);
}

/*
 * The comm of process pid through the rule for text from the target, or
 * "?" (pfiles' own, not escaped) when it cannot be read.
 */
static void
proc_name(const pf_ctx_t *ctx, lbuf_t *lb, pid_t pid)
{
	const char *comm = ctx->pf_comm != NULL ?
	    ctx->pf_comm(ctx->pf_comm_arg, pid) : NULL;

	if (comm != NULL)
		lb_esc(lb, comm, strlen(comm));
	else
		lb_chr(lb, '?');
}

pid_t
pf_peer(const pf_items_t *ix, const char **comm)
{
	struct ucred cred;
	const char *p;
	size_t len;

	*comm = NULL;
	if (pf_int_item(ix, PR_SOCKOPT_DOMAIN, -1) != AF_UNIX ||
	    (p = pf_item(ix, PR_PEERCRED, &len)) == NULL ||
	    len != sizeof (cred))
		return (0);
	memcpy(&cred, p, sizeof (cred));
	if (cred.pid != 0 && (p = pf_item(ix, PR_PEERCOMM, &len)) != NULL &&
	    len > 1 && memchr(p, '\0', len) == p + len - 1)
		*comm = p;
	return (cred.pid);
}

void
pf_endpoint_each_items(const pf_items_t *ix, pf_endpoint_f *fn, void *arg)
{
	pf_holders_each(ix, PR_ENDPOINTS, fn, arg);
}

void
pf_endpoint_each(const prfdinfo_t *info, pf_endpoint_f *fn, void *arg)
{
	pf_items_t ix;

	pf_items(info, &ix);
	pf_endpoint_each_items(&ix, fn, arg);
}

/* Where the endpoint (or shared) lines go, and their label. */
typedef struct ep_text {
	const pf_ctx_t	*et_ctx;
	lbuf_t		*et_lb;
	const char	*et_label;	/* "\tendpoint: " */
} ep_text_t;

/* One endpoint line: a holder, or how many more there are. */
static void
endpoint_text(void *arg, pid_t pid, int fd, uint_t more)
{
	ep_text_t *et = arg;
	lbuf_t *lb = et->et_lb;
	char *p;

	lb_str(lb, et->et_label);
	if (more > 0) {
		lb_lit(lb, "and ");
		lb_uint(lb, more);
		lb_lit(lb, " more\n");
		return;
	}
	/* "\tendpoint: %s[%d] fd %d\n" */
	proc_name(et->et_ctx, lb, pid);
	p = lb_begin(lb, 1 + (1 + LB_NUMMAX) + 5 + (1 + LB_NUMMAX) + 1);
	p = put_chr(p, '[');
	p = put_int(p, pid);
	p = put_lit(p, "] fd ");
	p = put_int(p, fd);
	p = put_chr(p, '\n');
	lb_end(lb, p);
}

void
pf_socket_lines(const pf_ctx_t *ctx, lbuf_t *lb, const pf_items_t *ix)
{
	ep_text_t et = { ctx, lb, "\tendpoint: " };
	const void *sa;
	const char *comm;
	size_t len;
	pid_t pid;
	int type, protocol, have_peer;

	type = pf_int_item(ix, PR_SOCKOPT_TYPE, -1);
	if (pf_item(ix, PR_SOCKOPT_TYPE, NULL) != NULL)
		socktype_line(lb, type);
	sockopts_line(lb, ix);

	protocol = pf_int_item(ix, PR_SOCKOPT_PROTOCOL, -1);
	if ((sa = pf_item(ix, PR_SOCKETNAME, &len)) != NULL)
		lb_sockaddr(lb, "sockname", sa, len, protocol, ix);
	have_peer = (sa = pf_item(ix, PR_PEERSOCKNAME, &len)) != NULL;
	/* The socket's netlink groups are its own name's, not its peer's. */
	if (have_peer)
		lb_sockaddr(lb, "peername", sa, len, protocol, NULL);
	pf_state_line(lb, ix);

	if (have_peer && (pid = pf_peer(ix, &comm)) != 0) {
		lb_lit(lb, "\tpeer: ");
		if (comm != NULL)
			lb_esc(lb, comm, strlen(comm));
		else
			lb_chr(lb, '?');
		lb_chr(lb, '[');
		lb_int(lb, (int)pid);
		lb_lit(lb, "]\n");
	}
	pf_endpoint_each_items(ix, endpoint_text, &et);
	et.et_label = "\tshared with: ";
	pf_holders_each(ix, PR_SHARED, endpoint_text, &et);
}
