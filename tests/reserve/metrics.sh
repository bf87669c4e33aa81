#!/bin/sh
# muster reserve --metrics-port: the "metrics" scenario of metrics_test.py.
scenarios=metrics_test.py
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/reserve/run.sh"
