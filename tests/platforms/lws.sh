#!/bin/sh
# A LeaderWorkerSet pod as LWS sets it (pkg/utils/pod/pod_utils.go,
# AddLWSVariables): its group, the leader first, workers named after it.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/platforms/lib.sh"

pod() {
	n=$1
	shift
	on LWS_LEADER_ADDRESS=vllm-2.vllm.default LWS_GROUP_SIZE=3 LWS_WORKER_INDEX="$n" \
		KUBERNETES_SERVICE_HOST=10.96.0.1 "$@"
}
pod 2 -- resolve
expect_json '{"cluster":{"worker":["vllm-2.vllm.default:2222","vllm-2-1.vllm.default:2222","vllm-2-2.vllm.default:2222"]},"task":{"type":"worker","index":2}}' \
	"group 2 of LWS vllm: the leader, then vllm-2-1 and vllm-2-2"
pod 1 -- env --for pytorch
expect_env "the leader is the master" MASTER_ADDR=vllm-2.vllm.default WORLD_SIZE=3 RANK=1
on LWS_LEADER_ADDRESS=vllm-2.vllm.default LWS_WORKER_INDEX=1 -- resolve
expect_err "LWS_GROUP_SIZE missing" 2 "platforms(lws): unavail: LWS_GROUP_SIZE is not set, but LWS_LEADER_ADDRESS is"
pod 3 -- resolve
expect_err "a worker index past the group" 2 'LWS_WORKER_INDEX must be an index below 3 (LWS_GROUP_SIZE), not "3"'
finish
