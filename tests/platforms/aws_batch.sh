#!/bin/sh
# A node of an AWS Batch multi-node parallel job as AWS sets it
# (userguide/mnp-env-vars.html): only the main node's address is given,
# and the main node has none (its own).  env and run, which need the
# master and the ranks, work; resolve, tf-config and hostfile, which need
# every address, say which are unknown.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/platforms/lib.sh"

child() {
	n=$1
	shift
	on AWS_BATCH_JOB_ID='5e4b3a21-0d5b-4c1e-9f2a-7a3c1e0b2d4f#'"$n" AWS_BATCH_JQ_NAME=q \
		AWS_BATCH_CE_NAME=ce AWS_BATCH_JOB_ATTEMPT=1 AWS_BATCH_JOB_NODE_INDEX="$n" \
		AWS_BATCH_JOB_NUM_NODES=4 AWS_BATCH_JOB_MAIN_NODE_INDEX=0 \
		AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS=10.0.1.23 "$@"
}
child 2 -- env --for pytorch
expect_env "a child node: the main node is the master, the node index the rank" \
	MASTER_ADDR=10.0.1.23 WORLD_SIZE=4 RANK=2 NODE_RANK=2
port=$(sed -n "s/^export MASTER_PORT='\(.*\)'/\1/p" "$tmp/out")
child 3 -- env --for pytorch
expect_env "the master port, derived from the job id without #N, is every node's" MASTER_PORT="$port"
child 2 -- env --for pytorch --nproc-per-node 8
expect_env "--nproc-per-node 8: 32 processes" WORLD_SIZE=32 RANK=16
child 2 -- resolve
expect_err "resolve: the other nodes' addresses are unknown, named" 2 \
	"a cluster spec needs every task's address, but aws_batch does not know 3 of the 4 (worker:1, worker:2, worker:3)"
child 2 -- tf-config --task worker:0
expect_err "tf-config too" 2 "TF_CONFIG needs every task's address"
child 2 -- hostfile --for openmpi
expect_err "hostfile too" 2 "a hostfile needs every task's address"
child 2 -- master
expect_err "master of this (unknown) node names the placeholder" 2 "aws-batch-node-2.unknown.invalid"
child 2 -- master --task worker:0
expect "master of the main node" 0 "10.0.1.23:2222"

# The main node: no address variable, its own host name.
on AWS_BATCH_JOB_ID=5e4b3a21 AWS_BATCH_JOB_NODE_INDEX=0 AWS_BATCH_JOB_NUM_NODES=4 \
	AWS_BATCH_JOB_MAIN_NODE_INDEX=0 -- env --for pytorch
expect_env "the main node is its own master" MASTER_ADDR="$(hostname)" RANK=0 WORLD_SIZE=4

# A main node other than 0 comes first: it is rank 0.
child 0 AWS_BATCH_JOB_MAIN_NODE_INDEX=2 -- env --for pytorch
expect_env "main node 2: node 0 is rank 1" RANK=1 MASTER_ADDR=10.0.1.23

# Half of it, and bad values.
child 2 AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS= -- resolve
expect_err "an empty main address" 2 "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS must be a host name or IP address"
on AWS_BATCH_JOB_NODE_INDEX=1 AWS_BATCH_JOB_NUM_NODES=2 AWS_BATCH_JOB_MAIN_NODE_INDEX=0 -- resolve
expect_err "a child without the main node's address" 2 \
	"AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS is not set on node 1, which is not the main node (0)"
on AWS_BATCH_JOB_NODE_INDEX=1 AWS_BATCH_JOB_NUM_NODES=2 -- resolve
expect_err "AWS_BATCH_JOB_MAIN_NODE_INDEX missing" 2 \
	"AWS_BATCH_JOB_MAIN_NODE_INDEX is not set, but AWS_BATCH_JOB_NODE_INDEX is"
child 4 -- resolve
expect_err "a node index past the nodes" 2 'AWS_BATCH_JOB_NODE_INDEX must be an index below 4 (AWS_BATCH_JOB_NUM_NODES), not "4"'
# A single-node Batch job has only AWS_BATCH_JOB_ID: one process.
on AWS_BATCH_JOB_ID=x AWS_BATCH_JQ_NAME=q -- resolve
expect_out_match 'localhost:2222' "a single-node job: not a multi-node one"
finish
