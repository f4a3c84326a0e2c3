/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_agent_pass: pfiles --via=agent, where the target passes its sockets
 * to pfiles over SCM_RIGHTS (libproc-patch/libproc/src/agent/sock_pass.c;
 * for a target in another network namespace, to pfiles' sockets made
 * there), and the per-socket batch serves where passing cannot (no fd
 * left to the target, a seccomp filter, pfiles short of fds, an fd that
 * cannot be passed).  Either way pfiles must print what --via=pidfd
 * prints (itself checked against the fixture's own view in
 * t_pfiles_fixture), but for the batch's peers, which it cannot name and
 * says so, and leave the target with exactly its fds and
 * mappings, also when it is killed by SIGTERM in the middle of its walk.
 * The writes to the target's memory, counted under strace, tell how many
 * rounds the passing took, or that the per-socket batch made one batch
 * per socket (on a loaded machine a batch may be cut at its bound and
 * made again, with a write more: libproc's trace says how many were).  strangers_refused: a message on pfiles' slot
 * is taken only from the target, with the round's sequence number, whole.
 */
#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agentutil.h"
#include "src/agent/sock_pass.h"
#include "testutil.h"

#define	RACE_SHIM	BUILD_DIR "/atf/race_shim.so"

#define	PASS_STRACE	"pass.strace"
#define	SECCOMP_DENY	BUILD_DIR "/atf/seccomp_deny"

/* The target as pfiles must leave it: its fds, its number of mappings. */
typedef struct target_view {
	char	*tv_fds;	/* "0 1 2 ...", increasing */
	int	tv_nfds;
	int	tv_nsock;	/* fds that are sockets */
	int	tv_maps;	/* lines of /proc/PID/maps */
} target_view_t;

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return ((x > y) - (x < y));
}

static void
view_target(pid_t pid, target_view_t *tv)
{
	char path[64], link[64], *text, *p;
	struct dirent *de;
	size_t n = 0, cap = 256, len = 0;
	int *fds = malloc(cap * sizeof (int));
	DIR *d;

	ATF_REQUIRE(fds != NULL);
	memset(tv, 0, sizeof (*tv));
	(void) snprintf(path, sizeof (path), "/proc/%d/fd", (int)pid);
	ATF_REQUIRE_MSG((d = opendir(path)) != NULL, "opendir %s", path);
	while ((de = readdir(d)) != NULL) {
		char lpath[sizeof (path) + sizeof (de->d_name) + 1];
		ssize_t ll;

		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap *= 2;
			ATF_REQUIRE((fds = realloc(fds, cap * sizeof (int))) !=
			    NULL);
		}
		fds[n++] = atoi(de->d_name);
		(void) snprintf(lpath, sizeof (lpath), "%s/%s", path,
		    de->d_name);
		ll = readlink(lpath, link, sizeof (link) - 1);
		if (ll > 0 && strncmp(link, "socket:[", 8) == 0)
			tv->tv_nsock++;
	}
	(void) closedir(d);
	qsort(fds, n, sizeof (int), cmp_int);
	tv->tv_nfds = (int)n;
	ATF_REQUIRE((tv->tv_fds = malloc(n * 12 + 1)) != NULL);
	tv->tv_fds[0] = '\0';
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(tv->tv_fds + len, "%d ", fds[i]);
	free(fds);

	(void) snprintf(path, sizeof (path), "/proc/%d/maps", (int)pid);
	text = tu_read_file(path, NULL);
	for (p = text; *p != '\0'; p++)
		tv->tv_maps += *p == '\n';
	free(text);
}

/* The target is as it was: the same fds, as many mappings, not held. */
static void
require_view(pid_t pid, const target_view_t *before, const char *when)
{
	target_view_t now;

	au_require_free(pid);
	view_target(pid, &now);
	ATF_CHECK_MSG(strcmp(before->tv_fds, now.tv_fds) == 0,
	    "%s: the target's fds changed:\n  before: %.300s\n  after:  "
	    "%.300s", when, before->tv_fds, now.tv_fds);
	ATF_CHECK_MSG(before->tv_maps == now.tv_maps, "%s: the target had "
	    "%d mappings, now %d", when, before->tv_maps, now.tv_maps);
	free(now.tv_fds);
}

/* Writes to /proc/PID/mem in strace's log. */
static int
count_mem_writes(pid_t pid)
{
	char *log = tu_read_file(PASS_STRACE, NULL), *mem, *p;
	int n = 0;

	mem = tu_asprintf("/proc/%d/mem>", (int)pid);
	for (p = log; (p = strstr(p, "pwrite64(")) != NULL; p++) {
		const char *nl = strchr(p, '\n');
		const char *m = strstr(p, mem);

		if (m != NULL && (nl == NULL || m < nl))
			n++;
	}
	free(mem);
	free(log);
	return (n);
}

