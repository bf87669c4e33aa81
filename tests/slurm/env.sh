#!/bin/sh
# The slurm backend under the variables Slurm gives a task: TensorFlow's
# own SlurmClusterResolver cases, the step/batch difference, GPUs, and bad
# input answered unavail (exit 2) naming the variable at fault.
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/slurm/lib.sh"

T3='SLURM_STEP_NODELIST=t02n13,t02n41,t02n43'

# --- TensorFlow's test cases ---------------------------------------------
slurm "$plain" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=3 SLURM_STEP_TASKS_PER_NODE='1(x3)' "$T3" \
	CUDA_VISIBLE_DEVICES=0
expect_result "retrieval from the environment" 0 \
	'{"cluster":{"worker":["t02n13:8888","t02n41:8888","t02n43:8888"]},"task":{"type":"worker","index":0},"rpc_layer":"grpc","accelerators":{"worker":{"0":{"GPU":1},"1":{"GPU":1},"2":{"GPU":1}}},"accelerator_ids":{"worker":{"0":[0],"1":[0],"2":[0]}}}'
slurm "$plain" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=3 SLURM_STEP_TASKS_PER_NODE='1(x3)' "$T3" \
	-- master --task worker:0 --rpc-layer grpc
expect "master of worker 0" "$EX_OK" "grpc://t02n13:8888"

fixed=$(conf fixed 'jobs = { ps = 1; worker = 2; }; port_base = 8888; tasks_per_node = 1;
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
order=$(conf order 'jobs = { worker = 2; ps = 1; };')
slurm "$order" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=3 'SLURM_STEP_NODELIST=n[1-3]' \
	SLURM_STEP_TASKS_PER_NODE='1(x3)'
expect_result "jobs in name order, not config order" 0 \
	'{"cluster":{"ps":["n1:8888"],"worker":["n2:8888","n3:8888"]},"task":{"type":"ps","index":0},"rpc_layer":"grpc"}'

# tasks_per_node as a group: these hosts and counts; the step's host and
# count variables are not read (so malformed ones do not matter).
tpn=$(conf tpn 'tasks_per_node = { n1 = 2; n2 = 1; };')
slurm "$tpn" SLURM_PROCID=2 SLURM_STEP_NUM_TASKS=3 'SLURM_STEP_NODELIST=bad[' \
	SLURM_STEP_TASKS_PER_NODE=x
expect_result "tasks_per_node as a group: no host or count variable read" 0 \
	'{"cluster":{"worker":["n1:8888","n1:8889","n2:8888"]},"task":{"type":"worker","index":2},"rpc_layer":"grpc"}'

rpc=$(conf rpc 'rpc_layer = "grpc+verbs";')
slurm "$rpc" SLURM_PROCID=2 SLURM_STEP_NUM_TASKS=3 SLURM_STEP_TASKS_PER_NODE='1(x3)' "$T3"
expect_result "rpc_layer" 0 \
	'{"cluster":{"worker":["t02n13:8888","t02n41:8888","t02n43:8888"]},"task":{"type":"worker","index":2},"rpc_layer":"grpc+verbs"}'
slurm "$rpc" SLURM_PROCID=2 SLURM_STEP_NUM_TASKS=3 SLURM_STEP_TASKS_PER_NODE='1(x3)' "$T3" -- master
expect "rpc_layer: the master's scheme" "$EX_OK" "grpc+verbs://t02n43:8888"

mtpn=$(conf mtpn 'jobs = { ps = 1; worker = 4; }; gpus_per_node = 2; gpus_per_task = 1;')
slurm "$mtpn" SLURM_PROCID=1 "$T3" SLURM_STEP_TASKS_PER_NODE='2(x2),1'
expect_result "tasks per node from the environment" 0 \
	'{"cluster":{"ps":["t02n13:8888"],"worker":["t02n13:8889","t02n41:8888","t02n41:8889","t02n43:8888"]},"task":{"type":"worker","index":0},"rpc_layer":"grpc","accelerators":{"ps":{"0":{"GPU":1}},"worker":{"0":{"GPU":1},"1":{"GPU":1},"2":{"GPU":1},"3":{"GPU":1}}},"accelerator_ids":{"ps":{"0":[0]},"worker":{"0":[1],"1":[0],"2":[1],"3":[0]}}}'

mgpu=$(conf mgpu 'jobs = { ps = 1; worker = 4; }; gpus_per_node = 4; gpus_per_task = 2;')
slurm "$mgpu" SLURM_PROCID=1 "$T3" SLURM_STEP_TASKS_PER_NODE='2(x2),1' -- accelerators
expect "several GPUs per task: the own task's count" "$EX_OK" '{"GPU":2}'
slurm "$mgpu" SLURM_PROCID=1 "$T3" SLURM_STEP_TASKS_PER_NODE='2(x2),1'
expect_out_has "rank 1 gets GPUs 2,3" '"worker":{"0":[2,3],'

# --- Slurm's own forms ---------------------------------------------------
slurm "$plain" SLURM_PROCID=3 SLURM_STEP_NUM_TASKS=4 SLURM_STEP_NODELIST='n[8-10],gpu[01-02]x[1]' \
	SLURM_STEP_TASKS_PER_NODE='1(x4),0' -- resolve --format text
expect "hosts sorted as strings, bracket groups, zero padding, a node of 0 tasks" "$EX_OK" 'worker 0 gpu01x1:8888
worker 1 n10:8888
worker 2 n8:8888
worker 3 n9:8888
task: worker 3
rpc_layer: grpc
source: slurm'
slurm "$plain" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=3 SLURM_STEP_NODELIST='t1,t1,t2' \
	SLURM_STEP_TASKS_PER_NODE='1,2,1' -- resolve --format text
expect "a host listed twice keeps its last count (TensorFlow's dict)" "$EX_OK" 'worker 0 t1:8888
worker 1 t1:8889
worker 2 t2:8888
task: worker 0
rpc_layer: grpc
source: slurm'

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
# The task's ids reach the process it launches (a library does not set
# CUDA_VISIBLE_DEVICES in its own process, as TensorFlow's resolver does).
# shellcheck disable=SC2086
slurm "$plain" SLURM_PROCID=1 $step2 SLURM_GPUS_ON_NODE=4 CUDA_VISIBLE_DEVICES=4,5,6,7 -- \
	env --for pytorch --format dotenv
expect_out_has "muster env exports the task's GPU ids" 'CUDA_VISIBLE_DEVICES=6,7'
# shellcheck disable=SC2086
slurm "$plain" SLURM_PROCID=3 $step2 SLURM_GPUS_ON_NODE=4 CUDA_VISIBLE_DEVICES=4,5,6,7 -- \
	env --for tensorflow --format dotenv
expect_out_has "... for TensorFlow too" 'CUDA_VISIBLE_DEVICES=6,7'
# (Node g1 is a name of the test's: --master-timeout 0, or node 2 would
# wait for it to resolve.)
# shellcheck disable=SC2086
slurm "$plain" SLURM_PROCID=2 $step2 SLURM_GPUS_ON_NODE=4 CUDA_VISIBLE_DEVICES=4,5,6,7 -- \
	run --for jax --nproc-per-node 2 --master-timeout 0 -- sh -c 'echo "$JAX_PROCESS_ID:$CUDA_VISIBLE_DEVICES"'
check_eq "muster run: each process of the node sees the task's GPUs" "$(sort "$tmp/out" | tr '\n' ' ')" \
	"4:4,5 5:4,5 "
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
finish
