/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_docs: the manual pages are well-formed and say what the program does:
 * mandoc finds nothing to warn about, and the synopsis of pfiles.1 is the
 * usage line pfiles itself prints.  And the suite's own metadata: the
 * test programs atf/Kyuafile runs are those of ATF_TESTS in
 * atf/Makefile.inc, in the same order, and every one is built.
 */
#include <atf-c.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>

#include "testutil.h"

#define	PFILES_1	SRC_DIR "/libproc-patch/pfiles/pfiles.1"
#define	LIBPROC_3	SRC_DIR "/libproc-patch/libproc/libproc.3"
#define	MAKEFILE_INC	SRC_DIR "/atf/Makefile.inc"
#define	KYUAFILE	SRC_DIR "/atf/Kyuafile"
#define	MAX_PROGRAMS	128

static void
require_mandoc(void)
{
	if (access("/usr/bin/mandoc", X_OK) != 0)
		atf_tc_skip("mandoc is not installed (apt-get install mandoc)");
}

ATF_TC_WITHOUT_HEAD(lint);
ATF_TC_BODY(lint, tc)
{
	const char *const argv[] = { "mandoc", "-Tlint", "-Wwarning",
	    PFILES_1, LIBPROC_3, NULL };
	tu_result_t r;

	require_mandoc();
	tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	ATF_CHECK_MSG(r.tr_outlen == 0 && r.tr_errlen == 0,
	    "mandoc -Tlint: %s%s", r.tr_out, r.tr_err);
	tu_require_exit("mandoc -Tlint", &r, 0);
	tu_result_free(&r);
}

/* Drop mandoc's overstrike (X BS X for bold, _ BS X for underline). */
static void
strip_overstrike(char *text)
{
	char *d = text;

	for (char *s = text; *s != '\0'; s++) {
		if (s[1] == '\b' && s[2] != '\0') {
			s++;	/* the next byte, after the backspace, stays */
			continue;
		}
		*d++ = *s;
	}
	*d = '\0';
}

/* The first line after SYNOPSIS in the rendered page, trimmed. */
static char *
rendered_synopsis(void)
{
	const char *const argv[] = { "mandoc", "-Tascii", "-Owidth=200",
	    PFILES_1, NULL };
	tu_result_t r;
	char *p, *line = NULL;

	tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	tu_require_exit("mandoc -Tascii", &r, 0);
	strip_overstrike(r.tr_out);
	if ((p = strstr(r.tr_out, "\nSYNOPSIS\n")) != NULL) {
		p += strlen("\nSYNOPSIS\n");
		while (*p == ' ')
			p++;
		line = strndup(p, strcspn(p, "\n"));
	}
	tu_result_free(&r);
	ATF_REQUIRE_MSG(line != NULL, "pfiles.1 renders no SYNOPSIS");
	return (line);
}

ATF_TC_WITHOUT_HEAD(synopsis_is_usage);
ATF_TC_BODY(synopsis_is_usage, tc)
{
	tu_result_t r;
	char *usage, *synopsis;

	require_mandoc();
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = NULL }, &r);
	tu_require_exit("pfiles (no arguments)", &r, 2);
	/* "usage:\tpfiles ...\n" */
	ATF_REQUIRE(strncmp(r.tr_err, "usage:\t", 7) == 0);
	usage = strndup(r.tr_err + 7, strcspn(r.tr_err + 7, "\n"));
	tu_result_free(&r);

	synopsis = rendered_synopsis();
	tu_require_same_str("synopsis", usage, synopsis);
	free(usage);
	free(synopsis);
}

