/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_userdocs: the documents for users say what is and name only what the
 * tree holds.  README.md has at most 300 lines; README.md, the markdown
 * of doc/, pfiles.1 and libproc.3 name no issue and no commit (that
 * history is git log's); every relative link and path of README.md and
 * doc/ names a file of the tree, and every make target they name has a
 * rule.  Each check takes the top of a tree, so that checks_fail can run
 * it on a scratch one.
 */
#include <atf-c.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include "testutil.h"

#define	PFILES_1_REL	"libproc-patch/pfiles/pfiles.1"
#define	LIBPROC_3_REL	"libproc-patch/libproc/libproc.3"
#define	README_MAX_LINES	300
#define	MAX_NAMES	128

/* A list of names, each once. */
typedef struct names {
	char	*n_name[MAX_NAMES];
	size_t	n_n;
} names_t;

static void
names_add(names_t *l, const char *name, size_t len)
{
	char *s = tu_asprintf("%.*s", (int)len, name);

	for (size_t i = 0; i < l->n_n; i++) {
		if (strcmp(l->n_name[i], s) == 0) {
			free(s);
			return;
		}
	}
	ATF_REQUIRE_MSG(l->n_n < MAX_NAMES, "more than %d names", MAX_NAMES);
	l->n_name[l->n_n++] = s;
}

static void
names_free(names_t *l)
{
	for (size_t i = 0; i < l->n_n; i++)
		free(l->n_name[i]);
	l->n_n = 0;
}

/*
 * README.md and the markdown of doc/ in the tree top (paths from top);
 * pages: the two manual pages too.
 */
static void
user_docs(const char *top, names_t *d, int pages)
{
	char *dir = tu_asprintf("%s/doc", top);
	DIR *dp = opendir(dir);
	struct dirent *de;

	d->n_n = 0;
	names_add(d, "README.md", 9);
	while (dp != NULL && (de = readdir(dp)) != NULL) {
		size_t n = strlen(de->d_name);

		if (n > 3 && strcmp(de->d_name + n - 3, ".md") == 0) {
			char *rel = tu_asprintf("doc/%s", de->d_name);

			names_add(d, rel, strlen(rel));
			free(rel);
		}
	}
	if (dp != NULL)
		(void) closedir(dp);
	if (pages) {
		names_add(d, PFILES_1_REL, strlen(PFILES_1_REL));
		names_add(d, LIBPROC_3_REL, strlen(LIBPROC_3_REL));
	}
	free(dir);
}

static char *
read_rel(const char *top, const char *rel)
{
	char *path = tu_asprintf("%s/%s", top, rel);
	char *text = tu_read_file(path, NULL);

	free(path);
	return (text);
}

static int
is_word(char c)
{
	return (isalnum((unsigned char)c) || c == '_');
}

/* The line number of at in text. */
static int
line_of(const char *text, const char *at)
{
	int n = 1;

	for (const char *p = text; p < at; p++)
		n += *p == '\n';
	return (n);
}

/*
 * A word of 7 to 40 lowercase hex digits with a digit and a letter in it
 * is taken for a commit id ("0100000" and "defaced" are not).
 */
static int
is_commit_id(const char *w, size_t n)
{
	int digit = 0, letter = 0;

	if (n < 7 || n > 40)
		return (0);
	for (size_t i = 0; i < n; i++) {
		if (isdigit((unsigned char)w[i]))
			digit = 1;
		else if (w[i] >= 'a' && w[i] <= 'f')
			letter = 1;
		else
			return (0);
	}
	return (digit && letter);
}

/*
 * The length of the issue number at p ("issue 25", "Issues #3", "#12"),
 * or 0.  Not within a word, nor an HTML entity ("&#123;").
 */
static size_t
issue_ref(const char *text, const char *p)
{
	const char *q = p;

	if (p > text && (is_word(p[-1]) || p[-1] == '&'))
		return (0);
	if (strncasecmp(q, "issue", 5) == 0) {
		q += 5;
		q += *q == 's';
		q += strspn(q, " \t\n");
	} else if (*q != '#') {
		return (0);
	}
	q += *q == '#';
	if (!isdigit((unsigned char)*q))
		return (0);
	while (isdigit((unsigned char)*q))
		q++;
	return ((size_t)(q - p));
}

/* Each issue number and commit id of the text of name, a line each. */
static void
history_of(const char *name, const char *text, FILE *out)
{
	for (const char *p = text; *p != '\0'; ) {
		size_t n = issue_ref(text, p);

		if (n > 0) {
			(void) fprintf(out, "%s:%d: issue number '%.*s'\n",
			    name, line_of(text, p), (int)n, p);
		} else if (is_word(*p) && (p == text || !is_word(p[-1]))) {
			while (is_word(p[n]))
				n++;
			if (is_commit_id(p, n))
				(void) fprintf(out, "%s:%d: commit id '%.*s'\n",
				    name, line_of(text, p), (int)n, p);
		}
		p += n > 0 ? n : 1;
	}
}

/*
 * A copy of the markdown text with only its prose (code 0) or only its
 * code (code 1) left: fenced blocks, and lines indented by a tab or four
 * spaces, are code; the other lines are blanked, so lines keep their
 * numbers.
 */
static char *
md_part(const char *text, int code)
{
	char *out = tu_asprintf("%s", text), *line = out;
	int fenced = 0;

	while (*line != '\0') {
		size_t len = strcspn(line, "\n");
		int fence = strncmp(line, "```", 3) == 0;
		int is_code = fence || fenced || line[0] == '\t' ||
		    strncmp(line, "    ", 4) == 0;

		fenced ^= fence;
		if (is_code != code)
			(void) memset(line, ' ', len);
		line += len + (line[len] == '\n');
	}
	return (out);
}

/* Does rel (n bytes) name a file of the tree top, from its folder base? */
static int
held(const char *top, const char *base, const char *rel, size_t n)
{
	char *path = tu_asprintf("%s/%s%s%.*s", top, base,
	    base[0] != '\0' ? "/" : "", (int)n, rel);
	struct stat st;
	int ok = stat(path, &st) == 0;

	free(path);
	return (ok);
}

/*
 * In the prose of doc (a path from top): each link [..](TARGET) that is
 * not a URL or an anchor names a file, from doc's folder; each `SPAN`
 * that is a relative path (path characters only, a '/' in it) names one,
 * from the top, doc's folder or the library's (whose folders the docs
 * name alone, `core/`).  What builds and fuzzing runs make (build*,
 * fuzz/out) is not the tree's and is not looked for.
 */
static void
paths_of(const char *top, const char *doc, FILE *out)
{
	static const char pathc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_.+/-";
	char *text = read_rel(top, doc), *prose = md_part(text, 0);
	const char *slash = strrchr(doc, '/');
	char *dir = tu_asprintf("%.*s", slash != NULL ? (int)(slash - doc) :
	    0, doc);

	for (char *p = prose; (p = strstr(p, "](")) != NULL; p += 2) {
		char *t = p + 2;
		size_t n = strcspn(t, "#) \n");

		if (t[0] == '#' || strncmp(t, "mailto:", 7) == 0 ||
		    memmem(t, strcspn(t, ")"), "://", 3) != NULL)
			continue;	/* an anchor, a URL */
		if (!held(top, dir, t, n))
			(void) fprintf(out, "%s:%d: link to %.*s: no such "
			    "file\n", doc, line_of(prose, p), (int)n, t);
	}
	for (char *p = prose; (p = strchr(p, '`')) != NULL; p++) {
		char *t = p + 1, *end = strchr(t, '`');
		size_t n;

		if (end == NULL)
			break;
		n = (size_t)(end - t);
		p = end;
		if (n == 0 || strspn(t, pathc) < n ||
		    memchr(t, '/', n) == NULL || t[0] == '/' ||
		    strncmp(t, "build", 5) == 0 ||
		    strncmp(t, "fuzz/out", 8) == 0)
			continue;
		if (!held(top, "", t, n) && !held(top, dir, t, n) &&
		    !held(top, "libproc-patch/libproc", t, n))
			(void) fprintf(out, "%s:%d: %.*s: not in the tree\n",
			    doc, line_of(prose, t), (int)n, t);
	}
	free(dir);
	free(prose);
	free(text);
}

/*
 * The target of the command "make ..." at s: its first word that is
 * neither an option nor an assignment (none: the default goal).
 */
static void
make_target(const char *s, names_t *t)
{
	static const char stop[] = " \t\n`;&|)#";

	s += strlen("make");
	while (*s == ' ' || *s == '\t') {
		size_t n;

		s += strspn(s, " \t");
		n = strcspn(s, stop);
		if (n == 0)
			return;
		if (s[0] != '-' && memchr(s, '=', n) == NULL) {
			names_add(t, s, n);
			return;
		}
		s += n;
	}
}

/*
 * Every make target doc names: in `make ...` in its prose, and in each
 * command of its code that begins with make (not in a # comment).
 */
static void
targets_of(const char *top, const char *doc, names_t *t)
{
	char *text = read_rel(top, doc), *code = md_part(text, 1);
	char *prose = md_part(text, 0);

	for (char *p = prose; (p = strstr(p, "`make")) != NULL; p++)
		make_target(p + 1, t);
	for (char *p = code; (p = strstr(p, "make")) != NULL; p++) {
		const char *bol = p;

		while (bol > code && bol[-1] != '\n')
			bol--;
		if ((p == bol || strchr(" \t(;&|", p[-1]) != NULL) &&
		    strchr(" \t\n", p[4]) != NULL &&
		    memchr(bol, '#', (size_t)(p - bol)) == NULL)
			make_target(p, t);
	}
	free(prose);
	free(code);
	free(text);
}

/* Each target of t for which make -n -q in top has no rule. */
static void
targets_missing(const char *top, const names_t *t, FILE *out)
{
	static const char *const env[] = { "MAKEFLAGS=", "MFLAGS=",
	    "MAKELEVEL=", NULL };

	for (size_t i = 0; i < t->n_n; i++) {
		const char *const argv[] = { "make", "-C", top, "-n", "-q",
		    t->n_name[i], NULL };
		tu_result_t r;

		tu_run(argv, env, TU_TIMEOUT_MS, &r);
		if (strstr(r.tr_err, "No rule to make target") != NULL)
			(void) fprintf(out, "make %s: no such target\n",
			    t->n_name[i]);
		tu_result_free(&r);
	}
}

typedef enum { CHECK_LENGTH, CHECK_HISTORY, CHECK_PATHS,
    CHECK_TARGETS } check_t;

/*
 * The findings of one check on the documents of the tree top, a line
 * each (malloc'd; "" when there is none): the README's length; history
 * in the README, doc/ and the pages; paths and make targets in the
 * README and doc/.
 */
static char *
check_docs(const char *top, check_t which)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	names_t d, t = { .n_n = 0 };

	ATF_REQUIRE(out != NULL);
	user_docs(top, &d, which == CHECK_HISTORY);
	for (size_t i = 0; i < d.n_n; i++) {
		char *text = read_rel(top, d.n_name[i]);
		int lines = line_of(text, text + strlen(text)) - 1;

		if (which == CHECK_LENGTH && i == 0 && lines >
		    README_MAX_LINES)
			(void) fprintf(out, "README.md: %d lines, more than "
			    "%d\n", lines, README_MAX_LINES);
		if (which == CHECK_HISTORY)
			history_of(d.n_name[i], text, out);
		if (which == CHECK_PATHS)
			paths_of(top, d.n_name[i], out);
		if (which == CHECK_TARGETS)
			targets_of(top, d.n_name[i], &t);
		free(text);
	}
	if (which == CHECK_TARGETS)
		targets_missing(top, &t, out);
	ATF_REQUIRE(fclose(out) == 0);
	names_free(&d);
	names_free(&t);
	return (buf);
}

