# Unit tests (cmocka) of the core and the built-in static backend.
if HAVE_CMOCKA
check_LTLIBRARIES += tests/unit/libtestutil.la
tests_unit_libtestutil_la_SOURCES = tests/unit/testutil.c tests/unit/testutil.h
tests_unit_libtestutil_la_CFLAGS = $(unit_test_cflags)

unit_tests = tests/unit/test_static tests/unit/test_chain tests/unit/test_merge \
	tests/unit/test_settings tests/unit/test_threads tests/unit/test_internals
check_PROGRAMS += $(unit_tests)
TESTS += $(unit_tests)

tests_unit_test_static_CFLAGS = $(unit_test_cflags)
tests_unit_test_static_LDADD = tests/unit/libtestutil.la $(unit_test_ldadd)
tests_unit_test_chain_CFLAGS = $(unit_test_cflags)
tests_unit_test_chain_LDADD = tests/unit/libtestutil.la $(unit_test_ldadd)
tests_unit_test_merge_CFLAGS = $(unit_test_cflags)
tests_unit_test_merge_LDADD = tests/unit/libtestutil.la $(unit_test_ldadd)
tests_unit_test_settings_CFLAGS = $(unit_test_cflags)
tests_unit_test_settings_LDADD = tests/unit/libtestutil.la $(unit_test_ldadd)
tests_unit_test_threads_CFLAGS = $(unit_test_cflags)
tests_unit_test_threads_LDADD = tests/unit/libtestutil.la $(unit_test_ldadd)
tests_unit_test_internals_CFLAGS = $(unit_test_cflags)
tests_unit_test_internals_LDADD = tests/unit/libtestutil.la $(unit_test_ldadd)

# The plugins' shared name order.
check_PROGRAMS += tests/unit/test_natural
TESTS += tests/unit/test_natural
tests_unit_test_natural_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_natural_LDADD = plugins/common/libplugin_common.la $(CMOCKA_LIBS)
endif
