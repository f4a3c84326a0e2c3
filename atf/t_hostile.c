/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_hostile: a target cannot forge pfiles' output.
 *
 * sockfix's set "hostile" holds files, unix sockets and an abstract
 * socket whose names carry newlines followed by forged fd lines, TABs,
 * DEL, ESC sequences, ill-formed UTF-8, bidirectional and zero-width
 * characters and backslashes; the fixture's comm and command line carry
 * the same.  pfiles must write every such name through the contract's
 * rule for text from the target (pfiles.1, "Text from the target").
 * Each case checks three ways:
 *
 *	- byte for byte against the text expect.c computes from the
 *	  fixture's manifest (its own escaping, written apart from pfiles');
 *	- against escaped names written out by hand below;
 *	- directly: no line starts with an fd the fixture does not have, no
 *	  control byte but TAB and newline, no ill-formed or hidden UTF-8.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <atf-c.h>

#include "expect.h"
#include "fixture.h"
#include "testutil.h"

#define	MAX_ARGS	32

/*
 * The fixture runs as "./f", a symlink in the work directory, so that
 * its command line starts the same wherever the build directory is and
 * the 70-byte cut falls where a case puts it.
 */
#define	FIX_LINK	"f"
#define	FIX_ARGV0	"./" FIX_LINK

/*
 * The hostile comm: exactly 15 bytes (PR_SET_NAME keeps 15): a newline
 * and a forged fd number, ESC, a byte never in UTF-8, and U+202E.
 */
#define	HOSTILE_COMM	"c\n  99:\x1b[7m\xff\xe2\x80\xae"
#define	HOSTILE_COMM_ESC \
	"c\\x0a  99:\\x1b[7m\\xff\\xe2\\x80\\xae"


static void
make_link(void)
{
	(void) unlink(FIX_LINK);
	if (symlink(TU_SOCKFIX, FIX_LINK) != 0)
		atf_tc_fail("symlink %s: %s", FIX_LINK, strerror(errno));
}

/*
 * Start the fixture with the fd set `set', -c comm (when not NULL) and
 * the extra arguments (NULL-ended), and read its manifest.  It exits by
 * itself within its default 120 seconds, whatever happens here.
 */
static void
fixture_start(fixture_t *fx, const char *set, const char *comm,
    const char *const extra[])
{
	const char *argv[MAX_ARGS];
	int n = 0;

	make_link();
	argv[n++] = FIX_ARGV0;
	if (comm != NULL) {
		argv[n++] = "-c";
		argv[n++] = comm;
	}
	argv[n++] = "-s";
	argv[n++] = set;
	for (int i = 0; extra != NULL && extra[i] != NULL; i++) {
		ATF_REQUIRE(n < MAX_ARGS - 1);
		argv[n++] = extra[i];
	}
	argv[n] = NULL;

	fx_start(fx, argv);
}

/*
 * Stop the fixture: it must exit 0 once its stdin is closed, and take
 * its temporary files (the hostile names among them) with it.
 */
static void
fixture_stop(fixture_t *fx)
{
	const mf_fd_t *f = mf_find_kind(fx->fx_manifest, "hostile-newline");
	char *dir = NULL, *slash;
	struct stat st;
	int status;

	if (f != NULL && f->f_link != NULL &&
	    (slash = strrchr(f->f_link, '/')) != NULL)
		dir = strndup(f->f_link, (size_t)(slash - f->f_link));
	status = tu_stop(&fx->fx_child, TU_TIMEOUT_MS);
	mf_free(fx->fx_manifest);
	fx->fx_manifest = NULL;
	(void) unlink(FIX_LINK);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "sockfix did not exit cleanly: wait status 0x%x",
	    (unsigned)status);
	if (dir != NULL) {
		ATF_CHECK_MSG(stat(dir, &st) != 0 && errno == ENOENT,
		    "sockfix left %s behind", dir);
		free(dir);
	}
}

/* pfiles with opts (NULL-ended) on the fixture: its stdout, exit 0. */
static void
run_pfiles(const fixture_t *fx, const char *const opts[], tu_result_t *r)
{
	const char *const pids[] = { fx->fx_pid, NULL };

	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = opts, .tp_pids = pids }, r);
	tu_require_exit("pfiles", r, 0);
}

