/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * race_helper: targets for t_race, whose pfiles a wrapper (race_shim.so)
 * stops at one exact call while the target changes.  The helper says
 * what it made, from its own view, on stdout ("KEY VALUE..." lines, then
 * "ready"), and then serves commands until its stdin is closed.
 *
 *	race_helper files DIR CMD ACK	fd "a": DIR/race-a read-only, fd
 *					"b": DIR/race-b write-only, append,
 *					fd "c": DIR/race-c read-write
 *	race_helper sockets CMD ACK	fds "a", "b" and "c": TCP listeners
 *					on 127.0.0.1
 *	race_helper sockets-thread CMD ACK  the same, the commands served
 *					by a second thread while the main
 *					thread (the one the agent borrows)
 *					waits for it
 *	race_helper reaped		a child with one TCP listener, which
 *					this process reaps when it dies:
 *					"target PID"
 *	race_helper zthread FILE	a thread that waits for a byte on
 *					stdin and exits ("thread TID"), then
 *					FILE open in a second thread, and the
 *					main thread exits
 *	race_helper fusehold FILE	a thread with an fd table of its
 *					own (unshare(CLONE_FILES)) opens FILE
 *					("file FD INO PATH"; on a FUSE
 *					filesystem whose server then stops
 *					answering, the thread's exit waits on
 *					the close's FLUSH after the main
 *					thread has exited: the process has no
 *					namespaces and is not gone); the main
 *					thread holds a TCP listener ("sock")
 *	race_helper linger PORT		a TCP connection to 127.0.0.1:PORT
 *					(a peer that reads nothing), data
 *					waiting to be sent for good (the
 *					peer's window is shut), then SO_LINGER
 *					on for 1 s: "linger FD"
 *	race_helper holders		a unix socket pair: one end
 *					("theirs") a child holds (the
 *					target), the other ("mine") this
 *					process and a second child (the
 *					holder): "target PID", "holder PID"
 *	race_helper latecomer CMD ACK	a child (the target) that keeps
 *					every fd sent to it: a line "late"
 *					on CMD makes a new socket pair, one
 *					end sent to the target, the other
 *					kept here ("got FD", "mine FD" on
 *					stdout; "done FD" on ACK);
 *					latecomer-netns: the same in a network
 *					namespace of its own ("skip ERRNO"
 *					when it cannot make one)
 *	race_helper noopt OPT PROG ARG...  run PROG, in which getsockopt
 *					of SOL_SOCKET option OPT fails with
 *					ENOPROTOOPT, as a kernel that does
 *					not know OPT answers (a seccomp filter)
 *
 * Each fd is said as "KEY FD INO PATH" (files) or "KEY FD INO PORT"
 * (sockets).  CMD and ACK are fifos: a line "dup2 FROM TO" read from CMD
 * is done, then "done INO\n" (TO's inode, by fstat) is written into ACK.
 * "flip TO X Y": X is put onto TO (dup2), or Y when TO holds X's file
 * already, so that each flip replaces TO's file with another one.
 * "close FD": FD is closed, then "done 0".
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "isa.h"

static _Noreturn void
die(const char *what)
{
	(void) fprintf(stderr, "race_helper: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void
ready(void)
{
	(void) printf("ready\n");
	(void) fflush(stdout);
}

/* Wait until stdin is closed: the test's word to exit. */
static void
wait_stdin(void)
{
	ssize_t n;
	char c;

	(void) fflush(stdout);
	while ((n = read(0, &c, 1)) > 0 || (n < 0 && errno == EINTR))
		;
}

static unsigned long long
ino_of(int fd)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		die("fstat");
	return ((unsigned long long)st.st_ino);
}

/* Do what the lines of cmd say, answer into ack, until stdin closes. */
/*
 * "late" (mode latecomer): a new socket pair, one end sent to the target
 * (it keeps it), the other kept here; the fd the target got, said on
 * stdout ("got FD") and returned.
 */
static int late_ctl = -1;

static int
late_pair(void)
{
	char cbuf[CMSG_SPACE(sizeof (int))];
	struct msghdr mh;
	struct iovec iov;
	struct cmsghdr *cm;
	int sv[2], got = -1;
	char c = 'f';

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		die("socketpair");
	memset(&mh, 0, sizeof (mh));
	memset(cbuf, 0, sizeof (cbuf));
	iov.iov_base = &c;
	iov.iov_len = 1;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof (cbuf);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof (int));
	memcpy(CMSG_DATA(cm), &sv[0], sizeof (int));
	if (sendmsg(late_ctl, &mh, 0) != 1 ||
	    read(late_ctl, &got, sizeof (got)) != (ssize_t)sizeof (got))
		die("late");
	(void) close(sv[0]);
	(void) printf("got %d\nmine %d\n", got, sv[1]);
	(void) fflush(stdout);
	return (got);
}

/* The target of "latecomer": keeps every fd sent to it, says which. */
static void
late_target(int ctl)
{
	char cbuf[CMSG_SPACE(sizeof (int))], c;
	struct msghdr mh;
	struct iovec iov;
	int fd;

	for (;;) {
		memset(&mh, 0, sizeof (mh));
		iov.iov_base = &c;
		iov.iov_len = 1;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof (cbuf);
		if (recvmsg(ctl, &mh, 0) <= 0)
			_exit(0);
		if (CMSG_FIRSTHDR(&mh) == NULL)
			continue;
		memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof (fd));
		if (write(ctl, &fd, sizeof (fd)) != (ssize_t)sizeof (fd))
			_exit(1);
	}
}

/* One command line of CMD, done; its answer written into ack. */
static void
command(const char *line, int ack)
{
	char out[64];
	int from, to, other, n;

	if (strcmp(line, "late") == 0) {
		n = snprintf(out, sizeof (out), "done %d\n", late_pair());
	} else if (sscanf(line, "close %d", &to) == 1) {
		if (close(to) != 0)
			die(line);
		n = snprintf(out, sizeof (out), "done 0\n");
	} else {
		if (sscanf(line, "flip %d %d %d", &to, &from, &other) == 3) {
			if (ino_of(to) == ino_of(from))
				from = other;
		} else if (sscanf(line, "dup2 %d %d", &from, &to) != 2) {
			die(line);
		}
		if (dup2(from, to) != to)
			die(line);
		n = snprintf(out, sizeof (out), "done %llu\n", ino_of(to));
	}
	if (write(ack, out, (size_t)n) != n)
		die("write ack");
}

static void
serve(const char *cmdpath, const char *ackpath)
{
	char line[128];
	size_t len = 0;
	int cmd, ack;

	/* Read-write: neither open waits, and neither end ever sees EOF. */
	if ((cmd = open(cmdpath, O_RDWR | O_CLOEXEC)) < 0 ||
	    (ack = open(ackpath, O_RDWR | O_CLOEXEC)) < 0)
		die("open fifo");
	ready();
	for (;;) {
		struct pollfd pfd[2] = { { 0, POLLIN, 0 }, { cmd, POLLIN, 0 } };
		char c;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (pfd[0].revents != 0) {
			ssize_t n = read(0, &c, 1);

			if (n == 0 || (n < 0 && errno != EINTR))
				break;
		}
		if (!(pfd[1].revents & POLLIN) || read(cmd, &c, 1) != 1)
			continue;
		if (c != '\n') {
			if (len < sizeof (line) - 1)
				line[len++] = c;
			continue;
		}
		line[len] = '\0';
		len = 0;
		command(line, ack);
	}
}

static int
mode_files(const char *dir, const char *cmd, const char *ack)
{
	char a[4096], b[4096], c[4096];
	int fa, fb, fc;

	(void) snprintf(a, sizeof (a), "%s/race-a", dir);
	(void) snprintf(b, sizeof (b), "%s/race-b", dir);
	(void) snprintf(c, sizeof (c), "%s/race-c", dir);
	if ((fa = open(a, O_RDONLY | O_CREAT, 0644)) < 0 ||
	    (fb = open(b, O_WRONLY | O_APPEND | O_CREAT, 0644)) < 0 ||
	    (fc = open(c, O_RDWR | O_CREAT, 0644)) < 0)
		die("open");
	(void) printf("a %d %llu %s\nb %d %llu %s\nc %d %llu %s\n", fa,
	    ino_of(fa), a, fb, ino_of(fb), b, fc, ino_of(fc), c);
	serve(cmd, ack);
	(void) unlink(a);
	(void) unlink(b);
	(void) unlink(c);
	return (0);
}

/* A TCP listener on 127.0.0.1; its port in *portp. */
static int
listener(unsigned *portp)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof (sin);
	int s;

	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    bind(s, (struct sockaddr *)&sin, sizeof (sin)) != 0 ||
	    listen(s, 1) != 0 ||
	    getsockname(s, (struct sockaddr *)&sin, &len) != 0)
		die("listener");
	*portp = ntohs(sin.sin_port);
	return (s);
}