/* Fail, the findings on stderr, when the check finds anything. */
static void
require_none(const char *what, check_t which)
{
	char *out = check_docs(SRC_DIR, which);

	if (out[0] != '\0') {
		(void) fprintf(stderr, "%s", out);
		atf_tc_fail("%s: %.*s (all on stderr)", what,
		    (int)strcspn(out, "\n"), out);
	}
	free(out);
}

ATF_TC(readme_short);
ATF_TC_HEAD(readme_short, tc)
{
	atf_tc_set_md_var(tc, "descr", "README.md, for users, has at most "
	    "300 lines; the rest is under doc/");
}
ATF_TC_BODY(readme_short, tc)
{
	require_none("README.md is too long", CHECK_LENGTH);
}

ATF_TC(no_history);
ATF_TC_HEAD(no_history, tc)
{
	atf_tc_set_md_var(tc, "descr", "README.md, doc/*.md, pfiles.1 and "
	    "libproc.3 name no issue ('issue 25', '#12') and no commit (7 to "
	    "40 hex digits with a digit and a letter)");
}
ATF_TC_BODY(no_history, tc)
{
	require_none("history in the documents", CHECK_HISTORY);
}

ATF_TC(paths_held);
ATF_TC_HEAD(paths_held, tc)
{
	atf_tc_set_md_var(tc, "descr", "every relative link, and every "
	    "relative path in backquotes, of README.md and doc/*.md names a "
	    "file the tree holds");
}
ATF_TC_BODY(paths_held, tc)
{
	require_none("a path the tree does not hold", CHECK_PATHS);
}