ATF_TC(via_values_documented);
ATF_TC_HEAD(via_values_documented, tc)
{
	atf_tc_set_md_var(tc, "descr", "each --via value of pfiles' usage "
	    "line has its entry (.It Cm VALUE) in pfiles.1, and the page "
	    "never counts them in words other than their number ('one of "
	    "the four' where five are listed)");
}
ATF_TC_BODY(via_values_documented, tc)
{
	static const char *const words[] = { "two", "three", "four", "five",
	    "six", "seven", "eight" };
	char *page, *vals, *at;
	size_t nvals = 0;
	tu_result_t r;

	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = NULL }, &r);
	tu_require_exit("pfiles (no arguments)", &r, 2);
	ATF_REQUIRE_MSG((at = strstr(r.tr_err, "--via=")) != NULL,
	    "the usage line names no --via: %s", r.tr_err);
	at += strlen("--via=");
	vals = strndup(at, strcspn(at, "]"));
	tu_result_free(&r);
	ATF_REQUIRE((page = tu_read_file(PFILES_1, NULL)) != NULL);
	for (char *v = strtok(vals, "|"); v != NULL; v = strtok(NULL, "|")) {
		char *entry = tu_asprintf("\n.It Cm %s\n", v);

		ATF_CHECK_MSG(strstr(page, entry) != NULL, "pfiles.1 has no "
		    "entry '.It Cm %s' for --via=%s", v, v);
		free(entry);
		nvals++;
	}
	ATF_REQUIRE(nvals >= 2);
	for (size_t i = 0; i < sizeof (words) / sizeof (words[0]); i++) {
		char *count = tu_asprintf("one of the %s", words[i]);

		ATF_CHECK_MSG(i + 2 == nvals || strstr(page, count) == NULL,
		    "pfiles.1 says '%s' where the usage line lists %zu --via "
		    "values", count, nvals);
		free(count);
	}
	free(vals);
	free(page);
}

/* A list of test program names, in the order a file gives them. */
typedef struct progs {
	char	*p_name[MAX_PROGRAMS];
	size_t	p_n;
} progs_t;

static void
progs_add(progs_t *p, const char *name, size_t len)
{
	ATF_REQUIRE_MSG(p->p_n < MAX_PROGRAMS, "more than %d programs",
	    MAX_PROGRAMS);
	p->p_name[p->p_n++] = tu_asprintf("%.*s", (int)len, name);
}

static void
progs_free(progs_t *p)
{
	for (size_t i = 0; i < p->p_n; i++)
		free(p->p_name[i]);
	p->p_n = 0;
}

/* Where name is in p (its first place), or -1. */
static long
progs_find(const progs_t *p, const char *name)
{
	for (size_t i = 0; i < p->p_n; i++) {
		if (strcmp(p->p_name[i], name) == 0)
			return ((long)i);
	}
	return (-1);
}

/*
 * The words of "ATF_TESTS := ..." (or "="), with its continuation lines
 * (a line that ends in a backslash goes on), in the make file path.
 * Other variables, and a word that is only a backslash, are not names.
 */
static void
read_atf_tests(const char *path, progs_t *p)
{
	char *text = tu_read_file(path, NULL);
	const char *line = text;
	int in = 0;

	p->p_n = 0;
	for (const char *nl; *line != '\0'; line = nl + (*nl != '\0')) {
		const char *q = line;

		nl = line + strcspn(line, "\n");
		if (!in) {
			if (strncmp(q, "ATF_TESTS", 9) != 0)
				continue;
			q += 9;
			q += strspn(q, " \t");
			if (strncmp(q, ":=", 2) == 0)
				q += 2;
			else if (*q == '=')
				q++;
			else
				continue;
			in = 1;
		}
		while (q < nl) {
			size_t len;

			q += strspn(q, " \t");
			len = strcspn(q, " \t\n");
			if (len > 0 && !(len == 1 && *q == '\\'))
				progs_add(p, q, len);
			q += len;
		}
		/* The line goes on when its last byte is a backslash. */
		in = nl > line && nl[-1] == '\\';
		if (!in)
			break;
	}
	free(text);
}

/*
 * The programs a Kyuafile names: every double-quoted string that starts
 * with "t_", outside Lua's "--" comments (which may name programs in
 * prose, as the list's own comment does).
 */
static void
read_kyuafile(const char *path, progs_t *p)
{
	char *text = tu_read_file(path, NULL);

	p->p_n = 0;
	for (const char *q = text; *q != '\0'; ) {
		if (q[0] == '-' && q[1] == '-') {
			q += strcspn(q, "\n");
		} else if (*q == '"') {
			size_t len = strcspn(q + 1, "\"\n");

			if (len > 2 && strncmp(q + 1, "t_", 2) == 0)
				progs_add(p, q + 1, len);
			q += 1 + len + (q[1 + len] == '"');
		} else {
			q++;
		}
	}
	free(text);
}

static void finding(char **, const char *, ...)
    __attribute__((__format__(__printf__, 2, 3)));

/* Append a line to the findings *out (malloc'd). */
static void
finding(char **out, const char *fmt, ...)
{
	va_list ap;
	char *line, *more;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	ATF_REQUIRE_MSG(n >= 0, "out of memory");
	more = tu_asprintf("%s%s\n", *out, line);
	free(line);
	free(*out);
	*out = more;
}