/* serve() in a thread of its own: paths are CMD and ACK. */
static void *
serving_thread(void *paths)
{
	const char *const *p = paths;

	serve(p[0], p[1]);
	return (NULL);
}

static int
mode_sockets(const char *cmd, const char *ack, int threaded)
{
	unsigned pa, pb, pc;
	int a = listener(&pa), b = listener(&pb), c = listener(&pc);

	(void) printf("a %d %llu %u\nb %d %llu %u\nc %d %llu %u\n", a,
	    ino_of(a), pa, b, ino_of(b), pb, c, ino_of(c), pc);
	if (threaded) {
		pthread_t t;
		const char *paths[2] = { cmd, ack };

		/* The main thread waits in pthread_join (the agent's). */
		if (pthread_create(&t, NULL, serving_thread, paths) != 0)
			die("pthread_create");
		(void) pthread_join(t, NULL);
	} else {
		serve(cmd, ack);
	}
	return (0);
}

static int
mode_reaped(void)
{
	pid_t kid;
	int st;

	(void) fflush(stdout);
	if ((kid = fork()) < 0)
		die("fork");
	if (kid == 0) {
		unsigned port;
		int s = listener(&port);

		(void) printf("target %d\nsock %d %llu %u\n", (int)getpid(), s,
		    ino_of(s), port);
		ready();
		wait_stdin();
		_exit(0);
	}
	/* Its end, whatever it is, is reaped at once. */
	while (waitpid(kid, &st, 0) < 0 && errno == EINTR)
		;
	wait_stdin();
	return (0);
}

