/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_diag: pfiles' socket source diag (NETLINK_SOCK_DIAG), where the
 * others cannot serve and across network namespaces.
 *
 * The expected texts come from sockfix's manifest (its own view of its
 * fds) through expect.c with EXP_DIAG: the facts the kernel's socket
 * tables give (type, SO_ACCEPTCONN, SO_SNDBUF, SO_RCVBUF, sockname and
 * peername), byte for byte, and on stderr exactly the "not shown:" line
 * of the facts that applied to the fixture's sockets.
 *
 *   - seccomp_auto: pfiles under a seccomp filter that refuses ptrace(2)
 *     and pidfd_getfd(2) with EPERM, as a container runtime's default
 *     profile does: --via=auto serves every pid through diag, says why
 *     on stderr, and exits 0; --via=pidfd and --via=agent are errors
 *     there (the check of the check: the filter refuses both).
 *   - refusal_is_no_exec: --via=agent under the filter refusing ptrace:
 *     the refusal is met once (twice, to be sure it holds) and said, and
 *     the trace never takes it for an exec's hand-over (it once asked
 *     for a new agent ten times).
 *   - pidfd_open_refused: pidfd_open(2) refused by the filter (EPERM):
 *     the process is still examined, held by its /proc directory:
 *     diag's text and the agent's, exactly; --via=pidfd says why not.
 *   - netns: a fixture in a network namespace of its own, examined from
 *     ours.  Its sockets are only in its namespace's tables, and ours
 *     holds decoys at the same addresses (a TCP listener on the same
 *     port, a UDP socket on the same port, the same abstract name) with
 *     other facts: pfiles dumping its own namespace finds none of the
 *     fixture's inodes, and one that matched by address would print the
 *     decoys' facts.
 *   - netns_not_entered: pfiles (uid 65534) may read the fds of a 65534
 *     process in a network namespace of its own but may not enter it:
 *     the endpoint lines are missing, and stderr says why, once.
 *   - unix_peer_gone: a unix stream socket whose peer was closed (the
 *     other end of a socketpair): getpeername still succeeds in the
 *     holder (an unnamed peer), but the peer's record is gone from the
 *     tables, so --via=diag cannot find its name: no peername line, and
 *     "peername" among what stderr says is not shown; --via=pidfd shows
 *     it, and diag shows the peername of a live socketpair's ends.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <atf-c.h>

#include "expect.h"
#include "fixture.h"
#include "testutil.h"

#define	SECCOMP_DENY	BUILD_DIR "/atf/seccomp_deny"
#define	EPERM_TEXT	"Operation not permitted"

static char *
diag_text(const fixture_t *fx)
{
	char err[256], *text;

	text = expect_pfiles(fx->fx_manifest, EXP_DIAG, err, sizeof (err));
	if (text == NULL)
		atf_tc_fail("cannot compute the expected text: %s", err);
	return (text);
}

static char *
full_text(const fixture_t *fx)
{
	char err[256], *text;

	text = expect_pfiles(fx->fx_manifest, 0, err, sizeof (err));
	if (text == NULL)
		atf_tc_fail("cannot compute the expected text: %s", err);
	return (text);
}

/* r is diag's text of fx, and its stderr the "not shown" line, exactly. */
static void
require_diag_result(const char *what, const fixture_t *fx,
    const tu_result_t *r)
{
	char *want = diag_text(fx), *gaps, *name;

	tu_require_same_text(what, want, strlen(want), r->tr_out,
	    r->tr_outlen);
	free(want);
	gaps = expect_diag_stderr(fx->fx_manifest, fx->fx_pid);
	name = tu_asprintf("%s.stderr", what);
	tu_require_same_text(name, gaps, strlen(gaps), r->tr_err,
	    r->tr_errlen);
	free(name);
	free(gaps);
}

/* The fixture is alive, not stopped, and exits 0 when told to. */
static void
fixture_end(fixture_t *fx)
{
	char state = tu_proc_state(fx->fx_child.tc_pid);
	int status;

	ATF_CHECK_MSG(state != 0 && state != 'T' && state != 't' &&
	    state != 'Z', "the fixture's state after pfiles: '%c'",
	    state != 0 ? state : '-');
	status = tu_stop(&fx->fx_child, TU_TIMEOUT_MS);
	mf_free(fx->fx_manifest);
	fx->fx_manifest = NULL;
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "sockfix did not exit cleanly: wait status 0x%x",
	    (unsigned)status);
}

/*
 * A "socket facts from diag" line of pid arg: the reasons of pidfd and
 * the agent, each the refusal of its system call by the filter (EPERM).
 */
