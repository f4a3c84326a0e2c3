/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * expect.c: pfiles' expected text from a sockfix manifest (see expect.h;
 * manifest.c reads the manifest).
 *
 * Written from the contract alone: the manual page pfiles(1),
 * libproc-patch/pfiles/pfiles.1 (DESCRIPTION's subsections, "Header" to
 * "Order within a block", and "Sources of socket details" for diag).
 * Every rule below cites the part of the contract it implements.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "expect.h"
#include "testutil.h"

/*
 * Open flags as the target's own C library names them (<fcntl.h> of the
 * compiler's target), never pfiles' isa/ISA/kconst.h: on arm64 four of
 * them differ from x86_64's.  Two bits glibc does not name alone are
 * taken apart (O_SYNC and O_TMPFILE carry O_DSYNC and O_DIRECTORY), and
 * O_LARGEFILE, which glibc defines as 0 for 64-bit programs although the
 * kernel sets it in every file they open, comes from the kernel's uapi
 * header of that machine (expect_oflags.c).
 */
#define	E_O_SYNC_BIT	(O_SYNC & ~O_DSYNC)
#define	E_O_TMPFILE_BIT	(O_TMPFILE & ~O_DIRECTORY)

/* ---------------------------------------------------------------------
 * Writing the expected text.
 */

typedef struct gen {
	FILE		*g_fp;
	const manifest_t *g_m;
	char		*g_err;
	size_t		g_errlen;
	int		g_flags;	/* expect_pfiles()'s */
	int		g_failed;
} gen_t;

static void
gen_fail(gen_t *g, const char *fmt, ...)
{
	va_list ap;

	if (g->g_failed)
		return;
	va_start(ap, fmt);
	(void) vsnprintf(g->g_err, g->g_errlen, fmt, ap);
	va_end(ap);
	g->g_failed = 1;
}

/* ---------------------------------------------------------------------
 * Text from the target (pfiles.1, "Text from the target"): one rule for
 * the command line, comm, paths, unix socket names and anonymous inode
 * names.  Written apart from pfiles' own pf_escape.c, and built the
 * other way round: each character is decoded to its code point first,
 * and the code point then decides how it is written.
 */

#define	NOT_UTF8	(-1L)

/*
 * The code point of the UTF-8 character at s (len > 0 bytes), with its
 * length in *np; NOT_UTF8, with *np = 1, when the bytes at s are not a
 * well-formed sequence: a stray continuation byte, a lead byte without
 * its continuation bytes, an overlong form, a surrogate, past U+10FFFF.
 */
