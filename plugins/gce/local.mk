# plugins/gce: the cluster from Google Compute Engine instance groups (TF's
# GCEClusterResolver), with libcurl, cJSON and libcrypto (RS256 JWTs).
if BUILD_GCE
plugins_LTLIBRARIES += plugins/gce/gce.la
plugins_gce_gce_la_SOURCES = plugins/gce/gce.h plugins/gce/gce.c plugins/gce/options.c \
	plugins/gce/env.c plugins/gce/auth.c plugins/gce/jwt.c plugins/gce/http.c \
	plugins/gce/members.c plugins/gce/instances.c plugins/gce/build.c plugins/gce/tpu.c \
	plugins/gce/util.c
plugins_gce_gce_la_CPPFLAGS = $(muster_http_plugin_cppflags) $(CJSON_CFLAGS) $(LIBCRYPTO_CFLAGS)
plugins_gce_gce_la_LDFLAGS = $(muster_plugin_ldflags)
plugins_gce_gce_la_LIBADD = $(muster_http_plugin_libadd) $(CJSON_LIBS) $(LIBCRYPTO_LIBS)
endif

# Its tests: shell scripts driving `muster` (and a helper over the public
# API) against a loopback fake of the metadata server, the OAuth token
# endpoint and the Compute API that they start (tests/gce/fake_gce.py).
if BUILD_GCE
check_PROGRAMS += tests/gce/gce_helper
tests_gce_gce_helper_LDADD = core/libmuster.la
EXTRA_tests_gce_gce_helper_DEPENDENCIES = plugins/gce/gce.la cli/muster
endif
shell_tests += tests/gce/resolve.sh
shell_tests += tests/gce/auth.sh
shell_tests += tests/gce/faults.sh
shell_tests += tests/gce/addresses.sh
shell_tests += tests/gce/tpu.sh
EXTRA_DIST += \
	tests/gce/lib.sh \
	tests/gce/fake_gce.py

# bench/gce: `muster resolve` against TF's 1 + N + pages request pattern on
# the same loopback fake (1,000 instances in 4 groups).  Run by
# `make bench-gce`, never by `make check`.
EXTRA_DIST += \
	bench/gce/run.sh \
	bench/gce/bench.py \
	bench/gce/tf_pattern.py

bench-gce: all
	$(SHELL) $(srcdir)/bench/gce/run.sh '$(abs_top_builddir)' '$(abs_top_srcdir)'
.PHONY: bench-gce
