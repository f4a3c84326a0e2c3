#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# summary.sh DIR KIND...: the soak's table and failures (soak/soak.sh),
# from DIR/runs.log (soak_run's lines), DIR/watch.out (soak_watch's) and
# each target's DIR/KIND.log (its self-check failures); printed, and
# written to DIR/summary.  Its last line: "soak: N runs, N failures".
set -u
dir=$1
shift
kinds="$*"

logs=
for k in $kinds; do
	logs="$logs $dir/$k.log"
done
touch "$dir/runs.log" "$dir/watch.out"
awk -v kinds="$kinds" '
function verdict(line,    j) {
	for (j = 0; j < 8; j++)
		line = substr(line, index(line, "\t") + 1)
	return line
}
FILENAME ~ /runs\.log$/ && $1 == "run" && $2 == 0 {
	next	# not run: its target was gone (the watchdog says when)
}
FILENAME ~ /runs\.log$/ && $1 == "run" {
	key = $3 SUBSEP $4
	runs[key]++
	nruns++
	if ($8 + 0 > rmax[key]) rmax[key] = $8 + 0
	if ($8 + 0 > allrun) allrun = $8 + 0
	info[$2] = sprintf("%s%s, %d ms", $5,
	    $6 > 0 ? ", RLIMIT_NOFILE " $6 : "", $8)
	v = verdict($0)
	if (v != "ok")
		fail[++nf] = sprintf("run %s: %s %s %s%s: %s", $2, $3, $4, $5,
		    $6 > 0 ? " RLIMIT_NOFILE " $6 : "", substr(v, 7))
	next
}
FILENAME ~ /\.log$/ && (/ FAIL / || /\]: ended, /) {
	k = FILENAME
	sub(/^.*\//, "", k)
	sub(/\.log$/, "", k)
	if (/\]: ended, /)
		ended[k] = substr($0, index($0, "ended, "))
	else if (said[k]++ < 5)
		selfline[k] = selfline[k] "\n      " $0
}
FILENAME ~ /watch\.out$/ && $1 == "stat" {
	key = $2 SUBSEP $3
	seen[key] = 1
	smax[key] = $5; sp99[key] = $6; gmax[key] = $8
	if ($5 > allstop) allstop = $5
	if ($8 > allgap) allgap = $8
}
FILENAME ~ /watch\.out$/ && $1 == "fail" {
	id = ""
	for (j = 3; j <= NF; j++)
		if ($j ~ /^run=/)
			id = substr($j, 5)
	fail[++nf] = "watchdog: " substr($0, 6) \
	    ((id in info) ? " (" info[id] ")" : "") \
	    ($2 == "dead" && ($3 in ended) ? ": " ended[$3] : "")
}
FILENAME ~ /watch\.out$/ && $1 == "selfcheck" && $3 > 0 {
	nself += $3
	fail[++nf] = sprintf("target %s: %d self-check failures%s", $2, $3,
	    selfline[$2])
	nf_self++
}
FILENAME ~ /watch\.out$/ && $1 == "watch" {
	looks = $2; tick = $3; finished = 1
}
END {
	nsrc = split("default pidfd agent diag bpf none other", src, " ")
	nkind = split(kinds, kind, " ")
	printf "%-9s %-8s %6s %11s %12s %12s %11s\n", "target", "source",
	    "runs", "run_max_ms", "stop_max_ms", "stop_p99_ms", "gap_max_ms"
	for (i = 1; i <= nkind; i++)
		for (j = 1; j <= nsrc; j++) {
			key = kind[i] SUBSEP src[j]
			r = key in runs
			if (!r && !(key in seen))
				continue
			printf "%-9s %-8s %6d %11s %12s %12s %11s\n", kind[i],
			    src[j], r ? runs[key] : 0, r ? rmax[key] : "-",
			    (key in seen) ? smax[key] : "-",
			    (key in seen) ? sp99[key] : "-",
			    (key in seen) ? gmax[key] : "-"
		}
	printf "longest: run %d ms, stop %d ms, heartbeat gap %d ms\n",
	    allrun, allstop, allgap
	if (finished)
		printf "watchdog: %d looks, at most %d ms apart\n", looks, tick
	else
		fail[++nf] = "the watchdog did not finish (watch.err)"
	if (nf > 0)
		print "failures:"
	for (i = 1; i <= nf; i++)
		print "  " fail[i]
	printf "soak: %d runs, %d failures\n", nruns, nf - nf_self + nself
}' $logs "$dir/runs.log" "$dir/watch.out" | tee "$dir/summary"
