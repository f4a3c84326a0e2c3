#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# deb.sh TOP OUT VERSION [ARCH [LIBC_DEB]]: the Debian packages pfiles,
# libproc1 and libproc-dev (make deb), in OUT, for ARCH (default: this
# machine's; make deb DEB_HOST_ARCH=arm64).
#
# The tree (less its builds and git) is copied to OUT/pfiles-linux-VERSION
# and built there with dpkg-buildpackage -b -us -uc, so that the tree's
# build/ and the folder above the tree are left alone.  Two files of
# debian/ are made in the copy, from their one source each:
# debian/changelog from VERSION (dated by the last commit), and
# debian/libproc1.symbols from the linker's version script (mapfile).
# Then lintian on the result: its report is printed; an error fails.
#
# For another ARCH: dpkg-buildpackage -a ARCH with Debian's cross
# compiler (debian/rules names it), and ARCH's libc6 unpacked, never
# installed, into OUT's sibling cross-ARCH/libc6 (from LIBC_DEB, else
# scripts/cross-deb.sh's apt-get download) for dpkg-shlibdeps
# (DEB_CROSS_LIBC).
set -eu
top=$1
out=$2
version=$3
arch=${4:-}
libc_deb=${5:-}
src=$out/pfiles-linux-$version
build_arch=$(dpkg-architecture -qDEB_BUILD_ARCH)
[ -n "$arch" ] || arch=$build_arch

rm -rf "$out"
mkdir -p "$src"
(cd "$top" && tar --exclude='./build*' --exclude=./.git \
    --exclude=./debian/build -cf - .) | (cd "$src" && tar -xf -)

date=$(cd "$top" && git log -1 --format=%cD 2>/dev/null) || date=
[ -n "$date" ] || date=$(date -R)
cat >"$src/debian/changelog" <<EOT
pfiles-linux ($version) unstable; urgency=medium

  * Version $version: see README.md.

 -- pfiles-linux developers <pfiles-linux@lists.example.org>  $date
EOT

# Every symbol of every version node of the script, at this version.
awk -v v="$version" '
BEGIN { print "libproc.so.1 libproc1 #MINVER#"
	print "* Build-Depends-Package: libproc-dev" }
/^[A-Za-z_][A-Za-z0-9_.]* *\{/ { node = $1; print " " node "@" node " " v
	global = 0; next }
/global:/ { global = 1; next }
/local:/ { global = 0; next }
/^}/ { global = 0; next }
global && /^[ \t]*[A-Za-z_][A-Za-z0-9_]*;/ { s = $1; sub(/;/, "", s)
	print " " s "@" node " " v }
' "$top/libproc-patch/libproc/mapfile" >"$src/debian/libproc1.symbols"

if [ "$arch" = "$build_arch" ]; then
	(cd "$src" && dpkg-buildpackage -b -us -uc)
else
	libc=$(dirname "$out")/cross-$arch/libc6
	sh "$top/scripts/cross-deb.sh" "$libc" "$arch" libc6 \
	    ${libc_deb:+"$libc_deb"}
	# CC for dpkg-architecture's check of the compiler; nocheck as the
	# suite is never run by the package build (debian/rules).
	cc=$(dpkg-architecture -a "$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null)-gcc
	(cd "$src" && DEB_CROSS_LIBC=$(cd "$libc" && pwd) CC=$cc \
	    DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -b -us -uc -a "$arch")
fi

echo "deb: lintian:"
st=0
lintian --info --display-info --pedantic "$out"/*.changes || st=$?
echo "deb: lintian exit status $st"
echo "deb: the packages, in $out:"
ls -l "$out"/*.deb
exit $st
