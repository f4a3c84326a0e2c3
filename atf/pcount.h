/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcount: run a program under libpreadcount.so and read what it counted.
 * Shared by t_preadcount and the budget tests; no ATF inside.
 */
#ifndef	_PCOUNT_H
#define	_PCOUNT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One (call, path) pair, summed over every line that names it. */
struct pcount_rec {
	char		*pr_call;
	char		*pr_path;
	uint64_t	pr_calls;
	uint64_t	pr_bytes;
	unsigned	pr_lines;	/* lines that named this pair */
};

struct pcount_tab {
	struct pcount_rec	*pt_recs;
	size_t			pt_n;
	size_t			pt_cap;
	size_t			pt_lines;	/* lines read in all */
	size_t			*pt_index;	/* hash: rec index + 1, 0 empty */
	size_t			pt_icap;	/* slots in pt_index (power of 2) */
};

/* The library: BUILD_DIR/libpreadcount.so. */
const char *pcount_lib(void);

/*
 * Run ARGV[0] with ARGV, libpreadcount.so preloaded in the child only (the
 * environment is built for execve; this process's own is not changed).
 * OUT is the PREADCOUNT_OUT to give it, or NULL to leave it unset;
 * STDOUT_FILE, when not NULL, receives the child's stdout.  The child is
 * killed when it runs longer than TIMEOUT_S seconds.  Returns 0 and the
 * wait status in *STATUS, or -1 with a message in ERR.
 */
int pcount_run(char *const argv[], const char *out, const char *stdout_file,
    int timeout_s, int *status, char *err, size_t errlen);

/*
 * Read a PREADCOUNT_OUT file into T, summing lines that name the same pair.
 * Every line must be CALL<TAB>PATH<TAB>CALLS<TAB>BYTES<NL>, the last one
 * included.  Returns 0, or -1 with a message in ERR.
 */
int pcount_load(const char *file, struct pcount_tab *t, char *err,
    size_t errlen);

const struct pcount_rec *pcount_find(const struct pcount_tab *t,
    const char *call, const char *path);
void pcount_free(struct pcount_tab *t);

#endif	/* _PCOUNT_H */
