#!/bin/sh
# Work bounded by the budget: `make bench-budget`, or
#   bench/budget/run.sh BUILDDIR SRCDIR
# Env: BENCH_ROUNDS [7].
#
# Whole `muster resolve` processes (the real binary, output written to
# /dev/null) on the budget's shapes, each interleaved run by run with a
# baseline: for a TF_CONFIG, Python's json.load of the same file (the floor
# of reading the input at all); for a chain, the same chain at a tenth of
# its length (linear work takes a tenth of the time).
set -eu
build=${1:?usage: run.sh BUILDDIR SRCDIR}
src=${2:?usage: run.sh BUILDDIR SRCDIR}
rounds=${BENCH_ROUNDS:-7}
export LD_LIBRARY_PATH="$build/core/.libs"
export MUSTER_PLUGIN_PATH="$build/plugins/tf_config/.libs"
unset TF_CONFIG MUSTER_CONF

muster="$build/cli/.libs/muster"
[ -x "$muster" ] || muster="$build/cli/muster"
dir=$(mktemp -d "${TMPDIR:-/tmp}/muster-budget.XXXXXX")
trap 'rm -rf "$dir"' EXIT
python3 "$src/bench/budget/gen.py" "$dir" 300000
python3 "$src/bench/budget/gen.py" "$dir/tenth" 30000

# side_by_side TITLE CONF -- BASELINE...
side_by_side() {
	echo
	echo "== $1"
	conf=$2
	shift 3
	"$build/bench/bench_process" "$rounds" -- "$muster" -c "$conf" resolve -- "$@"
}

load='import json, sys
for f in sys.argv[1:]:
    json.load(open(f))'
side_by_side "a: TF_CONFIG of 300,000 one-task jobs ($(wc -c <"$dir/jobs.json") bytes), against json.load" \
	"$dir/jobs.conf" -- python3 -c "$load" "$dir/jobs.json"
side_by_side "b: TF_CONFIG of one job with 300,000 tasks ($(wc -c <"$dir/tasks.json") bytes), against json.load" \
	"$dir/tasks.conf" -- python3 -c "$load" "$dir/tasks.json"
side_by_side "c: two tf_config entries of 100,000 jobs each, merged, against json.load of both" \
	"$dir/merge.conf" -- python3 -c "$load" "$dir/merge-a.json" "$dir/merge-b.json"
side_by_side "d: a chain of 1,000 static entries each merging its job, against 100 of them" \
	"$dir/static-chain.conf" -- "$muster" -c "$dir/tenth/static-chain.conf" resolve
side_by_side "a chain of 10,000 static entries each merging its job, against 1,000 of them" \
	"$dir/static-merge.conf" -- "$muster" -c "$dir/tenth/static-merge.conf" resolve