/*
 * The target is alive after a run of pfiles: one that ended by itself
 * meanwhile (a fixture's own clock) was truly called exited by pfiles,
 * and that is said as such, not as pfiles' fault.
 */
static void
require_alive(pid_t pid, const char *viaarg)
{
	char s = tu_proc_state(pid);

	ATF_REQUIRE_MSG(s != 0 && s != 'Z' && s != 'X', "the target %d "
	    "ended by itself during pfiles %s (%s)", (int)pid, viaarg,
	    s == 0 ? "reaped" : "a zombie");
}

/* The trace's word for a batch cut at its bound (agent/Psyscall.c). */
#define	TRACE_CUT	"the batch was cut at its bound"

/* Lines of text that hold needle. */
static int
count_lines(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)) != NULL; p++) {
		n++;
		if ((p = strchr(p, '\n')) == NULL)
			break;
	}
	return (n);
}

/*
 * pfiles --via=VIA PID; it must exit 0 and say exactly said on stderr
 * (run_pfiles: nothing).  With pwrites, under strace and with libproc's
 * trace on: the writes to the target's memory, and in *cutp (when not
 * NULL) how many batches the trace says were cut at their bound (on a
 * loaded machine; each is made again, with a write of its own).  Its
 * stdout.
 */
static char *
run_pfiles_said(const char *via, pid_t pid, int *pwrites, int *cutp,
    const char *said)
{
	char pidarg[16], viaarg[32], *out, *err;
	tu_result_t r;

	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)pid);
	(void) snprintf(viaarg, sizeof (viaarg), "--via=%s", via);
	if (pwrites != NULL) {
		const char *wrap[] = { "strace", "-f", "-qq", "-y", "-o",
		    PASS_STRACE, "-e", "trace=pwrite64", NULL };
		const char *args[] = { viaarg, pidarg, NULL };
		/* LeakSanitizer (SANITIZE=1) cannot work under strace. */
		const char *env[] = { "ASAN_OPTIONS=detect_leaks=0",
		    "LIBPROC_DEBUG=1", NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
		    .tp_opts = args, .tp_env = env }, &r);
	} else {
		const char *args[] = { viaarg, pidarg, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	}
	require_alive(pid, viaarg);
	tu_require_exit("pfiles", &r, 0);
	err = tu_without_lines(r.tr_err, "libproc[");
	ATF_CHECK_MSG(strcmp(err, said) == 0, "pfiles %s said: %s",
	    viaarg, err);
	free(err);
	if (pwrites != NULL)
		*pwrites = count_mem_writes(pid);
	if (cutp != NULL)
		*cutp = count_lines(r.tr_err, TRACE_CUT);
	out = r.tr_out;
	r.tr_out = NULL;
	tu_result_free(&r);
	return (out);
}

static char *
run_pfiles(const char *via, pid_t pid, int *pwrites)
{
	return (run_pfiles_said(via, pid, pwrites, NULL, ""));
}

/*
 * pfiles --via=agent prints what --via=pidfd prints, and leaves the
 * target as it was; the writes to its memory it made.  With batch (the
 * per-socket batch serves, asking inside the target), the peers are
 * unnamed: there is no pidfd of a peer to prove who it is; where pidfd
 * names one (or prints a peer: line at all), that is said once.
 */
static int
agent_same_as_pidfd(const char *what, pid_t pid, int batch, int *cutp)
{
	target_view_t before;
	char *pidfd, *agent, *said;
	int pwrites = -1;

	view_target(pid, &before);
	pidfd = run_pfiles("pidfd", pid, NULL);
	said = batch && strstr(pidfd, "\tpeer: ") != NULL ? tu_asprintf(
	    "pfiles: %d: not shown: peer (agent: asked inside the process, "
	    "not passed to pfiles)\n", (int)pid) : tu_asprintf("%s", "");
	if (batch)
		pidfd = tu_unnamed_peers(pidfd);
	agent = run_pfiles_said("agent", pid, &pwrites, cutp, said);
	free(said);
	tu_require_same_text(what, pidfd, strlen(pidfd), agent,
	    strlen(agent));
	require_view(pid, &before, what);
	printf("%s: %d sockets, %d writes to the target's memory, %d batches "
	    "cut\n", what, before.tv_nsock, pwrites, cutp != NULL ? *cutp : 0);
	free(pidfd);
	free(agent);
	free(before.tv_fds);
	return (pwrites);
}