/* A name that p gives more than once is a finding. */
static void
check_twice(const progs_t *p, const char *path, char **out)
{
	for (size_t i = 0; i < p->p_n; i++) {
		if ((size_t)progs_find(p, p->p_name[i]) != i)
			finding(out, "%s: named twice in %s", p->p_name[i],
			    path);
	}
}

/*
 * The names of a that b lacks are findings (fmt takes the name); those b
 * has too go into both, once each, in a's order.
 */
static void
check_lacks(const progs_t *a, const progs_t *b, progs_t *both,
    const char *fmt, const char *f1, const char *f2, char **out)
{
	both->p_n = 0;
	for (size_t i = 0; i < a->p_n; i++) {
		const char *name = a->p_name[i];

		if ((size_t)progs_find(a, name) != i)
			continue;
		if (progs_find(b, name) < 0)
			finding(out, fmt, name, f1, f2);
		else
			progs_add(both, name, strlen(name));
	}
}

/* name is built: an executable file builddir/atf/NAME. */
static void
check_built(const char *builddir, const char *name, char **out)
{
	char *path = tu_asprintf("%s/atf/%s", builddir, name);
	struct stat st;

	if (stat(path, &st) != 0)
		finding(out, "%s: not built: %s: %s", name, path,
		    strerror(errno));
	else if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0)
		finding(out, "%s: not built: %s is not an executable file",
		    name, path);
	free(path);
}

/*
 * The test programs of ATF_TESTS in the make file mk against those the
 * Kyuafile ky names, and against what is built in builddir/atf: one line
 * for each program in one list and not the other, named twice in one,
 * or not built (not an executable file there); and one for the first
 * place where the two lists, each without the programs the other lacks,
 * are not in the same order.  Returns the lines (malloc'd; "" when the
 * lists agree and every program is built).  The paths are parameters so
 * that the check of the check can run it on scratch copies.
 */
static char *
check_programs(const char *mk, const char *ky, const char *builddir)
{
	progs_t m, k, mc, kc;
	char *out = tu_asprintf("%s", "");

	read_atf_tests(mk, &m);
	read_kyuafile(ky, &k);
	if (m.p_n == 0)
		finding(&out, "%s: no ATF_TESTS", mk);
	if (k.p_n == 0)
		finding(&out, "%s: names no test program", ky);
	check_twice(&m, mk, &out);
	check_twice(&k, ky, &out);
	check_lacks(&m, &k, &mc, "%s: in ATF_TESTS of %s, not in %s", mk,
	    ky, &out);
	check_lacks(&k, &m, &kc, "%s: in %s, not in ATF_TESTS of %s", ky,
	    mk, &out);
	/* mc and kc hold the same names: is it in the same order? */
	for (size_t i = 0; i < mc.p_n; i++) {
		if (strcmp(mc.p_name[i], kc.p_name[i]) != 0) {
			finding(&out, "order: ATF_TESTS of %s has %s where "
			    "%s has %s", mk, mc.p_name[i], ky, kc.p_name[i]);
			break;
		}
	}
	/* Every program named, in either list, once each. */
	for (size_t i = 0; i < m.p_n; i++) {
		if ((size_t)progs_find(&m, m.p_name[i]) == i)
			check_built(builddir, m.p_name[i], &out);
	}
	for (size_t i = 0; i < k.p_n; i++) {
		if ((size_t)progs_find(&k, k.p_name[i]) == i &&
		    progs_find(&m, k.p_name[i]) < 0)
			check_built(builddir, k.p_name[i], &out);
	}
	progs_free(&m);
	progs_free(&k);
	progs_free(&mc);
	progs_free(&kc);
	return (out);
}

ATF_TC(kyuafile_is_atf_tests);
ATF_TC_HEAD(kyuafile_is_atf_tests, tc)
{
	atf_tc_set_md_var(tc, "descr", "atf/Kyuafile runs exactly the test "
	    "programs of ATF_TESTS in atf/Makefile.inc, in the same order, "
	    "and every one of them is built in BUILD_DIR/atf");
}
ATF_TC_BODY(kyuafile_is_atf_tests, tc)
{
	char *out = check_programs(MAKEFILE_INC, KYUAFILE, BUILD_DIR);

	if (out[0] != '\0') {
		(void) fprintf(stderr, "%s", out);
		atf_tc_fail("the Kyuafile and ATF_TESTS disagree: %.*s (all "
		    "on stderr)", (int)strcspn(out, "\n"), out);
	}
	free(out);
}

