#!/bin/sh
# gce plugin, mode = "tpu_vm": a Cloud TPU VM's slice from the metadata
# server's instance attributes (agent-worker-number,
# worker-network-endpoints in both of its forms, accelerator-type, tpu-env
# with multislice's MEGASCALE_*), TPU chips a worker, notfound off GCE and
# on a VM that is no TPU worker, every attribute checked with an error
# naming it.  The metadata server is the loopback fake (fake_gce.py).
. "$MUSTER_TEST_SRCDIR/tests/gce/lib.sh"
unset TPU_SKIP_MDS_QUERY TPU_CHIPS_PER_HOST_BOUNDS MEGASCALE_COORDINATOR_ADDRESS \
	MEGASCALE_NUM_SLICES MEGASCALE_SLICE_ID

attrs=$tmp/attributes.json
# attrs KEY=VALUE...: the instance's attributes.
attrs() {
	python3 -c 'import json, sys
print(json.dumps(dict(a.split("=", 1) for a in sys.argv[1:])))' "$@" >"$attrs"
}
attrs
start_server --attributes "$attrs"

# tconf NAME BODY [DMI]: a chain of the tpu_vm entry, then a fallback.
tconf() {
	cat >"$tmp/$1.conf" <<EOC
chain = (
  { plugin = "gce"; name = "tpu_vm"; on_unavail = "return";
    config = { mode = "tpu_vm"; dmi_product_name = "${3:-$DMI}"; $2 }; },
  { plugin = "static"; config = { jobs = { worker = [ "localhost:2222" ]; };
    task = { type = "worker"; index = 0; }; }; }
);
EOC
	echo "$tmp/$1.conf"
}
vm=$(tconf tpu "")
requests() { py_log '[r["path"].split("/v1/")[1] for r in reqs]'; }

# A v4-32 slice, as the TPU API writes its attributes: four workers, the
# old "name:id:address" form, this VM worker 2, four chips a host.
tpu_env="ACCELERATOR_TYPE: 'v4-32'
CHIPS_PER_HOST_BOUNDS: '2,2,1'
HOST_BOUNDS: '1,1,4'
WORKER_ID: '2'"
attrs agent-worker-number=2 accelerator-type=v4-32 "tpu-env=$tpu_env" \
	worker-network-endpoints=unknown:unknown:10.130.0.2,unknown:unknown:10.130.0.3,unknown:unknown:10.130.0.4,unknown:unknown:10.130.0.5
run_muster "$vm" resolve
expect "v4-32: four workers at their addresses, this one worker 2, 4 TPU chips each" 0 \
	'{"cluster":{"worker":["10.130.0.2:8482","10.130.0.3:8482","10.130.0.4:8482","10.130.0.5:8482"]},"task":{"type":"worker","index":2},"rpc_layer":"grpc","accelerators":{"worker":{"0":{"TPU":4},"1":{"TPU":4},"2":{"TPU":4},"3":{"TPU":4}}}}'
check_eq "four metadata requests, no Compute API, no token" "$(requests)" \
	"['instance/attributes/agent-worker-number', 'instance/attributes/worker-network-endpoints', 'instance/attributes/accelerator-type', 'instance/attributes/tpu-env']"
run_muster "$vm" env --for pytorch
expect_out_match "^export MASTER_ADDR='10.130.0.2'$" "env: worker 0 is the master"
expect_out_match "^export WORLD_SIZE='4'$" "env: one process a worker"
expect_out_match "^export RANK='2'$" "env: this worker's rank"
run_muster "$vm" env --for jax
expect_out_match "^export JAX_COORDINATOR_ADDRESS='10.130.0.2:8482'$" "env --for jax: JAX's coordinator port"
expect_out_match "^export JAX_PROCESS_ID='2'$" "env --for jax: the process id"

# Host names (the newer form), no tpu-env: chips from the accelerator type
# (v5litepod counts chips: 16 over 4 workers).
attrs agent-worker-number=0 accelerator-type=v5litepod-16 \
	worker-network-endpoints=t1v-n-5e-w-0,t1v-n-5e-w-1,t1v-n-5e-w-2,t1v-n-5e-w-3
run_muster "$vm" resolve
expect "v5litepod-16: host names, 4 chips a worker from the type" 0 \
	'{"cluster":{"worker":["t1v-n-5e-w-0:8482","t1v-n-5e-w-1:8482","t1v-n-5e-w-2:8482","t1v-n-5e-w-3:8482"]},"task":{"type":"worker","index":0},"rpc_layer":"grpc","accelerators":{"worker":{"0":{"TPU":4},"1":{"TPU":4},"2":{"TPU":4},"3":{"TPU":4}}}}'