static void
check_via_line(const char *line, const char *arg)
{
	char *head = tu_asprintf("pfiles: %s: socket facts from diag "
	    "(pidfd: ", arg);
	const char *pidfd, *agent;
	size_t len = strlen(line);

	ATF_REQUIRE_MSG(strncmp(line, head, strlen(head)) == 0 &&
	    len > 0 && line[len - 1] == ')', "not the line of a fallback "
	    "on diag for %s: \"%s\"", arg, line);
	pidfd = line + strlen(head);
	agent = strstr(pidfd, "; agent: ");
	ATF_REQUIRE_MSG(agent != NULL, "no agent reason: \"%s\"", line);
	ATF_CHECK_MSG(strstr(pidfd, "pidfd_getfd") != NULL &&
	    strstr(pidfd, EPERM_TEXT) != NULL && strstr(pidfd, EPERM_TEXT) <
	    agent, "the pidfd reason is not pidfd_getfd's EPERM: \"%s\"",
	    line);
	ATF_CHECK_MSG(strstr(agent, "ptrace") != NULL &&
	    strstr(agent, EPERM_TEXT) != NULL, "the agent reason is not "
	    "ptrace's EPERM: \"%s\"", line);
	free(head);
}

/*
 * The environment of pfiles under that filter: LeakSanitizer (SANITIZE=1
 * builds) stops the process's threads with ptrace at exit, which the
 * filter refuses; the leak check is off there, the rest of ASan on.
 */
static const char *const deny_env[] = { "ASAN_OPTIONS=detect_leaks=0",
    NULL };

/* pfiles opts... under a filter refusing ptrace and pidfd_getfd. */
static void
run_denied(const char *nr1, const char *nr2, const char *const opts[],
    tu_result_t *r)
{
	const char *const wrap[] = { SECCOMP_DENY, nr1, "1", SECCOMP_DENY,
	    nr2, "1", NULL };

	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap, .tp_opts = opts,
	    .tp_env = deny_env }, r);
}

ATF_TC(seccomp_auto);
ATF_TC_HEAD(seccomp_auto, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=auto under a seccomp "
	    "filter refusing ptrace and pidfd_getfd with EPERM serves every "
	    "pid through diag: names, ports, SO_ACCEPTCONN and buffer sizes "
	    "exactly, why and what is not shown on stderr, exit 0");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(seccomp_auto, tc)
{
	fixture_t a, b;
	char nr_ptrace[16], nr_getfd[16];
	char *want, *ta, *tb, *ta_full, *gaps, *lines[8];
	char *save = NULL;
	tu_result_t r;
	int n = 0;

	(void) snprintf(nr_ptrace, sizeof (nr_ptrace), "%d", (int)SYS_ptrace);
	(void) snprintf(nr_getfd, sizeof (nr_getfd), "%d",
	    (int)SYS_pidfd_getfd);

	/* Every kind of socket; and a second pid with fewer. */
	fx_start_set(&a, "all", NULL, NULL);
	fx_start_set(&b, "tcp,unix,socketpair,pipe", NULL, NULL);

	/* The check of the check: the filter refuses both sources. */
	{
		const char *const popts[] = { "--via=pidfd", a.fx_pid, NULL };
		const char *const aopts[] = { "--via=agent", a.fx_pid, NULL };
		char *msg;

		run_denied(nr_ptrace, nr_getfd, popts, &r);
		tu_require_exit("pfiles --via=pidfd under the filter", &r, 1);
		msg = tu_asprintf("pfiles: cannot examine %s: pidfd: ",
		    a.fx_pid);
		ATF_CHECK_MSG(r.tr_outlen == 0 && strncmp(r.tr_err, msg,
		    strlen(msg)) == 0 && strstr(r.tr_err, EPERM_TEXT) != NULL,
		    "--via=pidfd under the filter: stderr \"%s\"", r.tr_err);
		free(msg);
		tu_result_free(&r);

		run_denied(nr_ptrace, nr_getfd, aopts, &r);
		tu_require_exit("pfiles --via=agent under the filter", &r, 1);
		msg = tu_asprintf("pfiles: cannot examine %s: agent: ",
		    a.fx_pid);
		ATF_CHECK_MSG(r.tr_outlen == 0 && strncmp(r.tr_err, msg,
		    strlen(msg)) == 0 && strstr(r.tr_err, EPERM_TEXT) != NULL,
		    "--via=agent under the filter: stderr \"%s\"", r.tr_err);
		free(msg);
		tu_result_free(&r);
	}

	/* auto, both pids: diag's text for each, in the order given. */
	{
		const char *const opts[] = { "--via=auto", a.fx_pid, b.fx_pid,
		    NULL };

		run_denied(nr_ptrace, nr_getfd, opts, &r);
	}
	if (r.tr_errlen > 0)
		(void) fprintf(stderr, "pfiles stderr:\n%s", r.tr_err);
	tu_require_exit("pfiles --via=auto under the filter", &r, 0);
	ta = diag_text(&a);
	tb = diag_text(&b);
	want = tu_asprintf("%s%s", ta, tb);
	ta_full = full_text(&a);
	ATF_REQUIRE_MSG(strncmp(want, ta_full, strlen(ta_full)) != 0,
	    "the diag text is the full text: the comparison would prove "
	    "nothing");
	free(ta_full);
	tu_require_same_text("auto", want, strlen(want), r.tr_out,
	    r.tr_outlen);
	free(want);
	free(ta);
	free(tb);

	/*
	 * stderr, per pid: why diag, then what is not shown; nothing
	 * else.  The lines are compared one by one, the "not shown:"
	 * ones exactly.
	 */
	tu_write_file("auto.stderr", r.tr_err, r.tr_errlen);
	for (char *l = strtok_r(r.tr_err, "\n", &save); l != NULL;
	    l = strtok_r(NULL, "\n", &save)) {
		ATF_REQUIRE_MSG(n < 8, "too many lines on stderr");
		lines[n++] = l;
	}
	ATF_REQUIRE_EQ_MSG(n, 4, "%d lines on stderr, expected 4 (see "
	    "auto.stderr)", n);
	for (int i = 0; i < 2; i++) {
		fixture_t *fx = i == 0 ? &a : &b;
		char *line = tu_asprintf("%s\n", lines[2 * i + 1]);
		char *what = tu_asprintf("auto.stderr.%d", i);

		check_via_line(lines[2 * i], fx->fx_pid);
		gaps = expect_diag_stderr(fx->fx_manifest, fx->fx_pid);
		ATF_REQUIRE_MSG(gaps[0] != '\0', "no fact is missing");
		tu_require_same_text(what, gaps, strlen(gaps), line,
		    strlen(line));
		free(gaps);
		free(line);
		free(what);
	}
	tu_result_free(&r);

	fixture_end(&a);
	fixture_end(&b);
}

