/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_pfiles_fmt: unit tests of the pieces of pfiles' formatting that
 * decode kernel values (file flags, addresses, types, modes, locks, the
 * header) and of its one escaping rule (pf_escape); t_parsers holds the
 * parsers of kernel data.
 */
#include "parsers_util.h"
#include <linux/if_packet.h>
#include "kconst.h"	/* the kernel's open flags on this ISA */

/* What f(out) prints, as a malloc'd string. */
#define	CAPTURE(expr, bufp) do {					\
	size_t sz_;							\
	FILE *out = open_memstream((bufp), &sz_);			\
	ATF_REQUIRE(out != NULL);					\
	expr;								\
	ATF_REQUIRE_EQ(fclose(out), 0);					\
} while (0)

ATF_TC_WITHOUT_HEAD(fmt_fileflags);
ATF_TC_BODY(fmt_fileflags, tc)
{
	static const struct {
		int		flags;
		int		fdflags;
		const char	*text;
	} cases[] = {
		{ 00, 0, "O_RDONLY" },
		{ K_O_LARGEFILE | 02, FD_CLOEXEC,
		    "O_RDWR|O_LARGEFILE|O_CLOEXEC" },
		{ 04002 | 02000, 0, "O_RDWR|O_NONBLOCK|O_APPEND" },
		{ 04010001, 0, "O_WRONLY|O_SYNC" },
		{ 010001, 0, "O_WRONLY|O_DSYNC" },
		{ 010000000, 0, "O_PATH" },
		{ 010000000 | K_O_DIRECTORY, FD_CLOEXEC,
		    "O_PATH|O_DIRECTORY|O_CLOEXEC" },
		{ 03, 0, "0x3" },
		{ 040000000 | 02, 0, "O_RDWR|0x800000" },
		{ 020000000 | K_O_DIRECTORY | 02, 0,
		    "O_RDWR|O_DIRECTORY|O_TMPFILE" },
		{ 020000 | K_O_DIRECT | K_O_NOFOLLOW | 01000000, 0,
		    "O_RDONLY|O_ASYNC|O_DIRECT|O_NOFOLLOW|O_NOATIME" },
	};
	char *s;

	for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
		CAPTURE(pf_fileflags(out, cases[i].flags, cases[i].fdflags),
		    &s);
		ATF_CHECK_STREQ_MSG(s, cases[i].text, "flags 0%o",
		    (unsigned)cases[i].flags);
		free(s);
	}
}

ATF_TC_WITHOUT_HEAD(fmt_sockaddr);
ATF_TC_BODY(fmt_sockaddr, tc)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_port = htons(8080) };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6,
	    .sin6_port = htons(443) };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct sockaddr_nl snl = { .nl_family = AF_NETLINK, .nl_pid = 77,
	    .nl_groups = 0x11 };
	sa_family_t fam;
	char *s;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CAPTURE(pf_sockaddr(out, "sockname", &sin, sizeof (sin), 6), &s);
	ATF_CHECK_STREQ(s, "\tsockname: AF_INET 127.0.0.1  port: 8080\n");
	free(s);

	sin6.sin6_addr = in6addr_loopback;
	CAPTURE(pf_sockaddr(out, "peername", &sin6, sizeof (sin6), 6), &s);
	ATF_CHECK_STREQ(s, "\tpeername: AF_INET6 ::1  port: 443\n");
	free(s);

	memcpy(sun.sun_path, "/tmp/s", 7);
	CAPTURE(pf_sockaddr(out, "sockname", &sun,
	    offsetof(struct sockaddr_un, sun_path) + 7, 0), &s);
	ATF_CHECK_STREQ(s, "\tsockname: AF_UNIX /tmp/s\n");
	free(s);

	memcpy(sun.sun_path, "\0a\x01\x7f" "b", 5);	/* abstract */
	CAPTURE(pf_sockaddr(out, "sockname", &sun,
	    offsetof(struct sockaddr_un, sun_path) + 5, 0), &s);
	ATF_CHECK_STREQ(s, "\tsockname: AF_UNIX @a\\x01\\x7fb\n");
	free(s);

	CAPTURE(pf_sockaddr(out, "peername", &sun,
	    offsetof(struct sockaddr_un, sun_path), 0), &s);
	ATF_CHECK_STREQ(s, "\tpeername: AF_UNIX \n");
	free(s);

	CAPTURE(pf_sockaddr(out, "sockname", &snl, sizeof (snl), 0), &s);
	ATF_CHECK_STREQ(s, "\tsockname: AF_NETLINK NETLINK_ROUTE  pid: 77"
	    "  groups: 0x00000011\n");
	free(s);
	CAPTURE(pf_sockaddr(out, "sockname", &snl, sizeof (snl), 99), &s);
	ATF_CHECK_STREQ(s, "\tsockname: AF_NETLINK protocol 99  pid: 77"
	    "  groups: 0x00000011\n");
	free(s);

	fam = AF_PACKET;
	CAPTURE(pf_sockaddr(out, "sockname", &fam, sizeof (fam), 0), &s);
	ATF_CHECK_STREQ(s, "\tsockname: AF_PACKET\n");
	free(s);
	fam = 250;
	CAPTURE(pf_sockaddr(out, "sockname", &fam, sizeof (fam), 0), &s);
	ATF_CHECK_STREQ(s, "\tsockname: AF_250\n");
	free(s);
	/* Too short to hold a family: nothing at all. */
	CAPTURE(pf_sockaddr(out, "sockname", &fam, 1, 0), &s);
	ATF_CHECK_STREQ(s, "");
	free(s);
}