ATF_TC(make_targets);
ATF_TC_HEAD(make_targets, tc)
{
	atf_tc_set_md_var(tc, "descr", "every make target README.md and "
	    "doc/*.md name has a rule in the Makefile (make -n -q T)");
}
ATF_TC_BODY(make_targets, tc)
{
	if (access("/usr/bin/make", X_OK) != 0)
		atf_tc_skip("make is not installed (apt-get install make)");
	require_none("a make target that does not exist", CHECK_TARGETS);
}

/* Write the file top/rel (its folders made), text as given. */
static void
scratch_file(const char *top, const char *rel, const char *text)
{
	char *path = tu_asprintf("%s/%s", top, rel);

	for (char *s = strchr(path, '/'); s != NULL; s = strchr(s + 1, '/')) {
		*s = '\0';
		(void) mkdir(path, 0755);
		*s = '/';
	}
	tu_write_file(path, text, strlen(text));
	free(path);
}

/* check_docs on the scratch tree top must find want exactly. */
static void
expect_findings(const char *top, check_t which, const char *want)
{
	char *out = check_docs(top, which), *exp = tu_asprintf("%s", want);

	tu_require_same_str(top, exp, out);
	free(exp);
	free(out);
}

ATF_TC(checks_fail);
ATF_TC_HEAD(checks_fail, tc)
{
	atf_tc_set_md_var(tc, "descr", "the check of the checks: on scratch "
	    "trees, each check names what it is for (a README of 301 lines, "
	    "issue numbers, commit ids, a missing file behind a link or a "
	    "path, a make target with no rule) and passes what it is not "
	    "for (300 lines, octal and hex constants, URLs, anchors, build "
	    "outputs, code comments)");
}
ATF_TC_BODY(checks_fail, tc)
{
	static const char pages[] = ".Dd x\n.\\\" 0100000 deadbeef\n";
	char *lines = calloc(1, 2 * (README_MAX_LINES + 1) + 1);

	ATF_REQUIRE(lines != NULL);
	for (int i = 0; i <= README_MAX_LINES; i++)
		(void) strcat(lines, "x\n");
	scratch_file("long", "README.md", lines);
	expect_findings("long", CHECK_LENGTH,
	    "README.md: 301 lines, more than 300\n");
	scratch_file("long", "README.md", lines + 2);
	expect_findings("long", CHECK_LENGTH, "");
	free(lines);

	scratch_file("h", "README.md", "Speed (issue 26); Issues #3, #12.\n"
	    "Not: 0100000, defaced, ino:60751802, 0x7fffab12cd, tissue 5, "
	    "&#123;.\n");
	scratch_file("h", "doc/a.md", "the tree of 94e7807\n");
	scratch_file("h", PFILES_1_REL, ".Dd x\n.\\\" see #4\n");
	scratch_file("h", LIBPROC_3_REL, pages);
	expect_findings("h", CHECK_HISTORY, "README.md:1: issue number "
	    "'issue 26'\nREADME.md:1: issue number 'Issues #3'\n"
	    "README.md:1: issue number '#12'\n"
	    "doc/a.md:1: commit id '94e7807'\n"
	    PFILES_1_REL ":2: issue number '#4'\n");

	scratch_file("p", "doc/a.md", "[up](../README.md) [k](../k/README)\n");
	scratch_file("p", "libproc-patch/libproc/core/Pgrab.c", "");
	scratch_file("p", "README.md", "[a](doc/a.md#x) [b](doc/b.md)\n"
	    "[w](https://example.org/y) [t](#top) `shared/seed/`\n"
	    "`doc/a.md` `core/Pgrab.c` `core/x.c` `build/pfiles` `fuzz/out/T`"
	    " `/proc/PID/fd` `a b/c`\n```\n`in/code` [c](in/code)\n```\n");
	expect_findings("p", CHECK_PATHS, "README.md:1: link to doc/b.md: no "
	    "such file\nREADME.md:2: shared/seed/: not in the tree\n"
	    "README.md:3: core/x.c: not in the tree\n"
	    "doc/a.md:1: link to ../k/README: no such file\n");

	if (access("/usr/bin/make", X_OK) != 0)
		atf_tc_skip("make is not installed (apt-get install make)");
	scratch_file("t", "Makefile", "all:\n\t@:\nreal:\n\t@:\ndeps-%:\n"
	    "\t@:\n");
	scratch_file("t", "README.md", "`make real` `make CC=clang` `make "
	    "-j2 nosuch-a` `make deps-demo`, make nosuch-x\n```\nmake -j2 "
	    "all && make nosuch-b # make nosuch-c\n$ make V=1 real\n"
	    "cmake nosuch-d\n```\n");
	expect_findings("t", CHECK_TARGETS, "make nosuch-a: no such target\n"
	    "make nosuch-b: no such target\n");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, readme_short);
	ATF_TP_ADD_TC(tp, no_history);
	ATF_TP_ADD_TC(tp, paths_held);
	ATF_TP_ADD_TC(tp, make_targets);
	ATF_TP_ADD_TC(tp, checks_fail);
	return (atf_no_error());
}
