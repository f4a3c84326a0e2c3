#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# mutate.sh [-n] [-m MIN] [CATALOGUE]: mutation testing of the suite.
# -n: only check the catalogue (format, ids, every snippet found exactly
# once in the tree), without building or running anything.
#
# Each line of the catalogue (mutate/catalogue; its header says the format)
# names a file, a snippet of code that must occur in it exactly once, its
# replacement, and the test programs that should notice.  For each line,
# in a scratch copy of the tree (the tree itself is never written): apply,
# build (make build-all), run the named programs under kyua, restore, and
# classify:
#
#   killed     a test case that passed on the unmutated tree failed or
#              broke, or the run went past its time bound
#   survived   every test case that passed on the unmutated tree passed
#   nobuild    the mutant does not build (a catalogue bug: not scored)
#   stale      the snippet is not in the file        (fails the run)
#   ambiguous  the snippet is in the file more than once  (fails the run)
#   equiv      marked equivalent, with a reason: checked for staleness
#              only, not run, not scored
#
# The unmutated tree is run first, once, on every program the catalogue
# names: the test cases that fail there already (work in progress, or the
# machine) cannot kill anything and are listed.  A table per file and the
# score, killed / (killed + survived), follow; the exit status is non-zero
# when the score is below MIN (default $MUTATE_MIN, else 90) or any line
# is stale or ambiguous.
#
# Environment:
#   MUTATE_ONLY=RE    run only the lines whose id or file matches RE (grep -E)
#   MUTATE_DIR=DIR    the scratch copy (default: a fresh one under $TMPDIR,
#                     removed at the end); kept when given
#   MUTATE_JOBS=N     make -jN (default 2)
#   MUTATE_TIMEOUT=S  the least bound of one run (default 60 s; a run is
#                     bounded by max(S, 4 x the unmutated time + 30 s))
#   MUTATE_REPORT=F   where the report is also written
#                     (default build/mutate-report.txt of the tree)
#   CC                the compiler, as for make check
set -u

top=$(cd "$(dirname "$0")/.." && pwd) || exit 2
min=${MUTATE_MIN:-90}
checkonly=
while getopts m:n opt; do
	case $opt in
	m) min=$OPTARG ;;
	n) checkonly=1 ;;
	*) echo "usage: mutate.sh [-n] [-m MIN] [CATALOGUE]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
cat=${1:-$top/mutate/catalogue}
case $cat in /*) ;; *) cat=$(pwd)/$cat ;; esac
[ -r "$cat" ] || { echo "mutate: cannot read $cat" >&2; exit 2; }
jobs=${MUTATE_JOBS:-2}
tmin=${MUTATE_TIMEOUT:-60}
report=${MUTATE_REPORT:-$top/build/mutate-report.txt}
only=${MUTATE_ONLY:-}
for t in kyua timeout awk tar make; do
	command -v $t >/dev/null 2>&1 ||
	    { echo "mutate: $t is needed (make deps-check)" >&2; exit 2; }
done
# make's own settings (jobserver, -n, ...) are not for the inner builds.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES 2>/dev/null
ccarg=
[ -n "${CC:-}" ] && ccarg="CC=$CC"

# --- the scratch copy ---------------------------------------------------
if [ -n "${MUTATE_DIR:-}" ]; then
	work=$MUTATE_DIR
	keep=1
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/mutate.XXXXXX") || exit 2
	keep=
fi
state=$work/.mutate
applied=      # the file of the scratch copy that holds a mutant, if any
kpid=         # the kyua (timeout) of the current run, if any

restore() {
	if [ -n "$applied" ]; then
		# cp without -p: the restored file is newer than the mutant's
		# object, so the next build compiles it again.
		cp "$state/orig" "$work/$applied" && applied=
	fi
}
cleanup() {
	trap '' INT TERM HUP
	[ -n "$kpid" ] && kill -TERM "$kpid" 2>/dev/null && wait "$kpid"
	restore
	if [ -z "$keep" ]; then
		rm -rf "$work"
	fi
}
trap 'cleanup' EXIT
trap 'echo "mutate: interrupted" >&2; exit 130' INT TERM HUP

mkdir -p "$work" "$state" || exit 2
[ -z "$checkonly" ] && echo "mutate: copying the tree to $work"
[ -n "$checkonly" ] || (cd "$top" && tar -cf - --exclude=./build --exclude=./build-san \
    --exclude=./.git --exclude=./fuzz/out --exclude=./mutate.tmp . ) |
    (cd "$work" && tar -xf -) || { echo "mutate: copy failed" >&2; exit 2; }

build() {
	(cd "$work" && make -j"$jobs" $ccarg build-all) </dev/null >"$state/build.log" 2>&1
}

# run OUT BOUND PROGRAM...: kyua on the named programs, one line per test
# case in OUT; 0 when it finished within BOUND seconds, 1 on timeout.
run() {
	out=$1 bound=$2; shift 2
	(cd "$work" && exec timeout -k 10 "$bound" kyua test \
	    --kyuafile=Kyuafile --build-root="$work/build" \
	    --results-file="$state/results.db" "$@") </dev/null >"$out.raw" 2>&1 &
	kpid=$!
	wait "$kpid"
	st=$?
	kpid=
	rm -f "$state/results.db"
	# "atf/t_x:case  ->  passed  [0.1s]" -> "atf/t_x:case passed"
	awk -F'  ->  ' 'NF == 2 && $1 ~ /^atf\// {
		r = $2; sub(/[:  ].*/, "", r); print $1, r }' "$out.raw" >"$out"
	[ "$st" -eq 124 ] || [ "$st" -eq 137 ] && return 1
	return 0
}