ATF_TC_WITHOUT_HEAD(fmt_typeword);
ATF_TC_BODY(fmt_typeword, tc)
{
	char buf[64];

	ATF_CHECK_STREQ(pf_typeword(S_IFSOCK | 0777, "socket:[1]", buf,
	    sizeof (buf)), "S_IFSOCK");
	ATF_CHECK_STREQ(pf_typeword(0600, "anon_inode:[eventpoll]", buf,
	    sizeof (buf)), "anon_inode(eventpoll)");
	ATF_CHECK_STREQ(pf_typeword(0600, "anon_inode:inotify", buf,
	    sizeof (buf)), "anon_inode(inotify)");
	ATF_CHECK_STREQ(pf_typeword(0600, "/weird", buf, sizeof (buf)),
	    "0x0000");
	ATF_CHECK_STREQ(pf_typeword(0170000 | 0600, NULL, buf, sizeof (buf)),
	    "0xf000");
	/*
	 * The brackets are taken off only as a pair: a name that opens one
	 * and does not close it (or closes one it never opened) is NAME.
	 */
	ATF_CHECK_STREQ(pf_typeword(0600, "anon_inode:[abc", buf,
	    sizeof (buf)), "anon_inode([abc)");
	ATF_CHECK_STREQ(pf_typeword(0600, "anon_inode:abc]", buf,
	    sizeof (buf)), "anon_inode(abc])");
	ATF_CHECK_STREQ(pf_typeword(0600, "anon_inode:[]", buf,
	    sizeof (buf)), "anon_inode()");
}

/*
 * pf_escape: the rule for text from the target (pfiles.1, "Text from
 * the target"), and every field of pfiles_fmt.c that
 * goes through it.
 */
/* pf_escape() of the len bytes at in, whole, as a NUL-ended string. */
static void
check_escape(const char *in, size_t len, const char *want)
{
	char out[256];
	size_t n;

	ATF_REQUIRE(len * 4 < sizeof (out));
	n = pf_escape(out, sizeof (out), in, len, PF_ESC_NOMAX);
	ATF_CHECK_EQ_MSG(n, strlen(out), "escape of \"%s\": %zu bytes but "
	    "NUL at %zu", want, n, strlen(out));
	ATF_CHECK_STREQ_MSG(out, want, "escape of %zu bytes", len);
}

#define	ESC(in, want)	check_escape(in, sizeof (in) - 1, want)

ATF_TC_WITHOUT_HEAD(esc_ascii);
ATF_TC_BODY(esc_ascii, tc)
{
	ESC("", "");
	ESC("/srv/plain path (deleted)", "/srv/plain path (deleted)");
	ESC(" !~[]@", " !~[]@");
	ESC("\\", "\\\\");
	ESC("a\\x41\\\\", "a\\\\x41\\\\\\\\");
	ESC("\x00\x01\x1f\x7f", "\\x00\\x01\\x1f\\x7f");
	ESC("\t\n\r\x1b[31m", "\\x09\\x0a\\x0d\\x1b[31m");
	ESC("a\nb", "a\\x0ab");
}

ATF_TC_WITHOUT_HEAD(esc_utf8_kept);
ATF_TC_BODY(esc_utf8_kept, tc)
{
	ESC("/srv/donn\xc3\xa9" "es", "/srv/donn\xc3\xa9" "es");
	ESC("\xc2\xa0", "\xc2\xa0");			/* U+00A0 */
	ESC("\xdf\xbf", "\xdf\xbf");			/* U+07FF */
	ESC("\xe0\xa0\x80", "\xe0\xa0\x80");		/* U+0800 */
	ESC("\xe2\x80\x8a", "\xe2\x80\x8a");		/* U+200A */
	ESC("\xe2\x80\x90", "\xe2\x80\x90");		/* U+2010 */
	ESC("\xe2\x80\xa7", "\xe2\x80\xa7");		/* U+2027 */
	ESC("\xe2\x80\xaf", "\xe2\x80\xaf");		/* U+202F */
	ESC("\xe2\x81\xa5", "\xe2\x81\xa5");		/* U+2065 */
	ESC("\xe2\x81\xaa", "\xe2\x81\xaa");		/* U+206A */
	ESC("\xed\x9f\xbf", "\xed\x9f\xbf");		/* U+D7FF */
	ESC("\xee\x80\x80", "\xee\x80\x80");		/* U+E000 */
	ESC("\xef\xbb\xbe", "\xef\xbb\xbe");		/* U+FEFE */
	ESC("\xef\xbf\xbd", "\xef\xbf\xbd");		/* U+FFFD */
	ESC("\xf0\x90\x80\x80", "\xf0\x90\x80\x80");	/* U+10000 */
	ESC("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");	/* U+1F600 */
	ESC("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf");	/* U+10FFFF */
}

