#!/bin/sh
# The pbs backend under PBS environments: TensorFlow's PBSClusterResolver
# cases (its test's layouts, with the source's behaviour where they
# disagree), and bad input, each a clear unavail naming the culprit.
. "${MUSTER_TEST_SRCDIR:?}/tests/hpc/lib.sh"
require_plugin pbs

# TensorFlow's node files: three hosts once, and the same with two slots on
# the first two (the layout its multi-task cases need).
printf 't02n13\nt02n41\nt02n43\n' >"$tmp/nodefile1"
printf 't02n13\nt02n13\nt02n41\nt02n41\nt02n43\n' >"$tmp/nodefile2"

# Not a PBS job: notfound, quietly, whatever else is set.
c=$(conf pbs "")
(export PBS_TASKNUM=0; mu "$c" resolve); got
expect_err "no PBS_NODEFILE" 1 "PBS_NODEFILE is not set"

# testSimpleRetrievalFromEnv: every line a worker, one GPU each (the
# source's num_accelerators).
(export PBS_TASKNUM=0 PBS_NODEFILE="$tmp/nodefile1"; mu "$c" resolve); got
expect "from the environment" 0 '{"cluster":{"worker":["t02n13:8888","t02n41:8888","t02n43:8888"]},"task":{"type":"worker","index":0},"rpc_layer":"grpc","accelerators":{"worker":{"0":{"GPU":1},"1":{"GPU":1},"2":{"GPU":1}}},"accelerator_ids":{"worker":{"0":[0],"1":[0],"2":[0]}}}'
(export PBS_TASKNUM=0 PBS_NODEFILE="$tmp/nodefile1"; mu "$c" master --task worker:0); got
expect "master worker:0" 0 "grpc://t02n13:8888"

# testSimpleSuccessfulRetrieval / testTaskPerNodeNotSetRetrieval: jobs in
# the order written, ps first.
c=$(conf pbs "jobs = { ps = 1; worker = 2; }; port_base = 8888; tasks_per_node = 1; gpus_per_node = 1; gpus_per_task = 1;")
(export PBS_TASKNUM=0 PBS_NODEFILE="$tmp/nodefile1"; mu "$c" resolve --format text); got
expect "ps and workers, one task per node" 0 "ps 0 t02n13:8888 GPU=1
worker 0 t02n41:8888 GPU=1
worker 1 t02n43:8888 GPU=1
task: ps 0
rpc_layer: grpc
source: pbs"
c=$(conf pbs "jobs = { ps = 1; worker = 2; }; gpus_per_node = 1; gpus_per_task = 1;")
(export PBS_TASKNUM=2 PBS_NODEFILE="$tmp/nodefile1"; mu "$c" master); got
expect "tasks_per_node from the file; master of rank 2" 0 "grpc://t02n43:8888"

# testMultiTaskPerNodeRetrieval and testMultipleGpusPerTaskRetrieval (with
# the node file their layout needs): rank 1 is worker 0.
c=$(conf pbs "jobs = { ps = 1; worker = 4; }; gpus_per_node = 2; gpus_per_task = 1;")
(export PBS_TASKNUM=1 PBS_NODEFILE="$tmp/nodefile2"; mu "$c" resolve --format text); got
expect "two tasks on a node" 0 "ps 0 t02n13:8888 GPU=1
worker 0 t02n13:8889 GPU=1
worker 1 t02n41:8888 GPU=1
worker 2 t02n41:8889 GPU=1
worker 3 t02n43:8888 GPU=1
task: worker 0
rpc_layer: grpc
source: pbs"
c=$(conf pbs "jobs = { ps = 1; worker = 4; }; gpus_per_node = 4; gpus_per_task = 2;")
(export PBS_TASKNUM=1 PBS_NODEFILE="$tmp/nodefile2"; mu "$c" resolve --format text); got
check_eq "two GPUs per task" "$(echo "$out" | sed -n 2p)" "worker 0 t02n13:8889 GPU=2"
# Each task's slice of its host's GPUs, by its place on the host: rank 1,
# the second task of t02n13, gets 2 and 3.
(export PBS_TASKNUM=1 PBS_NODEFILE="$tmp/nodefile2"; mu "$c" resolve); got
expect "two GPUs per task: each task's ids" 0 '{"cluster":{"ps":["t02n13:8888"],"worker":["t02n13:8889","t02n41:8888","t02n41:8889","t02n43:8888"]},"task":{"type":"worker","index":0},"rpc_layer":"grpc","accelerators":{"ps":{"0":{"GPU":2}},"worker":{"0":{"GPU":2},"1":{"GPU":2},"2":{"GPU":2},"3":{"GPU":2}}},"accelerator_ids":{"ps":{"0":[0,1]},"worker":{"0":[2,3],"1":[0,1],"2":[2,3],"3":[0,1]}}}'
(export PBS_TASKNUM=1 PBS_NODEFILE="$tmp/nodefile2"; mu "$c" env --for pytorch --format dotenv); got
check_eq "muster env exports rank 1's GPUs" "$(printf '%s\n' "$out" | grep '^CUDA_VISIBLE_DEVICES=')" \
	"CUDA_VISIBLE_DEVICES=2,3"