/* The manifest's address of the first fd of kind, which must be known. */
static const mf_addr_t *
sockname_of(const fixture_t *fx, const char *kind)
{
	const mf_fd_t *f = mf_find_kind(fx->fx_manifest, kind);

	ATF_REQUIRE_MSG(f != NULL && f->f_sockname.a_known, "no sockname "
	    "of %s in the manifest", kind);
	return (&f->f_sockname);
}

static void
set_int(int fd, int name, int value)
{
	ATF_REQUIRE_MSG(setsockopt(fd, SOL_SOCKET, name, &value,
	    sizeof (value)) == 0, "setsockopt: %s", strerror(errno));
}

/*
 * Open in our namespace a decoy at the address a (from the manifest)
 * with type and other buffer sizes; a TCP one listens: a socket of the
 * same address in the namespace pfiles must not look in.  When the
 * address is taken here already (the fixture's port, chosen in its own
 * namespace, may be one some other socket of ours holds), that socket
 * is the decoy, and -1 is returned.  Else the fd (closed at the test's
 * exit).
 */
static int
decoy(const mf_addr_t *a, int type, const char *what)
{
	sa_family_t af;
	int fd;

	ATF_REQUIRE(a->a_len >= sizeof (af));
	memcpy(&af, a->a_bytes, sizeof (af));
	ATF_REQUIRE_MSG((fd = socket(af, type, 0)) >= 0, "socket: %s",
	    strerror(errno));
	set_int(fd, SO_SNDBUF, 4608);
	set_int(fd, SO_RCVBUF, 2304);
	if (bind(fd, (const struct sockaddr *)a->a_bytes,
	    (socklen_t)a->a_len) != 0) {
		int e = errno;

		(void) close(fd);
		if (e == EADDRINUSE)
			return (-1);
		atf_tc_fail("%s: bind: %s", what, strerror(e));
	}
	if (type == SOCK_STREAM)
		ATF_REQUIRE(listen(fd, 4) == 0);
	return (fd);
}

static char *
netns_of(pid_t pid)
{
	char path[64], link[128];
	ssize_t n;

	(void) snprintf(path, sizeof (path), "/proc/%d/ns/net", (int)pid);
	ATF_REQUIRE_MSG((n = readlink(path, link, sizeof (link) - 1)) > 0,
	    "readlink %s: %s", path, strerror(errno));
	link[n] = '\0';
	return (tu_asprintf("%s", link));
}

