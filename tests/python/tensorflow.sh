#!/bin/sh
# muster.tensorflow.ClusterResolver's contract; the real-TF check skips without TF (test_tensorflow.py).
. "$MUSTER_TEST_SRCDIR/tests/python/lib.sh"
run_pytest
