/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_victim: a program with known numbers of each counted call, for
 * t_preadcount.  It is built four ways (see atf/Makefile.inc): plainly,
 * with -O2 -D_FORTIFY_SOURCE=2 (read and pread become __read_chk and
 * __pread_chk), with -D_FILE_OFFSET_BITS=64 (pread64, preadv64, ...), and
 * with both (__pread64_chk).  Every read below is into a local array with
 * a length the compiler cannot know (sz()), which is what makes the
 * fortified build call the _chk entries.
 *
 * Usage: pc_victim MODE ARGS...  (see main()).  It reports the facts the
 * test cannot know in advance (its pid, its child's, the pipe's inode) on
 * stdout as "KEY VALUE" lines, written with raw system calls so that the
 * report itself is never counted.  Any surprise (a short read, errno not
 * preserved) is reported on stderr and ends it with status 2.
 */
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define	BADFD	900	/* an fd the victim makes sure is closed */

static volatile size_t vzero;
static volatile long pc_global = 0x5a5a5a5a;
static volatile long pc_minus_one = -1;

/* N, in a way the compiler cannot fold. */
static size_t
sz(size_t n)
{
	return (n + vzero);
}

static void
say(const char *s)
{
	(void) syscall(SYS_write, 1, s, strlen(s));
}

static void
sayf(const char *key, long long value)
{
	char line[96];
	int n = snprintf(line, sizeof (line), "%s %lld\n", key, value);

	(void) syscall(SYS_write, 1, line, (size_t)n);
}

static _Noreturn void
die(const char *what, long long got)
{
	char line[256];
	int n = snprintf(line, sizeof (line), "pc_victim: %s (got %lld, "
	    "errno %d)\n", what, got, errno);

	(void) syscall(SYS_write, 2, line, (size_t)n);
	exit(2);
}

static void
expect(long long got, long long want, const char *what)
{
	if (got != want)
		die(what, got);
}

static int
open_or_die(const char *path, int flags)
{
	int fd = open(path, flags, 0644);

	if (fd < 0)
		die(path, fd);
	return (fd);
}

/* Reads of DATA (at least 4096 bytes) through every read entry. */
static void
plan_file_reads(int fd)
{
	char buf[4096];
	struct iovec iov[2] = {
		{ .iov_base = buf, .iov_len = 10 },
		{ .iov_base = buf + 10, .iov_len = 20 },
	};

	errno = 4242;
	expect(pread(fd, buf, sz(100), 0), 100, "pread 1");
	expect(errno, 4242, "errno kept by pread");
	expect(pread(fd, buf, sz(100), 100), 100, "pread 2");
	expect(pread(fd, buf, sz(100), 200), 100, "pread 3");
	expect(pread(fd, buf, sz(100), 1 << 20), 0, "pread at EOF");
	expect(read(fd, buf, sz(50)), 50, "read 1");
	expect(read(fd, buf, sz(50)), 50, "read 2");
	expect(readv(fd, iov, 2), 30, "readv");
	expect(preadv(fd, iov, 2, 0), 30, "preadv 1");
	expect(preadv(fd, iov, 2, 30), 30, "preadv 2");
	expect(preadv2(fd, iov, 2, 60, 0), 30, "preadv2");

	(void) close(BADFD);
	errno = 0;
	expect(read(BADFD, buf, sz(8)), -1, "read of a closed fd");
	expect(errno, EBADF, "errno kept by a failed read");
}

static void
plan_file_writes(int fd)
{
	static const char msg[] = "0123456789abcdef";
	struct iovec iov[2] = {
		{ .iov_base = (void *)msg, .iov_len = 5 },
		{ .iov_base = (void *)(msg + 5), .iov_len = 6 },
	};

	errno = 4242;
	expect(pwrite(fd, msg, sz(10), 5000), 10, "pwrite 1");
	expect(errno, 4242, "errno kept by pwrite");
	expect(pwrite(fd, msg, sz(10), 5010), 10, "pwrite 2");
	expect(pwritev(fd, iov, 2, 6000), 11, "pwritev");
	expect(pwritev2(fd, iov, 2, 7000, 0), 11, "pwritev2");
	expect(writev(fd, iov, 2), 11, "writev");
}

static void
plan_pipe(void)
{
	char buf[256], msg[64];
	int p[2];
	struct stat st;

	memset(msg, 'p', sizeof (msg));
	if (pipe(p) != 0 || fstat(p[0], &st) != 0)
		die("pipe", -1);
	sayf("pipe", (long long)st.st_ino);
	expect(write(p[1], msg, sizeof (msg)), 64, "pipe write 1");
	expect(write(p[1], msg, sizeof (msg)), 64, "pipe write 2");
	expect(read(p[0], buf, sz(64)), 64, "pipe read 1");
	expect(read(p[0], buf, sz(64)), 64, "pipe read 2");
	(void) close(p[0]);
	(void) close(p[1]);
}