ATF_TC_WITHOUT_HEAD(esc_utf8_hidden);
ATF_TC_BODY(esc_utf8_hidden, tc)
{
	ESC("\xc2\x80", "\\xc2\\x80");			/* C1 */
	ESC("\xc2\x85", "\\xc2\\x85");
	ESC("\xc2\x9f", "\\xc2\\x9f");
	ESC("\xe2\x80\x8b", "\\xe2\\x80\\x8b");		/* U+200B */
	ESC("\xe2\x80\x8f", "\\xe2\\x80\\x8f");		/* U+200F */
	ESC("\xe2\x80\xa8", "\\xe2\\x80\\xa8");		/* U+2028 */
	ESC("\xe2\x80\xa9", "\\xe2\\x80\\xa9");		/* U+2029 */
	ESC("\xe2\x80\xaa", "\\xe2\\x80\\xaa");		/* U+202A */
	ESC("\xe2\x80\xae", "\\xe2\\x80\\xae");		/* U+202E */
	ESC("\xe2\x81\xa6", "\\xe2\\x81\\xa6");		/* U+2066 */
	ESC("\xe2\x81\xa9", "\\xe2\\x81\\xa9");		/* U+2069 */
	ESC("\xef\xbb\xbf", "\\xef\\xbb\\xbf");		/* U+FEFF */
	ESC("a\xe2\x80\xae" "b", "a\\xe2\\x80\\xae" "b");
}

ATF_TC_WITHOUT_HEAD(esc_utf8_illformed);
ATF_TC_BODY(esc_utf8_illformed, tc)
{
	ESC("\x80", "\\x80");				/* continuation */
	ESC("\xbf\x80", "\\xbf\\x80");
	ESC("\xc0\xaf", "\\xc0\\xaf");			/* overlong */
	ESC("\xc1\xbf", "\\xc1\\xbf");
	ESC("\xe0\x80\xaf", "\\xe0\\x80\\xaf");
	ESC("\xe0\x9f\xbf", "\\xe0\\x9f\\xbf");
	ESC("\xf0\x8f\xbf\xbf", "\\xf0\\x8f\\xbf\\xbf");
	ESC("\xed\xa0\x80", "\\xed\\xa0\\x80");		/* surrogates */
	ESC("\xed\xbf\xbf", "\\xed\\xbf\\xbf");
	ESC("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");	/* > U+10FFFF */
	ESC("\xf5\x80\x80\x80", "\\xf5\\x80\\x80\\x80");
	ESC("\xf8\x88\x80\x80\x80", "\\xf8\\x88\\x80\\x80\\x80");
	ESC("\xfe\xff", "\\xfe\\xff");
	ESC("\xe2\x82", "\\xe2\\x82");			/* cut short */
	ESC("\xe2\x82" "A", "\\xe2\\x82" "A");
	ESC("\xf0\x9f\x98", "\\xf0\\x9f\\x98");
	/* A good sequence right after a bad lead byte is kept. */
	ESC("\xe2\xc3\xa9", "\\xe2\xc3\xa9");
	ESC("\xc3\xc3\xa9", "\\xc3\xc3\xa9");
}

ATF_TC_WITHOUT_HEAD(esc_cut);
ATF_TC_BODY(esc_cut, tc)
{
	char out[16];

	/* maxout: whole units only, and as many as fit. */
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "ab\x1b", 3, 3), 2);
	ATF_CHECK_STREQ(out, "ab");
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "ab\x1b", 3, 5), 2);
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "ab\x1b", 3, 6), 6);
	ATF_CHECK_STREQ(out, "ab\\x1b");
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "a\xc3\xa9", 3, 2), 1);
	ATF_CHECK_STREQ(out, "a");
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "a\xf0\x9f\x98\x80", 5,
	    4), 1);
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "a\\", 2, 2), 1);
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "a\\", 2, 3), 3);
	ATF_CHECK_STREQ(out, "a\\\\");
	/* Between two escapes of one hidden character is a unit's end. */
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "\xe2\x80\xae", 3, 9),
	    8);
	ATF_CHECK_STREQ(out, "\\xe2\\x80");
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "abc", 3, 0), 0);
	ATF_CHECK_STREQ(out, "");

	/* The buffer bounds it as maxout does, NUL included. */
	ATF_CHECK_EQ(pf_escape(out, 4, "abcdef", 6, PF_ESC_NOMAX), 3);
	ATF_CHECK_STREQ(out, "abc");
	ATF_CHECK_EQ(pf_escape(out, 6, "a\x01", 2, PF_ESC_NOMAX), 5);
	ATF_CHECK_EQ(pf_escape(out, 5, "a\x01", 2, PF_ESC_NOMAX), 1);
	ATF_CHECK_STREQ(out, "a");
	/* No room at all: nothing written, not even a NUL. */
	out[0] = 'x';
	ATF_CHECK_EQ(pf_escape(out, 0, "abc", 3, PF_ESC_NOMAX), 0);
	ATF_CHECK_EQ(out[0], 'x');
}

ATF_TC_WITHOUT_HEAD(esc_stream);
ATF_TC_BODY(esc_stream, tc)
{
	static const char piece[] = "\xf0\x9f\x98\x80\x1b\\\xc3\xa9z\xe2\x80";
	char in[1200], *want, *s;
	size_t n = 0, wlen;

	/* Long enough to cross pf_fputesc's chunks at every offset. */
	while (n + sizeof (piece) - 1 <= sizeof (in)) {
		memcpy(in + n, piece, sizeof (piece) - 1);
		n += sizeof (piece) - 1;
	}
	ATF_REQUIRE((want = malloc(4 * n + 1)) != NULL);
	wlen = pf_escape(want, 4 * n + 1, in, n, PF_ESC_NOMAX);
	ATF_CHECK(wlen > n);
	CAPTURE(pf_fputesc(out, in, n), &s);
	ATF_CHECK_STREQ(s, want);
	free(s);
	free(want);
}

