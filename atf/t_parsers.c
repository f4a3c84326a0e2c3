/*
 * t_parsers: unit tests of the pure parsers of kernel data (fdinfo, stat,
 * cmdline, limits), of the record accessor and of the pieces of pfiles'
 * formatting that decode kernel values.
 */
#include <atf-c.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "Pcontrol.h"
#include "fdinfo_parse.h"
#include "pfiles_fmt.h"
#include "procfs_parse.h"

static fdinfo_t fi;		/* big: keep it off the stack */

static void
parse_text(const char *text, size_t chunk)
{
	fdinfo_parser_t fp;
	size_t len = strlen(text);

	fdinfo_parse_init(&fp, &fi);
	for (size_t off = 0; off < len; off += chunk)
		fdinfo_parse_feed(&fp, text + off,
		    len - off < chunk ? len - off : chunk);
	fdinfo_parse_end(&fp);
}

static const char regular_fdinfo[] =
    "pos:\t1221\nflags:\t02100002\nmnt_id:\t24\nino:\t861\n"
    "lock:\t1: POSIX  ADVISORY  WRITE 4242 fe:00:861 0 EOF\n"
    "lock:\t2: OFDLCK ADVISORY  READ  -1 fe:00:861 10 20\n"
    "lock:\t3: FLOCK  ADVISORY  WRITE 77 fe:00:861 0 EOF\n";

ATF_TC_WITHOUT_HEAD(fdinfo_fields);
ATF_TC_BODY(fdinfo_fields, tc)
{
	/* The same text fed whole, in 7-byte pieces and byte by byte. */
	const size_t chunks[] = { sizeof (regular_fdinfo), 7, 1 };

	for (size_t c = 0; c < 3; c++) {
		parse_text(regular_fdinfo, chunks[c]);
		ATF_CHECK_EQ(fi.fi_have, FDI_POS | FDI_FLAGS | FDI_MNT_ID |
		    FDI_INO);
		ATF_CHECK_EQ(fi.fi_pos, 1221);
		ATF_CHECK_EQ(fi.fi_flags, 02100002);
		ATF_CHECK_EQ(fi.fi_mnt_id, 24);
		ATF_CHECK_EQ(fi.fi_ino, 861);
		ATF_REQUIRE_EQ(fi.fi_nlocks, 3);
		ATF_CHECK_EQ(fi.fi_locks[0].pr_kind, PR_LOCK_POSIX);
		ATF_CHECK_EQ(fi.fi_locks[0].pr_type, F_WRLCK);
		ATF_CHECK_EQ(fi.fi_locks[0].pr_pid, 4242);
		ATF_CHECK_EQ(fi.fi_locks[0].pr_mandatory, 0);
		ATF_CHECK_EQ(fi.fi_locks[1].pr_kind, PR_LOCK_OFD);
		ATF_CHECK_EQ(fi.fi_locks[1].pr_type, F_RDLCK);
		ATF_CHECK_EQ(fi.fi_locks[1].pr_pid, 0);
		ATF_CHECK_EQ(fi.fi_locks[2].pr_kind, PR_LOCK_FLOCK);
		ATF_CHECK_EQ(fi.fi_locks[2].pr_pid, 77);
	}
}

ATF_TC_WITHOUT_HEAD(fdinfo_mandatory_and_other);
ATF_TC_BODY(fdinfo_mandatory_and_other, tc)
{
	parse_text("lock:\t1: POSIX  MANDATORY READ 9 08:02:1 0 EOF\n"
	    "lock:\t2: LEASE  ACTIVE    READ  12 08:02:1 0 EOF\n", 64);
	ATF_REQUIRE_EQ(fi.fi_nlocks, 2);
	ATF_CHECK_EQ(fi.fi_locks[0].pr_mandatory, 1);
	ATF_CHECK_EQ(fi.fi_locks[0].pr_type, F_RDLCK);
	ATF_CHECK_EQ(fi.fi_locks[1].pr_kind, PR_LOCK_OTHER);
	ATF_CHECK_EQ(fi.fi_locks[1].pr_pid, 12);
}

ATF_TC_WITHOUT_HEAD(fdinfo_unknown_keys);
ATF_TC_BODY(fdinfo_unknown_keys, tc)
{
	/* eventpoll's fdinfo: tfd lines hold "pos:" but are not keys. */
	parse_text("pos:\t0\nflags:\t02\nmnt_id:\t15\nino:\t1057\n"
	    "tfd:        5 events:       19 data:                5  pos:7 "
	    "ino:99 sdev:8\neventfd-count: 3\n", 5);
	ATF_CHECK_EQ(fi.fi_pos, 0);
	ATF_CHECK_EQ(fi.fi_flags, 02);
	ATF_CHECK_EQ(fi.fi_ino, 1057);
	ATF_CHECK_EQ(fi.fi_nlocks, 0);
}

