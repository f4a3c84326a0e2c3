/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cli_util.h: what t_pfiles_cli and t_pfiles_pids share.
 */
#ifndef	_CLI_UTIL_H
#define	_CLI_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include <atf-c.h>

#include "testutil.h"

#define	SLEEP_SECONDS	"600"
#define	WAIT_STEP_US	5000

/* A `sleep' child: its argv, its RLIMIT_NOFILE and its pid as text. */
typedef struct sleeper {
	tu_child_t	sl_child;
	const char *const *sl_argv;
	struct rlimit	sl_nofile;
	char		sl_pid[16];
} sleeper_t;

extern const char *const sleep_argv[];

void	usleep_step(void);

/*
 * Is pid asleep in its sleep?  Until then the dynamic linker may still
 * hold an fd of its own (a shared library being mapped), and pfiles would
 * rightly show it.  /proc/PID/syscall names the system call a blocked
 * task is in: clock_nanosleep or nanosleep.
 */
int	is_sleeping(pid_t pid);

/*
 * Start `sleep' with argv (NULL: sleep_argv) and, when soft is not 0, a
 * soft RLIMIT_NOFILE of soft: the test sets it on itself around the fork
 * (it is single-threaded), so the child's limit is what we set.  Returns
 * once the child sleeps.
 */
void	sleeper_start(sleeper_t *sl, const char *const argv[], rlim_t soft);

void	sleeper_stop(sleeper_t *sl);

/* The command line as the contract prints it, uncut. */
char	*joined_argv(const char *const argv[]);

char	*rlimit_text(rlim_t soft);

/* The two header lines the contract prescribes for a sleeper. */
char	*sleeper_header(const sleeper_t *sl);

const char	*type_word(mode_t mode);

/* The contract's stat line for fd, from a struct stat of the same file. */
char	*stat_line(int fd, const struct stat *st);

/*
 * What `pfiles -n' prints for a sleeper: the header, then fd 0 (the read
 * end of the pipe whose write end the test holds), fd 1 (the write end
 * of the pipe whose read end the test holds) and fd 2 (/dev/null).  The
 * two ends of a pipe are one inode, so the test's fstat is the child's.
 */
char	*sleeper_n_block(const sleeper_t *sl);

/* pfiles args: exit status code, stdout and stderr exactly as given. */
void	expect_pfiles(const char *const args[], int code, const char *out,
	    const char *err);

#endif	/* _CLI_UTIL_H */
