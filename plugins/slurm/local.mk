# plugins/slurm: a Slurm task's environment, laid out in Slurm's order
# (or TensorFlow's SlurmClusterResolver's).  The list parsers are a convenience library of their own
# (with lib/libutil.la beside it, not in it: the plugin has lib/ already),
# which the fuzz target, the tests' expander and the benchmark link too.
noinst_LTLIBRARIES += plugins/slurm/libslurm_lists.la
plugins_slurm_libslurm_lists_la_SOURCES = plugins/slurm/hostlist.c plugins/slurm/hostlist.h \
	plugins/slurm/tasks_per_node.c plugins/slurm/hostfile.c

plugins_LTLIBRARIES += plugins/slurm/slurm.la
plugins_slurm_slurm_la_SOURCES = plugins/slurm/slurm.c plugins/slurm/slurm.h \
	plugins/slurm/options.c plugins/slurm/env.c plugins/slurm/dist.c \
	plugins/slurm/order_slurm.c plugins/slurm/order_tensorflow.c plugins/slurm/build.c
plugins_slurm_slurm_la_LDFLAGS = $(muster_plugin_ldflags)
plugins_slurm_slurm_la_LIBADD = plugins/slurm/libslurm_lists.la $(muster_plugin_libadd)

# Its tests: `muster resolve` under Slurm's variables; our expansion
# against scontrol's; a real Slurm on loopback (skipped without one).
check_PROGRAMS += tests/slurm/expand
tests_slurm_expand_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/plugins/slurm
tests_slurm_expand_LDADD = plugins/slurm/libslurm_lists.la lib/libutil.la
shell_tests += tests/slurm/env.sh tests/slurm/hostlist.sh tests/slurm/cluster.sh
EXTRA_DIST += tests/slurm/lib.sh tests/slurm/peers.py tests/slurm/worker.py
