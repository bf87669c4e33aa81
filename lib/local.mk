# lib: the leaf library of small helpers every floor shares (address check,
# clock and backoff, environment reader, reasons (a name lookup's too),
# quoting, growable
# arrays, libmuster's error and log filling, strict JSON), one file a
# helper.  Of the project it includes only the public <muster/muster.h>
# (for muster_error and muster_log_fn), never core/, plugins/, tfos/, cli/
# or the plugin SDK, and it links nothing.  A PIC convenience library
# linked into libmuster, the plugins (through plugins/common), `muster` and
# the tests; its symbols stay hidden, so a plugin still exports only its
# entry.
noinst_LTLIBRARIES += lib/libutil.la
lib_libutil_la_SOURCES = \
	lib/address.c lib/address.h \
	lib/clock.c lib/clock.h \
	lib/env.c lib/env.h \
	lib/error.c lib/error.h \
	lib/http_request.c lib/http_request.h \
	lib/httpd.c lib/httpd.h \
	lib/job_port.c lib/job_port.h \
	lib/log.c lib/log.h \
	lib/lookup_reason.c lib/lookup_reason.h \
	lib/prom.c lib/prom.h \
	lib/quote.c lib/quote.h \
	lib/reason.c lib/reason.h \
	lib/vec.c lib/vec.h
lib_libutil_la_CPPFLAGS = -I$(top_srcdir)/include -I$(top_builddir)/include

# Strict JSON (strict_json.h): every JSON document a backend reads from
# the environment or a file, apart so that what reads no JSON does not link
# cJSON.  It uses quote.c: link it with libutil.la (which a plugin has
# through plugins/common), not into it, or a plugin would hold libutil
# twice.
if HAVE_CJSON
noinst_LTLIBRARIES += lib/libjson.la
lib_libjson_la_SOURCES = \
	lib/strict_json.c lib/strict_json.h lib/strict_json_impl.h \
	lib/strict_json_syntax.c lib/strict_json_tree.c
lib_libjson_la_CPPFLAGS = $(CJSON_CFLAGS)
lib_libjson_la_LIBADD = $(CJSON_LIBS)
endif

# Its tests (cmocka), each linking the library alone; layers.sh checks that
# it stays a leaf and that no plugin, server, CLI or Python file reaches
# into core/.
if HAVE_CMOCKA
lib_tests = tests/unit/test_address tests/unit/test_clock tests/unit/test_env \
	tests/unit/test_job_port tests/unit/test_reason tests/unit/test_vec tests/unit/test_http
check_PROGRAMS += $(lib_tests)
TESTS += $(lib_tests)
lib_test_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
lib_test_ldadd = lib/libutil.la $(CMOCKA_LIBS)
tests_unit_test_address_CFLAGS = $(lib_test_cflags)
tests_unit_test_address_LDADD = $(lib_test_ldadd)
tests_unit_test_clock_CFLAGS = $(lib_test_cflags)
tests_unit_test_clock_LDADD = $(lib_test_ldadd)
tests_unit_test_env_CFLAGS = $(lib_test_cflags)
tests_unit_test_env_LDADD = $(lib_test_ldadd)
tests_unit_test_job_port_CFLAGS = $(lib_test_cflags)
tests_unit_test_job_port_LDADD = $(lib_test_ldadd)
tests_unit_test_reason_CFLAGS = $(lib_test_cflags)
tests_unit_test_reason_LDADD = $(lib_test_ldadd)
tests_unit_test_vec_CFLAGS = $(lib_test_cflags)
tests_unit_test_vec_LDADD = $(lib_test_ldadd)
tests_unit_test_http_CFLAGS = $(lib_test_cflags)
tests_unit_test_http_LDADD = $(lib_test_ldadd)
endif
shell_tests += tests/unit/layers.sh