static long
decode_utf8(const unsigned char *s, size_t len, size_t *np)
{
	static const long least[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t need;
	long cp;

	*np = 1;
	if (s[0] < 0x80)
		return (s[0]);
	if ((s[0] & 0xe0) == 0xc0) {
		need = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		need = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		need = 4;
		cp = s[0] & 0x07;
	} else {
		return (NOT_UTF8);
	}
	if (need > len)
		return (NOT_UTF8);
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return (NOT_UTF8);
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < least[need] || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return (NOT_UTF8);
	*np = need;
	return (cp);
}

/* May the character cp be written as it is? */
static int
shown_as_is(long cp)
{
	static const struct { long lo, hi; } hidden[] = {
		{ 0x00, 0x1f }, { 0x7f, 0x9f },	/* C0, DEL, C1 */
		{ 0x200b, 0x200f },		/* zero-width, LRM, RLM */
		{ 0x2028, 0x2029 },		/* line, paragraph separator */
		{ 0x202a, 0x202e },		/* bidi embeddings, overrides */
		{ 0x2066, 0x2069 },		/* bidi isolates */
		{ 0xfeff, 0xfeff },		/* zero-width no-break space */
	};

	if (cp == '\\')
		return (0);
	for (size_t i = 0; i < sizeof (hidden) / sizeof (hidden[0]); i++)
		if (cp >= hidden[i].lo && cp <= hidden[i].hi)
			return (0);
	return (1);
}

char *
exp_escape(const void *src, size_t n, size_t width, size_t *lenp)
{
	const unsigned char *s = src;
	unsigned char *cut;	/* cut[i]: a unit of the text ends at i */
	char *text;
	size_t len = 0, clen;
	long cp;

	/* At most 4 bytes out per byte in. */
	if (n > (SIZE_MAX - 1) / 4 || (text = malloc(4 * n + 1)) == NULL ||
	    (cut = calloc(4 * n + 1, 1)) == NULL) {
		(void) fprintf(stderr, "exp_escape: out of memory\n");
		abort();
	}
	cut[0] = 1;
	for (size_t i = 0; i < n; i += clen) {
		cp = decode_utf8(s + i, n - i, &clen);
		if (cp == '\\') {
			memcpy(text + len, "\\\\", 2);
			len += 2;
			cut[len] = 1;
		} else if (cp != NOT_UTF8 && shown_as_is(cp)) {
			memcpy(text + len, s + i, clen);
			len += clen;
			cut[len] = 1;
		} else {
			/* Every byte of what is not shown, on its own. */
			for (size_t j = 0; j < clen; j++) {
				(void) snprintf(text + len, 5, "\\x%02x",
				    s[i + j]);
				len += 4;
				cut[len] = 1;
			}
		}
	}
	/* Cut at width: at the last place a unit ends, not past it. */
	if (len > width) {
		len = width;
		while (!cut[len])
			len--;
	}
	text[len] = '\0';
	free(cut);
	if (lenp != NULL)
		*lenp = len;
	return (text);
}

static void
put_text(gen_t *g, const void *s, size_t n)
{
	size_t len;
	char *text = exp_escape(s, n, SIZE_MAX, &len);

	(void) fwrite(text, 1, len, g->g_fp);
	free(text);
}

/*
 * Header: pid, TAB, and the command line: /proc/PID/cmdline with its
 * NULs turned into single spaces and the trailing NUL dropped, through
 * the rule, then cut at 70 bytes; the comm in its place when it is
 * empty.  Then "  Current rlimit: %llu file descriptors", "unlimited"
 * for RLIM_INFINITY.
 */
static void
put_header(gen_t *g)
{
	const manifest_t *m = g->g_m;
	size_t n = m->m_cmdlen, len;
	char *args, *text;

	if (n > 0 && m->m_cmdline[n - 1] == '\0')
		n--;
	if ((args = malloc(n + 1)) == NULL) {
		gen_fail(g, "out of memory");
		return;
	}
	for (size_t i = 0; i < n; i++)
		args[i] = m->m_cmdline[i] == '\0' ? ' ' : m->m_cmdline[i];
	if (n == 0)
		text = exp_escape(m->m_comm, strlen(m->m_comm), 70, &len);
	else
		text = exp_escape(args, n, 70, &len);
	(void) fprintf(g->g_fp, "%d:\t%s\n", (int)m->m_pid, text);
	free(text);
	free(args);
	if (m->m_rlim_cur == (unsigned long long)RLIM_INFINITY)
		(void) fprintf(g->g_fp,
		    "  Current rlimit: unlimited file descriptors\n");
	else
		(void) fprintf(g->g_fp,
		    "  Current rlimit: %llu file descriptors\n",
		    m->m_rlim_cur);
}

/*
 * The NAME of an anonymous inode: no file type bits and a link that reads
 * "anon_inode:[NAME]" or "anon_inode:NAME".  Returns NULL when f is not
 * one; the name is not NUL-terminated, *lenp is its length.
 */
static const char *
anon_name(const mf_fd_t *f, size_t *lenp)
{
	const char *p;
	size_t n;

	if ((f->f_mode & S_IFMT) != 0 || f->f_link == NULL ||
	    strncmp(f->f_link, "anon_inode:", 11) != 0)
		return (NULL);
	p = f->f_link + 11;
	n = strlen(p);
	if (n >= 2 && p[0] == '[' && p[n - 1] == ']') {
		p++;
		n -= 2;
	}
	*lenp = n;
	return (p);
}

/* The stat line: type word, mode, dev, ino, uid, gid, then size or rdev. */
static void
put_stat(gen_t *g, const mf_fd_t *f)
{
	static const struct { unsigned fmt; const char *word; } words[] = {
		{ S_IFREG, "S_IFREG" }, { S_IFDIR, "S_IFDIR" },
		{ S_IFCHR, "S_IFCHR" }, { S_IFBLK, "S_IFBLK" },
		{ S_IFIFO, "S_IFIFO" }, { S_IFLNK, "S_IFLNK" },
		{ S_IFSOCK, "S_IFSOCK" },
	};
	unsigned fmt = f->f_mode & S_IFMT;
	int use_rdev = fmt == S_IFCHR || fmt == S_IFBLK || fmt == S_IFSOCK;
	const char *anon;
	size_t i, alen;

	for (i = 0; i < sizeof (words) / sizeof (words[0]); i++)
		if (words[i].fmt == fmt)
			break;
	(void) fprintf(g->g_fp, "%4d: ", f->f_fd);
	if (i < sizeof (words) / sizeof (words[0])) {
		(void) fputs(words[i].word, g->g_fp);
	} else if ((anon = anon_name(f, &alen)) != NULL) {
		/* The name is the target's text. */
		(void) fputs("anon_inode(", g->g_fp);
		put_text(g, anon, alen);
		(void) fputc(')', g->g_fp);
	} else {
		(void) fprintf(g->g_fp, "0x%.4x", fmt);
	}
	(void) fprintf(g->g_fp, " mode:0%.3o dev:%u,%u ino:%llu "
	    "uid:%u gid:%u ", f->f_mode & 07777, f->f_devmaj,
	    f->f_devmin, f->f_ino, f->f_uid, f->f_gid);
	if (use_rdev)
		(void) fprintf(g->g_fp, "rdev:%u,%u\n", f->f_rdevmaj,
		    f->f_rdevmin);
	else
		(void) fprintf(g->g_fp, "size:%lld\n", f->f_size);
}

/*
 * The flags line: fdinfo's flags, which are f_flags (what F_GETFL
 * returns) with O_CLOEXEC added for a close-on-exec fd.
 */
static void
put_flags(gen_t *g, const mf_fd_t *f)
{
	const struct { unsigned bit; const char *name; } tail[] = {
		{ O_ASYNC, "O_ASYNC" }, { O_DIRECT, "O_DIRECT" },
		{ (unsigned)expect_o_largefile, "O_LARGEFILE" },
		{ O_DIRECTORY, "O_DIRECTORY" },
		{ O_NOFOLLOW, "O_NOFOLLOW" }, { O_NOATIME, "O_NOATIME" },
		{ E_O_TMPFILE_BIT, "O_TMPFILE" }, { O_CLOEXEC, "O_CLOEXEC" },
	};
	unsigned fl = f->f_getfl | ((f->f_getfd & 1) ? O_CLOEXEC : 0);
	FILE *fp = g->g_fp;

	(void) fputs("      ", fp);
	if (fl & O_PATH) {
		(void) fputs("O_PATH", fp);
		fl &= ~O_PATH;
	} else {
		switch (fl & O_ACCMODE) {
		case 0: (void) fputs("O_RDONLY", fp); break;
		case 1: (void) fputs("O_WRONLY", fp); break;
		case 2: (void) fputs("O_RDWR", fp); break;
		default: (void) fprintf(fp, "0x%x", fl & O_ACCMODE); break;
		}
		fl &= ~O_ACCMODE;
	}
	if (fl & O_NONBLOCK)
		(void) fputs("|O_NONBLOCK", fp);
	if (fl & O_APPEND)
		(void) fputs("|O_APPEND", fp);
	if (fl & E_O_SYNC_BIT)
		(void) fputs("|O_SYNC", fp);
	else if (fl & O_DSYNC)
		(void) fputs("|O_DSYNC", fp);
	fl &= ~(O_NONBLOCK | O_APPEND | E_O_SYNC_BIT | O_DSYNC);
	for (size_t i = 0; i < sizeof (tail) / sizeof (tail[0]); i++) {
		if (fl & tail[i].bit) {
			(void) fprintf(fp, "|%s", tail[i].name);
			fl &= ~tail[i].bit;
		}
	}
	if (fl != 0)
		(void) fprintf(fp, "|0x%x", fl);
	(void) fputc('\n', fp);
}

/* Lock lines: "advisory write lock set by process 1234". */
static void
put_locks(gen_t *g, const mf_fd_t *f)
{
	for (int i = 0; i < f->f_nlocks; i++)
		(void) fprintf(g->g_fp, "      advisory %s lock set by process "
		    "%d\n", f->f_locks[i].l_write ? "write" : "read",
		    f->f_locks[i].l_pid);
}

static const char *
socktype_name(int type)
{
	switch (type) {
	case SOCK_STREAM: return ("STREAM");
	case SOCK_DGRAM: return ("DGRAM");
	case SOCK_RAW: return ("RAW");
	case SOCK_RDM: return ("RDM");
	case SOCK_SEQPACKET: return ("SEQPACKET");
	case SOCK_DCCP: return ("DCCP");
	case SOCK_PACKET: return ("PACKET");
	default: return (NULL);
	}
}

static int
is_tcp(const mf_fd_t *f)
{
	return ((f->f_domain == AF_INET || f->f_domain == AF_INET6) &&
	    f->f_type == SOCK_STREAM && f->f_protocol == IPPROTO_TCP);
}

/*
 * Of the facts of the options line, is opt one that --via=diag shows?
 * The kernel's socket tables give the listening state and the buffer
 * sizes (pfiles.1, "diag"); SO_LINGER is not among them.
 */
static int
diag_shows(int opt)
{
	return (opt == MF_SO_ACCEPTCONN || opt == MF_SO_SNDBUF ||
	    opt == MF_SO_RCVBUF);
}

/*
 * The options line: the booleans that are on, in order (TCP_NODELAY for
 * TCP only), SO_LINGER(secs) when l_onoff, SO_SNDBUF(n), SO_RCVBUF(n);
 * comma-separated, left out when empty.  With EXP_DIAG, only what diag
 * shows: "the options line then holds what is known".
 */
static void
put_options(gen_t *g, const mf_fd_t *f)
{
	int diag = (g->g_flags & EXP_DIAG) != 0;
	char line[512] = "";
	size_t used = 0;

	for (int i = 0; i <= MF_TCP_NODELAY; i++) {
		if (i == MF_TCP_NODELAY && !is_tcp(f))
			continue;
		if (diag && !diag_shows(i))
			continue;
		if (f->f_opt[i].v_known && f->f_opt[i].v_value != 0)
			used += (size_t)snprintf(line + used,
			    sizeof (line) - used, ",%s", mf_opt_names[i]);
	}
	if (!diag && f->f_linger_known && f->f_linger_onoff)
		used += (size_t)snprintf(line + used, sizeof (line) - used,
		    ",SO_LINGER(%d)", f->f_linger_secs);
	for (int i = MF_SO_SNDBUF; i <= MF_SO_RCVBUF; i++)
		if (f->f_opt[i].v_known)
			used += (size_t)snprintf(line + used,
			    sizeof (line) - used, ",%s(%d)", mf_opt_names[i],
			    f->f_opt[i].v_value);
	if (used > 0)
		(void) fprintf(g->g_fp, "\t%s\n", line + 1);
}

static const char *
netlink_name(int proto)
{
	static const char *const names[] = {
		"NETLINK_ROUTE", "NETLINK_UNUSED", "NETLINK_USERSOCK",
		"NETLINK_FIREWALL", "NETLINK_SOCK_DIAG", "NETLINK_NFLOG",
		"NETLINK_XFRM", "NETLINK_SELINUX", "NETLINK_ISCSI",
		"NETLINK_AUDIT", "NETLINK_FIB_LOOKUP", "NETLINK_CONNECTOR",
		"NETLINK_NETFILTER", "NETLINK_IP6_FW", "NETLINK_DNRTMSG",
		"NETLINK_KOBJECT_UEVENT", "NETLINK_GENERIC", NULL,
		"NETLINK_SCSITRANSPORT", "NETLINK_ECRYPTFS", "NETLINK_RDMA",
		"NETLINK_CRYPTO", "NETLINK_SMC",
	};

	if (proto >= 0 && (size_t)proto < sizeof (names) / sizeof (names[0]))
		return (names[proto]);
	return (NULL);
}

static const char *
family_name(int af)
{
	switch (af) {
	case AF_VSOCK: return ("AF_VSOCK");
	case AF_BLUETOOTH: return ("AF_BLUETOOTH");
	case AF_CAN: return ("AF_CAN");
	case AF_TIPC: return ("AF_TIPC");
	case AF_ALG: return ("AF_ALG");
	case AF_XDP: return ("AF_XDP");
	default: return (NULL);
	}
}

static uint32_t
get_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof (v));
	return (v);
}

