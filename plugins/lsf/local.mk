# plugins/lsf: LSB_DJOB_RANKFILE / LSB_MCPU_HOSTS and jsrun's JSM_NAMESPACE_*
# (PyTorch Lightning's LSFEnvironment).  No library beyond libc.
plugins_LTLIBRARIES += plugins/lsf/lsf.la
plugins_lsf_lsf_la_SOURCES = plugins/lsf/lsf.c plugins/lsf/lsf.h plugins/lsf/mcpu.c \
	plugins/lsf/build.c
plugins_lsf_lsf_la_LDFLAGS = $(muster_plugin_ldflags)
plugins_lsf_lsf_la_LIBADD = $(muster_plugin_libadd)
