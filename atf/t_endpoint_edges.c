/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_endpoint_edges: the edges of the endpoint lines and of what is said
 * on stderr about sockets pfiles cannot fully describe.
 *
 *  - UDP across the families: a client of one family whose datagrams
 *    reach a server of the other (a dual-stack AF_INET6 server, an
 *    AF_INET server of a v4-mapped peer) names it; one whose datagrams
 *    reach no server (an AF_INET6 server with IPV6_V6ONLY) names none.
 *    The expected lines come from endpoint_helper's own view: which
 *    server each client's datagram reached.
 *  - an unbound netlink socket, which no socket table holds, alone and
 *    among other pids: nothing is said of its other end (it has none),
 *    and diag names no dump of another kind as the reason it is missing.
 *  - a raw socket: diag names the dumps that could hold it, once.
 *  - the agent on a process of another pid and network namespace
 *    passes its sockets all the same (to pfiles' sockets made in that
 *    network namespace): the peer: line pidfd prints, nothing said.
 *  - a process killed while diag looks at it, whose last thread still
 *    waits in its exit (a close on a FUSE filesystem that no longer
 *    answers): gone, as the page says ("no such process"); one killed
 *    at each step of the agent's ptrace calls in turn: gone, never an
 *    agent "not usable".
 *  - pfiles in a pid namespace with the host's /proc, on a live pid of
 *    that namespace that /proc does not have: pid namespaces differ.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <atf-c.h>

#include "expect.h"
#include "testutil.h"

#define	EP_HELPER	BUILD_DIR "/atf/endpoint_helper"
#define	RACE_HELPER	BUILD_DIR "/atf/race_helper"
#define	FUSE_HELPER	BUILD_DIR "/atf/fuse_helper"
#define	RACE_SHIM	BUILD_DIR "/atf/race_shim.so"
#define	MAX_HOLDS	8

/* ------------------------------------------------------------------ */
/* The helper's view (endpoint_helper's lines). */

typedef struct hold {
	char	h_role[16];
	int	h_pid, h_fd, h_cred;
	char	h_conn[8];
	long	h_got;		/* got line of the server: bytes; -1 none */
} hold_t;

typedef struct view {
	tu_child_t	v_child;
	hold_t		v_holds[MAX_HOLDS];
	size_t		v_n;
	char		v_comm[MAX_HOLDS][17];	/* by hold: its process's */
} view_t;

static void
hex_comm(const char *hex, size_t len, char *out)
{
	for (size_t i = 0; i < len && i < 16; i++) {
		unsigned b;

		ATF_REQUIRE(sscanf(hex + 2 * i, "%2x", &b) == 1);
		out[i] = (char)b;
	}
	out[len < 16 ? len : 16] = '\0';
}

static void
view_start(view_t *v, const char *const argv[])
{
	char *text, *save = NULL, *line, comm[17] = "";
	int found;

	memset(v, 0, sizeof (*v));
	tu_spawn(&v->v_child, argv, TU_STDERR_PIPE);
	text = tu_read_until(v->v_child.tc_out, "end", TU_TIMEOUT_MS, &found);
	tu_write_file("view", text, strlen(text));
	if (!found)
		atf_tc_fail("endpoint_helper gave no view: %s",
		    tu_read_until(v->v_child.tc_err, NULL, 2000, NULL));
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		hold_t *h = &v->v_holds[v->v_n];
		char conn[8], hex[40], e;
		unsigned long long ino;
		long got;
		size_t len;
		int pid;
		unsigned uid;

		if (sscanf(line, "proc %*s %d %u %zu %39s", &pid, &uid, &len,
		    hex) == 4)
			hex_comm(hex, len, comm);
		else if (sscanf(line, "hold %15s %d %d %7s %c %llu %d",
		    h->h_role, &h->h_pid, &h->h_fd, h->h_conn, &e, &ino,
		    &h->h_cred) == 7) {
			ATF_REQUIRE(v->v_n < MAX_HOLDS - 1);
			h->h_got = -1;
			(void) memcpy(v->v_comm[v->v_n++], comm, sizeof (comm));
		} else if (sscanf(line, "got %7s %ld", conn, &got) == 2) {
			for (size_t i = 0; i < v->v_n; i++)
				if (strcmp(v->v_holds[i].h_conn, conn) == 0)
					v->v_holds[i].h_got = got;
		}
	}
	free(text);
}

