/*
 * pfiles_fmt.c: what pfiles prints for a process and each of its fds.
 * The layout is illumos pfiles' own; the contract is pfiles.1.
 *
 * Text the target controls (its command line, comm, paths, unix socket
 * names, anonymous inode names) is never printed raw: it goes through
 * pf_escape.c's rule, so that the target cannot forge lines or fields,
 * nor send escape sequences to the terminal.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "kconst.h"	/* the kernel's open flags, whatever libc's are */
#include "pf_escape.h"
#include "pfiles_fmt.h"
#include "sock/sockopts.h"

#define	NELEM(a)	(sizeof (a) / sizeof ((a)[0]))

/*
 * The text of a record, built in memory and handed to the stream in one
 * fwrite: without the printf family (three quarters of the formatter's
 * time once) and without stdio's own cost per call, which was a third of
 * what was left with some twenty writes per record.  A piece that does
 * not fit flushes what is there first, so the buffer bounds nothing.
 * Text from the target goes in through lb_esc (pf_escape.c's rule).
 */
#define	LB_SIZE		4096
#define	LB_NUMMAX	20	/* digits of the largest unsigned long long */

typedef struct lbuf {
	FILE	*lb_out;
	size_t	lb_len;
	char	lb_buf[LB_SIZE];
} lbuf_t;

static void
lb_init(lbuf_t *lb, FILE *out)
{
	lb->lb_out = out;
	lb->lb_len = 0;
}

/* Out of line: the rare way, where lb_room and the writes are in line. */
static __attribute__((noinline)) void
lb_flush(lbuf_t *lb)
{
	if (lb->lb_len > 0)
		(void) fwrite(lb->lb_buf, 1, lb->lb_len, lb->lb_out);
	lb->lb_len = 0;
}

/* Where n more bytes (n <= LB_SIZE) go: flushed first if they'd not fit. */
static inline __attribute__((always_inline)) char *
lb_room(lbuf_t *lb, size_t n)
{
	if (LB_SIZE - lb->lb_len < n)
		lb_flush(lb);
	return (lb->lb_buf + lb->lb_len);
}

/*
 * A line whose length has a bound: room for all of it is made once
 * (lb_begin), its pieces are put at a cursor kept in a register, with no
 * check each (put_*: each returns the cursor after what it put), and the
 * buffer takes them (lb_end).  A piece of unbounded length (the target's
 * text) is never put so: it goes through lb_esc.
 */
static inline __attribute__((always_inline)) char *
lb_begin(lbuf_t *lb, size_t bound)
{
	return (lb_room(lb, bound));
}

static inline __attribute__((always_inline)) void
lb_end(lbuf_t *lb, char *p)
{
	lb->lb_len = (size_t)(p - lb->lb_buf);
}

/*
 * n bytes.  Most pieces are words of a few bytes: those are copied as two
 * overlapping 8- or 4-byte moves, not by a call of memcpy for n bytes.
 */
