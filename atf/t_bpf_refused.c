/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_bpf_refused: where the bpf source of socket facts (pfiles.1, "bpf")
 * may not serve, it says why and --via=auto serves through pidfd: an
 * unprivileged caller (uid 65534, no capabilities) on a root process or
 * on its own, CAP_BPF alone (bpf needs root, or CAP_BPF and
 * CAP_PERFMON), a process whose main thread has exited (the table shown
 * would be a live thread's); and the source's check at every load names
 * the fact it found wrong.  t_bpf holds the comparisons with pidfd.
 *
 * Every case needs the kernel's BTF and the privilege to load BPF; where
 * pfiles --via=bpf cannot serve a trivial process, the case is skipped
 * with pfiles' own reason.
 */
#include <linux/netlink.h>

#include "bpf_util.h"

#define	TRACE_AGENT	": socket facts: agent serves"
#define	MANY_FDS	"2100"
#define	NOBODY		"65534"
/* pfiles run as uid and gid 65534, with no capability of any kind. */
#define	SETPRIV_NOBODY	"setpriv", "--reuid=" NOBODY, "--regid=" NOBODY, \
			"--clear-groups", "--inh-caps=-all",		\
			"--bounding-set=-all"

ATF_TC(unpriv_root_target);
ATF_TC_HEAD(unpriv_root_target, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=bpf run as uid 65534 "
	    "with no capability, on a root process: \"permission denied\", "
	    "exit 1, nothing on stdout (root's pfiles --via=bpf serves the "
	    "same process)");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "setpriv");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(unpriv_root_target, tc)
{
	static const char *const nobody[] = { SETPRIV_NOBODY, NULL };
	static const char *const via_bpf[] = { "--via=bpf", NULL };
	static const char *const via_auto[] = { "--via=auto", NULL };
	fixture_t fx;
	const char *pids[1];
	tu_result_t r;
	char *want;

	tu_require_bpf();
	fx_start_set(&fx, "tcp,unix,pipe", NULL, NULL);
	pids[0] = fx.fx_pid;
	want = tu_asprintf("pfiles: cannot examine %s: permission denied\n",
	    fx.fx_pid);

	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = nobody, .tp_opts = via_bpf,
	    .tp_pids = pids, .tp_npids = 1 }, &r);
	tu_require_exit("setpriv pfiles --via=bpf", &r, 1);
	tu_require_same_str("nobody-bpf.stderr", want, r.tr_err);
	ATF_REQUIRE_EQ_MSG(r.tr_outlen, 0, "pfiles printed on stdout: %s",
	    r.tr_out);
	tu_result_free(&r);

	/* auto: no source may read it either. */
	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = nobody, .tp_opts = via_auto,
	    .tp_pids = pids, .tp_npids = 1 }, &r);
	tu_require_exit("setpriv pfiles --via=auto", &r, 1);
	tu_require_same_str("nobody-auto.stderr", want, r.tr_err);
	ATF_REQUIRE_EQ_MSG(r.tr_outlen, 0, "pfiles printed on stdout: %s",
	    r.tr_out);
	tu_result_free(&r);
	free(want);

	/* The refusal is the caller's: root's bpf serves the process. */
	free(compare_vias("root-bpf", pids, 1));
	fx_stop(&fx);
}

/*
 * The helper, run as uid 65534 with no capability, with MANY_FDS fds;
 * pfiles run as uid 65534 through nobody (a setpriv), privileged short of
 * what bpf needs.  --via=bpf: refused (exit 1), one line whose reason
 * names what bpf needs; --via=auto: bpf tried, pidfd serves, the output
 * of --via=pidfd; root's --via=bpf: the same output.
 */
