/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * soak_run: one run of pfiles at a soak target, bounded and judged
 * (make soak, soak/soak.sh).
 *
 *	soak_run -d DIR -p PID -s SOURCE [-l LABEL] [-n NOFILE]
 *	    [-b BOUND_MS] [-k KILL_MS] -- PROGRAM ARGS...
 *
 * Runs PROGRAM (pfiles, with its arguments) with stdin /dev/null, only
 * fds 0, 1 and 2, stdout and stderr into DIR/run.out and DIR/run.err, at
 * the soft RLIMIT_NOFILE NOFILE when given; ends it after KILL_MS (30000)
 * with SIGTERM, and SIGKILL 5 s later.  The run is written into the slot of PID in DIR's ctl
 * (its number, SOURCE, its CLOCK_MONOTONIC start and end), for the target
 * and the watchdog.  Prints one line:
 *
 *	run ID KIND SOURCE LABEL NOFILE STATUS MS VERDICT	(tabs between)
 *
 * VERDICT is "ok" or "FAIL: " and the reasons, "; " between them:
 *
 *  - ended at the hard bound; crashed (a signal); an exit status other
 *    than 0 and 1;
 *  - ran longer than BOUND_MS (10000);
 *  - a sanitizer's report on stderr (ASan, LSan, UBSan);
 *  - a false word: "no such process", "defunct" or "process exited" on
 *    stderr or stdout (-J puts errors there) while the target was alive
 *    before and after the run;
 *  - the target not alive after the run.
 *
 * A target is alive when one of its threads is neither a zombie nor dead
 * and, when it has a slot, its pid is still its own (the start time the
 * slot holds).  A target gone before the run is not run at: the line
 * says so, and it exits 3.  A failed run's output is kept as
 * DIR/fail-ID.out and fail-ID.err.  Exits 0 when ok, 1 when not, 2 on a
 * usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "soak_common.h"

#define	OUT_MAX		(64 << 20)	/* most of an output that is read */
#define	TERM_GRACE_MS	5000		/* from SIGTERM to SIGKILL */

typedef struct opts {
	const char	*o_dir, *o_source, *o_label;
	pid_t		o_pid;
	long		o_nofile, o_bound_ms, o_kill_ms;
	char		**o_argv;
} opts_t;

typedef struct result {
	int		r_status;
	int		r_killed;
	int64_t		r_ms;
	int		r_alive_before, r_alive_after;
	char		r_out[4096], r_err[4096];	/* their paths */
} result_t;

static soak_ctl_t *ctl;

static void
verdict_add(char *v, size_t vsz, const char *fmt, ...)
{
	size_t len = strlen(v);
	va_list ap;

	if (len + 3 >= vsz)
		return;
	if (len > 0) {
		(void) strcat(v, "; ");
		len += 2;
	}
	va_start(ap, fmt);
	(void) vsnprintf(v + len, vsz - len, fmt, ap);
	va_end(ap);
}

/* A whole file, NUL-ended (at most OUT_MAX); "" when unreadable. */
static char *
slurp(const char *path)
{
	char *buf = malloc(OUT_MAX + 1);
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (buf == NULL)
		abort();
	while (fd >= 0 && len < OUT_MAX &&
	    (n = read(fd, buf + len, OUT_MAX - len)) > 0)
		len += (size_t)n;
	if (fd >= 0)
		(void) close(fd);
	buf[len] = '\0';
	return (buf);
}

/* The line of text that holds at, printable, at most 160 bytes. */
static void
line_at(const char *text, const char *at, char *line, size_t size)
{
	const char *bol = at;
	size_t n = 0;

	while (bol > text && bol[-1] != '\n')
		bol--;
	for (; bol[n] != '\0' && bol[n] != '\n' && n < 160 && n + 1 < size;
	    n++)
		line[n] = bol[n] >= ' ' && bol[n] < 127 ? bol[n] : '?';
	line[n] = '\0';
}

/* The first of words in text: its line into line; 0 when none. */
static int
find_any(const char *text, const char *const words[], char *line,
    size_t size)
{
	for (int i = 0; words[i] != NULL; i++) {
		const char *at = strstr(text, words[i]);

		if (at != NULL) {
			line_at(text, at, line, size);
			return (1);
		}
	}
	return (0);
}