ATF_TC(refusal_is_no_exec);
ATF_TC_HEAD(refusal_is_no_exec, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=agent with ptrace "
	    "refused (EPERM) by a seccomp filter, LIBPROC_DEBUG on: exit 1, "
	    "'cannot examine PID: agent: ptrace: Operation not permitted', "
	    "ptrace tried once or twice (not ten times), and no 'a new "
	    "agent' (an exec) in the trace");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(refusal_is_no_exec, tc)
{
	static const char *const env[] = { "ASAN_OPTIONS=detect_leaks=0",
	    "LIBPROC_DEBUG=1", NULL };
	static const char tried[] = "error: ptrace: " EPERM_TEXT;
	char nr_ptrace[16], *want;
	const char *at;
	tu_result_t r;
	fixture_t a;
	int n = 0;

	(void) snprintf(nr_ptrace, sizeof (nr_ptrace), "%d", (int)SYS_ptrace);
	fx_start_set(&a, "tcp", NULL, NULL);
	{
		const char *const wrap[] = { SECCOMP_DENY, nr_ptrace, "1",
		    NULL };
		const char *const args[] = { "--via=agent", a.fx_pid, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
		    .tp_opts = args, .tp_env = env }, &r);
	}
	tu_require_exit("pfiles --via=agent, ptrace refused", &r, 1);
	want = tu_asprintf("\npfiles: cannot examine %s: agent: ptrace: %s\n",
	    a.fx_pid, EPERM_TEXT);
	ATF_CHECK_MSG(strstr(r.tr_err, want) != NULL, "no '%s' on stderr",
	    want + 1);
	for (at = r.tr_err; (at = strstr(at, tried)) != NULL; at++)
		n++;
	/* Once, and once more to be sure it holds (not an exec's). */
	ATF_CHECK_MSG(n >= 1 && n <= 2, "ptrace's refusal met %d times, not "
	    "once or twice", n);
	ATF_CHECK_MSG(strstr(r.tr_err, "a new agent") == NULL, "the trace "
	    "takes the refusal for an exec: %s", r.tr_err);
	free(want);
	tu_result_free(&r);
	fx_stop(&a);
}

ATF_TC(pidfd_open_refused);
ATF_TC_HEAD(pidfd_open_refused, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles under a seccomp filter "
	    "refusing pidfd_open with EPERM (as some container runtimes do): "
	    "--via=diag gives diag's text exactly, --via=auto the full text "
	    "through the agent, both exit 0; --via=pidfd is 'cannot examine "
	    "PID: pidfd: pidfd_open: Operation not permitted', exit 1");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(pidfd_open_refused, tc)
{
	char nr[16], *want;
	tu_result_t r;
	fixture_t fx;

	(void) snprintf(nr, sizeof (nr), "%d", (int)SYS_pidfd_open);
	fx_start_set(&fx, "tcp,unix,socketpair,pipe", NULL, NULL);
	{
		const char *const wrap[] = { SECCOMP_DENY, nr, "1", NULL };
		const char *const args[] = { "--via=diag", fx.fx_pid, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
		    .tp_opts = args, .tp_env = deny_env }, &r);
	}
	tu_require_exit("pfiles --via=diag, pidfd_open refused", &r, 0);
	require_diag_result("diag", &fx, &r);
	tu_result_free(&r);
	{
		const char *const wrap[] = { SECCOMP_DENY, nr, "1", NULL };
		const char *const args[] = { "--via=auto", fx.fx_pid, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
		    .tp_opts = args, .tp_env = deny_env }, &r);
	}
	tu_require_exit("pfiles --via=auto, pidfd_open refused", &r, 0);
	want = full_text(&fx);
	tu_require_same_text("auto", want, strlen(want), r.tr_out,
	    r.tr_outlen);
	ATF_CHECK_MSG(r.tr_errlen == 0, "auto said: %s", r.tr_err);
	free(want);
	tu_result_free(&r);
	{
		const char *const wrap[] = { SECCOMP_DENY, nr, "1", NULL };
		const char *const args[] = { "--via=pidfd", fx.fx_pid, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
		    .tp_opts = args, .tp_env = deny_env }, &r);
	}
	tu_require_exit("pfiles --via=pidfd, pidfd_open refused", &r, 1);
	want = tu_asprintf("pfiles: cannot examine %s: pidfd: pidfd_open: "
	    "%s\n", fx.fx_pid, EPERM_TEXT);
	tu_require_same_str("pidfd.stderr", want, r.tr_err);
	free(want);
	tu_result_free(&r);
	fixture_end(&fx);
}

/* Skip the case unless a network namespace with loopback up can be made. */
static void
require_netns(void)
{
	const char *const probe[] = { "unshare", "-n", "ip", "link", "set",
	    "lo", "up", NULL };
	tu_result_t r;

	tu_run(probe, NULL, TU_TIMEOUT_MS, &r);
	if (!WIFEXITED(r.tr_status) || WEXITSTATUS(r.tr_status) != 0)
		atf_tc_skip("cannot make a network namespace here: %s",
		    r.tr_err);
	tu_result_free(&r);
}