static void
own_process_refused(const char *const nobody[])
{
	static const char *const env[] = { DEBUG_ENV, NULL };
	static const char *const via_bpf[] = { "--via=bpf", NULL };
	static const char *const via_auto[] = { "--via=auto", NULL };
	static const char *const via_pidfd[] = { "--via=pidfd", NULL };
	const char *const argv[] = { SETPRIV_NOBODY, HELPER,
	    FIXTURE_SECONDS, "many", MANY_FDS, NULL };
	char pid[16], *said_text, *want, *path, *status_text, *text, *note;
	const char *pids[1] = { pid }, *pids2[2];
	tu_result_t rp, ra, rb;
	struct rlimit rl;
	tu_child_t c;
	long count;
	int status;

	tu_require_bpf();
	ATF_REQUIRE(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	if (rl.rlim_max != RLIM_INFINITY &&
	    rl.rlim_max < (rlim_t)atoi(MANY_FDS) + 16)
		atf_tc_skip("the hard RLIMIT_NOFILE is %llu: no room for "
		    MANY_FDS " fds", (unsigned long long)rl.rlim_max);

	/* setpriv execs the helper: the child is the helper. */
	said_text = spawn_ready(&c, argv);
	count = said(said_text, "count");
	free(said_text);
	ATF_REQUIRE_MSG(count >= AUTO_BPF_FDS, "the helper has %ld fds, "
	    "fewer than %d", count, AUTO_BPF_FDS);
	(void) snprintf(pid, sizeof (pid), "%d", (int)c.tc_pid);
	path = tu_asprintf("/proc/%s/status", pid);
	status_text = tu_read_file(path, NULL);
	ATF_REQUIRE_MSG(strstr(status_text, "\nUid:\t" NOBODY "\t" NOBODY
	    "\t" NOBODY "\t" NOBODY "\n") != NULL, "the helper does not "
	    "run as " NOBODY ":\n%s", status_text);
	free(status_text);
	free(path);

	/* bpf itself: refused, with the privilege it lacks. */
	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = nobody, .tp_opts = via_bpf,
	    .tp_pids = pids, .tp_npids = 1 }, &rb);
	tu_require_exit("setpriv pfiles --via=bpf", &rb, 1);
	ATF_REQUIRE_EQ_MSG(rb.tr_outlen, 0, "pfiles --via=bpf printed on "
	    "stdout: %.200s", rb.tr_out);
	want = tu_asprintf("pfiles: cannot examine %s: bpf: ", pid);
	ATF_REQUIRE_MSG(strncmp(rb.tr_err, want, strlen(want)) == 0 &&
	    count_lines_with(rb.tr_err, "") == 1, "pfiles --via=bpf's "
	    "stderr is not one line \"%s...\": %s", want, rb.tr_err);
	ATF_REQUIRE_MSG(strstr(rb.tr_err, "CAP_BPF") != NULL &&
	    strstr(rb.tr_err, "CAP_PERFMON") != NULL &&
	    strstr(rb.tr_err, "root") != NULL, "the reason does not name "
	    "the privilege bpf needs: %.*s", (int)strcspn(rb.tr_err, "\n"),
	    rb.tr_err);
	/* auto says that reason, once, of the process it was found at */
	note = tu_asprintf("pfiles: %s: the fast path (bpf) is not "
	    "available: %s", pid, rb.tr_err + strlen(want));
	free(want);
	tu_result_free(&rb);

	/* Its owner's pfiles: pidfd serves; auto too, bpf refused first. */
	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = nobody,
	    .tp_opts = via_pidfd, .tp_pids = pids, .tp_npids = 1 }, &rp);
	tu_require_exit("setpriv pfiles --via=pidfd", &rp, 0);
	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = nobody, .tp_opts = via_auto,
	    .tp_pids = pids, .tp_npids = 1, .tp_env = env }, &ra);
	tu_require_exit("setpriv pfiles --via=auto", &ra, 0);
	require_same_output("nobody-auto", 0, &rp, &ra);
	ATF_CHECK_MSG(count_lines_with(ra.tr_err, ": socket facts: bpf: ") ==
	    1 && count_lines_with(ra.tr_err, TRACE_PIDFD) == 1 &&
	    count_lines_with(ra.tr_err, TRACE_BPF) == 0, "auto did not try "
	    "bpf, then take pidfd:\n%s", ra.tr_err);
	text = without_trace(ra.tr_err);
	tu_require_same_str("nobody-auto.stderr", note, text);
	free(text);
	ATF_REQUIRE_MSG(count_lines_with(rp.tr_out, ": S_IFSOCK ") >= 2000,
	    "%zu sockets shown", count_lines_with(rp.tr_out, ": S_IFSOCK "));
	tu_result_free(&ra);

	/* Two processes (the same one twice): said once a run. */
	pids2[0] = pids2[1] = pid;
	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = nobody, .tp_opts = via_auto,
	    .tp_pids = pids2, .tp_npids = 2 }, &ra);
	tu_require_exit("setpriv pfiles --via=auto PID PID", &ra, 0);
	tu_require_same_str("nobody-auto-twice.stderr", note, ra.tr_err);
	tu_result_free(&ra);
	free(note);

	/* Root's bpf on the same process prints what its owner's pidfd did. */
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = via_bpf, .tp_pids = pids,
	    .tp_npids = 1 }, &rb);
	tu_require_exit("pfiles --via=bpf", &rb, 0);
	require_same_output("root-bpf", 0, &rp, &rb);
	tu_result_free(&rb);
	tu_result_free(&rp);

	status = tu_stop(&c, TU_TIMEOUT_MS);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the helper ended with wait status 0x%x", (unsigned)status);
}