c=$(conf pbs "gpus_per_node = 4;")
(export PBS_TASKNUM=4 PBS_NODEFILE="$tmp/nodefile2"; mu "$c" resolve --format text); got
check_eq "gpus_per_task defaults to gpus_per_node over the most tasks on a node" \
	"$(echo "$out" | sed -n 5p)" "worker 4 t02n43:8888 GPU=2"

# The rank from mpirun when PBS_TASKNUM is unset; use_cpus: no GPU.
c=$(conf pbs "use_cpus = true; port_base = 7000;")
(export OMPI_COMM_WORLD_RANK=3 PBS_NODEFILE="$tmp/nodefile2"; mu "$c" resolve); got
expect "OMPI_COMM_WORLD_RANK, use_cpus" 0 '{"cluster":{"worker":["t02n13:7000","t02n13:7001","t02n41:7000","t02n41:7001","t02n43:7000"]},"task":{"type":"worker","index":3},"rpc_layer":"grpc"}'

# The source's order: hosts as the file lists them, not sorted.
printf 'n8\nn10\nn8\n' >"$tmp/unsorted"
(export PBS_TASKNUM=1 PBS_NODEFILE="$tmp/unsorted"; mu "$c" resolve); got
expect "file order, a host's slots together" 0 '{"cluster":{"worker":["n8:7000","n8:7001","n10:7000"]},"task":{"type":"worker","index":1},"rpc_layer":"grpc"}'

# tasks_per_node as a group: no file read.
c=$(conf pbs "tasks_per_node = { a1 = 2; b1 = 1; }; use_cpus = true;")
(export PBS_TASKNUM=2 PBS_NODEFILE="$tmp/missing"; mu "$c" resolve); got
expect "tasks_per_node group" 0 '{"cluster":{"worker":["a1:8888","a1:8889","b1:8888"]},"task":{"type":"worker","index":2},"rpc_layer":"grpc"}'

# PBS_NODENUM agrees with the rank's host, or the answer would be wrong.
c=$(conf pbs "use_cpus = true;")
(export PBS_TASKNUM=2 PBS_NODENUM=1 PBS_NODEFILE="$tmp/nodefile2"; mu "$c" master); got
expect "PBS_NODENUM agrees" 0 "grpc://t02n41:8888"
(export PBS_TASKNUM=2 PBS_NODENUM=0 PBS_NODEFILE="$tmp/nodefile2"; mu "$c" resolve); got
expect_err "PBS_NODENUM disagrees" 2 "PBS_NODENUM is 0 but rank 2 is on host 1 (t02n41)"

# Bad input.
(export PBS_NODEFILE="$tmp/nodefile1"; mu "$c" resolve); got
expect_err "no rank" 2 "neither PBS_TASKNUM nor OMPI_COMM_WORLD_RANK is set"
(export PBS_TASKNUM=x1 PBS_NODEFILE="$tmp/nodefile1"; mu "$c" resolve); got
expect_err "a rank that is no number" 2 'PBS_TASKNUM must be an integer' '"x1"'
(export PBS_TASKNUM=3 PBS_NODEFILE="$tmp/nodefile1"; mu "$c" resolve); got
expect_err "a rank past the tasks" 2 "rank 3 is outside the 3 tasks"
(export PBS_TASKNUM=0 PBS_NODEFILE=""; mu "$c" resolve); got
expect_err "PBS_NODEFILE empty" 2 "PBS_NODEFILE is empty"
(export PBS_TASKNUM=0 PBS_NODEFILE="$tmp/missing"; mu "$c" resolve); got
expect_err "node file missing" 2 "PBS_NODEFILE $tmp/missing: No such file or directory"
(export PBS_TASKNUM=0 PBS_NODEFILE="$tmp"; mu "$c" resolve); got
expect_err "node file a directory" 2 "PBS_NODEFILE $tmp: not a regular file but a directory"
(export PBS_TASKNUM=0 PBS_NODEFILE=/dev/zero; mu "$c" resolve); got
expect_err "node file a device" 2 "PBS_NODEFILE /dev/zero: not a regular file but a character device"
mkfifo "$tmp/fifo"
(export PBS_TASKNUM=0 PBS_NODEFILE="$tmp/fifo"; mu "$c" resolve); got
expect_err "node file a FIFO, which nobody writes: no hang" 2 \
	"PBS_NODEFILE $tmp/fifo: not a regular file but a FIFO"
