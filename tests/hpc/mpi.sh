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
# The ranks are processes: each sees its host's GPUs, the ranks' slices in
# local-rank order.
check_eq "muster env exports the host's GPUs" "$(printf '%s\n' "$out" | grep '^CUDA_VISIBLE_DEVICES=')" \
	"CUDA_VISIBLE_DEVICES=0,1,2,3"

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

# The ranks are a scheduler's processes, the hosts in the order they first
# come by rank; the job id is the launch's (PMIX_NAMESPACE) or the
# allocation's, else none; every variable looked up is noted.
(export OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=3 OMPI_COMM_WORLD_LOCAL_SIZE=3
 placed "$c"); got
check_eq "processes, this host, no job id" "$(printf '%s\n' "$out" | sed -n 1,4p)" "placement processes
nodes $host
job none
task worker 1"
expect_out_match '^input OMPI_COMM_WORLD_RANK=1$' "the rank noted"
expect_out_match '^input OMPI_COMM_WORLD_LOCAL_RANK=\(unset\)$' "an unset variable noted"
for id in SLURM_JOB_ID LSB_JOBID PBS_JOBID; do
	(export OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1 "$id=77"; placed "$c"); got
	expect_out_match '^job 77$' "mpirun inside an allocation: $id is the job id"
done
# The launcher's local rank and size are this rank's place on its host.
(export OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=3 OMPI_COMM_WORLD_LOCAL_SIZE=3 \
	OMPI_COMM_WORLD_LOCAL_RANK=1; mu "$c" resolve); got
expect "a local rank that agrees" 0 "{\"cluster\":{\"worker\":[\"$host:8888\",\"$host:8889\",\"$host:8890\"]},\"task\":{\"type\":\"worker\",\"index\":1},\"rpc_layer\":\"grpc\"}"
(export OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=3 OMPI_COMM_WORLD_LOCAL_SIZE=3 \
	OMPI_COMM_WORLD_LOCAL_RANK=0; mu "$c" resolve); got
expect_err "a local rank that does not" 2 \
	"OMPI_COMM_WORLD_LOCAL_RANK is 0 but rank 1 is rank 1 of the ranks on $host (this host)"
(export PMI_RANK=2 PMI_SIZE=4 MPI_LOCALNRANKS=4 MPI_LOCALRANKID=3; mu "$c" resolve); got
expect_err "Hydra's local rank" 2 "MPI_LOCALRANKID is 3 but rank 2 is rank 2 of the ranks"
# An srun task started with a PMI plugin is left to the slurm entry; a
# rank of mpirun's daemons' step (another SLURM_PROCID) is not.
srun_task='SLURM_STEP_NODELIST=n1 SLURM_PROCID=1 SLURM_STEP_NUM_TASKS=2'
# shellcheck disable=SC2086
(export PMI_RANK=1 PMI_SIZE=2 $srun_task; mu "$c" resolve); got
expect_err "srun --mpi=pmi2's task: notfound, for the slurm entry" 1 \
	"PMI_RANK is SLURM_PROCID of an srun task: the slurm entry answers it (defer_to_slurm)"
# shellcheck disable=SC2086
(export PMI_RANK=1 PMI_SIZE=2 MPI_LOCALNRANKS=2 $srun_task
 mu "$(conf mpi "defer_to_slurm = false;")" master); got
expect "... answered here with defer_to_slurm = false" 0 "grpc://$host:8889"
(export OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_SIZE=2 \
	SLURM_STEP_NODELIST=n2 SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=1; mu "$c" master); got
expect "mpirun's rank under its daemons' step: answered here" 0 "grpc://$host:8889"
(export OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1 MUSTER_NO_DETECT=1; mu "$c" resolve); got
expect_err "MUSTER_NO_DETECT=1: notfound, unrun" 1 "MUSTER_NO_DETECT is set"

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
