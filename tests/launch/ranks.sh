#!/bin/sh
# The launch plan under a scheduler's placement, through the static
# backend's `placement = "processes"`: docs/ranks.md's Slurm vectors
# (S1-S9) give RANK, LOCAL_RANK, NODE_RANK, LOCAL_WORLD_SIZE and WORLD_SIZE
# as Lightning and JAX compute them (SLURM_PROCID, SLURM_LOCALID,
# SLURM_NODEID) and MASTER_ADDR the host of rank 0; the agreed port and its
# rule; PET_* only where true; the hostfile by host; `muster run
# --nproc-per-node 2` giving no two processes one rank.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
unset MUSTER_MASTER_PORT

# shape NAME JOB_ID "HOST..." [ORDER]: a static cluster of processes, one
# task per HOST word, in rank order (each host's ports counting up from
# 8888), job id JOB_ID, node order ORDER (a list such as "n1", "n2").
shape() {
	name=$1 id=$2 hosts=$3 order=${4-}
	tasks= seen=
	for h in $hosts; do
		n=$(printf '%s\n' $seen | grep -c -x "$h" || :)
		tasks="$tasks${tasks:+, }\"$h:$((8888 + n))\""
		seen="$seen $h"
	done
	cat >"$tmp/$name.conf" <<CONF
chain = ( { plugin = "static"; config = {
  jobs = { worker = [ $tasks ]; };
  placement = "processes"; job_id = "$id"; ${order:+node_order = [ $order ];} }; } );
CONF
}

# numbers CONF RANKS...: for each task, "RANK LOCAL_RANK NODE_RANK
# LOCAL_WORLD_SIZE WORLD_SIZE MASTER_ADDR:MASTER_PORT", one line each.
numbers() {
	c=$1
	shift
	for r in "$@"; do
		"$MUSTER_BIN" -c "$c" env --for pytorch --task "worker:$r" --format dotenv \
			>"$tmp/env" 2>"$tmp/err" || { echo "task $r: exit $?: $(cat "$tmp/err")"; continue; }
		(. "$tmp/env" && echo "$RANK $LOCAL_RANK $NODE_RANK $LOCAL_WORLD_SIZE $WORLD_SIZE" \
			"$MASTER_ADDR:$MASTER_PORT")
	done
}

# S1: srun -N4 --ntasks-per-node=2, block, job 123456.
shape s1 123456 "node01 node01 node02 node02 node03 node03 node04 node04"
check_eq "S1: block, 2 per node: rank 5 is local 1 on node 2" "$(numbers "$tmp/s1.conf" 0 5 7)" \
"0 0 0 2 8 node01:19818
5 1 2 2 8 node01:19818
7 1 3 2 8 node01:19818"

# S2: as S1, cyclic.
shape s2 123456 "node01 node02 node03 node04 node01 node02 node03 node04"
check_eq "S2: cyclic: rank 5 is local 1 on node 1" "$(numbers "$tmp/s2.conf" 1 5)" \
"1 0 1 2 8 node01:19818
5 1 1 2 8 node01:19818"

# S3: gpu[07-08],cpu3, one task each, in Slurm's order (not sorted).
shape s3 98765 "gpu07 gpu08 cpu3" '"gpu07", "gpu08", "cpu3"'
check_eq "S3: the node list in Slurm's order: cpu3 is node 2, gpu07 the master" \
	"$(numbers "$tmp/s3.conf" 2)" "2 0 2 1 3 gpu07:1248"

# S4: node[9-10]: rank 0 on node9, which a string sort would put second.
shape s4 7 "node9 node10" '"node9", "node10"'
check_eq "S4: node9 holds rank 0 and is the master" "$(numbers "$tmp/s4.conf" 0 1)" \
"0 0 0 1 2 node9:62862
1 0 1 1 2 node9:62862"

# S5, S7: -n5 -N3, block (plane=2 lays them the same): counts 2,2,1.
shape s5 5 "n1 n1 n2 n2 n3"
check_eq "S5: uneven block, which Lightning refuses, as JAX and SLURM_* say" \
	"$(numbers "$tmp/s5.conf" 0 1 2 3 4 | cut -d' ' -f1-5)" \
"0 0 0 2 5
1 1 0 2 5
2 0 1 2 5
3 1 1 2 5
4 0 2 1 5"