/* A scratch build directory whose atf/ holds the programs of names. */
static void
scratch_build(const char *dir, const char *const names[])
{
	char *sub = tu_asprintf("%s/atf", dir);

	ATF_REQUIRE_MSG(mkdir(dir, 0755) == 0 && mkdir(sub, 0755) == 0,
	    "mkdir %s: %s", sub, strerror(errno));
	for (int i = 0; names[i] != NULL; i++) {
		char *path = tu_asprintf("%s/%s", sub, names[i]);

		tu_write_file(path, "#!/bin/sh\n", 10);
		ATF_REQUIRE(chmod(path, 0755) == 0);
		free(path);
	}
	free(sub);
}

/*
 * check_programs on a make file and a Kyuafile of the texts given, and a
 * scratch build of three programs: its findings must be want exactly,
 * where M and K stand for the two files' names.
 */
static void
check_scratch(const char *what, const char *mk, const char *ky,
    const char *want)
{
	char *out = NULL, *exp;

	tu_write_file("M", mk, strlen(mk));
	tu_write_file("K", ky, strlen(ky));
	out = check_programs("M", "K", "b");
	exp = tu_asprintf("%s", want);
	tu_require_same_str(what, exp, out);
	free(exp);
	free(out);
}

ATF_TC(kyuafile_check_fails);
ATF_TC_HEAD(kyuafile_check_fails, tc)
{
	atf_tc_set_md_var(tc, "descr", "the check of the check: on scratch "
	    "copies, kyuafile_is_atf_tests's check names a program missing "
	    "from either list, named twice, listed out of order, or not "
	    "built, and passes lists that agree, whatever the Lua comments "
	    "and the other make variables say; on a copy of the real "
	    "Kyuafile without its first program, it names that program");
}
ATF_TC_BODY(kyuafile_check_fails, tc)
{
	static const char *const built[] = { "t_a", "t_b", "t_c", NULL };
	static const char *const mk = "X := t_x\n"
	    "ATF_TESTS := t_a \\\n\tt_b \\\n\tt_c\nT_a_OBJS := t_y\n";
	static const char *const ky = "-- \"t_z\" in a comment\n"
	    "for _, name in ipairs({\n\t\"t_a\", \"t_b\",\n\t\"t_c\",\n"
	    "}) do\n\tatf_test_program{name=name}\nend\n";
	char *copy, *quoted, *at, *out, *want;
	progs_t m, k;

	scratch_build("b", built);
	check_scratch("agree", mk, ky, "");
	check_scratch("kyua-lacks", mk, "\"t_a\", \"t_c\"\n",
	    "t_b: in ATF_TESTS of M, not in K\n");
	check_scratch("make-lacks", "ATF_TESTS := t_a t_c\n", ky,
	    "t_b: in K, not in ATF_TESTS of M\n");
	check_scratch("order", mk, "\"t_a\", \"t_c\", \"t_b\"\n",
	    "order: ATF_TESTS of M has t_b where K has t_c\n");
	check_scratch("twice", mk, "\"t_a\", \"t_b\", \"t_c\", \"t_a\"\n",
	    "t_a: named twice in K\n");
	check_scratch("not-built", "ATF_TESTS := t_a t_b t_c t_d\n",
	    "\"t_a\", \"t_b\", \"t_c\", \"t_d\"\n",
	    "t_d: not built: b/atf/t_d: No such file or directory\n");
	ATF_REQUIRE(chmod("b/atf/t_c", 0644) == 0);
	check_scratch("not-executable", mk, ky,
	    "t_c: not built: b/atf/t_c is not an executable file\n");
	check_scratch("empty", "ATF_TESTS_X := t_a\n", "-- \"t_a\"\n",
	    "M: no ATF_TESTS\nK: names no test program\n");

	/*
	 * The real files, the Kyuafile's first program left out of a copy
	 * (every "NAME" of it, a comment's too), with a scratch build of
	 * every program of ATF_TESTS: that program, and nothing else.
	 */
	read_atf_tests(MAKEFILE_INC, &m);
	read_kyuafile(KYUAFILE, &k);
	ATF_REQUIRE_MSG(m.p_n > 0 && k.p_n > 0, "no programs read from %s "
	    "or %s", MAKEFILE_INC, KYUAFILE);
	ATF_REQUIRE(m.p_n < MAX_PROGRAMS);
	m.p_name[m.p_n] = NULL;
	scratch_build("rb", (const char *const *)m.p_name);
	copy = tu_read_file(KYUAFILE, NULL);
	quoted = tu_asprintf("\"%s\"", k.p_name[0]);
	while ((at = strstr(copy, quoted)) != NULL) {
		char *rest = at + strlen(quoted);

		rest += *rest == ',';
		memmove(at, rest, strlen(rest) + 1);
	}
	tu_write_file("K", copy, strlen(copy));
	want = tu_asprintf("%s: in ATF_TESTS of %s, not in K\n", k.p_name[0],
	    MAKEFILE_INC);
	out = check_programs(MAKEFILE_INC, "K", "rb");
	tu_require_same_str("real-kyua-lacks", want, out);
	free(out);
	free(want);
	free(quoted);
	free(copy);
	progs_free(&m);
	progs_free(&k);
}

