/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_cli_edges: pfiles' command line where a new user meets it first.
 *
 *  - A process that rewrote its command line in place (argv_helper, as
 *    setproctitle does) left NULs to the end of the old argument area:
 *    the header and -J's args are its new arguments, as the helper says
 *    them, with no trailing blank (pfiles.1, "Header").
 *  - pfiles over all of /proc: every entry whose name is not a number
 *    (sys, zoneinfo, self, thread-self, ...) is passed over without a
 *    word; exit 0; a path below /proc is still not a process id.
 *    --all: every process in pid order, pfiles left out, no operand.
 *  - In a sandbox that refuses ptrace, pidfd_getfd and bpf (seccomp_deny
 *    three times), a process without a socket is shown with every
 *    --via, exit 0, nothing said about sources; one with a socket still
 *    gets the forced source's refusal, and auto's word on diag.
 *  - libproc: a walk after Psetsocksrc refused the source named gives
 *    each socket that source's reason, and asks no other source.
 *  - No operand: the usage line and the Try line; --help begins with the
 *    same usage line and names where the schema of -J is installed.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atf-c.h>

#include "libproc.h"
#include "testutil.h"

#define	ARGV_HELPER	BUILD_DIR "/atf/argv_helper"
#define	SECCOMP_DENY	BUILD_DIR "/atf/seccomp_deny"
#define	PFILES_1	SRC_DIR "/libproc-patch/pfiles/pfiles.1"

/* The contract's usage line (pfiles.1, EXIT STATUS), and the Try line. */
#define	USAGE	"usage:\tpfiles [-J] [-n] [--no-endpoints] " \
	"[--via=auto|pidfd|agent|diag|bpf] pid ...\n"
#define	TRY	"Try 'pfiles --help' for more information.\n"

#define	PAD_LEN		5000	/* past psinfo's 4 KiB read of cmdline */
#define	MAX_ARGS	256

/* argv_helper with new arguments args (NULL-ended), after a long PAD. */
static void
helper_start(tu_helper_t *h, int sockets, const char *const args[])
{
	const char *argv[16];
	static char pad[PAD_LEN + 1];
	int n = 0;

	(void) memset(pad, 'x', PAD_LEN);
	argv[n++] = ARGV_HELPER;
	if (sockets)
		argv[n++] = "-s";
	argv[n++] = pad;
	for (int i = 0; args[i] != NULL && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	tu_helper_start(h, argv);
}

/* What the helper said after KEY, to its line's end (static). */
static const char *
said(const tu_helper_t *h, const char *key)
{
	static char line[PAD_LEN];
	const char *p = tu_said(h, key);

	(void) snprintf(line, sizeof (line), "%.*s", (int)strcspn(p, "\n"),
	    p);
	return (line);
}

/* pfiles with args (NULL-ended), behind prefix (NULL-ended) when any. */
static void
run_pfiles(const char *const prefix[], const char *const args[],
    tu_result_t *r)
{
	/* LeakSanitizer (SANITIZE=1) needs ptrace, which a sandbox refuses. */
	static const char *const no_lsan[] = { "ASAN_OPTIONS=detect_leaks=0",
	    NULL };

	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = prefix, .tp_opts = args,
	    .tp_env = prefix != NULL ? no_lsan : NULL }, r);
}

/* The first line of text, with its '\n' (malloc'd). */
static char *
first_line(const char *text)
{
	return (strndup(text, strcspn(text, "\n") + 1));
}

/* How many times needle is in text. */
static int
count_str(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(text, needle); p != NULL;
	    p = strstr(p + 1, needle))
		n++;
	return (n);
}

/* Lines of text that end in a blank or a TAB: how many. */
static int
blank_ends(const char *text)
{
	int n = 0;

	for (const char *p = strchr(text, '\n'); p != NULL;
	    p = strchr(p + 1, '\n')) {
		if (p > text && (p[-1] == ' ' || p[-1] == '\t'))
			n++;
	}
	return (n);
}

