#!/bin/sh
# The slurm backend under the variables Slurm gives a task: TensorFlow's
# own SlurmClusterResolver cases (order = "tensorflow"), Slurm's node order
# and task distributions against what Lightning and JAX compute
# (docs/ranks.md's vectors), the step/batch difference, GPUs, and bad
# input answered unavail (exit 2) naming the variable at fault.
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/slurm/lib.sh"

T3='SLURM_STEP_NODELIST=t02n13,t02n41,t02n43'
tf=$(conf tf 'order = "tensorflow";')

# --- TensorFlow's test cases, in its order ------------------------------
slurm "$tf" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=3 SLURM_STEP_TASKS_PER_NODE='1(x3)' "$T3" \
	CUDA_VISIBLE_DEVICES=0
expect_result "retrieval from the environment" 0 \
	'{"cluster":{"worker":["t02n13:8888","t02n41:8888","t02n43:8888"]},"task":{"type":"worker","index":0},"rpc_layer":"grpc","accelerators":{"worker":{"0":{"GPU":1},"1":{"GPU":1},"2":{"GPU":1}}},"accelerator_ids":{"worker":{"0":[0],"1":[0],"2":[0]}}}'
slurm "$tf" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=3 SLURM_STEP_TASKS_PER_NODE='1(x3)' "$T3" \
	-- master --task worker:0 --rpc-layer grpc
expect "master of worker 0" "$EX_OK" "grpc://t02n13:8888"

