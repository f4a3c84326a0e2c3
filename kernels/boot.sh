#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# boot.sh: boot a kernel fetched by kernels/fetch.sh under qemu and run a
# command inside it.  The guest sees the host's / read-only (9p tag
# hostroot; for KERNELS_ARCH=arm64, the arm64 root of rootfs.sh with the
# repository at its host path, 9p tag repo) and OUTDIR read-write at the
# same path (9p tag out); it runs
# CMDFILE with bash in the repository root (kernels/guest.sh) and writes
# OUTDIR/log (output), OUTDIR/status, OUTDIR/times and OUTDIR/insmod.log.
# The serial console goes to OUTDIR/console.log.  If the console shows a
# kernel oops/BUG/panic or the guest wrote no status, it boots once more
# (first console kept as console.1.log); under KVM, when qemu died of an
# error or the guest never reached its command, that second boot is under
# TCG (unless KERNELS_ACCEL=kvm).  Prints the command's output; exits with
# its status, or 125 when there was none after the retry (the reason in
# OUTDIR/why).
#
# usage: kernels/boot.sh KVER CMDFILE OUTDIR [TIMEOUT]
#   TIMEOUT: seconds for the command (default $KERNELS_TIMEOUT or 1800);
#   qemu is killed when the command has not started after
#   $KERNELS_BOOT_MARGIN (300) s, and after TIMEOUT + that margin.
# Environment: KERNELS_DIR, KERNELS_MEM (MiB, 3072), KERNELS_CACHE (9p
# cache mode of the host root, loose), KERNELS_APPEND (extra kernel
# parameters), KERNELS_PVH=0 (boot the bzImage, not the unpacked vmlinux),
# KERNELS_RETRY=0 (no second boot), KERNELS_ARCH (amd64, arm64),
# KERNELS_SHARE (arm64: the directory shared, default the repository);
# the accelerator's (common.sh):
# KERNELS_ACCEL, KERNELS_KVM_CPU, KERNELS_TCG_CPU, KERNELS_TIME_SCALE.
set -uo pipefail
. "$(dirname "$0")/common.sh"

[ $# -ge 3 ] && [ $# -le 4 ] || die "usage: $0 KVER CMDFILE OUTDIR [TIMEOUT]"
kver=$1 cmdfile=$2 outdir=$3
timeout=${4:-${KERNELS_TIMEOUT:-1800}}
margin=${KERNELS_BOOT_MARGIN:-300}
[[ $timeout =~ ^[0-9]+$ ]] || die "TIMEOUT must be a number of seconds"
if [ -n "$ROOTFS" ]; then
	need_pkgs "$QEMU_PKG"
	"$KERNELS_SRC/rootfs.sh" || die "$kver: no root for the guest"
else
	need_pkgs "$QEMU_PKG" busybox-static
fi

dir=$KERNELS_DIR/$kver
vmlinuz=$dir/pkg/boot/vmlinuz-$kver
initrd=$dir/initramfs.cpio.gz
[ -f "$vmlinuz" ] || die "$kver: no $vmlinuz; run kernels/fetch.sh first"

# make_vmlinux: unpack the ELF vmlinux from the bzImage into
# $dir/vmlinux.  qemu boots it through its PVH entry point, which skips
# the kernel's own decompression: under TCG, unpacking 6.1's xz payload
# takes about 2.5 s of every boot.  The payload's place is in the bzImage
# header: setup_sects at 0x1f1, payload_offset/length at 0x248/0x24c; its
# last 4 bytes are the unpacked size, not compressed data.
make_vmlinux() {
	local sects off len start magic tmp=$dir/vmlinux.tmp.$$
	grep -qx 'CONFIG_PVH=y' "$dir/pkg/boot/config-$kver" 2>/dev/null || return 1
	sects=$(od -An -j $((0x1f1)) -N1 -tu1 "$vmlinuz")
	off=$(od -An -j $((0x248)) -N4 -tu4 "$vmlinuz")
	len=$(od -An -j $((0x24c)) -N4 -tu4 "$vmlinuz")
	start=$(( (sects + 1) * 512 + off ))
	magic=$(od -An -j $start -N4 -tx1 "$vmlinuz" | tr -d ' ')
	dd if="$vmlinuz" bs=64k iflag=skip_bytes,count_bytes skip=$start \
		count=$((len - 4)) status=none | case $magic in
		fd377a58) xz -dc ;;
		28b52ffd) zstd -qdc ;;
		1f8b08*) gzip -dc ;;
		*) cat > /dev/null; return 1 ;;
		esac > "$tmp" 2>/dev/null || { rm -f "$tmp"; return 1; }
	[ "$(head -c 4 "$tmp" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] || { rm -f "$tmp"; return 1; }
	mv "$tmp" "$dir/vmlinux"
}
kernel=$vmlinuz
# arm64's vmlinuz is the Image itself, which qemu boots as it is.
if [ "$KERNELS_ARCH" = amd64 ] && [ "${KERNELS_PVH:-1}" = 1 ]; then
	if [ -f "$dir/vmlinux" ] || make_vmlinux; then
		kernel=$dir/vmlinux
	else
		say "$kver: no PVH vmlinux, booting the bzImage"
	fi
