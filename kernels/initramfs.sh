#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# initramfs.sh: build $KERNELS_DIR/KVER/initramfs.cpio.gz for a kernel that
# fetch.sh unpacked: static busybox (the guest architecture's), the modules needed to mount the host
# root over virtio-9p and the socket diag modules (each with its
# dependencies, decompressed, in load order), and an /init that mounts the
# host root read-only, mounts the output share and switch_roots into
# kernels/guest.sh.  See init-template.sh for the /init itself.
#
# usage: kernels/initramfs.sh KVER
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ $# -eq 1 ] || die "usage: $0 KVER"
kver=$1
base=$KERNELS_DIR/$kver/pkg
mdir=$base/lib/modules/$kver
[ -d "$mdir" ] || die "$kver: $mdir missing; run kernels/fetch.sh first"

# The guest's own static busybox: the host's, or the foreign root's.
if [ -n "$ROOTFS" ]; then
	need_pkgs kmod
	"$KERNELS_SRC/rootfs.sh" || die "$kver: no root for the guest"
else
	need_pkgs busybox-static kmod
fi
busybox=$ROOTFS/bin/busybox
if [ -n "$(find "$mdir" -name '*.ko.xz' -print -quit)" ]; then need_pkgs xz-utils; fi
if [ -n "$(find "$mdir" -name '*.ko.zst' -print -quit)" ]; then need_pkgs zstd; fi

# Debian's package leaves modules.dep to its postinst; make it here.
if [ ! -s "$mdir/modules.dep" ]; then
	say "$kver: depmod"
	depmod -b "$base" "$kver"
fi

# Needed to reach the host: a failure to find one of these is fatal,
# unless the kernel has it built in (Debian 6.12 builds in virtio*).
# On arm64's virt machine too the 9p shares are virtio PCI devices.
REQUIRED="virtio virtio_ring virtio_pci 9pnet 9pnet_virtio 9p"
# Socket diag modules, every one pfiles' diag source and its endpoints
# dump (a real system loads them on demand through modprobe, which the
# guest, running the host's /sbin, cannot); the packet one is called
# af_packet_diag.  /init reports each (diag.list).
OPTIONAL="inet_diag tcp_diag udp_diag raw_diag unix_diag netlink_diag
	af_packet_diag mptcp_diag"
# What a real system loads on demand too, for the tests' files: /dev/fuse
# (t_truth:hung_fuse) and /dev/loop0, a block device (the blkdev fixture
# set).  Built into some kernels (6.12's fuse).
FEATURES="fuse loop"

# modpath NAME: the module's path relative to $mdir, from modules.dep.
modpath() {
	local n=${1//-/_}
	sed -n 's/:.*//p' "$mdir/modules.dep" |
		awk -v n="$n" '{ b = $0; sub(/.*\//, "", b); sub(/\.ko.*/, "", b);
			gsub(/-/, "_", b); if (b == n && !found) { print; found = 1 } }'
}

# builtin NAME: true if the kernel has the module built in.
builtin() {
	local n=${1//-/_}
	sed 's/.*\///; s/\.ko$//; s/-/_/g' "$mdir/modules.builtin" | grep -x "$n" >/dev/null
}

# add PATH: append PATH to the load order after its dependencies.
order=()
declare -A seen=()
add() {
	local p=$1 d
	[ -n "${seen[$p]:-}" ] && return
	seen[$p]=1
	for d in $(grep -m1 "^$p:" "$mdir/modules.dep" | sed 's/^[^:]*://'); do
		add "$d"
	done
	order+=("$p")
}

for m in $REQUIRED $OPTIONAL $FEATURES; do
	p=$(modpath "$m")
	if [ -n "$p" ]; then
		add "$p"
	elif builtin "$m"; then
		say "$kver: $m is built in"
	elif [[ " $REQUIRED " == *" $m "* ]]; then
		die "$kver: required module $m neither a module nor built in"
	else
		say "$kver: optional module $m not in this kernel"
	fi
done

work=$(mktemp -d "$KERNELS_DIR/$kver/.initramfs.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,dev,proc,sys,newroot,lib/modules}
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"

# Decompress each module so that busybox insmod can load it as it is.
: > "$root/modules.list"
for p in "${order[@]}"; do
	name=$(basename "$p")
	name=${name%%.ko*}.ko
	case $p in
	*.ko.xz) xz -dc "$mdir/$p" > "$root/lib/modules/$name" ;;
	*.ko.zst) zstd -qdc "$mdir/$p" > "$root/lib/modules/$name" ;;
	*.ko.gz) gzip -dc "$mdir/$p" > "$root/lib/modules/$name" ;;
	*.ko) cp "$mdir/$p" "$root/lib/modules/$name" ;;
	*) die "$p: unknown module compression" ;;
	esac
	echo "$name" >> "$root/modules.list"
done
say "$kver: modules: $(tr '\n' ' ' < "$root/modules.list")"

echo $OPTIONAL | tr ' ' '\n' > "$root/diag.list"
cp "$KERNELS_SRC/init-template.sh" "$root/init"
chmod 755 "$root/init"

out=$KERNELS_DIR/$kver/initramfs.cpio.gz
(cd "$root" && find . | sort | busybox cpio -o -H newc 2>/dev/null) | gzip -6 > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
say "$kver: wrote $out ($(du -k "$out" | cut -f1) KiB)"