/* Is fd one of the manifest's? */
static int
has_fd(const manifest_t *m, long fd)
{
	for (size_t i = 0; i < m->m_nfds; i++) {
		if (m->m_fds[i].f_fd == fd)
			return (1);
	}
	return (0);
}

/*
 * The fd of a stat line ("%4d: "), or -1 when line is not one.  Any
 * line that starts with optional spaces, digits and ':' counts: that is
 * what a reader (or a script) takes for the start of an fd block.
 */
static long
stat_line_fd(const char *line, size_t len)
{
	size_t i = 0, d;
	long fd = 0;

	while (i < len && line[i] == ' ')
		i++;
	for (d = i; i < len && line[i] >= '0' && line[i] <= '9' &&
	    fd < 1000000; i++)
		fd = fd * 10 + (line[i] - '0');
	if (i == d || i >= len || line[i] != ':')
		return (-1);
	return (fd);
}

/*
 * What no target may put into pfiles' output, checked on the output
 * alone: a byte below 0x20 but TAB and newline, DEL, bytes that never
 * occur in UTF-8, and the raw bytes of the hidden characters the
 * fixture uses; a line that starts an fd block of an fd the fixture
 * does not have, or any fd block twice or out of order; a line that
 * is none of pfiles' own kinds of line.
 */
static void
require_no_forgery(const fixture_t *fx, const char *out, size_t len,
    int nflag)
{
	static const char *const hidden[] = {
		"\xe2\x80\xae", "\xe2\x80\xac", "\xe2\x80\x8b", "\xc2\x85",
		"\xef\xbb\xbf", "\xe2\x80\xa8", "\xe2\x81\xa6", "\xed\xa0\x80",
		"\xc0\xaf",
	};
	static const char *const tabbed[] = {
		"\tSOCK_", "\tSO_", "\tsockname: AF_", "\tpeername: AF_",
		"\tstate: ", "\tqueued: ", "\tpeer: ", "\tendpoint: ",
		"\tshared with: ",
	};
	const manifest_t *m = fx->fx_manifest;
	size_t nblocks = 0, lineno = 0;
	long last = -1, fd;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)out[i];

		ATF_REQUIRE_MSG(c >= 0x20 || c == '\t' || c == '\n',
		    "byte 0x%02x at offset %zu of pfiles' output", c, i);
		ATF_REQUIRE_MSG(c != 0x7f && c != 0xc0 && c != 0xc1 &&
		    c < 0xf5, "byte 0x%02x at offset %zu of pfiles' output",
		    c, i);
	}
	for (size_t i = 0; i < sizeof (hidden) / sizeof (hidden[0]); i++)
		ATF_REQUIRE_MSG(memmem(out, len, hidden[i],
		    strlen(hidden[i])) == NULL, "pfiles' output holds the "
		    "raw bytes of hidden character %zu", i);

	for (const char *p = out; p < out + len; lineno++) {
		const char *nl = memchr(p, '\n', (size_t)(out + len - p));
		size_t n = (size_t)(nl != NULL ? nl - p : out + len - p);
		int known = 0;

		fd = -1;
		if (lineno == 0) {
			known = strncmp(p, fx->fx_pid, strlen(fx->fx_pid)) ==
			    0 && p[strlen(fx->fx_pid)] == ':';
		} else if ((fd = stat_line_fd(p, n)) >= 0) {
			ATF_REQUIRE_MSG(has_fd(m, fd), "line %zu starts fd "
			    "%ld, which the fixture does not have: %.*s",
			    lineno, fd, (int)n, p);
			ATF_REQUIRE_MSG(fd > last, "line %zu: fd %ld after "
			    "fd %ld", lineno, fd, last);
			last = fd;
			nblocks++;
			known = 1;
		} else if (lineno == 1) {
			known = strncmp(p, "  Current rlimit: ", 18) == 0;
		} else if (p[0] == '\t') {
			for (size_t i = 0; i < sizeof (tabbed) /
			    sizeof (tabbed[0]); i++)
				known |= strncmp(p, tabbed[i],
				    strlen(tabbed[i])) == 0;
		} else {
			/* Flags, lock, path and offset lines. */
			known = n > 6 && strncmp(p, "      ", 6) == 0 &&
			    p[6] != ' ';
		}
		ATF_REQUIRE_MSG(known && (!nflag || lineno < 2 || fd >= 0),
		    "line %zu is not one of pfiles' lines: %.*s", lineno,
		    (int)n, p);
		p += n + 1;
	}
	ATF_REQUIRE_EQ_MSG(nblocks, m->m_nfds, "%zu fd blocks for %zu fds",
	    nblocks, m->m_nfds);
}

