# Benchmarks: built and run by `make bench`, never by `make check`.
EXTRA_PROGRAMS += bench/bench_process bench/bench_resolve bench/bench_chain
bench_bench_process_SOURCES = bench/bench_process.c
bench_bench_resolve_SOURCES = bench/bench_resolve.c
bench_bench_resolve_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
bench_bench_resolve_LDADD = core/libmuster.la $(CJSON_LIBS)
bench_bench_chain_SOURCES = bench/bench_chain.c
bench_bench_chain_LDADD = core/libmuster.la
CLEANFILES += bench/bench_process$(EXEEXT) bench/bench_resolve$(EXEEXT) bench/bench_chain$(EXEEXT)
EXTRA_DIST += bench/run.sh bench/README.md bench/hpc/base.conf bench/platforms/before.conf

bench: bench/bench_process$(EXEEXT) bench/bench_resolve$(EXEEXT) bench/bench_chain$(EXEEXT) \
		cli/muster$(EXEEXT) all
	$(SHELL) $(srcdir)/bench/run.sh '$(abs_top_builddir)' '$(abs_top_srcdir)'
.PHONY: bench

# bench/budget: the shapes that timeout_ms must bound (`make bench-budget`).
EXTRA_DIST += bench/budget/run.sh bench/budget/gen.py
bench-budget: bench/bench_process$(EXEEXT) cli/muster$(EXEEXT) all
	$(SHELL) $(srcdir)/bench/budget/run.sh '$(abs_top_builddir)' '$(abs_top_srcdir)'
.PHONY: bench-budget

# bench/launch: muster run's launch overhead against /bin/sh and torchrun
# (`make bench-launch`).
EXTRA_PROGRAMS += bench/launch/worker bench/launch/bench_launch
bench_launch_worker_SOURCES = bench/launch/worker.c
bench_launch_bench_launch_SOURCES = bench/launch/bench_launch.c
CLEANFILES += bench/launch/worker$(EXEEXT) bench/launch/bench_launch$(EXEEXT)
EXTRA_DIST += bench/launch/run.sh
bench-launch: bench/launch/worker$(EXEEXT) bench/launch/bench_launch$(EXEEXT) cli/muster$(EXEEXT) all
	$(SHELL) $(srcdir)/bench/launch/run.sh '$(abs_top_builddir)' '$(abs_top_srcdir)'
.PHONY: bench-launch

# bench/watch: muster watch's latency and idle CPU beside a raw watch stream
# and TensorFlow's resolver polled every second, on a real kube-apiserver
# (`make bench-watch`).
EXTRA_DIST += bench/watch/run.sh bench/watch/bench.py bench/watch/tf_poll.py \
	bench/watch/README.md
bench-watch: cli/muster$(EXEEXT) all
	$(SHELL) $(srcdir)/bench/watch/run.sh '$(abs_top_builddir)' '$(abs_top_srcdir)'
.PHONY: bench-watch

# bench/doctor: muster doctor over 64 peers, in network namespaces as root
# (`make bench-doctor`).
EXTRA_DIST += bench/doctor/run.sh
bench-doctor: bench/bench_process$(EXEEXT) cli/muster$(EXEEXT) all
	$(SHELL) $(srcdir)/bench/doctor/run.sh '$(abs_top_builddir)' '$(abs_top_srcdir)'
.PHONY: bench-doctor

# bench/devices: this machine's GPUs from /proc and sysfs, beside the NVML
# path they replace (`make bench-devices`).
EXTRA_PROGRAMS += bench/devices/bench_devices
bench_devices_bench_devices_SOURCES = bench/devices/bench_devices.c
bench_devices_bench_devices_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core
bench_devices_bench_devices_LDADD = core/libmuster-internal.la $(LIBCONFIG_LIBS)
CLEANFILES += bench/devices/bench_devices$(EXEEXT)
EXTRA_DIST += bench/devices/run.sh
bench-devices: bench/devices/bench_devices$(EXEEXT) bench/bench_process$(EXEEXT) cli/muster$(EXEEXT) all
	$(SHELL) $(srcdir)/bench/devices/run.sh '$(abs_top_builddir)' '$(abs_top_srcdir)'
.PHONY: bench-devices
