# libmuster: the core.  Its objects are built once into a convenience
# library, which the shared library wraps (exports limited by the version
# script) and the unit tests link directly.
noinst_LTLIBRARIES += core/libmuster-internal.la
# By layer, from the bottom (lib/ below it all: error and log filling,
# addresses, time): the public API's small functions; configuration and loading; the
# built-in backends; the result model; emitters; launch contracts; the
# network path to the peers; local devices; contexts and the chain; watch.
core_libmuster_internal_la_SOURCES = \
	core/base/error.c \
	core/config/settings.c core/config/settings.h core/config/cfgview.c \
	core/config/cfgview.h core/config/unknown.c core/config/unknown.h \
	core/config/includes.c core/config/includes.h core/config/cfgsource.c \
	core/config/cfgsource.h core/config/pathlist.c \
	core/config/pathlist.h core/config/suggest.c core/config/suggest.h \
	core/config/loader.c core/config/loader.h core/config/trust.c core/config/trust.h \
	core/builtin/builtin.c core/builtin/builtin.h core/builtin/static.c \
	core/model/arena.c core/model/arena.h core/model/builder.c core/model/builder.h \
	core/model/model.c core/model/model.h core/model/result.c core/model/nameindex.c \
	core/model/nameindex.h core/model/merge.c core/model/merge.h core/model/diff.c \
	core/model/diff.h core/model/pending.c core/model/placeholder.c \
	core/emit/jsonw.c core/emit/jsonw.h core/emit/emit_json.c core/emit/emit_tf_config.c \
	core/emit/master.c \
	core/launch/launch.h core/launch/plan.c core/launch/plan_units.c \
	core/launch/plan_counts.c core/launch/plan_port.c core/launch/launch_env.c \
	core/launch/launch_hostfile.c core/launch/plan_net.c \
	core/net/lookup.c core/net/lookup.h core/net/route.c core/net/route.h \
	core/net/netpath.c core/net/netpath.h core/net/netenv.c core/net/netenv.h \
	core/local/local_devices.c core/local/local_devices.h core/local/local_visible.c \
	core/local/local_nvidia.c core/local/local_nvml.c core/local/local_nvml.h \
	core/local/local_sysfs.c core/local/local_fill.c core/local/local_cpus.c \
	core/local/local_cpus.h core/local/local_pcipath.c core/local/local_pcipath.h \
	core/local/local_topo.c core/local/local_topo_json.c core/local/local_bind.c \
	core/chain/chain.c core/chain/chain.h core/chain/ctx.c core/chain/ctx.h \
	core/chain/host.c core/chain/host.h core/chain/explain.c core/chain/explain.h \
	core/chain/gate.c core/chain/gate.h \
	core/watch/watch.c core/watch/watch.h core/watch/watch_entries.c \
	core/watch/watch_files.c
core_libmuster_internal_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core
core_libmuster_internal_la_CFLAGS = $(AM_CFLAGS) $(LIBCONFIG_CFLAGS)
core_libmuster_internal_la_LIBADD = lib/libutil.la $(LIBCONFIG_LIBS)

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
	tests/unit/test_settings tests/unit/test_threads tests/unit/test_internals \
	tests/unit/test_plan tests/unit/test_detect
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
tests_unit_test_plan_CFLAGS = $(unit_test_cflags)
tests_unit_test_plan_LDADD = tests/unit/libtestutil.la $(unit_test_ldadd)
tests_unit_test_internals_CFLAGS = $(unit_test_cflags)
tests_unit_test_internals_LDADD = tests/unit/libtestutil.la $(unit_test_ldadd)
tests_unit_test_detect_CFLAGS = $(unit_test_cflags)
tests_unit_test_detect_LDADD = tests/unit/libtestutil.la $(unit_test_ldadd) -lpthread
# The topology's CPU lists and PCI levels.
check_PROGRAMS += tests/unit/test_topology
TESTS += tests/unit/test_topology
tests_unit_test_topology_CFLAGS = $(unit_test_cflags)
tests_unit_test_topology_LDADD = tests/unit/libtestutil.la $(unit_test_ldadd)
endif