static void *
exiting_thread(void *arg)
{
	char c;

	(void) arg;
	(void) printf("thread %ld\n", (long)syscall(SYS_gettid));
	(void) fflush(stdout);
	while (read(0, &c, 1) < 0 && errno == EINTR)
		;
	return (NULL);
}

static const char *zfile;

/* Opens zfile, says so, and holds it until stdin ends; then exits. */
static void
hold_zfile(void)
{
	int f;

	if ((f = open(zfile, O_RDONLY)) < 0)
		die("open");
	(void) printf("file %d %llu %s\n", f, ino_of(f), zfile);
	ready();
	wait_stdin();
	exit(0);
}

static void *
living_thread(void *arg)
{
	(void) arg;
	hold_zfile();
	return (NULL);
}

static int
mode_zthread(const char *file)
{
	pthread_t t;

	zfile = file;
	/* First in the thread list: exits once the test has it traced. */
	if (pthread_create(&t, NULL, exiting_thread, NULL) != 0 ||
	    pthread_join(t, NULL) != 0)
		die("pthread");
	/* The kernel's thread may outlive the join: a tracer holds it. */
	if (pthread_create(&t, NULL, living_thread, NULL) != 0)
		die("pthread_create");
	pthread_exit(NULL);
	return (0);
}

static void *
own_table_thread(void *arg)
{
	(void) arg;
	if (unshare(CLONE_FILES) != 0)
		die("unshare CLONE_FILES");
	hold_zfile();
	return (NULL);
}

static int
mode_fusehold(const char *file)
{
	unsigned port;
	pthread_t t;
	int s = listener(&port);

	(void) printf("sock %d %llu %u\n", s, ino_of(s), port);
	zfile = file;
	if (pthread_create(&t, NULL, own_table_thread, NULL) != 0)
		die("pthread_create");
	for (;;)
		(void) pause();
	return (0);
}

static int
mode_linger(const char *port)
{
	struct linger lg = { 1, 1 };
	struct sockaddr_in sin;
	static char buf[65536];
	int s, small = 4096, i;

	memset(&sin, 0, sizeof (sin));
	memset(buf, 'x', sizeof (buf));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)atoi(port));
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_SNDBUF, &small, sizeof (small)) != 0 ||
	    connect(s, (struct sockaddr *)&sin, sizeof (sin)) != 0 ||
	    fcntl(s, F_SETFL, O_NONBLOCK) != 0)
		die("connect");
	/*
	 * Until the peer has shut its window and data of ours waits: then
	 * the FIN of a close cannot go, and a close that lingers waits.
	 */
	for (i = 0; i < 100000; i++) {
		struct pollfd pfd = { s, POLLOUT, 0 };
		struct tcp_info ti;
		socklen_t len = sizeof (ti);

		if (send(s, buf, sizeof (buf), MSG_NOSIGNAL) >= 0)
			continue;
		if (errno != EAGAIN)
			die("send");
		memset(&ti, 0, sizeof (ti));
		if (getsockopt(s, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0)
			die("TCP_INFO");
		if (ti.tcpi_snd_wnd == 0 && ti.tcpi_notsent_bytes > 0)
			break;
		(void) poll(&pfd, 1, 100);
	}
	if (i == 100000) {
		errno = EAGAIN;
		die("the peer's window never shut");
	}
	if (setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof (lg)) != 0)
		die("SO_LINGER");
	(void) printf("linger %d\n", s);
	ready();
	wait_stdin();
	return (0);
}

