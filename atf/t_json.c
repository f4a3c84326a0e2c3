/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_json: pfiles -J (pfiles.1, JSON OUTPUT; pfiles.schema.json).
 *
 * Every case runs pfiles twice with the same options, with and without
 * -J, and hands both outputs to atf/json_check.py (Debian's
 * /usr/bin/python3 with python3-jsonschema), which
 *
 *	- validates the JSON against the schema with Draft202012Validator,
 *	  after a strict UTF-8 decoding and a parse that refuses a key given
 *	  twice in an object;
 *	- writes every object of the JSON out in the text form by the rules
 *	  of pfiles(1) and requires it to equal the text pfiles printed, line
 *	  for line, so that the JSON and the text say the same thing, fact by
 *	  fact (names the fd of the first line that differs);
 *	- requires the same stderr with and without -J, the JSON's notes to
 *	  be its lines and the errors of the pids not examined its "cannot
 *	  examine" lines;
 *	- requires every string that comes from the target to be in the
 *	  form of pfiles' rule for text from the target (escaping the bytes
 *	  it stands for gives it back), and no string to hold a control,
 *	  bidi or zero-width character.
 *
 * With a sockfix fixture it also compares the JSON with the fixture's
 * manifest (its own view of its fds), the independent truth, twice: the
 * rendered JSON must equal the text expect.c computes from the manifest,
 * and the checker compares every member of every fd object with what it
 * derives from the manifest itself, including what the text cannot say
 * (an option false rather than not known, SO_LINGER off, a target string
 * unescaped back to its bytes).
 *
 *   - facts_all, facts_hostile, facts_states: sockfix's set "all"
 *     (every set but hostile and those of still states), its set
 *     "hostile" with a hostile comm and command line, and its sets of
 *     still states ("states": state and queues, backlogs, holders in
 *     other processes, packet sockets, netlink groups past 32), through
 *     the default source and --via=pidfd, agent and diag.
 *   - args_not_cut: a command line of 300 bytes is whole in args, and
 *     cut at 70 bytes in the text.
 *   - nflag: -J -n has exactly the stat members per fd, and says what
 *     -n and the manifest say.
 *   - several_pids: fixtures, "0", "abc", a pid that has gone, a kernel
 *     thread and /proc/PID: one object each, in order, of the right kind;
 *     the same stderr and exit status 1 as the text.
 *   - hostile_strings: a target of the checker's own binds unix sockets
 *     at a path and an abstract name holding a newline, a quote, a
 *     backslash, ESC, DEL, ill-formed UTF-8 and an inner NUL, and sets a
 *     comm and a command line of such bytes; unescaping the JSON's
 *     strings gives back exactly the bytes of its own view, through
 *     every source.
 *   - checker_fails: the check of the check: the checker refuses a good
 *     output made wrong in one fact at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <atf-c.h>

#include "expect.h"
#include "fixture.h"
#include "testutil.h"

#define	PYTHON		"/usr/bin/python3"
#define	CHECKER		SRC_DIR "/atf/json_check.py"
#define	SCHEMA		SRC_DIR "/libproc-patch/pfiles/pfiles.schema.json"
#define	MAX_ARGS	48

/* The hostile comm and arguments of t_hostile's fixture. */
#define	HOSTILE_COMM	"c\n  99:\x1b[7m\xff\xe2\x80\xae"

static const char *const via_all[] = { "", "--via=pidfd", "--via=agent",
	"--via=diag", NULL };

/* The checker and its validator are there (make deps-check installs). */
static void
require_checker(void)
{
	const char *argv[] = { PYTHON, "-c", "import jsonschema; "
	    "jsonschema.Draft202012Validator", NULL };
	tu_result_t r;

	tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	if (!WIFEXITED(r.tr_status) || WEXITSTATUS(r.tr_status) != 0)
		atf_tc_fail(PYTHON " has no jsonschema with Draft 2020-12 "
		    "(apt-get install python3-jsonschema): %s", r.tr_err);
	tu_result_free(&r);
}

