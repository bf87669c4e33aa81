# plugins/mpi: an MPI launcher's environment, and its PMIx server through
# libpmix, dlopen()ed only inside a PMIx launch (no build dependency).
plugins_LTLIBRARIES += plugins/mpi/mpi.la
plugins_mpi_mpi_la_SOURCES = plugins/mpi/mpi.c plugins/mpi/mpi.h plugins/mpi/options.c \
	plugins/mpi/env.c plugins/mpi/pmix.c
plugins_mpi_mpi_la_LDFLAGS = $(muster_plugin_ldflags)
plugins_mpi_mpi_la_LIBADD = $(muster_plugin_libadd)
