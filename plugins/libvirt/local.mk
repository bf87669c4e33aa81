# plugins/libvirt: the cluster from the virtual machines of a libvirt host,
# through libvirt's API (read-only), the domains' XML read with libxml2
# (libvirt's own dependency).
if BUILD_LIBVIRT
plugins_LTLIBRARIES += plugins/libvirt/libvirt.la
plugins_libvirt_libvirt_la_SOURCES = plugins/libvirt/virt.h plugins/libvirt/libvirt.c \
	plugins/libvirt/options.c plugins/libvirt/conn.c plugins/libvirt/domain.c \
	plugins/libvirt/accel.c plugins/libvirt/address.c plugins/libvirt/build.c \
	plugins/libvirt/watch.c plugins/libvirt/evloop.c
plugins_libvirt_libvirt_la_CPPFLAGS = $(AM_CPPFLAGS) $(LIBVIRT_CFLAGS) $(LIBXML_CFLAGS)
plugins_libvirt_libvirt_la_LDFLAGS = $(muster_plugin_ldflags)
plugins_libvirt_libvirt_la_LIBADD = $(muster_plugin_libadd) $(LIBVIRT_LIBS) $(LIBXML_LIBS) -lpthread

# Its watch through the public API, with libvirt's test:///default changed
# by the test itself in the same process, and (where libvirtd is installed)
# a daemon of the test's own restarted under a watch (cmocka).
if HAVE_CMOCKA
check_PROGRAMS += tests/libvirt/test_watch
TESTS += tests/libvirt/test_watch
tests_libvirt_test_watch_CPPFLAGS = $(AM_CPPFLAGS) $(LIBVIRT_CFLAGS)
tests_libvirt_test_watch_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_libvirt_test_watch_LDADD = core/libmuster.la $(LIBVIRT_LIBS) $(CMOCKA_LIBS) -lpthread
endif
endif

# Its tests: shell scripts driving the `muster` program against libvirt's
# own test driver (test:///PATH.xml) with node XML fixtures, the 1,000-domain
# one generated at test time.
shell_tests += tests/libvirt/resolve.sh
shell_tests += tests/libvirt/membership.sh
shell_tests += tests/libvirt/faults.sh
shell_tests += tests/libvirt/scale.sh
EXTRA_DIST += \
	tests/libvirt/lib.sh \
	tests/libvirt/gen-node.py \
	tests/libvirt/lsan.supp \
	tests/libvirt/fixtures/node.xml \
	tests/libvirt/fixtures/faults.xml

# bench/libvirt: `muster resolve` against the shell loop an administrator
# writes today (virsh list + virsh domifaddr per domain), 1,000 domains of
# the test driver.  Run by `make bench-libvirt`, never by `make check`.
EXTRA_DIST += bench/libvirt/run.sh

bench-libvirt: all
	$(SHELL) $(srcdir)/bench/libvirt/run.sh '$(abs_top_builddir)' '$(abs_top_srcdir)'
.PHONY: bench-libvirt
