# SPDX-License-Identifier: BSD-2-Clause
# lib.sh: what bench.sh and machine.sh share, sourced by both (after they
# set tmp, the scratch directory, and TOOLS).

# The median of the numbers on stdin.
median() {
	sort -g | awk '{ v[NR] = $1 }
	    END {
		if (NR == 0) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2]
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2
	    }'
}

# The tools in rotated order for round R: no tool always first or last.
rotated() {
	echo $TOOLS | awk -v r="$1" '{
		for (i = 0; i < NF; i++) printf "%s ", $((i + r) % NF + 1)
	}'
}

# The median of the ratios A / B of field F (1 wall, 3 CPU) of the files
# $tmp/A.res and $tmp/B.res ("WALL RSS CPU" a round), taken round by
# round: the two ran in the same round, within seconds of each other, so
# the ratio is not moved by the machine's speed drifting between rounds
# as a ratio of two medians is.  Empty when a run of either failed (the
# rounds are not paired then).
paired() {
	[ -s "$tmp/$1.res" ] && [ -s "$tmp/$2.res" ] || return 0
	[ "$(wc -l <"$tmp/$1.res")" = "$(wc -l <"$tmp/$2.res")" ] || return 0
	[ ! -e "$tmp/$1.fail" ] && [ ! -e "$tmp/$2.fail" ] || return 0
	cut -d' ' -f"$3" "$tmp/$1.res" >"$tmp/paired.a"
	cut -d' ' -f"$3" "$tmp/$2.res" >"$tmp/paired.b"
	paste -d' ' "$tmp/paired.a" "$tmp/paired.b" |
	    awk '$2 > 0 { print $1 / $2 }' | median
}