ATF_TC_WITHOUT_HEAD(fmt_target_text);
ATF_TC_BODY(fmt_target_text, tc)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct rlimit rl = { 64, 64 };
	psinfo_t ps;
	char buf[64], *s;

	/* A unix path: a newline does not end the line. */
	memcpy(sun.sun_path, "/tmp/s\n  99: x\x1b\xff", 17);
	CAPTURE(pf_sockaddr(out, "sockname", &sun,
	    offsetof(struct sockaddr_un, sun_path) + 17, 0), &s);
	ATF_CHECK_STREQ(s, "\tsockname: AF_UNIX /tmp/s\\x0a  99: x\\x1b"
	    "\\xff\n");
	free(s);
	/* Abstract: an inner NUL and a backslash. */
	memcpy(sun.sun_path, "\0a\0b\\\xc3\xa9", 7);
	CAPTURE(pf_sockaddr(out, "peername", &sun,
	    offsetof(struct sockaddr_un, sun_path) + 7, 0), &s);
	ATF_CHECK_STREQ(s, "\tpeername: AF_UNIX @a\\x00b\\\\\xc3\xa9\n");
	free(s);

	ATF_CHECK_STREQ(pf_typeword(0600, "anon_inode:[a\nb]", buf,
	    sizeof (buf)), "anon_inode(a\\x0ab)");
	/* Too long for buf: cut where a unit ends, ")" kept. */
	ATF_CHECK_STREQ(pf_typeword(0600, "anon_inode:abc\x1b", buf, 19),
	    "anon_inode(abc)");
	ATF_CHECK_STREQ(pf_typeword(0600, "anon_inode:abc\x1b", buf, 20),
	    "anon_inode(abc\\x1b)");

	/* The header: escaped, then cut at 70 bytes where a unit ends. */
	memset(&ps, 0, sizeof (ps));
	ps.pr_pid = 42;
	(void) snprintf(ps.pr_psargs, sizeof (ps.pr_psargs), "%s\x1b%s",
	    "0123456789012345678901234567890123456789012345678901234567890123"
	    "456", "tail");
	CAPTURE(pf_header(out, &ps, &rl), &s);
	ATF_CHECK_STREQ(s, "42:\t0123456789012345678901234567890123456789"
	    "012345678901234567890123456\n  Current rlimit: 64 file "
	    "descriptors\n");
	free(s);
	/* No arguments: the name, through the same rule. */
	memset(ps.pr_psargs, 0, sizeof (ps.pr_psargs));
	(void) snprintf(ps.pr_fname, sizeof (ps.pr_fname), "a\nb");
	CAPTURE(pf_header(out, &ps, NULL), &s);
	ATF_CHECK_STREQ(s, "42:\ta\\x0ab\n");
	free(s);
	CAPTURE(pf_sysproc(out, &ps), &s);
	ATF_CHECK_STREQ(s, "42:\ta\\x0ab\n  [system process]\n");
	free(s);
}

/* The comm of every process, for the peer lines. */
static const char *
comm_of(void *arg, pid_t pid)
{
	return (pid == 4321 ? "peerproc" : NULL);
}

/* What pf_file prints of rec's record (-n when statonly). */
static char *
file_text(fdrec_t *rec, int statonly)
{
	pf_ctx_t ctx;
	char *s;

	(void) memset(&ctx, 0, sizeof (ctx));
	ctx.pf_statonly = statonly;
	ctx.pf_comm = comm_of;
	CAPTURE((ctx.pf_out = out, (void) pf_file(&ctx, fdrec_info(rec))),
	    &s);
	return (s);
}

ATF_TC_WITHOUT_HEAD(fmt_mode_bits);
ATF_TC_BODY(fmt_mode_bits, tc)
{
	static const struct {
		mode_t		mode;
		const char	*text;
	} cases[] = {
		{ S_IFDIR | 01777, "mode:01777" },	/* /tmp */
		{ S_IFREG | 04755, "mode:04755" },	/* set-user-ID */
		{ S_IFDIR | 02775, "mode:02775" },	/* set-group-ID */
		{ S_IFREG | 07000, "mode:07000" },
		{ S_IFREG | 0644, "mode:0644" },
		{ S_IFREG | 0, "mode:0000" },
	};
	fdrec_t rec = { NULL, 0 };

	for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
		char *s, want[128];

		ATF_REQUIRE_EQ(fdrec_reset(&rec, 3), 0);
		fdrec_info(&rec)->pr_mode = cases[i].mode;
		fdrec_info(&rec)->pr_offset = -1;
		s = file_text(&rec, 1);
		(void) snprintf(want, sizeof (want), "   3: %s %s dev:0,0 "
		    "ino:0 uid:0 gid:0 size:0\n", S_ISDIR(cases[i].mode) ?
		    "S_IFDIR" : "S_IFREG", cases[i].text);
		ATF_CHECK_STREQ_MSG(s, want, "mode 0%o",
		    (unsigned)cases[i].mode);
		free(s);
	}
	fdrec_free(&rec);
}

