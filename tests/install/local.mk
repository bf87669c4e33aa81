# tests/install: `make install DESTDIR=` of the build under test, then the
# README's C example, the Python package (as installed, and `pip install .`
# against the installed library) and examples/plugin used from that tree
# only.  The test needs the configured directories, and the compiler and
# flags the library was built with (under the sanitizers, their runtime).
shell_tests += tests/install/installed.sh
AM_TESTS_ENVIRONMENT += \
	MUSTER_TEST_CFLAGS='$(CFLAGS)'; MUSTER_TEST_LDFLAGS='$(LDFLAGS)'; \
	MUSTER_TEST_MAKE='$(MAKE)'; \
	MUSTER_INST_PREFIX='$(prefix)'; MUSTER_INST_BINDIR='$(bindir)'; MUSTER_INST_LIBDIR='$(libdir)'; \
	MUSTER_INST_INCLUDEDIR='$(includedir)'; MUSTER_INST_SYSCONFDIR='$(sysconfdir)'; \
	MUSTER_INST_MANDIR='$(mandir)'; MUSTER_INST_PKGCONFIGDIR='$(pkgconfigdir)'; \
	MUSTER_INST_BASHCOMPLETIONDIR='$(bashcompletiondir)'; MUSTER_INST_PYTHONDIR='$(pythondir)'; \
	export MUSTER_TEST_CFLAGS MUSTER_TEST_LDFLAGS MUSTER_TEST_MAKE MUSTER_INST_PREFIX MUSTER_INST_BINDIR \
	MUSTER_INST_LIBDIR MUSTER_INST_INCLUDEDIR MUSTER_INST_SYSCONFDIR \
	MUSTER_INST_MANDIR MUSTER_INST_PKGCONFIGDIR MUSTER_INST_BASHCOMPLETIONDIR \
	MUSTER_INST_PYTHONDIR;
