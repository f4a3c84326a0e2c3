/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * testutil.c: helpers shared by the ATF test programs (see testutil.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <atf-c.h>

#include "testutil.h"

#define	TU_MAX_CHILDREN	64
#define	TU_MAX_FILE	(16 * 1024 * 1024)

/*
 * LeakSanitizer (SANITIZE=1) reads this hook: libatf-c's own test-case
 * list, built for "-l" (how kyua lists the cases), is never freed, and
 * the leak would make every listing "broken".  Only allocations made
 * inside libatf-c's list and map code are suppressed (libatf-c has no
 * frame pointers, so its stacks end there); leaks in test bodies and in
 * the code under test are still reported.  Without a sanitizer the
 * function is simply unused.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_options(void);

/* kyua counts any stderr from "-l" as broken: no suppression summary. */
const char *
__lsan_default_options(void)
{
	return ("print_suppressions=0");
}

const char *
__lsan_default_suppressions(void)
{
	return ("leak:atf_tp_get_tcs\n"
	    "leak:atf_list_init\n"
	    "leak:atf_list_append\n"
	    "leak:atf_map_init_charpp\n"
	    "leak:atf_map_insert\n");
}

/* Children not yet reaped, killed by tu_cleanup() at exit. */
static pid_t tu_children[TU_MAX_CHILDREN];
static int tu_cleanup_installed;

/* A growable byte buffer, always NUL-terminated once used. */
typedef struct tu_buf {
	char	*b_data;
	size_t	b_len;
	size_t	b_cap;
} tu_buf_t;

static void
buf_add(tu_buf_t *b, const void *p, size_t n)
{
	if (b->b_len + n + 1 > b->b_cap) {
		size_t cap = b->b_cap == 0 ? 256 : b->b_cap;
		char *nd;

		while (cap < b->b_len + n + 1)
			cap *= 2;
		if ((nd = realloc(b->b_data, cap)) == NULL)
			atf_tc_fail("out of memory");
		b->b_data = nd;
		b->b_cap = cap;
	}
	memcpy(b->b_data + b->b_len, p, n);
	b->b_len += n;
	b->b_data[b->b_len] = '\0';
}

/* The buffer's text, an empty string when nothing was added. */
static char *
buf_take(tu_buf_t *b)
{
	if (b->b_data == NULL)
		buf_add(b, "", 0);
	return (b->b_data);
}

/*
 * The agent's deadline of every pfiles and libproc the suite runs: ten
 * minutes, so that what a test compares does not depend on the machine's
 * load (the agent's default, two seconds, is met on a loaded machine by
 * the per-socket batches).  The tests of the deadline itself unset it
 * (TU_DEFAULT_DEADLINE).
 */
__attribute__((constructor)) static void
tu_deadline_init(void)
{
	(void) setenv("LIBPROC_AGENT_DEADLINE_MS", "600000", 0);
}

long long
tu_now_ms(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/*
 * The deadline timeout_ms from now, times TU_TIME_SCALE from the
 * environment (a whole number, 1 when unset or not one): make
 * check-kernels sets it in kernels emulated by qemu without KVM, where
 * everything takes several times as long, so that a bound made for a
 * real machine still bounds and does not fail a slow run.
 */
int
tu_time_scale(void)
{
	static int scale;
	const char *s;

	if (scale == 0) {
		scale = (s = getenv("TU_TIME_SCALE")) != NULL ? atoi(s) : 1;
		if (scale < 1 || scale > 100)
			scale = 1;
	}
	return (scale);
}

static long long
deadline_in(int timeout_ms)
{
	return (tu_now_ms() + (long long)timeout_ms * tu_time_scale());
}

void
tu_timeout(atf_tc_t *tc, int seconds)
{
	char v[24];

	(void) snprintf(v, sizeof (v), "%lld", (long long)seconds *
	    tu_time_scale());
	atf_tc_set_md_var(tc, "timeout", v);
}

static int
ms_left(long long deadline)
{
	long long left = deadline - tu_now_ms();

	if (left < 0)
		return (0);
	return (left > 1000000 ? 1000000 : (int)left);
}

static void
sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	(void) nanosleep(&ts, NULL);
}

/* Wait for pid until deadline; returns 1 and the status when reaped. */
static int
wait_until(pid_t pid, long long deadline, int *statusp)
{
	for (;;) {
		pid_t r = waitpid(pid, statusp, WNOHANG);

		if (r == pid)
			return (1);
		if (r < 0 && errno != EINTR) {
			*statusp = 0;
			return (1);	/* not our child any more */
		}
		if (ms_left(deadline) == 0)
			return (0);
		sleep_ms(5);
	}
}

static void
kill_and_reap(pid_t pid, int *statusp)
{
	(void) kill(pid, SIGKILL);
	while (waitpid(pid, statusp, 0) < 0 && errno == EINTR)
		continue;
}

/*
 * At exit: SIGTERM every child still registered (SIGCONT too, should one
 * be stopped), so that fixtures remove their temporary files; SIGKILL
 * whatever is left after a second; reap them all.
 */
static void
tu_cleanup(void)
{
	long long deadline = deadline_in(1000);
	int status;

	for (int i = 0; i < TU_MAX_CHILDREN; i++) {
		if (tu_children[i] > 0) {
			(void) kill(tu_children[i], SIGTERM);
			(void) kill(tu_children[i], SIGCONT);
		}
	}
	for (int i = 0; i < TU_MAX_CHILDREN; i++) {
		if (tu_children[i] > 0) {
			if (!wait_until(tu_children[i], deadline, &status))
				kill_and_reap(tu_children[i], &status);
			tu_children[i] = 0;
		}
	}
}

static void
child_register(pid_t pid)
{
	for (int i = 0; i < TU_MAX_CHILDREN; i++) {
		if (tu_children[i] == 0) {
			tu_children[i] = pid;
			return;
		}
	}
	(void) kill(pid, SIGKILL);
	(void) waitpid(pid, NULL, 0);
	atf_tc_fail("more than %d children at once", TU_MAX_CHILDREN);
}

static void
child_forget(pid_t pid)
{
	for (int i = 0; i < TU_MAX_CHILDREN; i++)
		if (tu_children[i] == pid)
			tu_children[i] = 0;
}

static void
install_cleanup(void)
{
	if (tu_cleanup_installed)
		return;
	if (atexit(tu_cleanup) != 0)
		atf_tc_fail("atexit failed");
	/* A write to a child that has gone must not kill the test. */
	(void) signal(SIGPIPE, SIG_IGN);
	tu_cleanup_installed = 1;
}

/* Put fd on target in a child, without close-on-exec. */
static void
child_dup(int fd, int target)
{
	if (fd == target)
		(void) fcntl(fd, F_SETFD, 0);
	else if (dup2(fd, target) < 0)
		_exit(126);
}

/*
 * In a freshly forked child: die with the parent, restore the signal
 * state a test program may have changed, and set up the environment.
 */
static void
child_prepare(pid_t parent, const char *const env[])
{
	sigset_t none;

	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(126);
	(void) signal(SIGPIPE, SIG_DFL);
	/* Nothing of the test program's but 0, 1, 2 reaches the program. */
	(void) close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
	(void) sigemptyset(&none);
	(void) sigprocmask(SIG_SETMASK, &none, NULL);
	for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
		char *s = strdup(env[i]);

		if (s == NULL || putenv(s) != 0)
			_exit(126);
	}
}

