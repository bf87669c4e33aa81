#!/bin/sh
# A SkyPilot task's node as SkyPilot sets it (docs "Environment Variables
# and Secrets"): SKYPILOT_NODE_IPS one a line in rank order, this node
# SKYPILOT_NODE_RANK, the GPUs reserved a node.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/platforms/lib.sh"

ips='10.128.0.5
10.128.0.7
10.128.0.6'
node() {
	n=$1
	shift
	on SKYPILOT_NODE_IPS="$ips" SKYPILOT_NODE_RANK="$n" SKYPILOT_NUM_NODES=3 \
		SKYPILOT_NUM_GPUS_PER_NODE=8 SKYPILOT_TASK_ID=sky-2026-11-30-12-00-00-000000_mycluster_3 \
		SKYPILOT_CLUSTER_INFO='{"cluster_name": "mycluster", "cloud": "GCP", "region": "us-central1", "zone": "us-central1-a"}' \
		"$@"
}
node 1 -- resolve
expect_json '{"cluster":{"worker":["10.128.0.5:2222","10.128.0.7:2222","10.128.0.6:2222"]},"task":{"type":"worker","index":1},"accelerators":{"worker":{"0":{"GPU":8},"1":{"GPU":8},"2":{"GPU":8}}}}' \
	"the IPs in rank order, 8 GPUs each, this node rank 1"
node 2 -- env --for pytorch
expect_env "rank 0's IP is the master" MASTER_ADDR=10.128.0.5 WORLD_SIZE=3 RANK=2 NODE_RANK=2
node 2 -- env --for pytorch
port=$(sed -n "s/^export MASTER_PORT='\(.*\)'/\1/p" "$tmp/out")
node 0 -- env --for pytorch
expect_env "the master port, derived from SKYPILOT_TASK_ID, is the same on every node" \
	MASTER_PORT="$port"
on SKYPILOT_NODE_RANK=0 SKYPILOT_NUM_NODES=2 -- resolve
expect_err "the rank without the IPs" 2 "SKYPILOT_NODE_IPS is not set, but SKYPILOT_NODE_RANK is"
node 1 SKYPILOT_NUM_NODES=2 -- resolve
expect_err "SKYPILOT_NUM_NODES against the IPs" 2 "SKYPILOT_NUM_NODES is 2 but SKYPILOT_NODE_IPS has 3 lines"
node 3 -- resolve
expect_err "a rank past the IPs" 2 'SKYPILOT_NODE_RANK must be an index below 3 (the lines of SKYPILOT_NODE_IPS), not "3"'
node 0 SKYPILOT_NODE_IPS='10.128.0.5
not an ip' -- resolve
expect_err "a bad line" 2 "SKYPILOT_NODE_IPS item 2 must be a host name or IP address"
# The setup stage's variables are a cluster-wide view, not a task's.
on SKYPILOT_SETUP_NODE_RANK=0 SKYPILOT_SETUP_NODE_IPS=10.0.0.1 SKYPILOT_NUM_NODES=1 -- resolve
expect_out_match 'localhost:2222' "setup stage: not read"
finish