ATF_TC(netns);
ATF_TC_HEAD(netns, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=diag on a process in "
	    "a network namespace of its own shows its namespace's facts, "
	    "exactly, not those of decoys at the same addresses in ours");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "unshare ip");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(netns, tc)
{
	/* Loopback is down in a new namespace: bring it up, then exec. */
	const char *const argv[] = { "unshare", "-n", "sh", "-c",
	    "ip link set lo up && exec \"$@\"", "sh", TU_SOCKFIX, "-t",
	    FX_SECONDS, "-s", "all", NULL };
	fixture_t fx;
	tu_result_t r;
	char *ns_fx, *ns_us;

	require_netns();

	fx_start(&fx, argv);
	ns_fx = netns_of(fx.fx_child.tc_pid);
	ns_us = netns_of(getpid());
	ATF_REQUIRE_MSG(strcmp(ns_fx, ns_us) != 0, "the fixture is in our "
	    "network namespace (%s)", ns_us);
	free(ns_fx);
	free(ns_us);

	/* Decoys: same addresses, other types and buffer sizes. */
	(void) decoy(sockname_of(&fx, "tcp-listen"), SOCK_STREAM,
	    "tcp-listen");
	(void) decoy(sockname_of(&fx, "udp4"), SOCK_DGRAM, "udp4");
	(void) decoy(sockname_of(&fx, "unix-abstract"), SOCK_DGRAM,
	    "unix-abstract");

	{
		const char *const args[] = { "--via=diag", fx.fx_pid, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	}
	if (r.tr_errlen > 0)
		(void) fprintf(stderr, "pfiles stderr:\n%s", r.tr_err);
	tu_require_exit("pfiles --via=diag", &r, 0);
	require_diag_result("netns", &fx, &r);
	tu_result_free(&r);

	fixture_end(&fx);
}

ATF_TC(netns_not_entered);
ATF_TC_HEAD(netns_not_entered, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles as uid 65534 on a 65534 "
	    "process with a socketpair in a network namespace of its own, "
	    "which pfiles may not enter: stderr says once 'endpoint lines "
	    "incomplete: the process is in another network namespace, which "
	    "pfiles may not enter (setns: Operation not permitted)'; as root "
	    "the endpoint lines are there and nothing is said");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "unshare ip setpriv");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(netns_not_entered, tc)
{
	static const char incomplete[] = "endpoint lines incomplete: ";
	const char *const argv[] = { "unshare", "-n", "sh", "-c",
	    "ip link set lo up && TMPDIR=/tmp exec setpriv --reuid=65534 "
	    "--regid=65534 --clear-groups \"$@\"", "sh", TU_SOCKFIX, "-t",
	    FX_SECONDS, "-s", "socketpair", NULL };
	fixture_t fx;
	tu_result_t r;
	char *want;

	require_netns();
	fx_start(&fx, argv);

	/* The check of the check: root enters it, and finds the ends. */
	{
		const char *const args[] = { fx.fx_pid, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	}
	tu_require_exit("pfiles as root", &r, 0);
	ATF_CHECK_MSG(strstr(r.tr_out, "\tendpoint: ") != NULL &&
	    strstr(r.tr_err, incomplete) == NULL, "as root: no endpoint "
	    "line, or stderr says: %s", r.tr_err);
	tu_result_free(&r);

	{
		const char *const wrap[] = { "setpriv", "--reuid=65534",
		    "--regid=65534", "--clear-groups", NULL };
		const char *const args[] = { fx.fx_pid, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
		    .tp_opts = args }, &r);
	}
	tu_require_exit("pfiles as 65534", &r, 0);
	want = tu_asprintf("pfiles: %s: %sthe process is in another network "
	    "namespace, which pfiles may not enter (setns: %s)\n", fx.fx_pid,
	    incomplete, EPERM_TEXT);
	ATF_CHECK_MSG(strstr(r.tr_err, want) != NULL &&
	    strstr(strstr(r.tr_err, want) + strlen(want), incomplete) == NULL,
	    "as 65534: not once '%s' on stderr: %s", want, r.tr_err);
	ATF_CHECK_MSG(strstr(r.tr_out, "\tendpoint: ") == NULL, "as 65534: "
	    "an endpoint line, from tables it may not read");
	free(want);
	tu_result_free(&r);
	fixture_end(&fx);
}

/* What the child of unix_peer_gone says of its sockets. */
typedef struct gone_view {
	int	gv_fd[3];	/* the widowed end; a live pair's two ends */
	int	gv_peer_ok[3];	/* getpeername succeeded */
	int	gv_sock_ok[3];	/* getsockname succeeded */
} gone_view_t;

/*
 * The child: a socketpair whose other end it closes, and a live one;
 * says what getpeername and getsockname give on each, then waits for
 * the end of file of ctl.
 */
