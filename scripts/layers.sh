#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# layers.sh BUILDDIR: libproc's folder graph, from the objects' symbols.
# A folder uses another when one of its objects has an undefined symbol
# that an object of the other defines.  Prints "edge FROM TO" lines, one
# per pair, sorted; the folder of an object is its path below
# libproc-patch/libproc/ less the file (src/bpf, walk, ...).  An object
# whose source is no longer in the tree (a file moved since the build) is
# left out.
set -eu
b=${1:?usage: layers.sh BUILDDIR}
src=$(cd "$(dirname "$0")/.." && pwd)/libproc-patch/libproc
root=$b/libproc-patch/libproc
find "$root" -name '*.o' ! -name '*.bpf.o' | sort | while read -r o; do
	d=${o#"$root"/}
	[ -f "$src/${d%.o}.c" ] || continue
	d=${d%/*}
	nm "$o" | awk -v d="$d" '
		$1 == "U" { print "U", d, $2 }
		NF == 3 && $2 ~ /^[TDRBVW]$/ { print "D", d, $3 }'
done | awk '
	$1 == "D" { def[$3] = $2; next }
	{ use[++n] = $2 " " $3 }
	END {
		for (i = 1; i <= n; i++) {
			split(use[i], f, " ")
			if ((f[2] in def) && def[f[2]] != f[1])
				print "edge", f[1], def[f[2]]
		}
	}' | sort -u
