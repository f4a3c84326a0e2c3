/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_pfiles_pids: pfiles' operands, checked exactly against the contract
 * (pfiles.1: EXIT STATUS, DIAGNOSTICS): the statuses and messages for
 * pids that cannot be examined (gone, not a number, a zombie, a kernel
 * thread, permission denied, 0, out of range, a /proc path), and
 * several pids in one run, good and mixed.  The targets are
 * t_pfiles_cli's: children of the test whose fds the test knows.
 */
#include "cli_util.h"

#define	NOBODY		"65534"
#define	PF_KTHREAD	0x00200000	/* <linux/sched.h>: a kernel thread */
#define	MAX_TRIES	5

static char *
cannot_examine(const char *arg, const char *why)
{
	return (tu_asprintf("pfiles: cannot examine %s: %s\n", arg, why));
}

/* Is there no process pid (in our pid namespace)? */
static int
pid_is_free(pid_t pid)
{
	return (kill(pid, 0) != 0 && errno == ESRCH);
}

/* A pid that no process has: a child's, once reaped. */
static pid_t
free_pid(void)
{
	pid_t pid;
	int status;

	if ((pid = fork()) < 0)
		atf_tc_fail("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(0);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			atf_tc_fail("waitpid: %s", strerror(errno));
	if (!pid_is_free(pid))
		atf_tc_fail("pid %d still in use after its reaping",
		    (int)pid);
	return (pid);
}

ATF_TC(no_such_process);
ATF_TC_HEAD(no_such_process, tc)
{
	atf_tc_set_md_var(tc, "descr", "A pid no process has: "
	    "'no such process', exit 1");
}
ATF_TC_BODY(no_such_process, tc)
{
	for (int tries = 0; tries < MAX_TRIES; tries++) {
		pid_t pid = free_pid();
		char *arg = tu_asprintf("%d", (int)pid);
		char *err = cannot_examine(arg, "no such process");
		const char *const args[] = { arg, NULL };
		tu_result_t r;

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
		/* Someone took the pid meanwhile: the run proves nothing. */
		if (!pid_is_free(pid)) {
			tu_result_free(&r);
			free(arg);
			free(err);
			continue;
		}
		tu_require_exit("pfiles", &r, 1);
		tu_require_same_text("stderr", err, strlen(err), r.tr_err,
		    r.tr_errlen);
		tu_require_same_text("stdout", "", 0, r.tr_out, r.tr_outlen);
		tu_result_free(&r);
		free(arg);
		free(err);
		return;
	}
	atf_tc_fail("no pid stayed free for %d tries", MAX_TRIES);
}

ATF_TC(not_a_process_id);
ATF_TC_HEAD(not_a_process_id, tc)
{
	atf_tc_set_md_var(tc, "descr", "An argument that is not a number: "
	    "'not a process id', exit 1");
}
ATF_TC_BODY(not_a_process_id, tc)
{
	const char *const bad[] = { "abc", "12abc", "1 2", NULL };

	for (int i = 0; bad[i] != NULL; i++) {
		const char *const args[] = { bad[i], NULL };
		char *err = cannot_examine(bad[i], "not a process id");

		expect_pfiles(args, 1, "", err);
		free(err);
	}
}

ATF_TC(zombie);
ATF_TC_HEAD(zombie, tc)
{
	atf_tc_set_md_var(tc, "descr", "A zombie: 'process is defunct', "
	    "exit 1");
}
ATF_TC_BODY(zombie, tc)
{
	pid_t pid;
	char *arg, *err;
	int tries = 0, status;

	if ((pid = fork()) < 0)
		atf_tc_fail("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(0);
	/* Not reaped until the end: it stays a zombie meanwhile. */
	while (tu_proc_state(pid) != 'Z') {
		if (++tries > TU_TIMEOUT_MS * 1000 / WAIT_STEP_US)
			atf_tc_fail("child %d never became a zombie",
			    (int)pid);
		usleep_step();
	}
	arg = tu_asprintf("%d", (int)pid);
	err = cannot_examine(arg, "process is defunct");
	{
		const char *const args[] = { arg, NULL };
		tu_result_t r;

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
		(void) waitpid(pid, &status, 0);
		tu_require_exit("pfiles", &r, 1);
		tu_require_same_text("stderr", err, strlen(err), r.tr_err,
		    r.tr_errlen);
		tu_require_same_text("stdout", "", 0, r.tr_out, r.tr_outlen);
		tu_result_free(&r);
	}
	free(arg);
	free(err);
}

/*
 * Read a small /proc file into buf (NUL-terminated); -1 when it cannot
 * be read, as when the process has gone meanwhile.
 */
static ssize_t
read_proc_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (-1);
	n = read(fd, buf, len - 1);
	(void) close(fd);
	if (n < 0)
		return (-1);
	buf[n] = '\0';
	return (n);
}

/* The comm of a kernel thread, unless it is a kworker (or gone). */
static int
kthread_comm(const char *pid, char *comm, size_t commlen)
{
	char path[300];

	(void) snprintf(path, sizeof (path), "/proc/%s/comm", pid);
	if (read_proc_file(path, comm, commlen) <= 0)
		return (0);
	comm[strcspn(comm, "\n")] = '\0';
	return (strncmp(comm, "kworker", 7) != 0);
}

/*
 * A child of kthreadd (pid 2) whose name does not change (a kworker's
 * comm names its current work, so those are passed over), with a name
 * of at most 15 bytes (the old TASK_COMM_LEN limit) or, when long_name
 * is set, a longer one (recent kernels show a kernel thread's full name
 * in /proc/PID/comm).  Its name goes to comm.  0 when there is none.
 */
static pid_t
kernel_thread(int long_name, char *comm, size_t commlen)
{
	DIR *d;
	struct dirent *de;
	pid_t found = 0;

	if ((d = opendir("/proc")) == NULL)
		atf_tc_fail("opendir /proc: %s", strerror(errno));
	while (found == 0 && (de = readdir(d)) != NULL) {
		char path[300], text[1024], *p;
		unsigned int flags;
		int ppid;
		char state;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		(void) snprintf(path, sizeof (path), "/proc/%s/stat",
		    de->d_name);
		if (read_proc_file(path, text, sizeof (text)) <= 0)
			continue;	/* gone meanwhile */
		p = strrchr(text, ')');
		if (p != NULL && sscanf(p + 1, " %c %d %*d %*d %*d %*d %u",
		    &state, &ppid, &flags) == 3 && ppid == 2 &&
		    (flags & PF_KTHREAD) != 0 &&
		    kthread_comm(de->d_name, comm, commlen) &&
		    (strlen(comm) > 15) == (long_name != 0))
			found = (pid_t)atoi(de->d_name);
	}
	(void) closedir(d);
	return (found);
}

/*
 * pfiles on a kernel thread: "PID:\tCOMM" and "  [system process]",
 * exit 0.  Retried when the thread changed meanwhile.
 */
static void
check_kernel_thread(int long_name)
{
	for (int tries = 0; tries < MAX_TRIES; tries++) {
		char comm[128], again[128];
		pid_t pid = kernel_thread(long_name, comm, sizeof (comm));
		char *arg, *out;
		tu_result_t r;

		if (pid == 0 && long_name)
			atf_tc_skip("no kernel thread (child of kthreadd, "
			    "pid 2) with a name longer than 15 bytes");
		if (pid == 0)
			atf_tc_skip("no kernel thread (child of kthreadd, "
			    "pid 2) is visible in this pid namespace");
		arg = tu_asprintf("%d", (int)pid);
		out = tu_asprintf("%d:\t%s\n  [system process]\n", (int)pid,
		    comm);
		{
			const char *const args[] = { arg, NULL };

			tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
		}
		/* The thread must be the same one, with the same name. */
		if (kernel_thread(long_name, again, sizeof (again)) != pid ||
		    strcmp(again, comm) != 0) {
			tu_result_free(&r);
			free(arg);
			free(out);
			continue;
		}
		tu_require_exit("pfiles", &r, 0);
		tu_require_same_text("stderr", "", 0, r.tr_err, r.tr_errlen);
		tu_require_same_text("stdout", out, strlen(out), r.tr_out,
		    r.tr_outlen);
		tu_result_free(&r);
		free(arg);
		free(out);
		return;
	}
	atf_tc_fail("the kernel threads kept changing over %d tries",
	    MAX_TRIES);
}

ATF_TC(kernel_thread);
ATF_TC_HEAD(kernel_thread, tc)
{
	atf_tc_set_md_var(tc, "descr", "A kernel thread: its name and "
	    "[system process], exit 0");
}
ATF_TC_BODY(kernel_thread, tc)
{
	check_kernel_thread(0);
}

ATF_TC(kernel_thread_long_name);
ATF_TC_HEAD(kernel_thread_long_name, tc)
{
	atf_tc_set_md_var(tc, "descr", "A kernel thread whose name in "
	    "/proc/PID/comm is longer than 15 bytes: the whole name");
}
ATF_TC_BODY(kernel_thread_long_name, tc)
{
	check_kernel_thread(1);
}

/* Copy pfiles into a fresh directory under /tmp that anyone can enter. */
static char *
private_pfiles(char *dir, size_t dirlen)
{
	size_t len;
	char *bin = tu_read_file(TU_PFILES, &len);
	char *path;
	int fd;

	(void) snprintf(dir, dirlen, "/tmp/t_pfiles_cli.XXXXXX");
	if (mkdtemp(dir) == NULL)
		atf_tc_fail("mkdtemp: %s", strerror(errno));
	path = tu_asprintf("%s/pfiles", dir);
	if (chmod(dir, 0755) != 0 ||
	    (fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0755)) < 0) {
		(void) rmdir(dir);
		atf_tc_fail("%s: %s", path, strerror(errno));
	}
	if (write(fd, bin, len) != (ssize_t)len || fchmod(fd, 0755) != 0 ||
	    close(fd) != 0) {
		(void) unlink(path);
		(void) rmdir(dir);
		atf_tc_fail("copy to %s: %s", path, strerror(errno));
	}
	free(bin);
	return (path);
}

