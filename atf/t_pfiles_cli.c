/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_pfiles_cli: pfiles' command line, checked exactly against the
 * contract (pfiles.1: SYNOPSIS, "Header", EXIT STATUS, DIAGNOSTICS):
 * usage errors (each bad option named), --help, --version and
 * --stat-only, -n, the header lines, --via, and output that cannot be
 * written (t_pfiles_pids holds the pids that cannot be examined).
 *
 * The targets are children of the test: `sleep' with known arguments
 * and a known RLIMIT_NOFILE, whose fds are exactly the two pipes and
 * /dev/null that tu_spawn() gives it, so the expected text comes from
 * the test's own view (its argv, its setrlimit, fstat of its own ends of
 * the same pipes); node on fixtures/sockets.js where a socket is needed.
 */
#include "cli_util.h"

#define	USAGE	"usage:\tpfiles [-J] [-n] [--no-endpoints] " \
	"[--via=auto|pidfd|agent|diag|bpf] pid ...\n"
#define	TRY	"Try 'pfiles --help' for more information.\n"

/* ------------------------------------------------------------------ */
ATF_TC(usage_no_pid);
ATF_TC_HEAD(usage_no_pid, tc)
{
	atf_tc_set_md_var(tc, "descr", "No pid: the usage line and the "
	    "Try line, exit 2");
}
ATF_TC_BODY(usage_no_pid, tc)
{
	const char *const none[] = { NULL };
	const char *const n_only[] = { "-n", NULL };
	const char *const via_only[] = { "--via=pidfd", NULL };

	expect_pfiles(none, 2, "", USAGE TRY);
	expect_pfiles(n_only, 2, "", USAGE TRY);
	expect_pfiles(via_only, 2, "", USAGE TRY);
}

ATF_TC(usage_bad_option);
ATF_TC_HEAD(usage_bad_option, tc)
{
	atf_tc_set_md_var(tc, "descr", "An unknown or malformed option "
	    "before a good pid: the option named as GNU tools name it, the "
	    "usage line, the Try line, exit 2, the pid not examined");
}
ATF_TC_BODY(usage_bad_option, tc)
{
	sleeper_t sl;

	sleeper_start(&sl, NULL, 0);
	{
		const char *const short_opt[] = { "-x", sl.sl_pid, NULL };
		const char *const long_opt[] = { "--bogus", sl.sl_pid, NULL };
		const char *const n_x[] = { "-nx", sl.sl_pid, NULL };
		const char *const json_arg[] = { "--json=1", sl.sl_pid, NULL };
		const char *const via_none[] = { "--via", NULL };

		expect_pfiles(short_opt, 2, "", "pfiles: invalid option -- "
		    "'x'\n" USAGE TRY);
		expect_pfiles(long_opt, 2, "", "pfiles: unrecognized option "
		    "'--bogus'\n" USAGE TRY);
		expect_pfiles(n_x, 2, "", "pfiles: invalid option -- 'x'\n"
		    USAGE TRY);
		expect_pfiles(json_arg, 2, "", "pfiles: option '--json' "
		    "doesn't allow an argument\n" USAGE TRY);
		expect_pfiles(via_none, 2, "", "pfiles: option '--via' "
		    "requires an argument\n" USAGE TRY);
	}
	sleeper_stop(&sl);
}

ATF_TC(usage_bad_via);
ATF_TC_HEAD(usage_bad_via, tc)
{
	atf_tc_set_md_var(tc, "descr", "--via with a value not in "
	    "auto|pidfd|agent|diag|bpf: the value named, the sources listed, "
	    "the usage line, the Try line, exit 2");
}
ATF_TC_BODY(usage_bad_via, tc)
{
	const char *const bad[] = { "bogus", "", "pidfdx", NULL };
	sleeper_t sl;

	sleeper_start(&sl, NULL, 0);
	for (int i = 0; bad[i] != NULL; i++) {
		char *opt = tu_asprintf("--via=%s", bad[i]);
		char *err = tu_asprintf("pfiles: invalid argument '%s' for "
		    "'--via' (one of auto, pidfd, agent, diag, bpf)\n"
		    USAGE TRY, bad[i]);
		const char *const args[] = { opt, sl.sl_pid, NULL };

		expect_pfiles(args, 2, "", err);
		free(err);
		free(opt);
	}
	sleeper_stop(&sl);
}

/* Does text hold a line that starts with prefix (after blanks)? */
static int
has_line(const char *text, const char *prefix)
{
	for (const char *p = text; p != NULL && *p != '\0'; ) {
		const char *q = p + strspn(p, " ");

		if (strncmp(q, prefix, strlen(prefix)) == 0)
			return (1);
		p = strchr(p, '\n');
		p = p != NULL ? p + 1 : NULL;
	}
	return (0);
}

ATF_TC(help);
ATF_TC_HEAD(help, tc)
{
	atf_tc_set_md_var(tc, "descr", "-h and --help: the usage line and "
	    "a line per option on stdout (the --via line lists every source), "
	    "nothing on stderr, exit 0, whatever follows");
}
ATF_TC_BODY(help, tc)
{
	static const char *const lines[] = { "-J, --json ",
	    "-n, --stat-only ", "--via=SOURCE ", "-h, --help ",
	    "-V, --version ", NULL };
	static const char *const sources[] = { "auto", "pidfd", "agent",
	    "diag", "bpf", NULL };
	const char *const h[] = { "-h", NULL };
	const char *const help[] = { "--help", "1", NULL };
	tu_result_t r, r2;
	const char *via;

	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = h }, &r);
	tu_require_exit("pfiles -h", &r, 0);
	ATF_REQUIRE_EQ_MSG(r.tr_errlen, 0, "stderr: %s", r.tr_err);
	ATF_REQUIRE_MSG(strncmp(r.tr_out, USAGE, strlen(USAGE)) == 0,
	    "not the usage line first: %s", r.tr_out);
	for (int i = 0; lines[i] != NULL; i++)
		ATF_CHECK_MSG(has_line(r.tr_out, lines[i]), "no line for %s",
		    lines[i]);
	via = strstr(r.tr_out, "--via=SOURCE ");
	ATF_REQUIRE(via != NULL);
	for (int i = 0; sources[i] != NULL; i++) {
		const char *nl = strchr(via, '\n'), *at = strstr(via,
		    sources[i]);

		ATF_CHECK_MSG(at != NULL && nl != NULL && at < nl, "the --via "
		    "line does not list %s", sources[i]);
	}
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = help }, &r2);
	tu_require_exit("pfiles --help 1", &r2, 0);
	tu_require_same_text("--help", r.tr_out, r.tr_outlen, r2.tr_out,
	    r2.tr_outlen);
	ATF_CHECK_EQ(r2.tr_errlen, 0);
	tu_result_free(&r);
	tu_result_free(&r2);
}

ATF_TC(version);
ATF_TC_HEAD(version, tc)
{
	atf_tc_set_md_var(tc, "descr", "-V and --version: 'pfiles from "
	    "PROJECT VERSION', the version as the VERSION file of the tree "
	    "says, on stdout, exit 0");
}
ATF_TC_BODY(version, tc)
{
	const char *const v[] = { "-V", NULL };
	const char *const version[] = { "--version", NULL };
	char *file = tu_read_file(SRC_DIR "/VERSION", NULL), *want;
	size_t n = strcspn(file, "\n");

	ATF_REQUIRE_MSG(n > 0 && file[n] == '\n' && file[n + 1] == '\0',
	    "VERSION is not one line: %s", file);
	want = tu_asprintf("pfiles from pfiles-linux %.*s\n", (int)n, file);
	expect_pfiles(v, 0, want, "");
	expect_pfiles(version, 0, want, "");
	free(want);
	free(file);
}

ATF_TC(stat_only_long);
ATF_TC_HEAD(stat_only_long, tc)
{
	atf_tc_set_md_var(tc, "descr", "--stat-only is -n: the same output "
	    "on the same process");
}
ATF_TC_BODY(stat_only_long, tc)
{
	sleeper_t sl;
	tu_result_t a, b;

	sleeper_start(&sl, NULL, 0);
	{
		const char *const n[] = { "-n", sl.sl_pid, NULL };
		const char *const l[] = { "--stat-only", sl.sl_pid, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = n }, &a);
		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = l }, &b);
	}
	sleeper_stop(&sl);
	tu_require_exit("pfiles -n", &a, 0);
	tu_require_exit("pfiles --stat-only", &b, 0);
	ATF_REQUIRE(strstr(a.tr_out, "   0: ") != NULL);
	tu_require_same_text("--stat-only", a.tr_out, a.tr_outlen, b.tr_out,
	    b.tr_outlen);
	tu_result_free(&a);
	tu_result_free(&b);
}

ATF_TC(n_flag);
ATF_TC_HEAD(n_flag, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -n: the header and the "
	    "stat lines only, from the test's own fstat of the same files");
}
ATF_TC_BODY(n_flag, tc)
{
	sleeper_t sl;
	char *want;

	sleeper_start(&sl, NULL, 0);
	want = sleeper_n_block(&sl);
	{
		const char *const args[] = { "-n", sl.sl_pid, NULL };

		expect_pfiles(args, 0, want, "");
	}
	free(want);
	sleeper_stop(&sl);
}

/* pfiles PID: exit 0, nothing on stderr, the header as expected. */
static void
expect_header(const sleeper_t *sl)
{
	const char *const args[] = { sl->sl_pid, NULL };
	char *want = sleeper_header(sl), *got;
	char *second;
	tu_result_t r;

	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	tu_require_exit("pfiles", &r, 0);
	tu_require_same_text("stderr", "", 0, r.tr_err, r.tr_errlen);
	/* The header is the first two lines. */
	second = strchr(r.tr_out, '\n');
	if (second == NULL || (second = strchr(second + 1, '\n')) == NULL)
		atf_tc_fail("pfiles printed fewer than two lines: %s",
		    r.tr_out);
	got = tu_asprintf("%.*s", (int)(second - r.tr_out + 1), r.tr_out);
	tu_require_same_str("header", want, got);
	free(got);
	free(want);
	tu_result_free(&r);
}

ATF_TC(header_rlimit);
ATF_TC_HEAD(header_rlimit, tc)
{
	atf_tc_set_md_var(tc, "descr", "The header: the command line as "
	    "exec'd and a soft RLIMIT_NOFILE of 777 set before exec");
}
ATF_TC_BODY(header_rlimit, tc)
{
	const char *const argv[] = { "sleep", SLEEP_SECONDS, "1", NULL };
	struct rlimit lim;
	sleeper_t sl;

	if (getrlimit(RLIMIT_NOFILE, &lim) != 0)
		atf_tc_fail("getrlimit: %s", strerror(errno));
	if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < 777)
		atf_tc_skip("the hard RLIMIT_NOFILE is %llu, below 777",
		    (unsigned long long)lim.rlim_max);
	sleeper_start(&sl, argv, 777);
	expect_header(&sl);
	sleeper_stop(&sl);
}

ATF_TC(header_cmdline_cut);
ATF_TC_HEAD(header_cmdline_cut, tc)
{
	atf_tc_set_md_var(tc, "descr", "The header: a command line longer "
	    "than 70 bytes is cut at 70");
}
ATF_TC_BODY(header_cmdline_cut, tc)
{
	/* sleep sums its arguments: this one adds next to nothing. */
	const char *const argv[] = { "sleep", SLEEP_SECONDS, "0.0000000000"
	    "000000000000000000000000000000000000000000000000000000000001",
	    NULL };
	char *cmd = joined_argv(argv);
	sleeper_t sl;

	ATF_REQUIRE_MSG(strlen(cmd) > 70, "the command line is too short "
	    "to test the cut: %zu bytes", strlen(cmd));
	free(cmd);
	sleeper_start(&sl, argv, 0);
	expect_header(&sl);
	sleeper_stop(&sl);
}

/* A node with one loopback connection: a target that has sockets. */
static void
node_start(tu_child_t *c, char *pid, size_t pidlen)
{
	const char *const argv[] = { "node", TU_SOCKETS_JS, "1", "60", NULL };
	char *line;

	tu_spawn(c, argv, 0);
	for (int i = 0; i < 2; i++) {
		if ((line = tu_read_line(c->tc_out, TU_TIMEOUT_MS)) == NULL)
			atf_tc_fail("node exited before reporting (status "
			    "0x%x; see stderr)", (unsigned)tu_stop(c, 0));
		free(line);
	}
	(void) snprintf(pid, pidlen, "%d", (int)c->tc_pid);
}

static char *
node_header_line(const char *pid)
{
	return (tu_asprintf("%s:\tnode %s 1 60\n", pid, TU_SOCKETS_JS));
}

/*
 * --via=SOURCE on a target with sockets.  A source that cannot work is
 * an error for that pid: exit 1 and one line "pfiles: cannot examine
 * PID: REASON" (any reason).  Once the source exists (the agent and diag
 * issues), it examines the pid: exit 0 and the header; diag may then
 * also say on stderr which facts it could not get.
 */
static void
check_forced_source(const char *via)
{
	tu_child_t node;
	char pid[16], *opt, *prefix, *hdr;
	tu_result_t r;

	node_start(&node, pid, sizeof (pid));
	opt = tu_asprintf("--via=%s", via);
	prefix = tu_asprintf("pfiles: cannot examine %s: ", pid);
	hdr = node_header_line(pid);
	{
		const char *const args[] = { opt, pid, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	}
	if (WIFEXITED(r.tr_status) && WEXITSTATUS(r.tr_status) == 1) {
		const char *reason = r.tr_err + strlen(prefix);

		ATF_REQUIRE_MSG(strncmp(r.tr_err, prefix, strlen(prefix)) ==
		    0, "stderr: %s", r.tr_err);
		ATF_REQUIRE_MSG(r.tr_errlen > strlen(prefix) + 1 &&
		    strchr(reason, '\n') == r.tr_err + r.tr_errlen - 1,
		    "not one line with a reason: %s", r.tr_err);
		(void) fprintf(stderr, "--via=%s: %s", via, r.tr_err);
	} else {
		tu_require_exit("pfiles", &r, 0);
		ATF_REQUIRE_MSG(strncmp(r.tr_out, hdr, strlen(hdr)) == 0,
		    "--via=%s worked, but the output does not start with "
		    "the header %s", via, hdr);
		(void) fprintf(stderr, "--via=%s examined the pid\n", via);
	}
	tu_result_free(&r);
	free(opt);
	free(prefix);
	free(hdr);
	(void) tu_stop(&node, TU_TIMEOUT_MS);
}

/* The TracerPid of pid's status: 0 when it is traced by nobody. */
static long
tracer_of(pid_t pid)
{
	char path[48], *text, *at;
	long tracer = -1;

	(void) snprintf(path, sizeof (path), "/proc/%d/status", (int)pid);
	if ((text = tu_read_file(path, NULL)) != NULL &&
	    (at = strstr(text, "\nTracerPid:")) != NULL)
		tracer = strtol(at + strlen("\nTracerPid:"), NULL, 10);
	free(text);
	return (tracer);
}

/*
 * pfiles ARGS with its stdout going to out (and stdin from /dev/null),
 * LIBPROC_DEBUG set when debug; its stderr is read into *errp (malloc'd)
 * once it ends, and its wait status returned.  With rd >= 0, out is the
 * write end of a pipe whose read end is rd: one line is read from rd,
 * then rd is closed while pfiles still has most of its output to write.
 */
static int
pfiles_to(const char *const args[], int out, int rd, int debug,
    char **errp)
{
	int errpipe[2], st;
	pid_t pid;
	char *line;

	ATF_REQUIRE(pipe(errpipe) == 0);
	if ((pid = fork()) == 0) {
		const char *argv[8] = { TU_PFILES };
		int in = open("/dev/null", O_RDONLY);
		size_t n = 1;

		for (size_t i = 0; args[i] != NULL && n < 7; i++)
			argv[n++] = args[i];
		argv[n] = NULL;
		/* The reader's end is the test's alone: else never EPIPE. */
		if (rd >= 0)
			(void) close(rd);
		(void) close(errpipe[0]);
		if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
		    dup2(errpipe[1], 2) < 0)
			_exit(126);
		/* As a shell gives it: SIGPIPE neither ignored nor blocked. */
		(void) signal(SIGPIPE, SIG_DFL);
		if (debug)
			(void) setenv("LIBPROC_DEBUG", "1", 1);
		(void) execv(TU_PFILES, (char *const *)argv);
		_exit(127);
	}
	ATF_REQUIRE(pid > 0);
	(void) close(errpipe[1]);
	(void) close(out);
	if (rd >= 0) {
		line = tu_read_line(rd, TU_TIMEOUT_MS);
		ATF_REQUIRE_MSG(line != NULL, "pfiles wrote no line");
		free(line);
		(void) close(rd);
	}
	*errp = tu_read_until(errpipe[0], NULL, TU_TIMEOUT_MS, NULL);
	(void) close(errpipe[0]);
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	return (st);
}

ATF_TC(output_not_read);
ATF_TC_HEAD(output_not_read, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles PID | head -1 on a target "
	    "with 300 connections, with each source and -J: pfiles ends as a "
	    "filter does, by SIGPIPE, says nothing on stderr, and leaves the "
	    "target running, traced by nobody (pfiles.1, EXIT STATUS)");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(output_not_read, tc)
{
	static const char *const opts[] = { "--via=agent", "--via=pidfd",
	    "--via=diag", "--via=auto", "-J" };
	const char *const argv[] = { "node", TU_SOCKETS_JS, "300", "60", NULL };
	tu_child_t node;
	char pid[16], *line, *err;
	int st;

	/* 300 connections: over 200 kB of text, more than pfiles buffers. */
	tu_spawn(&node, argv, 0);
	for (int i = 0; i < 2; i++) {
		ATF_REQUIRE_MSG((line = tu_read_line(node.tc_out,
		    TU_TIMEOUT_MS)) != NULL, "node exited before reporting");
		free(line);
	}
	(void) snprintf(pid, sizeof (pid), "%d", (int)node.tc_pid);
	for (size_t i = 0; i < sizeof (opts) / sizeof (opts[0]); i++) {
		const char *const args[] = { opts[i], pid, NULL };
		int p[2];
		char state;

		ATF_REQUIRE(pipe(p) == 0);
		st = pfiles_to(args, p[1], p[0], 0, &err);
		ATF_CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE,
		    "%s: status 0x%x, not the end by SIGPIPE of a filter",
		    opts[i], (unsigned)st);
		ATF_CHECK_MSG(err[0] == '\0', "%s said on stderr: %s",
		    opts[i], err);
		free(err);
		state = tu_proc_state(node.tc_pid);
		ATF_CHECK_MSG(state == 'S' || state == 'R',
		    "%s: the target is left in state %c", opts[i], state);
		ATF_CHECK_MSG(tracer_of(node.tc_pid) == 0, "%s: the target "
		    "is left traced by %ld", opts[i], tracer_of(node.tc_pid));
	}
	/*
	 * Not killed in the middle of the walk: the agent's thread given
	 * back and the process released before the end (the trace's last
	 * words), not left to the kernel's detach at pfiles' death.
	 */
	{
		static const char released[] = ": released\n";
		const char *const args[] = { "--via=agent", pid, NULL };
		size_t n;
		int p[2];

		ATF_REQUIRE(pipe(p) == 0);
		st = pfiles_to(args, p[1], p[0], 1, &err);
		ATF_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE);
		n = strlen(err);
		ATF_CHECK_MSG(strstr(err, " given back\n") != NULL &&
		    n >= strlen(released) &&
		    strcmp(err + n - strlen(released), released) == 0,
		    "the trace does not end with the thread given back and "
		    "the process released: ...%s",
		    err + (n > 200 ? n - 200 : 0));
		free(err);
	}
	(void) close(node.tc_in);
	node.tc_in = -1;
	ATF_CHECK_MSG(WIFEXITED(st = tu_stop(&node, TU_TIMEOUT_MS)) &&
	    WEXITSTATUS(st) == 0, "the target ended with status 0x%x",
	    (unsigned)st);
	/* The contract says so (it once said "write error", status 1). */
	line = tu_read_file(SRC_DIR "/libproc-patch/pfiles/pfiles.1", NULL);
	ATF_REQUIRE(line != NULL);
	ATF_CHECK_MSG(strstr(line, "ends as\nany filter does, killed by\n"
	    ".Dv SIGPIPE") != NULL, "pfiles.1 does not say that pfiles ends "
	    "by SIGPIPE when its reader stops reading");
	free(line);
}

ATF_TC(output_full);
ATF_TC_HEAD(output_full, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles PID > /dev/full: 'pfiles: "
	    "write error: ' and strerror(ENOSPC) on stderr, exit status 1, "
	    "the target left running (pfiles.1, DIAGNOSTICS)");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(output_full, tc)
{
	tu_child_t node;
	char pid[16], *err, *want;
	int full, st;

	node_start(&node, pid, sizeof (pid));
	{
		const char *const args[] = { "--via=agent", pid, NULL };

		ATF_REQUIRE((full = open("/dev/full", O_WRONLY)) >= 0);
		st = pfiles_to(args, full, -1, 0, &err);
	}
	want = tu_asprintf("pfiles: write error: %s\n", strerror(ENOSPC));
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 1,
	    "status 0x%x, not exit 1", (unsigned)st);
	tu_require_same_str("stderr", want, err);
	ATF_CHECK_EQ(tracer_of(node.tc_pid), 0);
	free(want);
	free(err);
	ATF_CHECK(WIFEXITED(st = tu_stop(&node, TU_TIMEOUT_MS)) &&
	    WEXITSTATUS(st) == 0);
}

ATF_TC(via_agent);
ATF_TC_HEAD(via_agent, tc)
{
	atf_tc_set_md_var(tc, "descr", "--via=agent: examines the pid, or "
	    "an error for that pid with exit 1");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(via_agent, tc)
{
	check_forced_source("agent");
}

ATF_TC(via_diag);
ATF_TC_HEAD(via_diag, tc)
{
	atf_tc_set_md_var(tc, "descr", "--via=diag: examines the pid, or "
	    "an error for that pid with exit 1");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(via_diag, tc)
{
	check_forced_source("diag");
}

ATF_TC(via_pidfd_auto);
ATF_TC_HEAD(via_pidfd_auto, tc)
{
	atf_tc_set_md_var(tc, "descr", "--via=pidfd and --via=auto examine "
	    "a process with sockets: exit 0, nothing on stderr");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(via_pidfd_auto, tc)
{
	const char *const vias[] = { "--via=pidfd", "--via=auto", NULL };
	tu_child_t node;
	char pid[16], *hdr;

	node_start(&node, pid, sizeof (pid));
	hdr = node_header_line(pid);
	for (int i = 0; vias[i] != NULL; i++) {
		const char *const args[] = { vias[i], pid, NULL };
		tu_result_t r;

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
		tu_require_exit(vias[i], &r, 0);
		tu_require_same_text("stderr", "", 0, r.tr_err, r.tr_errlen);
		ATF_REQUIRE_MSG(strncmp(r.tr_out, hdr, strlen(hdr)) == 0,
		    "%s: the output does not start with %s", vias[i], hdr);
		ATF_REQUIRE_MSG(strstr(r.tr_out, "\n\tsockname: AF_INET "
		    "127.0.0.1  port: ") != NULL, "%s: no socket shown",
		    vias[i]);
		tu_result_free(&r);
	}
	free(hdr);
	(void) tu_stop(&node, TU_TIMEOUT_MS);
}

ATF_TC(n_asks_no_source);
ATF_TC_HEAD(n_asks_no_source, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -n on a process with sockets "
	    "asks no source of socket facts: under strace -f, no socket(2), "
	    "pidfd_getfd, ptrace, bpf, process_vm_*, getsockopt, "
	    "getsockname, getpeername, sendmsg, recvmsg or setns call");
	atf_tc_set_md_var(tc, "require.progs", "strace");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(n_asks_no_source, tc)
{
	tu_child_t node;
	char pid[16], *hdr, *log, *line, *save = NULL;
	const char *out = "n_asks_no_source.strace";
	tu_result_t r;
	size_t len;

	node_start(&node, pid, sizeof (pid));
	hdr = node_header_line(pid);
	{
		const char *const wrap[] = { "strace", "-f", "-qq", "-o", out,
		    "-e", "trace=socket,socketpair,pidfd_getfd,ptrace,bpf,"
		    "process_vm_readv,process_vm_writev,getsockopt,"
		    "getsockname,getpeername,sendmsg,recvmsg,setns", NULL };
		const char *const args[] = { "-n", pid, NULL };

		/* LeakSanitizer (SANITIZE=1) cannot run its check under ptrace. */
		const char *const env[] = { "ASAN_OPTIONS=detect_leaks=0",
		    NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
		    .tp_opts = args, .tp_env = env }, &r);
	}
	(void) tu_stop(&node, TU_TIMEOUT_MS);
	tu_require_exit("strace pfiles -n", &r, 0);
	ATF_REQUIRE_MSG(strncmp(r.tr_out, hdr, strlen(hdr)) == 0,
	    "the output does not start with %s", hdr);
	ATF_REQUIRE_MSG(strstr(r.tr_out, " S_IFSOCK ") != NULL,
	    "no socket in the output: %s", r.tr_out);
	log = tu_read_file(out, &len);
	for (line = strtok_r(log, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		ATF_CHECK_MSG(0, "pfiles -n asked a source: %s", line);
	free(log);
	free(hdr);
	tu_result_free(&r);
}

/*
 * The lines of LIBPROC_DEBUG's trace, each "libproc[PFILES]: pid PID:
 * TEXT", all from one pfiles process, as TEXTs joined by newlines; the
 * test fails on a line of any other form.
 */
static char *
trace_texts(const char *err, const char *pid)
{
	char *copy = tu_asprintf("%s", err), *line, *save = NULL;
	char *texts = tu_asprintf("%s", ""), *prefix;
	int ours = -1, n, at;

	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char *longer;

		at = 0;
		ATF_REQUIRE_MSG(sscanf(line, "libproc[%d]: %n", &n, &at) == 1 &&
		    at > 0, "not a trace line: %s", line);
		ATF_CHECK_MSG(ours == -1 || n == ours, "two tracers: %s", line);
		ours = n;
		prefix = tu_asprintf("pid %s: ", pid);
		ATF_REQUIRE_MSG(strncmp(line + at, prefix, strlen(prefix)) ==
		    0, "not about pid %s: %s", pid, line);
		longer = tu_asprintf("%s%s\n", texts, line + at +
		    strlen(prefix));
		free(texts);
		texts = longer;
		free(prefix);
	}
	free(copy);
	return (texts);
}

ATF_TC(debug_trace);
ATF_TC_HEAD(debug_trace, tc)
{
	atf_tc_set_md_var(tc, "descr", "LIBPROC_DEBUG=1 traces the grab, the "
	    "source chosen and the agent's changes of state on stderr; "
	    "unset or 0, nothing is written");
}
ATF_TC_BODY(debug_trace, tc)
{
	const char *const on[] = { "LIBPROC_DEBUG=1", NULL };
	const char *const zero[] = { "LIBPROC_DEBUG=0", NULL };
	sleeper_t sl;
	char *want, *got;
	const char *pidfd;
	tu_result_t r;
	int pfd;

	/* What the grab says of the pidfd, as this kernel gives one. */
	pfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	pidfd = pfd >= 0 ? "held" : "not available";
	if (pfd >= 0)
		(void) close(pfd);

	sleeper_start(&sl, NULL, 0);
	{
		const char *args[] = { "-n", sl.sl_pid, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args, .tp_env = on },
		    &r);
		tu_require_exit("pfiles -n", &r, 0);
		got = trace_texts(r.tr_err, sl.sl_pid);
		want = tu_asprintf("grabbed: sleep, pidfd %s\nreleased\n",
		    pidfd);
		tu_require_same_str("trace-n", want, got);
		free(want);
		free(got);
		tu_result_free(&r);

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args,
		    .tp_env = zero }, &r);
		tu_require_exit("pfiles -n", &r, 0);
		tu_require_same_text("stderr-zero", "", 0, r.tr_err,
		    r.tr_errlen);
		tu_result_free(&r);
		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
		tu_require_exit("pfiles -n", &r, 0);
		tu_require_same_text("stderr-unset", "", 0, r.tr_err,
		    r.tr_errlen);
		tu_result_free(&r);
	}
	{
		const char *args[] = { "--via=agent", sl.sl_pid, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args,
		    .tp_env = on }, &r);
		tu_require_exit("pfiles --via=agent", &r, 0);
		got = trace_texts(r.tr_err, sl.sl_pid);
		want = tu_asprintf("grabbed: sleep, pidfd %s\n"
		    "agent: thread %s seized, examined and lent\n"
		    "socket facts: agent serves\n"
		    "agent: passing sockets on\n"
		    "agent: thread %s given back\n"
		    "released\n", pidfd, sl.sl_pid, sl.sl_pid);
		tu_require_same_str("trace-agent", want, got);
		free(want);
		free(got);
		tu_result_free(&r);
	}
	sleeper_stop(&sl);
}

ATF_TC(bash_completion);
ATF_TC_HEAD(bash_completion, tc)
{
	atf_tc_set_md_var(tc, "descr", "the bash completion of pfiles: "
	    "options, --via values, and a process ID with its command name "
	    "while more than one fits");
	atf_tc_set_md_var(tc, "require.progs", "bash");
}
ATF_TC_BODY(bash_completion, tc)
{
	static const char script[] = "source \"$1\" 2>/dev/null; "
	    "shift; COMP_WORDS=(pfiles \"$1\"); COMP_CWORD=1; _pfiles "
	    "2>/dev/null; printf '%s\\n' \"${COMPREPLY[@]}\"";
	static const struct { const char *word, *want; } cases[] = {
		{ "--via=p", "pidfd\n" },
		{ "--via=", "auto\npidfd\nagent\ndiag\nbpf\n" },
		{ "--js", "--json\n" },
		{ "--st", "--stat-only\n" },
		{ "--vi", "--via=\n" },
		{ "--ver", "--version\n" },
	};
	sleeper_t sl;
	tu_result_t r;

	for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
		const char *argv[] = { "bash", "-c", script, "bash",
		    SRC_DIR "/libproc-patch/pfiles/pfiles.bash-completion",
		    cases[i].word, NULL };

		tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
		tu_require_exit("bash", &r, 0);
		tu_require_same_str(cases[i].word, cases[i].want, r.tr_out);
		tu_result_free(&r);
	}
	sleeper_start(&sl, NULL, 0);
	{
		const char *argv[] = { "bash", "-c", script, "bash",
		    SRC_DIR "/libproc-patch/pfiles/pfiles.bash-completion",
		    sl.sl_pid, NULL };
		char *alone = tu_asprintf("%s\n", sl.sl_pid);
		char *named = tu_asprintf("%s(sleep)\n", sl.sl_pid);
		char *inner = tu_asprintf("\n%s", named);

		tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
		tu_require_exit("bash", &r, 0);
		ATF_CHECK_MSG(strcmp(r.tr_out, alone) == 0 ||
		    strncmp(r.tr_out, named, strlen(named)) == 0 ||
		    strstr(r.tr_out, inner) != NULL,
		    "pid %s: %s", sl.sl_pid, r.tr_out);
		tu_result_free(&r);
		free(inner);
		free(alone);
		free(named);
	}
	sleeper_stop(&sl);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, usage_no_pid);
	ATF_TP_ADD_TC(tp, usage_bad_option);
	ATF_TP_ADD_TC(tp, usage_bad_via);
	ATF_TP_ADD_TC(tp, help);
	ATF_TP_ADD_TC(tp, version);
	ATF_TP_ADD_TC(tp, stat_only_long);
	ATF_TP_ADD_TC(tp, bash_completion);
	ATF_TP_ADD_TC(tp, n_flag);
	ATF_TP_ADD_TC(tp, n_asks_no_source);
	ATF_TP_ADD_TC(tp, header_rlimit);
	ATF_TP_ADD_TC(tp, header_cmdline_cut);
	ATF_TP_ADD_TC(tp, via_agent);
	ATF_TP_ADD_TC(tp, via_diag);
	ATF_TP_ADD_TC(tp, via_pidfd_auto);
	ATF_TP_ADD_TC(tp, debug_trace);
	ATF_TP_ADD_TC(tp, output_not_read);
	ATF_TP_ADD_TC(tp, output_full);
	return (atf_no_error());
}
