#!/bin/sh
# Any launcher's contract (PyTorch's env://: MASTER_ADDR, MASTER_PORT,
# WORLD_SIZE, RANK, with LOCAL_RANK, LOCAL_WORLD_SIZE, NODE_RANK): a
# per-process launcher's worker is the innermost layer (the launcher
# entry); the bare contract without LOCAL_RANK is one process a node (the
# bare entry, last) — never localhost world 1.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/platforms/lib.sh"

# muster run's own workers, with the shipped chain inside them.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 29411)
cat >"$tmp/two.conf" <<CONF
chain = ( { plugin = "static"; config = {
  jobs = { worker = ["127.0.0.1:$port", "node1.example:$port"]; }; }; } );
CONF
inner="$MUSTER_BIN -c $shipped env --for pytorch --format dotenv"
conf=$tmp/two.conf on -- run --for pytorch --task worker:0 --nproc-per-node 2 -- \
	sh -c 'echo "$MASTER_ADDR $MASTER_PORT $WORLD_SIZE $RANK $LOCAL_RANK $LOCAL_WORLD_SIZE $GROUP_RANK $NODE_RANK / $($0 | grep -E "^(MASTER_ADDR|MASTER_PORT|WORLD_SIZE|RANK|LOCAL_RANK|LOCAL_WORLD_SIZE|GROUP_RANK|NODE_RANK)=" | cut -d= -f2 | tr "\n" " ")"' \
	"$inner"
printf '%s\n' "$out" | sort >"$tmp/sorted"
check_eq "muster env inside muster run's workers gives what muster run gave them" \
	"$(cat "$tmp/sorted")" "127.0.0.1 $port 4 0 0 2 0 0 / 127.0.0.1 $port 4 0 0 2 0 0 
127.0.0.1 $port 4 1 1 2 0 0 / 127.0.0.1 $port 4 1 1 2 0 0 "

# muster run --for jax's workers, inside a Slurm step: JAX's contract.
inner="$MUSTER_BIN -c $shipped env --for jax --format dotenv"
conf=$tmp/two.conf on SLURM_JOB_ID=12 SLURM_PROCID=0 SLURM_NTASKS=1 SLURM_STEP_NODELIST=n0 -- \
	run --for jax --task worker:0 --nproc-per-node 2 -- \
	sh -c 'echo "$JAX_COORDINATOR_ADDRESS $JAX_NUM_PROCESSES $JAX_PROCESS_ID / $($0 | grep -E "^JAX_(COORDINATOR_ADDRESS|NUM_PROCESSES|PROCESS_ID)=" | cut -d= -f2 | tr "\n" " ")"' \
	"$inner"
printf '%s\n' "$out" | sort >"$tmp/sorted"
check_eq "muster env --for jax inside muster run --for jax's workers (in a Slurm step)" \
	"$(cat "$tmp/sorted")" "127.0.0.1:$port 4 0 / 127.0.0.1:$port 4 0 
127.0.0.1:$port 4 1 / 127.0.0.1:$port 4 1 "

# accelerate / DeepSpeed style: the whole per-process contract.
on MASTER_ADDR=10.0.0.4 MASTER_PORT=29500 WORLD_SIZE=8 RANK=5 LOCAL_RANK=1 LOCAL_WORLD_SIZE=4 \
	SLURM_JOB_ID=12 SLURM_PROCID=1 SLURM_NTASKS=2 -- env --for pytorch
expect_env "a launcher's worker inside a Slurm step is the launcher's" MASTER_ADDR=10.0.0.4 \
	MASTER_PORT=29500 WORLD_SIZE=8 RANK=5 LOCAL_RANK=1 LOCAL_WORLD_SIZE=4 NODE_RANK=1
on MASTER_ADDR=10.0.0.4 MASTER_PORT=29500 WORLD_SIZE=8 RANK=5 LOCAL_RANK=1 LOCAL_WORLD_SIZE=4 -- resolve
expect_err "resolve names the other node's processes" 2 "launcher does not know 4 of the 8 (worker:4, worker:5, worker:6, ...)"
on MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 WORLD_SIZE=2 RANK=1 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 -- resolve
expect_json '{"cluster":{"worker":["127.0.0.1:29500","127.0.0.1:29501"]},"task":{"type":"worker","index":1}}' \
	"one node: every process at the master's host"