ATF_TC(permission_denied);
ATF_TC_HEAD(permission_denied, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles as an unprivileged user "
	    "on a root process: 'permission denied', exit 1");
}
ATF_TC_BODY(permission_denied, tc)
{
	char dir[64], *bin, *err;
	sleeper_t sl;
	tu_result_t r;

	if (geteuid() != 0)
		atf_tc_skip("needs root: it examines a root-owned process "
		    "from uid " NOBODY " (dropped with setpriv)");
	sleeper_start(&sl, NULL, 0);
	bin = private_pfiles(dir, sizeof (dir));
	{
		const char *const argv[] = { "setpriv", "--reuid=" NOBODY,
		    "--regid=" NOBODY, "--clear-groups", bin, sl.sl_pid,
		    NULL };

		tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	}
	/* Clean up first, so that a failed check leaves nothing behind. */
	(void) unlink(bin);
	(void) rmdir(dir);
	free(bin);
	err = cannot_examine(sl.sl_pid, "permission denied");
	tu_require_exit("setpriv pfiles", &r, 1);
	tu_require_same_text("stderr", err, strlen(err), r.tr_err,
	    r.tr_errlen);
	tu_require_same_text("stdout", "", 0, r.tr_out, r.tr_outlen);
	tu_result_free(&r);
	free(err);
	sleeper_stop(&sl);
}

