# tests/abi: the plugin ABI seen from outside.
#
#  - good.so and deliberately broken plugins (check_LTLIBRARIES, built by
#    `make check` only), loaded through the public API by test_loader;
#  - placed.so, a plugin of ABI 1.7 and 1.8 services, and old_minor.so, one of
#    ABI 1.0, seen through the public API by test_services;
#  - headers.sh: each public header compiles alone as C99 -pedantic and C++,
#    and so do the MUSTER_POPT_* rows (C and C++ holding the same fields);
#  - exports.sh: libmuster exports only muster_*, exactly the functions of
#    muster.h and reserve.h whatever configure found, every plugin exactly
#    its entry symbol (check-exports.sh is the reusable checker);
#  - test_reserve_absent: reserve.h's calls in a libmuster built without
#    the reservation server fail with a reason;
#  - trust.sh: plugins that others could replace are refused, as
#    `muster plugins` and the warnings show;
#  - man3.sh: muster(3) shows every function of muster.h, as the header
#    declares it, and the manual pages render without a groff warning;
#  - out-of-tree.sh: examples/plugin builds with `pkg-config --cflags
#    muster-plugin` alone and loads into the real `muster` program.

# A plugin that does everything right.
check_LTLIBRARIES += tests/abi/good.la
tests_abi_good_la_SOURCES = tests/abi/good.c
tests_abi_good_la_LDFLAGS = $(muster_check_plugin_ldflags)

# The same object in a file named otherwise: "declares itself as 'good'".
check_LTLIBRARIES += tests/abi/wrong_name.la
tests_abi_wrong_name_la_SOURCES = tests/abi/good.c
tests_abi_wrong_name_la_LDFLAGS = $(muster_check_plugin_ldflags)

# Valid, but linked without the export filter and with a visible variable:
# loadable; check-exports.sh must flag it.
check_LTLIBRARIES += tests/abi/extra_export.la
tests_abi_extra_export_la_SOURCES = tests/abi/good.c
tests_abi_extra_export_la_CPPFLAGS = $(AM_CPPFLAGS) -DGOOD_EXTRA_EXPORT \
	-DGOOD_NAME='"extra_export"'
tests_abi_extra_export_la_LDFLAGS = -module -avoid-version -shared -no-undefined -rpath /nowhere

# Also named "good", answering "impostor.invalid:1": which of the two ran.
check_LTLIBRARIES += tests/abi/impostor.la
tests_abi_impostor_la_SOURCES = tests/abi/good.c
tests_abi_impostor_la_CPPFLAGS = $(AM_CPPFLAGS) -DGOOD_ADDRESS='"impostor.invalid:1"'
tests_abi_impostor_la_LDFLAGS = $(muster_check_plugin_ldflags)

# A plugin from a later ABI minor (longer descriptor): must load.
check_LTLIBRARIES += tests/abi/newer_minor.la
tests_abi_newer_minor_la_SOURCES = tests/abi/good.c
tests_abi_newer_minor_la_CPPFLAGS = $(AM_CPPFLAGS) -DGOOD_NEWER_MINOR \
	-DGOOD_NAME='"newer_minor"'
tests_abi_newer_minor_la_LDFLAGS = $(muster_check_plugin_ldflags)

# A plugin of ABI 1.0 (a descriptor without watch): must load and answer.
check_LTLIBRARIES += tests/abi/old_minor.la
tests_abi_old_minor_la_SOURCES = tests/abi/good.c
tests_abi_old_minor_la_CPPFLAGS = $(AM_CPPFLAGS) -DGOOD_OLD_MINOR -DGOOD_NAME='"old_minor"'
tests_abi_old_minor_la_LDFLAGS = $(muster_check_plugin_ldflags)

# A scheduler-like plugin of ABI 1.7's services, for test_services.
check_LTLIBRARIES += tests/abi/placed.la
tests_abi_placed_la_SOURCES = tests/abi/placed.c
tests_abi_placed_la_LDFLAGS = $(muster_check_plugin_ldflags)

# Broken variants of broken.c, one -DBROKEN_<VARIANT> each.
check_LTLIBRARIES += tests/abi/abi_major2.la
tests_abi_abi_major2_la_SOURCES = tests/abi/broken.c
tests_abi_abi_major2_la_CPPFLAGS = $(AM_CPPFLAGS) -DBROKEN_ABI_MAJOR2
tests_abi_abi_major2_la_LDFLAGS = $(muster_check_plugin_ldflags)