static const hold_t *
hold_of(const view_t *v, const char *role, const char *conn, size_t *ip)
{
	for (size_t i = 0; i < v->v_n; i++)
		if (strcmp(v->v_holds[i].h_role, role) == 0 &&
		    strcmp(v->v_holds[i].h_conn, conn) == 0) {
			if (ip != NULL)
				*ip = i;
			return (&v->v_holds[i]);
		}
	atf_tc_fail("the view has no %s end of %s", role, conn);
	return (NULL);
}

/* The peer: and endpoint: lines of fd's block in a one-pid output. */
static char *
peer_lines(const char *out, int fd)
{
	char *blk = tu_fd_block(out, fd), *got = tu_asprintf("%s", "");

	ATF_REQUIRE_MSG(blk != NULL, "no block of fd %d", fd);
	for (char *p = blk; *p != '\0'; ) {
		char *nl = strchr(p, '\n'), *next;
		size_t n = nl != NULL ? (size_t)(nl + 1 - p) : strlen(p);

		if (strncmp(p, "\tpeer: ", 7) == 0 ||
		    strncmp(p, "\tendpoint: ", 11) == 0) {
			next = tu_asprintf("%s%.*s", got, (int)n, p);
			free(got);
			got = next;
		}
		p += n;
	}
	free(blk);
	return (got);
}

/* pfiles ARGS...: its result (not checked). */
static void
pfiles(tu_result_t *r, const char *const env[], const char *a1,
    const char *a2, const char *a3, const char *a4)
{
	const char *args[] = { a1, a2, a3, a4, NULL };

	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args, .tp_env = env }, r);
	if (r->tr_errlen > 0)
		(void) fprintf(stderr, "pfiles %s %s %s %s: stderr:\n%s", a1,
		    a2 != NULL ? a2 : "", a3 != NULL ? a3 : "",
		    a4 != NULL ? a4 : "", r->tr_err);
}

/* Is every line of text one that starts with one of the prefixes? */
static int
only_lines(const char *text, const char *p1, const char *p2)
{
	for (const char *l = text; *l != '\0'; ) {
		const char *nl = strchr(l, '\n');

		if (strncmp(l, p1, strlen(p1)) != 0 && (p2 == NULL ||
		    strncmp(l, p2, strlen(p2)) != 0))
			return (0);
		l = nl != NULL ? nl + 1 : l + strlen(l);
	}
	return (1);
}

/* ------------------------------------------------------------------ */
/* UDP across the families. */

static const char *const dual_conns[] = { "u46", "u64", "u46o" };

