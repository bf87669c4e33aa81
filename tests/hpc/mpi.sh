#!/bin/sh
# The mpi backend under MPI launchers' environments (Open MPI, MPICH's
# Hydra, a bare PMIx launch) and bad input.  tests/hpc/openmpi.sh runs it
# under a real mpirun.
. "${MUSTER_TEST_SRCDIR:?}/tests/hpc/lib.sh"
require_plugin mpi

host=$(hostname)
c=$(conf mpi "")
mu "$c" resolve; got
expect_err "no launcher: notfound" 1 "none of OMPI_COMM_WORLD_RANK, PMIX_RANK and PMI_RANK is set"

# Every rank on this host (Open MPI without PMIx variables): no library,
# ranks in order, port_base + k.
(export OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=3 OMPI_COMM_WORLD_LOCAL_SIZE=3
 mu "$c" resolve); got
expect "Open MPI, one host" 0 "{\"cluster\":{\"worker\":[\"$host:8888\",\"$host:8889\",\"$host:8890\"]},\"task\":{\"type\":\"worker\",\"index\":1},\"rpc_layer\":\"grpc\"}"
# MPICH's Hydra.
c2=$(conf mpi "port_base = 5000; rpc_layer = \"grpc+verbs\";")
(export PMI_RANK=2 PMI_SIZE=4 MPI_LOCALNRANKS=4; mu "$c2" master); got
expect "Hydra's variables" 0 "grpc+verbs://$host:5002"
(export PMI_RANK=0 PMI_SIZE=1; mu "$c2" master); got
expect "a single rank needs no local size" 0 "grpc+verbs://$host:5000"
# GPUs: Slurm's rule over the ranks on a host.
c3=$(conf mpi "gpus_per_node = 4;")
(export OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_SIZE=2
 mu "$c3" resolve --format text); got
expect "gpus_per_node over two ranks" 0 "worker 0 $host:8888 GPU=2
worker 1 $host:8889 GPU=2
task: worker 0
rpc_layer: grpc
source: mpi"
(export OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_SIZE=2
 mu "$c3" resolve); got
expect "each rank's GPU ids, by its place on its host" 0 "{\"cluster\":{\"worker\":[\"$host:8888\",\"$host:8889\"]},\"task\":{\"type\":\"worker\",\"index\":1},\"rpc_layer\":\"grpc\",\"accelerators\":{\"worker\":{\"0\":{\"GPU\":2},\"1\":{\"GPU\":2}}},\"accelerator_ids\":{\"worker\":{\"0\":[0,1],\"1\":[2,3]}}}"
(export OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_SIZE=2
 mu "$c3" env --for pytorch --format dotenv); got
check_eq "muster env exports rank 1's GPUs" "$(printf '%s\n' "$out" | grep '^CUDA_VISIBLE_DEVICES=')" \
	"CUDA_VISIBLE_DEVICES=2,3"

# libpmix is loaded only inside a PMIx launch: a library that does not
# exist is never missed without PMIX_NAMESPACE ...
c5=$(conf mpi "pmix_library = \"/nonexistent\";")
(export OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_SIZE=2
 mu "$c5" master); got
expect "pmix_library missing, no PMIx launch: not loaded" 0 "grpc://$host:8888"
# ... and the default chain outside every scheduler loads none (the
# dynamic linker's own record; the same run in a PMIx launch lists it).
# pmix_loads [VAR=VALUE...]: how often the default chain's run under the
# variables mentions libpmix in LD_DEBUG's record.
pmix_loads() {
	(export LD_DEBUG=libs; [ $# -eq 0 ] || export "$@"
	 mu "$MUSTER_TEST_SRCDIR/conf/muster.conf" resolve)
	grep -c 'libpmix' "$tmp/err"
}
if have_plugin tf_config && have_plugin slurm; then
	check_eq "the default chain, no scheduler: libpmix not loaded" "$(pmix_loads)" 0
	if [ "$(pmix_loads PMIX_RANK=0 PMIX_NAMESPACE=none)" -gt 0 ]; then
		pass "... while a PMIx launch loads it"
	else
		# Even a missing libpmix shows in the record (its search): none means
		# the plugin never tried, and the check above would prove nothing.
		fail "... while a PMIx launch loads it" "LD_DEBUG never mentions libpmix"
	fi
else
	skip "the default chain, no scheduler: libpmix not loaded" "tf_config or slurm not built"
fi

# Bad input.
(export OMPI_COMM_WORLD_RANK=4 OMPI_COMM_WORLD_SIZE=4; mu "$c" resolve); got
expect_err "a rank past the size" 2 "OMPI_COMM_WORLD_RANK is 4, outside the 4 ranks of OMPI_COMM_WORLD_SIZE"
(export OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=''; mu "$c" resolve); got
expect_err "an empty size" 2 "OMPI_COMM_WORLD_SIZE must be an integer from 1"
(export OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=4 OMPI_COMM_WORLD_LOCAL_SIZE=2
 mu "$c" resolve); got
expect_err "other hosts, no PMIx" 2 "only 2 of the 4 ranks run on this host (OMPI_COMM_WORLD_LOCAL_SIZE)" "PMIX_NAMESPACE"
(export PMI_RANK=0 PMI_SIZE=2; mu "$c" resolve); got
expect_err "no local size, no PMIx" 2 "no PMIx server (PMIX_NAMESPACE) says where the other ranks of PMI_SIZE run"
(export PMIX_RANK=0; mu "$c" resolve); got
expect_err "PMIX_RANK alone" 2 "the number of ranks is unknown"
c4=$(conf mpi "pmix_library = \"$tmp/no-libpmix.so\";")
(export PMIX_RANK=0 PMIX_NAMESPACE=job1; mu "$c4" resolve); got
expect_err "libpmix missing" 2 "PMIX_NAMESPACE is set but $tmp/no-libpmix.so cannot be loaded"
(export OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_SIZE=2
 mu "$(conf mpi "gpus_per_node = 2; gpus_per_task = 2;")" resolve); got
expect_err "more GPUs than a node has" 2 "more GPUs per node than available"

finish
