#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# init-template.sh: the /init of the initramfs that kernels/initramfs.sh
# builds (run by busybox sh as PID 1).  It loads the modules listed in
# /modules.list, mounts the host's root (or the foreign guest's root,
# with the repository) read-only over virtio-9p (tag hostroot) on
# /newroot, mounts the read-write output share (tag out) at
# its host path inside it, and switch_roots into kernels/guest.sh.
# Settings come from the kernel command line (set by kernels/boot.sh):
#   kernels.out=DIR      host path of the output directory
#   kernels.guest=FILE   host path of guest.sh
#   kernels.repo=DIR     host path of the repository, shared (tag repo)
#                        when the root is not the host's (a foreign guest)
#   kernels.cache=MODE   9p cache mode for the host root (default loose)
#   kernels.msize=N      9p msize (default 512000)

/bin/busybox --install -s /bin
export PATH=/bin
# The cpio has no /dev/console node (it is built without root), so the
# kernel started us with no stdio: get the console from devtmpfs.
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys

out= guest= repo= cache=loose msize=512000
for w in $(cat /proc/cmdline); do
	case $w in
	kernels.out=*) out=${w#kernels.out=} ;;
	kernels.guest=*) guest=${w#kernels.guest=} ;;
	kernels.repo=*) repo=${w#kernels.repo=} ;;
	kernels.cache=*) cache=${w#kernels.cache=} ;;
	kernels.msize=*) msize=${w#kernels.msize=} ;;
	esac
done

fail() {
	echo "init: $*; powering off"
	poweroff -f
	sleep 60
}

echo "init: $(uname -r): loading modules"
log=/insmod.log
echo "kernel $(uname -r)" > $log
for m in $(cat /modules.list); do
	if msg=$(insmod /lib/modules/$m 2>&1); then
		echo "ok $m" >> $log
	else
		echo "FAILED $m: $msg" >> $log
		echo "init: insmod $m failed: $msg"
	fi
done
for m in $(cat /diag.list); do
	if grep -q "^$m " /proc/modules; then s=module
	elif [ -d /sys/module/$m ]; then s=builtin-or-loaded
	else s=absent
	fi
	echo "diag $m: $s" >> $log
done

# cache=loose for the read-only host root: measured under TCG it starts
# python3 5x and execs 2x faster than cache=none or mmap (fscache, with no
# cachefilesd, is the same as loose).  Private and shared read-only mmap
# and exec work in every mode.  The out share has no cache, so that what
# the guest writes is on the host at once.
opts=trans=virtio,version=9p2000.L,msize=$msize
mount -t 9p -o ro,$opts,cache=$cache hostroot /newroot ||
	fail "cannot mount the host root (9p tag hostroot)"
if [ -n "$repo" ]; then
	mount -t 9p -o ro,$opts,cache=$cache repo "/newroot$repo" ||
		fail "cannot mount the repository (9p tag repo) on $repo"
fi
[ -n "$out" ] || fail "no kernels.out= on the kernel command line"
mount -t 9p -o $opts,cache=none out "/newroot$out" ||
	fail "cannot mount the output share (9p tag out) on $out"
cp $log "/newroot$out/insmod.log"
[ -f "/newroot$guest" ] || fail "no guest script $guest in the host root"

read up _ < /proc/uptime
for d in /dev /proc /sys; do
	mount --move $d /newroot$d || fail "cannot move $d into the host root"
done
echo "init: at ${up}s: switching to the host root: $guest"
exec switch_root /newroot /bin/bash "$guest"
