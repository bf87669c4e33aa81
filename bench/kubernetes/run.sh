#!/bin/sh
# The kubernetes plugin's benchmark: `make bench-kubernetes`, or
#   bench/kubernetes/run.sh BUILDDIR [SRCDIR]
# Env: BENCH_SIZES [10000,100000]  BENCH_ROUNDS [11]  BENCH_PY_ROUNDS [3]
#      BENCH_PY_MAX [10000] (largest size (b) runs at)  BENCH_PYTHON [/usr/bin/python3]
# See bench.py for what is measured and README.md for the results.
set -eu
build=${1:?usage: run.sh BUILDDIR [SRCDIR]}
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
exec python3 "$src/bench/kubernetes/bench.py" --build "$build"