static inline __attribute__((always_inline)) char *
put_mem(char *p, const char *s, size_t n)
{
	if (n >= 8 && n <= 16) {
		memcpy(p, s, 8);
		memcpy(p + n - 8, s + n - 8, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(p, s, 4);
		memcpy(p + n - 4, s + n - 4, 4);
	} else if (n < 4) {
		for (size_t i = 0; i < n; i++)
			p[i] = s[i];
	} else {
		memcpy(p, s, n);
	}
	return (p + n);
}

#define	put_lit(p, s)	put_mem((p), ("" s), sizeof (s) - 1)

static inline __attribute__((always_inline)) char *
put_chr(char *p, char c)
{
	*p = c;
	return (p + 1);
}

/* n bytes. */
static inline __attribute__((always_inline)) void
lb_mem(lbuf_t *lb, const char *s, size_t n)
{
	if (n > LB_SIZE) {
		lb_flush(lb);
		(void) fwrite(s, 1, n, lb->lb_out);
		return;
	}
	lb_end(lb, put_mem(lb_room(lb, n), s, n));
}

/* A string literal: its length known when compiled. */
#define	lb_lit(lb, s)	lb_mem((lb), (s), sizeof (s) - 1)

static inline __attribute__((always_inline)) void
lb_str(lbuf_t *lb, const char *s)
{
	lb_mem(lb, s, strlen(s));
}

static inline __attribute__((always_inline)) void
lb_chr(lbuf_t *lb, char c)
{
	*lb_room(lb, 1) = c;
	lb->lb_len++;
}

/*
 * n bytes of text from the target, through the rule (pf_escape.c): into
 * the buffer when its escaped form (at most PF_ESC_UNITMAX bytes per
 * byte) fits there, else straight to the stream.
 */
static void
lb_esc(lbuf_t *lb, const void *s, size_t n)
{
	if (n < LB_SIZE / PF_ESC_UNITMAX) {
		char *at = lb_room(lb, n * PF_ESC_UNITMAX + 1);

		lb->lb_len += pf_escape(at, LB_SIZE - lb->lb_len, s, n,
		    PF_ESC_NOMAX);
		return;
	}
	lb_flush(lb);
	pf_fputesc(lb->lb_out, s, n);
}

/* The decimal digits of 0 to 99, two by two. */
static const char lb_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930"
    "31323334353637383940414243444546474849505152535455565758596061"
    "62636465666768697071727374757677787980818283848586878889909192"
    "93949596979899";

/*
 * An unsigned number in decimal, at p (LB_NUMMAX bytes at most): written
 * in place from its last digit, two at a time from a table, in 32-bit
 * arithmetic when it fits (most numbers here: ports, octets, ids,
 * inodes).  One or two digits (the zeros of dev:, uid:, rdev:...)
 * without counting them first.
 */
static char *
put_uint(char *p, unsigned long long v)
{
	static const unsigned long long tens[LB_NUMMAX] = {
		1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
	};
	size_t ndig;
	char *end;
	uint32_t w;

	if (v < 10)
		return (put_chr(p, (char)('0' + v)));
	if (v < 100)
		return (put_mem(p, &lb_pairs[2 * v], 2));
	/*
	 * Its digits: log10 from its bit length (1233 / 4096 is just above
	 * log10(2)), one less when below that power of ten.
	 */
	ndig = (size_t)(64 - __builtin_clzll(v)) * 1233 >> 12;
	ndig += v >= tens[ndig];
	end = p + ndig;
	p = end;
	while (v > UINT32_MAX) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		p -= 2;
		memcpy(p, &lb_pairs[2 * r], 2);
	}
	for (w = (uint32_t)v; w >= 100; w /= 100) {
		p -= 2;
		memcpy(p, &lb_pairs[2 * (w % 100)], 2);
	}
	if (w >= 10) {
		p -= 2;
		memcpy(p, &lb_pairs[2 * w], 2);
	} else {
		*--p = (char)('0' + w);
	}
	return (end);
}

static void
lb_uint(lbuf_t *lb, unsigned long long v)
{
	lb_end(lb, put_uint(lb_begin(lb, LB_NUMMAX), v));
}

/* A signed number: its sign and LB_NUMMAX digits at most. */
static char *
put_int(char *p, long long v)
{
	if (v < 0)
		return (put_uint(put_chr(p, '-'), 0ULL - (unsigned long long)v));
	return (put_uint(p, (unsigned long long)v));
}

static void
lb_int(lbuf_t *lb, long long v)
{
	lb_end(lb, put_int(lb_begin(lb, 1 + LB_NUMMAX), v));
}

/* "%*d": v right-aligned in width (< LB_NUMMAX) columns. */
static void
lb_int_right(lbuf_t *lb, int v, int width)
{
	unsigned mag = v < 0 ? 0U - (unsigned)v : (unsigned)v;
	int n = v < 0 ? 2 : 1;

	for (; mag >= 10; mag /= 10)
		n++;
	if (n < width)
		lb_mem(lb, "                    ", (size_t)(width - n));
	lb_int(lb, v);
}


/* The header's command line: at most this many bytes, once escaped. */
#define	HEADER_ARGS_MAX	70

