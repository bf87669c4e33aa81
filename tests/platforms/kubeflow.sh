#!/bin/sh
# A Kubeflow training-operator v1 PyTorchJob pod as the operator sets it
# (pkg/controller.v1/pytorch/envvar.go, master.go, elastic.go): the pods,
# master first, one node each; WORLD_SIZE counts processes while RANK
# counts pods; muster run --nproc-per-node N makes pods x N processes.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/platforms/lib.sh"

# pod RANK [NPROC WORLD_SIZE] VAR=VALUE... -- ARGS: a pod of the 4-pod job
# "pj" (1 master, 3 workers), nprocPerNode NPROC (default auto).
pod() {
	r=$1 nproc=${2:-auto} world=${3:-4}
	shift 3
	on KUBERNETES_SERVICE_HOST=10.96.0.1 KUBERNETES_SERVICE_PORT=443 PYTHONUNBUFFERED=1 \
		MASTER_ADDR=pj-master-0 MASTER_PORT=23456 WORLD_SIZE="$world" RANK="$r" \
		PET_MASTER_ADDR=pj-master-0 PET_MASTER_PORT=23456 PET_NODE_RANK="$r" \
		PET_NNODES="${nodes:-4}" PET_NPROC_PER_NODE="$nproc" "$@"
}

pod 2 auto 4 -- resolve
expect_json '{"cluster":{"master":["pj-master-0:23456"],"worker":["pj-worker-0:23456","pj-worker-1:23456","pj-worker-2:23456"]},"task":{"type":"worker","index":1}}' \
	"the pods: the master's Service, then each worker's, RANK 2 is worker 1"
pod 2 auto 4 -- env --for pytorch
expect_env "the issue's pod: MASTER_ADDR, WORLD_SIZE and RANK as the operator set them" \
	MASTER_ADDR=pj-master-0 MASTER_PORT=23456 WORLD_SIZE=4 RANK=2 NODE_RANK=2
pod 0 auto 4 -- run --for pytorch -- sh -c 'echo "$MASTER_ADDR $WORLD_SIZE $RANK"'
expect "muster run in the master pod gives the job's world, not localhost" 0 "pj-master-0 4 0"

# nprocPerNode "4": WORLD_SIZE = 2 pods x 4, RANK the pod.
nodes=2 pod 1 4 8 -- env --for pytorch
expect_env "nprocPerNode 4: one process a pod reads the pods" WORLD_SIZE=2 RANK=1 NODE_RANK=1
nodes=2 pod 1 4 8 -- env --for pytorch --nproc-per-node 4
expect_env "--nproc-per-node 4: WORLD_SIZE x 4 is the operator's, rank RANK x 4 + local" \
	WORLD_SIZE=8 RANK=4 LOCAL_RANK=0 NODE_RANK=1 PET_NNODES=2 PET_NPROC_PER_NODE=4
nodes=2 pod 0 4 8 -- run --for pytorch --nproc-per-node 2 -- sh -c 'echo "$RANK/$WORLD_SIZE/$LOCAL_RANK"'
printf '%s\n' "$out" | sort >"$tmp/sorted"
check_eq "muster run --nproc-per-node 2 in pod 0: ranks 0 and 1 of 4" "$(tr '\n' ' ' <"$tmp/sorted")" \
	"0/4/0 1/4/1 "

# A process a launcher started inside the pod is the launcher's.
pod 0 auto 4 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 WORLD_SIZE=8 RANK=1 NODE_RANK=0 -- env --for pytorch
expect_env "LOCAL_RANK set: the launcher's worker, not the pod" WORLD_SIZE=8 RANK=1

# Half of it, and what does not add up.
on KUBERNETES_SERVICE_HOST=10.96.0.1 PET_NNODES=4 PET_NPROC_PER_NODE=auto MASTER_ADDR=pj-master-0 \
	MASTER_PORT=23456 WORLD_SIZE=4 -- resolve
expect_err "RANK missing: unavail naming it" 2 "platforms(kubeflow): unavail: RANK is not set, but MASTER_ADDR is"
nodes=2 pod 1 4 6 -- resolve
expect_err "WORLD_SIZE neither pods x nprocPerNode nor the pods" 2 \
	"WORLD_SIZE 6 is not PET_NNODES 2 pods times 4 processes (PET_NPROC_PER_NODE=4)"
nodes=2 pod 1 4 2 -- env --for pytorch --nproc-per-node 4
expect_env "WORLD_SIZE of the pods alone: the same pods" WORLD_SIZE=8 RANK=4
pod 4 auto 4 -- resolve
expect_err "RANK past the pods" 2 'RANK must be an index below 4 (PET_NNODES, the pods), not "4"'
pod 1 auto 4 PET_NODE_RANK=3 -- resolve
expect_err "PET_NODE_RANK and RANK disagree" 2 "PET_NODE_RANK is 3 but RANK 1"

# Elastic mode: torchrun's rendezvous numbers the pods.
on KUBERNETES_SERVICE_HOST=10.96.0.1 PET_NNODES=1:4 PET_NPROC_PER_NODE=auto PET_RDZV_BACKEND=c10d \
	PET_RDZV_ENDPOINT=pj-worker-0:23456 PET_RDZV_ID=pj PET_MAX_RESTARTS=3 -- resolve
expect_err "elastic: unavail, pointing at torchrun" 2 "an elastic PyTorchJob (PET_RDZV_ENDPOINT=pj-worker-0:23456)" \
	"run the training under torchrun"

# A master of another name: the workers' names are unknown.
pod 1 auto 4 MASTER_ADDR=trainer-head -- env --for pytorch
expect_env "another master name: env still works" MASTER_ADDR=trainer-head WORLD_SIZE=4 RANK=1
pod 1 auto 4 MASTER_ADDR=trainer-head -- resolve
expect_err "... and resolve names the unknown workers" 2 "kubeflow does not know 3 of the 4" \
	"worker:0, worker:1, worker:2"

# Outside a pod the same variables are a launcher's bare contract.
on PET_NNODES=4 MASTER_ADDR=pj-master-0 MASTER_PORT=23456 WORLD_SIZE=4 RANK=2 -- env --for pytorch
expect_env "no KUBERNETES_SERVICE_HOST: the bare contract, one process a node" \
	MASTER_ADDR=pj-master-0 WORLD_SIZE=4 RANK=2
finish
