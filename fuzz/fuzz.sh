#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# fuzz.sh: AFL++ runs and corpus minimization for the harnesses of fuzz/.
# Called by fuzz/Makefile.inc:
#
#   fuzz.sh run SECONDS BUILDDIR FUZZDIR TARGET...
#	afl-fuzz on each target in turn (never two at once: the machine
#	has two cores), SECONDS each, output in FUZZDIR/out/TARGET/.  Fails
#	when a run could not start or saved any crash or hang, naming each
#	saved input.  afl-fuzz itself exits 0 in that case, so its crashes/
#	and hangs/ directories and fuzzer_stats are read here.
#
#   fuzz.sh cmin 0 BUILDDIR FUZZDIR TARGET...
#	FUZZDIR/corpus/TARGET, the seeds of `make fuzz-seeds` and the queue
#	of the last run, minimized with afl-cmin (edges only, not hit counts:
#	dozens of files, not hundreds) back into the corpus.
#	Inputs named keep-* (hand-made edge cases, and the inputs of bugs
#	found: keep-bug-*) are always kept.
#
# FUZZ_OUT, when set, is used instead of FUZZDIR/out.
set -u

cmd=$1 secs=$2 bdir=$3 fdir=$4
shift 4
# Where runs go (FUZZ_OUT overrides it, e.g. to keep a long run apart).
odir=${FUZZ_OUT:-$fdir/out}

export AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
# Other jobs may hold the cores: do not insist on a free one.
export AFL_NO_AFFINITY=1
# The output lies under the source tree, which may be under /tmp.
export AFL_ALLOW_TMP=1

# The value of key in an afl fuzzer_stats file.
afl_stat() {
	sed -n "s/^$2 *: *//p" "$1"
}

# The saved inputs of an afl-fuzz output directory's crashes/ or hangs/.
saved() {
	for f in "$1"/*; do
		[ -f "$f" ] || continue
		case ${f##*/} in README.txt) continue ;; esac
		echo "$f"
	done
}

run_one() {
	t=$1
	bin=$bdir/afl-$t
	in=$fdir/corpus/$t
	out=$odir/$t
	log=$odir/$t.log
	dict=
	[ -f "$fdir/dict/$t.dict" ] && dict="-x $fdir/dict/$t.dict"

	rm -rf "$out"
	mkdir -p "$out"
	echo "fuzz: $t: afl-fuzz for ${secs}s (log: $log)"
	# shellcheck disable=SC2086
	if ! afl-fuzz -V "$secs" -t 1000 -i "$in" -o "$out" $dict \
	    -- "$bin" >"$log" 2>&1; then
		echo "fuzz: $t: afl-fuzz failed; the end of $log:" >&2
		tail -20 "$log" >&2
		return 1
	fi
	st=$out/default/fuzzer_stats
	if [ ! -f "$st" ]; then
		echo "fuzz: $t: no $st: the run did not happen" >&2
		return 1
	fi
	printf 'fuzz: %s: %s execs, %s/s, %s edges, corpus %s, ' "$t" \
	    "$(afl_stat "$st" execs_done)" \
	    "$(afl_stat "$st" execs_per_sec)" \
	    "$(afl_stat "$st" edges_found)" "$(afl_stat "$st" corpus_count)"
	printf '%s crashes, %s hangs\n' "$(afl_stat "$st" saved_crashes)" \
	    "$(afl_stat "$st" saved_hangs)"
	bad=0
	for f in $(saved "$out/default/crashes"); do
		echo "fuzz: $t: CRASH: $f" >&2
		echo "fuzz:   reproduce: $bdir/replay-$t '$f'" >&2
		bad=1
	done
	# A hang is afl-fuzz's 1 s timeout, which a loaded machine can pass
	# on an input that is not slow at all: it counts only when the
	# replay driver, alone, does not finish it within 10 s either.
	slow=0
	for f in $(saved "$out/default/hangs"); do
		if timeout 10 "$bdir/replay-$t" "$f" >/dev/null 2>&1; then
			echo "fuzz: $t: slow under load, not a hang (replayed" \
			    "at once): $f" >&2
			slow=$((slow + 1))
			continue
		fi
		echo "fuzz: $t: HANG: $f" >&2
		echo "fuzz:   reproduce: timeout 10 $bdir/replay-$t '$f'" >&2
		bad=1
	done
	# Saved inputs are what counts; the stats only confirm them.
	n=$(afl_stat "$st" saved_crashes)
	h=$(afl_stat "$st" saved_hangs)
	h=$(( ${h:-0} - slow ))
	if [ "${n:-0}" != 0 ] || [ "$h" -gt 0 ]; then
		[ $bad = 1 ] || echo "fuzz: $t: fuzzer_stats counts" \
		    "$n crashes and $h hangs" >&2
		bad=1
	fi
	return $bad
}

cmin_one() {
	t=$1
	bin=$bdir/afl-$t
	corpus=$fdir/corpus/$t
	work=$odir/cmin-$t
	rm -rf "$work"
	mkdir -p "$work/in" "$corpus"
	# Seeds first, so that a corpus file of the same name wins.
	for d in "$odir/seeds/$t" "$odir/$t/default/queue" "$corpus"
	do
		[ -d "$d" ] || continue
		for f in "$d"/*; do
			[ -f "$f" ] || continue
			case ${f##*/} in
			*:*)	# afl's queue names: name them by content
				h=$(sha1sum <"$f" | cut -c1-12)
				cp "$f" "$work/in/q-$h" ;;
			*)	cp "$f" "$work/in/" ;;
			esac
		done
	done
	echo "fuzz: $t: afl-cmin on $(ls "$work/in" | wc -l) inputs"
	if ! afl-cmin -e -t 5000 -i "$work/in" -o "$work/out" -- "$bin" \
	    >"$work.log" 2>&1; then
		echo "fuzz: $t: afl-cmin failed; the end of $work.log:" >&2
		tail -20 "$work.log" >&2
		return 1
	fi
	cp "$corpus"/keep-* "$work/out/" 2>/dev/null
	rm -f "$corpus"/*
	cp "$work/out"/* "$corpus/"
	echo "fuzz: $t: corpus now $(ls "$corpus" | wc -l) files"
}

rc=0
failed=
for t in "$@"; do
	case $cmd in
	run)	run_one "$t" || { rc=1; failed="$failed $t"; } ;;
	cmin)	cmin_one "$t" || { rc=1; failed="$failed $t"; } ;;
	*)	echo "usage: fuzz.sh run|cmin ..." >&2; exit 2 ;;
	esac
done
[ $rc = 0 ] || echo "fuzz: FAILED:$failed" >&2
exit $rc