/*
 * Start sockfix with fd set `set' (comm and extra arguments optional)
 * and read its manifest, kept in the file `mfname' of the work directory
 * for the checker.  Skips when a set cannot exist here.  With `link',
 * sockfix runs as "./f", a symlink in the work directory, so that its
 * command line does not depend on where the build directory is.
 */
static void
fixture_start_as(fixture_t *fx, int link, const char *set,
    const char *comm, const char *const extra[], const char *mfname)
{
	const char *argv[MAX_ARGS];
	char err[256], *text;
	int n = 0, found, skipped;

	if (link) {
		(void) unlink("f");
		if (symlink(TU_SOCKFIX, "f") != 0)
			atf_tc_fail("symlink f: %s", strerror(errno));
	}
	argv[n++] = link ? "./f" : TU_SOCKFIX;
	argv[n++] = "-t";
	argv[n++] = FX_SECONDS;
	argv[n++] = "-s";
	argv[n++] = set;
	if (comm != NULL) {
		argv[n++] = "-c";
		argv[n++] = comm;
	}
	for (int i = 0; extra != NULL && extra[i] != NULL; i++) {
		ATF_REQUIRE(n < MAX_ARGS - 1);
		argv[n++] = extra[i];
	}
	argv[n] = NULL;

	tu_spawn(&fx->fx_child, argv, TU_STDERR_PIPE);
	text = tu_read_until(fx->fx_child.tc_out, "end", TU_TIMEOUT_MS,
	    &found);
	if (!found) {
		char *msg = tu_read_until(fx->fx_child.tc_err, NULL, 2000,
		    NULL);

		atf_tc_fail("sockfix gave no manifest: %s", msg);
	}
	tu_write_file(mfname, text, strlen(text));
	if ((fx->fx_manifest = mf_parse(text, err, sizeof (err))) == NULL)
		atf_tc_fail("sockfix manifest: %s", err);
	free(text);
	(void) snprintf(fx->fx_pid, sizeof (fx->fx_pid), "%d",
	    (int)fx->fx_manifest->m_pid);
	ATF_REQUIRE_EQ(fx->fx_manifest->m_pid, fx->fx_child.tc_pid);
	if ((skipped = mf_skipped(fx->fx_manifest, set)) != 0)
		atf_tc_skip("sockfix could not open set %s here: %s", set,
		    strerror(skipped));
}

static void
fixture_start(fixture_t *fx, const char *set, const char *comm,
    const char *const extra[], const char *mfname)
{
	fixture_start_as(fx, 0, set, comm, extra, mfname);
}

/* The text expect.c computes from a manifest, into the file `name'. */
static void
write_expected(const fixture_t *fx, int flags, const char *name)
{
	char err[256], *text;

	if ((text = expect_pfiles(fx->fx_manifest, flags, err,
	    sizeof (err))) == NULL)
		atf_tc_fail("cannot compute the expected text: %s", err);
	tu_write_file(name, text, strlen(text));
	free(text);
}

/*
 * pfiles with opts (NULL-ended; "" entries are skipped) on args, once
 * without -J and once with: WHAT.txt, WHAT.txt.err, WHAT.json and
 * WHAT.json.err in the work directory.  Both must exit with `status'.
 */
static void
run_both(const char *what, const char *const opts[],
    const char *const args[], int status)
{
	for (int json = 0; json <= 1; json++) {
		const char *o[MAX_ARGS];
		char *out, *err;
		tu_result_t r;
		int n = 0;

		if (json)
			o[n++] = "-J";
		for (int i = 0; opts != NULL && opts[i] != NULL; i++) {
			ATF_REQUIRE(n < MAX_ARGS - 1);
			if (opts[i][0] != '\0')
				o[n++] = opts[i];
		}
		o[n] = NULL;
		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = o, .tp_pids = args },
		    &r);
		out = tu_asprintf("%s.%s", what, json ? "json" : "txt");
		err = tu_asprintf("%s.err", out);
		tu_write_file(out, r.tr_out, r.tr_outlen);
		tu_write_file(err, r.tr_err, r.tr_errlen);
		if (!WIFEXITED(r.tr_status) ||
		    WEXITSTATUS(r.tr_status) != status) {
			(void) fprintf(stderr, "%s: stderr:\n%s", out,
			    r.tr_err);
			atf_tc_fail("%s: pfiles wait status 0x%x, expected "
			    "exit %d", out, (unsigned)r.tr_status, status);
		}
		free(out);
		free(err);
		tu_result_free(&r);
	}
}