fixed=$(conf fixed 'order = "tensorflow"; jobs = { ps = 1; worker = 2; }; port_base = 8888; tasks_per_node = 1;
	gpus_per_node = 1; gpus_per_task = 1; auto_set_gpu = false;')
slurm "$fixed" SLURM_PROCID=0 "$T3"
expect_result "jobs, tasks_per_node and GPUs as options" 0 \
	'{"cluster":{"ps":["t02n13:8888"],"worker":["t02n41:8888","t02n43:8888"]},"task":{"type":"ps","index":0},"rpc_layer":"grpc","accelerators":{"ps":{"0":{"GPU":1}},"worker":{"0":{"GPU":1},"1":{"GPU":1}}}}'
slurm "$fixed" SLURM_PROCID=0 "$T3" -- master --task worker:0
expect "master of worker 0 with grpc" "$EX_OK" "grpc://t02n41:8888"
slurm "$fixed" SLURM_PROCID=2 "$T3" -- master
expect "own master" "$EX_OK" "grpc://t02n43:8888"

# Jobs take the tasks in name order whatever order the config writes them
# in: ps, written last, gets the first task.
order=$(conf order 'order = "tensorflow"; jobs = { worker = 2; ps = 1; };')
slurm "$order" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=3 'SLURM_STEP_NODELIST=n[1-3]' \
	SLURM_STEP_TASKS_PER_NODE='1(x3)'
expect_result "jobs in name order, not config order" 0 \
	'{"cluster":{"ps":["n1:8888"],"worker":["n2:8888","n3:8888"]},"task":{"type":"ps","index":0},"rpc_layer":"grpc"}'

# tasks_per_node as a group: these hosts and counts; the step's host and
# count variables are not read (so malformed ones do not matter).
tpn=$(conf tpn 'order = "tensorflow"; tasks_per_node = { n1 = 2; n2 = 1; };')
slurm "$tpn" SLURM_PROCID=2 SLURM_STEP_NUM_TASKS=3 'SLURM_STEP_NODELIST=bad[' \
	SLURM_STEP_TASKS_PER_NODE=x
expect_result "tasks_per_node as a group: no host or count variable read" 0 \
	'{"cluster":{"worker":["n1:8888","n1:8889","n2:8888"]},"task":{"type":"worker","index":2},"rpc_layer":"grpc"}'

rpc=$(conf rpc 'order = "tensorflow"; rpc_layer = "grpc+verbs";')
slurm "$rpc" SLURM_PROCID=2 SLURM_STEP_NUM_TASKS=3 SLURM_STEP_TASKS_PER_NODE='1(x3)' "$T3"
expect_result "rpc_layer" 0 \
	'{"cluster":{"worker":["t02n13:8888","t02n41:8888","t02n43:8888"]},"task":{"type":"worker","index":2},"rpc_layer":"grpc+verbs"}'
slurm "$rpc" SLURM_PROCID=2 SLURM_STEP_NUM_TASKS=3 SLURM_STEP_TASKS_PER_NODE='1(x3)' "$T3" -- master
expect "rpc_layer: the master's scheme" "$EX_OK" "grpc+verbs://t02n43:8888"

mtpn=$(conf mtpn 'order = "tensorflow"; jobs = { ps = 1; worker = 4; }; gpus_per_node = 2; gpus_per_task = 1;')
slurm "$mtpn" SLURM_PROCID=1 "$T3" SLURM_STEP_TASKS_PER_NODE='2(x2),1'
expect_result "tasks per node from the environment" 0 \
	'{"cluster":{"ps":["t02n13:8888"],"worker":["t02n13:8889","t02n41:8888","t02n41:8889","t02n43:8888"]},"task":{"type":"worker","index":0},"rpc_layer":"grpc","accelerators":{"ps":{"0":{"GPU":1}},"worker":{"0":{"GPU":1},"1":{"GPU":1},"2":{"GPU":1},"3":{"GPU":1}}},"accelerator_ids":{"ps":{"0":[0]},"worker":{"0":[1],"1":[0],"2":[1],"3":[0]}}}'

mgpu=$(conf mgpu 'order = "tensorflow"; jobs = { ps = 1; worker = 4; }; gpus_per_node = 4; gpus_per_task = 2;')
slurm "$mgpu" SLURM_PROCID=1 "$T3" SLURM_STEP_TASKS_PER_NODE='2(x2),1' -- accelerators
expect "several GPUs per task: the own task's count" "$EX_OK" '{"GPU":2}'
slurm "$mgpu" SLURM_PROCID=1 "$T3" SLURM_STEP_TASKS_PER_NODE='2(x2),1'
expect_out_has "rank 1 gets GPUs 2,3" '"worker":{"0":[2,3],'

# --- Slurm's own forms ---------------------------------------------------
# forms CONF WHAT HOST...: the step n[8-10],gpu[01-02]x[1] of one task a
# node (the last none), its workers on these hosts in rank order.
forms() {
	c=$1 what=$2
	shift 2
	want=$(i=0; for h in "$@"; do echo "worker $i $h:8888"; i=$((i + 1)); done)
	slurm "$c" SLURM_PROCID=3 SLURM_STEP_NUM_TASKS=4 SLURM_STEP_NODELIST='n[8-10],gpu[01-02]x[1]' \
		SLURM_STEP_TASKS_PER_NODE='1(x4),0' -- resolve --format text
	expect "$what, bracket groups, zero padding, a node of 0 tasks" "$EX_OK" "$want
task: worker 3
rpc_layer: grpc
source: slurm"
}
forms "$tf" "tensorflow: hosts sorted as strings" gpu01x1 n10 n8 n9
forms "$plain" "Slurm's order: the list as written" n8 n9 n10 gpu01x1
slurm "$tf" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=3 SLURM_STEP_NODELIST='t1,t1,t2' \
	SLURM_STEP_TASKS_PER_NODE='1,2,1' -- resolve --format text
expect "tensorflow: a host listed twice keeps its last count (TensorFlow's dict)" "$EX_OK" \
	'worker 0 t1:8888
worker 1 t1:8889
worker 2 t2:8888
task: worker 0
rpc_layer: grpc
source: slurm'
slurm "$plain" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=4 SLURM_STEP_NODELIST='t2,t1,t2' \
	SLURM_STEP_TASKS_PER_NODE='1,2,1'
expect_err "Slurm's order: a host listed twice is refused" "$EX_UNAVAIL" \
	"SLURM_STEP_NODELIST names host t2 twice (hosts 1 and 3 of the list)"
badorder=$(conf badorder 'order = "sorted";')
slurm "$badorder" SLURM_PROCID=0
expect_err "order must be slurm or tensorflow" "$EX_CONFIG" "order"

# --- Slurm's order and distributions: docs/ranks.md's vectors ------------
# Each task's ranks as `muster env` numbers them are what Lightning and
# JAX compute from its own variables (peers.py); the layout, node order
# and job id besides (tests/hpc/placement).
s1='SLURM_JOB_ID=123456 SLURM_STEP_NODELIST=node[01-04] SLURM_NODELIST=node[01-04]
	SLURM_STEP_TASKS_PER_NODE=2(x4) SLURM_STEP_NUM_TASKS=8 SLURM_NTASKS=8 SLURM_NTASKS_PER_NODE=2'
# shellcheck disable=SC2086
expect_ranks "S1 block, rank 5: node 2, local 1" "$plain" $s1 SLURM_PROCID=5 SLURM_LOCALID=1 \
	SLURM_NODEID=2 SLURMD_NODENAME=node03
# shellcheck disable=SC2086
placed "$plain" $s1 SLURM_PROCID=5 SLURM_LOCALID=1 SLURM_NODEID=2 SLURMD_NODENAME=node03
check_eq "S1: a scheduler's processes, Slurm's node order, the job id" \
	"$(printf '%s\n' "$out" | sed -n '1,4p')" "placement processes
nodes node01 node02 node03 node04
job 123456
task worker 5"
# shellcheck disable=SC2086
slurm "$plain" $s1 SLURM_PROCID=5 -- env --for pytorch --format dotenv
expect_out_has "S1: the master port derives from SLURM_JOB_ID, not the tasks' 8888" \
	"MASTER_PORT=19818"
# shellcheck disable=SC2086
expect_ranks "S2 cyclic, rank 5: node 1, local 1" "$plain" $s1 SLURM_DISTRIBUTION=cyclic \
	SLURM_PROCID=5 SLURM_LOCALID=1 SLURM_NODEID=1 SLURMD_NODENAME=node02
# shellcheck disable=SC2086
slurm "$plain" $s1 SLURM_DISTRIBUTION=cyclic SLURM_PROCID=5 SLURM_LOCALID=1 SLURM_NODEID=1 \
	SLURMD_NODENAME=node02
expect_result "S2: rank r on node r mod 4, port 8888 + r div 4" 0 \
	'{"cluster":{"worker":["node01:8888","node02:8888","node03:8888","node04:8888","node01:8889","node02:8889","node03:8889","node04:8889"]},"task":{"type":"worker","index":5},"rpc_layer":"grpc"}'
expect_ranks "S3 gpu[07-08],cpu3: cpu3 is node 2, gpu07 the master" "$plain" SLURM_JOB_ID=98765 \
	'SLURM_STEP_NODELIST=gpu[07-08],cpu3' 'SLURM_NODELIST=gpu[07-08],cpu3' \
	'SLURM_STEP_TASKS_PER_NODE=1(x3)' SLURM_STEP_NUM_TASKS=3 SLURM_NTASKS=3 SLURM_PROCID=2 \
	SLURM_LOCALID=0 SLURM_NODEID=2 SLURMD_NODENAME=cpu3
slurm "$plain" SLURM_PROCID=0 'SLURM_STEP_NODELIST=gpu[07-08],cpu3' \
	'SLURM_STEP_TASKS_PER_NODE=1(x3)' SLURM_STEP_NUM_TASKS=3 -- master --task worker:0
expect "S3: worker 0 is gpu07" "$EX_OK" "grpc://gpu07:8888"
expect_ranks "S4 node[9-10]: rank 0 on node9" "$plain" SLURM_JOB_ID=7 \
	'SLURM_STEP_NODELIST=node[9-10]' 'SLURM_NODELIST=node[9-10]' 'SLURM_STEP_TASKS_PER_NODE=1(x2)' \
	SLURM_STEP_NUM_TASKS=2 SLURM_NTASKS=2 SLURM_PROCID=0 SLURM_LOCALID=0 SLURM_NODEID=0 \
	SLURMD_NODENAME=node9
placed "$plain" SLURM_JOB_ID=7 'SLURM_STEP_NODELIST=node[9-10]' 'SLURM_STEP_TASKS_PER_NODE=1(x2)' \
	SLURM_STEP_NUM_TASKS=2 SLURM_PROCID=0
check_eq "S4: the node order is Slurm's, not sorted" "$(printf '%s\n' "$out" | sed -n 2p)" \
	"nodes node9 node10"
# S5-S7: -n5 over n[1-3], 2, 2 and 1 tasks: every task of each distribution.
s5='SLURM_JOB_ID=5 SLURM_STEP_NODELIST=n[1-3] SLURM_NODELIST=n[1-3] SLURM_STEP_TASKS_PER_NODE=2(x2),1
	SLURM_STEP_NUM_TASKS=5 SLURM_NTASKS=5'
# vector NAME "DISTRIBUTION VARIABLES" "RANK:NODE:LOCAL"...
vector() {
	name=$1
	dist=$2
	shift 2
	for t in "$@"; do
		r=${t%%:*}
		n=${t#*:}
		n=${n%%:*}
		l=${t##*:}
		# shellcheck disable=SC2086
		expect_ranks "$name rank $r: node $n, local $l" "$plain" $s5 $dist SLURM_PROCID="$r" \
			SLURM_NODEID="$n" SLURM_LOCALID="$l" SLURMD_NODENAME="n$((n + 1))"
	done
}
vector S5 "" 0:0:0 1:0:1 2:1:0 3:1:1 4:2:0
vector S6 SLURM_DISTRIBUTION=cyclic 0:0:0 1:1:0 2:2:0 3:0:1 4:1:1
vector S7 "SLURM_DISTRIBUTION=plane SLURM_DIST_PLANESIZE=2" 0:0:0 1:0:1 2:1:0 3:1:1 4:2:0
vector "S7 (plane=2 in one)" SLURM_DISTRIBUTION=plane=2 4:2:0
vector "block:cyclic,pack (only the first level places)" 'SLURM_DISTRIBUTION=block:cyclic,pack' \
	1:0:1
vector "cyclic:block" 'SLURM_DISTRIBUTION=cyclic:block' 3:0:1
expect_ranks "S8: the step's first node is the master, not the allocation's" "$plain" \
	SLURM_JOB_ID=8 'SLURM_STEP_NODELIST=n[3-4]' 'SLURM_NODELIST=n[1-4]' \
	'SLURM_STEP_TASKS_PER_NODE=1(x2)' SLURM_STEP_NUM_TASKS=2 SLURM_NTASKS=2 SLURM_PROCID=1 \
	SLURM_LOCALID=0 SLURM_NODEID=1 SLURMD_NODENAME=n4
# S9: -m arbitrary -w n2,n1,n2: the step list is Slurm's sorted n[1-2],
# rank 0 runs on n2 (node 1), the master; only the inherited list says so.
s9='SLURM_JOB_ID=9 SLURM_DISTRIBUTION=arbitrary SLURM_STEP_NODELIST=n[1-2] SLURM_NODELIST=n[1-2]
	SLURM_STEP_TASKS_PER_NODE=1,2 SLURM_STEP_NUM_TASKS=3 SLURM_NTASKS=3'
for t in 0:1:0 1:0:0 2:1:1; do
	r=${t%%:*} n=${t#*:} l=${t##*:}
	n=${n%%:*}
	# shellcheck disable=SC2086
	expect_ranks "S9 arbitrary rank $r: node $n, local $l, the master n2" "$plain" $s9 \
		SLURM_ARBITRARY_NODELIST=n2,n1,n2 SLURM_PROCID="$r" SLURM_NODEID="$n" \
		SLURM_LOCALID="$l" SLURMD_NODENAME="n$((n + 1))"
done
# shellcheck disable=SC2086
placed "$plain" $s9 SLURM_ARBITRARY_NODELIST=n2,n1,n2 SLURM_PROCID=0
check_eq "S9: the node order is the step list's" "$(printf '%s\n' "$out" | sed -n 2p)" "nodes n1 n2"
# A Slurm host file (SLURM_HOSTFILE) as Slurm reads it: comments, "*N".
printf '# the job\nn2 # first\n\nn1,n2*1\nn9\n' >"$tmp/hostfile"
# shellcheck disable=SC2086
expect_ranks "S9 from SLURM_HOSTFILE: comments, name*N, the tasks' entries only" "$plain" $s9 \
	SLURM_HOSTFILE="$tmp/hostfile" SLURM_ARBITRARY_NODELIST=n2,n1,n2 SLURM_PROCID=2 \
	SLURM_NODEID=1 SLURM_LOCALID=1 SLURMD_NODENAME=n2
# shellcheck disable=SC2086
slurm "$plain" $s9 SLURM_HOSTFILE="$tmp/hostfile" SLURM_PROCID=2 SLURMD_NODENAME=n2
expect_result "SLURM_HOSTFILE: task r on the r-th host" 0 \
	'{"cluster":{"worker":["n2:8888","n1:8888","n2:8889"]},"task":{"type":"worker","index":2},"rpc_layer":"grpc"}'

# Where Slurm says the task runs must be where the layout puts it.
# shellcheck disable=SC2086
slurm "$plain" $s1 SLURM_PROCID=5 SLURMD_NODENAME=node02
expect_err "SLURMD_NODENAME another host: both named" "$EX_UNAVAIL" \
	"SLURMD_NODENAME is node02 but task 5 (SLURM_PROCID) runs on node03, as SLURM_STEP_TASKS_PER_NODE '2(x4)' and block (the default) lay out the tasks on SLURM_STEP_NODELIST"
# shellcheck disable=SC2086
slurm "$plain" $s1 SLURM_DISTRIBUTION=cyclic SLURM_PROCID=5 SLURM_NODEID=2
expect_err "SLURM_NODEID another node" "$EX_UNAVAIL" \
	"SLURM_NODEID is 2 but task 5 (SLURM_PROCID) runs on node 1 (node02)"
# shellcheck disable=SC2086
slurm "$plain" $s1 SLURM_PROCID=5 SLURM_LOCALID=0
expect_err "SLURM_LOCALID another place" "$EX_UNAVAIL" \
	"SLURM_LOCALID is 0 but task 5 (SLURM_PROCID) is task 1 of its node node03"
# shellcheck disable=SC2086
slurm "$plain" $s1 SLURM_PROCID=5 SLURM_NODEID=x
expect_err "SLURM_NODEID not a number" "$EX_UNAVAIL" "SLURM_NODEID must be an integer"
# shellcheck disable=SC2086
slurm "$plain" $s1 SLURM_PROCID=5 SLURM_DISTRIBUTION=plane
expect_err "plane without a size" "$EX_UNAVAIL" \
	"SLURM_DISTRIBUTION is plane but SLURM_DIST_PLANESIZE is not set"
# shellcheck disable=SC2086
slurm "$plain" $s1 SLURM_PROCID=5 SLURM_DISTRIBUTION=plane=0
expect_err "plane=0" "$EX_UNAVAIL" "the plane size must be an integer from 1"
# shellcheck disable=SC2086
slurm "$plain" $s1 SLURM_PROCID=5 SLURM_DISTRIBUTION=diagonal
expect_err "an unknown distribution" "$EX_UNAVAIL" \
	'SLURM_DISTRIBUTION "diagonal": the first level must be block, cyclic, plane or arbitrary'
# shellcheck disable=SC2086
slurm "$plain" $s9 SLURM_PROCID=0
expect_err "arbitrary with no task list: unavail naming the variables" "$EX_UNAVAIL" \
	"SLURM_DISTRIBUTION is arbitrary but neither SLURM_ARBITRARY_NODELIST nor SLURM_HOSTFILE says where each task runs"
# shellcheck disable=SC2086
slurm "$plain" $s9 SLURM_PROCID=0 SLURM_HOSTFILE="$tmp/missing"
expect_err "arbitrary with an unreadable SLURM_HOSTFILE" "$EX_UNAVAIL" \
	"SLURM_HOSTFILE $tmp/missing cannot be read: No such file or directory"
# shellcheck disable=SC2086
slurm "$plain" $s9 SLURM_PROCID=0 SLURM_ARBITRARY_NODELIST=n1,n2
expect_err "a task list shorter than the step" "$EX_UNAVAIL" \
	"SLURM_ARBITRARY_NODELIST names 2 hosts for the 3 tasks of an arbitrary step"
# shellcheck disable=SC2086
slurm "$plain" $s9 SLURM_PROCID=0 SLURM_ARBITRARY_NODELIST=n1,n1,n2
expect_err "another step's task list (inherited)" "$EX_UNAVAIL" \
	"SLURM_ARBITRARY_NODELIST puts 2 of the first 3 tasks on n1 but SLURM_STEP_TASKS_PER_NODE '1,2' gives it 1"
# shellcheck disable=SC2086
slurm "$plain" $s9 SLURM_PROCID=0 SLURM_ARBITRARY_NODELIST=n2,n3,n2
expect_err "a task on a node outside the step" "$EX_UNAVAIL" \
	"SLURM_ARBITRARY_NODELIST puts task 1 on n3, which is not a node of SLURM_STEP_NODELIST"
printf 'n2,*1\n' >"$tmp/nameless"
# shellcheck disable=SC2086
slurm "$plain" $s9 SLURM_PROCID=0 SLURM_HOSTFILE="$tmp/nameless"
expect_err "a host file's \"*N\" without a name" "$EX_UNAVAIL" \
	"SLURM_HOSTFILE $tmp/nameless: line 1: \"*1\" repeats no host name"
printf 'n2\n-n1\n' >"$tmp/badfile"
# shellcheck disable=SC2086
slurm "$plain" $s9 SLURM_PROCID=0 SLURM_HOSTFILE="$tmp/badfile"
expect_err "a host file line Slurm refuses" "$EX_UNAVAIL" \
	"SLURM_HOSTFILE $tmp/badfile: line 2 does not start with a host name"
# shellcheck disable=SC2086
slurm "$plain" $s1 SLURM_PROCID=5 SLURM_DISTRIBUTION=cyclic SLURMD_NODENAME=node02 -- resolve --format text
expect_out_has "the own task's address is the host it runs on" "task: worker 5"
# The job id is noted with the rest of what decided, for --explain.
# shellcheck disable=SC2086
placed "$plain" $s1 SLURM_PROCID=5 SLURM_DISTRIBUTION=cyclic
expect_out_has "inputs noted: the distribution" "input SLURM_DISTRIBUTION=cyclic"
expect_out_has "inputs noted: the node list" "input SLURM_STEP_NODELIST=node[01-04]"
expect_out_has "inputs noted: an unset SLURMD_NODENAME" "input SLURMD_NODENAME=(unset)"

# A batch script has no step: the job's variables, documented.
slurm "$plain" SLURM_JOB_ID=7 SLURM_PROCID=0 SLURM_JOB_NODELIST='b[1-2]' SLURM_NTASKS=2 \
	SLURM_TASKS_PER_NODE='1(x2)' -- resolve --format text
expect "job-level variables without a step" "$EX_OK" 'worker 0 b1:8888
worker 1 b2:8888
task: worker 0
rpc_layer: grpc
source: slurm'
slurm "$plain" SLURM_JOB_ID=7 SLURM_PROCID=0 SLURM_NODELIST='b1' SLURM_TASKS_PER_NODE='2' \
	-- resolve --format text
expect "without SLURM_NTASKS a batch job has its slots' tasks" "$EX_OK" 'worker 0 b1:8888
worker 1 b1:8889
task: worker 0
rpc_layer: grpc
source: slurm'

# --- GPUs from the allocation --------------------------------------------
step2='SLURM_STEP_NUM_TASKS=4 SLURM_STEP_NODELIST=g[1-2] SLURM_STEP_TASKS_PER_NODE=2(x2)'
# shellcheck disable=SC2086
slurm "$plain" SLURM_PROCID=1 $step2 SLURM_GPUS_ON_NODE=4 CUDA_VISIBLE_DEVICES=4,5,6,7
expect_result "Slurm's GPU ids, split by local rank" 0 \
	'{"cluster":{"worker":["g1:8888","g1:8889","g2:8888","g2:8889"]},"task":{"type":"worker","index":1},"rpc_layer":"grpc","accelerators":{"worker":{"0":{"GPU":2},"1":{"GPU":2},"2":{"GPU":2},"3":{"GPU":2}}},"accelerator_ids":{"worker":{"0":[4,5],"1":[6,7],"2":[4,5],"3":[6,7]}}}'
# The ids reach the process it launches (a library does not set
# CUDA_VISIBLE_DEVICES in its own process, as TensorFlow's resolver does):
# for PyTorch and JAX the node's GPUs, its tasks' slices in local-rank
# order, the same for every process of the node (muster(1)); TensorFlow
# keeps the task's own.
# shellcheck disable=SC2086
slurm "$plain" SLURM_PROCID=1 $step2 SLURM_GPUS_ON_NODE=4 CUDA_VISIBLE_DEVICES=4,5,6,7 -- \
	env --for pytorch --format dotenv
expect_out_has "muster env exports the node's GPU ids" 'CUDA_VISIBLE_DEVICES=4,5,6,7'
# shellcheck disable=SC2086
slurm "$plain" SLURM_PROCID=3 $step2 SLURM_GPUS_ON_NODE=4 CUDA_VISIBLE_DEVICES=4,5,6,7 -- \
	env --for tensorflow --format dotenv
expect_out_has "... for TensorFlow too" 'CUDA_VISIBLE_DEVICES=6,7'
# shellcheck disable=SC2086
slurm "$plain" SLURM_PROCID=2 $step2 SLURM_GPUS_ON_NODE=4 CUDA_VISIBLE_DEVICES=4,5,6,7 -- \
	run --for jax --nproc-per-node 2 -- sh -c 'echo "$JAX_PROCESS_ID:$CUDA_VISIBLE_DEVICES"'
check_eq "muster run: each process of the node sees the node's GPUs" "$(sort "$tmp/out" | tr '\n' ' ')" \
	"4:4,5,6,7 5:4,5,6,7 "
# shellcheck disable=SC2086
slurm "$plain" SLURM_PROCID=1 $step2 -- env --for pytorch --format dotenv
if grep -q CUDA_VISIBLE_DEVICES "$tmp/out"; then
	fail "no GPU ids: no CUDA_VISIBLE_DEVICES" "$(cat "$tmp/out")"
else
	pass "no GPU ids: no CUDA_VISIBLE_DEVICES"
fi
# shellcheck disable=SC2086
slurm "$plain" SLURM_PROCID=1 $step2 SLURM_STEP_GPUS=2,3 -- resolve --format json
expect_out_has "SLURM_STEP_GPUS counts, ids are ordinals without CUDA_VISIBLE_DEVICES" \
	'"accelerator_ids":{"worker":{"0":[0],"1":[1],"2":[0],"3":[1]}}'
# shellcheck disable=SC2086
slurm "$plain" SLURM_PROCID=1 $step2 SLURM_GPUS_ON_NODE=1
expect_result "fewer GPUs than tasks: a CPU-only layout" 0 \
	'{"cluster":{"worker":["g1:8888","g1:8889","g2:8888","g2:8889"]},"task":{"type":"worker","index":1},"rpc_layer":"grpc"}'
# shellcheck disable=SC2086
slurm "$plain" SLURM_PROCID=1 $step2
expect_result "no GPUs: a CPU-only layout" 0 \
	'{"cluster":{"worker":["g1:8888","g1:8889","g2:8888","g2:8889"]},"task":{"type":"worker","index":1},"rpc_layer":"grpc"}'

# --- Bad input: unavail, naming the variable -----------------------------
slurm "$plain"
expect_err "outside Slurm: notfound" "$EX_NOTFOUND" "not inside Slurm"
slurm "$plain" SLURM_JOB_ID=1
expect_err "no SLURM_PROCID" "$EX_UNAVAIL" "SLURM_PROCID not found in environment"
slurm "$plain" SLURM_PROCID=x "$T3"
expect_err "SLURM_PROCID not a number" "$EX_UNAVAIL" "SLURM_PROCID must be an integer"
slurm "$plain" SLURM_PROCID=0 "$T3" SLURM_STEP_TASKS_PER_NODE='1(x3)'
expect_err "no SLURM_STEP_NUM_TASKS" "$EX_UNAVAIL" "SLURM_STEP_NUM_TASKS not found"
slurm "$plain" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=3 SLURM_STEP_TASKS_PER_NODE='1(x3)'
expect_err "no SLURM_STEP_NODELIST" "$EX_UNAVAIL" "SLURM_STEP_NODELIST not found"
slurm "$plain" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=3 SLURM_STEP_NODELIST= SLURM_STEP_TASKS_PER_NODE='1(x3)'
expect_err "empty SLURM_STEP_NODELIST" "$EX_UNAVAIL" "SLURM_STEP_NODELIST is empty"
slurm "$plain" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=3 "$T3"
expect_err "no SLURM_STEP_TASKS_PER_NODE" "$EX_UNAVAIL" "SLURM_STEP_TASKS_PER_NODE not found"
for bad in 'n[1-' 'n[3-1]' 'n[1-99999999]' 'x[0-40000]y[0-40000]' 'n[1-2]a' 'n]' 'n[[1]' \
	'n[a-b]' 'n[]' 'x[0-65535],y'; do
	slurm "$plain" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=1 SLURM_STEP_NODELIST="$bad" SLURM_STEP_TASKS_PER_NODE=1
	expect_err "host list $bad" "$EX_UNAVAIL" "SLURM_STEP_NODELIST: invalid host list '$bad'"
done
# Refused before anything is expanded: 10^8 names, or 1.6 x 10^9 from two
# groups, in bounded memory.
for bad in 'n[1-99999999]' 'x[0-40000]y[0-40000]'; do
	expect_peak_under 262144 "host list $bad" env -i PATH="$PATH" \
		MUSTER_PLUGIN_PATH="$MUSTER_PLUGIN_PATH" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=1 \
		SLURM_STEP_NODELIST="$bad" SLURM_STEP_TASKS_PER_NODE=1 "$MUSTER_BIN" -c "$plain" resolve
done
for bad in '' '2x3' '(x3)' ' 2' '2(x)' '2,' '2(x3' '1(x70000)'; do
	slurm "$plain" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=1 SLURM_STEP_NODELIST=n1 SLURM_STEP_TASKS_PER_NODE="$bad"
	if [ -z "$bad" ]; then
		expect_err "tasks per node ''" "$EX_UNAVAIL" "SLURM_STEP_TASKS_PER_NODE is empty"
	else
		expect_err "tasks per node $bad" "$EX_UNAVAIL" "Invalid tasks-per-node list format in SLURM_STEP_TASKS_PER_NODE"
	fi
done
slurm "$plain" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=3 "$T3" SLURM_STEP_TASKS_PER_NODE='2,1'
expect_err "tasks per node that do not pair with the hosts" "$EX_UNAVAIL" \
	"SLURM_STEP_TASKS_PER_NODE gives 2 task counts for the 3 hosts of SLURM_STEP_NODELIST"
# The step's own variables disagreeing is named with both (TensorFlow's
# "Requested ... assigned." is for jobs the config asks for).
slurm "$plain" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=5 'SLURM_STEP_NODELIST=n[1-2]' \
	SLURM_STEP_TASKS_PER_NODE='2(x2)'
expect_err "a step whose task count and tasks per node disagree" "$EX_UNAVAIL" \
	"SLURM_STEP_NUM_TASKS is 5 but SLURM_STEP_TASKS_PER_NODE '2(x2)' places 4 tasks"
case $err in
*Requested*) fail "... not TensorFlow's message for a config asking too much" "$err" ;;
*) pass "... not TensorFlow's message for a config asking too much" ;;
esac
slurm "$plain" SLURM_JOB_ID=7 SLURM_PROCID=0 SLURM_JOB_NODELIST='b[1-2]' SLURM_NTASKS=3 \
	SLURM_TASKS_PER_NODE='1(x2)'
expect_err "... the job's variables in a batch script" "$EX_UNAVAIL" \
	"SLURM_NTASKS is 3 but SLURM_TASKS_PER_NODE '1(x2)' places 2 tasks"
five=$(conf five 'jobs = { worker = 5; };')
slurm "$five" SLURM_PROCID=0 "$T3" SLURM_STEP_TASKS_PER_NODE='1(x3)'
expect_err "jobs that ask for more tasks than the step has: TensorFlow's message" "$EX_UNAVAIL" \
	"Requested 5 tasks but only 3 were assigned."
slurm "$plain" SLURM_PROCID=3 SLURM_STEP_NUM_TASKS=3 "$T3" SLURM_STEP_TASKS_PER_NODE='1(x3)'
expect_err "a rank outside the step" "$EX_UNAVAIL" "SLURM_PROCID 3 is not among the 3 tasks"
short=$(conf short 'gpus_per_task = 2;')
# shellcheck disable=SC2086
slurm "$short" SLURM_PROCID=0 $step2 SLURM_GPUS_ON_NODE=3
expect_err "a GPU shortage" "$EX_UNAVAIL" "Requested more GPUs per node than available." "GPU"
slurm "$plain" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=2 SLURM_STEP_NODELIST=n1 SLURM_STEP_TASKS_PER_NODE=2 SLURM_GPUS_ON_NODE=two
expect_err "SLURM_GPUS_ON_NODE not a number" "$EX_UNAVAIL" "SLURM_GPUS_ON_NODE"
high=$(conf high 'port_base = 65535;')
slurm "$high" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=2 SLURM_STEP_NODELIST=n1 SLURM_STEP_TASKS_PER_NODE=2
expect_err "ports past 65535" "$EX_UNAVAIL" "port_base 65535"
slurm "$plain" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=2 SLURM_STEP_NODELIST=ok,-bad \
	SLURM_STEP_TASKS_PER_NODE='1(x2)'
expect_err "a host name no address can have, named with its variable" "$EX_UNAVAIL" \
	'SLURM_STEP_NODELIST: address "-bad:8888" is not HOST:PORT'
badjobs=$(conf badjobs 'jobs = 3;')
slurm "$badjobs" SLURM_PROCID=0
expect_err "jobs must be a group" "$EX_CONFIG" "jobs must be a group"

# --- Bounded work: a GPU count no node has --------------------------------
# 65,536 GPUs on each of 4,096 nodes would be 2^28 ids (over a GB, seconds):
# refused at once, naming the variable, well within 1 s and 64 MB.
big='SLURM_STEP_NUM_TASKS=4096 SLURM_STEP_NODELIST=n[0-4095] SLURM_STEP_TASKS_PER_NODE=1(x4096)'
for gpus in 65536 1048576; do
	start=$(date +%s%N)
	# shellcheck disable=SC2086
	slurm "$plain" SLURM_PROCID=0 $big SLURM_GPUS_ON_NODE=$gpus -- master
	ms=$((($(date +%s%N) - start) / 1000000))
	expect_err "SLURM_GPUS_ON_NODE=$gpus on 4,096 nodes: refused" "$EX_UNAVAIL" \
		"4096 tasks with $gpus GPUs each pass 4194304 GPU ids (SLURM_GPUS_ON_NODE)"
	if [ "$ms" -lt 1000 ]; then
		pass "... within 1 s ($ms ms)"
	else
		fail "... within 1 s" "took $ms ms"
	fi
	# shellcheck disable=SC2086
	expect_peak_under 65536 "SLURM_GPUS_ON_NODE=$gpus on 4,096 nodes" env -i PATH="$PATH" \
		MUSTER_PLUGIN_PATH="$MUSTER_PLUGIN_PATH" SLURM_PROCID=0 $big \
		SLURM_GPUS_ON_NODE=$gpus "$MUSTER_BIN" -c "$plain" master
done
# shellcheck disable=SC2086
slurm "$plain" SLURM_PROCID=0 $big SLURM_GPUS_ON_NODE=8 -- master
expect "... while a real node's 8 GPUs resolve" "$EX_OK" "grpc://n0:8888"
slurm "$plain" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=65536 'SLURM_STEP_NODELIST=n[0-65535]' \
	SLURM_STEP_TASKS_PER_NODE='1(x65536)' SLURM_GPUS_ON_NODE=65536 -- master
expect_err "SLURM_GPUS_ON_NODE=65536 on 65,536 nodes: refused" "$EX_UNAVAIL" "SLURM_GPUS_ON_NODE"
slurm "$plain" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=1 SLURM_STEP_NODELIST=n1 \
	SLURM_STEP_TASKS_PER_NODE=1 SLURM_GPUS_ON_NODE=1048577 -- master
expect_err "a GPU count past the layout's limit" "$EX_UNAVAIL" \
	"SLURM_GPUS_ON_NODE must be an integer from 0 to 1048576"

# --- Size: 4,096 nodes of 8 tasks, the last task -------------------------
slurm "$plain" SLURM_PROCID=32767 SLURM_STEP_NUM_TASKS=32768 SLURM_STEP_NODELIST='n[0001-4096]' \
	SLURM_STEP_TASKS_PER_NODE='8(x4096)' -- master
expect "the last of 32,768 tasks finds itself" "$EX_OK" "grpc://n4096:8895"
slurm "$plain" SLURM_PROCID=4095 SLURM_STEP_NUM_TASKS=32768 SLURM_STEP_NODELIST='n[0001-4096]' \
	SLURM_STEP_TASKS_PER_NODE='8(x4096)' SLURM_DISTRIBUTION=cyclic SLURMD_NODENAME=n4096 \
	SLURM_LOCALID=0 -- master
expect "... cyclic: task 4,095 is the last node's first" "$EX_OK" "grpc://n4096:8888"

# --- MUSTER_NO_DETECT: the entry stands aside ----------------------------
# shellcheck disable=SC2086
slurm "$plain" MUSTER_NO_DETECT=1 $s1 SLURM_PROCID=5
expect_err "MUSTER_NO_DETECT=1: notfound, unrun" "$EX_NOTFOUND" "MUSTER_NO_DETECT is set"
finish
