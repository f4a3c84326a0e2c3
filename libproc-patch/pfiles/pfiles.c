/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pfiles(1): report the open files of processes.
 *
 *	pfiles [-J] [-n] [--no-endpoints] [--via=auto|pidfd|agent|diag|bpf] pid ...
 *	pfiles [-J] [-n] [--no-endpoints] [--via=...] --all
 *	pfiles -h | --help | -V | --version
 *
 * The output contract is pfiles.1.  pfiles never stops its target for
 * long, never writes to it, and never kills it: socket facts come, with
 * --via=auto, from the BPF iterator for a process of 500 fds or more
 * where it may be loaded (every fact in one kernel pass), else from
 * pidfd_getfd(2) where it works (the target is neither stopped nor read),
 * else from the agent, else from the kernel's socket tables (libproc's
 * sources/registry.c chooses).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <sys/stat.h>

#include "libproc.h"
#include "core/procfs_parse.h"
#include "pf_comm.h"
#include "pfiles_fmt.h"
#include "pfiles_json.h"
#include "pf_opts.h"

#define	STDOUT_BUFSZ	(64 * 1024)

#define	NOTES_MAX	8	/* of one process, in JSON too */
#define	NOTE_MAX	512

static const char *command = "pfiles";
static ps_share_t *share;	/* what the run's handles learn once */
static int fastpath_said;	/* why bpf is not used: said once a run */
static pfj_t *json;		/* -J: the document being written */
static int out_errno;		/* the output failed: why (EPIPE: not read) */

/*
 * Has the output failed?  Then the walk stops at once (a reader that has
 * gone reads no more), and no other process is examined.
 */
static int
out_failed(void)
{
	struct pollfd pfd = { .fd = STDOUT_FILENO };

	if (out_errno != 0 || !ferror(stdout))
		return (out_errno != 0);
	out_errno = errno != 0 ? errno : EIO;
	/* errno may be a later call's: a pipe without a reader is POLLERR. */
	if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR))
		out_errno = EPIPE;
	return (1);
}

/* One process being shown. */
typedef struct shown {
	pf_ctx_t	sh_ctx;
	const psinfo_t	*sh_psinfo;
	struct rlimit	sh_rl;
	int		sh_have_rl;
	int		sh_header;	/* printed */
	uint_t		sh_nsock;	/* sockets shown */
	uint_t		sh_npatherr;	/* fds whose path could not be read */
	uint_t		sh_nchanged;	/* fds that never held still */
	char		sh_via[256];	/* auto fell back to diag: why */
	char		sh_notes[NOTES_MAX][NOTE_MAX];	/* for -J */
	int		sh_nnotes;
	char		sh_patherr[64];	/* the first reason */
	const char	*sh_epwhy;	/* endpoint lines incomplete: why */
} shown_t;

#define	ARGS_MAX	(64 * 1024)	/* of a command line, in JSON */

/*
 * -J: the header's facts, with the whole command line (the text's is cut
 * to 70 bytes, psinfo's to 79): /proc/PID/cmdline, up to ARGS_MAX bytes,
 * by psinfo's rule (procfs_cmdline_to_args).
 */
static void
json_header(shown_t *sh)
{
	static char args[ARGS_MAX + 1];
	char path[32];
	ssize_t n = -1;
	int fd;

	(void) snprintf(path, sizeof (path), "/proc/%d/cmdline",
	    (int)sh->sh_psinfo->pr_pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		size_t got = 0;

		while (got < ARGS_MAX && (n = read(fd, args + got,
		    ARGS_MAX - got)) > 0)
			got += (size_t)n;
		(void) close(fd);
		n = n < 0 ? -1 : (ssize_t)procfs_cmdline_to_args(args, got,
		    args, sizeof (args));
	}
	/* Unreadable (gone), or empty (a zombie, a kernel thread): psinfo's. */
	pfj_proc_begin(json, sh->sh_psinfo, sh->sh_have_rl ? &sh->sh_rl : NULL,
	    n > 0 ? args : NULL, n > 0 ? (size_t)n : 0);
}