static void
plan_vm_self(void)
{
	char src[16] = "process_vm_self", dst[16];
	struct iovec here = { .iov_base = dst, .iov_len = sizeof (dst) };
	struct iovec there = { .iov_base = src, .iov_len = sizeof (src) };

	expect(process_vm_readv(getpid(), &here, 1, &there, 1, 0), 16,
	    "process_vm_readv");
	expect(process_vm_writev(getpid(), &there, 1, &here, 1, 0), 16,
	    "process_vm_writev");
}

/* A child that stops for us, then PEEK and POKE of each kind. */
static void
plan_ptrace(void)
{
	pid_t parent = getpid(), child;
	int st;
	long w;

	child = fork();
	if (child < 0)
		die("fork", -1);
	if (child == 0) {
		/* Never outlive the victim, even if it is killed. */
		(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		(void) ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		(void) raise(SIGSTOP);
		for (;;)
			(void) pause();
	}
	sayf("child", child);
	if (waitpid(child, &st, 0) != child || !WIFSTOPPED(st))
		die("child did not stop", st);

	errno = 4242;
	w = ptrace(PTRACE_PEEKDATA, child, (void *)&pc_global, NULL);
	expect(w, 0x5a5a5a5a, "PEEKDATA");
	expect(errno, 0, "errno from a successful PEEKDATA");
	/* A word of -1 is a success: glibc sets errno to 0. */
	errno = 4242;
	w = ptrace(PTRACE_PEEKDATA, child, (void *)&pc_minus_one, NULL);
	expect(w, -1, "PEEKDATA of -1");
	expect(errno, 0, "errno from PEEKDATA of -1");
	errno = 0;
	expect(ptrace(PTRACE_PEEKDATA, child, NULL, NULL), -1, "PEEKDATA 0");
	if (errno == 0)
		die("failed PEEKDATA left errno 0", 0);
	(void) ptrace(PTRACE_PEEKTEXT, child, (void *)&plan_ptrace, NULL);
	expect(errno, 0, "PEEKTEXT");
	(void) ptrace(PTRACE_PEEKUSER, child, NULL, NULL);
	expect(errno, 0, "PEEKUSER");
	expect(ptrace(PTRACE_POKEDATA, child, (void *)&pc_global,
	    (void *)0x1234), 0, "POKEDATA");
	expect(ptrace(PTRACE_POKETEXT, child, (void *)&pc_global,
	    (void *)0x5678), 0, "POKETEXT");
	expect(ptrace(PTRACE_POKEUSER, child, (void *)1, NULL), -1,
	    "POKEUSER at an odd offset");

	(void) kill(child, SIGKILL);
	(void) waitpid(child, &st, 0);
}

/* The main plan: see t_preadcount's plan_expect() for the counts. */
static int
mode_plan(const char *data)
{
	int fd = open_or_die(data, O_RDWR);

	sayf("self", getpid());
	plan_file_reads(fd);
	plan_file_writes(fd);
	(void) close(fd);
	plan_pipe();
	plan_vm_self();
	plan_ptrace();
	return (0);
}

struct reader {
	int	fd;
	long	n;
};

static void *
reader_main(void *arg)
{
	const struct reader *r = arg;
	char buf[64];

	for (long i = 0; i < r->n; i++) {
		if (pread(r->fd, buf, sz(1), i % 4096) != 1)
			die("threaded pread", i);
	}
	return (NULL);
}

/* Two threads, N preads of one byte each. */
static int
mode_threads(const char *data, long n)
{
	struct reader r = { .fd = open_or_die(data, O_RDONLY), .n = n };
	pthread_t t[2];

	for (int i = 0; i < 2; i++) {
		if (pthread_create(&t[i], NULL, reader_main, &r) != 0)
			die("pthread_create", i);
	}
	for (int i = 0; i < 2; i++)
		(void) pthread_join(t[i], NULL);
	return (0);
}

/* Parent reads 2 before fork and 1 after, the child 3 then exit(). */
static int
mode_fork(const char *data)
{
	char buf[64];
	int fd = open_or_die(data, O_RDONLY);
	pid_t child;
	int st;

	for (int i = 0; i < 2; i++)
		expect(read(fd, buf, sz(10)), 10, "parent read");
	child = fork();
	if (child < 0)
		die("fork", -1);
	if (child == 0) {
		for (int i = 0; i < 3; i++)
			expect(read(fd, buf, sz(10)), 10, "child read");
		exit(0);
	}
	if (waitpid(child, &st, 0) != child || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0)
		die("child", st);
	expect(read(fd, buf, sz(10)), 10, "parent read after fork");
	return (0);
}

/* One read of 7 bytes, then leave by HOW. */
static int
mode_exit(const char *how, const char *data)
{
	char buf[64];
	int fd = open_or_die(data, O_RDONLY);

	expect(read(fd, buf, sz(7)), 7, "read");
	if (strcmp(how, "exit") == 0)
		exit(0);
	if (strcmp(how, "_exit") == 0)
		_exit(0);
	if (strcmp(how, "_Exit") == 0)
		_Exit(0);
	if (strcmp(how, "quick_exit") == 0)
		quick_exit(0);
	if (strcmp(how, "return") != 0)
		die("unknown exit", 0);
	return (0);
}

static char *
path_in(const char *dir, const char *name)
{
	static char path[4][4096];
	static int next;
	char *p = path[next++ % 4];

	(void) snprintf(p, sizeof (path[0]), "%s/%s", dir, name);
	return (p);
}

/*
 * fd numbers reused three ways: close, fclose (closes inside glibc, where
 * no wrapper sees it) and dup2.  DIR holds files A, B, C and D of at least
 * 10 bytes.
 */
static int
mode_reuse(const char *dir)
{
	char buf[64];
	FILE *f;
	int fd, fd2;

	fd = open_or_die(path_in(dir, "A"), O_RDONLY);
	expect(read(fd, buf, sz(5)), 5, "read A");
	(void) close(fd);
	fd2 = open_or_die(path_in(dir, "B"), O_RDONLY);
	expect(fd2, fd, "B reuses A's fd");
	expect(read(fd2, buf, sz(6)), 6, "read B");
	(void) close(fd2);

	if ((f = fopen(path_in(dir, "C"), "r")) == NULL)
		die("fopen C", 0);
	fd = fileno(f);
	expect(read(fd, buf, sz(7)), 7, "read C");
	(void) fclose(f);
	fd2 = open_or_die(path_in(dir, "D"), O_RDONLY);
	expect(fd2, fd, "D reuses C's fd");
	expect(read(fd2, buf, sz(8)), 8, "read D");
	(void) close(fd2);

	fd = open_or_die(path_in(dir, "A"), O_RDONLY);
	fd2 = open_or_die(path_in(dir, "B"), O_RDONLY);
	expect(read(fd, buf, sz(1)), 1, "read A again");
	if (dup2(fd2, fd) != fd)
		die("dup2", fd);
	expect(read(fd, buf, sz(2)), 2, "read B through A's fd");
	return (0);
}

/* N files, each written 3 bytes and pread 2: 2N pairs. */
static int
mode_many(const char *dir, long n)
{
	char buf[64], name[32];

	for (long i = 0; i < n; i++) {
		int fd;

		(void) snprintf(name, sizeof (name), "m%05ld", i);
		fd = open_or_die(path_in(dir, name), O_RDWR | O_CREAT | O_TRUNC);
		expect(write(fd, "abc", 3), 3, "write");
		expect(pread(fd, buf, sz(2), 0), 2, "pread");
		(void) close(fd);
	}
	return (0);
}

/*
 * N calls of process_vm_readv on pids 1..N with no iovecs: the kernel
 * returns 0 before it looks the pid up, so no process is touched, but
 * each pid is a new path.  Enough of them overflow the tables.
 */
static int
mode_pids(long n)
{
	for (long pid = 1; pid <= n; pid++) {
		if (process_vm_readv((pid_t)pid, NULL, 0, NULL, 0, 0) != 0)
			die("empty process_vm_readv", pid);
	}
	return (0);
}

/* One read of 4 bytes from DIR/NAME (a name with control bytes). */
static int
mode_escape(const char *dir, const char *name)
{
	char buf[64];
	int fd = open_or_die(path_in(dir, name), O_RDONLY);

	expect(read(fd, buf, sz(4)), 4, "read");
	return (0);
}

static _Noreturn void
usage(void)
{
	say("usage: pc_victim plan DATA | threads DATA N | fork DATA |\n"
	    "       exit HOW DATA | reuse DIR | many DIR N | pids N |\n"
	    "       escape DIR NAME | idle\n");
	exit(1);
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (strcmp(mode, "plan") == 0 && argc == 3)
		return (mode_plan(argv[2]));
	if (strcmp(mode, "threads") == 0 && argc == 4)
		return (mode_threads(argv[2], atol(argv[3])));
	if (strcmp(mode, "fork") == 0 && argc == 3)
		return (mode_fork(argv[2]));
	if (strcmp(mode, "exit") == 0 && argc == 4)
		return (mode_exit(argv[2], argv[3]));
	if (strcmp(mode, "reuse") == 0 && argc == 3)
		return (mode_reuse(argv[2]));
	if (strcmp(mode, "many") == 0 && argc == 4)
		return (mode_many(argv[2], atol(argv[3])));
	if (strcmp(mode, "pids") == 0 && argc == 3)
		return (mode_pids(atol(argv[2])));
	if (strcmp(mode, "escape") == 0 && argc == 4)
		return (mode_escape(argv[2], argv[3]));
	if (strcmp(mode, "idle") == 0 && argc == 2)
		return (0);
	usage();
}
