/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_kernels: the accelerator of make check-kernels (kernels/common.sh,
 * decide_accel).  KVM is used only once a probe has booted a guest with
 * it, TCG otherwise; the run says which and why, once; KERNELS_ACCEL
 * forces either; and the -cpu model and TU_TIME_SCALE follow the verdict.
 *
 * No qemu runs here: the KVM device is a path the test chooses
 * (KERNELS_KVM_DEV: none, or /dev/null, which opens), and boot.sh, which
 * the probe runs, is a stub of the test's own that logs how it was asked
 * to boot and gives the status and reason the case chose.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include <atf-c.h>

#include "testutil.h"

#define	COMMON_SH	SRC_DIR "/kernels/common.sh"
#define	PROBE_LOG	"probe.log"
#define	KVM_WORKS	"KERNELS_KVM_DEV=/dev/null"
#define	KVM_ABSENT	"KERNELS_KVM_DEV=./no-kvm"
#define	MSR_ABORT	"qemu exited with status 134: error: failed to " \
	"set MSR 0x10a to 0x69"
/* How the probe asks boot.sh to boot: its own bounds, no second boot. */
#define	PROBE_ASKS	"accel=kvm verdict=kvm retry=0 margin=60 timeout=10"

/* The stub of boot.sh: logs its call, writes OUTDIR/why, exits. */
static const char stub_boot[] =
    "#!/bin/bash\n"
    "echo \"boot $1 cpu=$KERNELS_KVM_CPU accel=$KERNELS_ACCEL"
    " verdict=$KERNELS_ACCEL_VERDICT retry=$KERNELS_RETRY"
    " margin=$KERNELS_BOOT_MARGIN timeout=$4\" >>\"$STUB_LOG\"\n"
    "[ -z \"$STUB_WHY\" ] || echo \"$STUB_WHY\" >\"$3/why\"\n"
    "exit \"${STUB_RC:-0}\"\n";

/*
 * Decide twice (the second must keep the first verdict), then print the
 * verdict and what follows from it.
 */
static const char driver[] =
    ". \"$1\" || exit 2\n"
    "KERNELS_SRC=$PWD/stub\n"
    "decide_accel k1 && decide_accel k1 || exit 1\n"
    "v=$KERNELS_ACCEL_VERDICT\n"
    "echo \"verdict=$v cpu=$(accel_cpu $v) scale=$(accel_scale $v)\"\n";

#define	TCG_LINE	"verdict=tcg cpu=max,-la57 scale=6\n"
#define	KVM_LINE	"verdict=kvm cpu=host scale=1\n"

/* Run the driver with the stub and env (NULL-ended, at most 7). */
static void
decide(const char *const *env, tu_result_t *r)
{
	const char *const argv[] = { "bash", "-c", driver, "t_kernels",
	    COMMON_SH, NULL };
	const char *all[16];
	char *log, *cache, cwd[4096];
	size_t n = 0;

	ATF_REQUIRE(getcwd(cwd, sizeof (cwd)) != NULL);
	ATF_REQUIRE(mkdir("stub", 0755) == 0);
	tu_write_file("stub/boot.sh", stub_boot, strlen(stub_boot));
	ATF_REQUIRE(chmod("stub/boot.sh", 0755) == 0);
	log = tu_asprintf("STUB_LOG=%s/" PROBE_LOG, cwd);
	cache = tu_asprintf("KERNELS_DIR=%s/cache", cwd);
	all[n++] = log;
	all[n++] = cache;
	/* The caller's machine must not leak into the case. */
	all[n++] = "KERNELS_ACCEL=";
	all[n++] = "KERNELS_ACCEL_VERDICT=";
	all[n++] = "KERNELS_KVM_CPU=";
	all[n++] = "KERNELS_KVM_PROBE=";
	all[n++] = "KERNELS_KVM_PROBE_TIMEOUT=";
	all[n++] = "KERNELS_TIME_SCALE=";
	for (; *env != NULL && n < 15; env++)
		all[n++] = *env;
	ATF_REQUIRE(*env == NULL);
	all[n] = NULL;
	tu_run(argv, all, TU_TIMEOUT_MS, r);
	free(log);
	free(cache);
}

