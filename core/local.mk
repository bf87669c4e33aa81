# libmuster: the core.  Its objects are built once into a convenience
# library, which the shared library wraps (exports limited by the version
# script) and the unit tests link directly.
noinst_LTLIBRARIES += core/libmuster-internal.la
core_libmuster_internal_la_SOURCES = \
	core/address.c core/address.h \
	core/arena.c core/arena.h \
	core/error.c core/error.h \
	core/log.c core/log.h \
	core/model.c core/model.h \
	core/nameindex.c core/nameindex.h \
	core/builder.c core/builder.h \
	core/master.c \
	core/merge.c core/merge.h \
	core/jsonw.c core/jsonw.h \
	core/emit_json.c \
	core/emit_tf_config.c \
	core/settings.c core/settings.h \
	core/includes.c core/includes.h \
	core/cfgsource.c core/cfgsource.h \
	core/cfgview.c core/cfgview.h \
	core/unknown.c core/unknown.h \
	core/suggest.c core/suggest.h \
	core/loader.c core/loader.h \
	core/builtin.c core/builtin.h \
	core/trust.c core/trust.h \
	core/host.c core/host.h \
	core/chain.c core/chain.h \
	core/ctx.c core/ctx.h \
	core/pathlist.c core/pathlist.h \
	core/result.c \
	core/launch.h core/launch_nodes.c core/launch_env.c core/launch_hostfile.c \
	core/local_devices.h core/local_devices.c core/local_visible.c \
	core/local_nvidia.c core/local_sysfs.c core/local_fill.c \
	core/diff.c core/diff.h \
	core/watch.c core/watch.h \
	core/watch_entries.c \
	core/watch_files.c \
	plugins/static/static.c
core_libmuster_internal_la_CFLAGS = $(AM_CFLAGS) $(LIBCONFIG_CFLAGS)
core_libmuster_internal_la_LIBADD = $(LIBCONFIG_LIBS)

lib_LTLIBRARIES += core/libmuster.la
core_libmuster_la_SOURCES =
core_libmuster_la_LIBADD = core/libmuster-internal.la $(LIBCONFIG_LIBS)
core_libmuster_la_LDFLAGS = -no-undefined \
	-version-info $(MUSTER_LT_CURRENT):$(MUSTER_LT_REVISION):$(MUSTER_LT_AGE)
if HAVE_VERSION_SCRIPT
core_libmuster_la_LDFLAGS += -Wl,--version-script=$(srcdir)/core/libmuster.map
endif
EXTRA_DIST += core/libmuster.map

# Its unit tests (cmocka, tests/unit/), of the built-in static backend too.
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
endif
