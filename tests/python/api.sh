#!/bin/sh
# The Python API on static, tf_config and kubernetes chains (test_api.py).
. "$MUSTER_TEST_SRCDIR/tests/python/lib.sh"
run_pytest