ATF_TC(header_rewritten_argv);
ATF_TC_HEAD(header_rewritten_argv, tc)
{
	atf_tc_set_md_var(tc, "descr", "A process that rewrote its command "
	    "line in place, NULs to the end of the old area (5000 bytes): "
	    "the header is its new arguments as it says them (an empty one "
	    "in the middle a space), no line ends in a blank, and -J's args "
	    "is the same");
}
ATF_TC_BODY(header_rewritten_argv, tc)
{
	static const char *const args[] = { "argv-helper", "",
	    "127.0.0.1:16379", NULL };
	tu_helper_t h;
	tu_result_t r;
	char *want, *line;

	helper_start(&h, 0, args);
	want = tu_asprintf("%s:\t%s\n", h.h_pid, said(&h, "args"));
	{
		const char *const plain[] = { h.h_pid, NULL };
		const char *const statonly[] = { "-n", h.h_pid, NULL };

		run_pfiles(NULL, plain, &r);
		tu_require_exit("pfiles PID", &r, 0);
		line = first_line(r.tr_out);
		tu_require_same_str("header", want, line);
		free(line);
		ATF_CHECK_EQ_MSG(blank_ends(r.tr_out), 0, "lines end in a "
		    "blank:\n%s", r.tr_out);
		tu_result_free(&r);
		run_pfiles(NULL, statonly, &r);
		tu_require_exit("pfiles -n PID", &r, 0);
		line = first_line(r.tr_out);
		tu_require_same_str("header-n", want, line);
		free(line);
		tu_result_free(&r);
	}
	free(want);
	{
		const char *const json[] = { "-J", h.h_pid, NULL };

		run_pfiles(NULL, json, &r);
		tu_require_exit("pfiles -J PID", &r, 0);
		want = tu_asprintf("\"args\":\"%s\",", said(&h, "args"));
		ATF_CHECK_MSG(strstr(r.tr_out, want) != NULL, "-J has not %s: "
		    "%.300s", want, r.tr_out);
		free(want);
		tu_result_free(&r);
	}
	tu_helper_stop(&h);
}

/* Every entry of /proc whose name is not a number, as "/proc/NAME". */
static int
proc_names(char *names[], int max)
{
	struct dirent *de;
	DIR *d;
	int n = 0;

	ATF_REQUIRE_MSG((d = opendir("/proc")) != NULL, "/proc: %s",
	    strerror(errno));
	while ((de = readdir(d)) != NULL && n < max) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    de->d_name[strspn(de->d_name, "0123456789")] == '\0')
			continue;
		names[n++] = tu_asprintf("/proc/%s", de->d_name);
	}
	(void) closedir(d);
	return (n);
}