static void
check_dualstack(const char *via)
{
	const char *const argv[] = { EP_HELPER, "-t", "120", "dualstack",
	    NULL };
	char pid[16], *notshown;
	tu_result_t r;
	view_t v;

	view_start(&v, argv);
	/* The premise, from the servers' own view. */
	ATF_REQUIRE_MSG(hold_of(&v, "child", "u46", NULL)->h_got > 0 &&
	    hold_of(&v, "child", "u64", NULL)->h_got > 0 &&
	    hold_of(&v, "child", "u46o", NULL)->h_got == 0, "the datagrams "
	    "did not reach the servers they should (see view)");
	(void) snprintf(pid, sizeof (pid), "%d", (int)v.v_child.tc_pid);
	pfiles(&r, NULL, via, pid, NULL, NULL);
	tu_require_exit("pfiles", &r, 0);
	for (size_t c = 0; c < 3; c++) {
		const hold_t *a = hold_of(&v, "parent", dual_conns[c], NULL);
		size_t bi;
		const hold_t *b = hold_of(&v, "child", dual_conns[c], &bi);
		char *comm = exp_escape(v.v_comm[bi], strlen(v.v_comm[bi]),
		    SIZE_MAX, NULL);
		char *want = b->h_got > 0 ? tu_asprintf("\tendpoint: %s[%d] "
		    "fd %d\n", comm, b->h_pid, b->h_fd) : tu_asprintf("%s", "");
		char *got = peer_lines(r.tr_out, a->h_fd);
		char *what = tu_asprintf("%s.%s", via + 6, dual_conns[c]);

		tu_require_same_str(what, want, got);
		free(what);
		free(got);
		free(want);
		free(comm);
	}
	/* Nothing is missing: diag says only what its tables lack. */
	notshown = tu_asprintf("pfiles: %s: not shown: ", pid);
	ATF_CHECK_MSG(strcmp(via, "--via=diag") == 0 ?
	    only_lines(r.tr_err, notshown, NULL) : r.tr_errlen == 0,
	    "%s: stderr: %s", via, r.tr_err);
	free(notshown);
	tu_result_free(&r);
	ATF_CHECK_EQ(tu_stop(&v.v_child, TU_TIMEOUT_MS), 0);
}

