#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# cross-deb.sh DIR ARCH PKG [DEB]: Debian's package PKG of architecture
# ARCH (arm64...) unpacked into DIR with its control files (dpkg-deb -R:
# DIR/DEBIAN holds its shlibs and symbols), never installed on the host:
# installing a package of another architecture can replace the host's
# own (busybox-static:arm64 replaces busybox).  The package is DEB when
# given, else it is fetched with apt-get download (apt must know ARCH:
# dpkg --add-architecture ARCH && apt-get update).  Done once: a DIR
# that holds DEBIAN/control is left as it is.
set -eu
dir=$1 arch=$2 pkg=$3 deb=${4:-}
[ -e "$dir/DEBIAN/control" ] && exit 0
mkdir -p "$dir"
if [ -z "$deb" ]; then
	if ! (cd "$dir" && apt-get download "$pkg:$arch"); then
		echo "cross-deb: no $pkg:$arch from apt (dpkg" \
		    "--add-architecture $arch && apt-get update), and no" \
		    ".deb named" >&2
		exit 1
	fi
	deb=$(ls "$dir/$pkg"_*_"$arch".deb | head -n 1)
fi
dpkg-deb -R "$deb" "$dir"
