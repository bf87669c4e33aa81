#!/bin/sh
# The lsf backend under LSF environments as PyTorch Lightning's
# LSFEnvironment reads them (its test's rank file), LSB_MCPU_HOSTS, and bad
# input, each a clear unavail naming the culprit.
. "${MUSTER_TEST_SRCDIR:?}/tests/hpc/lib.sh"
require_plugin lsf

# Lightning's rank file: the launch host "batch", then four compute slots.
printf 'batch\n10.10.10.0\n10.10.10.1\n10.10.10.2\n10.10.10.3' >"$tmp/lightning"
# A CORAL-style job: the launch host, then two nodes of two slots each.
printf 'batch1\nh1\nh1\nh2\nh2\n' >"$tmp/two"
c=$(conf lsf "")

(export JSM_NAMESPACE_RANK=0 LSB_DJOB_RANKFILE="$tmp/two"; mu "$c" resolve); got
expect_err "no LSB_JOBID: not an LSF job" 1 "LSB_JOBID is not set"

# Lightning's case: the launch host is left out and main_address is the
# first compute host...
(export LSB_JOBID=1234 LSB_DJOB_RANKFILE="$tmp/lightning" JSM_NAMESPACE_SIZE=4 \
	JSM_NAMESPACE_RANK=3; mu "$c" resolve); got
expect "Lightning's rank file" 0 '{"cluster":{"worker":["10.10.10.0:8888","10.10.10.1:8888","10.10.10.2:8888","10.10.10.3:8888"]},"task":{"type":"worker","index":3},"rpc_layer":"grpc"}'
(export LSB_JOBID=1234 LSB_DJOB_RANKFILE="$tmp/lightning" JSM_NAMESPACE_SIZE=4 \
	JSM_NAMESPACE_RANK=3; mu "$c" master --task worker:0); got
expect "its main address is worker 0" 0 "grpc://10.10.10.0:8888"
# ...but its local rank 1 cannot be rank 3's on single-slot hosts: said,
# not answered wrongly.
(export LSB_JOBID=1234 LSB_DJOB_RANKFILE="$tmp/lightning" JSM_NAMESPACE_SIZE=4 \
	JSM_NAMESPACE_RANK=3 JSM_NAMESPACE_LOCAL_RANK=1; mu "$c" resolve); got
expect_err "a local rank off the rank file's placement" 2 \
	"JSM_NAMESPACE_LOCAL_RANK is 1 but rank 3 has slot 0 of its host"

# Two slots per host: port_base + k; a smaller job uses the first slots.
c=$(conf lsf "port_base = 9000; rpc_layer = \"\";")
(export LSB_JOBID=7 LSB_DJOB_RANKFILE="$tmp/two" JSM_NAMESPACE_SIZE=4 JSM_NAMESPACE_RANK=3 \
	JSM_NAMESPACE_LOCAL_RANK=1; mu "$c" resolve --format text); got
expect "two slots a host" 0 "worker 0 h1:9000
worker 1 h1:9001
worker 2 h2:9000
worker 3 h2:9001
task: worker 3
source: lsf"
(export LSB_JOBID=7 LSB_DJOB_RANKFILE="$tmp/two" JSM_NAMESPACE_SIZE=3 JSM_NAMESPACE_RANK=0; \
	mu "$c" resolve); got
expect "three of four slots" 0 '{"cluster":{"worker":["h1:9000","h1:9001","h2:9000"]},"task":{"type":"worker","index":0}}'
# mpirun inside bsub: Open MPI's variables instead of jsrun's.
(export LSB_JOBID=7 LSB_DJOB_RANKFILE="$tmp/two" OMPI_COMM_WORLD_SIZE=4 \
	OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_LOCAL_RANK=0; mu "$c" master); got
expect "Open MPI's rank" 0 "h2:9000"

# LSB_MCPU_HOSTS when there is no rank file: "host slots" pairs.
c=$(conf lsf "")
(export LSB_JOBID=7 LSB_MCPU_HOSTS="batch1 1 h10 2 h9 1" JSM_NAMESPACE_RANK=2; mu "$c" resolve); got
expect "LSB_MCPU_HOSTS" 0 '{"cluster":{"worker":["h10:8888","h10:8889","h9:8888"]},"task":{"type":"worker","index":2},"rpc_layer":"grpc"}'

