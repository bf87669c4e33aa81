#!/bin/sh
# A Kubeflow Trainer v2 TrainJob node as its runtimes set it: the torch
# runtime's PET_* (pkg/runtime/framework/plugins/torch/torch.go) and the JAX
# runtime's JAX_* (plugins/jax/jax.go); the nodes named as the JobSet names
# its pods, "<trainjob>-node-0-<i>.<trainjob>".
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/platforms/lib.sh"

torch() {
	n=$1
	shift
	on KUBERNETES_SERVICE_HOST=10.96.0.1 PET_NNODES=3 PET_NPROC_PER_NODE=auto PET_NODE_RANK="$n" \
		PET_MASTER_ADDR=tj-node-0-0.tj PET_MASTER_PORT=29500 JOB_COMPLETION_INDEX="$n" "$@"
}
torch 2 -- resolve
expect_json '{"cluster":{"worker":["tj-node-0-0.tj:29500","tj-node-0-1.tj:29500","tj-node-0-2.tj:29500"]},"task":{"type":"worker","index":2}}' \
	"torch runtime: the TrainJob's nodes, this one PET_NODE_RANK"
torch 1 -- env --for pytorch
expect_env "torch runtime: the master and node rank" MASTER_ADDR=tj-node-0-0.tj MASTER_PORT=29500 \
	WORLD_SIZE=3 RANK=1 NODE_RANK=1
torch 1 -- env --for pytorch --nproc-per-node 4
expect_env "... --nproc-per-node 4: 12 processes" WORLD_SIZE=12 RANK=4 PET_NNODES=3 PET_NODE_RANK=1
on PET_NNODES=3 PET_NODE_RANK=0 PET_MASTER_PORT=29500 -- resolve
expect_err "PET_MASTER_ADDR missing: unavail naming it" 2 \
	"platforms(trainer): unavail: PET_MASTER_ADDR is not set, but PET_NNODES is"
torch 3 -- resolve
expect_err "PET_NODE_RANK past PET_NNODES" 2 'PET_NODE_RANK must be an index below 3 (PET_NNODES), not "3"'
torch 1 PET_MASTER_ADDR=head.example -- resolve
expect_err "a master of another name: the other nodes are unknown" 2 "trainer does not know 2 of the 3"

jax() {
	n=$1
	shift
	on KUBERNETES_SERVICE_HOST=10.96.0.1 JAX_NUM_PROCESSES=2 JAX_PROCESS_ID="$n" \
		JAX_COORDINATOR_ADDRESS=tj-node-0-0.tj:29500 JOB_COMPLETION_INDEX="$n" "$@"
}
jax 1 -- resolve
expect_json '{"cluster":{"worker":["tj-node-0-0.tj:29500","tj-node-0-1.tj:29500"]},"task":{"type":"worker","index":1}}' \
	"JAX runtime: the nodes, this one JAX_PROCESS_ID"
jax 1 -- env --for jax
expect_env "JAX runtime: JAX's own variables back" JAX_COORDINATOR_ADDRESS=tj-node-0-0.tj:29500 \
	JAX_NUM_PROCESSES=2 JAX_PROCESS_ID=1
on JAX_COORDINATOR_ADDRESS=tj-node-0-0.tj:29500 -- resolve
expect_err "the coordinator alone: unavail naming what is missing" 2 \
	"JAX_NUM_PROCESSES is not set, but JAX_COORDINATOR_ADDRESS is"
jax 0 JAX_COORDINATOR_ADDRESS=tj-node-0-0.tj -- resolve
expect_err "a coordinator without a port" 2 "JAX_COORDINATOR_ADDRESS: address \"tj-node-0-0.tj\" is not HOST:PORT"
finish