check_LTLIBRARIES += tests/abi/abi_lying.la
tests_abi_abi_lying_la_SOURCES = tests/abi/broken.c
tests_abi_abi_lying_la_CPPFLAGS = $(AM_CPPFLAGS) -DBROKEN_ABI_LYING
tests_abi_abi_lying_la_LDFLAGS = $(muster_check_plugin_ldflags)

check_LTLIBRARIES += tests/abi/short_struct.la
tests_abi_short_struct_la_SOURCES = tests/abi/broken.c
tests_abi_short_struct_la_CPPFLAGS = $(AM_CPPFLAGS) -DBROKEN_SHORT_STRUCT
tests_abi_short_struct_la_LDFLAGS = $(muster_check_plugin_ldflags)

check_LTLIBRARIES += tests/abi/no_entry.la
tests_abi_no_entry_la_SOURCES = tests/abi/broken.c
tests_abi_no_entry_la_CPPFLAGS = $(AM_CPPFLAGS) -DBROKEN_NO_ENTRY
# (exports `muster_plugin_entry`: the usual filter would leave nothing)
tests_abi_no_entry_la_LDFLAGS = -module -avoid-version -shared -no-undefined \
	-export-symbols-regex '^muster_plugin_entry$$' -rpath /nowhere

# Undefined references are allowed at link time (no -no-undefined, and
# -z undefs against toolchains that default to -z defs); RTLD_NOW refuses.
check_LTLIBRARIES += tests/abi/unresolved.la
tests_abi_unresolved_la_SOURCES = tests/abi/broken.c
tests_abi_unresolved_la_CPPFLAGS = $(AM_CPPFLAGS) -DBROKEN_UNRESOLVED
tests_abi_unresolved_la_LDFLAGS = -module -avoid-version -shared \
	-export-symbols-regex '^muster_plugin_entry_v[0-9]+$$' -rpath /nowhere -Wl,-z,undefs

check_LTLIBRARIES += tests/abi/null_resolve.la
tests_abi_null_resolve_la_SOURCES = tests/abi/broken.c
tests_abi_null_resolve_la_CPPFLAGS = $(AM_CPPFLAGS) -DBROKEN_NULL_RESOLVE
tests_abi_null_resolve_la_LDFLAGS = $(muster_check_plugin_ldflags)

# The loader, through the public API (cmocka).
if HAVE_CMOCKA
check_PROGRAMS += tests/abi/test_loader
tests_abi_test_loader_SOURCES = tests/abi/test_loader.c
tests_abi_test_loader_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_abi_test_loader_LDADD = core/libmuster.la $(CMOCKA_LIBS)
TESTS += tests/abi/test_loader

# ABI 1.7's services, MUSTER_NO_DETECT and the explain record (placed.so).
check_PROGRAMS += tests/abi/test_services
tests_abi_test_services_SOURCES = tests/abi/test_services.c
tests_abi_test_services_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_abi_test_services_LDADD = core/libmuster.la $(CMOCKA_LIBS)
TESTS += tests/abi/test_services

# <muster/reserve.h> as a libmuster without the reservation server has it
# (tfos/server/absent.c), tested in every configuration.
check_PROGRAMS += tests/abi/test_reserve_absent
tests_abi_test_reserve_absent_SOURCES = tests/abi/test_reserve_absent.c tfos/server/absent.c
tests_abi_test_reserve_absent_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_abi_test_reserve_absent_LDADD = lib/libutil.la $(CMOCKA_LIBS)
TESTS += tests/abi/test_reserve_absent
endif

# Shell tests.  They need the compilers configure found.
shell_tests += tests/abi/headers.sh
shell_tests += tests/abi/man3.sh
shell_tests += tests/abi/exports.sh
shell_tests += tests/abi/out-of-tree.sh
shell_tests += tests/abi/trust.sh
AM_TESTS_ENVIRONMENT += \
	MUSTER_TEST_CC='$(CC)'; MUSTER_TEST_CXX='$(CXX)'; \
	export MUSTER_TEST_CC MUSTER_TEST_CXX;
EXTRA_DIST += tests/abi/check-exports.sh
