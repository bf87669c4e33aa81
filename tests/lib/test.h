/*
 * The C tests' one helper header: cmocka with the headers it needs first,
 * and run_tap_tests(), which runs a group and reports it in TAP (the format
 * Automake's TAP driver reads; tests/lib/run-c.sh runs the programs).
 */
#ifndef MUSTER_TESTS_LIB_TEST_H
#define MUSTER_TESTS_LIB_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/* cmocka_run_group_tests() with TAP output, also outside `make check`. */
#define run_tap_tests(group, setup, teardown) \
	(cmocka_set_message_output(CM_OUTPUT_TAP), \
	 cmocka_run_group_tests(group, setup, teardown))

#endif
