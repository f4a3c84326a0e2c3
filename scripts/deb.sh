#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# deb.sh TOP OUT VERSION: the Debian packages pfiles, libproc1 and
# libproc-dev (make deb), in OUT.
#
# The tree (less its builds and git) is copied to OUT/pfiles-linux-VERSION
# and built there with dpkg-buildpackage -b -us -uc, so that the tree's
# build/ and the folder above the tree are left alone.  Two files of
# debian/ are made in the copy, from their one source each:
# debian/changelog from VERSION (dated by the last commit), and
# debian/libproc1.symbols from the linker's version script (mapfile).
# Then lintian on the result: its report is printed; an error fails.
set -eu
top=$1
out=$2
version=$3
src=$out/pfiles-linux-$version

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

(cd "$src" && dpkg-buildpackage -b -us -uc)

echo "deb: lintian:"
st=0
lintian --info --display-info --pedantic "$out"/*.changes || st=$?
echo "deb: lintian exit status $st"
echo "deb: the packages, in $out:"
ls -l "$out"/*.deb
exit $st
