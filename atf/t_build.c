/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_build: the build follows its configuration, and its deps-T targets
 * run where no compiler is installed yet.
 *
 * Each case copies the tree (its sources, no build, no .git) into its
 * work directory and runs make there, with the Makefile's own probes:
 *
 *  - a build made while bpftool is not found (BPFTOOL names a file that
 *    is not there, as where bpftool is not installed) says that bpf is
 *    left out and why; once bpftool is found, make builds pfiles again
 *    with the program (--via=bpf no longer says "built without BPF
 *    support"), and a make after that rebuilds nothing; bpftool hidden
 *    and found again, pfiles follows each time;
 *  - an object deleted after a build is made again, a test program's
 *    among them (none is an intermediate file, kept or removed);
 *  - with CC naming no compiler, make -n deps-T runs for every T, and a
 *    build stops at once, saying that there is no compiler and how to
 *    install one;
 *  - make deps-deb DEB_HOST_ARCH=arm64 names Debian's cross toolchain for
 *    arm64, and make deps-deb alone none;
 *  - a folder named *.d under build/ (an unpacked package's
 *    etc/ld.so.conf.d, as make deb DEB_HOST_ARCH=arm64 leaves) is not
 *    taken for a dependency file.
 */
#include <atf-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* A make of pfiles alone, at -O0, on a loaded 2-CPU machine. */
#define	MAKE_MS		600000
#define	TREE		"tree"
#define	NOCC		"/nonexistent/cc"
#define	MAXARGS		32

/* The tree's sources into ./tree, as scripts/deb.sh and mutate.sh copy. */
static void
copy_tree(void)
{
	const char *argv[] = { "/bin/sh", "-c", "mkdir " TREE " && "
	    "(cd \"$0\" && tar -cf - --exclude=./build --exclude='./build-*' "
	    "--exclude=./.git --exclude=./fuzz/out --exclude=./.mutate "
	    "--exclude=./mutate.tmp --exclude=./debian/build .) | "
	    "(cd " TREE " && tar -xf -)",
	    SRC_DIR, NULL };
	tu_result_t r;

	tu_run(argv, NULL, MAKE_MS, &r);
	tu_require_exit("copying the tree", &r, 0);
	tu_result_free(&r);
}

/*
 * make in the copy with args (NULL-ended): the test's compiler unless
 * args name another, no sanitizer, -O0 for speed; none of an outer
 * make's settings (make check's jobserver, its command line).
 */
static void
make_tree(tu_result_t *r, const char *const args[])
{
	static const char *const base[] = { "env", "-u", "MAKEFLAGS", "-u",
	    "MFLAGS", "-u", "MAKELEVEL", "-u", "MAKEOVERRIDES", "make", "-C",
	    TREE, "--no-print-directory", "-j2", "CC=" TEST_CC, "SANITIZE=0",
	    "CFLAGS=-O0", NULL };
	const char *argv[MAXARGS];
	int n = 0;

	for (int i = 0; base[i] != NULL; i++)
		argv[n++] = base[i];
	for (int i = 0; args[i] != NULL; i++) {
		ATF_REQUIRE(n < MAXARGS - 1);
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	tu_run(argv, NULL, MAKE_MS, r);
}

/* make args, which must succeed; its stdout, malloc'd. */
static char *
make_ok(const char *what, const char *const args[])
{
	tu_result_t r;
	char *out;

	make_tree(&r, args);
	tu_require_exit(what, &r, 0);
	out = tu_asprintf("%s", r.tr_out);
	tu_result_free(&r);
	return (out);
}

/*
 * What the copy's pfiles --via=bpf says of this process, on stderr, while
 * it holds a socket (a process without one needs no source).
 */
static char *
bpf_says(void)
{
	char pid[16];
	const char *argv[] = { TREE "/build/pfiles", "--via=bpf", pid, NULL };
	tu_result_t r;
	char *err;
	int sv[2];

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	(void) snprintf(pid, sizeof (pid), "%d", (int)getpid());
	tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	(void) close(sv[0]);
	(void) close(sv[1]);
	err = tu_asprintf("%s", r.tr_err);
	tu_result_free(&r);
	return (err);
}

static struct timespec
mtime(const char *path)
{
	struct stat st;

	ATF_REQUIRE_MSG(stat(path, &st) == 0, "%s is not there", path);
	return (st.st_mtim);
}

static int
same_time(struct timespec a, struct timespec b)
{
	return (a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec);
}

/*
 * make build/pfiles, with bpftool hidden or not: the build says bpf is
 * left out, and why, exactly when it is, and pfiles --via=bpf says
 * "built without BPF support" exactly then.
 */
static void
build_bpf(int hidden)
{
	static const char *const without[] = {
	    "BPFTOOL=/nonexistent/bpftool", "build/pfiles", NULL };
	static const char *const with[] = { "build/pfiles", NULL };
	const char *what = hidden ? "bpftool hidden" : "bpftool found";
	char *out, *err;
	int said, built_without;

	out = make_ok(what, hidden ? without : with);
	said = strstr(out, "bpf: left out: /nonexistent/bpftool not found "
	    "(apt-get install ") != NULL;
	ATF_CHECK_MSG(said == hidden, "%s, the build %s that bpf is left "
	    "out, and why", what, said ? "says" : "does not say");
	free(out);
	err = bpf_says();
	built_without = strstr(err, "built without BPF support") != NULL;
	ATF_CHECK_MSG(built_without == hidden, "make, %s, did not build "
	    "pfiles again for it: pfiles --via=bpf says:\n%s", what, err);
	free(err);
}

ATF_TC(bpf_joins_later);
ATF_TC_HEAD(bpf_joins_later, tc)
{
	atf_tc_set_md_var(tc, "descr", "a build made while bpftool is not "
	    "found says bpf is left out and why; once it is found, make "
	    "builds pfiles again with the bpf program, then nothing more; "
	    "hidden again, without, and found again, with");
	atf_tc_set_md_var(tc, "require.progs", "make tar env");
	tu_timeout(tc, 1500);
}
ATF_TC_BODY(bpf_joins_later, tc)
{
	static const char *const have[] = { "-s", "print-have-bpf", NULL };
	static const char *const with[] = { "build/pfiles", NULL };
	struct timespec cfg, prog;
	char *out;

	copy_tree();
	out = make_ok("make print-have-bpf", have);
	if (strcmp(out, "1\n") != 0)
		atf_tc_skip("this machine cannot build the bpf program "
		    "(clang, bpftool, libbpf-dev): make print-have-bpf "
		    "says %s", out);
	free(out);

	build_bpf(1);
	build_bpf(0);

	/* The same configuration again: nothing is written or built. */
	cfg = mtime(TREE "/build/config");
	prog = mtime(TREE "/build/pfiles");
	out = make_ok("make, again", with);
	ATF_CHECK_MSG(same_time(cfg, mtime(TREE "/build/config")) &&
	    same_time(prog, mtime(TREE "/build/pfiles")), "a make of an "
	    "unchanged configuration built again");
	free(out);

	/* Either way again, the program made before notwithstanding. */
	build_bpf(1);
	build_bpf(0);
}

ATF_TC(deleted_object_made_again);
ATF_TC_HEAD(deleted_object_made_again, tc)
{
	atf_tc_set_md_var(tc, "descr", "a build keeps every object, a test "
	    "program's among them; an object deleted is made again, and "
	    "what it is linked into with it");
	atf_tc_set_md_var(tc, "require.progs", "make tar env");
	tu_timeout(tc, 1500);
}
ATF_TC_BODY(deleted_object_made_again, tc)
{
	static const char *const objs[] = {
	    TREE "/build/libproc-patch/pfiles/pfiles.o",
	    TREE "/build/atf/t_marshal.o", TREE "/build/atf/testutil.o",
	};
	static const char *const progs[] = { "BPF=0", "build/pfiles",
	    "build/atf/t_marshal", NULL };
	struct timespec prog;
	char *out;

	copy_tree();
	out = make_ok("make build/pfiles build/atf/t_marshal", progs);
	free(out);
	for (size_t i = 0; i < sizeof (objs) / sizeof (objs[0]); i++)
		ATF_CHECK_MSG(access(objs[i], F_OK) == 0, "after the build, "
		    "%s is not there", objs[i]);

	prog = mtime(TREE "/build/atf/t_marshal");
	for (size_t i = 0; i < 2; i++)
		(void) unlink(objs[i]);
	out = make_ok("make, objects deleted", progs);
	for (size_t i = 0; i < 2; i++)
		ATF_CHECK_MSG(access(objs[i], F_OK) == 0, "%s, deleted, was "
		    "not made again", objs[i]);
	ATF_CHECK_MSG(!same_time(prog, mtime(TREE "/build/atf/t_marshal")),
	    "t_marshal was not linked again with its object made again");
	free(out);
}

ATF_TC(deps_without_compiler);
ATF_TC_HEAD(deps_without_compiler, tc)
{
	atf_tc_set_md_var(tc, "descr", "with CC naming no compiler, make -n "
	    "deps-T runs for each T and names the packages; a build stops "
	    "before anything is compiled, saying there is no compiler and "
	    "that make deps-demo installs one");
	atf_tc_set_md_var(tc, "require.progs", "make tar env");
	tu_timeout(tc, 300);
}
ATF_TC_BODY(deps_without_compiler, tc)
{
	static const char *const targets[] = { "deps-demo", "deps-check",
	    "deps-fuzz", "deps-bench", "deps-kernels", "deps-deb", "deps" };
	static const char *const build[] = { "CC=" NOCC, "build/pfiles",
	    NULL };
	tu_result_t r;
	char *out;

	copy_tree();
	for (size_t i = 0; i < sizeof (targets) / sizeof (targets[0]); i++) {
		const char *args[] = { "-n", "CC=" NOCC, targets[i], NULL };

		out = make_ok(targets[i], args);
		ATF_CHECK_MSG(strstr(out, "/.ci/deps.sh make ") != NULL,
		    "make -n %s CC=" NOCC " runs no .ci/deps.sh:\n%s",
		    targets[i], out);
		free(out);
	}

	make_tree(&r, build);
	ATF_CHECK_MSG(WIFEXITED(r.tr_status) && WEXITSTATUS(r.tr_status) == 2,
	    "make build/pfiles CC=" NOCC ": wait status 0x%x",
	    (unsigned)r.tr_status);
	ATF_CHECK_MSG(strstr(r.tr_err, "make: " NOCC ": no C compiler runs "
	    "by that name (make deps-demo, as root, installs ") != NULL,
	    "make build/pfiles CC=" NOCC " says:\n%s", r.tr_err);
	ATF_CHECK_MSG(access(TREE "/build/libproc-patch", F_OK) != 0,
	    "make without a compiler went on to build");
	tu_result_free(&r);
}

ATF_TC(deps_deb_cross);
ATF_TC_HEAD(deps_deb_cross, tc)
{
	atf_tc_set_md_var(tc, "descr", "make -n deps-deb DEB_HOST_ARCH=arm64 "
	    "names gcc, binutils and libc6-dev of Debian's arm64 cross "
	    "toolchain; make -n deps-deb names no cross package");
	atf_tc_set_md_var(tc, "require.progs", "make tar env "
	    "dpkg-architecture");
	tu_timeout(tc, 300);
}
ATF_TC_BODY(deps_deb_cross, tc)
{
	static const char *const cross[] = { "-n", "deps-deb",
	    "DEB_HOST_ARCH=arm64", NULL };
	static const char *const host[] = { "-n", "deps-deb", NULL };
	static const char *const pkgs[] = { " gcc-aarch64-linux-gnu",
	    " binutils-aarch64-linux-gnu", " libc6-dev-arm64-cross" };
	char *out;

	copy_tree();
	out = make_ok("make -n deps-deb DEB_HOST_ARCH=arm64", cross);
	for (size_t i = 0; i < sizeof (pkgs) / sizeof (pkgs[0]); i++)
		ATF_CHECK_MSG(strstr(out, pkgs[i]) != NULL, "make -n deps-deb "
		    "DEB_HOST_ARCH=arm64 names no%s:\n%s", pkgs[i], out);
	free(out);
	out = make_ok("make -n deps-deb", host);
	ATF_CHECK_MSG(strstr(out, "-cross") == NULL && strstr(out,
	    "aarch64") == NULL, "make -n deps-deb names a cross "
	    "package:\n%s", out);
	free(out);
}

ATF_TC(dir_named_d_in_build);
ATF_TC_HEAD(dir_named_d_in_build, tc)
{
	atf_tc_set_md_var(tc, "descr", "a folder named *.d under build/ (an "
	    "unpacked package's etc/ld.so.conf.d) does not stop make");
	atf_tc_set_md_var(tc, "require.progs", "make tar env");
	tu_timeout(tc, 300);
}
ATF_TC_BODY(dir_named_d_in_build, tc)
{
	static const char *const args[] = { "-n", "BPF=0", "build/pfiles",
	    NULL };
	tu_result_t r;

	copy_tree();
	ATF_REQUIRE(mkdir(TREE "/build", 0755) == 0);
	ATF_REQUIRE(mkdir(TREE "/build/etc", 0755) == 0);
	ATF_REQUIRE(mkdir(TREE "/build/etc/ld.so.conf.d", 0755) == 0);
	make_tree(&r, args);
	ATF_CHECK_MSG(WIFEXITED(r.tr_status) && WEXITSTATUS(r.tr_status) == 0,
	    "make -n build/pfiles with build/etc/ld.so.conf.d: wait status "
	    "0x%x:\n%s", (unsigned)r.tr_status, r.tr_err);
	tu_result_free(&r);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, bpf_joins_later);
	ATF_TP_ADD_TC(tp, deleted_object_made_again);
	ATF_TP_ADD_TC(tp, deps_without_compiler);
	ATF_TP_ADD_TC(tp, deps_deb_cross);
	ATF_TP_ADD_TC(tp, dir_named_d_in_build);
	return (atf_no_error());
}