/* ------------------------------------------------------------------ */
/* The licence. */

#define	SPDX_BSD	"SPDX-License-Identifier: BSD-2-Clause"
#define	SPDX_DUAL	"SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only"
#define	BPF_DIR		"libproc-patch/libproc/src/bpf/"

/* Is name (a file's, path from the top) one of the project's sources? */
static int
is_source(const char *path)
{
	static const char *const ends[] = { ".c", ".h", ".sh", ".py", ".js",
	    ".in", ".1", ".3", ".bash-completion", ".dict", NULL };
	static const char *const names[] = { "Makefile", "Makefile.inc",
	    "Kyuafile", "mapfile", "catalogue", "run", "rules", NULL };
	const char *base = strrchr(path, '/');
	size_t n = strlen(path);

	base = base != NULL ? base + 1 : path;
	for (int i = 0; names[i] != NULL; i++)
		if (strcmp(base, names[i]) == 0)
			return (1);
	for (int i = 0; ends[i] != NULL; i++) {
		size_t e = strlen(ends[i]);

		if (n > e && strcmp(path + n - e, ends[i]) == 0)
			return (1);
	}
	return (0);
}

/* The BPF program's files: the dual licence, for the kernel's helpers. */
static int
is_bpf_program(const char *path)
{
	return (strncmp(path, BPF_DIR "pfiles.bpf.c", 33) == 0 ||
	    strncmp(path, BPF_DIR "pfiles_locks.bpf.h", 39) == 0 ||
	    strncmp(path, BPF_DIR "pfiles_sock.bpf.h", 38) == 0 ||
	    strncmp(path, BPF_DIR "pfiles_ktypes.h", 36) == 0 ||
	    strncmp(path, BPF_DIR "pfiles_bpf.h", 33) == 0);
}

/* The build's folders, the fuzz corpus, and the packages' scratch. */
static int
skip_dir(const char *rel)
{
	return (strncmp(rel, "build", 5) == 0 ||
	    strcmp(rel, "fuzz/corpus") == 0 ||
	    (strncmp(rel, "debian/", 7) == 0 &&
	    strcmp(rel, "debian/source") != 0));
}

/*
 * The files of the tree under dir (a path from the top, "" the top), but
 * the build's, git's, the fuzz corpus and packaging's scratch: each
 * source's first three lines must hold its SPDX line.  The number of
 * sources checked, into *np; the offenders, into bad.
 */
static void
walk_sources(const char *dir, size_t *np, char **bad)
{
	char *full = tu_asprintf("%s/%s", SRC_DIR, dir);
	DIR *d = opendir(full);
	struct dirent *de;

	ATF_REQUIRE_MSG(d != NULL, "opendir %s: %s", full, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		char *rel = tu_asprintf("%s%s", dir, de->d_name), *path;
		struct stat st;

		path = tu_asprintf("%s/%s", SRC_DIR, rel);
		if (de->d_name[0] == '.' && strcmp(de->d_name, ".ci") != 0) {
			/* ., .., .git, .gitignore */
		} else if (lstat(path, &st) != 0 || S_ISLNK(st.st_mode)) {
			/* gone, or a link */
		} else if (S_ISDIR(st.st_mode)) {
			if (!skip_dir(rel)) {
				char *sub = tu_asprintf("%s/", rel);

				walk_sources(sub, np, bad);
				free(sub);
			}
		} else if (S_ISREG(st.st_mode) && is_source(rel)) {
			FILE *fp = fopen(path, "r");
			char line[256];
			int found = 0;
			const char *want = is_bpf_program(rel) ? SPDX_DUAL :
			    SPDX_BSD;

			ATF_REQUIRE(fp != NULL);
			for (int i = 0; i < 3 && fgets(line, sizeof (line),
			    fp) != NULL; i++) {
				char *at = strstr(line, "SPDX-License-");

				/* The identifier, then the end of the comment. */
				if (at != NULL && strncmp(at, want,
				    strlen(want)) == 0 && strchr(" */\n",
				    at[strlen(want)]) != NULL)
					found = 1;
			}
			(void) fclose(fp);
			(*np)++;
			if (!found) {
				char *next = tu_asprintf("%s %s", *bad, rel);

				free(*bad);
				*bad = next;
			}
		}
		free(path);
		free(rel);
	}
	(void) closedir(d);
	free(full);
}