/* Start sockfix (argv) and read its manifest up to "end"; its pid. */
static pid_t
start_sockfix(tu_child_t *c, const char *const argv[])
{
	char *text, *p;
	int found;
	pid_t pid;

	tu_spawn(c, argv, TU_STDERR_NULL);
	text = tu_read_until(c->tc_out, "end", TU_TIMEOUT_MS, &found);
	if (!found || (p = strstr(text, "\npid ")) == NULL) {
		free(text);
		(void) tu_stop(c, AU_LINE_MS);
		return (-1);
	}
	pid = (pid_t)atoi(p + 5);
	free(text);
	ATF_REQUIRE_EQ_MSG(pid, c->tc_pid, "sockfix says pid %d, is %d",
	    (int)pid, (int)c->tc_pid);
	return (pid);
}

static void
stop_sockfix(tu_child_t *c)
{
	int st = tu_stop(c, AU_LINE_MS);

	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "sockfix did not exit cleanly (status 0x%x)", st);
}

/* Start sockets.js with n connections; its pid. */
static pid_t
start_node(tu_child_t *c, const char *n)
{
	/*
	 * node with V8's background work off: its memory reducer gives
	 * pages back some seconds after start (121 mappings, then 110), and
	 * require_view() holds the target's mappings to their number before.
	 */
	const char *argv[] = { "node", "--single-threaded",
	    "--no-memory-reducer", TU_SOCKETS_JS, n, TU_FIXTURE_LIFE, NULL };
	char *l;
	pid_t pid;

	tu_spawn(c, argv, 0);
	l = tu_read_line(c->tc_out, TU_TIMEOUT_MS);
	ATF_REQUIRE_MSG(l != NULL && strstr(l, "pid = ") != NULL,
	    "sockets.js: %s", l != NULL ? l : "(nothing)");
	pid = (pid_t)atoi(strstr(l, "pid = ") + 6);
	free(l);
	free(tu_read_line(c->tc_out, TU_TIMEOUT_MS));	/* its JSON */
	ATF_REQUIRE_EQ(pid, c->tc_pid);
	return (pid);
}

static void
stop_node(tu_child_t *c)
{
	int st = tu_stop(c, TU_TIMEOUT_MS);

	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "node did not exit cleanly (status 0x%x)", st);
}

ATF_TC(pass_sockfix);
ATF_TC_HEAD(pass_sockfix, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "strace");
	atf_tc_set_md_var(tc, "descr", "pfiles --via=agent on every kind of "
	    "fd prints what --via=pidfd prints, its sockets passed in one "
	    "message (one write to the target's memory), the target intact");
}
ATF_TC_BODY(pass_sockfix, tc)
{
	const char *argv[] = { TU_SOCKFIX, "-s", "all", "-t",
	    TU_FIXTURE_LIFE, NULL };
	tu_child_t c;
	pid_t pid;
	int pwrites;

	ATF_REQUIRE((pid = start_sockfix(&c, argv)) > 0);
	pwrites = agent_same_as_pidfd("sockfix-all", pid, 0, NULL);
	ATF_CHECK_EQ_MSG(pwrites, 1, "%d writes to the target's memory: the "
	    "sockets were not passed in one message", pwrites);
	stop_sockfix(&c);
}

ATF_TC(pass_node);
ATF_TC_HEAD(pass_node, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "node strace");
	atf_tc_set_md_var(tc, "descr", "pfiles --via=agent on node with 300 "
	    "connections prints what --via=pidfd prints, with one write to "
	    "the target's memory per round (up to 1365 fds), the target "
	    "intact");
}
ATF_TC_BODY(pass_node, tc)
{
	target_view_t v;
	tu_child_t c;
	pid_t pid;
	int pwrites, most;

	pid = start_node(&c, "300");
	view_target(pid, &v);
	ATF_REQUIRE_MSG(v.tv_nsock >= 601, "node has %d sockets", v.tv_nsock);
	pwrites = agent_same_as_pidfd("node-300", pid, 0, NULL);
	/*
	 * One round per getdents batch of the walk, which holds 1000 fds at
	 * least (32 KiB, at most 32 bytes an entry).
	 */
	most = v.tv_nfds / 1000 + 1;
	ATF_CHECK_MSG(pwrites >= 1 && pwrites <= most, "%d writes to the "
	    "target's memory for %d sockets (want 1 to %d)", pwrites,
	    v.tv_nsock, most);
	free(v.tv_fds);
	stop_node(&c);
}

/*
 * A target in another network namespace cannot reach a name of pfiles'
 * own namespace: pfiles makes its sockets in the target's (a thread of
 * its own enters it), and the sockets are passed there as here.
 */