/*
 * The header goes out with the first fd (or at the end of a walk of a
 * process with none), so that a process that cannot be examined at all
 * prints nothing on stdout.
 */
static void
show_header(shown_t *sh)
{
	if (sh->sh_header)
		return;
	sh->sh_header = 1;
	if (json != NULL)
		json_header(sh);
	else
		pf_header(stdout, sh->sh_psinfo, sh->sh_have_rl ?
		    &sh->sh_rl : NULL);
}

static int
show_file(void *arg, const prfdinfo_t *info)
{
	shown_t *sh = arg;
	const char *why;
	pf_items_t ix;
	size_t len;

	show_header(sh);
	if (S_ISSOCK(info->pr_mode))
		sh->sh_nsock++;
	pf_items(info, &ix);
	if ((why = pf_item(&ix, PR_PATHERR, &len)) != NULL &&
	    sh->sh_npatherr++ == 0)
		(void) snprintf(sh->sh_patherr, sizeof (sh->sh_patherr),
		    "%.*s", (int)len, why);
	if (pf_item(&ix, PR_CHANGED, NULL) != NULL) {
		/* Only its stat line is sure. */
		pf_ctx_t stat_only = sh->sh_ctx;

		sh->sh_nchanged++;
		if (json != NULL)
			return (pfj_file(json, &sh->sh_ctx, &ix));
		stat_only.pf_statonly = 1;
		return (pf_file_items(&stat_only, &ix));
	}
	if (json != NULL)
		return (pfj_file(json, &sh->sh_ctx, &ix) != 0 || out_failed());
	return (pf_file_items(&sh->sh_ctx, &ix) != 0 || out_failed());
}

/* Is err pfiles' own want of fds (never the target's doing)? */
static int
short_of_fds(int err)
{
	return (err == EMFILE || err == ENFILE);
}

/*
 * What ran out, for EMFILE or ENFILE: pfiles' own RLIMIT_NOFILE, or the
 * system's table of open files.
 */
static const char *
fds_reason(int err)
{
	static char text[80];
	struct rlimit rl;

	if (err == ENFILE)
		return ("the system is out of file descriptors (ENFILE)");
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return ("pfiles is short of file descriptors");
	(void) snprintf(text, sizeof (text), "pfiles is short of file "
	    "descriptors (RLIMIT_NOFILE %llu)",
	    (unsigned long long)rl.rlim_cur);
	return (text);
}

/*
 * The reasons pfiles gives for an errno, lower case as the contract's;
 * Pgrab_error() has those of a grab.  Anything else: strerror's text,
 * its first letter lowered.
 */
static const char *
reason(int err)
{
	static const struct {
		int		r_err;
		const char	*r_text;
	} reasons[] = {
		{ ESRCH, "process exited during examination" },
		{ EACCES, "permission denied" },
		{ EPERM, "permission denied" },
		{ ENOMEM, "out of memory" },
		{ ENAMETOOLONG, "file name too long" },
	};
	static char other[128];

	if (short_of_fds(err))
		return (fds_reason(err));
	for (size_t i = 0; i < sizeof (reasons) / sizeof (reasons[0]); i++) {
		if (reasons[i].r_err == err)
			return (reasons[i].r_text);
	}
	(void) snprintf(other, sizeof (other), "%s", strerror(err));
	if (other[0] >= 'A' && other[0] <= 'Z')
		other[0] = (char)(other[0] - 'A' + 'a');
	return (other);
}

/* A pid that cannot be examined: said on stderr, and with -J in JSON. */
static void
complain(const char *arg, const char *reason)
{
	(void) fflush(stdout);
	(void) fprintf(stderr, "%s: cannot examine %s: %s\n", command, arg,
	    reason);
	if (json != NULL)
		pfj_error(json, arg, reason);
}

