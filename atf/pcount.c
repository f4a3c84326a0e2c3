/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcount: run a program under libpreadcount.so and read what it counted.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pcount.h"

#ifndef	BUILD_DIR
#error	"BUILD_DIR must be defined (atf/Makefile.inc does)"
#endif

extern char **environ;

const char *
pcount_lib(void)
{
	return (BUILD_DIR "/libpreadcount.so");
}

static int
has_prefix(const char *s, const char *prefix)
{
	return (strncmp(s, prefix, strlen(prefix)) == 0);
}

/*
 * The child's environment: ours without LD_PRELOAD, PREADCOUNT_OUT and
 * ASAN_OPTIONS, then those three as the run needs them.  ASan wants its
 * runtime first in the library list and refuses to start otherwise; the
 * counter is preloaded before it, which is harmless (the counter neither
 * allocates nor is instrumented), so the check is turned off.
 */
static char **
child_env(const char *out)
{
	static char preload[4096], outvar[4096], asan[4096];
	const char *old_asan = getenv("ASAN_OPTIONS");
	size_t n = 0, i = 0;
	char **env;

	while (environ[n] != NULL)
		n++;
	if ((env = calloc(n + 4, sizeof (char *))) == NULL)
		return (NULL);
	for (size_t j = 0; j < n; j++) {
		if (has_prefix(environ[j], "LD_PRELOAD=") ||
		    has_prefix(environ[j], "PREADCOUNT_OUT=") ||
		    has_prefix(environ[j], "ASAN_OPTIONS="))
			continue;
		env[i++] = environ[j];
	}
	(void) snprintf(preload, sizeof (preload), "LD_PRELOAD=%s",
	    pcount_lib());
	env[i++] = preload;
	if (out != NULL) {
		(void) snprintf(outvar, sizeof (outvar), "PREADCOUNT_OUT=%s",
		    out);
		env[i++] = outvar;
	}
	(void) snprintf(asan, sizeof (asan), "ASAN_OPTIONS=%s%s"
	    "verify_asan_link_order=0", old_asan != NULL ? old_asan : "",
	    old_asan != NULL && old_asan[0] != '\0' ? ":" : "");
	env[i++] = asan;
	env[i] = NULL;
	return (env);
}

static double
now(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
}

/* Wait for PID at most TIMEOUT_S seconds; kill it after that. */
static int
wait_bounded(pid_t pid, int timeout_s, int *status, char *err, size_t errlen)
{
	double deadline = now() + timeout_s;
	struct timespec tick = { 0, 5 * 1000 * 1000 };

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return (0);
		if (r < 0 && errno != EINTR) {
			(void) snprintf(err, errlen, "waitpid: %s",
			    strerror(errno));
			return (-1);
		}
		if (now() > deadline) {
			(void) kill(pid, SIGKILL);
			(void) waitpid(pid, status, 0);
			(void) snprintf(err, errlen, "%s: still running after "
			    "%d s; killed", "child", timeout_s);
			return (-1);
		}
		(void) nanosleep(&tick, NULL);
	}
}

int
pcount_run(char *const argv[], const char *out, const char *stdout_file,
    int timeout_s, int *status, char *err, size_t errlen)
{
	char **env;
	pid_t pid;
	int r;

	if (access(pcount_lib(), R_OK) != 0) {
		(void) snprintf(err, errlen, "%s: %s (is preadcount/Makefile.inc "
		    "included by the top Makefile?)", pcount_lib(),
		    strerror(errno));
		return (-1);
	}
	if ((env = child_env(out)) == NULL) {
		(void) snprintf(err, errlen, "out of memory");
		return (-1);
	}
	(void) fflush(NULL);
	if ((pid = fork()) < 0) {
		(void) snprintf(err, errlen, "fork: %s", strerror(errno));
		free(env);
		return (-1);
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDONLY);

		if (fd >= 0 && fd != 0) {
			(void) dup2(fd, 0);
			(void) close(fd);
		}
		if (stdout_file != NULL) {
			fd = open(stdout_file, O_WRONLY | O_CREAT | O_TRUNC,
			    0644);
			if (fd < 0 || dup2(fd, 1) < 0)
				_exit(126);
			(void) close(fd);
		}
		(void) execve(argv[0], argv, env);
		_exit(127);
	}
	free(env);
	r = wait_bounded(pid, timeout_s, status, err, errlen);
	if (r == 0 && WIFEXITED(*status) && WEXITSTATUS(*status) >= 126) {
		(void) snprintf(err, errlen, "%s: could not %s it", argv[0],
		    WEXITSTATUS(*status) == 127 ? "execute" : "redirect");
		return (-1);
	}
	return (r);
}