/*
 * The checker on WHAT's outputs (json named jsonfile, or WHAT.json when
 * NULL), pfiles run with the source option via (NULL: the default), with
 * more options (NULL-ended).  It is told whether the kernel can prove a
 * unix socket's peer for that source (tu_peer_provable): if not, the
 * peer must have its pid and no comm.  Returns its exit status (0 the
 * facts agree, 1 they do not); its findings go to our stderr.
 */
static int
checker(const char *what, const char *via, const char *jsonfile,
    const char *const more[])
{
	const char *argv[MAX_ARGS];
	char *json = jsonfile != NULL ? tu_asprintf("%s", jsonfile) :
	    tu_asprintf("%s.json", what);
	char *jerr = tu_asprintf("%s.json.err", what);
	char *text = tu_asprintf("%s.txt", what);
	char *terr = tu_asprintf("%s.txt.err", what);
	tu_result_t r;
	int n = 0, code;

	argv[n++] = PYTHON;
	argv[n++] = CHECKER;
	argv[n++] = "check";
	argv[n++] = "--schema";
	argv[n++] = SCHEMA;
	argv[n++] = "--json";
	argv[n++] = json;
	argv[n++] = "--text";
	argv[n++] = text;
	argv[n++] = "--json-err";
	argv[n++] = jerr;
	argv[n++] = "--text-err";
	argv[n++] = terr;
	argv[n++] = "--peers";
	argv[n++] = tu_peer_provable(via != NULL && *via != '\0' ? via :
	    NULL) ? "provable" : "unprovable";
	for (int i = 0; more != NULL && more[i] != NULL; i++) {
		ATF_REQUIRE(n < MAX_ARGS - 1);
		argv[n++] = more[i];
	}
	argv[n] = NULL;
	tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	if (r.tr_outlen > 0 || r.tr_errlen > 0)
		(void) fprintf(stderr, "checker on %s:\n%s%s", json, r.tr_out,
		    r.tr_err);
	if (!WIFEXITED(r.tr_status) || WEXITSTATUS(r.tr_status) > 1)
		atf_tc_fail("the checker failed on %s: wait status 0x%x: %s",
		    json, (unsigned)r.tr_status, r.tr_err);
	code = WEXITSTATUS(r.tr_status);
	tu_result_free(&r);
	free(json);
	free(jerr);
	free(text);
	free(terr);
	return (code);
}

static void
require_agree(const char *what, const char *via, const char *const more[])
{
	if (checker(what, via, NULL, more) != 0)
		atf_tc_fail("%s: the JSON and the text or the manifest "
		    "disagree (see stderr)", what);
}

/* One fixture through every source: JSON = text = manifest. */
static void
check_set(int link, const char *set, const char *comm,
    const char *const extra[])
{
	const char *args[2] = { NULL, NULL };
	fixture_t fx;

	require_checker();
	fixture_start_as(&fx, link, set, comm, extra, "manifest");
	args[0] = fx.fx_pid;
	for (int i = 0; via_all[i] != NULL; i++) {
		int diag = strcmp(via_all[i], "--via=diag") == 0;
		const char *opts[2] = { via_all[i], NULL };
		char *what = tu_asprintf("%s%s", set, via_all[i]);
		char *expected = tu_asprintf("%s.expected", what);
		const char *more[] = { "--manifest", "manifest", "--via",
		    diag ? "diag" : "pidfd", "--expected", expected, NULL };

		write_expected(&fx, diag ? EXP_DIAG : 0, expected);
		run_both(what, opts, args, 0);
		require_agree(what, via_all[i], more);
		free(expected);
		free(what);
	}
	fx_stop(&fx);
}


static void
soft_limit_check(void)
{
	check_set(0, "pipe", NULL, NULL);
}

