#!/bin/sh
# muster reserve under a registration flood: the "regflood" scenario of
# flood_test.py.
scenarios=flood_test.py
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/reserve/run.sh"
