#!/bin/sh
# The gce plugin's benchmark: `make bench-gce`, or
#   bench/gce/run.sh BUILDDIR [SRCDIR]
# Env: BENCH_ROUNDS [7].  See bench.py for what is measured.
set -eu
build=${1:?usage: run.sh BUILDDIR [SRCDIR]}
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
exec python3 "$src/bench/gce/bench.py" --build "$build" --rounds "${BENCH_ROUNDS:-7}"
