#!/bin/sh
# One exception class per failure, with file:line and the CLI's exit status (test_errors.py).
. "$MUSTER_TEST_SRCDIR/tests/python/lib.sh"
run_pytest
