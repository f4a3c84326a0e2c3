/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * testutil.h: small helpers shared by the ATF test programs.
 *
 * Every helper that can fail in a way a test cannot sensibly handle
 * (fork, pipe, a timeout, out of memory) fails the running test case
 * itself with atf_tc_fail(), naming what went wrong; the functions below
 * say so where they do.  atf_tc_fail() ends the process through exit(),
 * and an atexit() handler installed by the first tu_spawn() kills (SIGKILL)
 * and reaps every child that was spawned and not yet stopped, so a failing
 * test never leaves a fixture behind.  Children also get
 * PR_SET_PDEATHSIG(SIGKILL) in case the test program itself is killed.
 *
 * Every wait is bounded: timeouts are in milliseconds, multiplied by
 * TU_TIME_SCALE from the environment when it is set (a whole number:
 * make check-kernels sets it under qemu without KVM, where everything is
 * several times slower).
 */
#ifndef	_TESTUTIL_H
#define	_TESTUTIL_H

#include <stddef.h>
#include <sys/types.h>

#include <atf-c.h>
#include <sys/resource.h>

#ifndef	BUILD_DIR
#error	"BUILD_DIR must be defined (the absolute build directory)"
#endif
#ifndef	SRC_DIR
#error	"SRC_DIR must be defined (the absolute top of the source tree)"
#endif

/* The programs and fixtures under test. */
#define	TU_PFILES	BUILD_DIR "/pfiles"
#define	TU_SOCKFIX	BUILD_DIR "/sockfix"
#define	TU_SOCKETS_JS	SRC_DIR "/fixtures/sockets.js"

/* A default bound for waits, generous for a loaded 2-core machine. */
#define	TU_TIMEOUT_MS	30000

/*
 * How long a fixture lives by its own clock, in seconds (sockfix -t,
 * sockets.js's TIMEOUT_SECONDS).  A last resort only: a fixture ends when
 * the test closes its stdin, and with the test (PR_SET_PDEATHSIG, which
 * tu_spawn sets).  Longer than kyua lets a case run (300 s unless the
 * case sets more), however slow the machine: a fixture that ended by
 * itself in the middle of a case would be truly called exited by pfiles.
 */
#define	TU_FIXTURE_LIFE	"3600"

/* A child started by tu_spawn().  Closed descriptors are -1. */
typedef struct tu_child {
	pid_t	tc_pid;		/* 0 once reaped */
	int	tc_in;		/* write end of the child's stdin */
	int	tc_out;		/* read end of the child's stdout */
	int	tc_err;		/* its stderr, with TU_STDERR_PIPE */
} tu_child_t;

/* tu_spawn() flags: where the child's stderr goes (default: ours) */
#define	TU_STDERR_PIPE	0x1	/* a pipe: read tc_err */
#define	TU_STDERR_NULL	0x2	/* /dev/null */

/*
 * Start argv[0] (searched in PATH when it has no slash) with its stdin and
 * stdout connected to pipes.  The pipe ends kept by the test are
 * close-on-exec.  Fails the test when the child cannot be started
 * (including when exec fails: the child reports it through a pipe).
 */
void	tu_spawn(tu_child_t *, const char *const argv[], int flags);

/*
 * Stop a child: close its stdin (its signal to exit), wait up to
 * timeout_ms for it to exit, then SIGKILL it; always reaps it and closes
 * the test's pipe ends.  Returns the wait status (as from waitpid).
 */
int	tu_stop(tu_child_t *, int timeout_ms);

/*
 * Read one line from fd (the '\n' is not included) within timeout_ms.
 * Returns a malloc'd string, or NULL at end of file before any byte.
 * Reads one byte at a time, so nothing after the line is consumed.
 * Fails the test on a timeout or a read error.
 */
char	*tu_read_line(int fd, int timeout_ms);

/*
 * Read lines from fd until a line equal to term, or end of file, all
 * within timeout_ms.  Returns a malloc'd text of the lines before the
 * terminator, each with its '\n'; *found (when not NULL) is 1 when the
 * terminator was seen, 0 at end of file.  term NULL reads to end of file.
 * Fails the test on a timeout or a read error.
 */
char	*tu_read_until(int fd, const char *term, int timeout_ms,
	    int *found);

