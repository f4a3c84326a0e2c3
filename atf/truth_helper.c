/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * truth_helper: targets for t_truth, each one of the situations in which
 * pfiles once printed something false.  The helper says what it made,
 * from its own view, on stdout ("KEY VALUE..." lines, then "ready"), and
 * then waits until its stdin is closed (or is killed).
 *
 *	truth_helper fds N		N more fds (pipes), "count K": all fds
 *	truth_helper churn DIR		fd 20 switched between two files by a
 *					thread, as fast as it can
 *	truth_helper deep DIR		a file open at a path > PATH_MAX
 *	truth_helper opath DIR		an O_PATH fd on a unix socket file
 *	truth_helper mainexit FILE	FILE open and a unix socketpair, then
 *					the main thread exits
 *	truth_helper seccomp NR		sockets, then system call NR fails
 *					with EPERM (a seccomp filter)
 *	truth_helper pair		a unix socketpair
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define	CHURN_FD	20
#define	DEEP_LEVELS	24
#define	DEEP_NAME	200	/* bytes of each directory's name */

static void
die(const char *what)
{
	(void) fprintf(stderr, "truth_helper: %s: %s\n", what,
	    strerror(errno));
	exit(1);
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

static void
ready(void)
{
	(void) printf("ready\n");
	(void) fflush(stdout);
}

/*
 * Every fd of this process but the one reading the list; with longp,
 * also how many of them have a path the kernel cannot give (longer than
 * PATH_MAX), as this process's own readlink says.
 */
static int
count_fds_long(int *longp)
{
	DIR *d = opendir("/proc/self/fd");
	char path[300], link[PATH_MAX];
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		die("opendir /proc/self/fd");
	if (longp != NULL)
		*longp = 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
			continue;
		n++;
		(void) snprintf(path, sizeof (path), "/proc/self/fd/%s",
		    e->d_name);
		if (longp != NULL && readlink(path, link, sizeof (link)) < 0 &&
		    errno == ENAMETOOLONG)
			(*longp)++;
	}
	(void) closedir(d);
	return (n);
}

static int
count_fds(void)
{
	return (count_fds_long(NULL));
}

static int
mode_fds(int n)
{
	int p[2];

	for (int i = 0; i < n / 2; i++) {
		if (pipe(p) != 0)
			die("pipe");
	}
	(void) printf("count %d\n", count_fds());
	ready();
	wait_stdin();
	return (0);
}

static int churn_a, churn_b;

static void *
churner(void *arg)
{
	(void) arg;
	for (;;) {
		(void) dup2(churn_a, CHURN_FD);
		(void) dup2(churn_b, CHURN_FD);
	}
	return (NULL);
}

static void
say_file(const char *key, int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		die("fstat");
	(void) printf("%s %llu %s\n", key, (unsigned long long)st.st_ino,
	    path);
}

static int
mode_churn(const char *dir)
{
	char a[PATH_MAX], b[PATH_MAX];
	pthread_t t;

	(void) snprintf(a, sizeof (a), "%s/churn-a", dir);
	(void) snprintf(b, sizeof (b), "%s/churn-b", dir);
	if ((churn_a = open(a, O_RDONLY | O_CREAT, 0644)) < 0 ||
	    (churn_b = open(b, O_WRONLY | O_APPEND | O_CREAT, 0644)) < 0)
		die("open");
	say_file("rdonly", churn_a, a);
	say_file("append", churn_b, b);
	if (dup2(churn_a, CHURN_FD) != CHURN_FD)
		die("dup2");
	if (pthread_create(&t, NULL, churner, NULL) != 0)
		die("pthread_create");
	ready();
	wait_stdin();
	return (0);
}

/*
 * A chain of directories whose path is longer than PATH_MAX, made and
 * entered relative to each other, a file open at its bottom.  The chain
 * is removed again before exit.
 */