# --- the catalogue ------------------------------------------------------
# ID @@ FILE @@ TESTS @@ SNIPPET @@ REPLACEMENT [@@ equivalent: REASON]
# One mutant a line, fields as above, each trimmed; # starts a comment
# line.  TESTS: program names (t_parsers) or cases (t_api:pgrab), comma
# or space separated; * or empty: the whole suite.
awk -F'@@' '
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
/^[ \t]*(#|$)/ { next }
{
	if (NF != 5 && NF != 6) {
		printf "mutate: %s:%d: %d fields, want 5 or 6\n", FILENAME, NR, NF > "/dev/stderr"
		bad = 1; next
	}
	id = trim($1)
	if (id in seen) {
		printf "mutate: %s:%d: id %s used twice\n", FILENAME, NR, id > "/dev/stderr"
		bad = 1
	}
	seen[id] = 1
	eq = (NF == 6) ? trim($6) : ""
	if (NF == 6 && eq !~ /^equivalent: ./) {
		printf "mutate: %s:%d: sixth field must be \"equivalent: REASON\"\n", FILENAME, NR > "/dev/stderr"
		bad = 1
	}
	# one record, fields on lines of their own (no field holds a newline)
	printf "%d\n%s\n%s\n%s\n%s\n%s\n%s\n", NR, id, trim($2), trim($3), trim($4), trim($5), eq
}
END { exit bad }' "$cat" >"$state/lines" || exit 2

# MUTATE_ONLY: keep the records whose "ID FILE" matches
if [ -n "$only" ]; then
	ONLY=$only awk 'BEGIN { re = ENVIRON["ONLY"] }
	{ r[NR % 7] = $0 }
	NR % 7 == 0 { if ((r[2] " " r[3]) ~ re) for (k = 1; k <= 7; k++) print r[k % 7] }' \
	    "$state/lines" >"$state/lines.only" && mv "$state/lines.only" "$state/lines"
fi

# count FILE: how many times $snip occurs in FILE
count() {
	SNIP=$snip awk 'BEGIN { s = ENVIRON["SNIP"] }
	{ l = $0; while ((i = index(l, s)) > 0) { n++; l = substr(l, i + length(s)) } }
	END { print n + 0 }' "$1"
}

if [ -n "$checkonly" ]; then
	bad=0 n=0 ne=0
	while read -r lno; do
		read -r id; read -r file; read -r tests; read -r snip
		read -r repl; read -r eq
		n=$((n + 1))
		[ -n "$eq" ] && ne=$((ne + 1))
		if [ ! -f "$top/$file" ]; then
			c=0
		else
			c=$(count "$top/$file")
		fi
		case $c in
		1) ;;
		0) echo "STALE: $id ($file, catalogue line $lno): $snip"; bad=1 ;;
		*) echo "AMBIGUOUS: $id ($file, catalogue line $lno): found $c times"; bad=1 ;;
		esac
	done <"$state/lines"
	echo "mutate: $n mutants ($ne marked equivalent) in $cat"
	[ "$bad" = 0 ] && echo "mutate: every snippet found exactly once"
	exit $bad