# Bad input.
(export LSB_JOBID=7 JSM_NAMESPACE_RANK=0; mu "$c" resolve); got
expect_err "no host list" 2 "LSB_DJOB_RANKFILE and LSB_MCPU_HOSTS are not"
(export LSB_JOBID=7 LSB_DJOB_RANKFILE="" JSM_NAMESPACE_RANK=0; mu "$c" resolve); got
expect_err "LSB_DJOB_RANKFILE empty" 2 "LSB_DJOB_RANKFILE is empty"
(export LSB_JOBID=7 LSB_DJOB_RANKFILE="$tmp/missing" JSM_NAMESPACE_RANK=0; mu "$c" resolve); got
expect_err "rank file missing" 2 "LSB_DJOB_RANKFILE $tmp/missing: No such file or directory"
(export LSB_JOBID=7 LSB_DJOB_RANKFILE=/dev/zero JSM_NAMESPACE_RANK=0; mu "$c" resolve); got
expect_err "rank file a device" 2 "LSB_DJOB_RANKFILE /dev/zero: not a regular file but a character device"
printf 'batch\n' >"$tmp/only-batch"
(export LSB_JOBID=7 LSB_DJOB_RANKFILE="$tmp/only-batch" JSM_NAMESPACE_RANK=0; mu "$c" resolve); got
expect_err "only the launch host" 2 "no compute host in the file"
(export LSB_JOBID=7 LSB_DJOB_RANKFILE="$tmp/two"; mu "$c" resolve); got
expect_err "no rank" 2 "neither JSM_NAMESPACE_RANK nor OMPI_COMM_WORLD_RANK is set"
(export LSB_JOBID=7 LSB_DJOB_RANKFILE="$tmp/two" JSM_NAMESPACE_RANK=-1; mu "$c" resolve); got
expect_err "a negative rank" 2 "JSM_NAMESPACE_RANK must be an integer from 0"
(export LSB_JOBID=7 LSB_DJOB_RANKFILE="$tmp/two" JSM_NAMESPACE_RANK=0 JSM_NAMESPACE_SIZE=5; \
	mu "$c" resolve); got
expect_err "a size above the slots" 2 "JSM_NAMESPACE_SIZE is 5 but LSB_DJOB_RANKFILE $tmp/two has 4 compute slots"
(export LSB_JOBID=7 LSB_DJOB_RANKFILE="$tmp/two" JSM_NAMESPACE_RANK=3 JSM_NAMESPACE_SIZE=3; \
	mu "$c" resolve); got
expect_err "a rank past the size" 2 "JSM_NAMESPACE_RANK is 3, outside the 3 tasks"
(export LSB_JOBID=7 LSB_MCPU_HOSTS="batch1 1 h1" JSM_NAMESPACE_RANK=0; mu "$c" resolve); got
expect_err "LSB_MCPU_HOSTS without a count" 2 'LSB_MCPU_HOSTS: host "h1" (pair 2) has no slot count'
(export LSB_JOBID=7 LSB_MCPU_HOSTS="batch1 1 h1 x" JSM_NAMESPACE_RANK=0; mu "$c" resolve); got
expect_err "LSB_MCPU_HOSTS with a bad count" 2 'LSB_MCPU_HOSTS: host "h1": "x" is not a slot count'
(export LSB_JOBID=7 LSB_MCPU_HOSTS="batch1 1" JSM_NAMESPACE_RANK=0; mu "$c" resolve); got
expect_err "LSB_MCPU_HOSTS with the launch host only" 2 "no compute host after the launch host"
(export LSB_JOBID=7 LSB_MCPU_HOSTS="" JSM_NAMESPACE_RANK=0; mu "$c" resolve); got
expect_err "LSB_MCPU_HOSTS empty" 2 "LSB_MCPU_HOSTS: no host"
truncate -s 1G "$tmp/huge"
(export LSB_JOBID=7 LSB_DJOB_RANKFILE="$tmp/huge" JSM_NAMESPACE_RANK=0; mu "$c" resolve); got
expect_err "a 1 GB rank file" 2 "larger than 16 MiB"
rm -f "$tmp/huge"

# The tasks are processes, the compute hosts in the order the rank file
# first names them (not sorted), the job LSB_JOBID; muster env gives
# Lightning's numbers: node rank = the host's first appearance after the
# launch host, master the first compute host.
printf 'batch1\nh2\nh2\nh1\nh1\n' >"$tmp/unsorted"
c=$(conf lsf "")
(export LSB_JOBID=7 LSB_DJOB_RANKFILE="$tmp/unsorted" JSM_NAMESPACE_SIZE=4 JSM_NAMESPACE_RANK=3 \
	JSM_NAMESPACE_LOCAL_RANK=1; placed "$c"); got
check_eq "processes, rank-file order, LSB_JOBID" "$(printf '%s\n' "$out" | sed -n 1,4p)" \
	"placement processes
nodes h2 h1
job 7
task worker 3"
expect_out_match '^input JSM_NAMESPACE_LOCAL_RANK=1$' "the local rank noted"
(export LSB_JOBID=7 LSB_DJOB_RANKFILE="$tmp/unsorted" JSM_NAMESPACE_SIZE=4 JSM_NAMESPACE_RANK=3 \
	JSM_NAMESPACE_LOCAL_RANK=1; mu "$c" env --for pytorch --format dotenv); got
check_eq "muster env: Lightning's rank, local rank and node rank, h2 the master" \
	"$(. "$tmp/out" && echo "$RANK $LOCAL_RANK $NODE_RANK $LOCAL_WORLD_SIZE $WORLD_SIZE $MASTER_ADDR")" \
	"3 1 1 2 4 h2"
(export LSB_JOBID=7 LSB_MCPU_HOSTS="batch1 1 h10 2 h9 1" JSM_NAMESPACE_RANK=2; placed "$c"); got
check_eq "LSB_MCPU_HOSTS: its order" "$(printf '%s\n' "$out" | sed -n 2p)" "nodes h10 h9"
(export LSB_JOBID=7 LSB_DJOB_RANKFILE="$tmp/unsorted" JSM_NAMESPACE_RANK=0 MUSTER_NO_DETECT=1
 mu "$c" resolve); got
expect_err "MUSTER_NO_DETECT=1: notfound, unrun" 1 "MUSTER_NO_DETECT is set"

finish
