#!/bin/sh
# The shipped default chain (conf/muster.conf) inside each scheduler's
# environment: `muster resolve` with no configuration of its own prints the
# job's cluster, answered by that scheduler's backend; outside every one,
# the static single-task cluster, without a word on stderr; inside a broken
# one, exit 2 naming the variable at fault, never the static cluster.
. "${MUSTER_TEST_SRCDIR:?}/tests/hpc/lib.sh"
for p in tf_config slurm mpi pbs lsf sagemaker; do
	require_plugin "$p"
done

c=$MUSTER_TEST_SRCDIR/conf/muster.conf
host=$(hostname)
# source SCHEDULER: the last run's answer came from that entry.
source_is() {
	check_eq "$1 answers" "$(printf '%s\n' "$out" | sed -n 's/^source: //p')" "$1"
}

mu "$c" resolve; got
expect "no scheduler: the static cluster" 0 '{"cluster":{"worker":["localhost:2222"]},"task":{"type":"worker","index":0},"rpc_layer":"grpc"}'
check_eq "no scheduler: nothing on stderr" "$err" ""

slurm_step='SLURM_PROCID=1 SLURM_STEP_NUM_TASKS=2 SLURM_STEP_NODELIST=n[1-2] SLURM_STEP_TASKS_PER_NODE=1(x2)'
# shellcheck disable=SC2086,SC2163 # the step's variables, split on purpose
(export $slurm_step; mu "$c" resolve --format text); got
expect "srun" 0 "worker 0 n1:8888
worker 1 n2:8888
task: worker 1
rpc_layer: grpc
source: slurm"
# srun --mpi=pmix gives each task PMIx's (and Open MPI's) variables too:
# mpi comes first but leaves a task whose SLURM_PROCID and step size are
# its rank and size to slurm, before asking a PMIx server (none is there).
# shellcheck disable=SC2086,SC2163
(export $slurm_step PMIX_RANK=1 PMIX_NAMESPACE=slurm.pmix.7.0 OMPI_COMM_WORLD_RANK=1 \
	OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_SIZE=1; mu "$c" resolve --format text); got
expect "srun --mpi=pmix: slurm answers, mpi stands aside" 0 "worker 0 n1:8888
worker 1 n2:8888
task: worker 1
rpc_layer: grpc
source: slurm"

(export OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_SIZE=2
 mu "$c" resolve --format text); got
expect "mpirun" 0 "worker 0 $host:8888
worker 1 $host:8889
task: worker 1
rpc_layer: grpc
source: mpi"

# mpirun inside an allocation: a rank on a remote node carries the SLURM_*
# of the step that started mpirun's daemons (one task a node, its own
# SLURM_PROCID), which slurm would answer with the daemon's task: mpi, the
# innermost launcher, is asked first.
(export OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_SIZE=2 \
	SLURM_JOB_ID=5 SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=1 SLURM_STEP_NODELIST=n2 \
	SLURM_STEP_TASKS_PER_NODE=1; mu "$c" resolve --format text); got
expect "mpirun inside a Slurm allocation: mpi, not the daemons' step" 0 "worker 0 $host:8888
worker 1 $host:8889
task: worker 1
rpc_layer: grpc
source: mpi"

printf 'n1\nn1\nn2\n' >"$tmp/nodefile"
(export PBS_NODEFILE="$tmp/nodefile" PBS_TASKNUM=2; mu "$c" resolve --format text); got
source_is pbs
check_eq "qsub: the third slot" "$(printf '%s\n' "$out" | sed -n 's/^task: //p')" "worker 2"

printf 'batch\nh1\nh2\n' >"$tmp/rankfile"
(export LSB_JOBID=1 LSB_DJOB_RANKFILE="$tmp/rankfile" JSM_NAMESPACE_RANK=1 \
	JSM_NAMESPACE_SIZE=2; mu "$c" resolve --format text); got
source_is lsf
check_eq "bsub: rank 1 on h2" "$(printf '%s\n' "$out" | sed -n 2p)" "worker 1 h2:8888"

(export SM_HOSTS='["algo-1","algo-2"]' SM_CURRENT_HOST=algo-2; mu "$c" resolve --format text); got
source_is sagemaker
check_eq "SageMaker: algo-2 is worker 1" "$(printf '%s\n' "$out" | sed -n 's/^task: //p')" "worker 1"

# TF_CONFIG comes first: a TensorFlow job inside a scheduler keeps its own.
(export TF_CONFIG='{"cluster":{"worker":["w0:2222"]},"task":{"type":"worker","index":0}}' \
	PBS_NODEFILE="$tmp/nodefile" PBS_TASKNUM=0; mu "$c" resolve --format text); got
source_is tf_config

# A broken job environment ends the chain: exit 2 naming the variable or
# file, nothing on stdout (the static cluster would make this task train
# alone).  One case per entry, each the first entry of its kind to fail.
# broken WHAT FRAGMENT VAR=VALUE...: the default chain under the variables.
broken() {
	job=$1
	frag=$2
	shift 2
	(export "$@"; mu "$c" resolve); got
	expect_err "a broken $job job: exit 2" 2 "$frag"
	check_eq "a broken $job job: no cluster" "$out" ""
}
broken TensorFlow "TF_CONFIG is not valid JSON" TF_CONFIG='not json'
broken Slurm "SLURM_STEP_NODELIST: invalid host list 'n[1-'" SLURM_PROCID=0 \
	SLURM_STEP_NUM_TASKS=1 SLURM_STEP_NODELIST='n[1-' SLURM_STEP_TASKS_PER_NODE=1
broken MPI "OMPI_COMM_WORLD_SIZE must be an integer" OMPI_COMM_WORLD_RANK=0 \
	OMPI_COMM_WORLD_SIZE=two
broken PBS "PBS_NODEFILE $tmp/missing: No such file" PBS_NODEFILE="$tmp/missing" PBS_TASKNUM=0
broken LSF "LSB_DJOB_RANKFILE $tmp/missing: No such file" LSB_JOBID=1 \
	LSB_DJOB_RANKFILE="$tmp/missing" JSM_NAMESPACE_RANK=0 JSM_NAMESPACE_SIZE=1
broken SageMaker "SM_HOSTS" SM_HOSTS='not json' SM_CURRENT_HOST=algo-1

finish