void
pf_header(FILE *out, const psinfo_t *psp, const struct rlimit *rl)
{
	char args[HEADER_ARGS_MAX + 1];

	/*
	 * Escaped first, then cut, at a unit's end.  pr_psargs holds more
	 * than 70 bytes of the command line, and no byte escapes to less
	 * than itself, so the cut is never short of input.  No arguments
	 * (a process exec'd with an empty argv): its name.
	 */
	if (psp->pr_psargs[0] != '\0')
		(void) pf_escape(args, sizeof (args), psp->pr_psargs,
		    strnlen(psp->pr_psargs, sizeof (psp->pr_psargs)),
		    HEADER_ARGS_MAX);
	else
		(void) pf_escape(args, sizeof (args), psp->pr_fname,
		    strnlen(psp->pr_fname, sizeof (psp->pr_fname)),
		    HEADER_ARGS_MAX);
	(void) fprintf(out, "%d:\t%s\n", (int)psp->pr_pid, args);
	if (rl == NULL)
		return;
	if (rl->rlim_cur == RLIM_INFINITY)
		(void) fprintf(out, "  Current rlimit: unlimited "
		    "file descriptors\n");
	else
		(void) fprintf(out, "  Current rlimit: %llu file descriptors\n",
		    (unsigned long long)rl->rlim_cur);
}

void
pf_sysproc(FILE *out, const psinfo_t *psp)
{
	(void) fprintf(out, "%d:\t", (int)psp->pr_pid);
	pf_fputesc(out, psp->pr_fname, strnlen(psp->pr_fname,
	    sizeof (psp->pr_fname)));
	(void) fputs("\n  [system process]\n", out);
}

/* "anon_inode:[NAME]" or "anon_inode:NAME": NAME, or NULL. */
static const char *
anon_name(const char *path, size_t *lenp)
{
	static const char pfx[] = "anon_inode:";
	const char *name;
	size_t len;

	if (path == NULL || strncmp(path, pfx, sizeof (pfx) - 1) != 0)
		return (NULL);
	name = path + sizeof (pfx) - 1;
	len = strlen(name);
	if (len >= 2 && name[0] == '[' && name[len - 1] == ']') {
		name++;
		len -= 2;
	}
	*lenp = len;
	return (name);
}

/*
 * The type word, into buf.  An anonymous inode's name is the target's
 * text: escaped, and cut where a unit ends when buf is too small for
 * all of it (the closing parenthesis is always there).
 */
const char *
pf_typeword(mode_t mode, const char *path, char *buf, size_t bufsz)
{
	static const char pfx[] = "anon_inode(";
	const char *name;
	size_t len, n;

	switch (mode & S_IFMT) {
	case S_IFREG:
		return ("S_IFREG");
	case S_IFDIR:
		return ("S_IFDIR");
	case S_IFCHR:
		return ("S_IFCHR");
	case S_IFBLK:
		return ("S_IFBLK");
	case S_IFIFO:
		return ("S_IFIFO");
	case S_IFLNK:
		return ("S_IFLNK");
	case S_IFSOCK:
		return ("S_IFSOCK");
	case 0:
		/* Room for "anon_inode(", ")" and the NUL at least. */
		if ((name = anon_name(path, &len)) != NULL &&
		    bufsz >= sizeof (pfx) + 1) {
			memcpy(buf, pfx, sizeof (pfx) - 1);
			n = sizeof (pfx) - 1;
			n += pf_escape(buf + n, bufsz - n - 1, name, len,
			    PF_ESC_NOMAX);
			buf[n++] = ')';
			buf[n] = '\0';
			return (buf);
		}
		break;
	}
	(void) snprintf(buf, bufsz, "0x%.4x", (unsigned)(mode & S_IFMT));
	return (buf);
}

/*
 * After the type word: " mode:0" and 4 digits; " dev:", " ino:", " uid:"
 * and " gid:"; " rdev:" or " size:"; 7 numbers of LB_NUMMAX digits at
 * most (dev's two, ino, uid, gid, and rdev's two or the size); a sign,
 * two commas and the newline.
 */
#define	STAT_REST_MAX	(7 + 4 + 4 * 5 + 6 + 7 * LB_NUMMAX + 1 + 2 + 1)