ATF_TC_WITHOUT_HEAD(fdinfo_stops_at_type_lines);
ATF_TC_BODY(fdinfo_stops_at_type_lines, tc)
{
	fdinfo_parser_t fp;
	static const char head[] = "pos:\t0\nflags:\t02\nmnt_id:\t15\n"
	    "ino:\t1057\nlock:\t1: FLOCK  ADVISORY  WRITE 9 0:1:2 0 EOF\n"
	    "tfd:        5 events:       19 data: 5  pos:0 ino:9 sdev:8\n";

	/* Once the type's own lines begin, nothing more is wanted, and a
	 * later line that looks like a key is not taken. */
	fdinfo_parse_init(&fp, &fi);
	ATF_CHECK(!fdinfo_parse_done(&fp));
	fdinfo_parse_feed(&fp, head, strlen(head));
	ATF_CHECK(fdinfo_parse_done(&fp));
	fdinfo_parse_feed(&fp, "pos:\t77\nlock:\t2: POSIX ADVISORY READ 3 0:1:2"
	    " 0 EOF\n", 49);
	fdinfo_parse_end(&fp);
	ATF_CHECK_EQ(fi.fi_pos, 0);
	ATF_CHECK_EQ(fi.fi_ino, 1057);
	ATF_CHECK_EQ(fi.fi_nlocks, 1);
}

ATF_TC_WITHOUT_HEAD(fdinfo_malformed);
ATF_TC_BODY(fdinfo_malformed, tc)
{
	/* Bad values are not used; good lines around them still are. */
	parse_text("pos:\t12x\nflags:\t0800\nmnt_id:\t-3\n"
	    "ino:\t99999999999999999999999\nlock:\t1: POSIX\n"
	    "lock:\t1: POSIX ADVISORY SIDEWAYS 3 0:0:0 0 EOF\n"
	    "pos:\t5 6\nflags:\t0100002\n", 3);
	ATF_CHECK_EQ(fi.fi_have, FDI_FLAGS);
	ATF_CHECK_EQ(fi.fi_pos, -1);
	ATF_CHECK_EQ(fi.fi_flags, 0100002);
	ATF_CHECK_EQ(fi.fi_mnt_id, -1);
	ATF_CHECK_EQ(fi.fi_nlocks, 0);
}

ATF_TC_WITHOUT_HEAD(fdinfo_overlong_and_truncated);
ATF_TC_BODY(fdinfo_overlong_and_truncated, tc)
{
	char *text;
	size_t n = FDINFO_LINEMAX * 3;

	/* An overlong line is passed over whole, even when it looks like
	 * a key; the line after it is read; a last line without its
	 * newline is parsed at the end. */
	text = malloc(n + 64);
	ATF_REQUIRE(text != NULL);
	strcpy(text, "pos:\t");
	memset(text + 5, '7', n);
	strcpy(text + 5 + n, "\nflags:\t04002\nmnt_id:\t31");
	parse_text(text, 100);
	free(text);
	ATF_CHECK_EQ(fi.fi_pos, -1);
	ATF_CHECK_EQ(fi.fi_flags, 04002);
	ATF_CHECK_EQ(fi.fi_mnt_id, 31);
}

ATF_TC_WITHOUT_HEAD(fdinfo_many_locks);
ATF_TC_BODY(fdinfo_many_locks, tc)
{
	static char text[(FDINFO_MAXLOCKS + 10) * 64];
	size_t off = 0;

	for (int i = 0; i < FDINFO_MAXLOCKS + 10; i++)
		off += (size_t)snprintf(text + off, sizeof (text) - off,
		    "lock:\t%d: POSIX  ADVISORY  READ %d 0:1:2 %d %d\n",
		    i + 1, 100 + i, i, i);
	parse_text(text, 4096);
	ATF_CHECK_EQ(fi.fi_nlocks, FDINFO_MAXLOCKS);
	ATF_CHECK_EQ(fi.fi_locks_dropped, 10);
	ATF_CHECK_EQ(fi.fi_locks[FDINFO_MAXLOCKS - 1].pr_pid,
	    100 + FDINFO_MAXLOCKS - 1);
}