# v4 names TensorCores (two a chip); the environment's bounds come first.
attrs agent-worker-number=1 accelerator-type=v4-16 worker-network-endpoints=a:b:10.0.0.1,a:b:fd00::2
run_muster "$vm" resolve
expect_out_match '"10.0.0.1:8482","\[fd00::2\]:8482"\].*"TPU":4' "v4-16: 8 chips over 2 workers; an IPv6 third field"
TPU_CHIPS_PER_HOST_BOUNDS=1,1,1 run_muster "$vm" resolve
expect_out_match '"TPU":1\}' "TPU_CHIPS_PER_HOST_BOUNDS overrides the type"
attrs agent-worker-number=0 accelerator-type=tpu7x-8 worker-network-endpoints=a,b
run_muster "$vm" resolve
expect "an accelerator type it cannot count: no accelerators, said at info" 0 \
	'{"cluster":{"worker":["a:8482","b:8482"]},"task":{"type":"worker","index":0},"rpc_layer":"grpc"}'
expect_err_match "TPU chips per worker unknown" "chips unknown: logged"

# Multislice (queued resources): MEGASCALE_* in tpu-env.  Slice 1 of 2:
# slice 0's first worker is the coordinator, its others placeholders.
ms_env="MEGASCALE_COORDINATOR_ADDRESS: 'ms-s0-w-0:8080'
MEGASCALE_NUM_SLICES: '2'
MEGASCALE_SLICE_ID: '1'
CHIPS_PER_HOST_BOUNDS: '2,2,1'"
attrs agent-worker-number=1 accelerator-type=v5p-16 "tpu-env=$ms_env" \
	worker-network-endpoints=ms-s1-w-0,ms-s1-w-1
run_muster "$vm" resolve --format text
expect "multislice: 2 slices of 2 workers, this one 1 of slice 1" 0 "worker 0 ms-s0-w-0:8482 TPU=4
worker 1 tpu-slice-0-host-1.unknown.invalid:8482 TPU=4
worker 2 ms-s1-w-0:8482 TPU=4
worker 3 ms-s1-w-1:8482 TPU=4
task: worker 3
rpc_layer: grpc
source: tpu_vm"
run_muster "$vm" env --for jax
expect_out_match "^export JAX_COORDINATOR_ADDRESS='ms-s0-w-0:8482'$" "multislice: the coordinator's host"
expect_out_match "^export JAX_NUM_PROCESSES='4'$" "multislice: workers x slices"
expect_out_match "^export JAX_PROCESS_ID='3'$" "multislice: slice x workers + worker"
run_muster "$vm" resolve
expect_err "multislice: a cluster spec refuses the workers whose address is unknown" 2 \
	"a cluster spec needs every task's address, but tpu_vm does not know 1 of the 4 (worker:1)"
MEGASCALE_SLICE_ID=0 run_muster "$vm" env --for jax
expect_out_match "^export JAX_PROCESS_ID='1'$" "the environment's MEGASCALE_SLICE_ID first, as JAX"
attrs agent-worker-number=1 "tpu-env=MEGASCALE_COORDINATOR_ADDRESS: 'ms-s0-w-0'" \
	worker-network-endpoints=ms-s1-w-0,ms-s1-w-1
run_muster "$vm" resolve
expect_err "multislice half there: unavail, naming what is missing" 2 \
	"MEGASCALE_COORDINATOR_ADDRESS is set, but MEGASCALE_NUM_SLICES is not"
MEGASCALE_NUM_SLICES=2 MEGASCALE_SLICE_ID=2 run_muster "$vm" resolve
expect_err "MEGASCALE_SLICE_ID past the slices: unavail" 2 \
	'MEGASCALE_SLICE_ID must be an index below 2 (MEGASCALE_NUM_SLICES), not "2"'


# The shipped chain: its tpu_vm entry opens where a TPU's device node is
# (/dev/accel0, on an overlay of /dev in a mount namespace of its own);
# elsewhere the plugin is not even loaded and nothing is asked.
shipped=$MUSTER_TEST_SRCDIR/conf/muster.conf
attrs agent-worker-number=2 accelerator-type=v4-32 "tpu-env=$tpu_env" \
	worker-network-endpoints=unknown:unknown:10.130.0.2,unknown:unknown:10.130.0.3,unknown:unknown:10.130.0.4,unknown:unknown:10.130.0.5
on_tpu_vm() { # ARGS...: muster -c shipped ARGS on a "TPU VM"
	mkdir -p "$tmp/dev/up" "$tmp/dev/work"
	: >"$tmp/dev/up/accel0"
	: >"$tmp/requests.log"
	rc=0
	unshare -m sh -c 'mount -t overlay overlay -o "lowerdir=/dev,upperdir=$0/up,workdir=$0/work" /dev ||
		exit 70; exec "$@"' "$tmp/dev" env -i PATH="$PATH" MUSTER_PLUGIN_PATH="$MUSTER_PLUGIN_PATH" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" \
		GCE_METADATA_HOST="$GCE_METADATA_HOST" "$MUSTER_BIN" -c "$shipped" "$@" \
		>"$tmp/out" 2>"$tmp/err" || rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	no_sanitizer_report "muster on a TPU VM"
}
if unshare -m sh -c "mount -t overlay overlay -o lowerdir=/dev,upperdir=$tmp/probe,workdir=$tmp/probe /dev" \
	2>/dev/null || { mkdir -p "$tmp/probe/u" "$tmp/probe/w" && unshare -m sh -c \
	"mount -t overlay overlay -o lowerdir=/dev,upperdir=$tmp/probe/u,workdir=$tmp/probe/w /dev"; }; then
	on_tpu_vm resolve --format text
	expect "shipped chain on a TPU VM: the tpu_vm entry answers" 0 "worker 0 10.130.0.2:8482 TPU=4
