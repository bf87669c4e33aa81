# tests/hpc: the scheduler backends (mpi, pbs, lsf, sagemaker) under their
# environments, the default chain inside each, and the mpi backend under a
# real Open MPI (skipped without mpirun), also from an MPI Operator
# launcher's host file.  tests/local.mk puts the plugins' .libs in
# MUSTER_PLUGIN_PATH.  `placement` prints what an answer tells a launch
# (placement, node order, job id, the noted inputs), for these tests and
# tests/slurm's.
check_PROGRAMS += tests/hpc/placement
tests_hpc_placement_LDADD = core/libmuster.la
shell_tests += \
	tests/hpc/pbs.sh \
	tests/hpc/lsf.sh \
	tests/hpc/sagemaker.sh \
	tests/hpc/mpi.sh \
	tests/hpc/openmpi.sh \
	tests/hpc/mpi-operator.sh \
	tests/hpc/chain.sh
EXTRA_DIST += tests/hpc/lib.sh tests/hpc/lsan.supp