static void
xpipe(int p[2])
{
	if (pipe2(p, O_CLOEXEC) != 0)
		atf_tc_fail("pipe2: %s", strerror(errno));
}

static void
close_fd(int *fdp)
{
	if (*fdp >= 0) {
		(void) close(*fdp);
		*fdp = -1;
	}
}

void
tu_spawn(tu_child_t *c, const char *const argv[], int flags)
{
	int in[2], out[2], err[2] = { -1, -1 }, ex[2];
	pid_t parent = getpid();
	struct pollfd pfd;
	int errnum = 0;
	ssize_t n;

	install_cleanup();
	xpipe(in);
	xpipe(out);
	xpipe(ex);
	if (flags & TU_STDERR_PIPE)
		xpipe(err);
	else if ((flags & TU_STDERR_NULL) &&
	    (err[1] = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		atf_tc_fail("open /dev/null: %s", strerror(errno));

	c->tc_pid = fork();
	if (c->tc_pid < 0)
		atf_tc_fail("fork: %s", strerror(errno));
	if (c->tc_pid == 0) {
		child_prepare(parent, NULL);
		child_dup(in[0], 0);
		child_dup(out[1], 1);
		if (err[1] >= 0)
			child_dup(err[1], 2);
		(void) execvp(argv[0], (char *const *)argv);
		errnum = errno;
		(void) write(ex[1], &errnum, sizeof (errnum));
		_exit(127);
	}
	child_register(c->tc_pid);
	(void) close(in[0]);
	(void) close(out[1]);
	(void) close(ex[1]);
	if (err[1] >= 0)
		(void) close(err[1]);
	c->tc_in = in[1];
	c->tc_out = out[0];
	c->tc_err = (flags & TU_STDERR_PIPE) ? err[0] : -1;

	/* The exec-error pipe closes on a successful exec. */
	pfd.fd = ex[0];
	pfd.events = POLLIN;
	if (poll(&pfd, 1, TU_TIMEOUT_MS) != 1) {
		(void) close(ex[0]);
		atf_tc_fail("%s: no exec within %d ms", argv[0],
		    TU_TIMEOUT_MS);
	}
	n = read(ex[0], &errnum, sizeof (errnum));
	(void) close(ex[0]);
	if (n == (ssize_t)sizeof (errnum))
		atf_tc_fail("cannot run %s: %s", argv[0], strerror(errnum));
}

int
tu_stop(tu_child_t *c, int timeout_ms)
{
	int status = 0;

	close_fd(&c->tc_in);
	if (c->tc_pid > 0) {
		if (!wait_until(c->tc_pid, deadline_in(timeout_ms), &status))
			kill_and_reap(c->tc_pid, &status);
		child_forget(c->tc_pid);
		c->tc_pid = 0;
	}
	close_fd(&c->tc_out);
	close_fd(&c->tc_err);
	return (status);
}

/*
 * Read one line until deadline into b (without its '\n').  Returns 1 for
 * a line, 0 at end of file (b may hold an unterminated last line).
 */
static int
read_line_by(int fd, long long deadline, tu_buf_t *b)
{
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		char ch;
		ssize_t n;
		int r;

		r = poll(&pfd, 1, ms_left(deadline));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			atf_tc_fail("poll: %s", strerror(errno));
		if (r == 0)
			atf_tc_fail("no complete line on fd %d in time "
			    "(read so far: %zu bytes)", fd, b->b_len);
		n = read(fd, &ch, 1);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			atf_tc_fail("read: %s", strerror(errno));
		if (n == 0)
			return (0);
		if (ch == '\n')
			return (1);
		buf_add(b, &ch, 1);
	}
}

char *
tu_read_line(int fd, int timeout_ms)
{
	tu_buf_t b = { NULL, 0, 0 };

	if (read_line_by(fd, deadline_in(timeout_ms), &b) == 0 &&
	    b.b_len == 0) {
		free(b.b_data);
		return (NULL);
	}
	return (buf_take(&b));
}

char *
tu_read_until(int fd, const char *term, int timeout_ms, int *found)
{
	long long deadline = deadline_in(timeout_ms);
	tu_buf_t text = { NULL, 0, 0 };

	if (found != NULL)
		*found = 0;
	for (;;) {
		tu_buf_t line = { NULL, 0, 0 };
		int more = read_line_by(fd, deadline, &line);
		const char *text_of_line = line.b_data ? line.b_data : "";

		if (more && term != NULL && strcmp(text_of_line, term) == 0) {
			free(line.b_data);
			if (found != NULL)
				*found = 1;
			break;
		}
		if (line.b_len > 0)
			buf_add(&text, line.b_data, line.b_len);
		if (more)
			buf_add(&text, "\n", 1);
		free(line.b_data);
		if (!more)
			break;
	}
	return (buf_take(&text));
}

/* Drain the readable ones of fds into bufs; returns how many are open. */
static int
drain(struct pollfd *pfd, tu_buf_t *bufs, int nfd, long long deadline)
{
	int nopen = 0, r;

	for (int i = 0; i < nfd; i++)
		if (pfd[i].fd >= 0)
			nopen++;
	if (nopen == 0)
		return (0);
	r = poll(pfd, (nfds_t)nfd, ms_left(deadline));
	if (r < 0 && errno != EINTR)
		atf_tc_fail("poll: %s", strerror(errno));
	for (int i = 0; r > 0 && i < nfd; i++) {
		char chunk[8192];
		ssize_t n;

		if (pfd[i].fd < 0 || pfd[i].revents == 0)
			continue;
		n = read(pfd[i].fd, chunk, sizeof (chunk));
		if (n > 0) {
			buf_add(&bufs[i], chunk, (size_t)n);
		} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
			(void) close(pfd[i].fd);
			pfd[i].fd = -1;
		}
	}
	return (nopen);
}

