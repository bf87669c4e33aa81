#!/bin/sh
# muster reserve --metrics-port and --metrics-host: usage, a port in use, IPv6
# (the "usage" scenario of metrics_test.py).
scenarios=metrics_test.py
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/reserve/run.sh"
