#!/bin/bash
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

out= timeout=1800
read -r -a words < /proc/cmdline
for w in "${words[@]}"; do
	case $w in
	kernels.out=*) out=${w#kernels.out=} ;;
	kernels.timeout=*) timeout=${w#kernels.timeout=} ;;
	esac
done
export OUT=$out KERNELS_TIMEOUT=$timeout

mnt devtmpfs /dev mode=755
mnt devpts /dev/pts gid=5,mode=620,ptmxmode=666
mnt tmpfs /dev/shm mode=1777,nosuid,nodev
[ -e /dev/fd ] || $bb ln -s /proc/self/fd /dev/fd
[ -e /dev/stdin ] || $bb ln -s /proc/self/fd/0 /dev/stdin
[ -e /dev/stdout ] || $bb ln -s /proc/self/fd/1 /dev/stdout
[ -e /dev/stderr ] || $bb ln -s /proc/self/fd/2 /dev/stderr
# The init mounted the out share at its host path; if that is inside one
# of the directories that get a fresh tmpfs here (mktemp -d gives /tmp/...),
# park the share in /dev meanwhile and put it back on top afterwards.
park=
case $OUT/ in
/run/*|/tmp/*|/var/tmp/*|/root/*)
	park=/dev/.kernels-out
	mkdir -p $park && $bb mount --move "$OUT" $park
	;;
esac
mnt tmpfs /run mode=755,nosuid,nodev
mnt tmpfs /tmp mode=1777,nosuid,nodev
mnt tmpfs /var/tmp mode=1777,nosuid,nodev
mnt tmpfs /root mode=700
if [ -n "$park" ]; then
	mkdir -p "$OUT" && $bb mount --move $park "$OUT" && rmdir $park
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

# The repository is the parent of this script's folder.
repo=${0%/*}
repo=${repo%/*}

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
