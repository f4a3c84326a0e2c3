/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cli_util.c: the helpers t_pfiles_cli and t_pfiles_pids share
 * (cli_util.h).
 */
#include "cli_util.h"

const char *const sleep_argv[] = { "sleep", SLEEP_SECONDS, NULL };

void
usleep_step(void)
{
	(void) usleep(WAIT_STEP_US);
}

/* Does a line of /proc/PID/syscall name call nr? */
static int
starts_with_nr(const char *line, long nr)
{
	char want[32];
	int n = snprintf(want, sizeof (want), "%ld ", nr);

	return (strncmp(line, want, (size_t)n) == 0);
}

int
is_sleeping(pid_t pid)
{
	char path[64], buf[64];
	ssize_t n;
	int fd;

	if (tu_proc_state(pid) != 'S')
		return (0);
	(void) snprintf(path, sizeof (path), "/proc/%d/syscall", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (1);	/* no such file here: the state must do */
	n = read(fd, buf, sizeof (buf) - 1);
	(void) close(fd);
	if (n <= 0)
		return (0);
	buf[n] = '\0';
	return (starts_with_nr(buf, SYS_clock_nanosleep) ||
	    starts_with_nr(buf, SYS_nanosleep));
}

void
sleeper_start(sleeper_t *sl, const char *const argv[], rlim_t soft)
{
	struct rlimit mine;
	int tries = 0;

	sl->sl_argv = argv != NULL ? argv : sleep_argv;
	if (getrlimit(RLIMIT_NOFILE, &mine) != 0)
		atf_tc_fail("getrlimit: %s", strerror(errno));
	sl->sl_nofile = mine;
	if (soft != 0) {
		sl->sl_nofile.rlim_cur = soft;
		if (setrlimit(RLIMIT_NOFILE, &sl->sl_nofile) != 0)
			atf_tc_fail("setrlimit NOFILE %llu: %s",
			    (unsigned long long)soft, strerror(errno));
	}
	tu_spawn(&sl->sl_child, sl->sl_argv, TU_STDERR_NULL);
	if (soft != 0 && setrlimit(RLIMIT_NOFILE, &mine) != 0)
		atf_tc_fail("setrlimit back: %s", strerror(errno));
	(void) snprintf(sl->sl_pid, sizeof (sl->sl_pid), "%d",
	    (int)sl->sl_child.tc_pid);
	while (!is_sleeping(sl->sl_child.tc_pid)) {
		if (++tries > TU_TIMEOUT_MS * 1000 / WAIT_STEP_US)
			atf_tc_fail("sleep (pid %s) never went to sleep",
			    sl->sl_pid);
		usleep_step();
	}
}

void
sleeper_stop(sleeper_t *sl)
{
	/* sleep does not read its stdin: it is killed at once. */
	(void) tu_stop(&sl->sl_child, 0);
}

char *
joined_argv(const char *const argv[])
{
	char *cmd = tu_asprintf("%s", argv[0]);

	for (int i = 1; argv[i] != NULL; i++) {
		char *longer = tu_asprintf("%s %s", cmd, argv[i]);

		free(cmd);
		cmd = longer;
	}
	return (cmd);
}

char *
rlimit_text(rlim_t soft)
{
	if (soft == RLIM_INFINITY)
		return (tu_asprintf("unlimited"));
	return (tu_asprintf("%llu", (unsigned long long)soft));
}

char *
sleeper_header(const sleeper_t *sl)
{
	char *cmd = joined_argv(sl->sl_argv);
	char *lim = rlimit_text(sl->sl_nofile.rlim_cur);
	char *hdr = tu_asprintf("%s:\t%.70s\n  Current rlimit: %s file "
	    "descriptors\n", sl->sl_pid, cmd, lim);

	free(cmd);
	free(lim);
	return (hdr);
}

const char *
type_word(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:	return ("S_IFREG");
	case S_IFDIR:	return ("S_IFDIR");
	case S_IFCHR:	return ("S_IFCHR");
	case S_IFBLK:	return ("S_IFBLK");
	case S_IFIFO:	return ("S_IFIFO");
	case S_IFLNK:	return ("S_IFLNK");
	case S_IFSOCK:	return ("S_IFSOCK");
	}
	atf_tc_fail("unexpected file type 0%o", (unsigned)(mode & S_IFMT));
	return (NULL);
}

char *
stat_line(int fd, const struct stat *st)
{
	char *head = tu_asprintf("%4d: %s mode:0%.3o dev:%u,%u ino:%llu "
	    "uid:%u gid:%u ", fd, type_word(st->st_mode),
	    (unsigned)(st->st_mode & 07777), major(st->st_dev),
	    minor(st->st_dev), (unsigned long long)st->st_ino,
	    (unsigned)st->st_uid, (unsigned)st->st_gid);
	char *line;

	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ||
	    S_ISSOCK(st->st_mode))
		line = tu_asprintf("%srdev:%u,%u\n", head,
		    major(st->st_rdev), minor(st->st_rdev));
	else
		line = tu_asprintf("%ssize:%lld\n", head,
		    (long long)st->st_size);
	free(head);
	return (line);
}

char *
sleeper_n_block(const sleeper_t *sl)
{
	struct stat st[3];
	char *text = sleeper_header(sl);

	if (fstat(sl->sl_child.tc_in, &st[0]) != 0 ||
	    fstat(sl->sl_child.tc_out, &st[1]) != 0 ||
	    stat("/dev/null", &st[2]) != 0)
		atf_tc_fail("stat: %s", strerror(errno));
	for (int fd = 0; fd < 3; fd++) {
		char *line = stat_line(fd, &st[fd]);
		char *longer = tu_asprintf("%s%s", text, line);

		free(line);
		free(text);
		text = longer;
	}
	return (text);
}

void
expect_pfiles(const char *const args[], int code, const char *out,
    const char *err)
{
	tu_result_t r;

	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	tu_require_exit("pfiles", &r, code);
	tu_require_same_text("stderr", err, strlen(err), r.tr_err,
	    r.tr_errlen);
	tu_require_same_text("stdout", out, strlen(out), r.tr_out,
	    r.tr_outlen);
	tu_result_free(&r);
}