/* Is "line" a whole line of out? */
static int
has_line(const char *out, size_t len, const char *line)
{
	char *want = tu_asprintf("\n%s\n", line);
	int found = memmem(out, len, want, strlen(want)) != NULL;

	free(want);
	return (found);
}

/*
 * The names of the hostile set, escaped by hand from the contract's
 * rule, as whole lines of the output (the temporary directory's name
 * is read from the manifest: it is plain ASCII).
 */
static void
require_hand_escaped(const fixture_t *fx, const char *out, size_t len)
{
	static const struct {
		const char	*kind;
		const char	*name;
	} files[] = {
		{ "hostile-newline", "nl\\x0a  98: S_IFREG mode:0644 dev:0,0 "
		    "ino:1 uid:0 gid:0 size:0" },
		{ "hostile-tab-del", "tab\\x09here\\x7f del\\x7f" },
		{ "hostile-esc", "esc\\x1b[31mred\\x1b[0m\\x1b]0;title\\x07" },
		{ "hostile-badutf8", "bad \\xff \\xc0\\xaf \\x80 "
		    "\\xed\\xa0\\x80 \\xf4\\x90\\x80\\x80 \\xe2\\x80 "
		    "\\xf8\\x88\\x80\\x80\\x80 end" },
		{ "hostile-bidi", "bidi \\xe2\\x80\\xae" "evil\\xe2\\x80\\xac "
		    "zw\\xe2\\x80\\x8b c1\\xc2\\x85 bom\\xef\\xbb\\xbf "
		    "ls\\xe2\\x80\\xa8 iso\\xe2\\x81\\xa6" },
		{ "hostile-backslash", "back\\\\slash \\\\x41 \\\\\\\\" },
		/* Well-formed UTF-8 stays readable. */
		{ "hostile-utf8", "donn\xc3\xa9" "es \xe2\x82\xac "
		    "\xf0\x9f\x98\x80 \xc2\xa0\xf4\x8f\xbf\xbf" },
	};
	static const char sock[] = "s\\x0a  99: S_IFSOCK mode:0777 dev:0,8 "
	    "ino:1 uid:0 gid:0 rdev:0,0";
	const manifest_t *m = fx->fx_manifest;
	const mf_fd_t *f = mf_find_kind(m, "hostile-newline");
	char *dir, *line;
	const char *slash;

	ATF_REQUIRE(f != NULL && f->f_link != NULL &&
	    (slash = strrchr(f->f_link, '/')) != NULL);
	dir = strndup(f->f_link, (size_t)(slash - f->f_link));
	ATF_REQUIRE(dir != NULL);
	for (const char *p = dir; *p != '\0'; p++)
		ATF_REQUIRE_MSG(*p > 0x20 && *p < 0x7f && *p != '\\',
		    "the temporary directory %s is not plain ASCII", dir);

	for (size_t i = 0; i < sizeof (files) / sizeof (files[0]); i++) {
		line = tu_asprintf("      %s/%s", dir, files[i].name);
		ATF_CHECK_MSG(has_line(out, len, line), "%s: no line \"%s\"",
		    files[i].kind, line);
		free(line);
	}
	line = tu_asprintf("\tsockname: AF_UNIX %s/%s", dir, sock);
	ATF_CHECK_MSG(has_line(out, len, line), "no line \"%s\"", line);
	free(line);
	line = tu_asprintf("\tpeername: AF_UNIX %s/%s", dir, sock);
	ATF_CHECK_MSG(has_line(out, len, line), "no line \"%s\"", line);
	free(line);
	line = tu_asprintf("\tsockname: AF_UNIX @hostile%s\\x00in\\x0a  99: "
	    "forged\\x1b[2J", fx->fx_pid);
	ATF_CHECK_MSG(has_line(out, len, line), "no line \"%s\"", line);
	free(line);
	line = tu_asprintf("\tpeer: %s[%s]", tu_peer_provable(NULL) ?
	    HOSTILE_COMM_ESC : "?", fx->fx_pid);
	ATF_CHECK_MSG(has_line(out, len, line), "no line \"%s\"", line);
	free(line);
	/* Each end of the unix connection names the other, comm escaped. */
	for (int i = 0; i < 2; i++) {
		const mf_fd_t *other = mf_find_kind(m, i == 0 ?
		    "hostile-unix-client" : "hostile-unix-accepted");

		ATF_REQUIRE(other != NULL);
		line = tu_asprintf("\tendpoint: " HOSTILE_COMM_ESC "[%s] fd %d",
		    fx->fx_pid, other->f_fd);
		ATF_CHECK_MSG(has_line(out, len, line), "no line \"%s\"",
		    line);
		free(line);
	}
	free(dir);
}

