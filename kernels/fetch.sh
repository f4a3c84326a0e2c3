#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# fetch.sh: resolve Debian kernel package names (meta-packages such as
# linux-image-amd64 are followed through their Depends) to concrete
# linux-image-<kver> packages, download each one and unpack it into
# $KERNELS_DIR/<kver>/pkg.  Prints each resolved kernel version (uname -r
# form) on stdout, one per line.
#
# usage: kernels/fetch.sh [PKG...]   (default: linux-image-ARCH
#   linux-image-6.12-ARCH, ARCH KERNELS_ARCH's: amd64 or arm64)
set -euo pipefail
. "$(dirname "$0")/common.sh"

# deps_images PKG: the linux-image-* packages in PKG's candidate Depends
# (first alternative of each), one per line.
deps_images() {
	apt_do apt-cache show --no-all-versions "$1" 2>/dev/null |
		sed -n 's/^Depends: //p' | head -n 1 | tr ',' '\n' |
		sed 's/|.*//; s/([^)]*)//; s/[[:space:]]//g' |
		grep '^linux-image-' || true
}

# resolve PKG: follow meta-packages down to the package that holds a kernel.
resolve() {
	local name=$1 depth=0 next
	apt_do apt-cache show --no-all-versions "$name" >/dev/null 2>&1 ||
		die "$name: no such package known to apt (apt-get update?)"
	while :; do
		next=$(deps_images "$name" | head -n 1)
		[ -z "$next" ] && break
		name=$next
		depth=$((depth + 1))
		[ $depth -lt 5 ] || die "$1: meta-package chain too long"
	done
	echo "$name"
}

fetch_one() {
	local pkg kver dir ver tmp deb
	pkg=$(resolve "$1")
	kver=${pkg#linux-image-}
	kver=${kver%-unsigned}
	dir=$KERNELS_DIR/$kver
	ver=$(apt_do apt-cache show --no-all-versions "$pkg" | sed -n 's/^Version: //p' | head -n 1)
	if [ -f "$dir/package" ] && [ -f "$dir/pkg/boot/vmlinuz-$kver" ]; then
		say "$1 -> $(cat "$dir/package"), cached in $dir"
		echo "$kver"
		return
	fi
	say "$1 -> $pkg $ver: downloading"
	mkdir -p "$dir"
	tmp=$(mktemp -d "$dir/.fetch.XXXXXX")
	(cd "$tmp" && apt_do apt-get download -q "$pkg=$ver" >&2) ||
		{ rm -rf "$tmp"; die "$pkg: apt-get download failed"; }
	deb=$(ls "$tmp"/*.deb)
	dpkg-deb -x "$deb" "$tmp/pkg" || { rm -rf "$tmp"; die "$deb: dpkg-deb -x failed"; }
	[ -f "$tmp/pkg/boot/vmlinuz-$kver" ] && [ -d "$tmp/pkg/lib/modules/$kver" ] ||
		{ rm -rf "$tmp"; die "$pkg: no boot/vmlinuz-$kver or lib/modules/$kver inside"; }
	rm -rf "$dir/pkg" "$dir/initramfs.cpio.gz" "$dir/vmlinux" "$dir/Image"
	mv "$tmp/pkg" "$dir/pkg"
	rm -rf "$tmp"
	echo "$pkg $ver" > "$dir/package"
	say "$kver: unpacked in $dir/pkg"
	echo "$kver"
}

[ $# -gt 0 ] || set -- $DEFAULT_KERNEL_PKGS
for p in "$@"; do
	fetch_one "$p"
done