/*
 * A unix socket's name, the target's text: a path up to its NUL, or an
 * abstract name as "@" and every byte after the leading NUL.
 */
static void
put_unix_name(gen_t *g, const unsigned char *p, size_t n)
{
	if (n == 0)
		return;			/* unnamed: "AF_UNIX " */
	if (p[0] != '\0') {		/* a path, up to its NUL */
		put_text(g, p, strnlen((const char *)p, n));
		return;
	}
	(void) fputc('@', g->g_fp);	/* abstract */
	put_text(g, p + 1, n - 1);
}

/*
 * The netlink groups past the first 32 that the socket is a member of
 * (sockname only: a peer's address is the peer's): ",0x%08x" for each
 * further 32, up to the last with one set.  The first 32 are the name's
 * own, and must be those of the manifest's groups.
 */
static void
put_more_groups(gen_t *g, const mf_fd_t *f, uint32_t first)
{
	uint32_t words[MF_MAX_GROUPS] = { 0 };
	int last = 0;

	for (int i = 0; i < f->f_ngroups; i++) {
		unsigned n = f->f_groups[i] - 1;

		if (n / 32 >= MF_MAX_GROUPS) {
			gen_fail(g, "fd %d: group %u", f->f_fd, n + 1);
			return;
		}
		words[n / 32] |= 1U << (n % 32);
		if ((int)(n / 32) > last)
			last = (int)(n / 32);
	}
	if (f->f_ngroups >= 0 && words[0] != first) {
		gen_fail(g, "fd %d: groups 0x%08x in the name, 0x%08x in the "
		    "manifest's list", f->f_fd, first, words[0]);
		return;
	}
	for (int w = 1; w <= last; w++)
		(void) fprintf(g->g_fp, ",0x%08x", words[w]);
}