/* The probe's calls of boot.sh, as the stub logged them ("" if none). */
static char *
probe_calls(void)
{
	char *s;

	if (access(PROBE_LOG, F_OK) != 0)
		return (tu_asprintf("%s", ""));
	s = tu_read_file(PROBE_LOG, NULL);
	ATF_REQUIRE(s != NULL);
	return (s);
}

/*
 * Decide under env; require the exit code, stdout, stderr and the
 * probe's calls.
 */
static void
require_outcome(const char *const *env, int code, const char *out,
    const char *err, const char *calls)
{
	tu_result_t r;
	char *got;

	decide(env, &r);
	got = probe_calls();
	tu_require_exit("decide_accel", &r, code);
	tu_require_same_str("stdout", out, r.tr_out);
	tu_require_same_str("stderr", err, r.tr_err);
	tu_require_same_str("probe", calls, got);
	free(got);
	tu_result_free(&r);
}

/* What the run says of KVM when the probe's boot failed. */
static char *
probe_failed(const char *cpu, const char *why)
{
	char cwd[4096];

	ATF_REQUIRE(getcwd(cwd, sizeof (cwd)) != NULL);
	return (tu_asprintf("the probe's guest (-cpu %s) gave status 125: "
	    "%s; see %s/cache/k1/probe", cpu, why, cwd));
}

/* The line of a run that fell back to TCG for that reason. */
static char *
tcg_line(const char *why)
{
	return (tu_asprintf("kernels: accel tcg (kvm: %s)\n", why));
}

ATF_TC_WITHOUT_HEAD(no_device_is_tcg);
ATF_TC_BODY(no_device_is_tcg, tc)
{
	const char *const env[] = { KVM_ABSENT, NULL };

	require_outcome(env, 0, TCG_LINE,
	    "kernels: accel tcg (kvm: no ./no-kvm)\n", "");
}

#define	PROBED_HOST	"boot k1 cpu=host " PROBE_ASKS "\n"

ATF_TC_WITHOUT_HEAD(probe_booted_is_kvm);
ATF_TC_BODY(probe_booted_is_kvm, tc)
{
	const char *const env[] = { KVM_WORKS, "STUB_RC=0", NULL };
	const char *head = "kernels: accel kvm (probe booted in ";
	char *calls;
	tu_result_t r;

	decide(env, &r);
	tu_require_exit("decide_accel", &r, 0);
	tu_require_same_str("stdout", KVM_LINE, r.tr_out);
	ATF_CHECK_MSG(strncmp(r.tr_err, head, strlen(head)) == 0 &&
	    strstr(r.tr_err, " s)\n") != NULL &&
	    strchr(r.tr_err, '\n')[1] == '\0', "stderr: %s", r.tr_err);
	calls = probe_calls();
	tu_require_same_str("probe", PROBED_HOST, calls);
	free(calls);
	tu_result_free(&r);
}

ATF_TC_WITHOUT_HEAD(probe_failed_is_tcg);
ATF_TC_BODY(probe_failed_is_tcg, tc)
{
	const char *const env[] = { KVM_WORKS, "STUB_RC=125",
	    "STUB_WHY=" MSR_ABORT, NULL };
	char *why = probe_failed("host", MSR_ABORT);
	char *err = tcg_line(why);

	require_outcome(env, 0, TCG_LINE, err, PROBED_HOST);
	free(err);
	free(why);
}

/* KERNELS_KVM_PROBE=fail: the probe's qemu is given no CPU it knows. */
ATF_TC_WITHOUT_HEAD(probe_made_to_fail);
ATF_TC_BODY(probe_made_to_fail, tc)
{
	const char *const env[] = { KVM_WORKS, "KERNELS_KVM_PROBE=fail",
	    "STUB_RC=125", "STUB_WHY=no such model", NULL };
	char *why = probe_failed("kernels-probe-fail", "no such model");
	char *err = tcg_line(why);

	require_outcome(env, 0, TCG_LINE, err,
	    "boot k1 cpu=kernels-probe-fail " PROBE_ASKS "\n");
	free(err);
	free(why);
}

