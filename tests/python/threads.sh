#!/bin/sh
# 16 threads through one Context; no reference or RSS growth (test_threads.py).
. "$MUSTER_TEST_SRCDIR/tests/python/lib.sh"
run_pytest