ATF_TC(soft_limit);
ATF_TC_HEAD(soft_limit, tc)
{
	atf_tc_set_md_var(tc, "descr", "A target whose soft RLIMIT_NOFILE "
	    "is below its hard one: rlimit_nofile is the soft one, as in "
	    "the fixture's manifest");
	atf_tc_set_md_var(tc, "require.progs", PYTHON);
}
ATF_TC_BODY(soft_limit, tc)
{
	tu_with_low_soft_nofile(soft_limit_check);
}

ATF_TC(facts_all);
ATF_TC_HEAD(facts_all, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -J on every kind of fd of "
	    "sockfix's set all, through every source: valid by the schema, "
	    "the same facts as the text, and as the fixture's manifest");
	atf_tc_set_md_var(tc, "require.progs", PYTHON);
}
ATF_TC_BODY(facts_all, tc)
{
	check_set(0, "all", NULL, NULL);
}

ATF_TC(facts_hostile);
ATF_TC_HEAD(facts_hostile, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -J on sockfix's hostile "
	    "names, comm and command line, through every source: valid, "
	    "the same facts as the text and the manifest, every target "
	    "string in the rule's form");
	atf_tc_set_md_var(tc, "require.progs", PYTHON);
}
ATF_TC_BODY(facts_hostile, tc)
{
	/* A command line of 72 bytes: args_not_cut is about longer ones. */
	static const char *const extra[] = { "a\tb\\\x7f\"", NULL };

	check_set(1, "hostile", HOSTILE_COMM, extra);
}

ATF_TC(facts_states);
ATF_TC_HEAD(facts_states, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -J on sockfix's sockets in "
	    "still states (every set of \"states\"), through every source: "
	    "state, queued, backlog, shared_with, packet and netlink members "
	    "valid by the schema, the same facts as the text, and as the "
	    "fixture's manifest");
	atf_tc_set_md_var(tc, "require.progs", PYTHON);
	tu_timeout(tc, 120);
}
ATF_TC_BODY(facts_states, tc)
{
	check_set(0, "states", NULL, NULL);
}

ATF_TC(args_not_cut);
ATF_TC_HEAD(args_not_cut, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -J gives the whole command "
	    "line in args (pfiles.1: the header's, not cut), where the text "
	    "cuts it at 70 bytes; 300 bytes with UTF-8 and escapes across "
	    "bytes 70 and 80");
	atf_tc_set_md_var(tc, "require.progs", PYTHON);
}
ATF_TC_BODY(args_not_cut, tc)
{
	static const char *const extra[] = {
	    "0123456789012345678901234567890123456789\xc3\xa9\xe2\x82\xac",
	    "\x1b\xff\\" "0123456789abcdefghijklmnopqrstuvwxyz0123456789"
	    "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz"
	    "0123456789abcdefghijklmnopqrstuvwxyz0123456789", "end", NULL };

	check_set(1, "min", NULL, extra);
}

ATF_TC(nflag);
ATF_TC_HEAD(nflag, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -J -n gives the stat "
	    "members of every fd only, the facts of the text and of the "
	    "manifest; --via is ignored");
	atf_tc_set_md_var(tc, "require.progs", PYTHON);
}
ATF_TC_BODY(nflag, tc)
{
	static const char *const opts[][3] = { { "-n", NULL, NULL },
	    { "-n", "--via=diag", NULL } };
	const char *args[2] = { NULL, NULL };
	const char *more[] = { "--nflag", "--manifest", "manifest",
	    "--expected", "n.expected", NULL };
	fixture_t fx;

	require_checker();
	fixture_start(&fx, "all", NULL, NULL, "manifest");
	args[0] = fx.fx_pid;
	write_expected(&fx, EXP_NFLAG, "n.expected");
	run_both("n", opts[0], args, 0);
	require_agree("n", NULL, more);
	run_both("n-diag", opts[1], args, 0);
	require_agree("n-diag", "--via=diag", more);
	fx_stop(&fx);
}