worker 1 10.130.0.3:8482 TPU=4
worker 2 10.130.0.4:8482 TPU=4
worker 3 10.130.0.5:8482 TPU=4
task: worker 2
rpc_layer: grpc
source: tpu_vm"
else
	skip "shipped chain on a TPU VM: the tpu_vm entry answers" "no overlay of /dev in a mount namespace here"
fi
if [ ! -e /dev/accel0 ] && [ ! -e /dev/vfio ]; then
	: >"$tmp/requests.log"
	rc=0
	env -i PATH="$PATH" MUSTER_PLUGIN_PATH="$MUSTER_PLUGIN_PATH" ASAN_OPTIONS="${ASAN_OPTIONS:-}" \
		GCE_METADATA_HOST="$GCE_METADATA_HOST" "$MUSTER_BIN" -c "$shipped" -v resolve \
		>"$tmp/out" 2>"$tmp/err" || rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	expect_out_match '"localhost:2222"' "shipped chain without a TPU device node: the static entry"
	expect_err_match 'gce\(tpu_vm\): notfound: neither /dev/accel0 nor /dev/vfio' \
		"tpu_vm passed over, its detect list named"
	check_eq "no TPU device node: the metadata server is never asked" "$(requests)" "[]"
else
	skip "shipped chain without a TPU device node" "this machine has /dev/accel0 or /dev/vfio"
fi

# Attributes that do not parse: unavail, naming the attribute.
bad() { # WHAT FRAGMENT KEY=VALUE...
	what=$1 frag=$2
	shift 2
	attrs "$@"
	run_muster "$vm" resolve
	expect_err "$what" 2 "$frag"
}
bad "an empty endpoint" 'worker-network-endpoints ("a,,b"): item 2 is empty' \
	agent-worker-number=0 worker-network-endpoints=a,,b
bad "an endpoint of two fields" 'item 2 ("x:y") is neither a host nor name:id:address' \
	agent-worker-number=0 worker-network-endpoints=a,x:y
bad "an endpoint address that is none" 'item 1: "10.0.0.1 x" is no host' \
	agent-worker-number=0 "worker-network-endpoints=n:i:10.0.0.1 x"
bad "agent-worker-number past the workers" \
	'agent-worker-number must be an index below 2 (the workers of worker-network-endpoints), not "2"' \
	agent-worker-number=2 worker-network-endpoints=a,b
bad "agent-worker-number not a number" 'not "w1"' agent-worker-number=w1 worker-network-endpoints=a,b
bad "agent-worker-number without the endpoints: unavail" \
	"has agent-worker-number (0) but no worker-network-endpoints" agent-worker-number=0

# Not a TPU VM: notfound, and the chain goes on.
attrs
run_muster "$vm" -v resolve
expect_err "a GCE VM without agent-worker-number: notfound" 0 \
	"the metadata server has no agent-worker-number: not a TPU VM"
check_eq "one metadata request" "$(requests)" "['instance/attributes/agent-worker-number']"
attrs agent-worker-number=0 worker-network-endpoints=a
TPU_SKIP_MDS_QUERY=true run_muster "$vm" -v resolve
expect_err "TPU_SKIP_MDS_QUERY (GKE): notfound" 0 "TPU_SKIP_MDS_QUERY is set"
check_eq "TPU_SKIP_MDS_QUERY: no request" "$(requests)" "[]"
off_gce=$(tconf other "" "$tmp/dmi-other")
redirect=$GCE_METADATA_HOST
unset GCE_METADATA_HOST
run_muster "$off_gce" -v resolve
expect_err "off GCE: notfound" 0 'not on Google Compute Engine ('"$tmp"'/dmi-other says "Standard PC'
GCE_METADATA_HOST=$redirect
export GCE_METADATA_HOST
check_eq "off GCE: no request" "$(requests)" "[]"
run_muster "$off_gce" resolve
expect_out_match '"a:8482"' "GCE_METADATA_HOST redirects the metadata server even off GCE"
stop_server
run_muster "$off_gce" resolve
expect "redirected to a metadata server that is not there: notfound" 0 \
	'{"cluster":{"worker":["localhost:2222"]},"task":{"type":"worker","index":0}}'
run_muster "$vm" resolve
expect_err "on GCE, no metadata server: unavail" 2 "metadata server (instance/attributes/agent-worker-number)"

# Options.
bad_conf=$(tconf bad 'jobs = { worker = "g"; };')
run_muster "$bad_conf" resolve
expect_err "tpu_vm refuses jobs" 4 'jobs does not apply to mode = "tpu_vm"'
bad_conf=$(tconf bad 'zone = "us-central1-a";')
run_muster "$bad_conf" resolve
expect_err "tpu_vm refuses zone" 4 'zone does not apply to mode = "tpu_vm"'
finish