static void
gone_child(int report, int ctl)
{
	gone_view_t gv;
	int w[2], l[2];
	char c;

	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	memset(&gv, 0, sizeof (gv));
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, w) != 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, l) != 0)
		_exit(1);
	(void) close(w[1]);
	gv.gv_fd[0] = w[0];
	gv.gv_fd[1] = l[0];
	gv.gv_fd[2] = l[1];
	for (int i = 0; i < 3; i++) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof (ss);

		gv.gv_peer_ok[i] = getpeername(gv.gv_fd[i],
		    (struct sockaddr *)&ss, &len) == 0;
		len = sizeof (ss);
		gv.gv_sock_ok[i] = getsockname(gv.gv_fd[i],
		    (struct sockaddr *)&ss, &len) == 0;
	}
	if (write(report, &gv, sizeof (gv)) != (ssize_t)sizeof (gv))
		_exit(1);
	(void) close(report);
	while (read(ctl, &c, 1) > 0)
		continue;
	_exit(0);
}

/* fd's block in pfiles' output of one pid: its stat line and the rest. */
static char *
block_of(const char *out, int fd)
{
	char *stat = tu_asprintf("\n%4d: ", fd);
	const char *p = strstr(out, stat), *end;

	free(stat);
	if (p == NULL)
		return (NULL);
	p++;
	for (end = strchr(p, '\n'); end != NULL && end[1] != '\0';
	    end = strchr(end + 1, '\n')) {
		if (end[1] != '\t' && strncmp(end + 1, "      ", 6) != 0)
			break;
	}
	return (tu_asprintf("%.*s", (int)(end != NULL ? end + 1 - p :
	    (long)strlen(p)), p));
}

/* Lines of blk that start with prefix. */
static int
lines_starting(const char *blk, const char *prefix)
{
	int n = 0;

	for (const char *p = blk; p != NULL && *p != '\0'; ) {
		n += strncmp(p, prefix, strlen(prefix)) == 0;
		p = strchr(p, '\n');
		p = p != NULL ? p + 1 : NULL;
	}
	return (n);
}

ATF_TC(unix_peer_gone);
ATF_TC_HEAD(unix_peer_gone, tc)
{
	atf_tc_set_md_var(tc, "descr", "a unix stream socket whose peer was "
	    "closed (getpeername still succeeds, the peer's record is gone "
	    "from the tables): --via=diag prints no peername line for it and "
	    "says on stderr that peername is not shown; --via=pidfd prints "
	    "its peername, and diag the peername of a live socketpair");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(unix_peer_gone, tc)
{
	gone_view_t gv;
	int rep[2], ctl[2], status;
	char spid[16], *blk;
	tu_result_t rd, rp;
	pid_t pid;

	ATF_REQUIRE(pipe(rep) == 0 && pipe(ctl) == 0);
	if ((pid = fork()) == 0) {
		(void) close(rep[0]);
		(void) close(ctl[1]);
		gone_child(rep[1], ctl[0]);
	}
	ATF_REQUIRE(pid > 0);
	(void) close(rep[1]);
	(void) close(ctl[0]);
	ATF_REQUIRE_EQ_MSG(read(rep[0], &gv, sizeof (gv)), (ssize_t)sizeof (gv),
	    "the child did not say what it holds");
	(void) close(rep[0]);
	/* The kernel's view, in the holder: every name readable. */
	for (int i = 0; i < 3; i++)
		ATF_REQUIRE_MSG(gv.gv_peer_ok[i] && gv.gv_sock_ok[i], "fd %d: "
		    "getpeername %d, getsockname %d", gv.gv_fd[i],
		    gv.gv_peer_ok[i], gv.gv_sock_ok[i]);
	(void) snprintf(spid, sizeof (spid), "%d", (int)pid);

	{
		const char *const dargs[] = { "--via=diag", spid, NULL };
		const char *const pargs[] = { "--via=pidfd", spid, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = dargs }, &rd);
		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = pargs }, &rp);
	}
	tu_write_file("diag.out", rd.tr_out, rd.tr_outlen);
	tu_write_file("diag.err", rd.tr_err, rd.tr_errlen);
	tu_write_file("pidfd.out", rp.tr_out, rp.tr_outlen);
	tu_require_exit("pfiles --via=diag", &rd, 0);
	tu_require_exit("pfiles --via=pidfd", &rp, 0);

	/* pidfd: each of the three has its names. */
	for (int i = 0; i < 3; i++) {
		ATF_REQUIRE_MSG((blk = block_of(rp.tr_out, gv.gv_fd[i])) !=
		    NULL, "pidfd: no block of fd %d", gv.gv_fd[i]);
		ATF_CHECK_MSG(lines_starting(blk, "\tsockname: AF_UNIX") == 1 &&
		    lines_starting(blk, "\tpeername: AF_UNIX") == 1,
		    "pidfd: fd %d has not one sockname and one peername "
		    "line:\n%s", gv.gv_fd[i], blk);
		free(blk);
	}
	/* diag: the live pair's peers are found; the widowed one's not. */
	for (int i = 0; i < 3; i++) {
		ATF_REQUIRE_MSG((blk = block_of(rd.tr_out, gv.gv_fd[i])) !=
		    NULL, "diag: no block of fd %d", gv.gv_fd[i]);
		ATF_CHECK_MSG(lines_starting(blk, "\tsockname: AF_UNIX") == 1,
		    "diag: fd %d has not one sockname line:\n%s",
		    gv.gv_fd[i], blk);
		if (i == 0)
			ATF_CHECK_MSG(lines_starting(blk, "\tpeername") == 0,
			    "diag: fd %d, whose peer is gone, has a peername "
			    "line:\n%s", gv.gv_fd[i], blk);
		else
			ATF_CHECK_MSG(lines_starting(blk,
			    "\tpeername: AF_UNIX") == 1, "diag: fd %d, of a "
			    "live pair, has not one peername line:\n%s",
			    gv.gv_fd[i], blk);
		free(blk);
	}
	ATF_CHECK_MSG(tu_not_shown(rd.tr_err, spid, "peername", NULL), "diag: "
	    "stderr does not say peername is not shown:\n%s", rd.tr_err);
	ATF_CHECK_MSG(!tu_not_shown(rp.tr_err, spid, "peername", NULL), "pidfd: "
	    "stderr says peername is not shown:\n%s", rp.tr_err);
	tu_result_free(&rd);
	tu_result_free(&rp);

	(void) close(ctl[1]);
	ATF_REQUIRE_EQ(waitpid(pid, &status, 0), pid);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the child: wait status 0x%x", (unsigned)status);
}