/* The fd number of the stat line, "%4d: ", at every width. */
ATF_TC_WITHOUT_HEAD(fmt_fd_width);
ATF_TC_BODY(fmt_fd_width, tc)
{
	static const int fds[] = { 0, 9, 10, 99, 100, 999, 1000, 12345,
	    2147483647 };
	fdrec_t rec = { NULL, 0 };

	for (size_t i = 0; i < sizeof (fds) / sizeof (fds[0]); i++) {
		char *s, want[128];

		ATF_REQUIRE_EQ(fdrec_reset(&rec, fds[i]), 0);
		fdrec_info(&rec)->pr_mode = S_IFREG | 0644;
		fdrec_info(&rec)->pr_offset = -1;
		s = file_text(&rec, 1);
		(void) snprintf(want, sizeof (want), "%4d: S_IFREG mode:0644 "
		    "dev:0,0 ino:0 uid:0 gid:0 size:0\n", fds[i]);
		ATF_CHECK_STREQ_MSG(s, want, "fd %d", fds[i]);
		free(s);
	}
	fdrec_free(&rec);
}

/* A connected unix stream socket's record, with its linger and cred. */
static void
unix_socket_rec(fdrec_t *rec, const struct linger *lg,
    const struct ucred *cred)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int domain = AF_UNIX, type = SOCK_STREAM;

	ATF_REQUIRE_EQ(fdrec_reset(rec, 5), 0);
	fdrec_info(rec)->pr_mode = S_IFSOCK | 0777;
	fdrec_info(rec)->pr_fileflags = O_RDWR;
	fdrec_info(rec)->pr_offset = -1;
	memcpy(sun.sun_path, "/s", 3);
	ATF_REQUIRE_EQ(fdrec_add(rec, PR_SOCKOPT_DOMAIN, &domain,
	    sizeof (domain)), 0);
	ATF_REQUIRE_EQ(fdrec_add(rec, PR_SOCKOPT_TYPE, &type,
	    sizeof (type)), 0);
	if (lg != NULL)
		ATF_REQUIRE_EQ(fdrec_add(rec, PR_SOCKOPT_LINGER, lg,
		    sizeof (*lg)), 0);
	ATF_REQUIRE_EQ(fdrec_add(rec, PR_PEERSOCKNAME, &sun,
	    offsetof(struct sockaddr_un, sun_path) + 3), 0);
	if (cred != NULL)
		ATF_REQUIRE_EQ(fdrec_add(rec, PR_PEERCRED, cred,
		    sizeof (*cred)), 0);
}

#define	SOCK_HEAD	"   5: S_IFSOCK mode:0777 dev:0,0 ino:0 uid:0 " \
	"gid:0 rdev:0,0\n      O_RDWR\n\tSOCK_STREAM\n"

ATF_TC_WITHOUT_HEAD(fmt_linger_and_peer);
ATF_TC_BODY(fmt_linger_and_peer, tc)
{
	const struct linger off = { 0, 5 }, on = { 1, 5 }, zero = { 1, 0 };
	const struct ucred nopid = { 0, 1000, 1000 };
	const struct ucred pid = { 4321, 1000, 1000 };
	fdrec_t rec = { NULL, 0 };
	char *s;

	/* SO_LINGER is shown when l_onoff is set, whatever l_linger. */
	unix_socket_rec(&rec, &off, NULL);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_HEAD "\tpeername: AF_UNIX /s\n");
	free(s);
	unix_socket_rec(&rec, &on, NULL);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_HEAD "\tSO_LINGER(5)\n"
	    "\tpeername: AF_UNIX /s\n");
	free(s);
	unix_socket_rec(&rec, &zero, NULL);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_HEAD "\tSO_LINGER(0)\n"
	    "\tpeername: AF_UNIX /s\n");
	free(s);

	/*
	 * SO_PEERCRED's pid 0 (a peer that never connected: a datagram
	 * socket connected to a bound one) names no process: no peer line.
	 */
	unix_socket_rec(&rec, NULL, &nopid);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_HEAD "\tpeername: AF_UNIX /s\n");
	free(s);
	/*
	 * A pid is never named by its number alone (the comm callback
	 * would name 4321): only with PR_PEERCOMM, the name of the process
	 * proven to be the one recorded, and only a NUL-ended one.
	 */
	unix_socket_rec(&rec, NULL, &pid);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_HEAD "\tpeername: AF_UNIX /s\n"
	    "\tpeer: ?[4321]\n");
	free(s);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_PEERCOMM, "proven", 7), 0);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_HEAD "\tpeername: AF_UNIX /s\n"
	    "\tpeer: proven[4321]\n");
	free(s);
	unix_socket_rec(&rec, NULL, &pid);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_PEERCOMM, "proven", 6), 0);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_HEAD "\tpeername: AF_UNIX /s\n"
	    "\tpeer: ?[4321]\n");
	free(s);
	fdrec_free(&rec);
}

/* A socket's record: fd 5, its domain and type, nothing else. */
static void
sock_rec(fdrec_t *rec, int domain, int type)
{
	ATF_REQUIRE_EQ(fdrec_reset(rec, 5), 0);
	fdrec_info(rec)->pr_mode = S_IFSOCK | 0777;
	fdrec_info(rec)->pr_fileflags = O_RDWR;
	fdrec_info(rec)->pr_offset = -1;
	ATF_REQUIRE_EQ(fdrec_add(rec, PR_SOCKOPT_DOMAIN, &domain,
	    sizeof (domain)), 0);
	ATF_REQUIRE_EQ(fdrec_add(rec, PR_SOCKOPT_TYPE, &type,
	    sizeof (type)), 0);
}

static void
add_state(fdrec_t *rec, int state, uint_t queues, uint32_t r, uint32_t w)
{
	prsockstate_t st = { state, queues, r, w };

	ATF_REQUIRE_EQ(fdrec_add(rec, PR_SOCKSTATE, &st, sizeof (st)), 0);
}