/* The EtherTypes the contract names, from <linux/if_ether.h>. */
static const char *
ethertype_name(unsigned proto)
{
	switch (proto) {
	case ETH_P_ALL: return ("ETH_P_ALL");
	case ETH_P_IP: return ("ETH_P_IP");
	case ETH_P_ARP: return ("ETH_P_ARP");
	case ETH_P_IPV6: return ("ETH_P_IPV6");
	default: return (NULL);
	}
}

/*
 * A packet socket's name: "AF_PACKET IF  protocol: PROTO", IF the name
 * of its interface index (the manifest's ifname, the target's text),
 * "any" for none, "ifindex %d" when its name is not known; PROTO by
 * name or as "0x%04x".  A struct sockaddr_ll: the protocol in network
 * order at 2, the index at 4.
 */
static void
put_packet(gen_t *g, const mf_fd_t *f, const mf_addr_t *a)
{
	const unsigned char *b = a->a_bytes;
	const char *name;
	uint16_t proto;
	int32_t ifindex;

	if (a->a_len < 8) {
		gen_fail(g, "fd %d: short AF_PACKET name", f->f_fd);
		return;
	}
	memcpy(&proto, b + 2, sizeof (proto));
	memcpy(&ifindex, b + 4, sizeof (ifindex));
	(void) fputs("AF_PACKET ", g->g_fp);
	if (ifindex == 0)
		(void) fputs("any", g->g_fp);
	else if (f->f_ifname[0] != '\0')
		put_text(g, f->f_ifname, strlen(f->f_ifname));
	else
		(void) fprintf(g->g_fp, "ifindex %d", (int)ifindex);
	if ((name = ethertype_name(ntohs(proto))) != NULL)
		(void) fprintf(g->g_fp, "  protocol: %s\n", name);
	else
		(void) fprintf(g->g_fp, "  protocol: 0x%04x\n", ntohs(proto));
}