ATF_TC_WITHOUT_HEAD(forced_tcg_never_probes);
ATF_TC_BODY(forced_tcg_never_probes, tc)
{
	const char *const env[] = { KVM_WORKS, "KERNELS_ACCEL=tcg",
	    "STUB_RC=0", NULL };

	require_outcome(env, 0, TCG_LINE,
	    "kernels: accel tcg (kvm: not tried: KERNELS_ACCEL=tcg)\n", "");
}

/* Insisting on KVM: no fallback, the probe's reason said. */
ATF_TC_WITHOUT_HEAD(forced_kvm_fails_with_probe);
ATF_TC_BODY(forced_kvm_fails_with_probe, tc)
{
	const char *const env[] = { KVM_WORKS, "KERNELS_ACCEL=kvm",
	    "STUB_RC=125", "STUB_WHY=" MSR_ABORT, NULL };
	char *why = probe_failed("host", MSR_ABORT);
	char *err = tu_asprintf("kernels: KERNELS_ACCEL=kvm, but kvm: %s\n",
	    why);

	require_outcome(env, 1, "", err, PROBED_HOST);
	free(err);
	free(why);
}

ATF_TC_WITHOUT_HEAD(forced_kvm_absent_fails);
ATF_TC_BODY(forced_kvm_absent_fails, tc)
{
	const char *const env[] = { KVM_ABSENT, "KERNELS_ACCEL=kvm", NULL };

	require_outcome(env, 1, "",
	    "kernels: KERNELS_ACCEL=kvm, but kvm: no ./no-kvm\n", "");
}

/* A verdict already made (check.sh's, exported to boot.sh) is kept. */
ATF_TC_WITHOUT_HEAD(verdict_kept_without_probe);
ATF_TC_BODY(verdict_kept_without_probe, tc)
{
	const char *const env[] = { KVM_WORKS, "STUB_RC=0",
	    "KERNELS_ACCEL_VERDICT=tcg", NULL };

	require_outcome(env, 0, TCG_LINE, "", "");
}

ATF_TC_WITHOUT_HEAD(unknown_accel_refused);
ATF_TC_BODY(unknown_accel_refused, tc)
{
	const char *const env[] = { KVM_WORKS, "KERNELS_ACCEL=on",
	    "STUB_RC=0", NULL };

	require_outcome(env, 1, "",
	    "kernels: KERNELS_ACCEL=on: auto, kvm or tcg\n", "");
}

/*
 * An arm64 guest on another machine: KVM cannot run it, so TCG without a
 * probe, even where /dev/kvm works, with arm64's TCG CPU.
 */
ATF_TC_WITHOUT_HEAD(foreign_guest_is_tcg);
ATF_TC_BODY(foreign_guest_is_tcg, tc)
{
	const char *const env[] = { KVM_WORKS, "KERNELS_ARCH=arm64",
	    "STUB_RC=0", NULL };
	struct utsname u;
	char *err;

	ATF_REQUIRE(uname(&u) == 0);
	if (strcmp(u.machine, "aarch64") == 0)
		atf_tc_skip("the host is arm64: its guests are not foreign");
	err = tu_asprintf("kernels: accel tcg (kvm: the guest is aarch64, "
	    "the host %s)\n", u.machine);
	require_outcome(env, 0, "verdict=tcg cpu=max,pauth-impdef=on "
	    "scale=6\n", err, "");
	free(err);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, no_device_is_tcg);
	ATF_TP_ADD_TC(tp, probe_booted_is_kvm);
	ATF_TP_ADD_TC(tp, probe_failed_is_tcg);
	ATF_TP_ADD_TC(tp, probe_made_to_fail);
	ATF_TP_ADD_TC(tp, forced_tcg_never_probes);
	ATF_TP_ADD_TC(tp, forced_kvm_fails_with_probe);
	ATF_TP_ADD_TC(tp, forced_kvm_absent_fails);
	ATF_TP_ADD_TC(tp, verdict_kept_without_probe);
	ATF_TP_ADD_TC(tp, unknown_accel_refused);
	ATF_TP_ADD_TC(tp, foreign_guest_is_tcg);
	return (atf_no_error());
}
