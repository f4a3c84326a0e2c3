# SPDX-License-Identifier: BSD-2-Clause
# common.sh: shared helpers sourced by the kernels/ scripts (fetch.sh,
# initramfs.sh, boot.sh, check.sh): repository root, cache directory,
# package checks, and qemu's accelerator for the run (decide_accel).

# The repository root is the parent of the folder this file lives in.
KERNELS_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$KERNELS_SRC/.." && pwd)

# The guest's architecture, Debian's name: amd64 (the host's own: the
# guest's root is the host's /) or arm64 (a foreign one: its root is an
# arm64 userland of Debian packages, rootfs.sh, with the repository
# shared at its host path).  What differs is said here, once.
KERNELS_ARCH=${KERNELS_ARCH:-amd64}
case $KERNELS_ARCH in
amd64)
	KERNELS_DIR=${KERNELS_DIR:-$REPO_ROOT/build/kernels}
	QEMU=qemu-system-x86_64 QEMU_PKG=qemu-system-x86
	QEMU_MACHINE=() CONSOLE=ttyS0
	# TCG's TSC is not stable against the other clocksources: without
	# tsc=reliable the watchdog may mark it unstable mid-run, and one
	# 6.12 run oopsed then (int3 in sched_clock_cpu, as the sched_clock
	# static key was being patched).  tsc=reliable keeps the TSC and
	# skips the watchdog.
	ARCH_APPEND="tsc=reliable"
	# The build the guests run (the Makefile's B) and the host's ISA
	# folder of libproc (btfcheck.sh).
	GUEST_BUILD=${KERNELS_BUILD:-build} ISA=x86_64
	ROOTFS=
	KERNELS_LABEL=kernels
	;;
arm64)
	KERNELS_DIR=${KERNELS_DIR:-$REPO_ROOT/build/kernels-arm64}
	QEMU=qemu-system-aarch64 QEMU_PKG=qemu-system-arm
	QEMU_MACHINE=(-M virt) CONSOLE=ttyAMA0
	ARCH_APPEND=
	GUEST_BUILD=${KERNELS_BUILD:-build-aarch64} ISA=aarch64
	QEMU_USER_ARCH=aarch64
	ROOTFS=$KERNELS_DIR/rootfs
	KERNELS_LABEL=kernels-arm64
	;;
*) echo "kernels: KERNELS_ARCH=$KERNELS_ARCH: amd64 or arm64" >&2; exit 1 ;;
esac
# The meta-packages fetched when none is named.
DEFAULT_KERNEL_PKGS="linux-image-$KERNELS_ARCH linux-image-6.12-$KERNELS_ARCH"

# apt_do COMMAND [ARG...]: apt-get or apt-cache for the guest's packages:
# the host's own apt for the host's architecture; for a foreign one,
# scripts/foreign-apt.sh's, with its lists, cache and an empty dpkg
# status in $KERNELS_DIR/apt: nothing foreign is installed on the host.
# As root apt drops to user _apt to download and warns when _apt cannot
# write the directory; download as root instead.
apt_do() {
	if [ -n "$ROOTFS" ]; then
		sh "$REPO_ROOT/scripts/foreign-apt.sh" "$KERNELS_DIR/apt" \
		    "$KERNELS_ARCH" "$@"
	else
		"$1" -o APT::Sandbox::User=root "${@:2}"
	fi
}

die() {
	echo "kernels: $*" >&2
	exit 1
}

say() {
	echo "kernels: $*" >&2
}

# need_pkgs PKG...: make sure the Debian packages are installed.  As root,
# install the missing ones; otherwise print the exact apt-get line and fail.
need_pkgs() {
	local missing="" p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "kernels: missing packages; run as root:" >&2
		echo "apt-get install -y$missing" >&2
		exit 1
	fi
	say "installing$missing"
	DEBIAN_FRONTEND=noninteractive apt-get install -y $missing >&2 ||
		die "apt-get install -y$missing failed"
}

# qemu's -cpu model under each accelerator.  Under KVM, the host's own.
# Under TCG, "max" (all that TCG emulates: SSE4.2, POPCNT, AVX2, RDRAND,
# ...) so that binaries built for x86-64-v2/v3 run instead of dying of
# SIGILL as on the default qemu64 (a 2003 CPU); minus la57, because with
# it the kernel uses 5-level page tables, which real machines running
# these tests do not.  The speed of max, max,-la57 and qemu64 measured the
# same under TCG.
# On arm64, "max" with the IMPLEMENTATION DEFINED pointer authentication
# algorithm, far cheaper to emulate than the architected QARMA5.
KVM_CPU=${KERNELS_KVM_CPU:-host}
if [ "$KERNELS_ARCH" = arm64 ]; then
	TCG_CPU=${KERNELS_TCG_CPU:-max,pauth-impdef=on}
else
	TCG_CPU=${KERNELS_TCG_CPU:-max,-la57}