ATF_TC(dualstack_udp);
ATF_TC_HEAD(dualstack_udp, tc)
{
	atf_tc_set_md_var(tc, "descr", "a UDP client whose datagrams reach a "
	    "server of the other family (dual-stack AF_INET6 on ::, AF_INET "
	    "for a v4-mapped peer) names it with pidfd, agent and diag; one "
	    "whose server is IPV6_V6ONLY names none; nothing on stderr");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(dualstack_udp, tc)
{
	check_dualstack("--via=pidfd");
	check_dualstack("--via=agent");
	check_dualstack("--via=diag");
}

ATF_TC(dualstack_udp_bpf);
ATF_TC_HEAD(dualstack_udp_bpf, tc)
{
	atf_tc_set_md_var(tc, "descr", "dualstack_udp through --via=bpf "
	    "(skipped where bpf cannot serve)");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(dualstack_udp_bpf, tc)
{
	tu_require_bpf();
	check_dualstack("--via=bpf");
}

/* ------------------------------------------------------------------ */
/* Sockets no table holds, or only a dump this kernel may lack holds. */

/*
 * A child of ours holding one socket (family, type, protocol), unbound;
 * with pair, a socketpair besides.  It says its pid; stopped by kill.
 */
static pid_t
holder(int family, int type, int protocol, int pair, char *pid)
{
	int p[2], sv[2];
	pid_t kid;
	char c = 0;

	ATF_REQUIRE(pipe(p) == 0);
	if ((kid = fork()) == 0) {
		(void) close(p[0]);
		if (socket(family, type, protocol) < 0 || (pair &&
		    socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0))
			c = 1;
		(void) write(p[1], &c, 1);
		(void) close(p[1]);
		(void) alarm(120);
		for (;;)
			(void) pause();
	}
	ATF_REQUIRE(kid > 0);
	(void) close(p[1]);
	ATF_REQUIRE(read(p[0], &c, 1) == 1);
	(void) close(p[0]);
	if (c != 0) {
		(void) kill(kid, SIGKILL);
		(void) waitpid(kid, NULL, 0);
		atf_tc_skip("socket(%d, %d, %d): not permitted here", family,
		    type, protocol);
	}
	(void) snprintf(pid, 16, "%d", (int)kid);
	return (kid);
}

static void
reap(pid_t kid)
{
	(void) kill(kid, SIGKILL);
	(void) waitpid(kid, NULL, 0);
}

/* The stderr lines of pid in a run's stderr (malloc'd). */
static char *
lines_of(const char *err, const char *pid)
{
	char *head = tu_asprintf("pfiles: %s: ", pid), *out;

	out = tu_asprintf("%s", "");
	for (const char *l = err; *l != '\0'; ) {
		const char *nl = strchr(l, '\n');
		size_t n = nl != NULL ? (size_t)(nl + 1 - l) : strlen(l);
		char *next;

		if (strncmp(l, head, strlen(head)) == 0) {
			next = tu_asprintf("%s%.*s", out, (int)n, l);
			free(out);
			out = next;
		}
		l += n;
	}
	free(head);
	return (out);
}

ATF_TC(netlink_unbound);
ATF_TC_HEAD(netlink_unbound, tc)
{
	atf_tc_set_md_var(tc, "descr", "an unbound NETLINK_AUDIT socket, "
	    "which no socket table holds: pfiles B and pfiles A B and B A B "
	    "say nothing of it with pidfd, agent and the default; diag says "
	    "the same of it in each run, and names no dump of another kind "
	    "(raw) as the reason");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(netlink_unbound, tc)
{
	static const char *const vias[] = { "--via=pidfd", "--via=agent",
	    "--via=auto", "--via=diag" };
	char a[16], b[16];
	pid_t ka = holder(AF_UNIX, SOCK_STREAM, 0, 1, a);
	pid_t kb = holder(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT, 0, b);

	for (size_t i = 0; i < 4; i++) {
		int diag = strcmp(vias[i], "--via=diag") == 0;
		char *alone = NULL;
		tu_result_t r;

		for (int run = 0; run < 3; run++) {
			char *mine;

			pfiles(&r, NULL, vias[i], run == 0 ? b : a, run == 0 ?
			    NULL : b, run == 2 ? a : NULL);
			if (run == 2)
				tu_result_free(&r), pfiles(&r, NULL, vias[i],
				    b, a, b);
			mine = lines_of(r.tr_err, b);
			ATF_CHECK_MSG(strstr(r.tr_err, "raw") == NULL &&
			    strstr(r.tr_err, "socket tables this run") ==
			    NULL && (diag || r.tr_errlen == 0), "%s, run %d: "
			    "stderr: %s", vias[i], run, r.tr_err);
			/* diag: B's lines, once each, the same every run. */
			if (run == 0)
				alone = mine;
			else if (run == 1)
				tu_require_same_str(vias[i] + 6, alone, mine);
			else {
				char *twice = tu_asprintf("%s%s", alone, alone);

				tu_require_same_str(vias[i] + 6, twice, mine);
				free(twice);
			}
			if (run > 0)
				free(mine);
			tu_result_free(&r);
		}
		free(alone);
	}
	reap(ka);
	reap(kb);
}

ATF_TC(raw_missing_once);
ATF_TC_HEAD(raw_missing_once, tc)
{
	atf_tc_set_md_var(tc, "descr", "--via=diag on a raw IPv4 socket, "
	    "over three pids: found, or said missing with the raw dump "
	    "named once and no other (not raw6), the same in every run");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(raw_missing_once, tc)
{
	char a[16], c[16], *alone, *many, *twice, *p;
	pid_t ka = holder(AF_UNIX, SOCK_STREAM, 0, 1, a);
	pid_t kc = holder(AF_INET, SOCK_RAW, IPPROTO_ICMP, 0, c);
	tu_result_t r;

	pfiles(&r, NULL, "--via=diag", c, NULL, NULL);
	alone = lines_of(r.tr_err, c);
	tu_result_free(&r);
	if ((p = strstr(alone, "details of")) != NULL) {
		ATF_CHECK_MSG((p = strstr(p, "no raw")) != NULL &&
		    strncmp(p, "no raw dump", 11) == 0 &&
		    strstr(p + 11, "raw") == strstr(p + 11, "raw_diag") &&
		    strstr(alone, "raw6") == NULL, "the raw dump not named "
		    "once, alone: %s", alone);
	}
	pfiles(&r, NULL, "--via=diag", c, a, c);
	many = lines_of(r.tr_err, c);
	twice = tu_asprintf("%s%s", alone, alone);
	tu_require_same_str("many", twice, many);
	tu_result_free(&r);
	free(twice);
	free(many);
	free(alone);
	reap(ka);
	reap(kc);
}

/* ------------------------------------------------------------------ */
/* The agent in another pid namespace. */

ATF_TC(agent_pidns_peer);
ATF_TC_HEAD(agent_pidns_peer, tc)
{
	atf_tc_set_md_var(tc, "descr", "the agent on a process of a pid and "
	    "network namespace of our own: its sockets are passed to pfiles "
	    "(its sockets for them made in that network namespace), so "
	    "SO_PEERCRED is asked here, where its pid is of our pid "
	    "namespace: the peer: line pidfd prints (the peer's pid, named "
	    "where the kernel proves it, SO_PEERPIDFD), nothing on stderr");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "unshare");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(agent_pidns_peer, tc)
{
	const char *const probe[] = { "unshare", "--pid", "--net", "--fork",
	    "true", NULL };
	const char *const argv[] = { "unshare", "--pid", "--net", "--fork",
	    "--kill-child", EP_HELPER, "-t", "60", "thread", NULL };
	char host[16], *want, *got;
	const hold_t *a;
	tu_result_t r;
	view_t v;
	pid_t kid;

	tu_run(probe, NULL, TU_TIMEOUT_MS, &r);
	if (!WIFEXITED(r.tr_status) || WEXITSTATUS(r.tr_status) != 0)
		atf_tc_skip("cannot make pid and network namespaces here: %s",
		    r.tr_err);
	tu_result_free(&r);
	view_start(&v, argv);
	a = hold_of(&v, "parent", "sp", NULL);
	kid = tu_only_child(v.v_child.tc_pid);
	(void) snprintf(host, sizeof (host), "%d", (int)kid);
	/* Its own view: the peer is a pid of its namespace, not ours. */
	ATF_REQUIRE_MSG(a->h_cred > 0 && a->h_cred != kid, "the helper's "
	    "peer pid %d (host pid %d)", a->h_cred, (int)kid);

	/* Asked here: the peer, its own host pid (a socketpair's). */
	/* Named only where the kernel proves the pid (SO_PEERPIDFD). */
	want = tu_asprintf("\tpeer: %s[%s]\n",
	    tu_peer_provable("--via=pidfd") ? "ep parent" : "?", host);
	for (int k = 0; k < 2; k++) {
		const char *via = k == 0 ? "--via=pidfd" : "--via=agent";

		pfiles(&r, NULL, via, host, NULL, NULL);
		tu_require_exit(via, &r, 0);
		got = peer_lines(r.tr_out, a->h_fd);
		ATF_CHECK_MSG(strncmp(got, want, strlen(want)) == 0, "%s: %s",
		    via, got);
		tu_require_same_str("stderr", "", r.tr_err);
		free(got);
		tu_result_free(&r);
	}
	free(want);
	ATF_CHECK_EQ(tu_stop(&v.v_child, TU_TIMEOUT_MS), 0);
}

/* ------------------------------------------------------------------ */
/* Gone at the wrong moment. */

/* A line of a helper's stdout that starts with key, or the case fails. */
static void
await(int fd, const char *key, const char *what)
{
	for (;;) {
		char *l = tu_read_line(fd, TU_TIMEOUT_MS);

		if (l == NULL)
			atf_tc_fail("%s ended before \"%s\"", what, key);
		if (strncmp(l, "skip ", 5) == 0)
			atf_tc_skip("%s: %s", what, l + 5);
		if (strncmp(l, key, strlen(key)) == 0) {
			free(l);
			return;
		}
		free(l);
	}
}

ATF_TC(diag_killed);
ATF_TC_HEAD(diag_killed, tc)
{
	atf_tc_set_md_var(tc, "descr", "a process SIGKILLed at the diag "
	    "source's first look at it (race_shim: ns_net), whose last "
	    "thread still waits in its exit (the close of a file on a FUSE "
	    "filesystem that no longer answers): its namespaces are gone and "
	    "its pidfd does not yet say so: 'no such process'");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(diag_killed, tc)
{
	char dir[] = "/tmp/t_edges.XXXXXX", *file, *env0, *env1, *want, *log;
	tu_child_t fuse, victim;
	tu_result_t r;
	char pid[16];

	ATF_REQUIRE(mkdtemp(dir) != NULL);
	file = tu_asprintf("%s/f", dir);
	{
		const char *const fargv[] = { FUSE_HELPER, "-w", dir, NULL };

		tu_spawn(&fuse, fargv, 0);
	}
	await(fuse.tc_out, "ready", "fuse_helper");
	{
		const char *const vargv[] = { RACE_HELPER, "fusehold", file,
		    NULL };

		tu_spawn(&victim, vargv, 0);
	}
	await(victim.tc_out, "ready", "race_helper fusehold");
	ATF_REQUIRE(write(fuse.tc_in, "x", 1) == 1);
	await(fuse.tc_out, "frozen", "fuse_helper");
	(void) snprintf(pid, sizeof (pid), "%d", (int)victim.tc_pid);
	env0 = tu_asprintf("RACE_PID=%s", pid);
	log = tu_asprintf("%s.log", dir);
	env1 = tu_asprintf("RACE_LOG=%s", log);
	{
		const char *const env[] = { "LD_PRELOAD=" RACE_SHIM,
		    "ASAN_OPTIONS=verify_asan_link_order=0",
		    "RACE_CALL=ns_net", "RACE_ACTION=kill", env0, env1,
		    NULL };

		pfiles(&r, env, "--via=diag", pid, NULL, NULL);
	}
	/*
	 * The server answers again, and exits: the victim's close ends,
	 * and it.  Before any check, so that a failure leaves no mount.
	 */
	(void) tu_stop(&fuse, TU_TIMEOUT_MS);
	(void) tu_stop(&victim, TU_TIMEOUT_MS);
	(void) umount2(dir, MNT_DETACH);
	(void) rmdir(dir);
	want = tu_asprintf("pfiles: cannot examine %s: no such process\n",
	    pid);
	tu_require_same_str("killed.err", want, r.tr_err);
	ATF_CHECK(WIFEXITED(r.tr_status) && WEXITSTATUS(r.tr_status) == 1);
	free(want);
	tu_result_free(&r);
	want = tu_read_file(log, NULL);
	ATF_CHECK_MSG(strstr(want, "kill ok") != NULL, "the shim: %s", want);
	free(want);
	(void) unlink(log);
	free(log);
	free(env0);
	free(env1);
	free(file);
}

#define	AGENT_STEPS	30	/* ptrace calls of a walk, and more */

ATF_TC(agent_killed);
ATF_TC_HEAD(agent_killed, tc)
{
	atf_tc_set_md_var(tc, "descr", "--via=agent on a process SIGKILLed "
	    "at its Nth ptrace call (race_shim), for N from 1 on: what is "
	    "said is one of the page's reasons for a process gone (no such "
	    "process, process exited during examination), or nothing when "
	    "the walk was done; never 'the agent is not usable'");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(agent_killed, tc)
{
	for (int n = 1; n <= AGENT_STEPS; n++) {
		char pid[16], nth[32], kill[32], *gone, *exited;
		pid_t kid = holder(AF_UNIX, SOCK_STREAM, 0, 1, pid);
		tu_result_t r;

		(void) snprintf(nth, sizeof (nth), "RACE_NTH=%d", n);
		(void) snprintf(kill, sizeof (kill), "RACE_PID=%s", pid);
		{
			const char *const env[] = { "LD_PRELOAD=" RACE_SHIM,
			    "ASAN_OPTIONS=verify_asan_link_order=0",
			    "RACE_CALL=ptrace", "RACE_ACTION=kill", nth,
			    kill, NULL };

			pfiles(&r, env, "--via=agent", pid, NULL, NULL);
		}
		reap(kid);
		gone = tu_asprintf("pfiles: cannot examine %s: no such "
		    "process\n", pid);
		exited = tu_asprintf("pfiles: cannot examine %s: process "
		    "exited during examination\n", pid);
		ATF_CHECK_MSG(r.tr_errlen == 0 || strcmp(r.tr_err, gone) ==
		    0 || strcmp(r.tr_err, exited) == 0, "killed at ptrace "
		    "call %d: %s", n, r.tr_err);
		free(gone);
		free(exited);
		tu_result_free(&r);
	}
}

ATF_TC(nsenter_host_proc);
ATF_TC_HEAD(nsenter_host_proc, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles entered into a pid namespace "
	    "of our own but not its mount namespace (the host's /proc), on a "
	    "live pid of that namespace that the host's /proc does not have: "
	    "'the pid is another process in /proc (pid namespaces differ)'");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "unshare nsenter");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(nsenter_host_proc, tc)
{
	char script[160], pid[16], host[16], path[32], *line, *want, *text;
	tu_child_t ns;
	int unseen;
	tu_result_t r;
	pid_t kid;

	/* A pid that the host's /proc has not: made in our namespace. */
	text = tu_read_file("/proc/sys/kernel/pid_max", NULL);
	for (unseen = atoi(text) - 1; unseen > 300; unseen--) {
		(void) snprintf(path, sizeof (path), "/proc/%d", unseen);
		if (access(path, F_OK) != 0)
			break;
	}
	free(text);
	(void) snprintf(script, sizeof (script), "echo %d > "
	    "/proc/sys/kernel/ns_last_pid; sleep 60 & echo $!; read x",
	    unseen - 1);
	{
		const char *const argv[] = { "unshare", "--pid", "--fork",
		    "--mount-proc", "--kill-child", "sh", "-c", script, NULL };

		tu_spawn(&ns, argv, TU_STDERR_NULL);
	}
	line = tu_read_line(ns.tc_out, TU_TIMEOUT_MS);
	if (line == NULL || atoi(line) != unseen)
		atf_tc_skip("no pid %d in a pid namespace of our own: %s",
		    unseen, line != NULL ? line : "(none)");
	(void) snprintf(pid, sizeof (pid), "%d", unseen);
	kid = tu_only_child(ns.tc_pid);
	(void) snprintf(host, sizeof (host), "%d", (int)kid);
	{
		const char *const wrap[] = { "nsenter", "-t", host, "-p",
		    NULL };
		const char *const args[] = { pid, NULL };
		/* SANITIZE=1: LeakSanitizer reads its own threads in /proc,
		 * which is not of pfiles' pid namespace here. */
		const char *const env[] = { "ASAN_OPTIONS=detect_leaks=0",
		    NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
		    .tp_opts = args, .tp_env = env }, &r);
	}
	want = tu_asprintf("pfiles: cannot examine %s: the pid is another "
	    "process in /proc (pid namespaces differ)\n", pid);
	tu_require_same_str("nsenter.err", want, r.tr_err);
	free(want);
	free(line);
	tu_result_free(&r);
	(void) tu_stop(&ns, TU_TIMEOUT_MS);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, dualstack_udp);
	ATF_TP_ADD_TC(tp, dualstack_udp_bpf);
	ATF_TP_ADD_TC(tp, netlink_unbound);
	ATF_TP_ADD_TC(tp, raw_missing_once);
	ATF_TP_ADD_TC(tp, agent_pidns_peer);
	ATF_TP_ADD_TC(tp, diag_killed);
	ATF_TP_ADD_TC(tp, agent_killed);
	ATF_TP_ADD_TC(tp, nsenter_host_proc);
	return (atf_no_error());
}
