#!/bin/sh
# A Cloud TPU slice on GKE as GKE's webhook sets it (TPU_WORKER_ID,
# TPU_WORKER_HOSTNAMES ordered by worker id, TPU_CHIPS_PER_HOST_BOUNDS,
# TPU_TOPOLOGY) and LeaderWorkerSet (TPU_PROCESS_ADDRESSES), and a
# multislice JobSet's MEGASCALE_* (xpk's template): TPU chips per worker.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/platforms/lib.sh"

hosts=tj-0.tj-svc,tj-1.tj-svc,tj-2.tj-svc,tj-3.tj-svc
worker() {
	n=$1
	shift
	on TPU_WORKER_ID="$n" TPU_WORKER_HOSTNAMES="$hosts" TPU_ACCELERATOR_TYPE=v5litepod-16 \
		TPU_TOPOLOGY=4x4 TPU_CHIPS_PER_HOST_BOUNDS=2,2,1 TPU_HOST_BOUNDS=2,2,1 \
		TPU_TOPOLOGY_WRAP=false,false,false TPU_SKIP_MDS_QUERY=true JOB_COMPLETION_INDEX="$n" \
		KUBERNETES_SERVICE_HOST=10.96.0.1 "$@"
}
worker 2 -- resolve
expect_json '{"cluster":{"worker":["tj-0.tj-svc:8482","tj-1.tj-svc:8482","tj-2.tj-svc:8482","tj-3.tj-svc:8482"]},"task":{"type":"worker","index":2},"accelerators":{"worker":{"0":{"TPU":4},"1":{"TPU":4},"2":{"TPU":4},"3":{"TPU":4}}}}' \
	"a v5e-16 slice: four hosts of four chips, this one worker 2"
worker 2 -- env --for jax
expect_env "JAX: the first host coordinates" JAX_COORDINATOR_ADDRESS=tj-0.tj-svc:8482 \
	JAX_NUM_PROCESSES=4 JAX_PROCESS_ID=2
worker 1 TPU_CHIPS_PER_HOST_BOUNDS= -- accelerators --task worker:1
expect "chips from TPU_TOPOLOGY over the hosts when the bounds are not given" 0 '{"TPU":4}'

# Multislice: two slices; this is slice 1, worker 3.
worker 3 MEGASCALE_NUM_SLICES=2 MEGASCALE_SLICE_ID=1 MEGASCALE_COORDINATOR_ADDRESS=ms-slice-job-0-0.ms \
	MEGASCALE_PORT=8080 -- env --for jax
expect_env "multislice: slice 1's worker 3 is process 7 of 8, slice 0's first host coordinates" \
	JAX_COORDINATOR_ADDRESS=ms-slice-job-0-0.ms:8482 JAX_NUM_PROCESSES=8 JAX_PROCESS_ID=7
worker 3 MEGASCALE_NUM_SLICES=2 MEGASCALE_SLICE_ID=1 MEGASCALE_COORDINATOR_ADDRESS=ms-slice-job-0-0.ms -- resolve
expect_err "multislice: slice 0's other hosts are unknown" 2 "tpu does not know 3 of the 8 (worker:1, worker:2, worker:3)"
worker 3 MEGASCALE_NUM_SLICES=2 MEGASCALE_SLICE_ID=1 -- resolve
expect_err "slice 1 without the coordinator" 2 "MEGASCALE_COORDINATOR_ADDRESS is not set on slice 1"
worker 3 MEGASCALE_NUM_SLICES=2 -- resolve
expect_err "MEGASCALE_SLICE_ID missing" 2 "MEGASCALE_SLICE_ID"

# LeaderWorkerSet's form: a process a TPU container, two a host.
on TPU_WORKER_ID=3 TPU_PROCESS_ADDRESSES=lws-0.lws:8476,lws-0.lws:8477,lws-0-1.lws:8476,lws-0-1.lws:8477 \
	TPU_PROCESS_PORT=8477 TPU_CHIPS_PER_HOST_BOUNDS=2,2,1 TPU_NAME=lws-0 LWS_LEADER_ADDRESS=lws-0.lws \
	LWS_GROUP_SIZE=2 LWS_WORKER_INDEX=1 -- resolve
expect_json '{"cluster":{"worker":["lws-0.lws:8482","lws-0.lws:8483","lws-0-1.lws:8482","lws-0-1.lws:8483"]},"task":{"type":"worker","index":3},"accelerators":{"worker":{"0":{"TPU":2},"1":{"TPU":2},"2":{"TPU":2},"3":{"TPU":2}}}}' \
	"TPU_PROCESS_ADDRESSES: two processes a host share its chips (before LWS's own entry)"

on TPU_WORKER_HOSTNAMES="$hosts" -- resolve
expect_err "the hosts without TPU_WORKER_ID" 2 "TPU_WORKER_ID is not set, but TPU_WORKER_HOSTNAMES is"
worker 4 -- resolve
expect_err "TPU_WORKER_ID past the hosts" 2 'TPU_WORKER_ID must be an index below 4 (TPU_WORKER_HOSTNAMES), not "4"'
finish