ATF_TC(pass_netns);
ATF_TC_HEAD(pass_netns, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "strace unshare");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "descr", "A target in another network "
	    "namespace: its sockets passed in one message to pfiles' sockets "
	    "made there, pfiles prints what pidfd prints, peers named");
}
ATF_TC_BODY(pass_netns, tc)
{
	const char *argv[] = { "unshare", "-n", TU_SOCKFIX, "-s",
	    "unix,abstract,unnamed,socketpair,netlink,pipe,file", "-t",
	    TU_FIXTURE_LIFE, NULL };
	tu_child_t c;
	pid_t pid;
	int pwrites;

	if ((pid = start_sockfix(&c, argv)) < 0)
		atf_tc_skip("unshare -n could not start sockfix here");
	pwrites = agent_same_as_pidfd("netns", pid, 0, NULL);
	ATF_CHECK_EQ_MSG(pwrites, 1, "%d writes to the target's memory: the "
	    "sockets were not passed in one message", pwrites);
	stop_sockfix(&c);
}

/*
 * The target can open no fd (soft RLIMIT_NOFILE 0): its socket for
 * passing fails with EMFILE, and the per-socket batch serves.
 */
ATF_TC(pass_fallback_emfile);
ATF_TC_HEAD(pass_fallback_emfile, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "strace");
	atf_tc_set_md_var(tc, "descr", "A target that can open no fd: the "
	    "per-socket batch serves, pfiles prints the same");
}
ATF_TC_BODY(pass_fallback_emfile, tc)
{
	const char *argv[] = { TU_SOCKFIX, "-s", "all", "-t",
	    TU_FIXTURE_LIFE, NULL };
	struct rlimit rl, zero;
	target_view_t v;
	tu_child_t c;
	pid_t pid;
	int pwrites, cut;

	ATF_REQUIRE((pid = start_sockfix(&c, argv)) > 0);
	ATF_REQUIRE(prlimit(pid, RLIMIT_NOFILE, NULL, &rl) == 0);
	zero = rl;
	zero.rlim_cur = 0;
	ATF_REQUIRE_MSG(prlimit(pid, RLIMIT_NOFILE, &zero, NULL) == 0,
	    "prlimit: %s", strerror(errno));
	view_target(pid, &v);
	pwrites = agent_same_as_pidfd("emfile", pid, 1, &cut);
	/*
	 * A socket's batch cut at its bound is made again, with a write
	 * more; a round's first batch, cut, writes nothing.
	 */
	ATF_CHECK_MSG(pwrites >= v.tv_nsock && pwrites <= v.tv_nsock + cut,
	    "%d writes to the target's memory for %d sockets (%d batches "
	    "cut): not one batch per socket", pwrites, v.tv_nsock, cut);
	free(v.tv_fds);
	/* Its poll(2) of stdin needs the limit back (nfds <= it). */
	ATF_REQUIRE(prlimit(pid, RLIMIT_NOFILE, &rl, NULL) == 0);
	stop_sockfix(&c);
}

/* The lowest fd the target does not have (tv_fds is increasing). */
static int
lowest_free(const target_view_t *tv)
{
	const char *p = tv->tv_fds;
	int want = 0;

	while (*p != '\0' && atoi(p) == want) {
		want++;
		p = strchr(p, ' ') + 1;
	}
	return (want);
}

/*
 * A target under a seccomp filter is never asked to pass its sockets
 * (sock_pass.c): the per-socket batch serves from the start.  At its fd
 * limit, the batch's F_DUPFD_CLOEXEC fails (EMFILE when every fd below
 * the soft limit is in use, EINVAL when the limit is 0), and the batch
 * asks fd N itself instead (checked by an fstat before and after), for
 * this socket and the ones after it.
 */
ATF_TC(fallback_batch_emfile);
ATF_TC_HEAD(fallback_batch_emfile, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "strace");
	atf_tc_set_md_var(tc, "descr", "A target under a seccomp filter "
	    "(no passing) that can open no fd, its soft limit at its lowest "
	    "free fd or 0: the per-socket batch asks each fd itself, pfiles "
	    "prints what pidfd prints, nothing on stderr, one batch per "
	    "socket (and the first one that found no fd to spare)");
}
ATF_TC_BODY(fallback_batch_emfile, tc)
{
	char nr[16];
	const char *argv[] = { SECCOMP_DENY, nr, "1", TU_SOCKFIX, "-s",
	    "all", "-t", TU_FIXTURE_LIFE, NULL };
	struct rlimit rl, low;
	target_view_t v;
	tu_child_t c;
	pid_t pid;
	int pwrites, cut;

	/* acct(2), which sockfix never calls, fails: a filter, no more. */
	(void) snprintf(nr, sizeof (nr), "%d", (int)SYS_acct);
	ATF_REQUIRE((pid = start_sockfix(&c, argv)) > 0);
	ATF_REQUIRE(prlimit(pid, RLIMIT_NOFILE, NULL, &rl) == 0);
	view_target(pid, &v);
	ATF_REQUIRE(v.tv_nsock > 0);
	for (int zero = 0; zero < 2; zero++) {
		low = rl;
		low.rlim_cur = zero ? 0 : (rlim_t)lowest_free(&v);
		printf("soft limit %llu\n", (unsigned long long)low.rlim_cur);
		ATF_REQUIRE_MSG(prlimit(pid, RLIMIT_NOFILE, &low, NULL) == 0,
		    "prlimit: %s", strerror(errno));
		pwrites = agent_same_as_pidfd(zero ? "seccomp-limit-0" :
		    "seccomp-limit-full", pid, 1, &cut);
		/*
		 * Every batch here is a socket's (nothing is passed): one
		 * cut at its bound is made again, with a write more.
		 */
		ATF_CHECK_MSG(pwrites - cut == v.tv_nsock ||
		    pwrites - cut == v.tv_nsock + 1, "%d writes to the "
		    "target's memory for %d sockets (%d batches cut): not one "
		    "batch per socket", pwrites, v.tv_nsock, cut);
		/* Its poll(2) of stdin needs the limit back (nfds <= it). */
		ATF_REQUIRE(prlimit(pid, RLIMIT_NOFILE, &rl, NULL) == 0);
	}
	free(v.tv_fds);
	stop_sockfix(&c);
}