ATF_TC(proc_glob);
ATF_TC_HEAD(proc_glob, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles over every entry of /proc "
	    "whose name is not a number (self and thread-self among them) "
	    "and one process: exit 0, nothing on stderr, only that "
	    "process's block, in text and -J; /proc/sys/kernel, /proc/, "
	    "/proc/1x/ and /procfs are still not process ids (exit 1)");
}
ATF_TC_BODY(proc_glob, tc)
{
	static const char *const args[] = { "glob-helper", NULL };
	const char *argv[MAX_ARGS + 3];
	char *names[MAX_ARGS], *want, *line, *pidarg;
	tu_helper_t h;
	tu_result_t r;
	int n, self = 0;

	helper_start(&h, 0, args);
	n = proc_names(names, MAX_ARGS);
	/* argv[0] is -J's place; the process among the names, as a glob. */
	argv[0] = "-J";
	for (int i = 0; i < n; i++) {
		self += strcmp(names[i], "/proc/self") == 0 ||
		    strcmp(names[i], "/proc/thread-self") == 0;
		argv[i + 1] = names[i];
	}
	ATF_REQUIRE_MSG(self == 2 && n > 10, "/proc has %d entries that are "
	    "no number, self and thread-self among them: %d", n, self);
	pidarg = tu_asprintf("/proc/%s", h.h_pid);
	argv[n + 1] = names[n / 2];
	argv[n / 2 + 1] = pidarg;
	argv[n + 2] = NULL;
	run_pfiles(NULL, argv + 1, &r);
	tu_require_exit("pfiles /proc/*", &r, 0);
	tu_require_same_str("stderr", "", r.tr_err);
	want = tu_asprintf("%s:\t%s\n", h.h_pid, said(&h, "args"));
	line = first_line(r.tr_out);
	tu_require_same_str("header", want, line);
	ATF_CHECK_EQ_MSG(count_str(r.tr_out, ":\t"), 1, "not one header:\n%s",
	    r.tr_out);
	free(line);
	free(want);
	tu_result_free(&r);

	/* -J: one process object, no error. */
	run_pfiles(NULL, argv, &r);
	tu_require_exit("pfiles /proc/* -J", &r, 0);
	tu_require_same_str("stderr-J", "", r.tr_err);
	want = tu_asprintf("[\n{\"pid\":%s,", h.h_pid);
	ATF_CHECK_MSG(strncmp(r.tr_out, want, strlen(want)) == 0 &&
	    strstr(r.tr_out, "\"error\"") == NULL &&
	    strstr(r.tr_out + 3, "{\"pid\":") == NULL, "-J is not one "
	    "process: %.300s", r.tr_out);
	free(want);
	tu_result_free(&r);
	tu_helper_stop(&h);

	/* Not entries of /proc: said, exit 1. */
	{
		const char *const bad[] = { "/proc/sys/kernel", "/proc/",
		    "/proc/1x/", "zoneinfo", "/procfs", NULL };

		run_pfiles(NULL, bad, &r);
		tu_require_exit("pfiles (not entries of /proc)", &r, 1);
		tu_require_same_str("not-entries.stderr",
		    "pfiles: cannot examine /proc/sys/kernel: not a process "
		    "id\npfiles: cannot examine /proc/: not a process id\n"
		    "pfiles: cannot examine /proc/1x/: not a process id\n"
		    "pfiles: cannot examine zoneinfo: not a process id\n"
		    "pfiles: cannot examine /procfs: not a process id\n",
		    r.tr_err);
		tu_result_free(&r);
	}
	free(pidarg);
	for (int i = 0; i < n; i++)
		free(names[i]);
}

/*
 * The headers of pfiles' text, in order: their pids in pids[], at most
 * max; how many.  A header is a line "PID:\t..." that begins the output
 * or follows a line.
 */
static int
header_pids(const char *out, long pids[], int max)
{
	int n = 0;

	for (const char *l = out; l != NULL && *l != '\0' && n < max;
	    l = strchr(l, '\n') != NULL ? strchr(l, '\n') + 1 : NULL) {
		size_t d = strspn(l, "0123456789");

		if (d > 0 && l[d] == ':' && l[d + 1] == '\t')
			pids[n++] = strtol(l, NULL, 10);
	}
	return (n);
}