#define	SOCK_FIRST	"   5: S_IFSOCK mode:0777 dev:0,0 ino:0 uid:0 " \
	"gid:0 rdev:0,0\n      O_RDWR\n"

/* The contract's state line, by the text of the contract. */
ATF_TC_WITHOUT_HEAD(fmt_state_line);
ATF_TC_BODY(fmt_state_line, tc)
{
	static const struct {
		int		domain, type, state;
		uint_t		queues;
		uint32_t	r, w;
		const char	*line;	/* NULL: none */
	} cases[] = {
		{ AF_INET, SOCK_STREAM, 1, PR_SSQ_QUEUED, 0, 0,
		    "\tstate: ESTABLISHED  queued: 0 to read, 0 to send\n" },
		{ AF_INET6, SOCK_STREAM, 8, PR_SSQ_QUEUED, 1000, 7,
		    "\tstate: CLOSE_WAIT  queued: 1000 to read, 7 to send\n" },
		{ AF_INET, SOCK_STREAM, 10, PR_SSQ_BACKLOG, 3, 2,
		    "\tstate: LISTEN  backlog: 3 of 2\n" },
		{ AF_INET, SOCK_STREAM, 2, PR_SSQ_QUEUED, 0, 0,
		    "\tstate: SYN_SENT  queued: 0 to read, 0 to send\n" },
		{ AF_INET, SOCK_STREAM, 3, 0, 0, 0, "\tstate: SYN_RECV\n" },
		{ AF_INET, SOCK_STREAM, 4, 0, 0, 0, "\tstate: FIN_WAIT1\n" },
		{ AF_INET, SOCK_STREAM, 5, 0, 0, 0, "\tstate: FIN_WAIT2\n" },
		{ AF_INET, SOCK_STREAM, 6, 0, 0, 0, "\tstate: TIME_WAIT\n" },
		{ AF_INET, SOCK_STREAM, 7, 0, 0, 0, "\tstate: CLOSE\n" },
		{ AF_INET, SOCK_STREAM, 9, 0, 0, 0, "\tstate: LAST_ACK\n" },
		{ AF_INET, SOCK_STREAM, 11, 0, 0, 0, "\tstate: CLOSING\n" },
		{ AF_INET, SOCK_STREAM, 12, 0, 0, 0,
		    "\tstate: NEW_SYN_RECV\n" },
		{ AF_INET, SOCK_STREAM, 13, PR_SSQ_QUEUED, 0, 0, NULL },
		{ AF_INET, SOCK_STREAM, -1, PR_SSQ_QUEUED, 0, 0, NULL },
		{ AF_UNIX, SOCK_STREAM, 1, PR_SSQ_QUEUED, 4294967295U, 5,
		    "\tstate: CONNECTED  queued: 4294967295 to read, "
		    "5 to send\n" },
		{ AF_UNIX, SOCK_SEQPACKET, 7, PR_SSQ_QUEUED, 0, 0,
		    "\tstate: UNCONNECTED  queued: 0 to read, 0 to send\n" },
		{ AF_UNIX, SOCK_STREAM, 10, PR_SSQ_BACKLOG, 0, 128,
		    "\tstate: LISTEN  backlog: 0 of 128\n" },
		{ AF_UNIX, SOCK_STREAM, 8, PR_SSQ_QUEUED, 0, 0, NULL },
		{ AF_INET, SOCK_DGRAM, 0, PR_SSQ_QUEUED, 2304, 0,
		    "\tqueued: 2304 to read, 0 to send\n" },
		{ AF_UNIX, SOCK_DGRAM, 0, PR_SSQ_QUEUED, 12, 768,
		    "\tqueued: 12 to read, 768 to send\n" },
		{ AF_INET, SOCK_DGRAM, 0, 0, 1, 1, NULL },
		{ AF_INET, SOCK_DGRAM, 0, PR_SSQ_BACKLOG, 1, 1, NULL },
	};
	fdrec_t rec = { NULL, 0 };
	char want[256], *s;

	for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
		sock_rec(&rec, cases[i].domain, cases[i].type);
		add_state(&rec, cases[i].state, cases[i].queues, cases[i].r,
		    cases[i].w);
		(void) snprintf(want, sizeof (want), SOCK_FIRST "\t%s\n%s",
		    cases[i].type == SOCK_STREAM ? "SOCK_STREAM" :
		    cases[i].type == SOCK_DGRAM ? "SOCK_DGRAM" :
		    "SOCK_SEQPACKET",
		    cases[i].line != NULL ? cases[i].line : "");
		s = file_text(&rec, 0);
		ATF_CHECK_STREQ_MSG(s, want, "case %zu", i);
		free(s);
	}
	/* A damaged item (too short) shows nothing. */
	sock_rec(&rec, AF_INET, SOCK_STREAM);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKSTATE, "\1\0\0\0", 4), 0);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_FIRST "\tSOCK_STREAM\n");
	free(s);
	fdrec_free(&rec);
}

/* A holders item of n holders, pid 100 + i, fd 3 + i, and more. */
static void
add_holders(fdrec_t *rec, uint_t type, uint_t n, uint_t more)
{
	uint8_t buf[sizeof (prendpoints_t) + 8 * sizeof (prendpoint_t)];
	prendpoints_t h = { n, more };

	memcpy(buf, &h, sizeof (h));
	for (uint_t i = 0; i < n; i++) {
		prendpoint_t e = { (pid_t)(100 + i), (int)(3 + i) };

		memcpy(buf + sizeof (h) + i * sizeof (e), &e, sizeof (e));
	}
	ATF_REQUIRE_EQ(fdrec_add(rec, type, buf,
	    sizeof (h) + n * sizeof (prendpoint_t)), 0);
}