/* "1234" or "/proc/1234": the pid, or -1. */
static pid_t
parse_pid(const char *arg)
{
	const char *p = arg;
	long v = 0;

	if (strncmp(p, "/proc/", 6) == 0)
		p += 6;
	if (*p == '\0')
		return (-1);
	for (; *p != '\0'; p++) {
		if (*p < '0' || *p > '9' ||
		    v > (INT_MAX - (*p - '0')) / 10)
			return (-1);
		v = v * 10 + (*p - '0');
	}
	return (v > 0 ? (pid_t)v : -1);
}

/*
 * "/proc/NAME" with NAME not a number: an entry of Linux's /proc that
 * was never a process (sys, zoneinfo; self and thread-self, pfiles
 * itself), met where every entry of /proc is named (a shell glob), and
 * passed over without a word as on illumos.  A path below /proc (a slash
 * after NAME) is not an entry.
 */
static int
proc_nonprocess(const char *arg)
{
	const char *name;

	if (strncmp(arg, "/proc/", 6) != 0)
		return (0);
	name = arg + 6;
	return (strchr(name, '/') == NULL &&
	    name[strspn(name, "0123456789")] != '\0');
}

/* A kernel thread: its name and "[system process]". */
static int
show_sysproc(const char *arg, pid_t pid)
{
	psinfo_t ps;

	if (proc_get_psinfo(pid, &ps) != 0) {
		complain(arg, "no such process");
		return (1);
	}
	if (json != NULL)
		pfj_sysproc(json, &ps);
	else
		pf_sysproc(stdout, &ps);
	return (0);
}

/*
 * One thing that could not be found out about the pid: on stderr, and
 * with -J kept for the process's "notes".
 */
static void note(const char *, shown_t *, const char *, ...)
    __attribute__((__format__(__printf__, 3, 4)));

