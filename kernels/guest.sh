#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# guest.sh: PID 1 of a kernels/boot.sh guest, after the initramfs has
# switch_rooted into the host's root (read-only over 9p).  It mounts what a
# normal system has (writable tmpfs on /tmp, /run, /var/tmp, /root, ...),
# brings up loopback, runs $OUT/cmd with bash under a timeout in the
# repository root, saves its output in $OUT/log and its exit status in
# $OUT/status, and powers the machine off.  It must never exit: PID 1
# exiting panics the kernel.
#   kernel command line: kernels.out=DIR (the out share's path, exported to
#   the command as OUT), kernels.timeout=SECONDS (default 1800, exported as
#   KERNELS_TIMEOUT).

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
read -r up _ < /proc/uptime
echo "guest: started at ${up}s"
export HOME=/root LANG=C.UTF-8 TERM=dumb
umask 022

# The static busybox (a dependency of kernels/) starts faster than the
# dynamically linked util-linux tools.
bb=
[ -x /bin/busybox ] && bb=/bin/busybox

# mounted DIR: true if something is mounted on DIR (no exec: every exec
# of a program from the 9p root costs tens of ms under TCG).
mounted() {
	local dev mp rest
	while read -r dev mp rest; do
		[ "$mp" = "$1" ] && return 0
	done < /proc/mounts
	return 1
}

# mnt TYPE DIR [OPTIONS]: mount a fresh TYPE on DIR unless already there.
mnt() {
	local type=$1 dir=$2 opts=${3:-}
	[ -d "$dir" ] || mkdir -p "$dir" 2>/dev/null || return 1
	mounted "$dir" && return 0
	$bb mount -t "$type" ${opts:+-o "$opts"} "$type" "$dir"
}

# The host root is seen through 9p with the host's own /proc, /sys and /dev
# under it (qemu's 9p server crosses host mount points), so first make
# sure /proc is the guest's: until then /proc/mounts would be the host's.
[ "$(stat -f -c %T /proc)" = proc ] || $bb mount -t proc -o nosuid,nodev,noexec proc /proc
mnt sysfs /sys nosuid,nodev,noexec

out= timeout=1800 scale=1
read -r -a words < /proc/cmdline
for w in "${words[@]}"; do
	case $w in
	kernels.out=*) out=${w#kernels.out=} ;;
	kernels.timeout=*) timeout=${w#kernels.timeout=} ;;
	kernels.scale=*) scale=${w#kernels.scale=} ;;
	esac
done
export OUT=$out KERNELS_TIMEOUT=$timeout TU_TIME_SCALE=$scale

mnt devtmpfs /dev mode=755
mnt devpts /dev/pts gid=5,mode=620,ptmxmode=666
mnt tmpfs /dev/shm mode=1777,nosuid,nodev
[ -e /dev/fd ] || $bb ln -s /proc/self/fd /dev/fd
[ -e /dev/stdin ] || $bb ln -s /proc/self/fd/0 /dev/stdin
[ -e /dev/stdout ] || $bb ln -s /proc/self/fd/1 /dev/stdout
[ -e /dev/stderr ] || $bb ln -s /proc/self/fd/2 /dev/stderr
# The repository is the parent of this script's folder.
repo=${0%/*}
repo=${repo%/*}

# under_tmpfs PATH: is PATH inside a directory that gets a fresh tmpfs
# below, and so would be hidden by it?
under_tmpfs() {
	case $1/ in
	/run/*|/tmp/*|/var/tmp/*|/root/*) return 0 ;;
	esac
	return 1
}

# The init mounted the out share at its host path, and the repository is
# where the host has it; either may be inside a directory that gets a
# fresh tmpfs here (a clone in /tmp, mktemp -d's /tmp/...): park them in
# /dev meanwhile (the share moved, the repository bound, a folder of the
# 9p root) and put them back on top afterwards, the share last.
park_out= park_repo=
if under_tmpfs "$OUT"; then
	park_out=/dev/.kernels-out
	mkdir -p $park_out && $bb mount --move "$OUT" $park_out
fi
if under_tmpfs "$repo"; then
	park_repo=/dev/.kernels-repo
	mkdir -p $park_repo && $bb mount --bind "$repo" $park_repo
fi
mnt tmpfs /run mode=755,nosuid,nodev
mnt tmpfs /tmp mode=1777,nosuid,nodev
mnt tmpfs /var/tmp mode=1777,nosuid,nodev
mnt tmpfs /root mode=700
if [ -n "$park_repo" ]; then
	mkdir -p "$repo" && $bb mount --move $park_repo "$repo" &&
	    rmdir $park_repo
fi
if [ -n "$park_out" ]; then
	mkdir -p "$OUT" 2>/dev/null
	$bb mount --move $park_out "$OUT" && rmdir $park_out
fi
mnt cgroup2 /sys/fs/cgroup nosuid,nodev,noexec
[ -d /sys/fs/bpf ] && mnt bpf /sys/fs/bpf mode=700
mnt securityfs /sys/kernel/security nosuid,nodev,noexec
mnt debugfs /sys/kernel/debug 2>/dev/null
mnt tracefs /sys/kernel/tracing 2>/dev/null

echo localhost > /proc/sys/kernel/hostname
if command -v ip >/dev/null; then
	ip link set lo up
else
	busybox ip link set lo up
fi
ulimit -n 20000

poweroff_now() {
	sync
	if [ -x /bin/busybox ]; then
		/bin/busybox poweroff -f
	fi
	echo o > /proc/sysrq-trigger
	while :; do sleep 60; done
}

if [ ! -f "$OUT/cmd" ]; then
	echo "guest: no $OUT/cmd"
	poweroff_now
fi

read -r up _ < /proc/uptime
read -r kver < /proc/sys/kernel/osrelease
echo "guest: $kver: at ${up}s: running $OUT/cmd (timeout ${KERNELS_TIMEOUT}s)"
echo "cmd_start_uptime $up" > "$OUT/times"
cd "$repo" || cd /
timeout -k 10 "$KERNELS_TIMEOUT" bash "$OUT/cmd" > "$OUT/log" 2>&1 < /dev/null
status=$?
[ $status -eq 124 ] && echo "guest: command timed out after ${KERNELS_TIMEOUT}s" >> "$OUT/log"
read -r up _ < /proc/uptime
echo "cmd_end_uptime $up" >> "$OUT/times"
echo $status > "$OUT/status.tmp" && mv "$OUT/status.tmp" "$OUT/status"
echo "guest: command exited with status $status"
poweroff_now
