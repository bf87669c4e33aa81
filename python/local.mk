# python: the `muster` package, the extension module muster._muster over
# the public API (python/ext/) and the pure-Python layer beside it
# (python/muster/), both installed into $(pythondir)/muster.
muster_python_sources = \
	python/muster/__init__.py \
	python/muster/_hooks.py \
	python/muster/errors.py \
	python/muster/cluster.py \
	python/muster/devices.py \
	python/muster/tensorflow.py \
	python/muster/torch.py \
	python/muster/jax.py \
	python/muster/reserve.py
EXTRA_DIST += $(muster_python_sources) python/muster/py.typed
# `pip install .`: the same package, its extension against an installed
# libmuster (tests/install/installed.sh).
EXTRA_DIST += pyproject.toml setup.py
if BUILD_PYTHON
musterpydir = $(pythondir)/muster
musterpy_PYTHON = $(muster_python_sources)
musterpy_DATA = python/muster/py.typed
musterpy_LTLIBRARIES = python/_muster.la
python__muster_la_SOURCES = \
	python/ext/ext.h \
	python/ext/module.c \
	python/ext/devices.c \
	python/ext/hooks.c \
	python/ext/context.c \
	python/ext/result.c
python__muster_la_CPPFLAGS = $(AM_CPPFLAGS) $(PYTHON_CPPFLAGS)
python__muster_la_LDFLAGS = -module -avoid-version -shared \
	-export-symbols-regex '^PyInit__muster$$'
python__muster_la_LIBADD = core/libmuster.la
if BUILD_SPARK
python__muster_la_SOURCES += python/ext/reserve.c
python__muster_la_CPPFLAGS += -DMUSTER_PYTHON_RESERVE
endif
endif
EXTRA_DIST += python/ext/reserve.c

# The benchmark (`make bench-python`, never run by make check): the package
# against the `muster` program and against C, side by side.
EXTRA_DIST += bench/python/bench.py
bench-python: all
	$(PYTHON) $(srcdir)/bench/python/bench.py --build '$(abs_top_builddir)'
.PHONY: bench-python

# examples/kubernetes: RBAC and a Job; the RBAC is tested against the real
# kube-apiserver of tests/kubernetes-integration when one is running.
EXTRA_DIST += examples/kubernetes/README.md examples/kubernetes/rbac.yaml \
	examples/kubernetes/job.yaml
shell_tests += tests/examples/kubernetes.sh