/* "\t%s: AF_..." for one address, by the rules of the contract. */
static void
put_addr(gen_t *g, const mf_fd_t *f, const char *label, const mf_addr_t *a)
{
	char text[INET6_ADDRSTRLEN];
	const unsigned char *b = a->a_bytes;
	FILE *fp = g->g_fp;
	sa_family_t af;
	uint16_t port;
	const char *name;

	if (a->a_len < sizeof (sa_family_t)) {
		gen_fail(g, "fd %d: %s of %zu bytes", f->f_fd, label,
		    a->a_len);
		return;
	}
	memcpy(&af, b, sizeof (af));
	(void) fprintf(fp, "\t%s: ", label);
	switch (af) {
	case AF_INET:
		if (a->a_len < 8) {
			gen_fail(g, "fd %d: short AF_INET %s", f->f_fd, label);
			return;
		}
		memcpy(&port, b + 2, 2);
		(void) inet_ntop(AF_INET, b + 4, text, sizeof (text));
		(void) fprintf(fp, "AF_INET %s  port: %u\n", text, ntohs(port));
		break;
	case AF_INET6:
		if (a->a_len < 24) {
			gen_fail(g, "fd %d: short AF_INET6 %s", f->f_fd,
			    label);
			return;
		}
		memcpy(&port, b + 2, 2);
		(void) inet_ntop(AF_INET6, b + 8, text, sizeof (text));
		(void) fprintf(fp, "AF_INET6 %s  port: %u\n", text,
		    ntohs(port));
		break;
	case AF_UNIX:
		(void) fputs("AF_UNIX ", fp);
		put_unix_name(g, b + 2, a->a_len - 2);
		(void) fputc('\n', fp);
		break;
	case AF_NETLINK:
		if (a->a_len < 12) {
			gen_fail(g, "fd %d: short AF_NETLINK %s", f->f_fd,
			    label);
			return;
		}
		if ((name = netlink_name(f->f_protocol)) != NULL)
			(void) fprintf(fp, "AF_NETLINK %s", name);
		else
			(void) fprintf(fp, "AF_NETLINK protocol %d",
			    f->f_protocol);
		(void) fprintf(fp, "  pid: %u  groups: 0x%08x",
		    get_u32(b + 4), get_u32(b + 8));
		if (strcmp(label, "sockname") == 0)
			put_more_groups(g, f, get_u32(b + 8));
		(void) fputc('\n', fp);
		break;
	case AF_PACKET:
		put_packet(g, f, a);
		break;
	default:
		if ((name = family_name(af)) != NULL)
			(void) fprintf(fp, "%s\n", name);
		else
			(void) fprintf(fp, "AF_%d\n", af);
		break;
	}
}

/* The manifest's record of fd, or NULL. */
static const mf_fd_t *
fd_record(const manifest_t *m, int fd)
{
	for (size_t i = 0; i < m->m_nfds; i++)
		if (m->m_fds[i].f_fd == fd)
			return (&m->m_fds[i]);
	return (NULL);
}

static int
same_socket(const mf_fd_t *a, const mf_fd_t *b)
{
	return ((a->f_mode & S_IFMT) == S_IFSOCK &&
	    (b->f_mode & S_IFMT) == S_IFSOCK && a->f_ino == b->f_ino &&
	    a->f_devmaj == b->f_devmaj && a->f_devmin == b->f_devmin);
}

/*
 * One line of a list of holders (label "\tendpoint: " or "\tshared
 * with: "), or none past EXP_ENDPOINTS_MAX: those are counted in *more.
 * The comm is the target's text.
 */
static void
put_holder(gen_t *g, const char *label, const char *comm, pid_t pid,
    int fd, size_t counts[2])
{
	if (counts[0] == EXP_ENDPOINTS_MAX) {
		counts[1]++;
		return;
	}
	(void) fputs(label, g->g_fp);
	put_text(g, comm, strlen(comm));
	(void) fprintf(g->g_fp, "[%d] fd %d\n", (int)pid, fd);
	counts[0]++;
}

static void
put_holders_more(gen_t *g, const char *label, const size_t counts[2])
{
	if (counts[1] > 0)
		(void) fprintf(g->g_fp, "%sand %zu more\n", label, counts[1]);
}

/*
 * The endpoint lines of f ("Socket lines" 5): for each connection of
 * the manifest ("pair") one of whose ends is f's socket, every fd of
 * the fixture on the other end's socket, in order of fd (one pid: the
 * fixture's; nothing else holds its sockets), at most
 * EXP_ENDPOINTS_MAX, then "and N more".  The comm is the target's
 * text.  A socket with no pair (a listener) has none; a socket connected
 * to itself is a pair of itself ("pair N N"), its own other end.
 */