static void
stat_line(lbuf_t *lb, const prfdinfo_t *info, const char *path)
{
	char tbuf[32];
	mode_t fmt = info->pr_mode & S_IFMT;
	const char *name;
	size_t len;
	unsigned m = (unsigned)(info->pr_mode & 07777);
	char oct[8], *p;
	int n = 0;

	/* "%4d: " */
	lb_int_right(lb, info->pr_fd, 4);
	lb_lit(lb, ": ");
	if (fmt == 0 && (name = anon_name(path, &len)) != NULL) {
		lb_lit(lb, "anon_inode(");
		lb_esc(lb, name, len);
		lb_chr(lb, ')');
	} else {
		lb_str(lb, pf_typeword(info->pr_mode, path, tbuf,
		    sizeof (tbuf)));
	}
	/* mode:0%.3o: at least three octal digits after the 0. */
	do {
		oct[n++] = (char)('0' + (m & 7));
		m >>= 3;
	} while (m != 0);
	while (n < 3)
		oct[n++] = '0';
	/* The rest: words, six numbers, and a sign, within STAT_REST_MAX. */
	p = lb_begin(lb, STAT_REST_MAX);
	p = put_lit(p, " mode:0");
	while (n > 0)
		p = put_chr(p, oct[--n]);
	p = put_lit(p, " dev:");
	p = put_uint(p, info->pr_major);
	p = put_chr(p, ',');
	p = put_uint(p, info->pr_minor);
	p = put_lit(p, " ino:");
	p = put_uint(p, (unsigned long long)info->pr_ino);
	p = put_lit(p, " uid:");
	p = put_uint(p, (unsigned)info->pr_uid);
	p = put_lit(p, " gid:");
	p = put_uint(p, (unsigned)info->pr_gid);
	if (fmt == S_IFCHR || fmt == S_IFBLK || fmt == S_IFSOCK) {
		p = put_lit(p, " rdev:");
		p = put_uint(p, info->pr_rmajor);
		p = put_chr(p, ',');
		p = put_uint(p, info->pr_rminor);
	} else {
		p = put_lit(p, " size:");
		p = put_int(p, (long long)info->pr_size);
	}
	p = put_chr(p, '\n');
	lb_end(lb, p);
}

void
pf_flag_each(int fileflags, int fdflags, pf_name_f *fn, void *arg)
{
	static const struct {
		unsigned	bits;	/* consumed when printed */
		unsigned	test;	/* printed when all of these are set */
		const char	*name;
	} flags[] = {
		{ K_O_NONBLOCK, K_O_NONBLOCK, "O_NONBLOCK" },
		{ K_O_APPEND, K_O_APPEND, "O_APPEND" },
		{ K_O_SYNC_BIT | K_O_DSYNC, K_O_SYNC_BIT, "O_SYNC" },
		{ K_O_DSYNC, K_O_DSYNC, "O_DSYNC" },
		{ K_O_ASYNC, K_O_ASYNC, "O_ASYNC" },
		{ K_O_DIRECT, K_O_DIRECT, "O_DIRECT" },
		{ K_O_LARGEFILE, K_O_LARGEFILE, "O_LARGEFILE" },
		{ K_O_DIRECTORY, K_O_DIRECTORY, "O_DIRECTORY" },
		{ K_O_NOFOLLOW, K_O_NOFOLLOW, "O_NOFOLLOW" },
		{ K_O_NOATIME, K_O_NOATIME, "O_NOATIME" },
		{ K_O_TMPFILE_BIT, K_O_TMPFILE_BIT, "O_TMPFILE" },
	};
	unsigned left = (unsigned)fileflags & ~(unsigned)K_O_CLOEXEC;
	char hex[16];

	if (left & K_O_PATH) {
		fn(arg, "O_PATH");
		left &= ~(unsigned)(K_O_PATH | K_O_ACCMODE);
	} else {
		switch (left & K_O_ACCMODE) {
		case O_RDONLY:
			fn(arg, "O_RDONLY");
			break;
		case O_WRONLY:
			fn(arg, "O_WRONLY");
			break;
		case O_RDWR:
			fn(arg, "O_RDWR");
			break;
		default:
			(void) snprintf(hex, sizeof (hex), "0x%x",
			    left & K_O_ACCMODE);
			fn(arg, hex);
			break;
		}
		left &= ~(unsigned)K_O_ACCMODE;
	}
	for (size_t i = 0; i < NELEM(flags); i++) {
		if ((left & flags[i].test) == flags[i].test) {
			fn(arg, flags[i].name);
			left &= ~flags[i].bits;
		}
	}
	if ((fdflags & FD_CLOEXEC) || (fileflags & K_O_CLOEXEC))
		fn(arg, "O_CLOEXEC");
	if (left != 0) {
		(void) snprintf(hex, sizeof (hex), "0x%x", left);
		fn(arg, hex);
	}
}