static void
judge_output(const result_t *r, char *v, size_t vsz)
{
	static const char *const sanitizers[] = { "AddressSanitizer",
	    "LeakSanitizer", "UndefinedBehaviorSanitizer", "runtime error:",
	    NULL };
	static const char *const false_words[] = { "no such process",
	    "defunct", "process exited", NULL };
	char *err = slurp(r->r_err), *out, line[200];

	if (find_any(err, sanitizers, line, sizeof (line)))
		verdict_add(v, vsz, "a sanitizer's report: %s", line);
	if (r->r_alive_before && r->r_alive_after) {
		out = slurp(r->r_out);
		if (find_any(err, false_words, line, sizeof (line)) ||
		    find_any(out, false_words, line, sizeof (line)))
			verdict_add(v, vsz, "a false word about a live "
			    "target: %s", line);
		free(out);
	}
	free(err);
}

static void
judge(const opts_t *o, const result_t *r, char *v, size_t vsz)
{
	int st = r->r_status;

	v[0] = '\0';
	if (!r->r_alive_before) {
		verdict_add(v, vsz, "the target was gone before the run (not "
		    "run)");
		return;
	}
	if (r->r_killed)
		verdict_add(v, vsz, "ended at its hard bound of %ld ms",
		    o->o_kill_ms);
	else if (WIFSIGNALED(st))
		verdict_add(v, vsz, "crashed: %s", strsignal(WTERMSIG(st)));
	else if (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 1)
		verdict_add(v, vsz, "exit status %d", WEXITSTATUS(st));
	if (r->r_ms > o->o_bound_ms)
		verdict_add(v, vsz, "ran %lld ms, over its bound of %ld ms",
		    (long long)r->r_ms, o->o_bound_ms);
	if (!r->r_alive_after)
		verdict_add(v, vsz, "the target died during the run");
	judge_output(r, v, vsz);
}

/* The child: its fds, its limit, then the program. */
static void __attribute__((__noreturn__))
child(const opts_t *o, const result_t *r)
{
	int in = open("/dev/null", O_RDONLY);
	int out = open(r->r_out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int err = open(r->r_err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	struct rlimit rl;

	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 ||
	    dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(126);
	(void) syscall(SYS_close_range, 3U, ~0U, 0U);
	if (o->o_nofile > 0 && getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = (rlim_t)o->o_nofile;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		(void) setrlimit(RLIMIT_NOFILE, &rl);
	}
	(void) execvp(o->o_argv[0], o->o_argv);
	(void) fprintf(stderr, "soak_run: %s: %s\n", o->o_argv[0],
	    strerror(errno));
	_exit(127);
}

/*
 * Wait for pid until deadline (CLOCK_MONOTONIC), then end it as a careful
 * user would: SIGTERM (pfiles lets a borrowed thread go before it dies),
 * and SIGKILL only TERM_GRACE_MS later.
 */
static void
wait_bounded(pid_t pid, int64_t deadline, result_t *r)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);

	for (;;) {
		int64_t left = (deadline - soak_now()) / 1000000;

		if (waitpid(pid, &r->r_status, WNOHANG) == pid)
			break;
		if (left <= 0 && r->r_killed) {
			(void) kill(pid, SIGKILL);
			(void) waitpid(pid, &r->r_status, 0);
			break;
		}
		if (left <= 0) {
			r->r_killed = 1;
			(void) kill(pid, SIGTERM);
			deadline = soak_now() + TERM_GRACE_MS * 1000000LL;
			continue;
		}
		if (pfd >= 0) {
			struct pollfd p = { pfd, POLLIN, 0 };

			(void) poll(&p, 1, left > 1000 ? 1000 : (int)left);
		} else {
			(void) usleep(1000);
		}
	}
	if (pfd >= 0)
		(void) close(pfd);
}

/* Does the target live (and is its pid still its own, by its slot)? */
static int
target_alive(const opts_t *o, const soak_slot_t *slot)
{
	return (slot != NULL ? soak_target_alive(slot) :
	    soak_alive(o->o_pid));
}

/*
 * The run: written into the target's slot (when it has one), judged.
 * None at a target already gone (r_alive_before 0).
 */