static void
put_endpoints(gen_t *g, const mf_fd_t *f)
{
	static const char label[] = "\tendpoint: ";
	const manifest_t *m = g->g_m;
	const mf_fd_t *other = NULL;
	size_t counts[2] = { 0, 0 };	/* shown, more */

	for (size_t i = 0; i < m->m_npairs; i++) {
		const mf_fd_t *a = fd_record(m, m->m_pairs[i][0]);
		const mf_fd_t *b = fd_record(m, m->m_pairs[i][1]);

		if (a == NULL || b == NULL || !same_socket(a, a) ||
		    !same_socket(b, b) || (same_socket(a, b) &&
		    m->m_pairs[i][0] != m->m_pairs[i][1])) {
			gen_fail(g, "pair %d %d: not two sockets of the "
			    "manifest", m->m_pairs[i][0], m->m_pairs[i][1]);
			return;
		}
		if (!same_socket(f, a) && !same_socket(f, b))
			continue;
		if (other != NULL) {
			gen_fail(g, "fd %d: in two pairs", f->f_fd);
			return;
		}
		other = same_socket(f, a) ? b : a;
	}
	if (other == NULL)
		return;
	for (size_t i = 0; i < m->m_nfds; i++)
		if (same_socket(&m->m_fds[i], other))
			put_holder(g, label, m->m_comm, m->m_pid,
			    m->m_fds[i].f_fd, counts);
	put_holders_more(g, label, counts);
}

static int
holder_cmp(const void *a, const void *b)
{
	const mf_holder_t *x = *(const mf_holder_t *const *)a;
	const mf_holder_t *y = *(const mf_holder_t *const *)b;

	if (x->h_pid != y->h_pid)
		return (x->h_pid < y->h_pid ? -1 : 1);
	return (x->h_fd < y->h_fd ? -1 : x->h_fd > y->h_fd);
}

/*
 * The "shared with:" lines of f ("Socket lines" 7): the fixture's other
 * fds on f's socket in fd order, then the other processes' fds on it
 * (the manifest's "holder" lines: sockfix forked them) by pid then fd;
 * the same cap as the endpoint lines.
 */
static void
put_shared(gen_t *g, const mf_fd_t *f)
{
	static const char label[] = "\tshared with: ";
	const manifest_t *m = g->g_m;
	const mf_holder_t *hs[MF_MAX_HOLDERS];
	size_t counts[2] = { 0, 0 }, n = 0;

	for (size_t i = 0; i < m->m_nfds; i++)
		if (m->m_fds[i].f_fd != f->f_fd &&
		    same_socket(&m->m_fds[i], f))
			put_holder(g, label, m->m_comm, m->m_pid,
			    m->m_fds[i].f_fd, counts);
	for (size_t i = 0; i < m->m_nholders; i++) {
		const mf_fd_t *p = fd_record(m, m->m_holders[i].h_pfd);

		if (p == NULL || !same_socket(p, p)) {
			gen_fail(g, "holder of fd %d: no socket of the "
			    "manifest", m->m_holders[i].h_pfd);
			return;
		}
		if (same_socket(p, f))
			hs[n++] = &m->m_holders[i];
	}
	qsort(hs, n, sizeof (hs[0]), holder_cmp);
	for (size_t i = 0; i < n; i++)
		put_holder(g, label, hs[i]->h_comm, hs[i]->h_pid, hs[i]->h_fd,
		    counts);
	put_holders_more(g, label, counts);
}

/* Which line of state a socket has ("Socket lines" 4). */
#define	SL_NONE		0
#define	SL_STATE	1	/* "state:", then queued or backlog */
#define	SL_QUEUED	2	/* "queued:" alone */

static int
state_line_kind(const mf_fd_t *f)
{
	if (f->f_domain == AF_UNIX)
		return (f->f_type == SOCK_STREAM ||
		    f->f_type == SOCK_SEQPACKET ? SL_STATE :
		    f->f_type == SOCK_DGRAM ? SL_QUEUED : SL_NONE);
	if (f->f_domain != AF_INET && f->f_domain != AF_INET6)
		return (SL_NONE);
	/* TCP, SCTP, DCCP; then UDP (and UDP-Lite) and raw. */
	if ((f->f_type == SOCK_STREAM && (f->f_protocol == IPPROTO_TCP ||
	    f->f_protocol == IPPROTO_MPTCP || f->f_protocol == IPPROTO_SCTP)) ||
	    f->f_type == SOCK_DCCP)
		return (SL_STATE);
	return (f->f_type == SOCK_DGRAM || f->f_type == SOCK_RAW ?
	    SL_QUEUED : SL_NONE);
}

/*
 * The kernel's state numbers (<netinet/tcp.h>) by the names lsof and ss
 * use; a unix socket's three by the contract's.
 */
static const char *
state_name(const mf_fd_t *f, int state)
{
	static const struct { int s; const char *name; } tcp[] = {
		{ TCP_ESTABLISHED, "ESTABLISHED" }, { TCP_SYN_SENT, "SYN_SENT" },
		{ TCP_SYN_RECV, "SYN_RECV" }, { TCP_FIN_WAIT1, "FIN_WAIT1" },
		{ TCP_FIN_WAIT2, "FIN_WAIT2" }, { TCP_TIME_WAIT, "TIME_WAIT" },
		{ TCP_CLOSE, "CLOSE" }, { TCP_CLOSE_WAIT, "CLOSE_WAIT" },
		{ TCP_LAST_ACK, "LAST_ACK" }, { TCP_LISTEN, "LISTEN" },
		{ TCP_CLOSING, "CLOSING" },
		{ 12, "NEW_SYN_RECV" },	/* the kernel's; glibc has none */
	};

	if (f->f_domain == AF_UNIX)
		return (state == TCP_LISTEN ? "LISTEN" :
		    state == TCP_ESTABLISHED ? "CONNECTED" :
		    state == TCP_CLOSE ? "UNCONNECTED" : NULL);
	for (size_t i = 0; i < sizeof (tcp) / sizeof (tcp[0]); i++)
		if (tcp[i].s == state)
			return (tcp[i].name);
	return (NULL);
}