ATF_TC(unpriv_own_process);
ATF_TC_HEAD(unpriv_own_process, tc)
{
	atf_tc_set_md_var(tc, "descr", "uid 65534 with no capability, on "
	    "its own process of " MANY_FDS " fds: --via=bpf is refused "
	    "(exit 1) with a reason naming the privilege it lacks, and "
	    "--via=auto, which tries bpf first at that many fds, serves "
	    "through pidfd: exit 0, the output of --via=pidfd, and on "
	    "stderr one line, once a run, that the fast path is not "
	    "available, with --via=bpf's reason");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "setpriv");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(unpriv_own_process, tc)
{
	static const char *const nobody[] = { SETPRIV_NOBODY, NULL };

	own_process_refused(nobody);
}

ATF_TC(bpf_cap_only);
ATF_TC_HEAD(bpf_cap_only, tc)
{
	atf_tc_set_md_var(tc, "descr", "uid 65534 with CAP_BPF but not "
	    "CAP_PERFMON, on its own process of " MANY_FDS " fds: --via=bpf "
	    "is refused (exit 1) with a reason naming what bpf needs (root, "
	    "or CAP_BPF and CAP_PERFMON), and --via=auto serves through "
	    "pidfd: exit 0, the output of --via=pidfd, and one line that "
	    "the fast path is not available, with that reason");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "setpriv");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(bpf_cap_only, tc)
{
	static const char *const bpf_only[] = { "setpriv",
	    "--reuid=" NOBODY, "--regid=" NOBODY, "--clear-groups",
	    "--inh-caps=-all,+bpf", "--ambient-caps=+bpf",
	    "--bounding-set=-all,+bpf", NULL };
	static const char *const capeff[] = { "setpriv", "--reuid=" NOBODY,
	    "--regid=" NOBODY, "--clear-groups", "--inh-caps=-all,+bpf",
	    "--ambient-caps=+bpf", "--bounding-set=-all,+bpf", "grep",
	    "^CapEff:", "/proc/self/status", NULL };
	tu_result_t r;

	/* What pfiles will hold: CAP_BPF (39) alone. */
	tu_run(capeff, NULL, TU_TIMEOUT_MS, &r);
	if (!WIFEXITED(r.tr_status) || WEXITSTATUS(r.tr_status) != 0)
		atf_tc_skip("setpriv cannot give an ambient CAP_BPF here: %s",
		    r.tr_err);
	tu_require_same_str("capeff", "CapEff:\t0000008000000000\n",
	    r.tr_out);
	tu_result_free(&r);
	own_process_refused(bpf_only);
}