fi

# The programs of every line to run, for the unmutated run.
allprogs() {
	awk 'NR % 7 == 4' "$state/lines" | tr ', ' '\n\n' | sed 's/:.*//' |
	    grep . | sort -u
}
suite=$(grep -o '"t_[a-z_0-9]*"' "$top/atf/Kyuafile" | tr -d '"')

progargs() {   # TESTS field -> kyua filters
	case "$1" in ''|'*') for p in $suite; do echo "atf/$p"; done; return ;; esac
	echo "$1" | tr ', ' '\n\n' | grep . | sed 's|^|atf/|'
}

echo "mutate: building the unmutated tree"
build || { tail -20 "$state/build.log"; echo "mutate: the unmutated tree does not build" >&2; exit 2; }
progs=$( { awk 'NR % 7 == 4' "$state/lines" | grep -q -e '^$' -e '^\*$' &&
    echo "$suite"; allprogs; } | sort -u)
echo "mutate: running the unmutated tree:" $progs
: >"$state/times"
: >"$state/base"
for p in $progs; do
	t0=$(date +%s)
	run "$state/base.one" 900 "atf/$p" ||
	    { echo "mutate: atf/$p: the unmutated run timed out" >&2; exit 2; }
	t1=$(date +%s)
	echo "$p $((t1 - t0))" >>"$state/times"
	cat "$state/base.one" >>"$state/base"
done
awk '$2 == "passed" { print $1 }' "$state/base" | sort -u >"$state/basepass"
awk '$2 != "passed" { print }' "$state/base" >"$state/basefail"
if [ -s "$state/basefail" ]; then
	echo "mutate: not passing on the unmutated tree (they kill nothing):"
	sed 's/^/    /' "$state/basefail"
fi

# bound SPEC: the time bound of a run of those programs
bound() {
	b=$(progargs "$1" | sed 's|^atf/||; s/:.*//' | sort -u |
	    awk 'NR == FNR { t[$1] = $2; next } { s += t[$1] } END { print s + 0 }' \
	    "$state/times" -)
	b=$((4 * b + 30))
	[ "$b" -lt "$tmin" ] && b=$tmin
	echo "$b"
}

# apply FILE: replace $snip by $repl in $work/FILE, when it occurs there
# exactly once; n is set to the number of occurrences.  Not to be run in
# a subshell: it sets applied, which restore() needs.
apply() {
	n=$(count "$work/$1")
	[ "$n" -eq 1 ] || return 0
	cp "$work/$1" "$state/orig" || exit 2
	applied=$1
	SNIP=$snip REPL=$repl awk 'BEGIN { s = ENVIRON["SNIP"]; r = ENVIRON["REPL"] }
	{ if ((i = index($0, s)) > 0) $0 = substr($0, 1, i - 1) r substr($0, i + length(s)); print }' \
	    "$state/orig" >"$work/$1"
	if cmp -s "$state/orig" "$work/$1"; then
		echo "mutate: $id: the replacement changes nothing" >&2
		exit 2
	fi
}