static void
note(const char *arg, shown_t *sh, const char *fmt, ...)
{
	char text[NOTE_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(text, sizeof (text), fmt, ap);
	va_end(ap);
	(void) fprintf(stderr, "%s: %s: %s\n", command, arg, text);
	if (sh->sh_nnotes < NOTES_MAX)
		(void) memcpy(sh->sh_notes[sh->sh_nnotes++], text,
		    sizeof (text));
}

/* Say what could not be found out about this pid, once. */
static void
report_gaps(const char *arg, shown_t *sh)
{
	const pf_ctx_t *ctx = &sh->sh_ctx;
	char list[NOTE_MAX];
	FILE *f;

	if (ctx->pf_nsockerr == 0 && ctx->pf_nlockdrop == 0 &&
	    sh->sh_npatherr == 0 && sh->sh_nchanged == 0 &&
	    ctx->pf_ngapsets == 0 &&
	    sh->sh_via[0] == '\0' && sh->sh_epwhy == NULL)
		return;
	(void) fflush(stdout);
	if (sh->sh_via[0] != '\0')
		note(arg, sh, "socket facts from diag (%s)", sh->sh_via);
	if (sh->sh_nchanged > 0)
		note(arg, sh, "%u fd%s changed all the while %s examined: "
		    "only %s stat line%s shown", sh->sh_nchanged,
		    sh->sh_nchanged == 1 ? "" : "s",
		    sh->sh_nchanged == 1 ? "it was" : "they were",
		    sh->sh_nchanged == 1 ? "its" : "their",
		    sh->sh_nchanged == 1 ? " is" : "s are");
	if (sh->sh_npatherr > 0)
		note(arg, sh, "path of %u fd%s unavailable: %s",
		    sh->sh_npatherr, sh->sh_npatherr == 1 ? "" : "s",
		    sh->sh_patherr);
	if (ctx->pf_nsockerr > 0)
		note(arg, sh, "details of %u socket%s unavailable: %s",
		    ctx->pf_nsockerr, ctx->pf_nsockerr == 1 ? "" : "s",
		    ctx->pf_sockerr);
	if (ctx->pf_nlockdrop > 0)
		note(arg, sh, "%u fd%s hold more locks than are shown",
		    ctx->pf_nlockdrop, ctx->pf_nlockdrop == 1 ? "" : "s");
	if (sh->sh_epwhy != NULL)
		note(arg, sh, "endpoint lines incomplete: %s", sh->sh_epwhy);
	/* One line per reason, each with the facts it kept from view. */
	for (uint_t i = 0; i < ctx->pf_ngapsets; i++) {
		const pf_gapset_t *gs = &ctx->pf_gapsets[i];

		if ((f = fmemopen(list, sizeof (list), "w")) == NULL)
			break;
		(void) pf_gaps(f, gs);
		(void) fputc('\0', f);
		(void) fclose(f);
		list[sizeof (list) - 1] = '\0';
		if (list[0] != '\0')
			note(arg, sh, "not shown: %s (%s)", list, gs->pg_why);
	}
}

/*
 * A process grabbed (ahead of its turn, with many pids): the handle or
 * why not, and the limit its header shows.
 */
typedef struct grabbed {
	pid_t		gr_pid;		/* -1: not a process id */
	struct ps_prochandle *gr_P;
	int		gr_gerr;
	struct rlimit	gr_rl;
	int		gr_have_rl;
} grabbed_t;

static void
grab(const char *arg, grabbed_t *g)
{
	memset(g, 0, sizeof (*g));
	if ((g->gr_pid = parse_pid(arg)) < 0)
		return;
	if ((g->gr_P = Pgrab(g->gr_pid, PGRAB_RETAIN | PGRAB_FORCE |
	    PGRAB_NOSTOP, &g->gr_gerr)) != NULL)
		g->gr_have_rl = Plimit(g->gr_P, RLIMIT_NOFILE, &g->gr_rl) == 0;
}

/*
 * With many pids, the next ones are grabbed on a thread of their own
 * while one is walked and shown: a grab is a dozen small reads of /proc
 * that wait on nothing of the walk's, and with two CPUs the two overlap.
 * At most GA_AHEAD handles are held ahead (their fds: a few each).  The
 * output is not touched: each process is still shown in its turn.
 */
#define	GA_AHEAD	4
/*
 * The handles held ahead cost fds (a pidfd and two directories each):
 * not where RLIMIT_NOFILE is low, where the walk needs every fd it has,
 * and which grab got EMFILE would change from run to run.
 */
#define	GA_MIN_NOFILE	128

static struct {
	pthread_mutex_t	ga_lock;
	pthread_cond_t	ga_cond;
	pthread_t	ga_thread;
	int		ga_on;
	char		**ga_argv;
	int		ga_end;		/* argv's end */
	int		ga_grabbed;	/* the next to grab */
	int		ga_taken;	/* the next to take */
	int		ga_stop;
	grabbed_t	ga_slot[GA_AHEAD];
} ga = { .ga_lock = PTHREAD_MUTEX_INITIALIZER,
    .ga_cond = PTHREAD_COND_INITIALIZER };

static void *
grab_ahead(void *arg)
{
	(void) arg;
	(void) pthread_mutex_lock(&ga.ga_lock);
	while (!ga.ga_stop && ga.ga_grabbed < ga.ga_end) {
		int i = ga.ga_grabbed;
		grabbed_t g;

		if (i - ga.ga_taken >= GA_AHEAD) {
			(void) pthread_cond_wait(&ga.ga_cond, &ga.ga_lock);
			continue;
		}
		(void) pthread_mutex_unlock(&ga.ga_lock);
		grab(ga.ga_argv[i], &g);
		(void) pthread_mutex_lock(&ga.ga_lock);
		ga.ga_slot[i % GA_AHEAD] = g;
		ga.ga_grabbed = i + 1;
		(void) pthread_cond_broadcast(&ga.ga_cond);
	}
	(void) pthread_mutex_unlock(&ga.ga_lock);
	return (NULL);
}

static void
ahead_start(char **argv, int first, int end)
{
	sigset_t all, old;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < GA_MIN_NOFILE)
		return;
	ga.ga_argv = argv;
	ga.ga_grabbed = ga.ga_taken = first;
	ga.ga_end = end;
	(void) sigfillset(&all);
	(void) pthread_sigmask(SIG_SETMASK, &all, &old);
	ga.ga_on = pthread_create(&ga.ga_thread, NULL, grab_ahead, NULL) == 0;
	(void) pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Argument i's grab: the thread's, or made here. */
static void
take(char **argv, int i, grabbed_t *g)
{
	if (!ga.ga_on) {
		grab(argv[i], g);
		return;
	}
	(void) pthread_mutex_lock(&ga.ga_lock);
	while (ga.ga_grabbed <= i)
		(void) pthread_cond_wait(&ga.ga_cond, &ga.ga_lock);
	*g = ga.ga_slot[i % GA_AHEAD];
	ga.ga_taken = i + 1;
	(void) pthread_cond_broadcast(&ga.ga_cond);
	(void) pthread_mutex_unlock(&ga.ga_lock);
}

/* The thread stopped, and the handles it grabbed for nobody let go. */
static void
ahead_end(void)
{
	if (!ga.ga_on)
		return;
	(void) pthread_mutex_lock(&ga.ga_lock);
	ga.ga_stop = 1;
	(void) pthread_cond_broadcast(&ga.ga_cond);
	(void) pthread_mutex_unlock(&ga.ga_lock);
	(void) pthread_join(ga.ga_thread, NULL);
	for (int i = ga.ga_taken; i < ga.ga_grabbed; i++)
		Prelease(ga.ga_slot[i % GA_AHEAD].gr_P, 0);
	ga.ga_on = 0;
}

/* A pid that was not grabbed: a kernel thread's name, or why not. */
static int
not_grabbed(const char *arg, pid_t pid, int gerr, const pf_args_t *a)
{
	if (pid < 0) {
		if (proc_nonprocess(arg))
			return (0);
		complain(arg, "not a process id");
		return (1);
	}
	if (gerr == G_SYS)
		return (show_sysproc(arg, pid));
	if (gerr == G_NOPROC && a->pa_all)
		return (0);	/* gone since --all read /proc */
	complain(arg, gerr == G_NOFD ? fds_reason(EMFILE) : Pgrab_error(gerr));
	return (1);
}

static int
is_socket(void *arg, const prfdinfo_t *info)
{
	(void) arg;
	return (S_ISSOCK(info->pr_mode));
}

/*
 * Has the process a socket?  A walk of its stat lines only, which opens
 * nothing of the target's and asks no source; yes when it cannot tell.
 */
static int
has_socket(struct ps_prochandle *P)
{
	return (Pfdinfo_iter_flags(P, PFDI_STATONLY, is_socket, NULL) != 0);
}

/*
 * The source of socket facts: 0 when the process is to be walked, else 1
 * once said why it cannot be examined, or -1 for one gone before any
 * output with --all (none of the machine's now).  A forced source that
 * cannot serve is an error, before any output; but a process without a
 * socket needs no source, and nothing is refused for it (a socket it
 * makes meanwhile is said to lack its details, with the source's reason).
 */
static int
choose_source(const char *arg, struct ps_prochandle *P, const pf_args_t *a)
{
	psocksrc_t via = a->pa_via;
	char why[NOTE_MAX];
	int err;

	if (Psetsocksrc(P, via) == 0 ||
	    ((err = errno) != ESRCH && via == PSOCK_AUTO))
		return (0);
	if (err == ESRCH && a->pa_all)
		return (-1);
	(void) snprintf(why, sizeof (why), "%s", err == ESRCH ?
	    "no such process" : short_of_fds(err) ? fds_reason(err) :
	    Perrmsg(P));
	if (err != ESRCH && !has_socket(P))
		return (0);
	complain(arg, why);
	return (1);
}

/*
 * auto tried bpf, the fast path, and it was refused (a kernel before
 * 6.1, no privilege, its check failed): said once a run, of a process
 * with a socket (one without needs no source).
 */
static void
say_fastpath(const char *arg, struct ps_prochandle *P)
{
	if (fastpath_said || Psocksrc_why(P, PSOCK_BPF) == NULL ||
	    !has_socket(P))
		return;
	fastpath_said = 1;
	(void) fflush(stdout);
	(void) fprintf(stderr, "%s: %s: the fast path (bpf) is not "
	    "available: %s\n", command, arg, Psocksrc_why(P, PSOCK_BPF));
}

static int
show_process(const char *arg, const grabbed_t *g, const pf_args_t *a,
    pf_comm_cache_t *cc)
{
	struct ps_prochandle *P = g->gr_P;
	shown_t sh;
	pid_t pid = g->gr_pid;
	psocksrc_t via = a->pa_via;
	int statonly = a->pa_statonly, gerr = g->gr_gerr, rv, err;

	if (pid < 0 || P == NULL)
		return (not_grabbed(arg, pid, gerr, a));
	(void) Pshare(P, share);

	if (!statonly && (rv = choose_source(arg, P, a)) != 0) {
		Prelease(P, 0);
		return (rv > 0);
	}

	if (!statonly && via == PSOCK_AUTO)
		say_fastpath(arg, P);

	memset(&sh, 0, sizeof (sh));
	/* auto had to fall back on the source that knows the least. */
	if (!statonly && via == PSOCK_AUTO && Psocksrc(P) == PSOCK_DIAG)
		(void) snprintf(sh.sh_via, sizeof (sh.sh_via), "%s",
		    Perrmsg(P));
	sh.sh_ctx.pf_out = stdout;
	sh.sh_ctx.pf_statonly = statonly;
	sh.sh_ctx.pf_comm = pf_comm_of;
	sh.sh_ctx.pf_comm_arg = cc;
	sh.sh_psinfo = Ppsinfo(P);
	sh.sh_rl = g->gr_rl;
	sh.sh_have_rl = g->gr_have_rl;

	rv = Pfdinfo_iter_flags(P, (statonly ? PFDI_STATONLY : 0) |
	    (a->pa_noendpoints ? PFDI_NOENDPOINTS : 0), show_file, &sh);
	err = errno;
	sh.sh_epwhy = Pendpoints_why(P);
	if (out_failed()) {
		/* Let it go as it was; main() says why, or ends as a filter. */
		Prelease(P, 0);
		return (1);
	}
	if (rv == 0)
		show_header(&sh);
	if (sh.sh_nsock == 0)
		sh.sh_via[0] = '\0';	/* no socket needed a source */
	/* Out of fds, nothing is shown: what was missed before is moot. */
	if (rv == 0 || !short_of_fds(err))
		report_gaps(arg, &sh);
	if (json != NULL && sh.sh_header) {
		/* The process's object is open: the error goes in it. */
		const char *notes[NOTES_MAX];

		for (int i = 0; i < sh.sh_nnotes; i++)
			notes[i] = sh.sh_notes[i];
		if (rv != 0) {
			(void) fflush(stdout);
			(void) fprintf(stderr, "%s: cannot examine %s: %s\n",
			    command, arg, reason(err));
		}
		pfj_proc_end(json, notes, sh.sh_nnotes, rv != 0 ?
		    reason(err) : NULL);
	} else if (rv != 0) {
		complain(arg, reason(err));
	}
	Prelease(P, 0);
	return (rv != 0);
}

/*
 * More than one pid: the run's handles share what is the machine's (who
 * holds each socket, the socket tables, the bpf source's one pass), made
 * once and in the order the pids will be walked.  With --via=bpf, one pid
 * too: the one pass gives the holders of its sockets' other ends, where
 * otherwise every fd table of the machine would be read.  Without memory
 * for it, each process is examined on its own.
 */
static void
share_run(int argc, char **argv, const pf_args_t *a)
{
	pid_t *pids;
	size_t n = 0;

	if ((argc - a->pa_first < 2 && a->pa_via != PSOCK_BPF) ||
	    a->pa_statonly ||
	    (pids = malloc((size_t)argc * sizeof (*pids))) == NULL)
		return;
	for (int i = a->pa_first; i < argc; i++) {
		if ((pids[n] = parse_pid(argv[i])) > 0)
			n++;
	}
	if ((share = Pshare_create()) != NULL &&
	    Pshare_pids(share, pids, n) != 0) {
		Pshare_destroy(share);
		share = NULL;
	}
	free(pids);
}

static int
by_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return ((x > y) - (x < y));
}