ATF_TC(main_thread_exited);
ATF_TC_HEAD(main_thread_exited, tc)
{
	atf_tc_set_md_var(tc, "descr", "a process of " MANY_FDS " fds whose "
	    "main thread has exited (pthread_exit) while another thread "
	    "lives: --via=bpf is refused (exit 1, \"the process's main "
	    "thread has exited\", nothing on stdout), and --via=auto, which "
	    "tries bpf first at that many fds, serves through pidfd (the "
	    "agent on a kernel without pidfds of threads, before 6.9): exit "
	    "0, that source's output, the live thread's fds, and one line "
	    "that the fast path is not available, and why");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(main_thread_exited, tc)
{
	static const char *const env[] = { DEBUG_ENV, NULL };
	static const char *const via_bpf[] = { "--via=bpf", NULL };
	static const char *const via_auto[] = { "--via=auto", NULL };
	static const char *const via_pidfd[] = { "--via=pidfd", NULL };
	static const char *const via_agent[] = { "--via=agent", NULL };
	/* pidfd reaches a thread's files through a pidfd of it (6.9) */
	int thread_pidfd = tu_have_thread_pidfd();
	const char *const *via_ref = thread_pidfd ? via_pidfd : via_agent;
	const char *trace_ref = thread_pidfd ? TRACE_PIDFD : TRACE_AGENT;
	const char *const argv[] = { HELPER, FIXTURE_SECONDS, "leaderless",
	    MANY_FDS, NULL };
	char pid[16], path[64], *said_text, *want, *text;
	const char *pids[1] = { pid };
	tu_result_t rp, ra, rb;
	struct rlimit rl;
	tu_child_t c;
	long count, tid;
	char state = 0;
	int status;

	tu_require_bpf();
	ATF_REQUIRE(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	if (rl.rlim_max != RLIM_INFINITY &&
	    rl.rlim_max < (rlim_t)atoi(MANY_FDS) + 16)
		atf_tc_skip("the hard RLIMIT_NOFILE is %llu: no room for "
		    MANY_FDS " fds", (unsigned long long)rl.rlim_max);

	said_text = spawn_ready(&c, argv);
	tid = said(said_text, "tid");
	count = said(said_text, "count");
	free(said_text);
	ATF_REQUIRE_MSG(tid != (long)c.tc_pid, "the live thread is the "
	    "leader (%ld)", tid);
	ATF_REQUIRE_MSG(count >= AUTO_BPF_FDS, "the helper has %ld fds, "
	    "fewer than %d", count, AUTO_BPF_FDS);
	/* The thread has joined the leader; its exit ends as a zombie. */
	state = tu_wait_state(c.tc_pid, 'Z', 10000);
	ATF_REQUIRE_EQ_MSG(state, 'Z', "the leader is in state %c, not Z",
	    state);
	(void) snprintf(path, sizeof (path), "/proc/%d/task/%ld",
	    (int)c.tc_pid, tid);
	ATF_REQUIRE_MSG(access(path, F_OK) == 0, "%s: %s", path,
	    strerror(errno));
	(void) snprintf(pid, sizeof (pid), "%d", (int)c.tc_pid);

	/* bpf: refused, saying why. */
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = via_bpf, .tp_pids = pids,
	    .tp_npids = 1 }, &rb);
	tu_require_exit("pfiles --via=bpf", &rb, 1);
	ATF_REQUIRE_EQ_MSG(rb.tr_outlen, 0, "pfiles --via=bpf printed on "
	    "stdout: %.200s", rb.tr_out);
	want = tu_asprintf("pfiles: cannot examine %s: bpf: the process's "
	    "main thread has exited\n", pid);
	tu_require_same_str("bpf.stderr", want, rb.tr_err);
	free(want);
	tu_result_free(&rb);

	/*
	 * auto: bpf tried and refused, pidfd serves (or, without pidfds of
	 * threads, the agent); that source's output.
	 */
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = via_ref, .tp_pids = pids,
	    .tp_npids = 1 }, &rp);
	tu_require_exit(via_ref[0], &rp, 0);
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = via_auto, .tp_pids = pids,
	    .tp_npids = 1, .tp_env = env }, &ra);
	tu_require_exit("pfiles --via=auto", &ra, 0);
	require_same_output("leaderless-auto", 0, &rp, &ra);
	ATF_CHECK_MSG(count_lines_with(ra.tr_err, ": socket facts: bpf: the "
	    "process's main thread has exited") == 1 &&
	    count_lines_with(ra.tr_err, trace_ref) == 1 &&
	    count_lines_with(ra.tr_err, TRACE_BPF) == 0, "auto did not try "
	    "bpf, then take %s:\n%s", via_ref[0], ra.tr_err);
	text = without_trace(ra.tr_err);
	want = tu_asprintf("pfiles: %s: the fast path (bpf) is not "
	    "available: the process's main thread has exited\n", pid);
	tu_require_same_str("leaderless-auto.stderr", want, text);
	free(want);
	free(text);
	/* The live thread's table: its sockets, every fd of it. */
	ATF_CHECK_MSG(count_lines_with(rp.tr_out, ": S_IFSOCK ") >= 2000,
	    "%zu sockets shown", count_lines_with(rp.tr_out, ": S_IFSOCK "));
	ATF_CHECK_EQ_MSG((long)count_lines_with(rp.tr_out, ": S_IF"), count,
	    "%zu fds shown, the thread has %ld",
	    count_lines_with(rp.tr_out, ": S_IF"), count);
	tu_result_free(&ra);
	tu_result_free(&rp);

	status = tu_stop(&c, TU_TIMEOUT_MS);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the helper ended with wait status 0x%x", (unsigned)status);
}