/* What tu_run() captured.  The texts are NUL-terminated as well. */
typedef struct tu_result {
	char	*tr_out;	/* stdout */
	size_t	tr_outlen;
	char	*tr_err;	/* stderr */
	size_t	tr_errlen;
	int	tr_status;	/* wait status */
} tu_result_t;

/*
 * Run argv to completion with stdin from /dev/null, capturing stdout and
 * stderr.  env, when not NULL, is a NULL-ended list of "NAME=VALUE"
 * strings set in the child just before exec (so LD_PRELOAD reaches only
 * the program under test).  On a timeout the child is killed and the
 * test fails.  Free the result with tu_result_free().
 */
void	tu_run(const char *const argv[], const char *const env[],
	    int timeout_ms, tu_result_t *);
void	tu_result_free(tu_result_t *);
/* In a tu_pfiles_t's tp_env: pfiles with the agent's default deadline. */
#define	TU_DEFAULT_DEADLINE	"LIBPROC_AGENT_DEADLINE_MS"
/* Milliseconds of CLOCK_MONOTONIC. */
long long tu_now_ms(void);
/*
 * tu_run() with the program's soft RLIMIT_NOFILE set to nofile (0: left
 * as it is), 0, 1 and 2 being its only fds when it starts.
 */
void	tu_run_nofile(const char *const argv[], const char *const env[],
	    int timeout_ms, rlim_t nofile, tu_result_t *);

/*
 * The one way the tests run pfiles:
 *   [WRAP...] pfiles [OPTS...] [PIDS...]
 * with ENV set in the child (as tu_run()), at the soft RLIMIT_NOFILE
 * nofile when not 0 (as tu_run_nofile()).  Lists are NULL-ended (or
 * NULL: none); pids, when npids is not 0, are that many, not
 * NULL-ended.
 */
typedef struct tu_pfiles {
	const char *const *tp_wrap;	/* strace, setpriv, nsenter... */
	const char *const *tp_opts;
	const char *const *tp_pids;
	size_t		tp_npids;	/* 0: tp_pids is NULL-ended */
	const char *const *tp_env;
	int		tp_timeout_ms;	/* 0: TU_TIMEOUT_MS */
	rlim_t		tp_nofile;	/* 0: as it is */
} tu_pfiles_t;

void	tu_pfiles(const tu_pfiles_t *, tu_result_t *);
/* tu_pfiles() that must exit 0; pfiles' stderr, when any, shown on ours. */
void	tu_pfiles_ok(const tu_pfiles_t *, tu_result_t *);

/*
 * Fail the test unless r exited normally with status code; the message
 * names cmd and the child's stderr is copied to the test's stderr.
 */
void	tu_require_exit(const char *cmd, const tu_result_t *r, int code);

/*
 * Compare two texts byte for byte.  When they differ, both are saved in
 * the current (work) directory as WHAT.expected and WHAT.actual, the
 * first differing line is printed on stderr with its number, expected
 * and actual, quoted and with TAB, other control bytes and non-ASCII
 * written as escapes (\t, \xHH) so that trailing spaces and TABs show,
 * and the test fails.
 */
void	tu_require_same_text(const char *what, const char *expected,
	    size_t explen, const char *actual, size_t actlen);
/* The same for NUL-terminated texts. */
void	tu_require_same_str(const char *what, const char *expected,
	    const char *actual);

/*
 * Skip the case unless the kernel has BTF and pfiles --via=bpf serves a
 * trivial process (this one), when pfiles' "bpf: ..." reason says the
 * source is not available here (built without it, no privilege, no BTF,
 * lockdown, a kernel without the iterator's pid filter); that reason is
 * the skip's.  Any other failure (a record refused, the program refused
 * by the verifier) fails the case: it is a bug of the source.
 */
void	tu_require_bpf(void);
/*
 * The same test, for a case that runs other sources too: NULL when
 * --via=bpf serves here, else the reason it cannot (malloc'd); any other
 * failure fails the case.
 */
char	*tu_bpf_why(void);

/*
 * A helper program started with its stdout read up to its "ready" line
 * (within 10 s, or the test fails): its pid as text, and what it said
 * before.  tu_said() is the text after "KEY " on the first line that
 * starts so (the test fails when none does).
 */
typedef struct tu_helper {
	tu_child_t	h_child;
	char		h_pid[16];
	char		*h_said;	/* its lines before "ready" */
} tu_helper_t;

void	tu_helper_start(tu_helper_t *, const char *const argv[]);
void	tu_helper_stop(tu_helper_t *);
const char *tu_said(const tu_helper_t *, const char *key);