ATF_TC(args_one_empty);
ATF_TC_HEAD(args_one_empty, tc)
{
	atf_tc_set_md_var(tc, "descr", "A process run with one empty "
	    "argument (argv {\"\"}: a command line of one NUL) has args "
	    "\"\" in pfiles -J: the NUL that ends the last argument is "
	    "dropped, not made a space");
}
ATF_TC_BODY(args_one_empty, tc)
{
	char path[64], *cmd = NULL, *want;
	size_t len = 0;
	int in[2], status;
	pid_t pid;
	tu_result_t r;

	ATF_REQUIRE(pipe2(in, O_CLOEXEC) == 0);
	ATF_REQUIRE((pid = fork()) >= 0);
	if (pid == 0) {
		char *const argv[] = { (char *)"", NULL };

		/* cat reads its stdin: it runs until the test closes it. */
		if (dup2(in[0], 0) != 0)
			_exit(126);
		(void) execv("/bin/cat", argv);
		_exit(127);
	}
	(void) close(in[0]);
	/* Its own command line, once the exec is done: one NUL. */
	(void) snprintf(path, sizeof (path), "/proc/%d/cmdline", (int)pid);
	for (int i = 0; i < TU_TIMEOUT_MS; i++) {
		free(cmd);
		cmd = tu_read_file(path, &len);
		if (len == 1)
			break;
		(void) usleep(1000);
	}
	ATF_REQUIRE_MSG(len == 1 && cmd[0] == '\0', "cmdline of %zu bytes",
	    len);
	free(cmd);
	{
		char arg[16];
		const char *args[] = { "-J", "-n", arg, NULL };

		(void) snprintf(arg, sizeof (arg), "%d", (int)pid);
		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	}
	(void) close(in[1]);
	ATF_REQUIRE_EQ(waitpid(pid, &status, 0), pid);
	tu_require_exit("pfiles -J -n", &r, 0);
	want = tu_asprintf("\"pid\":%d,", (int)pid);
	ATF_CHECK_MSG(strstr(r.tr_out, want) != NULL, "%s", r.tr_out);
	free(want);
	ATF_CHECK_MSG(strstr(r.tr_out, "\"args\":\"\"") != NULL, "args "
	    "not empty: %s", r.tr_out);
	tu_result_free(&r);
}

/* A pid that was a process's and is free now (it is not reused soon). */
static pid_t
gone_pid(void)
{
	pid_t pid = fork();
	int status;

	ATF_REQUIRE_MSG(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		_exit(0);
	ATF_REQUIRE_EQ(waitpid(pid, &status, 0), pid);
	return (pid);
}

/* Is pid 2 the kernel's kthreadd (an empty command line)? */
static int
have_kthreadd(void)
{
	size_t len;
	char *comm, *cmd;
	int ok;

	if (access("/proc/2/comm", R_OK) != 0)
		return (0);
	comm = tu_read_file("/proc/2/comm", NULL);
	cmd = tu_read_file("/proc/2/cmdline", &len);
	ok = strcmp(comm, "kthreadd\n") == 0 && len == 0;
	free(comm);
	free(cmd);
	return (ok);
}

ATF_TC(several_pids);
ATF_TC_HEAD(several_pids, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -J on fixtures, 0, abc, a "
	    "pid that has gone, a kernel thread and /proc/PID: one object "
	    "per pid, in order, of the right kind; stderr and exit status 1 "
	    "as in text mode");
	atf_tc_set_md_var(tc, "require.progs", PYTHON);
}
ATF_TC_BODY(several_pids, tc)
{
	const char *args[10];
	fixture_t a, b;
	char gone[16], *procb, *kinds;
	int kt = have_kthreadd(), n = 0;

	require_checker();
	fixture_start(&a, "tcp,pipe", NULL, NULL, "manifest.a");
	fixture_start(&b, "unix,file,abstract", NULL, NULL, "manifest.b");
	(void) snprintf(gone, sizeof (gone), "%d", (int)gone_pid());
	procb = tu_asprintf("/proc/%s", b.fx_pid);

	args[n++] = a.fx_pid;
	args[n++] = "0";
	args[n++] = "abc";
	args[n++] = gone;
	if (kt)
		args[n++] = "2";
	args[n++] = procb;
	args[n++] = a.fx_pid;
	args[n] = NULL;
	kinds = tu_asprintf("process:%s,error:0:not a process id,"
	    "error:abc:not a process id,error:%s:no such process,%s"
	    "process:%s,process:%s", a.fx_pid, gone, kt ? "system:2," : "",
	    b.fx_pid, a.fx_pid);
	if (!kt)
		(void) fprintf(stderr, "pid 2 is not kthreadd here: no kernel "
		    "thread in the list\n");

	{
		const char *more[] = { "--kinds", kinds, "--manifest",
		    "manifest.a", "--manifest", "manifest.b", NULL };

		run_both("several", NULL, args, 1);
		require_agree("several", NULL, more);
	}
	free(kinds);
	free(procb);
	fx_stop(&a);
	fx_stop(&b);
}

