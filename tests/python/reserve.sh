#!/bin/sh
# The reservation server in one Python process, four spark executors (test_reserve.py).
. "$MUSTER_TEST_SRCDIR/tests/python/lib.sh"
run_pytest