#define	MANY_SOCKS	500

/*
 * many_names' child: a network namespace of its own, MANY_SOCKS unix
 * datagram sockets bound to "t_diag.PID.I"; their fds to report, then
 * waits for the end of file of ctl.  Exit 2: no namespace.
 */
static void
names_child(int report, int ctl)
{
	int fds[MANY_SOCKS];
	char c;

	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (unshare(CLONE_NEWNET) != 0)
		_exit(2);
	for (int i = 0; i < MANY_SOCKS; i++) {
		struct sockaddr_un sun;
		int n;

		memset(&sun, 0, sizeof (sun));
		sun.sun_family = AF_UNIX;
		n = snprintf(sun.sun_path + 1, sizeof (sun.sun_path) - 1,
		    "t_diag.%d.%d", (int)getpid(), i);
		if ((fds[i] = socket(AF_UNIX, SOCK_DGRAM, 0)) < 0 ||
		    bind(fds[i], (struct sockaddr *)&sun, (socklen_t)
		    (offsetof(struct sockaddr_un, sun_path) + 1 + n)) != 0)
			_exit(1);
	}
	if (write(report, fds, sizeof (fds)) != (ssize_t)sizeof (fds))
		_exit(1);
	(void) close(report);
	while (read(ctl, &c, 1) > 0)
		continue;
	_exit(0);
}