/*
 * The flags' words and their separators: pf_flag_each names the access
 * mode (a word, or a hex word of 10 bytes at most), each of the 11 flags
 * of its table (the longest 11 bytes) at most once, O_CLOEXEC, and the
 * bits left (a hex word): 14 words at most, bounded here by 16 of 11 and
 * 2 of 10.
 */
#define	FLAGS_MAX	(16 * (11 + 1) + 2 * (10 + 1))

typedef struct flag_text {
	char	*ft_p;		/* the cursor, in room for FLAGS_MAX */
	int	ft_n;
} flag_text_t;

static void
flag_text(void *arg, const char *name)
{
	flag_text_t *ft = arg;

	if (ft->ft_n++ > 0)
		ft->ft_p = put_chr(ft->ft_p, '|');
	ft->ft_p = put_mem(ft->ft_p, name, strlen(name));
}

static void
lb_fileflags(lbuf_t *lb, int fileflags, int fdflags)
{
	flag_text_t ft = { lb_begin(lb, FLAGS_MAX), 0 };

	pf_flag_each(fileflags, fdflags, flag_text, &ft);
	lb_end(lb, ft.ft_p);
}

void
pf_fileflags(FILE *out, int fileflags, int fdflags)
{
	lbuf_t lb;

	lb_init(&lb, out);
	lb_fileflags(&lb, fileflags, fdflags);
	lb_flush(&lb);
}

static void
lock_lines(lbuf_t *lb, const pf_items_t *ix)
{
	const prfdlock_t *lk;
	prfdlock_t l;
	size_t len;

	if ((lk = pf_item(ix, PR_LOCKS, &len)) == NULL)
		return;
	for (size_t i = 0; i < len / sizeof (l); i++) {
		memcpy(&l, (const char *)lk + i * sizeof (l), sizeof (l));
		lb_lit(lb, "      ");
		lb_str(lb, l.pr_mandatory ? "mandatory" : "advisory");
		lb_chr(lb, ' ');
		lb_str(lb, l.pr_type == F_WRLCK ? "write" :
		    l.pr_type == F_RDLCK ? "read" : "unlock");
		lb_lit(lb, " lock set");
		if (l.pr_pid > 0) {
			lb_lit(lb, " by process ");
			lb_int(lb, (int)l.pr_pid);
		}
		lb_chr(lb, '\n');
	}
}

/* An int item, or def when the record has none. */
static int
int_item(const pf_items_t *ix, uint_t type, int def)
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
pf_sockopt_each(const prfdinfo_t *info, pf_opt_f *fn, void *arg)
{
	pf_items_t ix;

	pf_items(info, &ix);
	sockopt_each(&ix, 0, fn, arg);
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
		const unsigned char *path = (const unsigned char *)sa +
		    offsetof(struct sockaddr_un, sun_path);
		size_t plen = len - offsetof(struct sockaddr_un, sun_path);

		if (len < offsetof(struct sockaddr_un, sun_path))
			plen = 0;
		if (plen > sizeof (((struct sockaddr_un *)0)->sun_path))
			plen = sizeof (((struct sockaddr_un *)0)->sun_path);
		/*
		 * The target's text: a path up to its NUL, or every byte of
		 * an abstract name after its leading NUL (inner NULs too).
		 */
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
	} else if (family == AF_NETLINK &&
	    len >= sizeof (struct sockaddr_nl)) {
		struct sockaddr_nl snl;

		memcpy(&snl, sa, sizeof (snl));
		a->pa_kind = PF_ADDR_NETLINK;
		a->pa_protocol = protocol;
		a->pa_protoname = pf_netlink_proto_name(protocol);
		a->pa_nlpid = snl.nl_pid;
		a->pa_nlgroups = snl.nl_groups;
	} else {
		a->pa_kind = PF_ADDR_OTHER;
	}
	return (0);
}