ATF_TC_WITHOUT_HEAD(stat_line);
ATF_TC_BODY(stat_line, tc)
{
	/* A comm with spaces and parentheses. */
	const char s[] = "4242 (a) b) (c) S 17 4242 4242 0 -1 4194560 99 0";
	const char k[] = "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0";
	procstat_t ps;

	ATF_REQUIRE_EQ(procfs_parse_stat(s, strlen(s), &ps), 0);
	ATF_CHECK_EQ(ps.ps_state, 'S');
	ATF_CHECK_EQ(ps.ps_ppid, 17);
	ATF_CHECK_EQ(ps.ps_flags, 4194560);
	ATF_CHECK((ps.ps_flags & PF_KTHREAD_FLAG) == 0);
	ATF_REQUIRE_EQ(procfs_parse_stat(k, strlen(k), &ps), 0);
	ATF_CHECK((ps.ps_flags & PF_KTHREAD_FLAG) != 0);

	ATF_CHECK_EQ(procfs_parse_stat("", 0, &ps), -1);
	ATF_CHECK_EQ(procfs_parse_stat("1 (x)", 5, &ps), -1);
	ATF_CHECK_EQ(procfs_parse_stat("1 (x) Z", 7, &ps), -1);
	ATF_CHECK_EQ(procfs_parse_stat("1 (x) Z 1 2 3 4", 15, &ps), -1);
}

ATF_TC_WITHOUT_HEAD(cmdline);
ATF_TC_BODY(cmdline, tc)
{
	const char c[] = "node\0sockets.js\0" "100";	/* + final NUL */
	char out[PRARGSZ];

	ATF_CHECK_EQ(procfs_cmdline_to_args(c, sizeof (c), out,
	    sizeof (out)), 19);
	ATF_CHECK_STREQ(out, "node sockets.js 100");
	/* No final NUL (a process that rewrote its arguments). */
	ATF_CHECK_EQ(procfs_cmdline_to_args("ab\0c", 4, out, sizeof (out)), 4);
	ATF_CHECK_STREQ(out, "ab c");
	/* Cut to the buffer, always terminated. */
	ATF_CHECK_EQ(procfs_cmdline_to_args("abcdef", 6, out, 4), 3);
	ATF_CHECK_STREQ(out, "abc");
	ATF_CHECK_EQ(procfs_cmdline_to_args("", 0, out, sizeof (out)), 0);
	ATF_CHECK_STREQ(out, "");
}

static const char limits_text[] =
    "Limit                     Soft Limit           Hard Limit           "
    "Units     \n"
    "Max cpu time              unlimited            unlimited            "
    "seconds   \n"
    "Max open files            1024                 1048576              "
    "files     \n"
    "Max locked memory         8388608              unlimited            "
    "bytes     \n"
    "Max file locks            unlimited            unlimited            "
    "locks     \n";

ATF_TC_WITHOUT_HEAD(limits);
ATF_TC_BODY(limits, tc)
{
	struct rlimit rl;

	ATF_REQUIRE_EQ(procfs_parse_limits(limits_text, strlen(limits_text),
	    RLIMIT_NOFILE, &rl), 0);
	ATF_CHECK_EQ(rl.rlim_cur, 1024);
	ATF_CHECK_EQ(rl.rlim_max, 1048576);
	ATF_REQUIRE_EQ(procfs_parse_limits(limits_text, strlen(limits_text),
	    RLIMIT_CPU, &rl), 0);
	ATF_CHECK(rl.rlim_cur == RLIM_INFINITY && rl.rlim_max ==
	    RLIM_INFINITY);
	ATF_REQUIRE_EQ(procfs_parse_limits(limits_text, strlen(limits_text),
	    RLIMIT_MEMLOCK, &rl), 0);
	ATF_CHECK_EQ(rl.rlim_cur, 8388608);
	ATF_CHECK(rl.rlim_max == RLIM_INFINITY);
	/* Missing line, unknown resource, truncated line. */
	ATF_CHECK_EQ(procfs_parse_limits(limits_text, strlen(limits_text),
	    RLIMIT_NPROC, &rl), -1);
	ATF_CHECK_EQ(procfs_parse_limits(limits_text, strlen(limits_text),
	    99, &rl), -1);
	ATF_CHECK_EQ(procfs_parse_limits("Max open files            1024",
	    30, RLIMIT_NOFILE, &rl), -1);
}