/* --all cannot list the processes: why, and exit 1. */
static _Noreturn void
cannot_list(int err)
{
	(void) fprintf(stderr, "%s: /proc: %s\n", command, strerror(err));
	exit(1);
}

#define	PID_TEXT	16	/* "2147483647" and its NUL, with room */

/*
 * --all: every process of /proc but pfiles itself, in increasing pid
 * order, as the operands they would be ("PID"), in *argvp; their count.
 */
static int
every_process(char ***argvp)
{
	size_t n = 0, max = 1024;
	pid_t *pids = malloc(max * sizeof (*pids)), me = getpid(), *more;
	struct dirent *de;
	char **v, *text;
	DIR *d;

	if (pids == NULL)
		cannot_list(ENOMEM);
	if ((d = opendir("/proc")) == NULL)
		cannot_list(errno);
	while ((de = readdir(d)) != NULL) {
		pid_t pid = parse_pid(de->d_name);

		if (pid <= 0 || pid == me)
			continue;
		if (n == max) {
			if ((more = realloc(pids, 2 * max *
			    sizeof (*pids))) == NULL)
				cannot_list(ENOMEM);
			pids = more;
			max *= 2;
		}
		pids[n++] = pid;
	}
	(void) closedir(d);
	qsort(pids, n, sizeof (*pids), by_pid);
	if ((v = calloc(n + 1, sizeof (*v))) == NULL ||
	    (text = malloc((n + 1) * PID_TEXT)) == NULL)
		cannot_list(ENOMEM);
	for (size_t k = 0; k < n; k++) {
		v[k] = text + k * PID_TEXT;
		(void) snprintf(v[k], PID_TEXT, "%d", (int)pids[k]);
	}
	free(pids);
	*argvp = v;
	return ((int)n);
}