ATF_TC(several_pids_mixed);
ATF_TC_HEAD(several_pids_mixed, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -n GOOD abc GOOD GONE: the "
	    "good blocks in order, the errors in order, exit 1");
}
ATF_TC_BODY(several_pids_mixed, tc)
{
	sleeper_t a, b;
	pid_t gone = free_pid();
	char *gone_arg = tu_asprintf("%d", (int)gone);
	char *out, *err, *block_a, *block_b, *err_abc, *err_gone;

	sleeper_start(&a, NULL, 0);
	sleeper_start(&b, NULL, 0);
	block_a = sleeper_n_block(&a);
	block_b = sleeper_n_block(&b);
	out = tu_asprintf("%s%s", block_a, block_b);
	err_abc = cannot_examine("abc", "not a process id");
	err_gone = cannot_examine(gone_arg, "no such process");
	err = tu_asprintf("%s%s", err_abc, err_gone);
	{
		const char *const args[] = { "-n", a.sl_pid, "abc", b.sl_pid,
		    gone_arg, NULL };
		tu_result_t r;

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
		if (!pid_is_free(gone))
			atf_tc_skip("pid %d was taken again meanwhile",
			    (int)gone);
		tu_require_exit("pfiles", &r, 1);
		tu_require_same_text("stderr", err, strlen(err), r.tr_err,
		    r.tr_errlen);
		tu_require_same_text("stdout", out, strlen(out), r.tr_out,
		    r.tr_outlen);
		tu_result_free(&r);
	}
	free(block_a);
	free(block_b);
	free(out);
	free(err_abc);
	free(err_gone);
	free(err);
	free(gone_arg);
	sleeper_stop(&a);
	sleeper_stop(&b);
}