/* An inet address's family name, address, port and words. */
#define	INET_REST_MAX	(16 + 1 + sizeof (((pf_addr_t *)0)->pa_addr) + 8 + \
	LB_NUMMAX)

static void
lb_sockaddr(lbuf_t *lb, const char *label, const void *sa, size_t len,
    int protocol)
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
	lb_sockaddr(&lb, label, sa, len, protocol);
	lb_flush(&lb);
}

/* What the source could not find out for this socket, added up. */
static void
note_gaps(pf_ctx_t *ctx, const pf_items_t *ix)
{
	const uint8_t *p;
	prsockgaps_t g;
	size_t len;

	if ((p = pf_item(ix, PR_SOCKGAPS, &len)) == NULL ||
	    len < sizeof (g) + 1)
		return;
	memcpy(&g, p, sizeof (g));
	if (ctx->pf_gaps.pr_known == 0 && ctx->pf_gapother == 0)
		(void) snprintf(ctx->pf_gapwhy, sizeof (ctx->pf_gapwhy),
		    "%.*s", (int)strnlen((const char *)p + sizeof (g),
		    len - sizeof (g)), (const char *)p + sizeof (g));
	ctx->pf_gaps.pr_known |= g.pr_bools;
	ctx->pf_gapother |= g.pr_other;
}