on MASTER_ADDR=10.0.0.4 MASTER_PORT=29500 WORLD_SIZE=8 RANK=6 LOCAL_RANK=2 NODE_RANK=1 -- env --for pytorch
expect_env "no LOCAL_WORLD_SIZE: (RANK - LOCAL_RANK) / NODE_RANK a node" RANK=6 WORLD_SIZE=8 \
	LOCAL_RANK=2 LOCAL_WORLD_SIZE=4 NODE_RANK=1
on MASTER_ADDR=10.0.0.4 MASTER_PORT=29500 WORLD_SIZE=4 RANK=3 LOCAL_RANK=1 -- resolve
expect_err "LOCAL_RANK alone: the processes a node are unknown" 2 \
	"platforms(launcher): unavail: LOCAL_RANK is set but not LOCAL_WORLD_SIZE nor NODE_RANK"
on MASTER_ADDR=10.0.0.4 MASTER_PORT=29500 WORLD_SIZE=8 RANK=5 LOCAL_RANK=2 LOCAL_WORLD_SIZE=4 -- resolve
expect_err "LOCAL_RANK against RANK" 2 "LOCAL_RANK is 2, but RANK 5 is process 1 of its node with 4 per node"
on MASTER_ADDR=10.0.0.4 MASTER_PORT=29500 WORLD_SIZE=6 RANK=5 LOCAL_RANK=1 LOCAL_WORLD_SIZE=4 -- resolve
expect_err "nodes of different sizes" 2 "WORLD_SIZE 6 is not a multiple of LOCAL_WORLD_SIZE 4"
on MASTER_ADDR=10.0.0.4 WORLD_SIZE=2 RANK=1 LOCAL_RANK=0 -- resolve
expect_err "a launcher's partial contract is the bare entry's: unavail" 2 \
	"platforms(bare): unavail: MASTER_PORT is not set, but MASTER_ADDR is"

# The bare contract, as Alibaba PAI's or Baidu AIHC's pods have it: the
# pods, one process each.
pod() {
	n=$1
	shift
	on MASTER_ADDR=dlc1x-master-0 MASTER_PORT=23456 WORLD_SIZE=3 RANK="$n" NPROC_PER_NODE=8 "$@"
}
pod 2 -- env --for pytorch
expect_env "the bare contract: WORLD_SIZE nodes, RANK this one" MASTER_ADDR=dlc1x-master-0 \
	MASTER_PORT=23456 WORLD_SIZE=3 RANK=2
pod 2 -- env --for pytorch --nproc-per-node 8
expect_env "--nproc-per-node 8: 24 processes, this node's from 16" WORLD_SIZE=24 RANK=16 \
	LOCAL_RANK=0 LOCAL_WORLD_SIZE=8 NODE_RANK=2
pod 0 -- run --for pytorch -- sh -c 'echo "$MASTER_ADDR $WORLD_SIZE $RANK"'
expect "muster run in the master's pod: never localhost world 1" 0 "dlc1x-master-0 3 0"
pod 3 -- resolve
expect_err "RANK past WORLD_SIZE" 2 'RANK must be an index below 3 (WORLD_SIZE), not "3"'
pod 2 NODE_RANK=1 -- resolve
expect_err "NODE_RANK against one process a node" 2 "NODE_RANK is 1, but RANK 2 is on node 2 with 1 processes per node"
on MASTER_ADDR=localhost MASTER_PORT=29500 -- resolve
expect_err "half of the contract: unavail naming what is missing" 2 \
	"platforms(bare): unavail: WORLD_SIZE is not set, but MASTER_ADDR is"
on RANK=0 -- resolve
expect_err "RANK alone" 2 "MASTER_ADDR is not set, but RANK is"
on MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 WORLD_SIZE=1 RANK=0 -- resolve
expect_json '{"cluster":{"worker":["127.0.0.1:29500"]},"task":{"type":"worker","index":0}}' \
	"a world of one is the launcher's too, at its master"
finish
