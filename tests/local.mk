# The test harness: every test prints TAP, which Automake's TAP driver
# reads, so that each check counts (a failure fails, a skip is a skip).
# Shell tests use tests/lib/tap.sh; C programs (cmocka tests and the fuzz
# replays) include tests/lib/test.h and run through tests/lib/run-c.sh.
# How to add a test: tests/README.md.
TEST_EXTENSIONS = .sh
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
SH_LOG_DRIVER = $(LOG_DRIVER)
SH_LOG_COMPILER = $(SHELL)
LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/lib/run-c.sh

# Tests never read /etc or the caller's environment: plugins come from the
# build tree, configs from tests/ fixtures.
AM_TESTS_ENVIRONMENT = \
	unset MUSTER_CONF TF_CONFIG KUBERNETES_SERVICE_HOST; \
	MUSTER_PLUGIN_PATH='$(abs_top_builddir)/plugins/tf_config/.libs:$(abs_top_builddir)/plugins/kubernetes/.libs:$(abs_top_builddir)/plugins/spark/.libs:$(abs_top_builddir)/plugins/gce/.libs:$(abs_top_builddir)/plugins/libvirt/.libs:$(abs_top_builddir)/plugins/slurm/.libs:$(abs_top_builddir)/plugins/mpi/.libs:$(abs_top_builddir)/plugins/pbs/.libs:$(abs_top_builddir)/plugins/lsf/.libs:$(abs_top_builddir)/plugins/sagemaker/.libs:$(abs_top_builddir)/plugins/platforms/.libs:$(abs_top_builddir)/tests/plugins/.libs'; \
	MUSTER_TEST_SRCDIR='$(abs_top_srcdir)'; \
	MUSTER_TEST_BUILDDIR='$(abs_top_builddir)'; \
	MUSTER_BIN='$(abs_top_builddir)/cli/muster'; \
	export MUSTER_PLUGIN_PATH MUSTER_TEST_SRCDIR MUSTER_TEST_BUILDDIR MUSTER_BIN;

# Unit tests link the library's objects directly (core/libmuster-internal.la)
# so they can reach internal functions the shared library does not export.
unit_test_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(LIBCONFIG_CFLAGS)
unit_test_ldadd = core/libmuster-internal.la $(CMOCKA_LIBS) $(LIBCONFIG_LIBS)
EXTRA_DIST += tests/lib/tap.sh tests/lib/run-c.sh tests/lib/test.h tests/lib/prom_check.py \
	tests/README.md
