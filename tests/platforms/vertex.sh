#!/bin/sh
# A Vertex AI custom training replica as Vertex sets CLUSTER_SPEC
# (training/distributed-training, "CLUSTER_SPEC format"): workerpool0 the
# chief, workerpool1 the workers, workerpool2 (parameter servers or the
# Reduction Server) and workerpool3 (evaluators) outside the training
# world unless --jobs names them.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/platforms/lib.sh"

p=cmle-training-workerpool
spec() {
	printf '{"cluster": {"workerpool0": ["%s0-ab12cd-0:2222"], "workerpool1": ["%s1-ab12cd-0:2222", "%s1-ab12cd-1:2222"], "workerpool2": ["%s2-ab12cd-0:2222"], "workerpool3": ["%s3-ab12cd-0:2222"]}, "environment": "cloud", "task": {"type": "%s", "index": %s, "trial": ""}, "job": "{\\"python_module\\": \\"trainer.task\\", \\"job_args\\": []}"}' \
		"$p" "$p" "$p" "$p" "$p" "$1" "$2"
}
replica() {
	s=$(spec "$1" "$2")
	shift 2
	on CLUSTER_SPEC="$s" CLOUD_ML_JOB_ID=1234567890 AIP_MODEL_DIR=gs://b/model "$@"
}
replica workerpool1 1 -- resolve
expect_json "{\"cluster\":{\"chief\":[\"${p}0-ab12cd-0:2222\"],\"worker\":[\"${p}1-ab12cd-0:2222\",\"${p}1-ab12cd-1:2222\"],\"ps\":[\"${p}2-ab12cd-0:2222\"],\"evaluator\":[\"${p}3-ab12cd-0:2222\"]},\"task\":{\"type\":\"worker\",\"index\":1}}" \
	"the pools as TensorFlow's jobs, this replica worker 1"
replica workerpool1 1 -- env --for pytorch
expect_env "the chief is the master; workers follow; pools 2 and 3 train nothing" \
	MASTER_ADDR="${p}0-ab12cd-0" MASTER_PORT=2222 WORLD_SIZE=3 RANK=2
replica workerpool0 0 -- env --for pytorch
expect_env "the primary replica is rank 0" RANK=0 WORLD_SIZE=3
replica workerpool3 0 -- env --for pytorch
expect_err "an evaluator holds no rank by default" 5 "evaluator"
replica workerpool3 0 -- env --for pytorch --jobs chief,worker,evaluator
expect_env "--jobs puts the evaluators in" WORLD_SIZE=4 RANK=3

# Where Vertex sets TF_CONFIG too, tf_config answers: the same world.
tf="{\"cluster\": {\"chief\": [\"${p}0-ab12cd-0:2222\"], \"worker\": [\"${p}1-ab12cd-0:2222\", \"${p}1-ab12cd-1:2222\"], \"ps\": [\"${p}2-ab12cd-0:2222\"]}, \"environment\": \"cloud\", \"task\": {\"type\": \"worker\", \"index\": 1, \"trial\": \"\"}, \"job\": {}}"
replica workerpool1 1 TF_CONFIG="$tf" -- env --for pytorch
expect_env "with Vertex's TF_CONFIG as well: the same ranks" MASTER_ADDR="${p}0-ab12cd-0" WORLD_SIZE=3 RANK=2

on CLUSTER_SPEC='{"cluster": ' -- resolve
expect_err "CLUSTER_SPEC that does not parse" 2 "CLUSTER_SPEC is not valid JSON"
on CLUSTER_SPEC='{"cluster": {"workerpool0": ["a:1"], "pool9": []}, "task": {"type": "workerpool0", "index": 0}}' -- resolve
expect_err "a pool Vertex does not have" 2 "CLUSTER_SPEC: cluster has \"pool9\""
on CLUSTER_SPEC='{"cluster": {"workerpool0": ["a:1"]}, "task": {"type": "workerpool1", "index": 0}}' -- resolve
expect_err "task.type not in the cluster" 2 "task.type must name a pool of the cluster, not \"workerpool1\""
on CLUSTER_SPEC='{"cluster": {"workerpool0": ["a:1"]}, "task": {"type": "workerpool0", "index": 1}}' -- resolve
expect_err "task.index past the pool" 2 "task.index must be an index of cluster.workerpool0"
on CLUSTER_SPEC='{"cluster": {"workerpool0": ["a b:1"]}, "task": {"type": "workerpool0", "index": 0}}' -- resolve
expect_err "a bad address" 2 "CLUSTER_SPEC: cluster.workerpool0[0]"
finish
