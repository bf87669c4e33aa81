# plugins/kubernetes: the cluster from the Kubernetes API (TF's
# KubernetesClusterResolver), with libcurl, libyaml (kubeconfig), yajl (pod
# lists, streamed) and cJSON (error answers).
if BUILD_KUBERNETES
plugins_LTLIBRARIES += plugins/kubernetes/kubernetes.la
plugins_kubernetes_kubernetes_la_SOURCES = \
	plugins/kubernetes/k8s.h \
	plugins/kubernetes/kubernetes.c \
	plugins/kubernetes/options.c \
	plugins/kubernetes/connect.c \
	plugins/kubernetes/kubeconfig.c \
	plugins/kubernetes/http.c \
	plugins/kubernetes/podlist.c \
	plugins/kubernetes/pod.c \
	plugins/kubernetes/list.c \
	plugins/kubernetes/order.c \
	plugins/kubernetes/build.c \
	plugins/kubernetes/util.c
plugins_kubernetes_kubernetes_la_CPPFLAGS = $(AM_CPPFLAGS) $(LIBCURL_CFLAGS) $(YAML_CFLAGS) \
	$(YAJL_CFLAGS) $(CJSON_CFLAGS)
plugins_kubernetes_kubernetes_la_LDFLAGS = $(muster_plugin_ldflags)
plugins_kubernetes_kubernetes_la_LIBADD = plugins/common/libplugin_common.la $(LIBCURL_LIBS) $(YAML_LIBS) $(YAJL_LIBS) \
	$(CJSON_LIBS)
endif

# Its tests: shell scripts driving the `muster` program (and a small helper
# over the public API) against a loopback HTTPS API server they start
# (tests/kubernetes/fake_apiserver.py, pods from a recorded real pod).
if BUILD_KUBERNETES
check_PROGRAMS += tests/kubernetes/k8s_helper
tests_kubernetes_k8s_helper_SOURCES = tests/kubernetes/k8s_helper.c
tests_kubernetes_k8s_helper_LDADD = core/libmuster.la
EXTRA_tests_kubernetes_k8s_helper_DEPENDENCIES = plugins/kubernetes/kubernetes.la cli/muster

kubernetes_tests = \
	tests/kubernetes/query.sh \
	tests/kubernetes/faults.sh \
	tests/kubernetes/pods.sh \
	tests/kubernetes/kubeconfig.sh
TESTS += $(kubernetes_tests)
endif
dist_check_SCRIPTS += \
	tests/kubernetes/query.sh \
	tests/kubernetes/faults.sh \
	tests/kubernetes/pods.sh \
	tests/kubernetes/kubeconfig.sh
EXTRA_DIST += \
	tests/kubernetes/lib.sh \
	tests/kubernetes/fake_apiserver.py \
	tests/kubernetes/fixtures/pod.json