: >"$state/results"
total=$(($(wc -l <"$state/lines") / 7))
i=0
t_start=$(date +%s)
while :; do
	read -r lno || break
	read -r id; read -r file; read -r tests; read -r snip; read -r repl
	read -r eq
	i=$((i + 1))
	if [ ! -f "$work/$file" ]; then
		res=stale
	else
		if [ -n "$eq" ]; then
			n=$(count "$work/$file")
		else
			apply "$file"
		fi
		case $n in
		0) res=stale ;;
		1) res= ;;
		*) res=ambiguous ;;
		esac
		[ -z "$res" ] && [ -n "$eq" ] && res=equiv
	fi
	why=
	t0=$(date +%s)
	if [ -z "$res" ]; then
		if ! build; then
			res=nobuild
			why=$(grep -m1 -E 'error|Error' "$state/build.log")
		else
			b=$(bound "$tests")
			if ! run "$state/mut" "$b" $(progargs "$tests"); then
				res=killed why="timed out after ${b}s"
			else
				why=$(awk 'NR == FNR { ok[$1] = 1; next }
				    ($1 in ok) && ($2 == "failed" || $2 == "broken") { printf "%s%s", sep, $1; sep = " " }' \
				    "$state/basepass" "$state/mut")
				# a program that ran none of its cases (crashed lister)
				miss=$(awk 'NR == FNR { seen[$1] = 1; next }
				    !($1 in seen) { print $1 }' "$state/mut" "$state/basepass" |
				    while read -r c; do
					for a in $(progargs "$tests"); do
						case "$c" in "$a"|"$a":*) echo "$c"; break ;; esac
					done
				    done | head -3 | tr '\n' ' ')
				[ -n "$miss" ] && why="${why:+$why }missing: $miss"
				if [ -n "$why" ]; then res=killed; else res=survived; fi
			fi
		fi
		restore
		if [ -n "$applied" ] || ! cmp -s "$state/orig" "$work/$file"; then
			echo "mutate: $id: could not restore $file" >&2
			exit 2
		fi
	fi
	t1=$(date +%s)
	# fields separated by US (\037): a snippet may hold tabs
	printf '%s\037%s\037%s\037%s\037%s\037%s\037%s\037%s\n' "$res" "$id" "$file" "$lno" \
	    "$snip" "$repl" "${eq:-$why}" "$tests" >>"$state/results"
	printf 'mutate: [%d/%d] %-9s %-16s %3ss  %s\n' "$i" "$total" "$res" "$id" \
	    "$((t1 - t0))" "$(echo "${eq:-$why}" | cut -c1-70)"
done <"$state/lines"
t_end=$(date +%s)

# --- the report ---------------------------------------------------------
mkdir -p "$(dirname "$report")" 2>/dev/null
awk -F'\037' -v min="$min" -v secs=$((t_end - t_start)) '
{ n[$3]++; c[$3, $1]++; tot[$1]++; files[$3] = 1; all++ }
$1 == "survived" { surv[++ns] = $0 }
$1 == "stale" || $1 == "ambiguous" || $1 == "nobuild" { odd[++no] = $0 }
END {
	printf "\n%-40s %5s %6s %8s %5s %7s %5s\n", "file", "lines", "killed", "survived", "equiv", "nobuild", "score"
	nf = 0; for (f in files) fl[++nf] = f
	for (a = 1; a <= nf; a++) for (b = a + 1; b <= nf; b++) if (fl[b] < fl[a]) { t = fl[a]; fl[a] = fl[b]; fl[b] = t }
	for (a = 1; a <= nf; a++) {
		f = fl[a]; k = c[f, "killed"]; s = c[f, "survived"]
		st = c[f, "stale"] + c[f, "ambiguous"]
		printf "%-40s %5d %6d %8d %5d %7d %5s%s\n", f, n[f], k, s, c[f, "equiv"], c[f, "nobuild"],
		    (k + s) ? sprintf("%d%%", 100 * k / (k + s)) : "-", st ? sprintf("  %d STALE/AMBIGUOUS", st) : ""
	}
	k = tot["killed"]; s = tot["survived"]
	score = (k + s) ? 100 * k / (k + s) : 0
	printf "\n%d mutants: %d killed, %d survived, %d equivalent, %d did not build, %d stale, %d ambiguous (%d s)\n",
	    all, k, s, tot["equiv"], tot["nobuild"], tot["stale"], tot["ambiguous"], secs
	for (j = 1; j <= no; j++) {
		split(odd[j], r, "\037")
		printf "%s: %s (%s, catalogue line %s): %s\n", toupper(r[1]), r[2], r[3], r[4], r[7]
	}
	if (ns) print "\nsurvivors:"
	for (j = 1; j <= ns; j++) {
		split(surv[j], r, "\037")
		printf "  %s  %s (catalogue line %s; ran %s)\n      - %s\n      + %s\n", r[2], r[3], r[4], r[8] == "" ? "*" : r[8], r[5], r[6]
	}
	printf "\nmutation score: %.1f%% (%d of %d non-equivalent mutants killed; threshold %d%%)\n", score, k, k + s, min
	bad = (score < min) || tot["stale"] || tot["ambiguous"]
	exit bad
}' "$state/results" | tee "$report"
rc=$?
# tee hides awk's status: read it back from the report
if grep -q '^STALE\|^AMBIGUOUS' "$report"; then rc=1; fi
score=$(sed -n 's/^mutation score: \([0-9]*\).*/\1/p' "$report")
[ "${score:-0}" -lt "$min" ] && rc=1
echo "mutate: report in $report"
exit $rc
