/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * seedlike: a test-only program that reads /proc the way the seed's pfiles
 * did on illumos, so that t_budget can show that its budget checker
 * catches that pattern.
 *
 * Usage: seedlike [-a AS] [-l LWP] [-f FDINFO] NSOCK
 *
 * It opens NSOCK sockets, writes "seedlike pid = P" on stdout and then
 * "examines" each socket as the seed's pfiles examined a socket of its
 * target, except that its target is itself:
 *
 *	AS	preads of 8 bytes of /proc/self/mem (illumos: /proc/PID/as),
 *		default 230;
 *	LWP	preads of /proc/self/task/TID/status (illumos: lwpstatus),
 *		default 50;
 *	FDINFO	reads of /proc/self/fdinfo/FD, the socket's own fdinfo,
 *		each after its own open (pfiles on Linux reads it once),
 *		default 0.
 *
 * The defaults are the seed's dtrace numbers, 230 + 50 = 280 per socket.
 * Every read goes through read(2) or pread(2), the public entries that
 * libpreadcount.so counts.  It exits 0, or 1 with a message on stderr.
 */
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define	NSOCK_MAX	10000
#define	READS_MAX	100000

static void
die(const char *what)
{
	(void) fprintf(stderr, "seedlike: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void
usage(void)
{
	(void) fprintf(stderr, "usage: seedlike [-a AS] [-l LWP] [-f FDINFO] "
	    "NSOCK\n");
	exit(1);
}

static long
number(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0 || v < 0 || v > max)
		usage();
	return (v);
}

/* One "socket": the reads the counts ask for. */
static void
examine(int sock, long as, long lwp, long fdinfo, int memfd, int lwpfd)
{
	static volatile uint64_t word = 0x5eedUL;
	char buf[4096];

	for (long i = 0; i < as; i++) {
		if (pread(memfd, buf, 8, (off_t)(uintptr_t)&word) != 8)
			die("pread /proc/self/mem");
	}
	for (long i = 0; i < lwp; i++) {
		if (pread(lwpfd, buf, sizeof (buf), 0) <= 0)
			die("pread lwp status");
	}
	for (long i = 0; i < fdinfo; i++) {
		char path[64];
		int fd;

		(void) snprintf(path, sizeof (path), "/proc/self/fdinfo/%d",
		    sock);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			die(path);
		if (read(fd, buf, sizeof (buf)) <= 0)
			die(path);
		(void) close(fd);
	}
}

int
main(int argc, char **argv)
{
	long as = 230, lwp = 50, fdinfo = 0, nsock;
	char lwppath[64];
	int c, memfd, lwpfd, *socks;

	while ((c = getopt(argc, argv, "a:l:f:")) != -1) {
		switch (c) {
		case 'a':
			as = number(optarg, READS_MAX);
			break;
		case 'l':
			lwp = number(optarg, READS_MAX);
			break;
		case 'f':
			fdinfo = number(optarg, READS_MAX);
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 1)
		usage();
	nsock = number(argv[optind], NSOCK_MAX);

	if ((socks = calloc((size_t)nsock + 1, sizeof (int))) == NULL)
		die("calloc");
	for (long i = 0; i < nsock; i++) {
		if ((socks[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
		    0)) < 0)
			die("socket");
	}
	if ((memfd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC)) < 0)
		die("/proc/self/mem");
	(void) snprintf(lwppath, sizeof (lwppath), "/proc/self/task/%ld/status",
	    (long)syscall(SYS_gettid));
	if ((lwpfd = open(lwppath, O_RDONLY | O_CLOEXEC)) < 0)
		die(lwppath);

	(void) printf("seedlike pid = %ld\n", (long)getpid());
	if (fflush(stdout) != 0)
		die("stdout");
	for (long i = 0; i < nsock; i++)
		examine(socks[i], as, lwp, fdinfo, memfd, lwpfd);

	for (long i = 0; i < nsock; i++)
		(void) close(socks[i]);
	(void) close(memfd);
	(void) close(lwpfd);
	free(socks);
	return (0);
}