ATF_TC(spdx_everywhere);
ATF_TC_HEAD(spdx_everywhere, tc)
{
	atf_tc_set_md_var(tc, "descr", "LICENSE is the BSD 2-Clause licence; "
	    "every source file of the tree (C, shell, Python, JavaScript, "
	    "make, the pages) says 'SPDX-License-Identifier: BSD-2-Clause' "
	    "in its first three lines, the BPF program's 'BSD-2-Clause OR "
	    "GPL-2.0-only', and the program declares 'Dual BSD/GPL' to the "
	    "kernel");
}
ATF_TC_BODY(spdx_everywhere, tc)
{
	char *lic = tu_read_file(SRC_DIR "/LICENSE", NULL);
	char *prog = tu_read_file(SRC_DIR "/" BPF_DIR "pfiles.bpf.c", NULL);
	char *bad = tu_asprintf("%s", "");
	size_t n = 0;

	ATF_CHECK_MSG(strncmp(lic, "BSD 2-Clause License\n", 21) == 0 &&
	    strstr(lic, "Redistributions in binary form must reproduce") !=
	    NULL, "LICENSE is not the BSD 2-Clause licence");
	ATF_CHECK_MSG(strstr(prog, "SEC(\"license\") = \"Dual BSD/GPL\";") !=
	    NULL, "the BPF program does not declare Dual BSD/GPL");
	walk_sources("", &n, &bad);
	ATF_CHECK_MSG(n >= 150, "only %zu sources found under %s", n,
	    SRC_DIR);
	ATF_CHECK_MSG(bad[0] == '\0', "no SPDX line, or the wrong one:%s",
	    bad);
	free(bad);
	free(prog);
	free(lic);
}

ATF_TC(options_documented);
ATF_TC_HEAD(options_documented, tc)
{
	atf_tc_set_md_var(tc, "descr", "every option pfiles --help lists has "
	    "its entry in pfiles.1 (.It Fl X , Fl -long, or .It Fl -long)");
}
ATF_TC_BODY(options_documented, tc)
{
	const char *const args[] = { "--help", NULL };
	char *page = tu_read_file(PFILES_1, NULL), *save = NULL, *line;
	tu_result_t r;
	int nopts = 0;

	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	tu_require_exit("pfiles --help", &r, 0);
	for (line = strtok_r(r.tr_out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char letter = 0, name[32];
		char *entry;

		if (sscanf(line, " -%c, --%31[a-z-]", &letter, name) == 2)
			entry = tu_asprintf(".It Fl %c , Fl -%s\n", letter,
			    name);
		else if (sscanf(line, " --%31[a-z-]", name) == 1)
			entry = tu_asprintf(".It Fl -%s", name);
		else
			continue;
		nopts++;
		ATF_CHECK_MSG(strstr(page, entry) != NULL, "pfiles.1 has no "
		    "entry %s", entry);
		free(entry);
	}
	ATF_CHECK_MSG(nopts >= 5, "--help lists %d options", nopts);
	tu_result_free(&r);
	free(page);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, lint);
	ATF_TP_ADD_TC(tp, synopsis_is_usage);
	ATF_TP_ADD_TC(tp, via_values_documented);
	ATF_TP_ADD_TC(tp, kyuafile_is_atf_tests);
	ATF_TP_ADD_TC(tp, kyuafile_check_fails);
	ATF_TP_ADD_TC(tp, spdx_everywhere);
	ATF_TP_ADD_TC(tp, options_documented);
	return (atf_no_error());
}
