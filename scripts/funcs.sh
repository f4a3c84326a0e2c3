#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# funcs.sh FILE...: each function definition of C files written in the
# project's style (the name at the start of a line, the body's braces
# alone at the start of theirs), as "FILE:LINE NAME LINES PARAMS": the
# lines of the body, braces included, and the count of parameters.
exec awk '
FNR == 1 { name = ""; inbody = 0; sig = "" }
!inbody && /^[A-Za-z_][A-Za-z0-9_]*\(/ {
	name = $0; sub(/\(.*/, "", name); sig = $0; at = FNR
	next_sig = ($0 !~ /\)[ \t]*$/); next
}
!inbody && name != "" && next_sig { sig = sig " " $0
	if ($0 ~ /\)[ \t]*$/) next_sig = 0; next }
!inbody && name != "" && /^\{/ { inbody = 1; start = FNR; next }
!inbody && name != "" && !/^[ \t]*$/ && !/^\{/ && $0 !~ /^[A-Za-z_]/ { }
inbody && /^\}/ {
	s = sig; sub(/^[^(]*\(/, "", s); sub(/\)[^)]*$/, "", s)
	gsub(/\([^()]*\)/, "", s)	# function-pointer parameters
	n = (s ~ /^[ \t]*void[ \t]*$/ || s ~ /^[ \t]*$/) ? 0 : \
	    gsub(/,/, ",", s) + 1
	printf "%s:%d %s %d %d\n", FILENAME, at, name, FNR - start + 1, n
	inbody = 0; name = ""
}' "$@"