/* Fail unless every kind of the hostile set is in the manifest. */
static void
require_hostile_kinds(const fixture_t *fx)
{
	static const char *const kinds[] = {
		"hostile-newline", "hostile-tab-del", "hostile-esc",
		"hostile-badutf8", "hostile-bidi", "hostile-backslash",
		"hostile-utf8", "hostile-unix-listen", "hostile-unix-client",
		"hostile-unix-accepted", "hostile-abstract",
	};

	for (size_t i = 0; i < sizeof (kinds) / sizeof (kinds[0]); i++)
		ATF_REQUIRE_MSG(mf_find_kind(fx->fx_manifest, kinds[i]) !=
		    NULL, "the manifest has no fd of kind %s", kinds[i]);
}

/*
 * The hostile set, comm and command line under pfiles with opts: the
 * output is exactly expect.c's, holds the hand-escaped names, and
 * forges nothing.
 */
static void
check_hostile(const char *what, const char *const opts[], int nflag)
{
	/* The command line: hostile from its second argument on. */
	static const char *const extra[] = {
		"-t", "120", "ab\n  99: S_IFSOCK forged", "\x1b[31mred\x1b[0m",
		"\xff\xc0\xaf\xed\xa0\x80", "donn\xc3\xa9" "es", "back\\slash",
		NULL };
	fixture_t fx;
	tu_result_t r;
	char err[256], *expected, *header, state;

	fixture_start(&fx, "hostile", HOSTILE_COMM, extra);
	require_hostile_kinds(&fx);
	ATF_REQUIRE_STREQ(fx.fx_manifest->m_comm, HOSTILE_COMM);

	expected = expect_pfiles(fx.fx_manifest, nflag ? EXP_NFLAG : 0, err,
	    sizeof (err));
	if (expected == NULL)
		atf_tc_fail("cannot compute the expected text: %s", err);
	run_pfiles(&fx, opts, &r);
	tu_require_same_text(what, expected, strlen(expected), r.tr_out,
	    r.tr_outlen);
	require_no_forgery(&fx, r.tr_out, r.tr_outlen, nflag);

	/* The header, escaped and cut at 70 bytes by hand. */
	header = tu_asprintf("%s:\t" FIX_ARGV0 " -c " HOSTILE_COMM_ESC
	    " -s hostile -t 120 ab\\x0a  99:\n", fx.fx_pid);
	ATF_CHECK_MSG(strncmp(r.tr_out, header, strlen(header)) == 0,
	    "the header is not \"%s\"", header);
	free(header);
	if (!nflag)
		require_hand_escaped(&fx, r.tr_out, r.tr_outlen);

	tu_result_free(&r);
	free(expected);
	state = tu_proc_state(fx.fx_child.tc_pid);
	ATF_REQUIRE_MSG(state != 0 && state != 'T' && state != 't' &&
	    state != 'Z', "the fixture is in state %c after pfiles",
	    state != 0 ? state : '-');
	fixture_stop(&fx);
}

ATF_TC(via_pidfd);
ATF_TC_HEAD(via_pidfd, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=pidfd escapes every "
	    "name of a hostile target (paths, unix and abstract socket "
	    "names, comm, command line): byte for byte as the contract "
	    "says, and no line or terminal escape is forged");
}
ATF_TC_BODY(via_pidfd, tc)
{
	static const char *const opts[] = { "--via=pidfd", NULL };

	check_hostile("hostile.via-pidfd", opts, 0);
}