static int
mode_deep(const char *dir)
{
	char name[DEEP_NAME + 1];
	int fds[DEEP_LEVELS + 1], f, n, nlong;

	(void) memset(name, 'd', DEEP_NAME);
	name[DEEP_NAME] = '\0';
	if ((fds[0] = open(dir, O_PATH | O_DIRECTORY)) < 0)
		die("open dir");
	for (int i = 0; i < DEEP_LEVELS; i++) {
		if (mkdirat(fds[i], name, 0755) != 0 ||
		    (fds[i + 1] = openat(fds[i], name, O_PATH |
		    O_DIRECTORY)) < 0)
			die("mkdirat");
	}
	if ((f = openat(fds[DEEP_LEVELS], "f", O_RDWR | O_CREAT, 0644)) < 0)
		die("openat f");
	n = count_fds_long(&nlong);
	(void) printf("deep %d\ncount %d\nlong %d\n", f, n, nlong);
	ready();
	wait_stdin();
	(void) unlinkat(fds[DEEP_LEVELS], "f", 0);
	for (int i = DEEP_LEVELS; i > 0; i--)
		(void) unlinkat(fds[i - 1], name, AT_REMOVEDIR);
	return (0);
}

static int
mode_opath(const char *dir)
{
	struct sockaddr_un sun;
	struct stat st;
	int s, f;

	memset(&sun, 0, sizeof (sun));
	sun.sun_family = AF_UNIX;
	(void) snprintf(sun.sun_path, sizeof (sun.sun_path), "%s/sock", dir);
	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    bind(s, (struct sockaddr *)&sun, sizeof (sun)) != 0)
		die("bind");
	(void) close(s);
	if ((f = open(sun.sun_path, O_PATH)) < 0 || fstat(f, &st) != 0)
		die("open O_PATH");
	(void) printf("opath %d %llu %s\n", f, (unsigned long long)st.st_ino,
	    sun.sun_path);
	ready();
	wait_stdin();
	(void) unlink(sun.sun_path);
	return (0);
}

static const char *mainexit_file;

static void *
mainexit_thread(void *arg)
{
	int f;

	(void) arg;
	if ((f = open(mainexit_file, O_RDONLY)) < 0)
		die("open");
	/* Let the main thread go first. */
	while (access("/proc/self", F_OK) == 0) {
		char path[64], state = 0, buf[256];
		FILE *fp;

		(void) snprintf(path, sizeof (path), "/proc/%d/stat",
		    (int)getpid());
		if ((fp = fopen(path, "r")) != NULL) {
			if (fgets(buf, sizeof (buf), fp) != NULL &&
			    strrchr(buf, ')') != NULL)
				state = strrchr(buf, ')')[2];
			(void) fclose(fp);
		}
		if (state == 'Z')
			break;
		(void) usleep(1000);
	}
	(void) printf("file %d %s\n", f, mainexit_file);
	ready();
	wait_stdin();
	exit(0);
	return (NULL);
}

static int
mode_mainexit(const char *file)
{
	pthread_t t;
	int sv[2];

	/* A socket: pidfd is refused where it cannot reach the files. */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		die("socketpair");
	mainexit_file = file;
	if (pthread_create(&t, NULL, mainexit_thread, NULL) != 0)
		die("pthread_create");
	pthread_exit(NULL);
	return (0);
}

/* Refuse system call nr with EPERM from now on, in this process. */
static void
refuse(int nr)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof (f) / sizeof (f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		die("seccomp");
}

static int
mode_seccomp(int nr)
{
	struct sockaddr_in sin;
	int l, p[2];

	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((l = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    bind(l, (struct sockaddr *)&sin, sizeof (sin)) != 0 ||
	    listen(l, 1) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, p) != 0)
		die("sockets");
	(void) printf("sockets %d %d %d\ncount %d\n", l, p[0], p[1],
	    count_fds());
	(void) fflush(stdout);
	refuse(nr);
	ready();
	wait_stdin();
	return (0);
}

static int
mode_pair(void)
{
	int p[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, p) != 0)
		die("socketpair");
	(void) printf("pair %d %d\n", p[0], p[1]);
	ready();
	wait_stdin();
	return (0);
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *arg = argc > 2 ? argv[2] : "";

	(void) setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(mode, "fds") == 0)
		return (mode_fds(atoi(arg)));
	if (strcmp(mode, "churn") == 0)
		return (mode_churn(arg));
	if (strcmp(mode, "deep") == 0)
		return (mode_deep(arg));
	if (strcmp(mode, "opath") == 0)
		return (mode_opath(arg));
	if (strcmp(mode, "mainexit") == 0)
		return (mode_mainexit(arg));
	if (strcmp(mode, "seccomp") == 0)
		return (mode_seccomp(atoi(arg)));
	if (strcmp(mode, "pair") == 0)
		return (mode_pair());
	(void) fprintf(stderr, "usage: truth_helper fds|churn|deep|opath|"
	    "mainexit|seccomp|pair ARG\n");
	return (2);
}