/*
 * A target in its own pid and network namespaces: a unix listener bound
 * to path, a client connected to it and the accepted end.  The child we
 * fork does the unshare and forks the target, the first process of the
 * new pid namespace; it sends us 'p' and the target's pid (in ours), the
 * target 'y' when ready, in either order (each message one write, so
 * never mixed); the target exits at the end of file of hold.  'n':
 * unshare was refused.
 */
static void
pidns_target(int ready, int hold, const char *path)
{
	struct sockaddr_un sun;
	int l, cl, sv;
	pid_t t;
	char b;

	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (unshare(CLONE_NEWPID | CLONE_NEWNET) != 0) {
		b = 'n';
		(void) write(ready, &b, 1);
		_exit(0);
	}
	if ((t = fork()) < 0)
		_exit(1);
	if (t > 0) {
		char msg[1 + sizeof (t)] = { 'p' };
		int st;

		memcpy(msg + 1, &t, sizeof (t));
		(void) write(ready, msg, sizeof (msg));
		(void) close(ready);
		(void) close(hold);
		_exit(waitpid(t, &st, 0) == t && WIFEXITED(st) ?
		    WEXITSTATUS(st) : 1);
	}
	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void) alarm(120);
	memset(&sun, 0, sizeof (sun));
	sun.sun_family = AF_UNIX;
	(void) snprintf(sun.sun_path, sizeof (sun.sun_path), "%s", path);
	if ((l = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    bind(l, (struct sockaddr *)&sun, sizeof (sun)) != 0 ||
	    listen(l, 1) != 0 || (cl = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    connect(cl, (struct sockaddr *)&sun, sizeof (sun)) != 0 ||
	    (sv = accept(l, NULL, NULL)) < 0)
		_exit(2);
	b = 'y';
	(void) write(ready, &b, 1);
	(void) read(hold, &b, 1);	/* end of file: the test is done */
	_exit(0);
}

/* The pidns target, started: the child we forked, its pipes. */
typedef struct pidns_run {
	pid_t	pr_child;
	pid_t	pr_pid;		/* the target, in our namespace */
	int	pr_ready;	/* we read */
	int	pr_hold;	/* we close at the end */
} pidns_run_t;

/* Start the pidns target (the case skipped where unshare is refused). */
static void
pidns_start(pidns_run_t *pr, const char *path)
{
	int rp[2], hp[2], st;
	char b = 0;

	memset(pr, 0, sizeof (*pr));
	ATF_REQUIRE(pipe2(rp, O_CLOEXEC) == 0 && pipe2(hp, O_CLOEXEC) == 0);
	ATF_REQUIRE((pr->pr_child = fork()) >= 0);
	if (pr->pr_child == 0) {
		(void) close(rp[0]);
		(void) close(hp[1]);
		pidns_target(rp[1], hp[0], path);
	}
	(void) close(rp[1]);
	(void) close(hp[0]);
	pr->pr_ready = rp[0];
	pr->pr_hold = hp[1];
	/* The pid and the target's 'y', in whichever order they come. */
	for (int got = 0; got < 2 && b != 'n'; got++) {
		struct pollfd pfd = { rp[0], POLLIN, 0 };
		char tag;

		if (poll(&pfd, 1, AU_LINE_MS) != 1 ||
		    read(rp[0], &tag, 1) != 1)
			break;
		if (tag == 'p') {
			if (read(rp[0], &pr->pr_pid, sizeof (pr->pr_pid)) !=
			    sizeof (pr->pr_pid))
				break;
		} else {
			b = tag;
		}
	}
	if (b != 'y' || pr->pr_pid <= 0) {
		(void) kill(pr->pr_child, SIGKILL);
		(void) waitpid(pr->pr_child, &st, 0);
		(void) unlink(path);
		if (b == 'n')
			atf_tc_skip("unshare(CLONE_NEWPID|CLONE_NEWNET) is not "
			    "permitted here");
		atf_tc_fail("the target did not get ready");
	}
}

static void
pidns_stop(pidns_run_t *pr)
{
	int st;

	(void) close(pr->pr_hold);	/* the target's end of file */
	(void) close(pr->pr_ready);
	ATF_CHECK(waitpid(pr->pr_child, &st, 0) == pr->pr_child &&
	    WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

ATF_TC(fallback_pidns);
ATF_TC_HEAD(fallback_pidns, tc)
{
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "descr", "A target in another pid and network "
	    "namespace: its sockets passed (to pfiles' sockets made in its "
	    "network namespace), the agent prints what pidfd prints, peers "
	    "named; where it can open no fd (the per-socket batch serves), "
	    "the agent asks SO_PEERCRED inside it, where the peer's pid is of "
	    "the target's namespace, so no peer is shown, and that is said "
	    "once on stderr; everything else is what pidfd prints");
}
ATF_TC_BODY(fallback_pidns, tc)
{
	char cwd[256], *path, *pidfd, *want, *agent, *line;
	struct rlimit rl, zero;
	target_view_t before;
	pidns_run_t pr;

	ATF_REQUIRE(getcwd(cwd, sizeof (cwd)) != NULL);
	path = tu_asprintf("%s/pidns.sock", cwd);
	pidns_start(&pr, path);
	/* The socket keeps the name it was bound to. */
	(void) unlink(path);
	view_target(pr.pr_pid, &before);
	pidfd = run_pfiles("pidfd", pr.pr_pid, NULL);
	/* The fact is there to be dropped: pidfd names the peer. */
	ATF_CHECK_MSG(strstr(pidfd, "\tpeer: ") != NULL, "pidfd shows no "
	    "peer:\n%s", pidfd);
	/* Passed: asked here, the peers' pids are of our namespace. */
	agent = run_pfiles("agent", pr.pr_pid, NULL);
	tu_require_same_str("pidns-passed", pidfd, agent);
	free(agent);

	/* No fd to spare in the target: the per-socket batch. */
	ATF_REQUIRE(prlimit(pr.pr_pid, RLIMIT_NOFILE, NULL, &rl) == 0);
	zero = rl;
	zero.rlim_cur = 0;
	ATF_REQUIRE(prlimit(pr.pr_pid, RLIMIT_NOFILE, &zero, NULL) == 0);
	line = tu_asprintf("pfiles: %d: not shown: SO_PEERCRED (agent: asked "
	    "inside the process, whose pid namespace is not pfiles')\n",
	    (int)pr.pr_pid);
	agent = run_pfiles_said("agent", pr.pr_pid, NULL, NULL, line);
	free(pidfd);
	pidfd = run_pfiles("pidfd", pr.pr_pid, NULL);	/* its header's limit */
	ATF_REQUIRE(prlimit(pr.pr_pid, RLIMIT_NOFILE, &rl, NULL) == 0);
	free(line);
	want = tu_without_lines(pidfd, "\tpeer: ");
	tu_require_same_text("pidns", want, strlen(want), agent,
	    strlen(agent));
	line = tu_asprintf("\tpeername: AF_UNIX %s\n", path);
	ATF_CHECK_MSG(strstr(agent, line) != NULL, "no \"%s\" in:\n%s",
	    line, agent);
	require_view(pr.pr_pid, &before, "pidns");
	free(line);
	free(want);
	free(agent);
	free(pidfd);
	free(before.tv_fds);
	pidns_stop(&pr);
	free(path);
}

/*
 * pfiles' own fd limit is low: a message is cut short (MSG_CTRUNC), the
 * fds that arrived serve, and later messages are smaller; no socket is
 * lost or mixed up.
 */
ATF_TC(pass_short_of_fds);
ATF_TC_HEAD(pass_short_of_fds, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "node strace");
	atf_tc_set_md_var(tc, "descr", "pfiles with a soft fd limit of 100 "
	    "on node with 300 connections: messages cut short, the same "
	    "output");
}
ATF_TC_BODY(pass_short_of_fds, tc)
{
	struct rlimit rl, low;
	target_view_t v;
	tu_child_t c;
	pid_t pid;
	int pwrites;

	pid = start_node(&c, "300");
	view_target(pid, &v);
	ATF_REQUIRE(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	low = rl;
	/*
	 * Inherited by strace and pfiles: low, but above the 64 under
	 * which pfiles passes nothing (pfiles.1, CAVEATS).
	 */
	low.rlim_cur = 100;
	ATF_REQUIRE(setrlimit(RLIMIT_NOFILE, &low) == 0);
	pwrites = agent_same_as_pidfd("node-300-fd64", pid, 0, NULL);
	ATF_REQUIRE(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	/*
	 * One round (one write) passes 607 fds when nothing is cut short;
	 * here more rounds, but far fewer than sockets.
	 */
	ATF_CHECK_MSG(pwrites >= 2 && pwrites < v.tv_nsock / 4, "%d writes "
	    "to the target's memory for %d sockets", pwrites, v.tv_nsock);
	free(v.tv_fds);
	stop_node(&c);
}

/*
 * A child of ours holding 80 sockets and, among them, an io_uring fd,
 * which SCM_RIGHTS refuses (EINVAL): the message is split down to it,
 * and the sockets around it are still passed.
 */
#define	URING_PAIRS	40

static void
uring_child(int ready, int hold)
{
	struct { uint32_t a[10]; uint32_t rest[20]; } params;
	int sv[2];
	char b;

	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void) alarm(120);
	for (int i = 0; i < URING_PAIRS; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
			_exit(1);
		if (i == URING_PAIRS / 2) {
			memset(&params, 0, sizeof (params));
			if (syscall(SYS_io_uring_setup, 4, &params) < 0) {
				b = 'n';
				(void) write(ready, &b, 1);
				_exit(0);
			}
		}
	}
	b = 'y';
	(void) write(ready, &b, 1);
	(void) read(hold, &b, 1);	/* end of file: the test is done */
	_exit(0);
}

ATF_TC(pass_unpassable_fd);
ATF_TC_HEAD(pass_unpassable_fd, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "strace");
	atf_tc_set_md_var(tc, "descr", "An fd that cannot be passed (io_uring) "
	    "among 80 sockets: only sockets are passed, so it never is; the "
	    "same output as pidfd, in few writes");
}
ATF_TC_BODY(pass_unpassable_fd, tc)
{
	int rp[2], hp[2], pwrites, st;
	target_view_t v;
	char b = 0;
	pid_t pid;

	ATF_REQUIRE(pipe2(rp, O_CLOEXEC) == 0 && pipe2(hp, O_CLOEXEC) == 0);
	ATF_REQUIRE((pid = fork()) >= 0);
	if (pid == 0) {
		(void) close(rp[0]);
		(void) close(hp[1]);
		uring_child(rp[1], hp[0]);
	}
	(void) close(rp[1]);
	(void) close(hp[0]);
	{
		struct pollfd pfd = { rp[0], POLLIN, 0 };

		if (poll(&pfd, 1, AU_LINE_MS) == 1)
			(void) read(rp[0], &b, 1);
	}
	if (b != 'y') {
		(void) kill(pid, SIGKILL);
		(void) waitpid(pid, &st, 0);
		if (b == 'n')
			atf_tc_skip("io_uring_setup is not available here");
		atf_tc_fail("the child did not get ready");
	}
	view_target(pid, &v);
	pwrites = agent_same_as_pidfd("uring", pid, 0, NULL);
	ATF_CHECK_MSG(pwrites >= 1 && pwrites < v.tv_nsock / 2, "%d writes "
	    "to the target's memory for %d sockets: not passed in rounds",
	    pwrites, v.tv_nsock);
	free(v.tv_fds);
	(void) close(hp[1]);		/* the child's end of file */
	(void) close(rp[0]);
	ATF_CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0);
}