ATF_TC(hostile_strings);
ATF_TC_HEAD(hostile_strings, tc)
{
	atf_tc_set_md_var(tc, "descr", "strings from the target in pfiles "
	    "-J (socket paths, abstract names with an inner NUL, a file "
	    "path, comm, command line, the peer's comm) give back the "
	    "target's exact bytes once JSON-decoded and unescaped, through "
	    "every source");
	atf_tc_set_md_var(tc, "require.progs", PYTHON);
}
ATF_TC_BODY(hostile_strings, tc)
{
	const char *argv[] = { PYTHON, CHECKER, "target",
	    "a\"b\\c\x1b[1m\xff\n", "\xc3\xa9\xe2\x80\xae", NULL };
	const char *more[] = { "--view", "view", NULL };
	const char *args[2] = { NULL, NULL };
	tu_child_t target;
	char *view, *p, pid[16];
	int found, status;

	require_checker();
	tu_spawn(&target, argv, TU_STDERR_PIPE);
	view = tu_read_until(target.tc_out, "end", TU_TIMEOUT_MS, &found);
	if (!found)
		atf_tc_fail("the target gave no view: %s",
		    tu_read_until(target.tc_err, NULL, 2000, NULL));
	tu_write_file("view", view, strlen(view));
	(void) snprintf(pid, sizeof (pid), "%d", (int)target.tc_pid);
	/* Its first line: "pid pid HEX" of the decimal pid. */
	p = tu_asprintf("pid pid ");
	for (size_t i = 0; pid[i] != '\0'; i++) {
		char *q = tu_asprintf("%s%02x", p, (unsigned)pid[i]);

		free(p);
		p = q;
	}
	ATF_REQUIRE_MSG(strncmp(view, p, strlen(p)) == 0, "the view is not "
	    "of pid %s: %.40s", pid, view);
	free(p);
	free(view);
	args[0] = pid;
	for (int i = 0; via_all[i] != NULL; i++) {
		const char *opts[2] = { via_all[i], NULL };
		char *what = tu_asprintf("hostile%s", via_all[i]);

		run_both(what, opts, args, 0);
		require_agree(what, via_all[i], more);
		free(what);
	}
	status = tu_stop(&target, TU_TIMEOUT_MS);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the target's wait status 0x%x", (unsigned)status);
}

/*
 * The file `from' with the first `old' replaced by `new', into `to'.
 * Fails when `old' is not there.
 */
static void
mutate(const char *from, const char *to, const char *old, const char *new)
{
	size_t len;
	char *text = tu_read_file(from, &len), *at, *out;

	if ((at = strstr(text, old)) == NULL)
		atf_tc_fail("%s holds no %s", from, old);
	*at = '\0';
	out = tu_asprintf("%s%s%s", text, new, at + strlen(old));
	tu_write_file(to, out, strlen(out));
	free(out);
	free(text);
}