ATF_TC(all_processes);
ATF_TC_HEAD(all_processes, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -n --all: one block per "
	    "process in increasing pid order, this test's and a helper's "
	    "among them, pfiles' own not; no 'not a process id' or 'no "
	    "such process'; --all with a pid is a usage error");
}
ATF_TC_BODY(all_processes, tc)
{
	static const char *const args[] = { "all-helper", NULL };
	static const char *const all[] = { "-n", "--all", NULL };
	static long pids[1 << 16];
	tu_helper_t h;
	tu_result_t r;
	int n, mine = 0, helper = 0;
	char *want;

	helper_start(&h, 0, args);
	run_pfiles(NULL, all, &r);
	ATF_REQUIRE_MSG(WIFEXITED(r.tr_status) && WEXITSTATUS(r.tr_status) <=
	    1, "pfiles -n --all: wait status 0x%x", (unsigned)r.tr_status);
	n = header_pids(r.tr_out, pids, 1 << 16);
	for (int i = 0; i < n; i++) {
		ATF_CHECK_MSG(i == 0 || pids[i] > pids[i - 1], "pid %ld after "
		    "%ld", pids[i], pids[i - 1]);
		mine += pids[i] == (long)getpid();
		helper += pids[i] == (long)h.h_child.tc_pid;
	}
	ATF_CHECK_MSG(mine == 1 && helper == 1, "this test shown %d times, "
	    "the helper %d", mine, helper);
	ATF_CHECK_MSG(strstr(r.tr_out, TU_PFILES " -n --all") == NULL,
	    "pfiles shows itself");
	/*
	 * Never a process that is none, or no longer one; others of the
	 * machine may be refused (pid 1 in a container), be zombies, or
	 * exit during their walk, and are said.
	 */
	ATF_CHECK_MSG(strstr(r.tr_err, ": not a process id\n") == NULL &&
	    strstr(r.tr_err, ": no such process\n") == NULL, "said: %s",
	    r.tr_err);
	tu_result_free(&r);
	want = tu_asprintf("pfiles: --all takes no pid: extra operand "
	    "'%s'\n" USAGE TRY, h.h_pid);
	{
		const char *const extra[] = { "--all", h.h_pid, NULL };

		run_pfiles(NULL, extra, &r);
		tu_require_exit("pfiles --all PID", &r, 2);
		tu_require_same_str("all-pid.stderr", want, r.tr_err);
		ATF_CHECK_EQ(r.tr_outlen, 0);
		tu_result_free(&r);
	}
	free(want);
	tu_helper_stop(&h);
}

/*
 * seccomp_deny three times: ptrace, pidfd_getfd and bpf refused with
 * EPERM, as in a container's default profile.
 */
#define	SANDBOX_NARGS	9
static const char **
sandbox(void)
{
	static char nr[3][16];
	static const char *pre[SANDBOX_NARGS + 1];
	const long nrs[3] = { SYS_ptrace, SYS_pidfd_getfd, SYS_bpf };
	int n = 0;

	for (int i = 0; i < 3; i++) {
		(void) snprintf(nr[i], sizeof (nr[i]), "%ld", nrs[i]);
		pre[n++] = SECCOMP_DENY;
		pre[n++] = nr[i];
		pre[n++] = "1";		/* EPERM */
	}
	pre[n] = NULL;
	return (pre);
}

ATF_TC(no_socket_sandboxed);
ATF_TC_HEAD(no_socket_sandboxed, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles where ptrace, pidfd_getfd "
	    "and bpf are refused (a container's profile), on a process "
	    "without a socket: with every --via and none, exit 0, nothing "
	    "on stderr, the output of pfiles outside the sandbox");
}
ATF_TC_BODY(no_socket_sandboxed, tc)
{
	static const char *const args[] = { "nosock-helper", NULL };
	static const char *const vias[] = { NULL, "--via=auto",
	    "--via=pidfd", "--via=agent", "--via=bpf", "--via=diag" };
	tu_helper_t h;
	tu_result_t free_run, r;

	helper_start(&h, 0, args);
	ATF_REQUIRE_STREQ(said(&h, "sockets"), "0");
	{
		const char *const plain[] = { h.h_pid, NULL };

		run_pfiles(NULL, plain, &free_run);
		tu_require_exit("pfiles PID (no sandbox)", &free_run, 0);
	}
	for (size_t i = 0; i < sizeof (vias) / sizeof (vias[0]); i++) {
		const char *const with[] = { vias[i], h.h_pid, NULL };
		const char *const without[] = { h.h_pid, NULL };
		const char *what = vias[i] != NULL ? vias[i] : "(none)";

		run_pfiles(sandbox(), vias[i] != NULL ? with : without, &r);
		if (!WIFEXITED(r.tr_status) || WEXITSTATUS(r.tr_status) != 0 ||
		    r.tr_errlen != 0)
			atf_tc_fail("sandboxed pfiles %s PID: status 0x%x, "
			    "stderr: %.*s", what, (unsigned)r.tr_status,
			    (int)strcspn(r.tr_err, "\n"), r.tr_err);
		tu_require_same_str(what, free_run.tr_out, r.tr_out);
		tu_result_free(&r);
	}
	tu_result_free(&free_run);
	tu_helper_stop(&h);
}