/*
 * SIGTERM to pfiles at moments spread over its walk: it dies by it, and
 * the target is left with exactly its fds and mappings, neither stopped
 * nor traced.  The moments are the agent's ptrace(2) calls, counted by
 * atf/race_shim.so preloaded into pfiles: a first run counts them (T),
 * then each round raises SIGTERM in pfiles at its Nth call, N spread
 * from the first (the seize) to the last; so every round is cut where
 * it says, whatever the machine's load.  A round whose walk made fewer
 * calls than N (the target changed) is not cut: it must end well.
 */
#define	SIGTERM_ROUNDS	16

/* pfiles --via=agent on pid under the shim: RACE_ACTION, RACE_NTH; status. */
static int
shimmed_pfiles(pid_t pid, const char *action, int nth)
{
	char pidarg[16], nthenv[32], actenv[32];
	const char *const args[] = { "--via=agent", pidarg, NULL };
	const char *const env[] = { "LD_PRELOAD=" RACE_SHIM,
	    "RACE_CALL=ptrace", nthenv, "RACE_LOG=race.log", actenv,
	    "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0", NULL };
	tu_result_t r;
	int status;

	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)pid);
	(void) snprintf(nthenv, sizeof (nthenv), "RACE_NTH=%d", nth);
	(void) snprintf(actenv, sizeof (actenv), "RACE_ACTION=%s", action);
	(void) unlink("race.log");
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args, .tp_env = env }, &r);
	status = r.tr_status;
	tu_result_free(&r);
	return (status);
}