ATF_TC(many_names);
ATF_TC_HEAD(many_names, tc)
{
	atf_tc_set_md_var(tc, "descr", "a process in a network namespace of "
	    "its own with 500 unix sockets, each bound to an abstract name "
	    "of its own: pfiles --via=diag shows each fd's own name");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(many_names, tc)
{
	int fds[MANY_SOCKS], rep[2], ctl[2], status, bad = 0;
	char spid[16], *blk, *want;
	tu_result_t r;
	ssize_t got;
	pid_t pid;

	ATF_REQUIRE(pipe(rep) == 0 && pipe(ctl) == 0);
	if ((pid = fork()) == 0) {
		(void) close(rep[0]);
		(void) close(ctl[1]);
		names_child(rep[1], ctl[0]);
	}
	ATF_REQUIRE(pid > 0);
	(void) close(rep[1]);
	(void) close(ctl[0]);
	got = read(rep[0], fds, sizeof (fds));
	(void) close(rep[0]);
	if (got != (ssize_t)sizeof (fds)) {
		(void) close(ctl[1]);
		ATF_REQUIRE_EQ(waitpid(pid, &status, 0), pid);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
			atf_tc_skip("cannot make a network namespace here");
		atf_tc_fail("the child did not say its sockets: wait status "
		    "0x%x", (unsigned)status);
	}
	(void) snprintf(spid, sizeof (spid), "%d", (int)pid);
	{
		const char *const args[] = { "--via=diag", spid, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	}
	tu_write_file("diag.out", r.tr_out, r.tr_outlen);
	tu_require_exit("pfiles --via=diag", &r, 0);
	for (int i = 0; i < MANY_SOCKS && bad < 5; i++) {
		ATF_REQUIRE_MSG((blk = block_of(r.tr_out, fds[i])) != NULL,
		    "no block of fd %d", fds[i]);
		want = tu_asprintf("\tsockname: AF_UNIX @t_diag.%d.%d\n",
		    (int)pid, i);
		if (strstr(blk, want) == NULL ||
		    lines_starting(blk, "\tsockname: ") != 1) {
			ATF_CHECK_MSG(0, "fd %d: not its own name \"%.*s\":\n"
			    "%s", fds[i], (int)strlen(want) - 1, want, blk);
			bad++;
		}
		free(want);
		free(blk);
	}
	tu_result_free(&r);
	(void) close(ctl[1]);
	ATF_REQUIRE_EQ(waitpid(pid, &status, 0), pid);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the child: wait status 0x%x", (unsigned)status);
}

/*
 * A child in a network namespace of its own (nothing of it is reachable:
 * not even loopback is up) that listens on the wildcard address: its fd
 * and port, as its getsockname gives them, on a line; it waits until go
 * is written to.
 */
static pid_t
wildcard_child(int *fdp, unsigned *portp, int *gop)
{
	int rp[2], go[2];
	pid_t kid;
	char *line;

	ATF_REQUIRE(pipe(rp) == 0 && pipe(go) == 0);
	ATF_REQUIRE((kid = fork()) >= 0);
	if (kid == 0) {
		struct sockaddr_in sin;
		socklen_t len = sizeof (sin);
		char buf[64], c;
		int s;

		(void) close(rp[0]);
		(void) close(go[1]);
		(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
		memset(&sin, 0, sizeof (sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_ANY);
		if (unshare(CLONE_NEWNET) != 0 ||
		    (s = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
		    bind(s, (struct sockaddr *)&sin, sizeof (sin)) != 0 ||
		    listen(s, 1) != 0 ||
		    getsockname(s, (struct sockaddr *)&sin, &len) != 0)
			_exit(3);
		(void) snprintf(buf, sizeof (buf), "%d %u\n", s,
		    (unsigned)ntohs(sin.sin_port));
		if (write(rp[1], buf, strlen(buf)) < 0)
			_exit(4);
		(void) read(go[0], &c, 1);
		_exit(0);
	}
	(void) close(rp[1]);
	(void) close(go[0]);
	line = tu_read_line(rp[0], TU_TIMEOUT_MS);
	(void) close(rp[0]);
	*gop = go[1];
	if (line == NULL || sscanf(line, "%d %u", fdp, portp) != 2) {
		int st;

		(void) close(go[1]);
		(void) waitpid(kid, &st, 0);
		atf_tc_skip("no network namespace of its own here (wait "
		    "status 0x%x)", (unsigned)st);
	}
	free(line);
	return (kid);
}

ATF_TC(wildcard);
ATF_TC_HEAD(wildcard, tc)
{
	atf_tc_set_md_var(tc, "descr", "A listener on the wildcard address "
	    "(in a network namespace of its own): --via=diag names it as the "
	    "socket tables hold it, and --via=pidfd, which asks "
	    "getsockname rather than take a wildcard name from the tables, "
	    "as its getsockname does: 0.0.0.0 and its port");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(wildcard, tc)
{
	static const char *const vias[] = { "--via=diag", "--via=pidfd" };
	unsigned port;
	int fd, go, st;
	char pid[16];
	pid_t kid = wildcard_child(&fd, &port, &go);

	(void) snprintf(pid, sizeof (pid), "%d", (int)kid);
	for (size_t i = 0; i < 2; i++) {
		const char *const args[] = { vias[i], pid, NULL };
		char *b, *want;
		tu_result_t r;

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
		tu_require_exit(vias[i], &r, 0);
		ATF_REQUIRE_MSG((b = tu_fd_block(r.tr_out, fd)) != NULL,
		    "%s: fd %d not shown:\n%s", vias[i], fd, r.tr_out);
		want = tu_asprintf("\tsockname: AF_INET 0.0.0.0  port: %u\n",
		    port);
		ATF_CHECK_MSG(strstr(b, want) != NULL, "%s: not the name "
		    "0.0.0.0, port %u:\n%s", vias[i], port, b);
		free(want);
		free(b);
		tu_result_free(&r);
	}
	(void) close(go);
	ATF_CHECK(waitpid(kid, &st, 0) == kid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, wildcard);
	ATF_TP_ADD_TC(tp, seccomp_auto);
	ATF_TP_ADD_TC(tp, refusal_is_no_exec);
	ATF_TP_ADD_TC(tp, pidfd_open_refused);
	ATF_TP_ADD_TC(tp, netns);
	ATF_TP_ADD_TC(tp, netns_not_entered);
	ATF_TP_ADD_TC(tp, unix_peer_gone);
	ATF_TP_ADD_TC(tp, many_names);
	return (atf_no_error());
}
