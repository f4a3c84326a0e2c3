/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * replay.c: the replay driver.  Runs the harness once on each file named
 * on the command line, and on each regular file of each directory named,
 * then prints how many inputs it ran.  Built with ASan and UBSan for
 * make check (atf/t_fuzz_replay.c), it turns the corpus into a
 * regression suite, and it is how a crash found by the fuzzer is
 * reproduced and debugged:
 *
 *	build/fuzz/replay-fdinfo fuzz/out/fdinfo/default/crashes/id:000000*
 *
 * When an input makes the harness die (a sanitizer report, a failed
 * invariant, a signal), the name of that input is printed on stderr.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Built with ASan (gcc says so by a macro, clang by a feature): its death
 * callback names the input too.  A cross build may have none (make).
 */
#if defined(__SANITIZE_ADDRESS__)
#define	FUZZ_ASAN
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define	FUZZ_ASAN
#endif
#endif
#if defined(FUZZ_ASAN) && defined(__has_include)
#if __has_include(<sanitizer/common_interface_defs.h>)
#include <sanitizer/common_interface_defs.h>
#define	HAVE_SANITIZER_DEATH_CALLBACK
#endif
#endif

#include "fuzz.h"

static const char *current;	/* the input being run, for the epitaph */

static void
say_current(void)
{
	static const char pfx[] = "replay: the input that failed: ";

	if (current == NULL)
		return;
	/* Only write(2): this runs inside a signal handler too. */
	(void) write(STDERR_FILENO, pfx, sizeof (pfx) - 1);
	(void) write(STDERR_FILENO, current, strlen(current));
	(void) write(STDERR_FILENO, "\n", 1);
}

static void
on_fatal_signal(int sig)
{
	say_current();
	(void) signal(sig, SIG_DFL);
	(void) raise(sig);
}

static void
catch_deaths(void)
{
	static const int sigs[] = { SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL };

	for (size_t i = 0; i < sizeof (sigs) / sizeof (sigs[0]); i++)
		(void) signal(sigs[i], on_fatal_signal);
#ifdef	HAVE_SANITIZER_DEATH_CALLBACK
	__sanitizer_set_death_callback(say_current);
#endif
}

/* Read all of path into a buffer of exactly its size; -1 on error. */
static int
read_input(const char *path, uint8_t **bufp, size_t *lenp)
{
	struct stat st;
	uint8_t *buf;
	size_t len, got = 0;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
	    fstat(fd, &st) != 0) {
		(void) fprintf(stderr, "replay: %s: %s\n", path,
		    strerror(errno));
		if (fd >= 0)
			(void) close(fd);
		return (-1);
	}
	len = (size_t)st.st_size;
	if ((buf = malloc(len)) == NULL) {
		(void) fprintf(stderr, "replay: %s: out of memory\n", path);
		(void) close(fd);
		return (-1);
	}
	while (got < len && (n = read(fd, buf + got, len - got)) > 0)
		got += (size_t)n;
	(void) close(fd);
	if (got != len) {
		(void) fprintf(stderr, "replay: %s: short read\n", path);
		free(buf);
		return (-1);
	}
	*bufp = buf;
	*lenp = len;
	return (0);
}

static int
run_file(const char *path)
{
	uint8_t *buf;
	size_t len;

	if (read_input(path, &buf, &len) != 0)
		return (-1);
	current = path;
	(void) LLVMFuzzerTestOneInput(buf, len);
	current = NULL;
	free(buf);
	return (0);
}

/* Every regular file of dir; returns how many ran, or -1. */
static long
run_dir(const char *dir)
{
	struct dirent *de;
	struct stat st;
	char path[4096];
	long n = 0;
	DIR *d;

	if ((d = opendir(dir)) == NULL) {
		(void) fprintf(stderr, "replay: %s: %s\n", dir,
		    strerror(errno));
		return (-1);
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof (path), "%s/%s", dir,
		    de->d_name) >= sizeof (path) || stat(path, &st) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (run_file(path) != 0) {
			n = -1;
			break;
		}
		n++;
	}
	(void) closedir(d);
	return (n);
}

int
main(int argc, char **argv)
{
	struct stat st;
	long total = 0, n;

	if (argc < 2) {
		(void) fprintf(stderr, "usage: %s FILE|DIR ...\n", argv[0]);
		return (2);
	}
	catch_deaths();
	for (int i = 1; i < argc; i++) {
		if (stat(argv[i], &st) != 0) {
			(void) fprintf(stderr, "replay: %s: %s\n", argv[i],
			    strerror(errno));
			return (1);
		}
		n = S_ISDIR(st.st_mode) ? run_dir(argv[i]) :
		    run_file(argv[i]) == 0 ? 1 : -1;
		if (n < 0)
			return (1);
		total += n;
	}
	(void) printf("replay: %ld inputs\n", total);
	return (0);
}