/*
 * The records the program gives of the fds of this process listed in
 * want[], each parsed again from a copy of its bytes that it owns.
 */
#define	CHECK_FDS	4

typedef struct own_recs {
	int		or_fd[CHECK_FDS];
	uint8_t		or_raw[CHECK_FDS][BPFREC_RECSIZE_MAX];
	bpfrec_t	or_rec[CHECK_FDS];
	int		or_have[CHECK_FDS];
} own_recs_t;

static int
own_rec(void *arg, const bpfrec_t *br, const void *raw, size_t rawlen)
{
	own_recs_t *o = arg;

	for (int i = 0; i < CHECK_FDS; i++) {
		if (o->or_fd[i] != br->br_fd || rawlen > BPFREC_RECSIZE_MAX)
			continue;
		memcpy(o->or_raw[i], raw, rawlen);
		o->or_have[i] = bpfrec_parse(o->or_raw[i], rawlen,
		    &o->or_rec[i]) == (ssize_t)rawlen;
	}
	return (0);
}

/* The check of one record, which must find fact (NULL: no difference). */
static void
check_says(const char *what, const bpfrec_t *br, int fd, unsigned int hz,
    const char *fact)
{
	char got[128] = "";
	int r = bpf_check_record(br, fd, hz, got, sizeof (got));

	if (fact == NULL)
		ATF_CHECK_MSG(r == 0, "%s: the check found a difference: %s",
		    what, got);
	else
		ATF_CHECK_MSG(r == 1 && strcmp(got, fact) == 0, "%s: the "
		    "check said %d, \"%s\", not \"%s\"", what, r, got, fact);
}

