# plugins/kubernetes: the cluster from the Kubernetes API (TF's
# KubernetesClusterResolver), with libcurl, libyaml (kubeconfig), simdjson
# (pod lists: json_page.cc, the plugin's one C++ file), libdeflate (gzip
# answers) and cJSON (error answers, Job objects).
if BUILD_KUBERNETES
plugins_LTLIBRARIES += plugins/kubernetes/kubernetes.la
plugins_kubernetes_kubernetes_la_SOURCES = plugins/kubernetes/k8s.h \
	plugins/kubernetes/kubernetes.c plugins/kubernetes/options.c plugins/kubernetes/connect.c \
	plugins/kubernetes/kubeconfig.c plugins/kubernetes/http.c plugins/kubernetes/gunzip.c \
	plugins/kubernetes/json_page.h plugins/kubernetes/json_page.cc plugins/kubernetes/podlist.c \
	plugins/kubernetes/continue_hint.c plugins/kubernetes/pod.c plugins/kubernetes/list.c \
	plugins/kubernetes/tokens.c plugins/kubernetes/order.c plugins/kubernetes/watch.c \
	plugins/kubernetes/build.c plugins/kubernetes/indexed.c plugins/kubernetes/jobspec.c \
	plugins/kubernetes/util.c
plugins_kubernetes_kubernetes_la_CPPFLAGS = $(muster_http_plugin_cppflags) $(YAML_CFLAGS) \
	$(SIMDJSON_CFLAGS) $(CJSON_CFLAGS) $(LIBDEFLATE_CFLAGS)
plugins_kubernetes_kubernetes_la_LDFLAGS = $(muster_plugin_ldflags)
plugins_kubernetes_kubernetes_la_LIBADD = lib/libjson.la $(muster_http_plugin_libadd) $(YAML_LIBS) \
	$(SIMDJSON_LIBS) $(CJSON_LIBS) $(LIBDEFLATE_LIBS)
endif

# Its tests: shell scripts driving the `muster` program (and a small helper
# over the public API) against a loopback HTTPS API server they start
# (tests/kubernetes/fake_apiserver.py, pods from a recorded real pod).
if BUILD_KUBERNETES
check_PROGRAMS += tests/kubernetes/k8s_helper
tests_kubernetes_k8s_helper_LDADD = core/libmuster.la
EXTRA_tests_kubernetes_k8s_helper_DEPENDENCIES = plugins/kubernetes/kubernetes.la cli/muster

# The page reader alone, fed broken and well-formed pages (cmocka).
if HAVE_CMOCKA
check_PROGRAMS += tests/kubernetes/test_json_page
TESTS += tests/kubernetes/test_json_page
tests_kubernetes_test_json_page_SOURCES = tests/kubernetes/test_json_page.c \
	plugins/kubernetes/json_page.cc plugins/kubernetes/json_page.h
tests_kubernetes_test_json_page_CPPFLAGS = $(AM_CPPFLAGS) $(SIMDJSON_CFLAGS)
tests_kubernetes_test_json_page_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_kubernetes_test_json_page_LDADD = $(SIMDJSON_LIBS) $(CMOCKA_LIBS)

# The early continue token, fed the API server's shape and every other.
check_PROGRAMS += tests/kubernetes/test_continue_hint
TESTS += tests/kubernetes/test_continue_hint
tests_kubernetes_test_continue_hint_SOURCES = tests/kubernetes/test_continue_hint.c \
	plugins/kubernetes/continue_hint.c
tests_kubernetes_test_continue_hint_CPPFLAGS = $(AM_CPPFLAGS) $(LIBCURL_CFLAGS)
tests_kubernetes_test_continue_hint_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_kubernetes_test_continue_hint_LDADD = $(CMOCKA_LIBS)
endif
endif
shell_tests += tests/kubernetes/query.sh
shell_tests += tests/kubernetes/faults.sh
shell_tests += tests/kubernetes/pods.sh
shell_tests += tests/kubernetes/kubeconfig.sh
shell_tests += tests/kubernetes/addresses.sh
shell_tests += tests/kubernetes/watch.sh
shell_tests += tests/kubernetes/indexed.sh
shell_tests += tests/kubernetes/status.sh
shell_tests += tests/kubernetes/metrics.sh
EXTRA_DIST += \
	tests/kubernetes/lib.sh \
	tests/kubernetes/fake_apiserver.py \
	tests/kubernetes/fixtures/pod.json

# Against a real kube-apiserver (../shared/tools/kube-apiserver):
# `make check` runs integration.sh against a server that is already running
# and skips it when none is; `make check-kubernetes-integration` builds,
# starts, runs and stops one (CI).
shell_tests += tests/kubernetes-integration/integration.sh
shell_tests += tests/kubernetes-integration/watch.sh
shell_tests += tests/kubernetes-integration/indexed.sh
EXTRA_DIST += \
	tests/kubernetes-integration/api.sh \
	tests/kubernetes-integration/kint.py \
	tests/kubernetes-integration/run.sh \
	tests/kubernetes-integration/ensure-apiserver.sh

check-kubernetes-integration: all
	$(SHELL) $(srcdir)/tests/kubernetes-integration/run.sh '$(abs_top_builddir)'
.PHONY: check-kubernetes-integration