: >"$tmp/empty"
(export PBS_TASKNUM=0 PBS_NODEFILE="$tmp/empty"; mu "$c" resolve); got
expect_err "node file empty" 2 "no host in the file"
printf 'a1\n\na2\n' >"$tmp/blank"
(export PBS_TASKNUM=0 PBS_NODEFILE="$tmp/blank"; mu "$c" resolve); got
expect_err "a blank line between hosts" 2 "PBS_NODEFILE $tmp/blank: line 2 is empty"
printf 'n[1-3]\n' >"$tmp/bracket"
(export PBS_TASKNUM=0 PBS_NODEFILE="$tmp/bracket"; mu "$c" resolve); got
expect_err "a hostlist, not a host" 2 'line 1: "n[1-3]" is not a host name'
printf 'good\nbad host\n' >"$tmp/space"
(export PBS_TASKNUM=0 PBS_NODEFILE="$tmp/space"; mu "$c" resolve); got
expect_err "a host name with a space" 2 "PBS_NODEFILE $tmp/space" "bad host"
# 1 GB (sparse): refused at once, in bounded memory.
truncate -s 1G "$tmp/huge"
(export PBS_TASKNUM=0 PBS_NODEFILE="$tmp/huge"; mu "$c" resolve); got
expect_err "a 1 GB node file" 2 "PBS_NODEFILE $tmp/huge: larger than 16 MiB"
expect_peak_under 262144 "a 1 GB node file" \
	env PBS_TASKNUM=0 PBS_NODEFILE="$tmp/huge" "$MUSTER_BIN" -c "$c" resolve
rm -f "$tmp/huge"
# More lines than the layout takes (the limit every scheduler shares).
awk 'BEGIN { for (i = 0; i <= 1048576; i++) print "n" i }' >"$tmp/many"
(export PBS_TASKNUM=0 PBS_NODEFILE="$tmp/many"; mu "$c" resolve); got
expect_err "1,048,577 slots" 2 "line 1048577: more than 1048576 slots"
rm -f "$tmp/many"

c=$(conf pbs "jobs = { ps = 1; worker = 1; };")
(export PBS_TASKNUM=0 PBS_NODEFILE="$tmp/nodefile1"; mu "$c" resolve); got
expect_err "jobs that do not add up" 2 "Requested 2 tasks but only 3 were assigned"
c=$(conf pbs "gpus_per_node = 2; gpus_per_task = 2;")
(export PBS_TASKNUM=0 PBS_NODEFILE="$tmp/nodefile2"; mu "$c" resolve); got
expect_err "more GPUs than a node has" 2 "more GPUs per node than available"
c=$(conf pbs "gpus_per_task = 1048576;")
(export PBS_TASKNUM=0 PBS_NODEFILE="$tmp/nodefile2"; mu "$c" resolve); got
expect_err "GPU ids past 4,194,304 in all" 2 "5 tasks with 1048576 GPUs each pass 4194304 GPU ids"
c=$(conf pbs "port_base = 65535;")
(export PBS_TASKNUM=0 PBS_NODEFILE="$tmp/nodefile2"; mu "$c" resolve); got
expect_err "ports past 65535" 2 "needs port 65536"
c=$(conf pbs "jobs = { worker = -1; };")
(export PBS_TASKNUM=0 PBS_NODEFILE="$tmp/nodefile1"; mu "$c" resolve); got
expect_err "a negative job size is a config error" 4 "jobs: worker must be an integer from 0"

# The tasks are processes, the hosts in node-file order (not sorted), the
# job PBS_JOBID; the variables and the file are noted; muster env numbers
# nodes by host.
printf 'h2\nh2\nh1\nh1\n' >"$tmp/two-by-two"
c=$(conf pbs "use_cpus = true;")
(export PBS_NODEFILE="$tmp/two-by-two" OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_LOCAL_RANK=0 \
	PBS_JOBID=42.server; placed "$c"); got
check_eq "processes, node-file order, PBS_JOBID" "$(printf '%s\n' "$out" | sed -n 1,4p)" \
	"placement processes
nodes h2 h1
job 42.server
task worker 2"
expect_out_match '^input PBS_NODEFILE='"$tmp"'/two-by-two$' "PBS_NODEFILE noted"
expect_out_match '^input '"$tmp"'/two-by-two=h2$' "... and the file's text"
(export PBS_NODEFILE="$tmp/two-by-two" OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_LOCAL_RANK=0 \
	PBS_JOBID=42.server; mu "$c" env --for pytorch --format dotenv); got
check_eq "muster env: rank 2 is local 0 on node 1 of 2, h2 the master" \
	"$(. "$tmp/out" && echo "$RANK $LOCAL_RANK $NODE_RANK $LOCAL_WORLD_SIZE $WORLD_SIZE $MASTER_ADDR")" \
	"2 0 1 2 4 h2"
(export PBS_NODEFILE="$tmp/two-by-two" OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_LOCAL_RANK=1; \
	mu "$c" resolve); got
expect_err "mpirun's local rank off the node file's placement" 2 \
	"OMPI_COMM_WORLD_LOCAL_RANK is 1 but rank 2 has slot 0 of its host h1 in PBS_NODEFILE"
(export PBS_NODEFILE="$tmp/two-by-two" PBS_TASKNUM=0 MUSTER_NO_DETECT=1; mu "$c" resolve); got
expect_err "MUSTER_NO_DETECT=1: notfound, unrun" 1 "MUSTER_NO_DETECT is set"

finish