ATF_TC(socket_sandboxed);
ATF_TC_HEAD(socket_sandboxed, tc)
{
	atf_tc_set_md_var(tc, "descr", "The same sandbox, a process with a "
	    "socketpair: --via=pidfd is refused (exit 1, pidfd_getfd's "
	    "reason, nothing on stdout); auto serves through diag and says "
	    "so, exit 0");
}
ATF_TC_BODY(socket_sandboxed, tc)
{
	static const char *const args[] = { "sock-helper", NULL };
	tu_helper_t h;
	tu_result_t r;
	char *want;

	helper_start(&h, 1, args);
	ATF_REQUIRE_STREQ(said(&h, "sockets"), "2");
	{
		const char *const pidfd[] = { "--via=pidfd", h.h_pid, NULL };

		run_pfiles(sandbox(), pidfd, &r);
		tu_require_exit("sandboxed pfiles --via=pidfd", &r, 1);
		ATF_CHECK_EQ_MSG(r.tr_outlen, 0, "stdout: %s", r.tr_out);
		want = tu_asprintf("pfiles: cannot examine %s: pidfd: "
		    "pidfd_getfd: %s\n", h.h_pid, strerror(EPERM));
		tu_require_same_str("pidfd.stderr", want, r.tr_err);
		free(want);
		tu_result_free(&r);
	}
	{
		const char *const plain[] = { h.h_pid, NULL };

		run_pfiles(sandbox(), plain, &r);
		tu_require_exit("sandboxed pfiles", &r, 0);
		want = tu_asprintf("pfiles: %s: socket facts from diag (",
		    h.h_pid);
		ATF_CHECK_MSG(strncmp(r.tr_err, want, strlen(want)) == 0,
		    "auto does not say it fell back on diag: %s", r.tr_err);
		free(want);
		tu_result_free(&r);
	}
	tu_helper_stop(&h);
}

/* This process: ptrace and pidfd_getfd fail with EPERM from now on. */
static int
deny_here(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ptrace, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_getfd, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof (code) / sizeof (code[0]), code };

	return (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0 ? -1 : 0);
}

/* The walk's sockets: how many, and how many carry a "pidfd: " error. */
typedef struct sockcount {
	int	sc_sockets;
	int	sc_pidfd_err;
} sockcount_t;

static int
count_sockets(void *arg, const prfdinfo_t *info)
{
	sockcount_t *sc = arg;
	const char *why;
	size_t len;

	if (!S_ISSOCK(info->pr_mode))
		return (0);
	sc->sc_sockets++;
	why = proc_fdinfo_misc(info, PR_SOCKERR, &len);
	if (why != NULL && len > 7 && strncmp(why, "pidfd: ", 7) == 0)
		sc->sc_pidfd_err++;
	return (0);
}

/*
 * In a child denied ptrace and pidfd_getfd: 0 when Psetsocksrc(pidfd) is
 * refused and the walk then gives each of the 2 sockets pidfd's reason;
 * else a number that says which step went otherwise.
 */
static int
refused_walk(pid_t pid)
{
	struct ps_prochandle *P;
	sockcount_t sc = { 0, 0 };
	int err;

	if (deny_here() != 0)
		return (10);
	if ((P = Pgrab(pid, PGRAB_RDONLY, &err)) == NULL)
		return (11);
	if (Psetsocksrc(P, PSOCK_PIDFD) == 0)
		return (12);
	if (Pfdinfo_iter(P, count_sockets, &sc) != 0)
		return (13);
	Prelease(P, 0);
	if (sc.sc_sockets != 2)
		return (14);
	return (sc.sc_pidfd_err == 2 ? 0 : 15);
}