/*
 * The state line: "\tstate: NAME  queued: R to read, S to send",
 * "\tstate: LISTEN  backlog: W of L", or "\tqueued: R to read, S to
 * send" alone, from the manifest's "sockstate"; which one the socket's
 * kind says, and every socket that has one must have its "sockstate".
 */
static void
put_state(gen_t *g, const mf_fd_t *f)
{
	int kind = state_line_kind(f);
	const char *name;

	if (kind == SL_NONE || !f->f_ss_known) {
		if (kind != SL_NONE || f->f_ss_known)
			gen_fail(g, "fd %d: %s", f->f_fd, kind == SL_NONE ?
			    "a sockstate for a socket with no state line" :
			    "no sockstate in the manifest");
		return;
	}
	if (kind == SL_QUEUED) {
		if (f->f_ss_state != 0 || f->f_ss_backlog)
			gen_fail(g, "fd %d: a state for queues alone",
			    f->f_fd);
		(void) fprintf(g->g_fp, "\tqueued: %u to read, %u to send\n",
		    f->f_ss_a, f->f_ss_b);
		return;
	}
	if ((name = state_name(f, f->f_ss_state)) == NULL ||
	    (f->f_ss_backlog && f->f_ss_state != TCP_LISTEN)) {
		gen_fail(g, "fd %d: state %d%s", f->f_fd, f->f_ss_state,
		    f->f_ss_backlog ? " with a backlog" : "");
		return;
	}
	(void) fprintf(g->g_fp, f->f_ss_backlog ?
	    "\tstate: %s  backlog: %u of %u\n" :
	    "\tstate: %s  queued: %u to read, %u to send\n", name,
	    f->f_ss_a, f->f_ss_b);
}

/* Is f's socket one end of a connection of the manifest ("pair")? */
static int
in_pair(const manifest_t *m, const mf_fd_t *f)
{
	for (size_t i = 0; i < m->m_npairs; i++) {
		const mf_fd_t *a = fd_record(m, m->m_pairs[i][0]);
		const mf_fd_t *b = fd_record(m, m->m_pairs[i][1]);

		if ((a != NULL && same_socket(a, f)) ||
		    (b != NULL && same_socket(b, f)))
			return (1);
	}
	return (0);
}

/*
 * A unix socket's peername that --via=diag cannot show: its peer is
 * held by no fd (expect.h, EXP_DIAG).
 */
static int
diag_lacks_peername(const manifest_t *m, const mf_fd_t *f)
{
	return (f->f_domain == AF_UNIX && f->f_peername.a_known &&
	    !in_pair(m, f));
}

static void
put_socket(gen_t *g, const mf_fd_t *f)
{
	const char *tname = socktype_name(f->f_type);

	if (!f->f_is_socket) {
		gen_fail(g, "fd %d: a socket without socket facts", f->f_fd);
		return;
	}
	if (tname != NULL)
		(void) fprintf(g->g_fp, "\tSOCK_%s\n", tname);
	else
		(void) fprintf(g->g_fp, "\tunknown socket type %d\n",
		    f->f_type);
	put_options(g, f);
	if (f->f_sockname.a_known)
		put_addr(g, f, "sockname", &f->f_sockname);
	if (f->f_peername.a_known && !((g->g_flags & EXP_DIAG) &&
	    diag_lacks_peername(g->g_m, f)))
		put_addr(g, f, "peername", &f->f_peername);
	put_state(g, f);

	/*
	 * The peer of an AF_UNIX socket with a peername, by SO_PEERCRED,
	 * which diag does not know; then the holders of the other end,
	 * which every source shows.
	 */
	if (!(g->g_flags & EXP_DIAG) &&
	    f->f_domain == AF_UNIX && f->f_peername.a_known &&
	    f->f_cred_known && f->f_cred_pid != 0) {
		if (f->f_cred_pid != g->g_m->m_pid) {
			gen_fail(g, "fd %d: peer pid %d is not the fixture",
			    f->f_fd, f->f_cred_pid);
			return;
		}
		/* named only where the kernel can prove who it is */
		(void) fputs("\tpeer: ", g->g_fp);
		if (tu_peer_provable(NULL))
			put_text(g, g->g_m->m_comm, strlen(g->g_m->m_comm));
		else
			(void) fputc('?', g->g_fp);
		(void) fprintf(g->g_fp, "[%d]\n", f->f_cred_pid);
	}
	put_endpoints(g, f);
	put_shared(g, f);
}

/*
 * The offset line, for S_IFREG, S_IFDIR, S_IFCHR and S_IFBLK.  It is the
 * file position (fdinfo pos:), which lseek(SEEK_CUR) returns; an O_PATH
 * file cannot be seeked and its position is never moved from 0.
 */
