# tests/hpc: the scheduler backends (mpi, pbs, lsf, sagemaker) under their
# environments, and the mpi backend under a real Open MPI (skipped without
# mpirun).  Shell scripts over `muster`; tests/local.mk puts the plugins'
# .libs in MUSTER_PLUGIN_PATH.
TESTS += \
	tests/hpc/pbs.sh \
	tests/hpc/lsf.sh \
	tests/hpc/sagemaker.sh \
	tests/hpc/mpi.sh \
	tests/hpc/openmpi.sh \
	tests/hpc/chain.sh
EXTRA_DIST += \
	tests/hpc/lib.sh \
	tests/hpc/lsan.supp \
	tests/hpc/pbs.sh \
	tests/hpc/lsf.sh \
	tests/hpc/sagemaker.sh \
	tests/hpc/mpi.sh \
	tests/hpc/openmpi.sh \
	tests/hpc/chain.sh
