#!/bin/sh
# A torchrun worker's environment as torchrun's agent sets it
# (LocalElasticAgent._start_workers): the launch that started this process,
# as processes, the master torchrun's; half of it is unavail; muster run
# refuses to nest inside it.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/platforms/lib.sh"

# Worker 5 of 8: node 1 of 2, four workers a node (c10d rendezvous).
worker() {
	on TORCHELASTIC_RUN_ID=none TORCHELASTIC_RESTART_COUNT=0 TORCHELASTIC_MAX_RESTARTS=0 \
		TORCHELASTIC_USE_AGENT_STORE=True TORCH_NCCL_ASYNC_ERROR_HANDLING=1 OMP_NUM_THREADS=1 \
		RANK=5 WORLD_SIZE=8 LOCAL_RANK=1 LOCAL_WORLD_SIZE=4 GROUP_RANK=1 GROUP_WORLD_SIZE=2 \
		ROLE_RANK=5 ROLE_WORLD_SIZE=8 ROLE_NAME=default MASTER_ADDR=node0.example \
		MASTER_PORT=29500 "$@"
}

worker -- env --for pytorch
expect_env "a torchrun worker: torchrun's master, ranks and world" MASTER_ADDR=node0.example \
	MASTER_PORT=29500 WORLD_SIZE=8 RANK=5 LOCAL_RANK=1 LOCAL_WORLD_SIZE=4 GROUP_RANK=1 NODE_RANK=1
if grep -q '^export PET_' "$tmp/out"; then
	fail "no torchrun arguments inside a torchrun worker"
else
	pass "no torchrun arguments inside a torchrun worker"
fi

worker -- master --task worker:0
expect "rank 0 is at the master's address and port" 0 "node0.example:29500"

worker -- resolve
expect_err "resolve: the other node's workers have no known address" 2 \
	"a cluster spec needs every task's address, but torchrun does not know 4 of the 8" \
	"(worker:4, worker:5, worker:6, ...)"

worker -- tf-config --task worker:5
expect_err "tf-config names what is missing too" 2 "TF_CONFIG needs every task's address"

# One node: every worker is at the master's host, and resolve works.
on TORCHELASTIC_RUN_ID=abc RANK=2 WORLD_SIZE=3 LOCAL_RANK=2 LOCAL_WORLD_SIZE=3 GROUP_RANK=0 \
	GROUP_WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=29400 -- resolve
expect_json '{"cluster":{"worker":["127.0.0.1:29400","127.0.0.1:29401","127.0.0.1:29402"]},"task":{"type":"worker","index":2}}' \
	"one node: three workers at the master's host, this one rank 2"

# --virtual-local-rank: LOCAL_RANK is 0 for every worker.
on TORCHELASTIC_RUN_ID=none RANK=6 WORLD_SIZE=8 LOCAL_RANK=0 LOCAL_WORLD_SIZE=4 GROUP_RANK=1 \
	GROUP_WORLD_SIZE=2 MASTER_ADDR=node0 MASTER_PORT=29500 -- env --for pytorch
expect_env "--virtual-local-rank: the worker keeps its rank, and learns its place" RANK=6 \
	WORLD_SIZE=8 LOCAL_RANK=2 NODE_RANK=1

# An older torchrun without GROUP_WORLD_SIZE.
on TORCHELASTIC_RUN_ID=none RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 GROUP_RANK=0 \
	MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 -- resolve
expect_json '{"cluster":{"worker":["127.0.0.1:29500","127.0.0.1:29501"]},"task":{"type":"worker","index":1}}' \
	"no GROUP_WORLD_SIZE: WORLD_SIZE / LOCAL_WORLD_SIZE nodes"

# Half of it: a process that inherited the run id.
on TORCHELASTIC_RUN_ID=none RANK=1 -- resolve
expect_err "TORCHELASTIC_RUN_ID without the rest is unavail, naming what is missing" 2 \
	"platforms(torchrun): unavail: TORCHELASTIC_RUN_ID is set but WORLD_SIZE is not"

# Bad values, each named.
worker RANK=8 -- resolve
expect_err "RANK past WORLD_SIZE" 2 'RANK must be an index below 8 (WORLD_SIZE), not "8"'
worker MASTER_PORT=0 -- resolve
expect_err "MASTER_PORT 0" 2 'MASTER_PORT must be an integer from 1 to 65535, not "0"'
worker MASTER_ADDR='a b' -- resolve
expect_err "MASTER_ADDR with a blank" 2 'MASTER_ADDR must be a host name or IP address'
worker LOCAL_WORLD_SIZE=3 -- resolve
expect_err "nodes with different worker counts cannot be laid out" 2 \
	"torchrun's nodes run different numbers of workers"

# Innermost first: a torchrun worker inside a Slurm step inside a
# PyTorchJob pod is torchrun's.
worker SLURM_JOB_ID=7 SLURM_PROCID=0 SLURM_NTASKS=2 KUBERNETES_SERVICE_HOST=10.0.0.1 \
	PET_NNODES=2 TF_CONFIG='{' -- env --for pytorch
expect_env "inside a Slurm step and a pod, the torchrun worker answers" RANK=5 WORLD_SIZE=8 \
	LOCAL_RANK=1 NODE_RANK=1

# muster run refuses to start processes under each of torchrun's.
worker -- run --for pytorch -- true
expect_err "muster run inside a torchrun worker refuses to nest" 64 \
	"run: this process is a torchrun worker (TORCHELASTIC_RUN_ID is set)" "--allow-nested"
on TORCHELASTIC_RUN_ID=none RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 GROUP_RANK=0 \
	GROUP_WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 -- \
	run --allow-nested --for pytorch -- sh -c 'echo "$RANK/$WORLD_SIZE"'
expect "--allow-nested runs it" 0 "0/1"

# MUSTER_NO_DETECT leaves the explicit entries: localhost.
worker MUSTER_NO_DETECT=1 -- resolve
expect_json '{"cluster":{"worker":["localhost:2222"]},"task":{"type":"worker","index":0},"rpc_layer":"grpc"}' \
	"MUSTER_NO_DETECT=1: the detectors stand aside"
finish