ATF_TC_WITHOUT_HEAD(seccomp);
ATF_TC_BODY(seccomp, tc)
{
	const char st[] = "Name:\tx\nNoNewPrivs:\t1\nSeccomp:\t2\n"
	    "Seccomp_filters:\t1\n";

	ATF_CHECK_EQ(procfs_parse_seccomp(st, strlen(st)), 2);
	ATF_CHECK_EQ(procfs_parse_seccomp("Seccomp:\t0\n", 11), 0);
	ATF_CHECK_EQ(procfs_parse_seccomp("Seccomp:\t1", 10), 1);
	/* Seccomp_filters alone is not the mode; no line, a bad value. */
	ATF_CHECK_EQ(procfs_parse_seccomp("Seccomp_filters:\t1\n", 19), -1);
	ATF_CHECK_EQ(procfs_parse_seccomp("Name:\tx\n", 8), -1);
	ATF_CHECK_EQ(procfs_parse_seccomp("Seccomp:\t7\n", 11), -1);
	ATF_CHECK_EQ(procfs_parse_seccomp("Seccomp:\t2x\n", 12), -1);
}

ATF_TC_WITHOUT_HEAD(record_items);
ATF_TC_BODY(record_items, tc)
{
	fdrec_t rec = { NULL, 0 };
	const char *p;
	size_t len;
	int v = 212992;
	static char big[20000];

	ATF_REQUIRE_EQ(fdrec_reset(&rec, 7), 0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_PATHNAME, "abc", 4), 0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKOPT_SNDBUF, &v, sizeof (v)), 0);
	memset(big, 'x', sizeof (big));	/* grows the buffer */
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKERR, big, sizeof (big)), 0);

	p = proc_fdinfo_misc(fdrec_info(&rec), PR_PATHNAME, &len);
	ATF_REQUIRE(p != NULL);
	ATF_CHECK_EQ(len, 4);
	ATF_CHECK_STREQ(p, "abc");
	p = proc_fdinfo_misc(fdrec_info(&rec), PR_SOCKOPT_SNDBUF, &len);
	ATF_REQUIRE(p != NULL && len == sizeof (int));
	ATF_CHECK_EQ(memcmp(p, &v, sizeof (v)), 0);
	p = proc_fdinfo_misc(fdrec_info(&rec), PR_SOCKERR, &len);
	ATF_CHECK(p != NULL && len == sizeof (big) && p[19999] == 'x');
	ATF_CHECK(proc_fdinfo_misc(fdrec_info(&rec), PR_PEERCRED, &len) ==
	    NULL && len == 0);
	ATF_CHECK_EQ(fdrec_info(&rec)->pr_fd, 7);

	/* A damaged item header ends the search instead of overrunning. */
	fdrec_info(&rec)->pr_misc_size = 12;
	ATF_CHECK(proc_fdinfo_misc(fdrec_info(&rec), PR_SOCKOPT_SNDBUF,
	    &len) == NULL);
	/* Reset starts an empty record. */
	ATF_REQUIRE_EQ(fdrec_reset(&rec, 9), 0);
	ATF_CHECK(proc_fdinfo_misc(fdrec_info(&rec), PR_PATHNAME, NULL) ==
	    NULL);
	fdrec_free(&rec);
}

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
		{ 0100002, FD_CLOEXEC, "O_RDWR|O_LARGEFILE|O_CLOEXEC" },
		{ 04002 | 02000, 0, "O_RDWR|O_NONBLOCK|O_APPEND" },
		{ 04010001, 0, "O_WRONLY|O_SYNC" },
		{ 010001, 0, "O_WRONLY|O_DSYNC" },
		{ 010000000, 0, "O_PATH" },
		{ 010200000, FD_CLOEXEC, "O_PATH|O_DIRECTORY|O_CLOEXEC" },
		{ 03, 0, "0x3" },
		{ 040000000 | 02, 0, "O_RDWR|0x800000" },
		{ 020000000 | 0200000 | 02, 0,
		    "O_RDWR|O_DIRECTORY|O_TMPFILE" },
		{ 020000 | 040000 | 0400000 | 01000000, 0,
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
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, fdinfo_fields);
	ATF_TP_ADD_TC(tp, fdinfo_mandatory_and_other);
	ATF_TP_ADD_TC(tp, fdinfo_unknown_keys);
	ATF_TP_ADD_TC(tp, fdinfo_malformed);
	ATF_TP_ADD_TC(tp, fdinfo_stops_at_type_lines);
	ATF_TP_ADD_TC(tp, fdinfo_overlong_and_truncated);
	ATF_TP_ADD_TC(tp, fdinfo_many_locks);
	ATF_TP_ADD_TC(tp, stat_line);
	ATF_TP_ADD_TC(tp, cmdline);
	ATF_TP_ADD_TC(tp, limits);
	ATF_TP_ADD_TC(tp, seccomp);
	ATF_TP_ADD_TC(tp, record_items);
	ATF_TP_ADD_TC(tp, fmt_fileflags);
	ATF_TP_ADD_TC(tp, fmt_sockaddr);
	ATF_TP_ADD_TC(tp, fmt_typeword);
	return (atf_no_error());
}
