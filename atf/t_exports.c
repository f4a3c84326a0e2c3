/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_exports: the shared library's interface is what libproc.h says.
 *
 *  - libproc.so.1 exports exactly the functions that libproc.h declares
 *    (nm -D --defined-only against the header's extern declarations,
 *    which this test reads itself), each at version LIBPROC_1.0;
 *  - `make install` gives a library that a program can be linked against
 *    with -lproc and that then starts: libproc.so is a link to the
 *    soname's file, and the program runs and grabs a process.
 */
#include <atf-c.h>
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define	LIBPROC_H	SRC_DIR "/libproc-patch/libproc/libproc.h"
#define	LIBPROC_SO	BUILD_DIR "/libproc.so.1"
#define	MAXNAMES	256
#define	RUN_MS		120000

typedef struct names {
	char	*n_name[MAXNAMES];
	int	n_count;
} names_t;

static void
add_name(names_t *n, const char *s, size_t len)
{
	for (int i = 0; i < n->n_count; i++) {
		if (strlen(n->n_name[i]) == len &&
		    strncmp(n->n_name[i], s, len) == 0)
			return;
	}
	ATF_REQUIRE(n->n_count < MAXNAMES);
	n->n_name[n->n_count++] = tu_asprintf("%.*s", (int)len, s);
}

static void
free_names(names_t *n)
{
	for (int i = 0; i < n->n_count; i++)
		free(n->n_name[i]);
	n->n_count = 0;
}

static int
has_name(const names_t *n, const char *s)
{
	for (int i = 0; i < n->n_count; i++) {
		if (strcmp(n->n_name[i], s) == 0)
			return (1);
	}
	return (0);
}

/*
 * The functions the header declares: each line that starts with
 * "extern " and holds a '(' names one, as the identifier before it.
 * Inline helpers (static inline) are not exported, and not counted.
 */
static void
header_names(names_t *n)
{
	char *text = tu_read_file(LIBPROC_H, NULL), *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char *paren = strchr(line, '('), *end;

		if (strncmp(line, "extern ", 7) != 0 || paren == NULL)
			continue;
		end = paren;
		while (end > line && isspace((unsigned char)end[-1]))
			end--;
		char *start = end;
		while (start > line && (isalnum((unsigned char)start[-1]) ||
		    start[-1] == '_'))
			start--;
		ATF_REQUIRE_MSG(end > start, "no name in: %s", line);
		add_name(n, start, (size_t)(end - start));
	}
	free(text);
}

/*
 * The library's defined dynamic symbols: "ADDR TYPE NAME@@VERSION".
 * Every one must be a function of version LIBPROC_1.0 (or the version
 * node itself, which nm lists as an absolute symbol).
 */