ATF_TC(check_names_the_fact);
ATF_TC_HEAD(check_names_the_fact, tc)
{
	atf_tc_set_md_var(tc, "descr", "The bpf source's check at every "
	    "load: the program's records of a unix socket with SO_PASSCRED "
	    "(and its peer), a TCP listener with TCP_NODELAY and a pipe of "
	    "the test's own are found the same as the kernel's calls; each "
	    "record with one fact changed (SO_PASSCRED, SO_PEERCRED's pid, "
	    "SO_SNDBUF, TCP_NODELAY, SO_LINGER, the name's port, the mode, "
	    "the size, the path) is found different, naming that fact");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(check_names_the_fact, tc)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof (sin);
	char why[256];
	uint8_t name[BPFREC_ADDR_MAX];
	own_recs_t *o = calloc(1, sizeof (*o));
	bpf_pfiles_t *bp;
	bpfrec_t br;
	unsigned int hz;
	int sv[2], pfd[2], l, one = 1;

	tu_require_bpf();
	ATF_REQUIRE(o != NULL);
	ATF_REQUIRE((bp = bpf_pfiles_open(why, sizeof (why))) != NULL);
	hz = bpf_pfiles_hz(bp);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	ATF_REQUIRE(setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one,
	    sizeof (one)) == 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ATF_REQUIRE((l = socket(AF_INET, SOCK_STREAM, 0)) >= 0);
	ATF_REQUIRE(setsockopt(l, IPPROTO_TCP, TCP_NODELAY, &one,
	    sizeof (one)) == 0);
	ATF_REQUIRE(bind(l, (struct sockaddr *)&sin, sizeof (sin)) == 0);
	ATF_REQUIRE(listen(l, 1) == 0);
	ATF_REQUIRE(getsockname(l, (struct sockaddr *)&sin, &len) == 0);
	ATF_REQUIRE(pipe(pfd) == 0);
	o->or_fd[0] = sv[0];
	o->or_fd[1] = sv[1];
	o->or_fd[2] = l;
	o->or_fd[3] = pfd[0];
	ATF_REQUIRE_EQ_MSG(bpf_pfiles_iter(bp, getpid(), own_rec, o, why,
	    sizeof (why)), 0, "%s", why);
	for (int i = 0; i < CHECK_FDS; i++)
		ATF_REQUIRE_MSG(o->or_have[i], "no record of fd %d",
		    o->or_fd[i]);

	/* As the kernel gives them: the same. */
	for (int i = 0; i < CHECK_FDS; i++)
		check_says("as given", &o->or_rec[i], o->or_fd[i], hz, NULL);

	/* One fact changed each. */
	br = o->or_rec[0];
	br.br_bools ^= PR_SO_PASSCRED;
	check_says("unix, SO_PASSCRED", &br, sv[0], hz, "SO_PASSCRED");
	br = o->or_rec[1];
	br.br_peer_pid++;
	check_says("unix peer, pid", &br, sv[1], hz, "SO_PEERCRED");
	br = o->or_rec[2];
	br.br_sndbuf += 2;
	check_says("tcp, SO_SNDBUF", &br, l, hz, "SO_SNDBUF");
	br = o->or_rec[2];
	br.br_bools ^= PR_TCP_NODELAY;
	check_says("tcp, TCP_NODELAY", &br, l, hz, "TCP_NODELAY");
	br = o->or_rec[2];
	br.br_linger_on = 1;
	check_says("tcp, SO_LINGER", &br, l, hz, "SO_LINGER");
	br = o->or_rec[2];
	ATF_REQUIRE(br.br_sockname.ba_len <= sizeof (name) &&
	    br.br_sockname.ba_len >= 4);
	memcpy(name, br.br_sockname.ba_data, br.br_sockname.ba_len);
	name[3] ^= 1;			/* sin_port's low byte */
	br.br_sockname.ba_data = name;
	check_says("tcp, sockname", &br, l, hz, "sockname");
	br = o->or_rec[3];
	br.br_mode ^= 0200;
	check_says("pipe, mode", &br, pfd[0], hz,
	    "st_mode, st_ino, st_nlink or st_size");
	br = o->or_rec[3];
	br.br_size++;
	check_says("pipe, size", &br, pfd[0], hz,
	    "st_mode, st_ino, st_nlink or st_size");
	br = o->or_rec[3];
	br.br_path_len--;
	check_says("pipe, path", &br, pfd[0], hz, "the path");

	bpf_pfiles_close(bp);
	(void) close(sv[0]);
	(void) close(sv[1]);
	(void) close(l);
	(void) close(pfd[0]);
	(void) close(pfd[1]);
	free(o);
}

/* What the check must find of br against want: NULL, or the fact. */
static void
want_says(const char *what, const bpfrec_t *br, unsigned int hz,
    const bpf_ckwant_t *want, const char *fact)
{
	const char *got = bpf_check_want(br, hz, want);

	if (fact == NULL)
		ATF_CHECK_MSG(got == NULL, "%s: the check found a difference: "
		    "%s", what, got);
	else
		ATF_CHECK_MSG(got != NULL && strcmp(got, fact) == 0, "%s: the "
		    "check said \"%s\", not \"%s\"", what, got != NULL ? got :
		    "(none)", fact);
}