ATF_TC(via_agent);
ATF_TC_HEAD(via_agent, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=agent on a hostile "
	    "target prints exactly what the contract says, as pidfd does");
}
ATF_TC_BODY(via_agent, tc)
{
	static const char *const opts[] = { "--via=agent", NULL };

	check_hostile("hostile.via-agent", opts, 0);
}

ATF_TC(nflag);
ATF_TC_HEAD(nflag, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -n on a hostile target: the "
	    "header is escaped and no fd line is forged");
}
ATF_TC_BODY(nflag, tc)
{
	static const char *const opts[] = { "-n", NULL };

	check_hostile("hostile.n", opts, 1);
}

/*
 * The command line "./f -c cut -s min -t 120 PAD HOSTILE TAIL", where
 * PAD puts HOSTILE's first byte at offset `at' of the escaped command
 * line.  The header must hold exactly the first `want' bytes of the
 * escaped command line, whose escaped HOSTILE is `esc', written by hand.
 */
static void
check_cut(const char *what, const char *hostile, const char *esc,
    size_t at, size_t want)
{
	static const char prefix[] = FIX_ARGV0 " -c cut -s min -t 120 ";
	static const char tail[] = " and a tail to pass 70 bytes";
	const char *extra[5];
	fixture_t fx;
	tu_result_t r;
	char err[256], *pad, *full, *header, *expected;
	size_t npad;

	ATF_REQUIRE(at > sizeof (prefix));
	npad = at - sizeof (prefix);	/* the pad, then a space */
	ATF_REQUIRE((pad = malloc(npad + 1)) != NULL);
	memset(pad, 'p', npad);
	pad[npad] = '\0';
	extra[0] = "-t";
	extra[1] = "120";
	extra[2] = pad;
	extra[3] = full = tu_asprintf("%s%s", hostile, tail);
	extra[4] = NULL;
	fixture_start(&fx, "min", "cut", extra);
	free(full);

	full = tu_asprintf("%s%s %s%s", prefix, pad, esc, tail);
	ATF_REQUIRE(strlen(full) > 70 && want <= 70);
	header = tu_asprintf("%s:\t%.*s\n", fx.fx_pid, (int)want, full);
	expected = expect_pfiles(fx.fx_manifest, 0, err, sizeof (err));
	if (expected == NULL)
		atf_tc_fail("cannot compute the expected text: %s", err);

	run_pfiles(&fx, NULL, &r);
	tu_require_same_text(what, expected, strlen(expected), r.tr_out,
	    r.tr_outlen);
	require_no_forgery(&fx, r.tr_out, r.tr_outlen, 0);
	ATF_CHECK_MSG(strncmp(r.tr_out, header, strlen(header)) == 0,
	    "%s: the header is not \"%s\"", what, header);

	tu_result_free(&r);
	free(header);
	free(expected);
	free(full);
	free(pad);
	fixture_stop(&fx);
}

ATF_TC(header_cut);
ATF_TC_HEAD(header_cut, tc)
{
	atf_tc_set_md_var(tc, "descr", "the header's command line is "
	    "escaped, then cut at 70 bytes where a unit ends: never inside "
	    "an escape or a UTF-8 sequence, and where a whole one fits");
}
ATF_TC_BODY(header_cut, tc)
{
	/* An escape at 67 does not fit (67 + 4 > 70); at 66 it does. */
	check_cut("cut.esc67", "\x1b[0m", "\\x1b[0m", 67, 67);
	check_cut("cut.esc66", "\x1b[0m", "\\x1b[0m", 66, 70);
	/* A 2-byte character at 69 does not fit; at 68 it does. */
	check_cut("cut.utf8-69", "\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9",
	    69, 69);
	check_cut("cut.utf8-68", "\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9",
	    68, 70);
	/* A 4-byte character at 67 does not fit. */
	check_cut("cut.utf8-67", "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", 67,
	    67);
	/* "\\" at 69 does not fit. */
	check_cut("cut.backslash", "\\\\", "\\\\\\\\", 69, 69);
	/*
	 * U+202E at 62 is three escapes, at 62, 66 and 70: the cut falls
	 * between two of them, each a whole unit.
	 */
	check_cut("cut.bidi", "\xe2\x80\xae", "\\xe2\\x80\\xae", 62, 70);
	/* A newline just past the cut is not shown at all. */
	check_cut("cut.newline", "\n", "\\x0a", 70, 70);
}