static void
library_names(names_t *n)
{
	const char *argv[] = { "nm", "-D", "--defined-only", LIBPROC_SO,
	    NULL };
	char *line, *save = NULL;
	tu_result_t r;

	tu_run(argv, NULL, RUN_MS, &r);
	tu_require_exit("nm -D", &r, 0);
	for (line = strtok_r(r.tr_out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char addr[32], type[4], sym[256], *at;

		if (sscanf(line, "%31s %3s %255s", addr, type, sym) != 3)
			continue;
		if (strcmp(sym, "LIBPROC_1.0") == 0 && strcmp(type, "A") == 0)
			continue;
		ATF_CHECK_MSG(strcmp(type, "T") == 0, "exported, and not a "
		    "function: %s", line);
		at = strstr(sym, "@@");
		ATF_CHECK_MSG(at != NULL && strcmp(at, "@@LIBPROC_1.0") == 0,
		    "not at version LIBPROC_1.0: %s", line);
		add_name(n, sym, at != NULL ? (size_t)(at - sym) :
		    strlen(sym));
	}
	tu_result_free(&r);
}

ATF_TC(exports_are_the_header);
ATF_TC_HEAD(exports_are_the_header, tc)
{
	atf_tc_set_md_var(tc, "descr", "libproc.so.1 exports exactly the "
	    "functions that libproc.h declares, at version LIBPROC_1.0");
	atf_tc_set_md_var(tc, "require.progs", "nm");
}
ATF_TC_BODY(exports_are_the_header, tc)
{
	names_t hdr = { .n_count = 0 }, lib = { .n_count = 0 };

	header_names(&hdr);
	library_names(&lib);
	printf("libproc.h declares %d functions; libproc.so.1 exports %d\n",
	    hdr.n_count, lib.n_count);
	/* The header is not empty, nor is its reading broken. */
	ATF_REQUIRE(has_name(&hdr, "Pgrab") && has_name(&hdr, "Psyscall"));
	for (int i = 0; i < hdr.n_count; i++)
		ATF_CHECK_MSG(has_name(&lib, hdr.n_name[i]), "declared in "
		    "libproc.h, not exported: %s", hdr.n_name[i]);
	for (int i = 0; i < lib.n_count; i++)
		ATF_CHECK_MSG(has_name(&hdr, lib.n_name[i]), "exported, not "
		    "declared in libproc.h: %s", lib.n_name[i]);
	free_names(&hdr);
	free_names(&lib);
}

/* A program of the library's users: it grabs itself and walks its fds. */
static const char user_program[] =
	"#include <stdio.h>\n"
	"#include <unistd.h>\n"
	"#include <libproc.h>\n"
	"static int count(void *arg, const prfdinfo_t *info)\n"
	"{ (void)info; (*(int *)arg)++; return (0); }\n"
	"int main(void)\n"
	"{\n"
	"	struct ps_prochandle *P;\n"
	"	int err, n = 0;\n"
	"	if ((P = Pgrab(getpid(), 0, &err)) == NULL) {\n"
	"		printf(\"Pgrab: %s\\n\", Pgrab_error(err));\n"
	"		return (1);\n"
	"	}\n"
	"	if (Pfdinfo_iter_flags(P, PFDI_STATONLY, count, &n) != 0)\n"
	"		return (1);\n"
	"	printf(\"pid %d: %d fds; %s\\n\", (int)Pstatus_pid(P), n,\n"
	"	    Pgrab_error(G_NOPROC));\n"
	"	Prelease(P, 0);\n"
	"	return (0);\n"
	"}\n";

ATF_TC(installed_library_links);
ATF_TC_HEAD(installed_library_links, tc)
{
	atf_tc_set_md_var(tc, "descr", "make install gives libproc.so.1 and "
	    "the libproc.so link; a program linked with -lproc against it "
	    "starts and runs");
	atf_tc_set_md_var(tc, "require.progs", "make readelf");
	tu_timeout(tc, 300);
}
ATF_TC_BODY(installed_library_links, tc)
{
	char cwd[PATH_MAX], link[64], *root, *destdir, *libdir, *incdir;
	char *sanitize, *prog;
	tu_result_t r;
	ssize_t n;
	int pid, nfds;

	ATF_REQUIRE(getcwd(cwd, sizeof (cwd)) != NULL);
	root = tu_asprintf("%s/root", cwd);
	destdir = tu_asprintf("DESTDIR=%s", root);
	/* The suite's own build: with another CC, make would build again. */
	sanitize = tu_asprintf("SANITIZE=%d", TEST_SANITIZE);
	libdir = tu_asprintf("%s/usr/lib", root);
	incdir = tu_asprintf("-I%s/usr/include", root);
	{
		const char *argv[] = { "make", "-s", "-C", SRC_DIR,
		    "--no-print-directory", "install", destdir, "PREFIX=/usr",
		    sanitize, "CC=" TEST_CC, NULL };

		tu_run(argv, NULL, RUN_MS, &r);
		tu_require_exit("make install", &r, 0);
		tu_result_free(&r);
	}

	/* libproc.so, what -lproc finds, links to the soname's file. */
	prog = tu_asprintf("%s/libproc.so", libdir);
	n = readlink(prog, link, sizeof (link) - 1);
	ATF_REQUIRE_MSG(n > 0, "%s is not a link", prog);
	link[n] = '\0';
	ATF_CHECK_STREQ(link, "libproc.so.1");
	free(prog);
	prog = tu_asprintf("%s/libproc.so.1", libdir);
	ATF_REQUIRE_MSG(access(prog, R_OK) == 0, "%s is not installed", prog);
	free(prog);

	tu_write_file("user.c", user_program, sizeof (user_program) - 1);
	{
		char *lflag = tu_asprintf("-L%s", libdir);
		char *rpath = tu_asprintf("-Wl,-rpath,%s", libdir);
		char *cmd = tu_asprintf("%s %s %s -o user user.c %s %s -lproc",
		    TEST_CC, TEST_SANFLAGS, incdir, lflag, rpath);
		const char *argv[] = { "/bin/sh", "-c", cmd, NULL };

		tu_run(argv, NULL, RUN_MS, &r);
		tu_require_exit(cmd, &r, 0);
		tu_result_free(&r);
		free(lflag);
		free(rpath);
		free(cmd);
	}

	/* It needs the soname, and the installed library is the one found. */
	{
		const char *argv[] = { "readelf", "-d", "user", NULL };

		tu_run(argv, NULL, RUN_MS, &r);
		tu_require_exit("readelf -d user", &r, 0);
		ATF_CHECK_MSG(strstr(r.tr_out, "[libproc.so.1]") != NULL,
		    "the program does not need libproc.so.1:\n%s", r.tr_out);
		tu_result_free(&r);
	}
	{
		const char *argv[] = { "./user", NULL };
		const char *env[] = { "LD_LIBRARY_PATH=", NULL };

		tu_run(argv, env, RUN_MS, &r);
		tu_require_exit("./user", &r, 0);
		/* stdin, stdout, stderr at least; a string of the library. */
		ATF_CHECK_MSG(sscanf(r.tr_out, "pid %d: %d fds;", &pid,
		    &nfds) == 2 && pid > 0 && nfds >= 3 &&
		    strstr(r.tr_out, " fds; no such process\n") != NULL,
		    "unexpected output: %s", r.tr_out);
		tu_result_free(&r);
	}
	free(root);
	free(destdir);
	free(sanitize);
	free(libdir);
	free(incdir);
}

ATF_TC(install_layout);
ATF_TC_HEAD(install_layout, tc)
{
	atf_tc_set_md_var(tc, "descr", "make build/pfiles names the built "
	    "file; make install honours BINDIR, LIBDIR, "
	    "INCLUDEDIR, MANDIR, PKGCONFIGDIR and BASHCOMPDIR; the installed "
	    "libproc.h says LIBPROC_VERSION as the tree's VERSION, libproc.pc "
	    "names the directories and the version, and a program built "
	    "with pkg-config --cflags --libs libproc prints that version");
	atf_tc_set_md_var(tc, "require.progs", "make pkg-config");
	tu_timeout(tc, 300);
}
ATF_TC_BODY(install_layout, tc)
{
	static const char *const files[] = { "/opt/b/pfiles",
	    "/opt/l/libproc.so.1", "/opt/l/libproc.so", "/opt/l/libproc.a",
	    "/opt/i/libproc.h", "/opt/m/man1/pfiles.1", "/opt/m/man3/libproc.3",
	    "/opt/pc/libproc.pc", "/opt/c/pfiles", NULL };
	static const char prog[] = "#include <stdio.h>\n#include <libproc.h>\n"
	    "int main(void) { printf(\"%s\\n\", LIBPROC_VERSION); "
	    "return (0); }\n";
	char cwd[PATH_MAX], *root, *destdir, *sanitize, *ver, *pc, *hdr;
	char *want, *pcpath, *sysroot, *cmd;
	tu_result_t r;
	size_t n;

	ATF_REQUIRE(getcwd(cwd, sizeof (cwd)) != NULL);
	root = tu_asprintf("%s/root", cwd);
	destdir = tu_asprintf("DESTDIR=%s", root);
	sanitize = tu_asprintf("SANITIZE=%d", TEST_SANITIZE);
	ver = tu_read_file(SRC_DIR "/VERSION", NULL);
	n = strcspn(ver, "\n");
	ver[n] = '\0';
	ATF_REQUIRE(n > 0);
	{
		const char *argv[] = { "make", "-s", "-C", SRC_DIR,
		    "--no-print-directory", "install", destdir, "PREFIX=/opt",
		    "BINDIR=/opt/b", "LIBDIR=/opt/l", "INCLUDEDIR=/opt/i",
		    "MANDIR=/opt/m", "PKGCONFIGDIR=/opt/pc",
		    "BASHCOMPDIR=/opt/c", sanitize, "CC=" TEST_CC, NULL };

		tu_run(argv, NULL, RUN_MS, &r);
		tu_require_exit("make install", &r, 0);
		tu_result_free(&r);
	}
	/* A target named by its path from the top is the same file. */
	{
		const char *argv[] = { "make", "-s", "-C", SRC_DIR,
		    "--no-print-directory", TEST_SANITIZE ?
		    "build-san/pfiles" : "build/pfiles", sanitize,
		    "CC=" TEST_CC, NULL };

		tu_run(argv, NULL, RUN_MS, &r);
		tu_require_exit("make build/pfiles", &r, 0);
		tu_result_free(&r);
	}
	for (int i = 0; files[i] != NULL; i++) {
		char *f = tu_asprintf("%s%s", root, files[i]);

		ATF_CHECK_MSG(access(f, R_OK) == 0, "%s is not installed",
		    files[i]);
		free(f);
	}
	want = tu_asprintf("%s/opt/i/libproc.h", root);
	hdr = tu_read_file(want, NULL);
	free(want);
	want = tu_asprintf("#define\tLIBPROC_VERSION\t\"%s\"\n", ver);
	ATF_CHECK_MSG(strstr(hdr, want) != NULL, "the installed libproc.h "
	    "does not define LIBPROC_VERSION as \"%s\"", ver);
	free(want);
	want = tu_asprintf("%s/opt/pc/libproc.pc", root);
	pc = tu_read_file(want, NULL);
	free(want);
	want = tu_asprintf("Version: %s\n", ver);
	ATF_CHECK_MSG(strstr(pc, "\nlibdir=/opt/l\n") != NULL &&
	    strstr(pc, "\nincludedir=/opt/i\n") != NULL &&
	    strstr(pc, want) != NULL && strchr(pc, '@') == NULL,
	    "libproc.pc:\n%s", pc);
	free(want);

	/* pkg-config's flags, within the staging root, build and run it. */
	tu_write_file("v.c", prog, sizeof (prog) - 1);
	pcpath = tu_asprintf("PKG_CONFIG_LIBDIR=%s/opt/pc", root);
	sysroot = tu_asprintf("PKG_CONFIG_SYSROOT_DIR=%s", root);
	cmd = tu_asprintf("%s %s -o v v.c $(pkg-config --cflags --libs "
	    "libproc) -Wl,-rpath,%s/opt/l && ./v", TEST_CC, TEST_SANFLAGS,
	    root);
	{
		const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
		const char *env[] = { pcpath, sysroot, NULL };

		tu_run(argv, env, RUN_MS, &r);
		tu_require_exit(cmd, &r, 0);
		want = tu_asprintf("%s\n", ver);
		ATF_CHECK_STREQ(r.tr_out, want);
		free(want);
		tu_result_free(&r);
	}
	free(cmd);
	free(sysroot);
	free(pcpath);
	free(pc);
	free(hdr);
	free(ver);
	free(sanitize);
	free(destdir);
	free(root);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, exports_are_the_header);
	ATF_TP_ADD_TC(tp, installed_library_links);
	ATF_TP_ADD_TC(tp, install_layout);
	return (atf_no_error());
}