int
main(int argc, char **argv)
{
	static pf_comm_cache_t cc;
	static pfj_t doc;
	pf_args_t args;
	int rc = 0;

	pf_opts_parse(argc, argv, &args);
	if (args.pa_json)
		json = &doc;
	if (args.pa_all) {
		argc = every_process(&argv);
		args.pa_first = 0;
	}

	/*
	 * A reader that stops reading (pfiles PID | head) must not kill
	 * pfiles in the middle of a walk, with a thread of the target
	 * borrowed: the write fails instead (EPIPE), the walk stops, the
	 * process is let go as it was, and only then does pfiles end as a
	 * filter does, by SIGPIPE, with nothing said.
	 */
	(void) signal(SIGPIPE, SIG_IGN);
	(void) setvbuf(stdout, NULL, _IOFBF, STDOUT_BUFSZ);
	if (json != NULL)
		pfj_begin(json, stdout);
	share_run(argc, argv, &args);
	if (share != NULL && argc - args.pa_first > 1)
		ahead_start(argv, args.pa_first, argc);
	for (int i = args.pa_first; i < argc && !out_failed(); i++) {
		grabbed_t g;

		take(argv, i, &g);
		rc |= show_process(argv[i], &g, &args, &cc);
	}
	ahead_end();
	if (json != NULL && !out_failed())
		pfj_end(json);
	Pshare_destroy(share);

	errno = 0;
	if ((fflush(stdout) != 0 || out_failed()) && out_errno == 0)
		out_errno = errno != 0 ? errno : EIO;
	if (out_errno == EPIPE) {
		sigset_t pipe;

		(void) sigemptyset(&pipe);
		(void) sigaddset(&pipe, SIGPIPE);
		(void) signal(SIGPIPE, SIG_DFL);
		(void) sigprocmask(SIG_UNBLOCK, &pipe, NULL);
		(void) raise(SIGPIPE);
	}
	if (out_errno != 0) {
		(void) fprintf(stderr, "%s: write error: %s\n", command,
		    strerror(out_errno));
		return (1);
	}
	return (rc);
}