# S6: -n5 -N3 cyclic.
shape s6 5 "n1 n2 n3 n1 n2"
check_eq "S6: uneven cyclic: local ids 0,0,0,1,1, node ids 0,1,2,0,1" \
	"$(numbers "$tmp/s6.conf" 0 1 2 3 4 | cut -d' ' -f1-5)" \
"0 0 0 2 5
1 0 1 2 5
2 0 2 1 5
3 1 0 2 5
4 1 1 2 5"

# S8: a step on n[3-4] of an allocation n[1-4]: the step's own hosts.
shape s8 8 "n3 n4" '"n3", "n4"'
check_eq "S8: the master is in the step" "$(numbers "$tmp/s8.conf" 1 | cut -d' ' -f6 |
	sed 's/:.*//')" "n3"

# S9: -m arbitrary -w n2,n1,n2: the step list sorted (n1 is node 0), rank 0
# on n2, which is the master (JAX's first-of-the-list gives n1).
shape s9 9 "n2 n1 n2" '"n1", "n2"'
check_eq "S9: arbitrary: node ids from Slurm's sorted list, the master where rank 0 is" \
	"$(numbers "$tmp/s9.conf" 0 1 2 | cut -d' ' -f1-6 | sed 's/:.*//')" \
"0 0 1 2 3 n2
1 0 0 1 3 n2
2 1 1 2 3 n2"

# PET_*: torchrun's arguments only where one task per host and equal counts.
run -c "$tmp/s5.conf" env --for pytorch --task worker:0 --format dotenv
expect_status 0 "env, several tasks a host"
if grep -q '^PET_' "$tmp/out"; then fail "no PET_* when tasks share a host"; else
	pass "no PET_* when tasks share a host"; fi
run -c "$tmp/s4.conf" env --for pytorch --task worker:1 --format dotenv
expect_out_match '^PET_NNODES=2$' "PET_NNODES where each host has one task"
expect_out_match '^PET_NODE_RANK=1$' "... PET_NODE_RANK its node"

# JAX: the coordinator on rank 0's host at the agreed port.
port9=$(numbers "$tmp/s9.conf" 0 | sed 's/.*://')
run -c "$tmp/s9.conf" env --for jax --task worker:1 --format dotenv
expect_out "JAX_COORDINATOR_ADDRESS=n2:$port9
JAX_NUM_PROCESSES=3
JAX_PROCESS_ID=1" "jax under S9: coordinator n2, process id the rank"

# The hostfile: hosts in node order, slots the tasks on each.
run -c "$tmp/s9.conf" hostfile --for openmpi
expect_out "n1 slots=1
n2 slots=2" "hostfile: hosts in Slurm's order, slots = tasks on each"
run -c "$tmp/s6.conf" hostfile --for mpich --nproc-per-node 2
expect_out "n1:4
n2:4
n3:2" "hostfile --nproc-per-node 2: each task's share, summed by host"

# The port: MUSTER_MASTER_PORT > the config's master_port > the job id > the
# master task's port.
printf 'master_port = 29500;\n' >"$tmp/port.conf"
cat "$tmp/s1.conf" >>"$tmp/port.conf"
check_eq "master_port in the config beats the job id" \
	"$(numbers "$tmp/port.conf" 0 | cut -d' ' -f6)" "node01:29500"
check_eq "MUSTER_MASTER_PORT beats the config" \
	"$(MUSTER_MASTER_PORT=31000 numbers "$tmp/port.conf" 0 | cut -d' ' -f6)" "node01:31000"
for bad in 0 70000 x 12x -1; do
	MUSTER_MASTER_PORT=$bad run -c "$tmp/s1.conf" env --for pytorch --task worker:0
	expect_status 4 "MUSTER_MASTER_PORT=$bad is refused"
	expect_err_match "^muster: MUSTER_MASTER_PORT: '$bad' is not a port from 1 to 65535$" \
		"... naming the variable, its value and the range"
done
MUSTER_MASTER_PORT=x run -c "$tmp/s1.conf" run --for pytorch -- true
expect_status 4 "run: a bad MUSTER_MASTER_PORT starts nothing"
MUSTER_MASTER_PORT=x run -c "$tmp/s1.conf" env --for tensorflow --task worker:0
expect_status 0 "tensorflow keeps its cluster's ports: MUSTER_MASTER_PORT is not read"
printf 'master_port = 0;\n' >"$tmp/port0.conf"
cat "$tmp/s1.conf" >>"$tmp/port0.conf"
run -c "$tmp/port0.conf" env --for pytorch --task worker:0
expect_status 4 "master_port = 0 in the config"
expect_err_match "port0\.conf:1: 'master_port' must be between 1 and 65535, not 0" \
	"... named with file:line"