void
tu_run(const char *const argv[], const char *const env[], int timeout_ms,
    tu_result_t *r)
{
	tu_run_nofile(argv, env, timeout_ms, 0, r);
}

void
tu_run_nofile(const char *const argv[], const char *const env[],
    int timeout_ms, rlim_t nofile, tu_result_t *r)
{
	long long deadline = deadline_in(timeout_ms);
	int out[2], err[2], devnull, status = 0;
	pid_t parent = getpid(), pid;
	struct pollfd pfd[2];
	tu_buf_t bufs[2] = { { NULL, 0, 0 }, { NULL, 0, 0 } };

	install_cleanup();
	xpipe(out);
	xpipe(err);
	if ((devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
		atf_tc_fail("open /dev/null: %s", strerror(errno));
	if ((pid = fork()) < 0)
		atf_tc_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		child_prepare(parent, env);
		child_dup(devnull, 0);
		child_dup(out[1], 1);
		child_dup(err[1], 2);
		if (nofile != 0) {
			struct rlimit rl;

			if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
				_exit(126);
			rl.rlim_cur = nofile;
			if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
				_exit(126);
		}
		(void) execvp(argv[0], (char *const *)argv);
		(void) dprintf(2, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	child_register(pid);
	(void) close(devnull);
	(void) close(out[1]);
	(void) close(err[1]);
	pfd[0].fd = out[0];
	pfd[1].fd = err[0];
	pfd[0].events = pfd[1].events = POLLIN;

	while (drain(pfd, bufs, 2, deadline) > 0 && ms_left(deadline) > 0)
		continue;
	for (int i = 0; i < 2; i++)
		if (pfd[i].fd >= 0)
			(void) close(pfd[i].fd);
	if (!wait_until(pid, deadline, &status)) {
		kill_and_reap(pid, &status);
		child_forget(pid);
		atf_tc_fail("%s: killed after %d ms", argv[0], timeout_ms);
	}
	child_forget(pid);
	r->tr_out = buf_take(&bufs[0]);
	r->tr_outlen = bufs[0].b_len;
	r->tr_err = buf_take(&bufs[1]);
	r->tr_errlen = bufs[1].b_len;
	r->tr_status = status;
}

void
tu_result_free(tu_result_t *r)
{
	free(r->tr_out);
	free(r->tr_err);
	r->tr_out = r->tr_err = NULL;
	r->tr_outlen = r->tr_errlen = 0;
}

void
tu_require_exit(const char *cmd, const tu_result_t *r, int code)
{
	int st = r->tr_status;

	if (WIFEXITED(st) && WEXITSTATUS(st) == code)
		return;
	(void) fprintf(stderr, "%s: stderr:\n%s\n", cmd, r->tr_err);
	if (WIFEXITED(st))
		atf_tc_fail("%s exited %d, expected %d", cmd,
		    WEXITSTATUS(st), code);
	else if (WIFSIGNALED(st))
		atf_tc_fail("%s killed by signal %d, expected exit %d", cmd,
		    WTERMSIG(st), code);
	else
		atf_tc_fail("%s: wait status 0x%x, expected exit %d", cmd,
		    (unsigned)st, code);
}

void
tu_write_file(const char *name, const void *buf, size_t len)
{
	const char *p = buf;
	int fd;

	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		atf_tc_fail("create %s: %s", name, strerror(errno));
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			(void) close(fd);
			atf_tc_fail("write %s: %s", name, strerror(errno));
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) != 0)
		atf_tc_fail("close %s: %s", name, strerror(errno));
}

char *
tu_read_file(const char *path, size_t *lenp)
{
	tu_buf_t b = { NULL, 0, 0 };
	char chunk[8192];
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		atf_tc_fail("open %s: %s", path, strerror(errno));
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof (chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			(void) close(fd);
			atf_tc_fail("read %s: %s", path, strerror(errno));
		}
		if (n == 0)
			break;
		if (b.b_len + (size_t)n > TU_MAX_FILE) {
			(void) close(fd);
			atf_tc_fail("%s: larger than %d bytes", path,
			    TU_MAX_FILE);
		}
		buf_add(&b, chunk, (size_t)n);
	}
	(void) close(fd);
	if (lenp != NULL)
		*lenp = b.b_len;
	return (buf_take(&b));
}