int
pf_gaps(FILE *out, const pf_ctx_t *ctx)
{
	static const struct {
		uint_t		g_bit;
		const char	*g_name;
	} other[] = {
		{ PR_GAP_PEERNAME, "peername" },
		{ PR_GAP_PEERCRED, "SO_PEERCRED" },
	};
	const sockopt_t *opts = sockopt_table();
	int n = 0;

	/* The table's order: the booleans, then SO_LINGER, SNDBUF, RCVBUF. */
	for (int row = 0; row < SOCKOPT_N; row++) {
		const sockopt_t *o = &opts[row];
		uint_t gap = o->so_kind == SOK_BOOL ?
		    ctx->pf_gaps.pr_known & o->so_bit :
		    o->so_item == PR_SOCKOPT_LINGER ?
		    ctx->pf_gapother & PR_GAP_LINGER :
		    o->so_item == PR_SOCKOPT_SNDBUF ?
		    ctx->pf_gapother & PR_GAP_SNDBUF :
		    ctx->pf_gapother & PR_GAP_RCVBUF;

		if (gap != 0)
			(void) fprintf(out, "%s%s", n++ > 0 ? "," : "",
			    o->so_name);
	}
	for (size_t i = 0; i < sizeof (other) / sizeof (other[0]); i++) {
		if (ctx->pf_gapother & other[i].g_bit)
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

static void
endpoint_each(const pf_items_t *ix, pf_endpoint_f *fn, void *arg)
{
	const uint8_t *p;
	prendpoints_t hdr;
	prendpoint_t end;
	size_t len;

	if ((p = pf_item(ix, PR_ENDPOINTS, &len)) == NULL ||
	    len < sizeof (hdr))
		return;
	memcpy(&hdr, p, sizeof (hdr));
	/* A damaged item: the holders it has room for, no more. */
	if (hdr.pr_nend > PR_ENDPOINTS_MAX)
		hdr.pr_nend = PR_ENDPOINTS_MAX;
	for (uint_t i = 0; i < hdr.pr_nend &&
	    sizeof (hdr) + (i + 1) * sizeof (end) <= len; i++) {
		memcpy(&end, p + sizeof (hdr) + i * sizeof (end), sizeof (end));
		fn(arg, end.pr_pid, end.pr_fd, 0);
	}
	if (hdr.pr_more > 0)
		fn(arg, 0, -1, hdr.pr_more);
}

void
pf_endpoint_each(const prfdinfo_t *info, pf_endpoint_f *fn, void *arg)
{
	pf_items_t ix;

	pf_items(info, &ix);
	endpoint_each(&ix, fn, arg);
}

/* Where the endpoint lines go. */
typedef struct ep_text {
	const pf_ctx_t	*et_ctx;
	lbuf_t		*et_lb;
} ep_text_t;

/* One endpoint line: a holder, or how many more there are. */
static void
endpoint_text(void *arg, pid_t pid, int fd, uint_t more)
{
	ep_text_t *et = arg;
	lbuf_t *lb = et->et_lb;
	char *p;

	if (more > 0) {
		lb_lit(lb, "\tendpoint: and ");
		lb_uint(lb, more);
		lb_lit(lb, " more\n");
		return;
	}
	/* "\tendpoint: %s[%d] fd %d\n" */
	lb_lit(lb, "\tendpoint: ");
	proc_name(et->et_ctx, lb, pid);
	p = lb_begin(lb, 1 + (1 + LB_NUMMAX) + 5 + (1 + LB_NUMMAX) + 1);
	p = put_chr(p, '[');
	p = put_int(p, pid);
	p = put_lit(p, "] fd ");
	p = put_int(p, fd);
	p = put_chr(p, '\n');
	lb_end(lb, p);
}

static void
socket_lines(const pf_ctx_t *ctx, lbuf_t *lb, const pf_items_t *ix)
{
	ep_text_t et = { ctx, lb };
	const void *sa;
	struct ucred cred;
	size_t len;
	int type, protocol, have_peer;

	type = int_item(ix, PR_SOCKOPT_TYPE, -1);
	if (pf_item(ix, PR_SOCKOPT_TYPE, NULL) != NULL)
		socktype_line(lb, type);
	sockopts_line(lb, ix);

	protocol = int_item(ix, PR_SOCKOPT_PROTOCOL, -1);
	if ((sa = pf_item(ix, PR_SOCKETNAME, &len)) != NULL)
		lb_sockaddr(lb, "sockname", sa, len, protocol);
	have_peer = (sa = pf_item(ix, PR_PEERSOCKNAME, &len)) != NULL;
	if (have_peer)
		lb_sockaddr(lb, "peername", sa, len, protocol);

	if (have_peer && int_item(ix, PR_SOCKOPT_DOMAIN, -1) == AF_UNIX &&
	    (sa = pf_item(ix, PR_PEERCRED, &len)) != NULL &&
	    len == sizeof (cred)) {
		memcpy(&cred, sa, sizeof (cred));
		if (cred.pid != 0) {
			lb_lit(lb, "\tpeer: ");
			proc_name(ctx, lb, cred.pid);
			lb_chr(lb, '[');
			lb_int(lb, (int)cred.pid);
			lb_lit(lb, "]\n");
		}
	}
	endpoint_each(ix, endpoint_text, &et);
}

static void
account(pf_ctx_t *ctx, const pf_items_t *ix)
{
	const void *err;
	size_t len;

	if (ctx->pf_statonly)
		return;
	if (pf_item(ix, PR_LOCKS_DROPPED, NULL) != NULL)
		ctx->pf_nlockdrop++;
	if ((err = pf_item(ix, PR_SOCKERR, &len)) != NULL &&
	    ctx->pf_nsockerr++ == 0)
		(void) snprintf(ctx->pf_sockerr, sizeof (ctx->pf_sockerr),
		    "%.*s", (int)strnlen(err, len), (const char *)err);
	note_gaps(ctx, ix);
}

void
pf_account(pf_ctx_t *ctx, const prfdinfo_t *info)
{
	pf_items_t ix;

	pf_items(info, &ix);
	account(ctx, &ix);
}

static void
shown(const pf_items_t *ix, pf_shown_t *sh)
{
	const prfdinfo_t *info = ix->pi_info;
	mode_t fmt = info->pr_mode & S_IFMT;
	const char *path;
	size_t len;

	path = pf_item(ix, PR_PATHNAME, &len);
	if (path != NULL && (len == 0 || path[len - 1] != '\0'))
		path = NULL;		/* not a string: do not use it */
	sh->ps_path = path;
	/* An O_PATH fd on a socket file is a path, not an endpoint. */
	sh->ps_socket = fmt == S_IFSOCK && !(info->pr_fileflags & K_O_PATH);
	sh->ps_pathline = !sh->ps_socket && path != NULL &&
	    !(fmt == 0 && anon_name(path, &len) != NULL);
	sh->ps_offset = (fmt == S_IFREG || fmt == S_IFDIR || fmt == S_IFCHR ||
	    fmt == S_IFBLK) && info->pr_offset >= 0;
}

void
pf_shown(const prfdinfo_t *info, pf_shown_t *sh)
{
	pf_items_t ix;

	pf_items(info, &ix);
	shown(&ix, sh);
}

void
pf_items(const prfdinfo_t *info, pf_items_t *ix)
{
	pr_misc_header_t hdr;
	size_t off = 0;

	memset(ix, 0, sizeof (*ix));
	ix->pi_info = info;
	/* The walk of proc_fdinfo_misc(): a damaged header ends it. */
	while (off < info->pr_misc_size &&
	    info->pr_misc_size - off >= sizeof (hdr)) {
		memcpy(&hdr, info->pr_misc + off, sizeof (hdr));
		if (hdr.pr_misc_size < sizeof (hdr) ||
		    hdr.pr_misc_size > info->pr_misc_size - off)
			break;
		if (hdr.pr_misc_type <= PF_ITEM_MAX &&
		    ix->pi_p[hdr.pr_misc_type] == NULL) {
			ix->pi_p[hdr.pr_misc_type] = info->pr_misc + off +
			    sizeof (hdr);
			ix->pi_len[hdr.pr_misc_type] = hdr.pr_misc_size -
			    sizeof (hdr);
		}
		off += PR_MISC_NEXT(hdr.pr_misc_size);
	}
}

const void *
pf_item(const pf_items_t *ix, uint_t type, size_t *lenp)
{
	if (type > PF_ITEM_MAX)
		return (proc_fdinfo_misc(ix->pi_info, type, lenp));
	if (lenp != NULL)
		*lenp = ix->pi_len[type];
	return (ix->pi_p[type]);
}

static void
file_lines(pf_ctx_t *ctx, lbuf_t *lb, const pf_items_t *ix)
{
	const prfdinfo_t *info = ix->pi_info;
	pf_shown_t sh;

	shown(ix, &sh);
	stat_line(lb, info, sh.ps_path);
	account(ctx, ix);
	if (ctx->pf_statonly)
		return;

	lb_lit(lb, "      ");
	lb_fileflags(lb, info->pr_fileflags, info->pr_fdflags);
	lb_chr(lb, '\n');
	lock_lines(lb, ix);
	if (sh.ps_socket) {
		socket_lines(ctx, lb, ix);
	} else if (sh.ps_pathline) {
		lb_lit(lb, "      ");
		lb_esc(lb, sh.ps_path, strlen(sh.ps_path));
		lb_chr(lb, '\n');
	}
	if (sh.ps_offset) {
		lb_lit(lb, "      offset:");
		lb_int(lb, (long long)info->pr_offset);
		lb_chr(lb, '\n');
	}
}

/*
 * A record's lines, built in memory and handed to stdio in one fwrite
 * (more when they outgrow LB_SIZE: many endpoint lines, a long path).
 */
int
pf_file_items(pf_ctx_t *ctx, const pf_items_t *ix)
{
	lbuf_t lb;

	lb_init(&lb, ctx->pf_out);
	file_lines(ctx, &lb, ix);
	lb_flush(&lb);
	return (0);
}

int
pf_file(pf_ctx_t *ctx, const prfdinfo_t *info)
{
	pf_items_t ix;

	pf_items(info, &ix);
	return (pf_file_items(ctx, &ix));
}