/*
 * Run fn with this process's soft RLIMIT_NOFILE lowered to TU_SOFT_NOFILE below a
 * higher hard limit, so that a target started there has soft != hard;
 * skips when the hard limit leaves no room.
 */
#define	TU_SOFT_NOFILE	1500
void	tu_with_low_soft_nofile(void (*fn)(void));

/* Write buf into the file name (relative to the work dir); fails on error. */
void	tu_write_file(const char *name, const void *buf, size_t len);

/* Read a whole file (at most 16 MiB) into a malloc'd NUL-ended buffer. */
char	*tu_read_file(const char *path, size_t *lenp);

/*
 * The State letter of /proc/PID/status ('R', 'S', 'T', 't', 'Z', ...),
 * or 0 when the process does not exist.
 */
char	tu_proc_state(pid_t);

/*
 * Wait, at most timeout_ms by the clock, for pid's state to be want,
 * looking every 5 ms: the state last seen (want, or what it was then).
 */
char	tu_wait_state(pid_t, char want, int timeout_ms);

/*
 * Does a line of pfiles' output start an fd block ("%4d: TYPE")?  The
 * header's first line has a TAB after its colon.
 */
int	tu_is_fd_line(const char *);

/* The block of fd in pfiles' output (up to the next fd), malloc'd; or NULL. */
char	*tu_fd_block(const char *out, int fd);

/* The one child of pid (/proc/PID/task/PID/children); fails otherwise. */
pid_t	tu_only_child(pid_t);

/*
 * Set the test case's timeout (kyua's bound on the whole case) to
 * seconds, times TU_TIME_SCALE, as every wait of this file is scaled;
 * for the head of a case (ATF_TC_HEAD).
 */
void	tu_timeout(atf_tc_t *, int seconds);

/* TU_TIME_SCALE: a whole number from 1 to 100, 1 when unset or not one. */
int	tu_time_scale(void);

/*
 * Has this kernel pidfds of threads (pidfd_open(2) with PIDFD_THREAD,
 * Linux 6.9)?  Asked of our own main thread.  Without them, pidfd_getfd
 * cannot reach the files of a process whose main thread has exited.
 */
int	tu_have_thread_pidfd(void);

/*
 * Can this kernel prove, to pfiles' source via ("--via=bpf", or any
 * other: the sources that hold the socket), that a unix socket's peer
 * process is the one SO_PEERCRED recorded, so that the peer: line names
 * it?  A pidfd of the recorded process: SO_PEERPIDFD (Linux 6.5); for
 * bpf, which reads the kernel's struct pid, its pidfs inode (Linux 6.9).
 * Asked here of a socketpair and of this process, apart from pfiles.
 */
int	tu_peer_provable(const char *via);

/*
 * text (malloc'd, freed) with every peer: line's name made "?", and in
 * -J every peer's "comm" left out: what a source prints that knows
 * SO_PEERCRED's pid and cannot prove who has it now (the agent asking
 * inside the target).  A malloc'd string.
 */
char	*tu_unnamed_peers(char *text);

/*
 * The argv prefix that runs a program as on a kernel without pidfds of
 * threads: seccomp_deny refusing pidfd_open(2) with PIDFD_THREAD (O_EXCL)
 * with EINVAL, as kernels before 6.9 do (tu_pfiles' tp_wrap).
 */
#define	TU_NO_THREAD_PIDFD	BUILD_DIR "/atf/seccomp_deny", "-a", "1=128", \
				"434", "22"

/*
 * pfiles --via=pidfd PID, run as on a kernel without pidfds of threads,
 * on a process whose main thread has exited: refused, exit 1, nothing
 * on stdout, one line saying why.
 */
void	tu_require_leaderless_refused(tu_result_t *, const char *pid);

/*
 * Does err hold pfiles' line "pfiles: ARG: not shown: LIST (WHY)" with
 * item one of LIST's comma-separated names, and WHY why (NULL: any)?
 */
int	tu_not_shown(const char *err, const char *arg, const char *item,
	    const char *why);

/* asprintf that fails the test when out of memory. */
/* text without its lines that hold needle (malloc'd). */
char	*tu_without_lines(const char *text, const char *needle);
char	*tu_asprintf(const char *fmt, ...)
	    __attribute__((__format__(__printf__, 1, 2)));

#endif	/* _TESTUTIL_H */