sed 's/job_id = "[0-9]*";//' "$tmp/s1.conf" >"$tmp/noid.conf"
check_eq "no job id: the master task's own port" \
	"$(numbers "$tmp/noid.conf" 3 | cut -d' ' -f6)" "node01:8888"

# muster run --nproc-per-node 2 on every task of S5: ten processes, ranks
# 0..9 once each, and on each host local ranks 0..LOCAL_WORLD_SIZE-1 once.
: >"$tmp/all"
for r in 0 1 2 3 4; do
	run -c "$tmp/s5.conf" run --for pytorch --task "worker:$r" --nproc-per-node 2 -- \
		sh -c 'echo "$RANK $LOCAL_RANK $NODE_RANK $LOCAL_WORLD_SIZE $WORLD_SIZE"'
	cat "$tmp/out" >>"$tmp/all"
done
check_eq "run --nproc-per-node 2 on 5 tasks: ranks 0..9, once each" \
	"$(cut -d' ' -f1 "$tmp/all" | sort -n | tr '\n' ' ')" "0 1 2 3 4 5 6 7 8 9 "
check_eq "... each host's local ranks once each, below its local world size" \
	"$(awk '{ print $3, $2, $4 }' "$tmp/all" | sort -n | tr '\n' ';')" \
	"0 0 4;0 1 4;0 2 4;0 3 4;1 0 4;1 1 4;1 2 4;1 3 4;2 0 2;2 1 2;"
check_eq "... one world of 10" "$(cut -d' ' -f5 "$tmp/all" | sort -u)" "10"

# --nproc-per-node gpu on a 3-GPU and a 2-GPU node, as the backend counts
# them (this machine, a sysroot without GPUs, has none to assume): one
# world of 5, ranks 0-2 and 3-4, and no PET_* (torchrun takes one count).
mkdir -p "$tmp/nogpu/dev" "$tmp/nogpu/proc" "$tmp/nogpu/sys"
cat >"$tmp/het.conf" <<'CONF'
chain = ( { plugin = "static"; config = { jobs = { worker = (
  { index = 0; address = "g3:1"; accelerators = { GPU = 3; }; },
  { index = 1; address = "g2:1"; accelerators = { GPU = 2; }; } ); }; }; } );
CONF
for t in 0 1; do
	MUSTER_SYSROOT=$tmp/nogpu run -c "$tmp/het.conf" run --for pytorch --task "worker:$t" \
		--nproc-per-node gpu -- sh -c 'echo "$RANK $WORLD_SIZE $LOCAL_WORLD_SIZE ${PET_NNODES-none}"'
	sort "$tmp/out" >"$tmp/het$t"
done
check_eq "--nproc-per-node gpu, 3 and 2 GPUs: the 3-GPU node's ranks" "$(cat "$tmp/het0")" \
"0 5 3 none
1 5 3 none
2 5 3 none"
check_eq "... the 2-GPU node's, after them" "$(cat "$tmp/het1")" \
"3 5 2 none
4 5 2 none"
MUSTER_SYSROOT=$tmp/nogpu run -c "$tmp/s5.conf" env --for pytorch --task worker:0 \
	--nproc-per-node gpu
expect_status 5 "--nproc-per-node gpu: no count from the backend, no GPU here"
expect_err_match "gives task worker:0 no GPU count, and this machine shows no GPU to assume" \
	"... named"

# The static options are checked where they are written.
cat >"$tmp/badorder.conf" <<'CONF'
chain = ( { plugin = "static"; config = {
  jobs = { worker = [ "n1:1" ]; }; placement = "processes"; node_order = [ "n9" ]; }; } );
CONF
run -c "$tmp/badorder.conf" resolve
expect_status 4 "node_order naming a host no task is on"
expect_err_match "badorder\.conf:2: .*node_order: no task is on host 'n9'" "... named"
sed 's/"processes"/"threads"/' "$tmp/badorder.conf" >"$tmp/badplace.conf"
run -c "$tmp/badplace.conf" resolve
expect_status 4 "an unknown placement"
expect_err_match "placement must be one of nodes, processes, not \"threads\"" "... named"

finish