/* The low 32 bits of system call argument i (an int). */
#define	ARG_LO(i)	(offsetof(struct seccomp_data, args) + 8 * (i))

static int
mode_noopt(int opt, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ISA_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getsockopt, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOL_SOCKET, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)opt, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOPROTOOPT),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof (f) / sizeof (f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		die("seccomp");
	(void) execv(argv[0], argv);
	die("exec");
	return (127);
}

static int
mode_latecomer(const char *cmd, const char *ack, int netns)
{
	pid_t target;
	int ctl[2], st;

	/* Its own network namespace: socket tables of a few sockets. */
	if (netns && unshare(CLONE_NEWNET) != 0) {
		(void) printf("skip %d\n", errno);
		ready();
		wait_stdin();
		return (0);
	}

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl) != 0)
		die("socketpair");
	(void) fflush(stdout);
	if ((target = fork()) < 0)
		die("fork");
	if (target == 0) {
		/*
		 * In its own namespace, a few pairs of its own: the lookups
		 * of its sockets soon add up to half the tables' size (with
		 * the kernel's own netlink sockets), which are read again.
		 */
		for (int i = 0; netns && i < 4; i++) {
			int sv[2];

			if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
				_exit(1);
		}
		(void) close(ctl[0]);
		late_target(ctl[1]);
	}
	(void) close(ctl[1]);
	late_ctl = ctl[0];
	(void) printf("target %d\n", (int)target);
	serve(cmd, ack);
	(void) close(late_ctl);
	while (waitpid(target, &st, 0) < 0 && errno == EINTR)
		;
	return (0);
}

static int
mode_holders(void)
{
	unsigned long long theirs;
	pid_t target, holder;
	int sv[2], st;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		die("socketpair");
	(void) fflush(stdout);
	if ((target = fork()) < 0)
		die("fork");
	if (target == 0) {
		(void) close(sv[1]);
		wait_stdin();
		_exit(0);
	}
	if ((holder = fork()) < 0)
		die("fork");
	if (holder == 0) {
		(void) close(sv[0]);
		wait_stdin();
		_exit(0);
	}
	theirs = ino_of(sv[0]);
	(void) close(sv[0]);
	(void) printf("target %d\nholder %d\nmine %d %llu 0\n"
	    "theirs %d %llu 0\n", (int)target, (int)holder, sv[1],
	    ino_of(sv[1]), sv[0], theirs);
	ready();
	wait_stdin();
	while (waitpid(target, &st, 0) < 0 && errno == EINTR)
		;
	while (waitpid(holder, &st, 0) < 0 && errno == EINTR)
		;
	return (0);
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	(void) setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(mode, "files") == 0 && argc == 5)
		return (mode_files(argv[2], argv[3], argv[4]));
	if (strcmp(mode, "sockets") == 0 && argc == 4)
		return (mode_sockets(argv[2], argv[3], 0));
	if (strcmp(mode, "sockets-thread") == 0 && argc == 4)
		return (mode_sockets(argv[2], argv[3], 1));
	if (strcmp(mode, "reaped") == 0)
		return (mode_reaped());
	if (strcmp(mode, "zthread") == 0 && argc == 3)
		return (mode_zthread(argv[2]));
	if (strcmp(mode, "fusehold") == 0 && argc == 3)
		return (mode_fusehold(argv[2]));
	if (strcmp(mode, "linger") == 0 && argc == 3)
		return (mode_linger(argv[2]));
	if (strcmp(mode, "holders") == 0)
		return (mode_holders());
	if (strcmp(mode, "latecomer") == 0 && argc == 4)
		return (mode_latecomer(argv[2], argv[3], 0));
	if (strcmp(mode, "latecomer-netns") == 0 && argc == 4)
		return (mode_latecomer(argv[2], argv[3], 1));
	if (strcmp(mode, "noopt") == 0 && argc > 3)
		return (mode_noopt(atoi(argv[2]), argv + 3));
	(void) fprintf(stderr, "usage: race_helper files DIR CMD ACK | "
	    "sockets[-thread] CMD ACK | reaped | zthread FILE | fusehold FILE | "
	    "linger PORT | "
	    "holders | latecomer[-netns] CMD ACK | noopt OPT PROG ARG...\n");
	return (2);
}
