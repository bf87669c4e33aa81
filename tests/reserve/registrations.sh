#!/bin/sh
# muster reserve: the "registrations" scenario of reserve_test.py.
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/reserve/run.sh"