ATF_TC(several_pids_good);
ATF_TC_HEAD(several_pids_good, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles A B A: one block per pid, "
	    "in the order given, exit 0");
}
ATF_TC_BODY(several_pids_good, tc)
{
	sleeper_t a, b;
	char *ha, *hb, *got = NULL;
	size_t gotlen = 0;
	tu_result_t r;
	FILE *fp;

	sleeper_start(&a, NULL, 0);
	sleeper_start(&b, NULL, 0);
	{
		const char *const args[] = { a.sl_pid, b.sl_pid, a.sl_pid,
		    NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	}
	tu_require_exit("pfiles", &r, 0);
	tu_require_same_text("stderr", "", 0, r.tr_err, r.tr_errlen);

	/* The header lines (those not indented), in order. */
	if ((fp = open_memstream(&got, &gotlen)) == NULL)
		atf_tc_fail("open_memstream: %s", strerror(errno));
	for (char *line = r.tr_out, *nl; *line != '\0'; line = nl + 1) {
		if ((nl = strchr(line, '\n')) == NULL)
			atf_tc_fail("pfiles' output does not end with a "
			    "newline");
		if (line[0] != ' ' && line[0] != '\t')
			(void) fprintf(fp, "%.*s", (int)(nl - line + 1), line);
		else if (strncmp(line, "  Current rlimit: ", 18) == 0)
			(void) fprintf(fp, "%.*s", (int)(nl - line + 1), line);
	}
	(void) fclose(fp);
	ha = sleeper_header(&a);
	hb = sleeper_header(&b);
	{
		char *want = tu_asprintf("%s%s%s", ha, hb, ha);

		tu_require_same_str("headers", want, got);
		free(want);
	}
	free(ha);
	free(hb);
	free(got);
	tu_result_free(&r);
	sleeper_stop(&a);
	sleeper_stop(&b);
}

ATF_TC(bad_pid_first);
ATF_TC_HEAD(bad_pid_first, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -n GONE GOOD: a pid that "
	    "cannot be examined makes the exit status 1 even when a later "
	    "one is shown");
}
ATF_TC_BODY(bad_pid_first, tc)
{
	sleeper_t sl;
	pid_t gone = free_pid();
	char *gone_arg = tu_asprintf("%d", (int)gone);
	char *out, *err;
	tu_result_t r;

	sleeper_start(&sl, NULL, 0);
	out = sleeper_n_block(&sl);
	err = cannot_examine(gone_arg, "no such process");
	{
		const char *const args[] = { "-n", gone_arg, sl.sl_pid, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	}
	if (!pid_is_free(gone))
		atf_tc_skip("pid %d was taken again meanwhile", (int)gone);
	tu_require_exit("pfiles", &r, 1);
	tu_require_same_text("stderr", err, strlen(err), r.tr_err,
	    r.tr_errlen);
	tu_require_same_text("stdout", out, strlen(out), r.tr_out,
	    r.tr_outlen);
	tu_result_free(&r);
	free(out);
	free(err);
	free(gone_arg);
	sleeper_stop(&sl);
}

ATF_TC(proc_path_arg);
ATF_TC_HEAD(proc_path_arg, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -n /proc/PID examines PID, "
	    "as pfiles -n PID does; /proc/ alone, or a path below it, is "
	    "not a process id (t_cli_edges: the entries of /proc that are "
	    "no number)");
}
ATF_TC_BODY(proc_path_arg, tc)
{
	static const char *const bad[] = { "/proc/", "/proc", "/proc//1",
	    "proc/1", "/proc/self/", NULL };
	sleeper_t sl;
	char *arg, *want;

	sleeper_start(&sl, NULL, 0);
	arg = tu_asprintf("/proc/%s", sl.sl_pid);
	want = sleeper_n_block(&sl);
	{
		const char *const args[] = { "-n", arg, NULL };

		expect_pfiles(args, 0, want, "");
	}
	for (int i = 0; bad[i] != NULL; i++) {
		const char *const args[] = { "-n", bad[i], NULL };
		char *err = cannot_examine(bad[i], "not a process id");

		expect_pfiles(args, 1, "", err);
		free(err);
	}
	free(want);
	free(arg);
	sleeper_stop(&sl);
}

