#!/bin/sh
# The shipped default chain (conf/muster.conf) inside each scheduler's
# environment: `muster resolve` with no configuration of its own prints the
# job's cluster, answered by that scheduler's backend; outside every one,
# the static single-task cluster, without a word on stderr.
. "${MUSTER_TEST_SRCDIR:?}/tests/hpc/lib.sh"
for p in tf_config mpi pbs lsf sagemaker; do
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
# Without the slurm plugin its entry warns that it is unknown.
if have_plugin slurm; then
	check_eq "no scheduler: nothing on stderr" "$err" ""
else
	echo "note: the slurm plugin is not built; its entry's warning is expected"
fi

(export OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_SIZE=2
 mu "$c" resolve --format text); got
expect "mpirun" 0 "worker 0 $host:8888
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

# A broken scheduler environment is a warning and the chain goes on.
(export PBS_NODEFILE="$tmp/missing" PBS_TASKNUM=0; mu "$c" resolve); got
expect_err "a broken PBS job falls back to static" 0 "PBS_NODEFILE $tmp/missing: No such file"

finish