fi
# The KVM device (another path: a host without one, or whose device opens).
KVM_DEV=${KERNELS_KVM_DEV:-/dev/kvm}

# accel_cpu ACCEL: the -cpu model under ACCEL (kvm or tcg).
accel_cpu() {
	if [ "$1" = kvm ]; then echo "$KVM_CPU"; else echo "$TCG_CPU"; fi
}

# accel_scale ACCEL: the tests' bounds of waits (TU_TIME_SCALE,
# atf/testutil.h) in a guest under ACCEL: TCG ran the suite 5 to 6 times
# slower than the host in our runs.
accel_scale() {
	if [ "$1" = kvm ]; then
		echo "${KERNELS_TIME_SCALE:-1}"
	else
		echo "${KERNELS_TIME_SCALE:-6}"
	fi
}

# qemu_error OUTDIR: the first error qemu wrote to OUTDIR/qemu.log (its
# warnings and our own kill left out), or nothing.
qemu_error() {
	grep -aE 'error|[Ff]ailed|unable|Assertion|KVM|kvm' "$1/qemu.log" \
	    2>/dev/null | grep -avE 'warning|terminating on signal' |
	    head -n 1 | sed "s/^$QEMU: //"
}

# kvm_probe KVER: boot KVER under KVM as boot.sh boots every guest, with
# the command `true`, no second boot, and KERNELS_KVM_PROBE_TIMEOUT (60)
# seconds to reach it: a /dev/kvm that opens may still abort qemu or hang
# the guest (nested KVM).  Sets probe_s (seconds the probe took) and, when
# KVM cannot run the guest, probe_why.  KERNELS_KVM_PROBE=fail makes the
# probe ask qemu for a CPU model that does not exist, so that qemu refuses
# at once, as on a host whose KVM cannot run the guest's CPU.
kvm_probe() {
	local out=$KERNELS_DIR/$1/probe bound=${KERNELS_KVM_PROBE_TIMEOUT:-60}
	local cpu=$KVM_CPU start st
	case ${KERNELS_KVM_PROBE:-} in
	'') ;;
	fail) cpu=kernels-probe-fail ;;
	*) die "KERNELS_KVM_PROBE=$KERNELS_KVM_PROBE: only fail is known" ;;
	esac
	[[ $bound =~ ^[0-9]+$ ]] || die "KERNELS_KVM_PROBE_TIMEOUT: seconds"
	rm -rf "$out" && mkdir -p "$out" && echo true >"$out/cmd" ||
		die "cannot write $out"
	start=$(date +%s.%N)
	KERNELS_ACCEL=kvm KERNELS_ACCEL_VERDICT=kvm KERNELS_KVM_CPU=$cpu \
	    KERNELS_RETRY=0 KERNELS_BOOT_MARGIN=$bound \
	    "$KERNELS_SRC/boot.sh" "$1" "$out/cmd" "$out" 10 \
	    >/dev/null 2>"$out/boot.log"
	st=$?
	probe_s=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }")
	probe_why=
	[ $st -eq 0 ] && return 0
	probe_why=$(cat "$out/why" 2>/dev/null)
	probe_why="the probe's guest (-cpu $cpu) gave status $st${probe_why:+: $probe_why}; see $out"
}

# decide_accel KVER: qemu's accelerator for this run, decided once and
# exported in KERNELS_ACCEL_VERDICT (kvm or tcg): check.sh decides before
# its first boot, and the boot.sh it runs keep that.  KERNELS_ACCEL=auto
# (the default) uses KVM only once a probe has booted KVER with it, and
# TCG otherwise; tcg never tries KVM; kvm fails when the probe does.
decide_accel() {
	local why=
	case ${KERNELS_ACCEL:=auto} in
	auto|kvm|tcg) ;;
	*) die "KERNELS_ACCEL=$KERNELS_ACCEL: auto, kvm or tcg" ;;
	esac
	[ -n "${KERNELS_ACCEL_VERDICT:-}" ] && return 0
	case $KERNELS_ACCEL in
	tcg) why="not tried: KERNELS_ACCEL=tcg" ;;
	kvm|auto)
		if [ "$(uname -m)" != "$ISA" ]; then
			why="the guest is $ISA, the host $(uname -m)"
		elif [ ! -c "$KVM_DEV" ]; then
			why="no $KVM_DEV"
		elif ! (exec 3<>"$KVM_DEV") 2>/dev/null; then
			why="$KVM_DEV cannot be opened"
		else
			kvm_probe "$1"
			why=$probe_why
		fi ;;
	esac
	if [ -z "$why" ]; then
		KERNELS_ACCEL_VERDICT=kvm
		say "accel kvm (probe booted in $probe_s s)"
	elif [ "$KERNELS_ACCEL" = kvm ]; then
		die "KERNELS_ACCEL=kvm, but kvm: $why"
	else
		KERNELS_ACCEL_VERDICT=tcg
		say "accel tcg (kvm: $why)"
	fi
	export KERNELS_ACCEL KERNELS_ACCEL_VERDICT
}
