# plugins/common: small helpers the bundled plugins share, linked into
# each as a PIC convenience library whose symbols stay hidden, so every
# plugin still exports only its entry: buffers, bounded file reads and
# other system helpers (buf), natural name order, HTTP media types, the
# schedulers' hosts, slots and task layout (slots, layout, hostfile), a
# watch over one file and the host's watch services (filewatch,
# watchhost), option groups and refusals (popts); headers alone: a failed
# check's answer (answer.h), the launcher's environment noted for
# --explain (noted.h).  lib/ comes with it: the address check, so that a
# plugin names what the core would refuse, or leaves it out; time; the
# environment.
noinst_LTLIBRARIES += plugins/common/libplugin_common.la
plugins_common_libplugin_common_la_SOURCES = \
	plugins/common/natural.c plugins/common/natural.h \
	plugins/common/buf.c plugins/common/buf.h \
	plugins/common/media.c plugins/common/media.h \
	plugins/common/slots.c plugins/common/slots.h \
	plugins/common/layout.c plugins/common/layout.h \
	plugins/common/hostfile.c plugins/common/hostfile.h \
	plugins/common/filewatch.c plugins/common/filewatch.h \
	plugins/common/watchhost.c plugins/common/watchhost.h \
	plugins/common/popts.c plugins/common/popts.h \
	plugins/common/answer.h plugins/common/noted.h
plugins_common_libplugin_common_la_LIBADD = lib/libutil.la

# What a bundled plugin builds with, so that its local.mk names only its
# own sources and libraries beside one of these: LDFLAGS
# $(muster_plugin_ldflags) (Makefile.am: one exported symbol), LIBADD
# $(muster_plugin_libadd) (this folder, with lib/), or the _json_ pair for
# a plugin that reads JSON through lib/strict_json.h, or the _http_ pair
# for one that speaks HTTP through http.h (below).
muster_plugin_libadd = plugins/common/libplugin_common.la
muster_json_plugin_cppflags = $(AM_CPPFLAGS) $(CJSON_CFLAGS)
muster_json_plugin_libadd = lib/libjson.la $(muster_plugin_libadd) $(CJSON_LIBS)
muster_http_plugin_cppflags = $(AM_CPPFLAGS) $(LIBCURL_CFLAGS)
muster_http_plugin_libadd = plugins/common/libplugin_http.la $(LIBCURL_LIBS)

# The HTTP backends' libcurl setup, limits, wording and retry waits, apart
# so that a plugin without HTTP does not link libcurl.
if HAVE_LIBCURL
noinst_LTLIBRARIES += plugins/common/libplugin_http.la
plugins_common_libplugin_http_la_SOURCES = plugins/common/http.c plugins/common/http.h
plugins_common_libplugin_http_la_CPPFLAGS = $(muster_http_plugin_cppflags)
plugins_common_libplugin_http_la_LIBADD = $(muster_plugin_libadd) $(LIBCURL_LIBS)

if HAVE_CMOCKA
check_PROGRAMS += plugins/common/test_net
TESTS += plugins/common/test_net
plugins_common_test_net_CPPFLAGS = $(AM_CPPFLAGS) $(LIBCURL_CFLAGS)
plugins_common_test_net_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
plugins_common_test_net_LDADD = plugins/common/libplugin_http.la $(CMOCKA_LIBS)
endif
endif

# Its tests: the shared name order, hosts and slots (cmocka).
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_natural tests/unit/test_slots
TESTS += tests/unit/test_natural tests/unit/test_slots
tests_unit_test_natural_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_natural_LDADD = plugins/common/libplugin_common.la $(CMOCKA_LIBS)
tests_unit_test_slots_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_slots_LDADD = plugins/common/libplugin_common.la $(CMOCKA_LIBS)
endif
