#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# cross-deb.sh DIR ARCH PKG [DEB]: Debian's package PKG of architecture
# ARCH (arm64...) unpacked into DIR with its control files (dpkg-deb -R:
# DIR/DEBIAN holds its shlibs and symbols), never installed on the host:
# installing a package of another architecture can replace the host's
# own (busybox-static:arm64 replaces busybox).  The package is DEB when
# given, else apt-get download fetches it with an apt of ARCH's own
# (foreign-apt.sh, in DIR/../apt): the host's dpkg is never told of ARCH.
# Done once: a DIR that holds DEBIAN/control is left as it is.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=$1 arch=$2 pkg=$3 deb=${4:-}
[ -e "$dir/DEBIAN/control" ] && exit 0
mkdir -p "$dir"
if [ -z "$deb" ]; then
	apt=$(cd "$dir/.." && pwd)/apt
	if ! (mkdir -p "$apt" && cd "$apt" && sh "$here/foreign-apt.sh" \
	    "$apt" "$arch" apt-get -q download "$pkg:$arch"); then
		echo "cross-deb: apt-get download $pkg:$arch failed," \
		    "and no .deb named" >&2
		exit 1
	fi
	deb=$(ls "$apt/$pkg"_*_"$arch".deb | tail -n 1)
fi
dpkg-deb -R "$deb" "$dir"
