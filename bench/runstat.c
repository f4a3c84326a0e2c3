/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * runstat: run a command once, print its wall time, peak RSS and CPU time.
 *
 * Usage: runstat [-o FILE] COMMAND [ARG...]
 *
 * The command's stdout goes to FILE (default /dev/null); its stderr is
 * inherited.  When it ends, runstat prints one line on its own stdout:
 *
 *	WALL_SECONDS MAXRSS_KIB STATUS CPU_SECONDS
 *
 * WALL_SECONDS is from fork to reaping (CLOCK_MONOTONIC); MAXRSS_KIB is
 * ru_maxrss from wait4 (the largest resident set of the command or of any
 * child it waited for); STATUS is the exit status, or 128 + the signal;
 * CPU_SECONDS is ru_utime + ru_stime from wait4 (all its threads, and
 * the children it waited for).
 * runstat exits 0 when it could run the command, whatever its status.
 */
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
}

static void
usage(void)
{
	(void) fprintf(stderr, "usage: runstat [-o FILE] COMMAND [ARG...]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	const char *out = "/dev/null";
	struct rusage ru;
	double t0, t1;
	pid_t pid;
	int c, st, fd;

	while ((c = getopt(argc, argv, "+o:")) != -1) {
		if (c != 'o')
			usage();
		out = optarg;
	}
	if (optind >= argc)
		usage();
	/*
	 * Started with fd 0, 1 or 2 closed, the output file would be one of
	 * them: they are /dev/null's first.
	 */
	while ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0 && fd <= 2)
		(void) fcntl(fd, F_SETFD, 0);
	if (fd > 2)
		(void) close(fd);

	/*
	 * The output file is opened, and the last run's output in it thrown
	 * away, here: the pages freed are not the command's work, and the
	 * child's time until exec is counted as the command's.
	 */
	if ((fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) < 0) {
		(void) fprintf(stderr, "runstat: %s: %s\n", out,
		    strerror(errno));
		return (1);
	}
	(void) fflush(stdout);
	t0 = now();
	if ((pid = fork()) < 0) {
		(void) fprintf(stderr, "runstat: fork: %s\n", strerror(errno));
		return (1);
	}
	if (pid == 0) {
		if (dup2(fd, 1) < 0) {
			(void) fprintf(stderr, "runstat: %s: %s\n", out,
			    strerror(errno));
			_exit(126);
		}
		(void) execvp(argv[optind], argv + optind);
		(void) fprintf(stderr, "runstat: %s: %s\n", argv[optind],
		    strerror(errno));
		_exit(127);
	}
	(void) close(fd);
	while (wait4(pid, &st, 0, &ru) < 0) {
		if (errno != EINTR) {
			(void) fprintf(stderr, "runstat: wait4: %s\n",
			    strerror(errno));
			return (1);
		}
	}
	t1 = now();
	(void) printf("%.6f %ld %d %.6f\n", t1 - t0, ru.ru_maxrss,
	    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
	    (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
	return (0);
}