char
tu_proc_state(pid_t pid)
{
	char path[64], line[256];
	char state = 0;
	FILE *fp;

	(void) snprintf(path, sizeof (path), "/proc/%d/status", (int)pid);
	if ((fp = fopen(path, "re")) == NULL)
		return (0);
	while (fgets(line, sizeof (line), fp) != NULL) {
		if (strncmp(line, "State:", 6) == 0) {
			const char *p = line + 6;

			while (*p == ' ' || *p == '\t')
				p++;
			state = *p;
			break;
		}
	}
	(void) fclose(fp);
	return (state);
}

char *
tu_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		atf_tc_fail("out of memory");
	return (s);
}

char *
tu_bpf_why(void)
{
	static const char btf[] = "/sys/kernel/btf/vmlinux";
	char pid[16];
	const char *const args[] = { "--via=bpf", pid, NULL };
	tu_result_t r;
	char *reason, *nl;

	if (access(btf, R_OK) != 0)
		return (tu_asprintf("no kernel BTF: %s: %s", btf,
		    strerror(errno)));
	(void) snprintf(pid, sizeof (pid), "%d", (int)getpid());
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	if (WIFEXITED(r.tr_status) && WEXITSTATUS(r.tr_status) == 0) {
		tu_result_free(&r);
		return (NULL);
	}
	if (WIFEXITED(r.tr_status) && WEXITSTATUS(r.tr_status) == 1 &&
	    (reason = strstr(r.tr_err, "bpf: ")) != NULL) {
		static const char *const unavailable[] = {
			"built without BPF support", "permission denied",
			"has no BTF", "lockdown", "no pid filter",
			"BPF load: Operation not permitted",
		};

		if ((nl = strchr(reason, '\n')) != NULL)
			*nl = '\0';
		for (size_t i = 0; i < sizeof (unavailable) /
		    sizeof (unavailable[0]); i++) {
			if (strstr(reason, unavailable[i]) != NULL)
				return (tu_asprintf("pfiles --via=bpf cannot "
				    "serve here: %s", reason));
		}
		(void) fprintf(stderr, "pfiles stderr:\n%s", r.tr_err);
		atf_tc_fail("pfiles --via=bpf %s: %s", pid, reason);
	}
	(void) fprintf(stderr, "pfiles stderr:\n%s", r.tr_err);
	atf_tc_fail("pfiles --via=bpf %s: wait status 0x%x, and no \"bpf: "
	    "\" reason", pid, (unsigned)r.tr_status);
}