static size_t
hash_pair(const char *call, const char *path)
{
	size_t h = 14695981039346656037u;

	for (const char *s = call; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	h = (h ^ '\t') * 1099511628211u;
	for (const char *s = path; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return (h);
}

/* The index slot for (CALL, PATH): empty or holding that pair. */
static size_t *
index_slot(const struct pcount_tab *t, const char *call, const char *path)
{
	size_t mask = t->pt_icap - 1;

	for (size_t i = hash_pair(call, path) & mask;; i = (i + 1) & mask) {
		size_t *slot = &t->pt_index[i];
		const struct pcount_rec *r;

		if (*slot == 0)
			return (slot);
		r = &t->pt_recs[*slot - 1];
		if (strcmp(r->pr_call, call) == 0 &&
		    strcmp(r->pr_path, path) == 0)
			return (slot);
	}
}

/* Keep the index at most half full. */
static int
index_grow(struct pcount_tab *t)
{
	size_t ncap = t->pt_icap == 0 ? 1024 : t->pt_icap * 2;
	size_t *old = t->pt_index;

	if (t->pt_icap != 0 && (t->pt_n + 1) * 2 <= t->pt_icap)
		return (0);
	if ((t->pt_index = calloc(ncap, sizeof (size_t))) == NULL) {
		t->pt_index = old;
		return (-1);
	}
	t->pt_icap = ncap;
	free(old);
	for (size_t i = 0; i < t->pt_n; i++) {
		const struct pcount_rec *r = &t->pt_recs[i];

		*index_slot(t, r->pr_call, r->pr_path) = i + 1;
	}
	return (0);
}

const struct pcount_rec *
pcount_find(const struct pcount_tab *t, const char *call, const char *path)
{
	size_t *slot;

	if (t->pt_icap == 0)
		return (NULL);
	slot = index_slot(t, call, path);
	return (*slot == 0 ? NULL : &t->pt_recs[*slot - 1]);
}

static int
add_pair(struct pcount_tab *t, const char *call, const char *path,
    uint64_t calls, uint64_t bytes)
{
	struct pcount_rec *r;
	size_t *slot;

	if (index_grow(t) != 0)
		return (-1);
	slot = index_slot(t, call, path);
	if (*slot == 0) {
		if (t->pt_n == t->pt_cap) {
			size_t ncap = t->pt_cap == 0 ? 64 : t->pt_cap * 2;
			struct pcount_rec *n = realloc(t->pt_recs,
			    ncap * sizeof (*n));

			if (n == NULL)
				return (-1);
			t->pt_recs = n;
			t->pt_cap = ncap;
		}
		r = &t->pt_recs[t->pt_n];
		memset(r, 0, sizeof (*r));
		r->pr_call = strdup(call);
		r->pr_path = strdup(path);
		if (r->pr_call == NULL || r->pr_path == NULL) {
			free(r->pr_call);
			free(r->pr_path);
			return (-1);
		}
		*slot = ++t->pt_n;
	}
	r = &t->pt_recs[*slot - 1];
	r->pr_calls += calls;
	r->pr_bytes += bytes;
	r->pr_lines++;
	return (0);
}

/* A decimal count: digits only, no sign, no overflow. */
static int
parse_count(const char *s, uint64_t *v)
{
	uint64_t n = 0;

	if (*s == '\0')
		return (-1);
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' || n > (UINT64_MAX - 9) / 10)
			return (-1);
		n = n * 10 + (uint64_t)(*s - '0');
	}
	*v = n;
	return (0);
}

/* Split LINE (no newline) at its three tabs and add it. */
static int
load_line(struct pcount_tab *t, char *line, char *err, size_t errlen)
{
	char *f[4];
	uint64_t calls, bytes;
	int nf = 0;

	f[nf++] = line;
	for (char *p = line; *p != '\0'; p++) {
		if (*p != '\t')
			continue;
		if (nf == 4) {
			nf++;
			break;
		}
		*p = '\0';
		f[nf++] = p + 1;
	}
	if (nf != 4 || f[0][0] == '\0' || f[1][0] == '\0') {
		(void) snprintf(err, errlen, "line %zu: not CALL<TAB>PATH<TAB>"
		    "CALLS<TAB>BYTES", t->pt_lines + 1);
		return (-1);
	}
	if (parse_count(f[2], &calls) != 0 || parse_count(f[3], &bytes) != 0) {
		(void) snprintf(err, errlen, "line %zu: bad count", 
		    t->pt_lines + 1);
		return (-1);
	}
	if (add_pair(t, f[0], f[1], calls, bytes) != 0) {
		(void) snprintf(err, errlen, "out of memory");
		return (-1);
	}
	t->pt_lines++;
	return (0);
}

int
pcount_load(const char *file, struct pcount_tab *t, char *err, size_t errlen)
{
	FILE *fp;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	memset(t, 0, sizeof (*t));
	if ((fp = fopen(file, "r")) == NULL) {
		(void) snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return (-1);
	}
	while (rc == 0 && (len = getline(&line, &cap, fp)) != -1) {
		if (len == 0 || line[len - 1] != '\n' ||
		    strlen(line) != (size_t)len) {
			(void) snprintf(err, errlen, "%s: line %zu is not a "
			    "whole line", file, t->pt_lines + 1);
			rc = -1;
			break;
		}
		line[len - 1] = '\0';
		rc = load_line(t, line, err, errlen);
	}
	free(line);
	(void) fclose(fp);
	if (rc != 0)
		pcount_free(t);
	return (rc);
}

void
pcount_free(struct pcount_tab *t)
{
	for (size_t i = 0; i < t->pt_n; i++) {
		free(t->pt_recs[i].pr_call);
		free(t->pt_recs[i].pr_path);
	}
	free(t->pt_recs);
	free(t->pt_index);
	memset(t, 0, sizeof (*t));
}