ATF_TC(check_names_state_facts);
ATF_TC_HEAD(check_names_state_facts, tc)
{
	atf_tc_set_md_var(tc, "descr", "The bpf source's check at every "
	    "load, of a socket's state line and netlink groups: the "
	    "program's records of a TCP listener (no client, a backlog of "
	    "3), a unix socket with 100 bytes to read and a netlink socket "
	    "in groups 1 and 33 of the test's own show what they were made "
	    "to show; each with one fact changed (the queues, the state, a "
	    "group word) is found different, naming it; against the calls "
	    "the pidfd source makes, a changed state is found different "
	    "where the calls give a state, and not compared where they do "
	    "not");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(check_names_state_facts, tc)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	bpf_ckwant_t wl = { PR_SS_LISTEN, PR_SSQ_BACKLOG, 0, 3, { 0, 0 }, 0 };
	bpf_ckwant_t wu = { PR_SS_ESTABLISHED, PR_SSQ_QUEUED, 100, 0,
	    { 0, 0 }, 0 };
	bpf_ckwant_t wn = { -1, 0, 0, 0, { 1, 1 }, 2 };
	own_recs_t *o = calloc(1, sizeof (*o));
	char why[256], buf[100], got[128];
	sockfacts_t sf;
	bpf_pfiles_t *bp;
	unsigned int hz;
	bpfrec_t br;
	int sv[2], l, s, g = 33, r;

	tu_require_bpf();
	ATF_REQUIRE(o != NULL);
	ATF_REQUIRE((bp = bpf_pfiles_open(why, sizeof (why))) != NULL);
	hz = bpf_pfiles_hz(bp);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ATF_REQUIRE((l = socket(AF_INET, SOCK_STREAM, 0)) >= 0);
	ATF_REQUIRE(bind(l, (struct sockaddr *)&sin, sizeof (sin)) == 0);
	ATF_REQUIRE(listen(l, 3) == 0);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	memset(buf, 'x', sizeof (buf));
	ATF_REQUIRE(write(sv[0], buf, sizeof (buf)) == (ssize_t)sizeof (buf));
	ATF_REQUIRE((s = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE)) >= 0);
	ATF_REQUIRE(bind(s, (struct sockaddr *)&nl, sizeof (nl)) == 0);
	ATF_REQUIRE(setsockopt(s, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g,
	    sizeof (g)) == 0);
	o->or_fd[0] = l;
	o->or_fd[1] = sv[1];
	o->or_fd[2] = s;
	o->or_fd[3] = sv[0];
	ATF_REQUIRE_EQ_MSG(bpf_pfiles_iter(bp, getpid(), own_rec, o, why,
	    sizeof (why)), 0, "%s", why);
	for (int i = 0; i < CHECK_FDS; i++) {
		ATF_REQUIRE_MSG(o->or_have[i], "no record of fd %d",
		    o->or_fd[i]);
		check_says("as given", &o->or_rec[i], o->or_fd[i], hz, NULL);
	}

	/* As made: the same; one fact changed each: that fact. */
	want_says("listener", &o->or_rec[0], hz, &wl, NULL);
	want_says("unix", &o->or_rec[1], hz, &wu, NULL);
	want_says("netlink", &o->or_rec[2], hz, &wn, NULL);
	br = o->or_rec[0];
	br.br_rq++;
	want_says("listener, waiting", &br, hz, &wl, "the queues");
	br = o->or_rec[0];
	br.br_state = PR_SS_ESTABLISHED;
	want_says("listener, state", &br, hz, &wl, "the state");
	br = o->or_rec[1];
	br.br_rq--;
	want_says("unix, to read", &br, hz, &wu, "the queues");
	br = o->or_rec[2];
	ATF_REQUIRE(br.br_ngroups == 2 && br.br_groups != NULL);
	memset(o->or_raw[2] + (br.br_groups - o->or_raw[2]) + 4, 0, 4);
	want_says("netlink, group 33", &br, hz, &wn, "the netlink groups");

	/* Against the calls: compared where they give a state. */
	br = o->or_rec[0];
	br.br_state = PR_SS_ESTABLISHED;
	sockfacts_init(&sf);
	ATF_REQUIRE(sock_local_facts(l, br.br_ino, &sf) == 0);
	r = bpf_check_record(&br, l, hz, got, sizeof (got));
	if (sf.sf_have & SF_STATE)
		ATF_CHECK_MSG(r == 1 && strcmp(got, "the state line") == 0,
		    "listener, state, against the calls: %d \"%s\"", r, got);
	else
		ATF_CHECK_MSG(r == 0, "listener, state, against calls that "
		    "give none: %d \"%s\"", r, got);

	bpf_pfiles_close(bp);
	(void) close(l);
	(void) close(sv[0]);
	(void) close(sv[1]);
	(void) close(s);
	free(o);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, unpriv_root_target);
	ATF_TP_ADD_TC(tp, unpriv_own_process);
	ATF_TP_ADD_TC(tp, bpf_cap_only);
	ATF_TP_ADD_TC(tp, check_names_the_fact);
	ATF_TP_ADD_TC(tp, check_names_state_facts);
	ATF_TP_ADD_TC(tp, main_thread_exited);
	return (atf_no_error());
}
