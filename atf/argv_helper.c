/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * argv_helper: a process that rewrites its command line in place, as
 * setproctitle(3), redis-server and postgres do: the new arguments are
 * written over the old argument area and NULs fill it to its end, so
 * that /proc/PID/cmdline ends in a run of NULs.
 *
 *	argv_helper [-s] PAD ARG ...
 *
 * The new arguments are ARG ...; PAD only makes the old area longer than
 * them.  With -s, the helper also holds a unix socketpair.  It says, on
 * stdout, "args" and its new arguments joined by single spaces, "sockets"
 * and how many it holds, then "ready", and waits until its stdin is
 * closed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void
die(const char *what)
{
	(void) fprintf(stderr, "argv_helper: %s: %s\n", what,
	    strerror(errno));
	exit(1);
}

int
main(int argc, char **argv)
{
	int sockets = 0, first = 1, sv[2];
	char *area, *end, *copy, *p;
	size_t len = 0, n;
	ssize_t got;
	char c;

	if (argc > 1 && strcmp(argv[1], "-s") == 0) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
			die("socketpair");
		sockets = 2;
		first = 2;
	}
	if (argc < first + 2) {
		(void) fprintf(stderr, "usage: argv_helper [-s] PAD ARG ...\n");
		return (2);
	}
	/* The old area: argv[0] to the NUL of the last argument. */
	area = argv[0];
	end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
	for (int i = first + 1; i < argc; i++)
		len += strlen(argv[i]) + 1;
	if ((copy = malloc(len)) == NULL)
		die("malloc");
	p = copy;
	for (int i = first + 1; i < argc; i++) {
		n = strlen(argv[i]) + 1;
		(void) memcpy(p, argv[i], n);
		p += n;
	}
	if (len >= (size_t)(end - area)) {
		(void) fprintf(stderr, "argv_helper: PAD too short\n");
		return (2);
	}
	(void) memset(area, '\0', (size_t)(end - area));
	(void) memcpy(area, copy, len);

	/* Its own view: the new arguments, NULs as single spaces. */
	(void) fputs("args ", stdout);
	for (size_t i = 0; i + 1 < len; i++)
		(void) putchar(copy[i] == '\0' ? ' ' : copy[i]);
	(void) printf("\nsockets %d\nready\n", sockets);
	(void) fflush(stdout);
	free(copy);
	while ((got = read(0, &c, 1)) > 0 || (got < 0 && errno == EINTR))
		;
	return (0);
}