void
tu_require_bpf(void)
{
	char *why = tu_bpf_why();

	if (why != NULL)
		atf_tc_skip("%s", why);
}

#define	HELPER_LINE_MS	10000

void
tu_helper_start(tu_helper_t *h, const char *const argv[])
{
	int found;

	tu_spawn(&h->h_child, argv, 0);
	(void) snprintf(h->h_pid, sizeof (h->h_pid), "%d",
	    (int)h->h_child.tc_pid);
	h->h_said = tu_read_until(h->h_child.tc_out, "ready", HELPER_LINE_MS,
	    &found);
	ATF_REQUIRE_MSG(found, "%s %s did not get ready: %s", argv[0],
	    argv[1], h->h_said);
}

void
tu_helper_stop(tu_helper_t *h)
{
	(void) tu_stop(&h->h_child, HELPER_LINE_MS);
	free(h->h_said);
}

const char *
tu_said(const tu_helper_t *h, const char *key)
{
	size_t n = strlen(key);

	for (const char *l = h->h_said; l != NULL && *l != '\0';
	    l = strchr(l, '\n') != NULL ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, n) == 0 && l[n] == ' ')
			return (l + n + 1);
	}
	atf_tc_fail("the helper did not say %s: %s", key, h->h_said);
	return (NULL);
}