ATF_TC(debug_trace);
ATF_TC_HEAD(debug_trace, tc)
{
	atf_tc_set_md_var(tc, "descr", "The library's LIBPROC_DEBUG trace "
	    "names a target by its hostile comm: no control byte of it "
	    "reaches stderr, so no trace line is forged");
}
ATF_TC_BODY(debug_trace, tc)
{
	const char *const env[] = { "LIBPROC_DEBUG=1", NULL };
	fixture_t fx;
	tu_result_t r;
	size_t lines = 0;

	fixture_start(&fx, "min", HOSTILE_COMM, NULL);
	{
		const char *args[] = { "-n", fx.fx_pid, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args,
		    .tp_env = env }, &r);
	}
	tu_require_exit("pfiles -n", &r, 0);
	ATF_REQUIRE_MSG(strstr(r.tr_err, ": grabbed: ") != NULL,
	    "no trace: %s", r.tr_err);
	for (size_t i = 0; i < r.tr_errlen; i++) {
		unsigned char c = (unsigned char)r.tr_err[i];

		ATF_CHECK_MSG(c == '\n' || (c >= 0x20 && c != 0x7f),
		    "byte 0x%02x at offset %zu of the trace", c, i);
		if (c == '\n')
			lines++;
	}
	/* grabbed, released: the comm made no line of its own. */
	ATF_CHECK_EQ(lines, 2);
	tu_result_free(&r);
	fixture_stop(&fx);
}

ATF_TC(debug_trace_backslash);
ATF_TC_HEAD(debug_trace_backslash, tc)
{
	atf_tc_set_md_var(tc, "descr", "The LIBPROC_DEBUG trace writes a "
	    "backslash of the target's comm as \\x5c, so that a comm that "
	    "spells an escape (\\x0a) cannot pass for one: the trace's "
	    "escapes are unambiguous");
}
ATF_TC_BODY(debug_trace_backslash, tc)
{
	const char *const env[] = { "LIBPROC_DEBUG=1", NULL };
	char path[64], *comm, *esc, *want;
	size_t len, used = 0;
	fixture_t fx;
	tu_result_t r;

	fixture_start(&fx, "min", "b\\x0a\\", NULL);
	/* The comm as the target's /proc says, escaped by the rule here. */
	(void) snprintf(path, sizeof (path), "/proc/%s/comm", fx.fx_pid);
	comm = tu_read_file(path, &len);
	if (len > 0 && comm[len - 1] == '\n')
		comm[--len] = '\0';
	ATF_REQUIRE_MSG(strchr(comm, '\\') != NULL, "comm %s", comm);
	esc = malloc(len * 4 + 1);
	ATF_REQUIRE(esc != NULL);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)comm[i];

		if (c < 0x20 || c == 0x7f || c == '\\')
			used += (size_t)sprintf(esc + used, "\\x%02x", c);
		else
			esc[used++] = (char)c;
	}
	esc[used] = '\0';
	{
		const char *args[] = { "-n", fx.fx_pid, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args,
		    .tp_env = env }, &r);
	}
	tu_require_exit("pfiles -n", &r, 0);
	want = tu_asprintf(": grabbed: %s, pidfd ", esc);
	ATF_CHECK_MSG(strstr(r.tr_err, want) != NULL, "no \"%s\" in the "
	    "trace: %s", want, r.tr_err);
	free(want);
	free(esc);
	free(comm);
	tu_result_free(&r);
	fixture_stop(&fx);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, via_pidfd);
	ATF_TP_ADD_TC(tp, via_agent);
	ATF_TP_ADD_TC(tp, nflag);
	ATF_TP_ADD_TC(tp, header_cut);
	ATF_TP_ADD_TC(tp, debug_trace);
	ATF_TP_ADD_TC(tp, debug_trace_backslash);
	return (atf_no_error());
}
