/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pfiles_fmt.c: what pfiles prints for a process and each of its fds.
 * The layout is illumos pfiles' own; the contract is pfiles.1.
 *
 * Here: the header, the stat line, the flags line, the lock lines and the
 * path and offset lines, the block of one fd that puts them together, and
 * the index of a record's items that every line is made from.  A socket's
 * own lines are pf_sockfmt.c's; the line buffer they are all written to,
 * pf_lbuf.h's.
 *
 * Text the target controls (its command line, comm, paths, unix socket
 * names, anonymous inode names) is never printed raw: it goes through
 * pf_escape.c's rule, so that the target cannot forge lines or fields,
 * nor send escape sequences to the terminal.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "kconst.h"	/* the kernel's open flags, whatever libc's are */
#include "pf_escape.h"
#include "pf_lbuf.h"
#include "pf_sockfmt.h"
#include "pfiles_fmt.h"

#define	NELEM(a)	(sizeof (a) / sizeof ((a)[0]))

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

void
pf_account(pf_ctx_t *ctx, const pf_items_t *ix)
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
	pf_note_gaps(ctx, ix);
}

void
pf_shown(const pf_items_t *ix, pf_shown_t *sh)
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

/* proc_fdinfowalk()'s func for pf_items(): the first item of each type. */
static int
index_item(uint_t type, const void *data, size_t len, void *arg)
{
	pf_items_t *ix = arg;

	if (type <= PF_ITEM_MAX && ix->pi_p[type] == NULL) {
		ix->pi_p[type] = data;
		ix->pi_len[type] = len;
	}
	return (0);	/* on to the next item */
}

void
pf_items(const prfdinfo_t *info, pf_items_t *ix)
{
	memset(ix, 0, sizeof (*ix));
	ix->pi_info = info;
	/* libproc's walk checks the headers: a damaged one ends it. */
	(void) proc_fdinfowalk(info, index_item, ix);
}

static void
file_lines(pf_ctx_t *ctx, lbuf_t *lb, const pf_items_t *ix)
{
	const prfdinfo_t *info = ix->pi_info;
	pf_shown_t sh;

	pf_shown(ix, &sh);
	stat_line(lb, info, sh.ps_path);
	pf_account(ctx, ix);
	if (ctx->pf_statonly)
		return;

	lb_lit(lb, "      ");
	lb_fileflags(lb, info->pr_fileflags, info->pr_fdflags);
	lb_chr(lb, '\n');
	lock_lines(lb, ix);
	if (sh.ps_socket) {
		pf_socket_lines(ctx, lb, ix);
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
