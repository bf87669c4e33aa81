# plugins/tf_config: TF_CONFIG (TensorFlow's TFConfigClusterResolver), with cJSON.
if BUILD_TF_CONFIG
plugins_LTLIBRARIES += plugins/tf_config/tf_config.la
plugins_tf_config_tf_config_la_SOURCES = plugins/tf_config/tf_config.c \
	plugins/tf_config/tf_config.h plugins/tf_config/input.c plugins/tf_config/json.c \
	plugins/tf_config/build.c
plugins_tf_config_tf_config_la_CPPFLAGS = $(muster_json_plugin_cppflags)
plugins_tf_config_tf_config_la_LDFLAGS = $(muster_plugin_ldflags)
plugins_tf_config_tf_config_la_LIBADD = $(muster_json_plugin_libadd)
endif

# Its tests: cmocka programs over the public API, loading the real plugin
# (tests/local.mk puts plugins/tf_config/.libs in MUSTER_PLUGIN_PATH).
if BUILD_TF_CONFIG
if HAVE_CMOCKA
tf_config_tests = \
	tests/tf_config/test_tf_config_cluster \
	tests/tf_config/test_tf_config_master \
	tests/tf_config/test_tf_config_errors
check_PROGRAMS += $(tf_config_tests)
TESTS += $(tf_config_tests)

tf_config_test_sources = tests/tf_config/tfc_test.c tests/tf_config/tfc_test.h
tf_config_test_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tf_config_test_ldadd = core/libmuster.la $(CMOCKA_LIBS)
# The plugin is loaded at run time, not linked: make sure it is built.
tf_config_test_deps = plugins/tf_config/tf_config.la

tests_tf_config_test_tf_config_cluster_SOURCES = \
	tests/tf_config/test_tf_config_cluster.c $(tf_config_test_sources)
tests_tf_config_test_tf_config_cluster_CFLAGS = $(tf_config_test_cflags)
tests_tf_config_test_tf_config_cluster_LDADD = $(tf_config_test_ldadd)
EXTRA_tests_tf_config_test_tf_config_cluster_DEPENDENCIES = $(tf_config_test_deps)

tests_tf_config_test_tf_config_master_SOURCES = \
	tests/tf_config/test_tf_config_master.c $(tf_config_test_sources)
tests_tf_config_test_tf_config_master_CFLAGS = $(tf_config_test_cflags)
tests_tf_config_test_tf_config_master_LDADD = $(tf_config_test_ldadd)
EXTRA_tests_tf_config_test_tf_config_master_DEPENDENCIES = $(tf_config_test_deps)

tests_tf_config_test_tf_config_errors_SOURCES = \
	tests/tf_config/test_tf_config_errors.c $(tf_config_test_sources)
tests_tf_config_test_tf_config_errors_CFLAGS = $(tf_config_test_cflags)
tests_tf_config_test_tf_config_errors_LDADD = $(tf_config_test_ldadd)
EXTRA_tests_tf_config_test_tf_config_errors_DEPENDENCIES = $(tf_config_test_deps)
endif
endif

# Fixtures travel in the tarball whatever was configured.
EXTRA_DIST += \
	tests/tf_config/fixtures/kubeflow.json \
	tests/tf_config/fixtures/kubeflow_sparse.json \
	tests/tf_config/fixtures/kubeflow_sparse_legacy.json \
	tests/tf_config/fixtures/python_spaced.json