ATF_TC(pass_sigterm);
ATF_TC_HEAD(pass_sigterm, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "node");
	atf_tc_set_md_var(tc, "descr", "SIGTERM to pfiles --via=agent at "
	    "16 of its ptrace calls spread over the walk, first to last, on "
	    "node with 1000 connections: pfiles dies by it, and the target "
	    "keeps exactly its fds and mappings");
}
ATF_TC_BODY(pass_sigterm, tc)
{
	target_view_t before;
	tu_child_t c;
	pid_t pid;
	char *log;
	int st, calls = 0, cut = 0;

	pid = start_node(&c, "1000");
	view_target(pid, &before);

	/* The ptrace calls of a whole walk. */
	st = shimmed_pfiles(pid, "count", 0);
	ATF_REQUIRE_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "pfiles: status 0x%x", st);
	log = tu_read_file("race.log", NULL);
	ATF_REQUIRE_MSG(sscanf(log, "ptrace count %d", &calls) == 1 &&
	    calls > 0, "the shim counted no ptrace call: %s", log);
	free(log);
	require_view(pid, &before, "a whole walk");

	for (int i = 0; i < SIGTERM_ROUNDS; i++) {
		int nth = 1 + (int)((long)i * (calls - 1) /
		    (SIGTERM_ROUNDS - 1));
		char when[48];
		int acted;

		st = shimmed_pfiles(pid, "term", nth);
		log = tu_read_file("race.log", NULL);
		acted = strstr(log, " term ok") != NULL;
		free(log);
		if (acted) {
			ATF_CHECK_MSG(WIFSIGNALED(st) &&
			    WTERMSIG(st) == SIGTERM, "SIGTERM at ptrace "
			    "call %d of %d: pfiles ended with status 0x%x",
			    nth, calls, st);
			cut++;
		} else {
			ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			    "no ptrace call %d (of %d before): pfiles ended "
			    "with status 0x%x", nth, calls, st);
		}
		(void) snprintf(when, sizeof (when), "SIGTERM at ptrace call "
		    "%d of %d", nth, calls);
		require_view(pid, &before, when);
	}
	printf("a walk makes %d ptrace calls; %d of %d rounds were cut\n",
	    calls, cut, SIGTERM_ROUNDS);
	/* The seize is the first call of every walk: that round is cut. */
	ATF_CHECK_MSG(cut >= 1, "no round was cut: the test did not test");
	free(before.tv_fds);
	stop_node(&c);
}

