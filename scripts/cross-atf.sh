#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# cross-atf.sh DIR ARCH [DEB]: Debian's libatf-c of architecture ARCH
# (arm64...), for the test programs of a cross build to link: extracted
# into DIR with dpkg-deb -x, never installed on the host, and given its
# link-time name libatf-c.so.  The package is DEB when given, else it is
# fetched with apt-get download (apt must know ARCH: dpkg
# --add-architecture ARCH && apt-get update).  The atf-c headers are the
# host's (libatf-dev): they are the same on every architecture.
set -eu
dir=$1 arch=$2 deb=${3:-}
multi=$(dpkg-architecture -a "$arch" -qDEB_HOST_MULTIARCH 2>/dev/null)
lib=$dir/usr/lib/$multi
[ -e "$lib/libatf-c.so" ] && exit 0
mkdir -p "$dir"
if [ -z "$deb" ]; then
	if ! (cd "$dir" && apt-get download "libatf-c-1:$arch"); then
		echo "cross-atf: no libatf-c-1:$arch from apt (dpkg" \
		    "--add-architecture $arch && apt-get update), and no" \
		    "ATF_DEB given" >&2
		exit 1
	fi
	deb=$(ls "$dir"/libatf-c-1_*_"$arch".deb | head -n 1)
fi
dpkg-deb -x "$deb" "$dir"
ln -sf libatf-c.so.1 "$lib/libatf-c.so"
