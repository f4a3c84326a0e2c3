#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# kyua-count.sh RESULTS.db: print "kyua: N passed, N failed, N skipped"
# counted from a kyua results file.  Broken tests count as failed,
# expected failures as passed.
db=$1
q() {
	kyua db-exec --no-headers --results-file="$db" \
	    "SELECT count(*) FROM test_results WHERE result_type IN ($1)" \
	    2>/dev/null || echo 0
}
pass=$(q "'passed','expected_failure'")
fail=$(q "'failed','broken'")
skip=$(q "'skipped'")
echo "kyua: $pass passed, $fail failed, $skip skipped"