ATF_TC_WITHOUT_HEAD(strangers_refused);
ATF_TC_BODY(strangers_refused, tc)
{
	const pid_t target = 4242;
	const uint64_t seq = 0x1122334455667788ULL;
	const ssize_t len = (ssize_t)sizeof (seq);

	/* The one waited for; a cut control part (fewer fds) is still it. */
	ATF_CHECK(pass_msg_wanted(target, target, len, seq, seq, 0));
	ATF_CHECK(pass_msg_wanted(target, target, len, seq, seq,
	    MSG_CTRUNC));
	/* A stranger, whatever it sends; no sender said; draining. */
	ATF_CHECK(!pass_msg_wanted(target, 4243, len, seq, seq, 0));
	ATF_CHECK(!pass_msg_wanted(target, 0, len, seq, seq, 0));
	ATF_CHECK(!pass_msg_wanted(0, target, len, seq, seq, 0));
	ATF_CHECK(!pass_msg_wanted(0, 0, len, seq, seq, 0));
	/* The target's, but not this round's: a late or a forged one. */
	ATF_CHECK(!pass_msg_wanted(target, target, len, seq + 1, seq, 0));
	ATF_CHECK(!pass_msg_wanted(target, target, len, seq ^
	    (1ULL << 63), seq, 0));
	/* Not 8 bytes, or cut short. */
	ATF_CHECK(!pass_msg_wanted(target, target, len - 1, seq, seq, 0));
	ATF_CHECK(!pass_msg_wanted(target, target, len + 1, seq, seq, 0));
	ATF_CHECK(!pass_msg_wanted(target, target, 0, seq, seq, 0));
	ATF_CHECK(!pass_msg_wanted(target, target, len, seq, seq,
	    MSG_TRUNC));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, strangers_refused);
	ATF_TP_ADD_TC(tp, pass_sockfix);
	ATF_TP_ADD_TC(tp, pass_node);
	ATF_TP_ADD_TC(tp, pass_netns);
	ATF_TP_ADD_TC(tp, pass_fallback_emfile);
	ATF_TP_ADD_TC(tp, fallback_batch_emfile);
	ATF_TP_ADD_TC(tp, fallback_pidns);
	ATF_TP_ADD_TC(tp, pass_short_of_fds);
	ATF_TP_ADD_TC(tp, pass_unpassable_fd);
	ATF_TP_ADD_TC(tp, pass_sigterm);
	return (atf_no_error());
}