ATF_TC(pid_zero);
ATF_TC_HEAD(pid_zero, tc)
{
	atf_tc_set_md_var(tc, "descr", "pid 0 (0, 00, /proc/0) is not a "
	    "process id: exit 1, nothing on stdout");
}
ATF_TC_BODY(pid_zero, tc)
{
	static const char *const zeros[] = { "0", "00", "/proc/0", NULL };

	for (int i = 0; zeros[i] != NULL; i++) {
		const char *const args[] = { zeros[i], NULL };
		const char *const nargs[] = { "-n", zeros[i], NULL };
		char *err = cannot_examine(zeros[i], "not a process id");

		expect_pfiles(args, 1, "", err);
		expect_pfiles(nargs, 1, "", err);
		free(err);
	}
}

ATF_TC(pid_out_of_range);
ATF_TC_HEAD(pid_out_of_range, tc)
{
	atf_tc_set_md_var(tc, "descr", "A number past INT_MAX (a pid_t "
	    "cannot hold it) is not a process id; INT_MAX itself is a pid "
	    "number no process has (it is above pid_max): no such process");
}
ATF_TC_BODY(pid_out_of_range, tc)
{
	static const char *const big[] = { "2147483648", "2147483649",
	    "/proc/2147483648", "4294967296", "99999999999999999999", NULL };
	char *pm = tu_read_file("/proc/sys/kernel/pid_max", NULL);
	long pid_max = strtol(pm, NULL, 10);
	char *max, *err;

	free(pm);
	/* The kernel's own limit: no pid reaches INT_MAX. */
	ATF_REQUIRE_MSG(pid_max > 0 && pid_max < INT_MAX, "pid_max %ld",
	    pid_max);
	for (int i = 0; big[i] != NULL; i++) {
		const char *const args[] = { big[i], NULL };

		err = cannot_examine(big[i], "not a process id");
		expect_pfiles(args, 1, "", err);
		free(err);
	}
	max = tu_asprintf("%d", INT_MAX);
	{
		const char *const args[] = { max, NULL };

		err = cannot_examine(max, "no such process");
		expect_pfiles(args, 1, "", err);
		free(err);
	}
	free(max);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, no_such_process);
	ATF_TP_ADD_TC(tp, not_a_process_id);
	ATF_TP_ADD_TC(tp, zombie);
	ATF_TP_ADD_TC(tp, kernel_thread);
	ATF_TP_ADD_TC(tp, kernel_thread_long_name);
	ATF_TP_ADD_TC(tp, permission_denied);
	ATF_TP_ADD_TC(tp, several_pids_mixed);
	ATF_TP_ADD_TC(tp, several_pids_good);
	ATF_TP_ADD_TC(tp, bad_pid_first);
	ATF_TP_ADD_TC(tp, proc_path_arg);
	ATF_TP_ADD_TC(tp, pid_zero);
	ATF_TP_ADD_TC(tp, pid_out_of_range);
	return (atf_no_error());
}