ATF_TC(checker_fails);
ATF_TC_HEAD(checker_fails, tc)
{
	atf_tc_set_md_var(tc, "descr", "the check of the check: "
	    "json_check.py passes pfiles' own output and refuses it with "
	    "one fact made wrong: an option, an option dropped, an inode, "
	    "an escaped byte, a raw control character, a mode not of the "
	    "schema, a key twice, an fd object split over lines, an "
	    "endpoint's comm wrong or missing, its fd wrong, an "
	    "endpoints_more added, a state wrong or dropped, a queue or a "
	    "backlog's limit wrong, a holder's comm wrong, a "
	    "shared_with_more added; and a manifest without its pairs");
	atf_tc_set_md_var(tc, "require.progs", PYTHON);
}
ATF_TC_BODY(checker_fails, tc)
{
	static const char *const wrong[][2] = {
		{ "\"SO_REUSEADDR\":true", "\"SO_REUSEADDR\":false" },
		{ "\"SO_DEBUG\":false,", "" },
		{ "\"SO_LINGER\":5", "\"SO_LINGER\":false" },
		{ "\"ino\":", "\"ino\":1" },
		{ "\\\\x01", "\\\\x02" },
		{ "\\\\x01", "\\u0001" },
		{ "\"mode\":\"0777\"", "\"mode\":\"777\"" },
		{ "\"uid\":0,", "\"uid\":0,\"uid\":0," },
		{ "\"rdev\":{", "\n\"rdev\":{" },
		/* The holders of the other end: comm, fd, how many more. */
		{ "\"endpoints\":[{\"comm\":\"sockfix\"",
		    "\"endpoints\":[{\"comm\":\"sockfiy\"" },
		{ "\"endpoints\":[{\"comm\":\"sockfix\",", "\"endpoints\":[{" },
		{ ",\"fd\":", ",\"fd\":1" },
		{ "\"endpoints\":[", "\"endpoints_more\":1,\"endpoints\":[" },
		/* State and queues; the holders of the very same socket. */
		{ "\"state\":\"ESTABLISHED\"", "\"state\":\"CLOSE_WAIT\"" },
		{ ",\"state\":\"ESTABLISHED\"", "" },
		{ "\"queued\":{\"read\":", "\"queued\":{\"read\":1" },
		{ "\"backlog\":{\"waiting\":0,\"limit\":",
		    "\"backlog\":{\"waiting\":0,\"limit\":1" },
		{ "\"shared_with\":[{\"comm\":\"sockfix\"",
		    "\"shared_with\":[{\"comm\":\"sockfiy\"" },
		{ "\"shared_with\":[",
		    "\"shared_with_more\":1,\"shared_with\":[" },
	};
	const char *args[2] = { NULL, NULL };
	const char *opts[] = { "--via=pidfd", NULL };
	const char *more[] = { "--manifest", "manifest", "--expected",
	    "ok.expected", NULL };
	fixture_t fx;

	require_checker();
	fixture_start(&fx, "tcp,abstract,shared", NULL, NULL, "manifest");
	args[0] = fx.fx_pid;
	write_expected(&fx, 0, "ok.expected");
	run_both("ok", opts, args, 0);
	fx_stop(&fx);
	require_agree("ok", "--via=pidfd", more);
	for (size_t i = 0; i < sizeof (wrong) / sizeof (wrong[0]); i++) {
		char *name = tu_asprintf("wrong%zu.json", i);

		mutate("ok.json", name, wrong[i][0], wrong[i][1]);
		ATF_CHECK_EQ_MSG(checker("ok", "--via=pidfd", name, more), 1,
		    "the checker passed %s, with %s made %s", name,
		    wrong[i][0], wrong[i][1]);
		free(name);
	}

	/* The manifest without its pairs: the endpoints are not its. */
	{
		const char *nopair[] = { "--manifest", "manifest.nopair",
		    NULL };

		mutate("manifest", "manifest.nopair", "\npair ", "\nxpair ");
		ATF_CHECK_EQ_MSG(checker("ok", "--via=pidfd", NULL, nopair),
		    1, "the checker passed endpoints that the manifest has "
		    "no pair for");
	}
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, facts_all);
	ATF_TP_ADD_TC(tp, soft_limit);
	ATF_TP_ADD_TC(tp, facts_hostile);
	ATF_TP_ADD_TC(tp, facts_states);
	ATF_TP_ADD_TC(tp, args_not_cut);
	ATF_TP_ADD_TC(tp, args_one_empty);
	ATF_TP_ADD_TC(tp, nflag);
	ATF_TP_ADD_TC(tp, several_pids);
	ATF_TP_ADD_TC(tp, hostile_strings);
	ATF_TP_ADD_TC(tp, checker_fails);
	return (atf_no_error());
}
