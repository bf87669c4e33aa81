# bench/kubernetes: the kubernetes plugin against curl (the floor) and the
# official Python client running TensorFlow's algorithm, on a loopback
# server with N recorded-shape pods.  Run by `make bench-kubernetes`, never
# by `make check`.
EXTRA_DIST += \
	bench/kubernetes/run.sh \
	bench/kubernetes/bench.py \
	bench/kubernetes/podserver.py \
	bench/kubernetes/tf_baseline.py \
	bench/kubernetes/record-pod.sh \
	bench/kubernetes/pod-template.json \
	bench/kubernetes/README.md

bench-kubernetes: all
	$(SHELL) $(srcdir)/bench/kubernetes/run.sh '$(abs_top_builddir)' '$(abs_top_srcdir)'
.PHONY: bench-kubernetes
