# tests/kubernetes-integration: the kubernetes plugin against a real
# kube-apiserver (../shared/tools/kube-apiserver).  `make check` runs
# integration.sh against a server that is already running and skips it
# (exit 77, with the reason) when none is; run.sh builds, starts, runs and
# stops one (CI).
TESTS += tests/kubernetes-integration/integration.sh tests/kubernetes-integration/watch.sh
EXTRA_DIST += \
	tests/kubernetes-integration/integration.sh \
	tests/kubernetes-integration/watch.sh \
	tests/kubernetes-integration/api.sh \
	tests/kubernetes-integration/kint.py \
	tests/kubernetes-integration/run.sh \
	tests/kubernetes-integration/ensure-apiserver.sh

# Build the server if absent, start it, run the tests, stop it.
check-kubernetes-integration: all
	$(SHELL) $(srcdir)/tests/kubernetes-integration/run.sh '$(abs_top_builddir)'
.PHONY: check-kubernetes-integration