static uint64_t
run_once(const opts_t *o, soak_slot_t *slot, result_t *r)
{
	soak_run_t run;
	int64_t t0;
	pid_t pid;

	memset(&run, 0, sizeof (run));
	if (!(r->r_alive_before = target_alive(o, slot)))
		return (0);
	t0 = soak_now();
	if (slot != NULL) {
		run.r_id = __atomic_add_fetch(&ctl->c_next_run, 1,
		    __ATOMIC_SEQ_CST);
		(void) snprintf(run.r_source, sizeof (run.r_source), "%s",
		    o->o_source);
		run.r_start_ns = t0;
		soak_slot_write(slot, &run, 1);
	}
	if ((pid = fork()) < 0) {
		perror("soak_run: fork");
		exit(2);
	}
	if (pid == 0)
		child(o, r);
	wait_bounded(pid, t0 + o->o_kill_ms * 1000000LL, r);
	r->r_ms = (soak_now() - t0) / 1000000;
	if (slot != NULL) {
		run.r_end_ns = soak_now();
		soak_slot_write(slot, &run, 0);
	}
	r->r_alive_after = target_alive(o, slot);
	return (run.r_id);
}

static int
usage(void)
{
	(void) fprintf(stderr, "usage: soak_run -d DIR -p PID -s SOURCE "
	    "[-l LABEL] [-n NOFILE] [-b BOUND_MS] [-k KILL_MS] -- PROGRAM "
	    "ARGS...\n");
	return (2);
}

static int
parse(int argc, char **argv, opts_t *o)
{
	int c;

	memset(o, 0, sizeof (*o));
	o->o_label = "-";
	o->o_bound_ms = 10000;
	o->o_kill_ms = 30000;
	while ((c = getopt(argc, argv, "d:p:s:l:n:b:k:")) != -1) {
		if (c == 'd')
			o->o_dir = optarg;
		else if (c == 'p')
			o->o_pid = (pid_t)atoi(optarg);
		else if (c == 's')
			o->o_source = optarg;
		else if (c == 'l')
			o->o_label = optarg;
		else if (c == 'n')
			o->o_nofile = atol(optarg);
		else if (c == 'b')
			o->o_bound_ms = atol(optarg);
		else if (c == 'k')
			o->o_kill_ms = atol(optarg);
		else
			return (-1);
	}
	if (o->o_dir == NULL || o->o_pid <= 0 || o->o_source == NULL ||
	    optind >= argc)
		return (-1);
	o->o_argv = argv + optind;
	return (0);
}

/* Keep a failed run's output, under its number. */
static void
keep_output(const opts_t *o, const result_t *r, uint64_t id)
{
	char path[4096];

	(void) snprintf(path, sizeof (path), "%s/fail-%llu.out", o->o_dir,
	    (unsigned long long)id);
	(void) rename(r->r_out, path);
	(void) snprintf(path, sizeof (path), "%s/fail-%llu.err", o->o_dir,
	    (unsigned long long)id);
	(void) rename(r->r_err, path);
}

int
main(int argc, char **argv)
{
	static result_t r;
	soak_slot_t *slot = NULL, copy;
	char verdict[2048], status[32];
	const char *kind = "-";
	uint64_t id;
	opts_t o;
	int n;

	if (parse(argc, argv, &o) != 0)
		return (usage());
	if ((ctl = soak_map_ctl(o.o_dir)) == NULL) {
		(void) fprintf(stderr, "soak_run: %s/ctl: %s\n", o.o_dir,
		    strerror(errno));
		return (2);
	}
	if ((n = soak_slot_of(ctl, o.o_pid)) >= 0) {
		slot = &ctl->c_slot[n];
		soak_slot_read(slot, &copy);
		kind = copy.s_kind;
	}
	(void) snprintf(r.r_out, sizeof (r.r_out), "%s/run.out", o.o_dir);
	(void) snprintf(r.r_err, sizeof (r.r_err), "%s/run.err", o.o_dir);
	id = run_once(&o, slot, &r);
	judge(&o, &r, verdict, sizeof (verdict));
	if (r.r_killed)
		(void) snprintf(status, sizeof (status), "killed");
	else if (WIFSIGNALED(r.r_status))
		(void) snprintf(status, sizeof (status), "signal%d",
		    WTERMSIG(r.r_status));
	else
		(void) snprintf(status, sizeof (status), "exit%d",
		    WEXITSTATUS(r.r_status));
	(void) printf("run\t%llu\t%s\t%s\t%s\t%ld\t%s\t%lld\t%s%s\n",
	    (unsigned long long)id, kind, o.o_source, o.o_label, o.o_nofile,
	    status, (long long)r.r_ms, verdict[0] != '\0' ? "FAIL: " : "ok",
	    verdict);
	if (!r.r_alive_before)
		return (3);
	if (verdict[0] != '\0')
		keep_output(&o, &r, id);
	return (verdict[0] != '\0');
}
