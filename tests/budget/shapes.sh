#!/bin/sh
# Work bounded by the budget: the large shapes of bench/budget resolve in
# bounded time (each took minutes or hung when job lookups were linear and
# merges cubic), and a resolve whose CPU work outlasts its timeout_ms stops
# and answers unavail instead of running on.  The bounds are generous:
# this runs under ASan on shared machines, where -O2 takes well under 1 s.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"

bound=60 # seconds per resolve; the old code took minutes even at -O2

if ! have_python3; then
	skip "budget shapes" "python3 not found"
	finish
fi
python3 "$MUSTER_TEST_SRCDIR/bench/budget/gen.py" "$tmp" 300000
# The last test's entry has 1 ms; the others a budget that a loaded
# machine under ASan cannot exhaust, as this is about complexity.
sed 's/on_success = "merge";/on_success = "merge"; timeout_ms = 1;/' "$tmp/jobs.conf" \
	>"$tmp/budget.conf"
for conf in jobs tasks merge; do
	sed 's/on_success = "merge";/on_success = "merge"; timeout_ms = 600000;/' \
		"$tmp/$conf.conf" >"$tmp/relaxed.conf"
	mv "$tmp/relaxed.conf" "$tmp/$conf.conf"
done

# timed NAME ARGS...: run muster under `timeout`, which exits 124 when the
# bound passes.
timed() {
	name=$1
	shift
	status=0
	timeout "$bound" "$MUSTER_BIN" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
	if [ "$status" -eq 124 ]; then
		fail "$name" "did not finish within $bound s"
		return 1
	fi
	if grep -E -q 'runtime error:|AddressSanitizer|LeakSanitizer' "$tmp/err"; then
		fail "no sanitizer report from: $name"
	fi
}

# expect_tail TEXT DESCRIPTION: stdout ends with TEXT and a newline.
expect_tail() {
	n=$(printf '%s\n' "$1" | wc -c)
	if [ "$(tail -c "$n" "$tmp/out")" = "$1" ]; then
		pass "$2"
	else
		: >"$tmp/out" # not megabytes of it in the log
		fail "$2" "expected stdout to end with: $1"
	fi
}

if timed "300,000 one-task jobs" -c "$tmp/jobs.conf" resolve; then
	expect_status 0 "300,000 one-task jobs resolve within $bound s"
	expect_tail '"job299999":["host299999:2222"]},"task":{"type":"job299999","index":0}}' \
		"... every job printed, the own task in the last"
fi

if timed "one job of 300,000 tasks" -c "$tmp/tasks.conf" resolve; then
	expect_status 0 "one job of 300,000 tasks resolves within $bound s"
	expect_tail '"host299999:2222"]},"task":{"type":"worker","index":299999}}' \
		"... every task printed"
fi

if timed "two merged entries of 100,000 jobs" -c "$tmp/merge.conf" resolve --format text; then
	expect_status 0 "two merged tf_config entries of 100,000 jobs each resolve within $bound s"
	expect_tail 'b99999 0 b99999:2222
task: a0 0
source: a+b' "... both halves in order, the own task from the first"
fi

if timed "a chain of 1,000 merging static entries" -c "$tmp/static-chain.conf" resolve; then
	expect_status 0 "a chain of 1,000 static entries, each merging its job, resolves within $bound s"
	expect_tail '"j999":["h999:2222"]}}' "... with all 1,000 jobs"
fi

if timed "a chain of 10,000 merging static entries" -c "$tmp/static-merge.conf" resolve; then
	expect_status 0 "a chain of 10,000 merging static entries resolves within $bound s"
	expect_tail '"j9999":["h9999:2222"]}}' "... with all 10,000 jobs"
fi

# Longer chains are refused before anything runs (muster.conf(5)).
python3 -c '
import sys
n = 10001
print("chain = (" + ",".join("{ plugin = \"static\"; name = \"s%d\"; }" % i for i in range(n)) + ");")
' >"$tmp/too-long.conf"
if timed "a chain of 10,001 entries" -c "$tmp/too-long.conf" resolve; then
	expect_status 4 "a chain of 10,001 entries is a configuration error"
	expect_err_match "10001 entries; at most 10000" "... naming the count and the cap"
fi

# The budget bounds CPU work: 300,000 jobs in 1 ms cannot be done, and the
# entry stops building when the clock says so instead of finishing late.
if timed "300,000 jobs with timeout_ms = 1" -c "$tmp/budget.conf" resolve; then
	expect_status 2 "300,000 jobs with timeout_ms = 1: unavail, within $bound s"
	expect_err_match "no answer within its 1 ms budget .*ran out of its 1 ms budget while building the cluster" \
		"... stopped by the budget while building, not after"
fi

finish