static const char *
comm_100s(void *arg, pid_t pid)
{
	return (pid == 100 ? "nginx" : pid == 101 ? "bad\nname" : NULL);
}

ATF_TC_WITHOUT_HEAD(fmt_shared_with);
ATF_TC_BODY(fmt_shared_with, tc)
{
	fdrec_t rec = { NULL, 0 };
	pf_ctx_t ctx;
	char *s;

	sock_rec(&rec, AF_INET, SOCK_STREAM);
	add_state(&rec, PR_SS_LISTEN, PR_SSQ_BACKLOG, 0, 511);
	add_holders(&rec, PR_SHARED, 3, 2);
	add_holders(&rec, PR_ENDPOINTS, 1, 0);
	(void) memset(&ctx, 0, sizeof (ctx));
	ctx.pf_comm = comm_100s;
	CAPTURE((ctx.pf_out = out, (void) pf_file(&ctx, fdrec_info(&rec))),
	    &s);
	/* After the endpoint lines; a comm through the rule; "?". */
	ATF_CHECK_STREQ(s, SOCK_FIRST "\tSOCK_STREAM\n"
	    "\tstate: LISTEN  backlog: 0 of 511\n"
	    "\tendpoint: nginx[100] fd 3\n"
	    "\tshared with: nginx[100] fd 3\n"
	    "\tshared with: bad\\x0aname[101] fd 4\n"
	    "\tshared with: ?[102] fd 5\n"
	    "\tshared with: and 2 more\n");
	free(s);

	/* A damaged item that claims nine: the eight of the cap, no more. */
	{
		uint8_t buf[sizeof (prendpoints_t) + 9 * sizeof (prendpoint_t)];
		prendpoints_t h = { 9, 0 };
		char *nl;
		int n = 0;

		memcpy(buf, &h, sizeof (h));
		for (uint_t i = 0; i < 9; i++) {
			prendpoint_t e = { (pid_t)(200 + i), 4 };

			memcpy(buf + sizeof (h) + i * sizeof (e), &e,
			    sizeof (e));
		}
		sock_rec(&rec, AF_INET, SOCK_STREAM);
		ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SHARED, buf, sizeof (buf)),
		    0);
		s = file_text(&rec, 0);
		for (nl = strstr(s, "\tshared with: "); nl != NULL;
		    nl = strstr(nl + 1, "\tshared with: "))
			n++;
		ATF_CHECK_EQ(n, 8);
		free(s);
	}
	fdrec_free(&rec);
}

ATF_TC_WITHOUT_HEAD(fmt_packet_and_groups);
ATF_TC_BODY(fmt_packet_and_groups, tc)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct sockaddr_nl snl = { .nl_family = AF_NETLINK,
	    .nl_groups = 0x10 };
	uint32_t words[3] = { 0x10, 0, 0x80000001 };
	fdrec_t rec = { NULL, 0 };
	int proto = 0;
	char *s;

	sock_rec(&rec, AF_PACKET, SOCK_RAW);
	sll.sll_protocol = htons(0x0003);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKETNAME, &sll, sizeof (sll)),
	    0);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_FIRST "\tSOCK_RAW\n"
	    "\tsockname: AF_PACKET any  protocol: ETH_P_ALL\n");
	free(s);

	sock_rec(&rec, AF_PACKET, SOCK_DGRAM);
	sll.sll_ifindex = 7;
	sll.sll_protocol = htons(0x88b5);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKETNAME, &sll, sizeof (sll)),
	    0);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_FIRST "\tSOCK_DGRAM\n"
	    "\tsockname: AF_PACKET ifindex 7  protocol: 0x88b5\n");
	free(s);
	/* An interface's name is the kernel's, set by whoever may: escaped. */
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_IFNAME, "e\033th0", 6), 0);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_FIRST "\tSOCK_DGRAM\n"
	    "\tsockname: AF_PACKET e\\x1bth0  protocol: 0x88b5\n");
	free(s);

	sock_rec(&rec, AF_NETLINK, SOCK_RAW);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKOPT_PROTOCOL, &proto,
	    sizeof (proto)), 0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKETNAME, &snl, sizeof (snl)),
	    0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_NLGROUPS, words, sizeof (words)),
	    0);
	/* The peer (the kernel) has its own name's groups alone. */
	snl.nl_groups = 0;
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_PEERSOCKNAME, &snl, sizeof (snl)),
	    0);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_FIRST "\tSOCK_RAW\n"
	    "\tsockname: AF_NETLINK NETLINK_ROUTE  pid: 0  "
	    "groups: 0x00000010,0x00000000,0x80000001\n"
	    "\tpeername: AF_NETLINK NETLINK_ROUTE  pid: 0  "
	    "groups: 0x00000000\n");
	free(s);
	fdrec_free(&rec);
}

/*
 * A netlink socket member of groups past 32: its name's line shows every
 * group word to the last one set; its peer's (the kernel) does not, as
 * the groups are the socket's memberships, not its peer's.
 */