static void
put_offset(gen_t *g, const mf_fd_t *f)
{
	if (f->f_has_offset)
		(void) fprintf(g->g_fp, "      offset:%lld\n", f->f_offset);
	else if (f->f_getfl & O_PATH)
		(void) fprintf(g->g_fp, "      offset:0\n");
	else
		gen_fail(g, "fd %d: no offset known", f->f_fd);
}

static void
put_fd(gen_t *g, const mf_fd_t *f)
{
	int flags = g->g_flags;
	unsigned fmt = f->f_mode & S_IFMT;
	size_t alen;
	int is_anon = anon_name(f, &alen) != NULL;

	put_stat(g, f);
	if (flags & EXP_NFLAG)
		return;
	put_flags(g, f);
	put_locks(g, f);
	if (fmt == S_IFSOCK)
		put_socket(g, f);
	if (fmt != S_IFSOCK && !is_anon) {
		if (f->f_link == NULL) {
			gen_fail(g, "fd %d: no link target", f->f_fd);
		} else {
			(void) fputs("      ", g->g_fp);
			put_text(g, f->f_link, strlen(f->f_link));
			(void) fputc('\n', g->g_fp);
		}
	}
	if (fmt == S_IFREG || fmt == S_IFDIR || fmt == S_IFCHR ||
	    fmt == S_IFBLK)
		put_offset(g, f);
}

char *
expect_pfiles(const manifest_t *m, int flags, char *err, size_t errlen)
{
	gen_t g = { NULL, m, err, errlen, flags, 0 };
	char *text = NULL;
	size_t len = 0;

	if ((g.g_fp = open_memstream(&text, &len)) == NULL) {
		(void) snprintf(err, errlen, "open_memstream: %s",
		    strerror(errno));
		return (NULL);
	}
	put_header(&g);
	for (size_t i = 0; i < m->m_nfds && !g.g_failed; i++)
		put_fd(&g, &m->m_fds[i]);
	if (fclose(g.g_fp) != 0 && !g.g_failed)
		gen_fail(&g, "writing the text: %s", strerror(errno));
	if (g.g_failed) {
		free(text);
		return (NULL);
	}
	return (text);
}

/* ---------------------------------------------------------------------
 * What --via=diag cannot show, from the manifest (expect.h).
 */

char *
expect_diag_gaps(const manifest_t *m)
{
	static const int bools[] = {
		MF_SO_DEBUG, MF_SO_REUSEADDR, MF_SO_KEEPALIVE, MF_SO_DONTROUTE,
		MF_SO_BROADCAST, MF_SO_OOBINLINE, MF_SO_REUSEPORT,
		MF_SO_PASSCRED, MF_TCP_NODELAY,
	};
	int linger = 0, peername = 0, peercred = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	if ((fp = open_memstream(&text, &len)) == NULL) {
		(void) fprintf(stderr, "expect_diag_gaps: out of memory\n");
		abort();
	}
	/* The booleans, in the contract's order; none of them is shown. */
	for (size_t b = 0; b < sizeof (bools) / sizeof (bools[0]); b++) {
		int opt = bools[b], applied = 0;

		for (size_t i = 0; i < m->m_nfds && !applied; i++) {
			const mf_fd_t *f = &m->m_fds[i];

			applied = f->f_is_socket && f->f_opt[opt].v_known &&
			    (opt != MF_TCP_NODELAY || is_tcp(f));
		}
		if (applied)
			(void) fprintf(fp, "%s%s", ftell(fp) > 0 ? "," : "",
			    mf_opt_names[opt]);
	}
	for (size_t i = 0; i < m->m_nfds; i++) {
		const mf_fd_t *f = &m->m_fds[i];

		if (!f->f_is_socket)
			continue;
		linger |= f->f_linger_known;
		peername |= diag_lacks_peername(m, f);
		peercred |= f->f_domain == AF_UNIX && f->f_peername.a_known;
	}
	/*
	 * Then SO_LINGER (SO_SNDBUF and SO_RCVBUF are known), a unix peer
	 * name that no fd holds, SO_PEERCRED.
	 */
	if (linger)
		(void) fprintf(fp, "%sSO_LINGER", ftell(fp) > 0 ? "," : "");
	if (peername)
		(void) fprintf(fp, "%speername", ftell(fp) > 0 ? "," : "");
	if (peercred)
		(void) fprintf(fp, "%sSO_PEERCRED", ftell(fp) > 0 ? "," : "");
	if (fclose(fp) != 0) {
		(void) fprintf(stderr, "expect_diag_gaps: out of memory\n");
		abort();
	}
	return (text);
}

char *
expect_diag_stderr(const manifest_t *m, const char *arg)
{
	char *gaps = expect_diag_gaps(m), *line;

	if (gaps[0] == '\0')
		return (gaps);
	if (asprintf(&line, "pfiles: %s: not shown: %s (%s)\n", arg, gaps,
	    EXP_DIAG_WHY) < 0) {
		(void) fprintf(stderr, "expect_diag_stderr: out of memory\n");
		abort();
	}
	free(gaps);
	return (line);
}