void
tu_with_low_soft_nofile(void (*fn)(void))
{
	struct rlimit mine, low;

	if (getrlimit(RLIMIT_NOFILE, &mine) != 0)
		atf_tc_fail("getrlimit: %s", strerror(errno));
	if (mine.rlim_max != RLIM_INFINITY && mine.rlim_max <= TU_SOFT_NOFILE)
		atf_tc_skip("the hard RLIMIT_NOFILE is %llu",
		    (unsigned long long)mine.rlim_max);
	low = mine;
	low.rlim_cur = TU_SOFT_NOFILE;
	if (setrlimit(RLIMIT_NOFILE, &low) != 0)
		atf_tc_fail("setrlimit: %s", strerror(errno));
	fn();
	if (setrlimit(RLIMIT_NOFILE, &mine) != 0)
		atf_tc_fail("setrlimit back: %s", strerror(errno));
}

pid_t
tu_only_child(pid_t parent)
{
	char *path = tu_asprintf("/proc/%d/task/%d/children", (int)parent,
	    (int)parent);
	char *text = tu_read_file(path, NULL), *end;
	long child;

	errno = 0;
	child = strtol(text, &end, 10);
	ATF_REQUIRE_MSG(end != text && errno == 0 && child > 0,
	    "%s: \"%s\"", path, text);
	while (*end == ' ' || *end == '\n')
		end++;
	ATF_REQUIRE_MSG(*end == '\0', "%s: more than one child: \"%s\"",
	    path, text);
	free(text);
	free(path);
	return ((pid_t)child);
}

char
tu_wait_state(pid_t pid, char want, int timeout_ms)
{
	long long deadline = deadline_in(timeout_ms);
	char st;

	while ((st = tu_proc_state(pid)) != want && tu_now_ms() < deadline)
		(void) usleep(5000);
	return (st);
}

int
tu_have_thread_pidfd(void)
{
	int fd = (int)syscall(SYS_pidfd_open, getpid(), O_EXCL);

	if (fd < 0)
		return (0);
	(void) close(fd);
	return (1);
}

int
tu_peer_provable(const char *via)
{
	struct statfs sfs;
	socklen_t len;
	int sv[2], fd = -1, ok;

	if (via != NULL && strcmp(via, "--via=bpf") == 0) {
		fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
		ok = fd >= 0 && fstatfs(fd, &sfs) == 0 &&
		    sfs.f_type == 0x50494446;	/* PID_FS_MAGIC */
	} else {
		ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
		len = sizeof (fd);
		ok = getsockopt(sv[0], SOL_SOCKET, 77 /* SO_PEERPIDFD */,
		    &fd, &len) == 0 && fd >= 0;
		(void) close(sv[0]);
		(void) close(sv[1]);
	}
	if (fd >= 0)
		(void) close(fd);
	return (ok);
}

void
tu_require_leaderless_refused(tu_result_t *r, const char *pid)
{
	char *want;

	tu_require_exit("--via=pidfd, no PIDFD_THREAD", r, 1);
	ATF_CHECK_EQ_MSG(r->tr_outlen, 0, "--via=pidfd printed: %s",
	    r->tr_out);
	want = tu_asprintf("pfiles: cannot examine %s: pidfd: the process's "
	    "main thread has exited, and this kernel has no pidfd of a "
	    "thread (PIDFD_THREAD, Linux 6.9)\n", pid);
	tu_require_same_str("pidfd.stderr", want, r->tr_err);
	free(want);
}