fi
if [ ! -f "$initrd" ] || [ "$KERNELS_SRC/init-template.sh" -nt "$initrd" ] ||
	[ "$KERNELS_SRC/initramfs.sh" -nt "$initrd" ] ||
	{ [ -n "$ROOTFS" ] && [ "$ROOTFS/.packages" -nt "$initrd" ]; }; then
	"$KERNELS_SRC/initramfs.sh" "$kver" || die "$kver: initramfs build failed"
fi
[ -f "$cmdfile" ] || die "$cmdfile: no such file"
mkdir -p "$outdir" || die "cannot create $outdir"
outdir=$(cd "$outdir" && pwd -P)
# Both paths go on the kernel command line (no white space) and in qemu's
# -virtfs options (no comma).
case "$outdir$KERNELS_SRC" in
*[[:space:],]*) die "paths with white space or commas are not supported: $outdir" ;;
esac
# The guest mounts its own /dev, /proc and /sys over those of the host.
case $outdir/ in
/dev/*|/proc/*|/sys/*) die "OUTDIR cannot be under /dev, /proc or /sys" ;;
esac
# A foreign guest's root is its own: the repository and OUTDIR are shared
# into it at their host paths, on mount points made here.
# KERNELS_SHARE: another host directory to share so (one that holds the
# repository, or another tree beside it).
root=/ share=
if [ -n "$ROOTFS" ]; then
	root=$ROOTFS
	share=$(cd "${KERNELS_SHARE:-$REPO_ROOT}" && pwd -P) ||
		die "KERNELS_SHARE=$KERNELS_SHARE: no such directory"
	case $KERNELS_SRC/ in
	"$share"/*) ;;
	*) die "KERNELS_SHARE=$share does not hold $KERNELS_SRC" ;;
	esac
	mkdir -p "$root$share" "$root$outdir" ||
		die "cannot make the mount points in $root"
fi
if [ "$(cd "$(dirname "$cmdfile")" && pwd -P)/$(basename "$cmdfile")" != "$outdir/cmd" ]; then
	cp "$cmdfile" "$outdir/cmd" || die "cannot copy $cmdfile"
fi

decide_accel "$kver"
accel=$KERNELS_ACCEL_VERDICT
user_model=passthrough
[ "$(id -u)" -eq 0 ] || user_model=none

# Kernel messages that mean the run is not to be trusted (user-space
# "traps:" lines, e.g. a test's own segfault, do not count).
OOPS='Oops|BUG: |kernel BUG at|Kernel panic|general protection fault|int3: '

# run_qemu: one boot under $accel; sets boot_s (host seconds until the
# command started, empty if it never did), total_s, qemu_rc and killed
# (why boot.sh stopped qemu, if it did).
run_qemu() {
	local start now pid append cpu repo=()
	cpu=$(accel_cpu "$accel")
	append="console=$CONSOLE,115200 $ARCH_APPEND kernels.out=$outdir"
	append="$append kernels.guest=$KERNELS_SRC/guest.sh"
	append="$append kernels.timeout=$timeout"
	append="$append kernels.scale=$(accel_scale "$accel")"
	append="$append kernels.cache=${KERNELS_CACHE:-loose} ${KERNELS_APPEND:-}"
	if [ -n "$ROOTFS" ]; then
		append="$append kernels.repo=$share"
		repo=(-virtfs "local,path=$share,mount_tag=repo,security_model=$user_model,readonly=on,multidevs=remap")
	fi
	rm -f "$outdir"/{status,status.tmp,log,times,insmod.log,console.log,why}
	start=$(date +%s.%N)
	timeout -k 5 $((timeout + margin)) "$QEMU" "${QEMU_MACHINE[@]}" \
		-accel "$accel" -cpu "$cpu" -smp 2 -m "${KERNELS_MEM:-3072}" \
		-nographic -no-reboot -no-user-config -nic none \
		-monitor none -serial "file:$outdir/console.log" \
		-kernel "$kernel" -initrd "$initrd" -append "$append" \
		-virtfs "local,path=$root,mount_tag=hostroot,security_model=$user_model,readonly=on,multidevs=remap" \
		"${repo[@]}" \
		-virtfs "local,path=$outdir,mount_tag=out,security_model=$user_model" \
		< /dev/null > "$outdir/qemu.log" 2>&1 &
	pid=$!
	boot_s='' killed=''
	# Watch the run: note when the command starts; a kernel panic stops
	# the kernel for good, and a guest that has not reached its command
	# within the margin is not booting: do not wait for the timeout then.
	while kill -0 $pid 2>/dev/null; do
		sleep 0.5
		now=$(date +%s.%N)
		if [ -z "$boot_s" ] && [ -f "$outdir/times" ]; then
			boot_s=$(awk "BEGIN { printf \"%.1f\", $now - $start }")
		fi
		if grep -q 'Kernel panic - not syncing' "$outdir/console.log" 2>/dev/null; then
			sleep 5
			killed="kernel panic"
		elif [ -z "$boot_s" ] &&
		    awk "BEGIN { exit !($now - $start > $margin) }"; then
			killed="the guest did not reach its command in ${margin}s ($(last_console))"
		fi
		[ -n "$killed" ] && { kill $pid 2>/dev/null; break; }
	done
	wait $pid
	qemu_rc=$?
	[ $qemu_rc -eq 124 ] && killed="qemu killed after $((timeout + margin))s"
	now=$(date +%s.%N)
	total_s=$(awk "BEGIN { printf \"%.1f\", $now - $start }")
}

# last_console: the last line the guest wrote to its console, or a word
# for none.
last_console() {
	local line
	line=$(tr -d '\r' < "$outdir/console.log" 2>/dev/null | tr -cd '[:print:]\n' |
	    grep -a '[[:alnum:]]' | tail -n 1 | cut -c 1-100)
	echo "console: ${line:-empty}"
}

# trouble: print the first sign of trouble in the run just done, if any.
trouble() {
	local line
	line=$(grep -aE "$OOPS" "$outdir/console.log" 2>/dev/null | grep -av 'traps:' | head -n 1)
	if [ -n "$line" ]; then
		echo "$line" | tr -d '\r'
	elif [ -f "$outdir/status" ]; then
		return
	elif [ -n "$killed" ]; then
		echo "$killed"
	elif [ "$qemu_rc" -ne 0 ]; then
		line=$(qemu_error "$outdir")
		echo "qemu exited with status $qemu_rc${line:+: $line}"
	else
		echo "no status from the guest"
	fi
}

# kvm_failed: did the run just done under KVM fail for KVM's sake: qemu
# died of an error, or the guest never reached its command?  The probe
# booted this once, but nested KVM may still abort mid-run.
kvm_failed() {
	[ "$accel" = kvm ] && [ ! -f "$outdir/status" ] || return 1
	[ -z "$boot_s" ] && return 0
	[ -z "$killed" ] && [ "$qemu_rc" -ne 0 ]
}

run_qemu
why=$(trouble)
if [ -n "$why" ] && [ "${KERNELS_RETRY:-1}" != 0 ]; then
	if kvm_failed && [ "$KERNELS_ACCEL" != kvm ]; then
		accel=tcg
		say "$kver: kvm failed ($why): booting again under tcg"
	else
		say "$kver: retrying once: $why"
	fi
	mv -f "$outdir/console.log" "$outdir/console.1.log"
	[ -f "$outdir/log" ] && mv -f "$outdir/log" "$outdir/log.1"
	run_qemu
	why=$(trouble)
	[ -n "$why" ] && say "$kver: again: $why"
fi

[ -f "$outdir/log" ] && cat "$outdir/log"
status=125
if [ -f "$outdir/status" ]; then
	status=$(cat "$outdir/status")
else
	echo "$why" > "$outdir/why"
fi
echo "accel $accel (-cpu $(accel_cpu "$accel"), TU_TIME_SCALE=$(accel_scale "$accel")): boot to command ${boot_s:-?}s, total ${total_s}s" > "$outdir/accel"
say "$kver: status $status; $(cat "$outdir/accel"); output in $outdir"
exit "$status"
