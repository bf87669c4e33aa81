# The scriptable stub backend, compiled under three names: two thread-safe
# instances for chains, one that asks the core to serialise its calls.
check_LTLIBRARIES += tests/plugins/stub.la tests/plugins/stub_b.la tests/plugins/stub_serial.la
tests_plugins_stub_la_SOURCES = tests/plugins/stub.c
tests_plugins_stub_la_LDFLAGS = $(muster_check_plugin_ldflags)
tests_plugins_stub_b_la_SOURCES = tests/plugins/stub.c
tests_plugins_stub_b_la_CPPFLAGS = $(AM_CPPFLAGS) -DSTUB_NAME='"stub_b"'
tests_plugins_stub_b_la_LDFLAGS = $(muster_check_plugin_ldflags)
tests_plugins_stub_serial_la_SOURCES = tests/plugins/stub.c
tests_plugins_stub_serial_la_CPPFLAGS = $(AM_CPPFLAGS) -DSTUB_NAME='"stub_serial"' -DSTUB_FLAGS=0
tests_plugins_stub_serial_la_LDFLAGS = $(muster_check_plugin_ldflags)
