# plugins/pbs: PBS_NODEFILE (TensorFlow's PBSClusterResolver).  No library
# beyond libc.
plugins_LTLIBRARIES += plugins/pbs/pbs.la
plugins_pbs_pbs_la_SOURCES = plugins/pbs/pbs.c plugins/pbs/pbs.h plugins/pbs/options.c \
	plugins/pbs/build.c
plugins_pbs_pbs_la_LDFLAGS = $(muster_plugin_ldflags)
plugins_pbs_pbs_la_LIBADD = $(muster_plugin_libadd)
