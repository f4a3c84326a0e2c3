#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# rootfs.sh: the root of a foreign guest (KERNELS_ARCH=arm64): the Debian
# packages of ROOTFS_PKGS and what they depend on, resolved by apt for that
# architecture against an empty dpkg status (common.sh, apt_do),
# downloaded and unpacked with dpkg-deb -x into $KERNELS_DIR/rootfs.  No
# maintainer script runs (they would need the foreign CPU), so what they
# would have made is made here: passwd and group, the alternatives and
# links the tests use, ld.so's cache (the foreign ldconfig under
# qemu-user, no binfmt_misc needed), the mount points.  Rebuilt when the
# package list or this script changes; the list resolved, with versions,
# is in rootfs/.packages.
#
# usage: kernels/rootfs.sh [--deb PKG]
#   --deb PKG: then print the path of the .deb of PKG that the root holds
#   (the cross build links the same libatf-c as the guest runs).
set -euo pipefail
. "$(dirname "$0")/common.sh"
debof=
case ${1:-} in
--deb) [ $# -eq 2 ] || die "usage: $0 [--deb PKG]"; debof=$2 ;;
'') ;;
*) die "usage: $0 [--deb PKG]" ;;
esac
cache=$KERNELS_DIR/apt/cache/archives

# deb_path NAME VERSION: the package's .deb in apt's cache.
deb_path() {
	local deb
	deb=$(ls "$cache/${1}_${2//:/%3a}_"*.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] || die "rootfs: $1 $2: no .deb in $cache"
	echo "$deb"
}

# print_deb: the .deb of $debof in the root's resolution, if asked.
print_deb() {
	local ver
	[ -n "$debof" ] || return 0
	ver=$(awk -v p="$debof" '$1 == p { print $2 }' "$ROOTFS/.packages")
	[ -n "$ver" ] || die "rootfs: $debof is not in the root"
	deb_path "$debof" "$ver"
}
[ -n "$ROOTFS" ] || die "KERNELS_ARCH=$KERNELS_ARCH: the guest's root is the host's"

# What the guest runs: guest.sh (bash, coreutils, busybox), kyua and the
# test programs (libatf-c), and what those exec: strace, node, python3
# (with jsonschema, pfiles -J's validator), util-linux's setpriv,
# unshare, nsenter and prlimit, iproute2's ip, procps, the shells and text
# tools of their scripts.
ROOTFS_PKGS="bash dash coreutils util-linux iproute2 procps python3
	python3-jsonschema strace nodejs kyua libatf-c-1 busybox-static mawk
	grep sed findutils diffutils gzip tar libc-bin"

need_pkgs qemu-user-static
stamp=$ROOTFS/.packages
want="$(echo $ROOTFS_PKGS) $(sha256sum <"$0" | cut -c1-16)"
if [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$want" ]; then
	say "rootfs: cached in $ROOTFS"
	print_deb
	exit 0
fi

start=$(date +%s)
say "rootfs: resolving and downloading $KERNELS_ARCH packages"
mkdir -p "$KERNELS_DIR/apt" || die "cannot create $KERNELS_DIR/apt"
apt_do apt-get install -d -y -q --no-install-recommends \
    $ROOTFS_PKGS >"$KERNELS_DIR/apt/install.log" 2>&1 ||
	{ tail -n 20 "$KERNELS_DIR/apt/install.log" >&2; die "rootfs: apt-get failed"; }
# The packages of this resolution, one "name version" a line (the cache
# may hold older versions too).
list=$(apt_do apt-get install -s -y --no-install-recommends \
    $ROOTFS_PKGS 2>/dev/null |
    sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1 \2/p')
[ -n "$list" ] || die "rootfs: apt resolved nothing"

work=$(mktemp -d "$KERNELS_DIR/.rootfs.XXXXXX")
trap 'rm -rf "$work"' EXIT
r=$work/root
mkdir -p "$r"
while read -r name ver; do
	deb=$(deb_path "$name" "$ver")
	dpkg-deb -x "$deb" "$r" || die "rootfs: dpkg-deb -x $deb failed"
done <<<"$list"

# What the maintainer scripts and debootstrap would have made.
mkdir -p "$r"/{dev,proc,sys,run,tmp,root,var/tmp,etc,mnt}
chmod 1777 "$r/tmp" "$r/var/tmp"
cat >"$r/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/bash
daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat >"$r/etc/group" <<'EOF'
root:x:0:
daemon:x:1:
tty:x:5:
nogroup:x:65534:
EOF
echo localhost >"$r/etc/hostname"
echo '127.0.0.1 localhost' >"$r/etc/hosts"
printf 'passwd: files\ngroup: files\nhosts: files\n' >"$r/etc/nsswitch.conf"
ln -sf dash "$r/bin/sh"
ln -sf mawk "$r/usr/bin/awk"
[ -e "$r/usr/bin/node" ] || ln -sf nodejs "$r/usr/bin/node"
[ -e "$r/usr/bin/python3" ] || die "rootfs: no python3"
qemu-${QEMU_USER_ARCH}-static "$r/sbin/ldconfig" -r "$r" ||
	die "rootfs: ldconfig under qemu-user failed"
{ echo "$want"; echo "$list"; } >"$r/.packages"

rm -rf "$ROOTFS.old"
[ -d "$ROOTFS" ] && mv "$ROOTFS" "$ROOTFS.old"
mv "$r" "$ROOTFS"
rm -rf "$ROOTFS.old"
say "rootfs: $(wc -l <<<"$list") packages, $(du -sm "$ROOTFS" | cut -f1) MB, in $(($(date +%s) - start)) s: $ROOTFS"
print_deb
