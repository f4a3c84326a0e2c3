#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# foreign-apt.sh DIR ARCH COMMAND [ARG...]: COMMAND (apt-get or apt-cache)
# with an apt of architecture ARCH's own: its lists, cache and an empty
# dpkg status in DIR, reading the host's sources.  The host's dpkg is
# never told of ARCH, and nothing of ARCH can be installed on the host
# (busybox-static:arm64 would replace the host's busybox): packages are
# only downloaded, then unpacked by dpkg-deb where they are needed
# (kernels/rootfs.sh, scripts/cross-deb.sh).  The lists are fetched
# first when missing or a day old.  As root apt would drop to user _apt
# and warn that _apt cannot write DIR: it downloads as root.
set -eu
[ $# -ge 3 ] || { echo "usage: $0 DIR ARCH COMMAND [ARG...]" >&2; exit 2; }
dir=$1 arch=$2 cmd=$3
shift 3
case $cmd in
apt-get|apt-cache) ;;
*) echo "foreign-apt: $cmd: not apt-get or apt-cache" >&2; exit 2 ;;
esac
mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
dir=$(cd "$dir" && pwd -P)
[ -f "$dir/status" ] || : >"$dir/status"
opts() {
	"$@" -o "APT::Architecture=$arch" -o "APT::Architectures::=$arch" \
	    -o "Dir::State::Lists=$dir/lists" \
	    -o "Dir::State::status=$dir/status" -o "Dir::Cache=$dir/cache" \
	    -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
	    -o Debug::NoLocking=1 -o APT::Sandbox::User=root
}
if [ -z "$(find "$dir/lists" -maxdepth 1 -name '*_Packages*' -mtime -1 \
    -print 2>/dev/null | head -n 1)" ]; then
	echo "foreign-apt: apt-get update for $arch (lists in $dir)" >&2
	opts apt-get update -q >"$dir/update.log" 2>&1 || {
		tail -n 20 "$dir/update.log" >&2
		echo "foreign-apt: apt-get update for $arch failed" >&2
		exit 1
	}
fi
opts "$cmd" "$@"