ATF_TC_WITHOUT_HEAD(fmt_netlink_groups);
ATF_TC_BODY(fmt_netlink_groups, tc)
{
	const struct sockaddr_nl self = { AF_NETLINK, 0, 77, 0x1 };
	const struct sockaddr_nl peer = { AF_NETLINK, 0, 0, 0 };
	const uint32_t words[3] = { 0x1, 0x9, 0 };	/* 1, 33 and 36 */
	int domain = AF_NETLINK, type = SOCK_RAW, protocol = 0;
	fdrec_t rec = { NULL, 0 };
	char *s;

	ATF_REQUIRE_EQ(fdrec_reset(&rec, 5), 0);
	fdrec_info(&rec)->pr_mode = S_IFSOCK | 0777;
	fdrec_info(&rec)->pr_fileflags = O_RDWR;
	fdrec_info(&rec)->pr_offset = -1;
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKOPT_DOMAIN, &domain,
	    sizeof (domain)), 0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKOPT_TYPE, &type,
	    sizeof (type)), 0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKOPT_PROTOCOL, &protocol,
	    sizeof (protocol)), 0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKETNAME, &self, sizeof (self)),
	    0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_PEERSOCKNAME, &peer,
	    sizeof (peer)), 0);
	/* Trimmed to the last word with a group: two. */
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_NLGROUPS, words,
	    2 * sizeof (words[0])), 0);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, "   5: S_IFSOCK mode:0777 dev:0,0 ino:0 uid:0 "
	    "gid:0 rdev:0,0\n      O_RDWR\n\tSOCK_RAW\n"
	    "\tsockname: AF_NETLINK NETLINK_ROUTE  pid: 77  groups: "
	    "0x00000001,0x00000009\n"
	    "\tpeername: AF_NETLINK NETLINK_ROUTE  pid: 0  groups: "
	    "0x00000000\n");
	free(s);
	fdrec_free(&rec);
}

ATF_TC_WITHOUT_HEAD(fmt_lock_lines);
ATF_TC_BODY(fmt_lock_lines, tc)
{
	/* A POSIX lock has its owner; OFD and FLOCK locks have none (0). */
	const prfdlock_t locks[] = {
		{ PR_LOCK_POSIX, F_WRLCK, 0, 1234 },
		{ PR_LOCK_OFD, F_RDLCK, 0, 0 },
		{ PR_LOCK_FLOCK, F_WRLCK, 1, 0 },
	};
	fdrec_t rec = { NULL, 0 };
	char *s;

	ATF_REQUIRE_EQ(fdrec_reset(&rec, 4), 0);
	fdrec_info(&rec)->pr_mode = S_IFREG | 0644;
	fdrec_info(&rec)->pr_fileflags = O_RDWR;
	fdrec_info(&rec)->pr_offset = -1;
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_LOCKS, locks, sizeof (locks)), 0);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, "   4: S_IFREG mode:0644 dev:0,0 ino:0 uid:0 "
	    "gid:0 size:0\n      O_RDWR\n"
	    "      advisory write lock set by process 1234\n"
	    "      advisory read lock set\n"
	    "      mandatory write lock set\n");
	free(s);
	fdrec_free(&rec);
}

ATF_TC_WITHOUT_HEAD(fmt_header_soft_limit);
ATF_TC_BODY(fmt_header_soft_limit, tc)
{
	const struct rlimit rl = { 256, 4096 };
	const struct rlimit inf = { 1024, RLIM_INFINITY };
	const struct rlimit both = { RLIM_INFINITY, RLIM_INFINITY };
	psinfo_t ps;
	char *s;

	/* The soft limit is the one shown, not the hard. */
	memset(&ps, 0, sizeof (ps));
	ps.pr_pid = 7;
	(void) snprintf(ps.pr_psargs, sizeof (ps.pr_psargs), "x");
	CAPTURE(pf_header(out, &ps, &rl), &s);
	ATF_CHECK_STREQ(s, "7:\tx\n  Current rlimit: 256 file descriptors\n");
	free(s);
	CAPTURE(pf_header(out, &ps, &inf), &s);
	ATF_CHECK_STREQ(s, "7:\tx\n  Current rlimit: 1024 file descriptors\n");
	free(s);
	CAPTURE(pf_header(out, &ps, &both), &s);
	ATF_CHECK_STREQ(s, "7:\tx\n  Current rlimit: unlimited file "
	    "descriptors\n");
	free(s);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, fmt_fileflags);
	ATF_TP_ADD_TC(tp, fmt_sockaddr);
	ATF_TP_ADD_TC(tp, fmt_typeword);
	ATF_TP_ADD_TC(tp, esc_ascii);
	ATF_TP_ADD_TC(tp, esc_utf8_kept);
	ATF_TP_ADD_TC(tp, esc_utf8_hidden);
	ATF_TP_ADD_TC(tp, esc_utf8_illformed);
	ATF_TP_ADD_TC(tp, esc_cut);
	ATF_TP_ADD_TC(tp, esc_stream);
	ATF_TP_ADD_TC(tp, fmt_target_text);
	ATF_TP_ADD_TC(tp, fmt_mode_bits);
	ATF_TP_ADD_TC(tp, fmt_fd_width);
	ATF_TP_ADD_TC(tp, fmt_linger_and_peer);
	ATF_TP_ADD_TC(tp, fmt_netlink_groups);
	ATF_TP_ADD_TC(tp, fmt_lock_lines);
	ATF_TP_ADD_TC(tp, fmt_state_line);
	ATF_TP_ADD_TC(tp, fmt_shared_with);
	ATF_TP_ADD_TC(tp, fmt_packet_and_groups);
	ATF_TP_ADD_TC(tp, fmt_header_soft_limit);
	return (atf_no_error());
}
