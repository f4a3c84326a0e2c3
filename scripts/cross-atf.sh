#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# cross-atf.sh DIR ARCH [DEB]: Debian's libatf-c of architecture ARCH
# (arm64...), for the test programs of a cross build to link: unpacked
# into DIR by cross-deb.sh (never installed on the host; DEB, or apt-get
# download with an apt of ARCH's own in DIR/../apt), and given its link-time name libatf-c.so.  The atf-c
# headers are the host's (libatf-dev): they are the same on every
# architecture.
set -eu
dir=$1 arch=$2 deb=${3:-}
multi=$(dpkg-architecture -a "$arch" -qDEB_HOST_MULTIARCH 2>/dev/null)
lib=$dir/usr/lib/$multi
[ -e "$lib/libatf-c.so" ] && exit 0
sh "$(dirname "$0")/cross-deb.sh" "$dir" "$arch" libatf-c-1 ${deb:+"$deb"}
ln -sf libatf-c.so.1 "$lib/libatf-c.so"