ATF_TC(refused_source_walk);
ATF_TC_HEAD(refused_source_walk, tc)
{
	atf_tc_set_md_var(tc, "descr", "libproc where ptrace and "
	    "pidfd_getfd are refused: Psetsocksrc(PSOCK_PIDFD) fails, and a "
	    "walk after it gives both sockets of a socketpair pidfd's "
	    "reason (PR_SOCKERR), not another source's facts");
}
ATF_TC_BODY(refused_source_walk, tc)
{
	static const char *const args[] = { "walk-helper", NULL };
	tu_helper_t h;
	pid_t child;
	int status;

	helper_start(&h, 1, args);
	ATF_REQUIRE((child = fork()) >= 0);
	if (child == 0)
		_exit(refused_walk(h.h_child.tc_pid));
	ATF_REQUIRE_EQ(waitpid(child, &status, 0), child);
	tu_helper_stop(&h);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the refused walk's step %d went otherwise (10: seccomp, 11: "
	    "grab, 12: pidfd served, 13: the walk, 14: not 2 sockets, 15: "
	    "not pidfd's reason on each); wait status 0x%x",
	    WIFEXITED(status) ? WEXITSTATUS(status) : -1, (unsigned)status);
}

ATF_TC(usage_no_operand);
ATF_TC_HEAD(usage_no_operand, tc)
{
	atf_tc_set_md_var(tc, "descr", "No operand: exactly the usage line "
	    "and the Try line on stderr, exit 2; --help's first line is "
	    "that usage line, and it names the installed schema of -J, as "
	    "pfiles.1 does");
}
ATF_TC_BODY(usage_no_operand, tc)
{
	static const char *const none[] = { NULL };
	static const char *const help[] = { "--help", NULL };
	const char *p;
	char *page;
	tu_result_t r;

	run_pfiles(NULL, none, &r);
	tu_require_exit("pfiles", &r, 2);
	ATF_CHECK_EQ_MSG(r.tr_outlen, 0, "stdout: %s", r.tr_out);
	tu_require_same_str("usage", USAGE TRY, r.tr_err);
	tu_result_free(&r);

	run_pfiles(NULL, help, &r);
	tu_require_exit("pfiles --help", &r, 0);
	ATF_CHECK_MSG(strncmp(r.tr_out, USAGE, strlen(USAGE)) == 0,
	    "--help does not begin with the usage line: %.200s", r.tr_out);
	p = strstr(r.tr_out, "/share/pfiles/pfiles.schema.json\n");
	ATF_CHECK_MSG(p != NULL && strstr(r.tr_out, "\n  /") != NULL &&
	    strstr(r.tr_out, "\n  /") < p, "--help names no installed "
	    "schema: %s", r.tr_out);
	tu_result_free(&r);
	page = tu_read_file(PFILES_1, NULL);
	ATF_CHECK_MSG(strstr(page, "/usr/share/pfiles/pfiles.schema.json") !=
	    NULL, "pfiles.1 does not say where the schema is installed");
	ATF_CHECK_MSG(strcasestr(page, "an other ") == NULL, "pfiles.1 says "
	    "'an other'");
	free(page);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, header_rewritten_argv);
	ATF_TP_ADD_TC(tp, proc_glob);
	ATF_TP_ADD_TC(tp, all_processes);
	ATF_TP_ADD_TC(tp, no_socket_sandboxed);
	ATF_TP_ADD_TC(tp, socket_sandboxed);
	ATF_TP_ADD_TC(tp, refused_source_walk);
	ATF_TP_ADD_TC(tp, usage_no_operand);
	return (atf_no_error());
}
