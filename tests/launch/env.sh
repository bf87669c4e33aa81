#!/bin/sh
# muster env: each framework's variables, the three formats, the errors,
# and sh output that bash and dash evaluate without running anything.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
fixtures=$MUSTER_TEST_SRCDIR/tests/cli

conf=$MUSTER_TEST_SRCDIR/tests/launch/cluster.conf

for cmd in env hostfile run; do
	run "$cmd" --help
	expect_status 0 "$cmd --help"
done

# PyTorch: node 0 is the chief; the workers follow; ps and evaluator are out.
run -c "$conf" env --for pytorch --nproc-per-node 2
expect_status 0 "env --for pytorch (own task worker:1)"
expect_out "export MASTER_ADDR='127.0.0.1'
export MASTER_PORT='2222'
export WORLD_SIZE='6'
export RANK='4'
export LOCAL_RANK='0'
export LOCAL_WORLD_SIZE='2'
export GROUP_RANK='2'
export NODE_RANK='2'
export PET_NNODES='3'
export PET_NODE_RANK='2'
export PET_NPROC_PER_NODE='2'
export PET_MASTER_ADDR='127.0.0.1'
export PET_MASTER_PORT='2222'" "pytorch: chief is node 0, worker:1 node 2, RANK = 2 x 2 + 0"
run -c "$conf" env --for pytorch --task chief:0 --format dotenv
expect_out "MASTER_ADDR=127.0.0.1
MASTER_PORT=2222
WORLD_SIZE=3
RANK=0
LOCAL_RANK=0
LOCAL_WORLD_SIZE=1
GROUP_RANK=0
NODE_RANK=0
PET_NNODES=3
PET_NODE_RANK=0
PET_NPROC_PER_NODE=1
PET_MASTER_ADDR=127.0.0.1
PET_MASTER_PORT=2222" "pytorch --format dotenv, one process per node by default"
run -c "$conf" env --for pytorch --task ps:0 --jobs worker,ps --format json
expect_status 0 "--jobs worker,ps: the ps trains, the chief does not"
expect_json '{"MASTER_ADDR":"127.0.0.1","MASTER_PORT":"2223","WORLD_SIZE":"3","RANK":"2","LOCAL_RANK":"0","LOCAL_WORLD_SIZE":"1","GROUP_RANK":"2","NODE_RANK":"2","PET_NNODES":"3","PET_NODE_RANK":"2","PET_NPROC_PER_NODE":"1","PET_MASTER_ADDR":"127.0.0.1","PET_MASTER_PORT":"2223"}' \
	"--jobs: master is the first training job's task 0, jobs in the cluster's order"

run -c "$conf" env --for jax --task worker:0 --nproc-per-node 4 --format json
expect_status 0 "env --for jax"
expect_json '{"JAX_COORDINATOR_ADDRESS":"127.0.0.1:2222","JAX_NUM_PROCESSES":"12","JAX_PROCESS_ID":"4"}' \
	"jax: the coordinator is the chief, process ids as pytorch's ranks"

run -c "$conf" env --for tensorflow --task ps:0
expect_out "export TF_CONFIG='{\"cluster\":{\"chief\":[\"127.0.0.1:2222\"],\"evaluator\":[\"ev0:2222\"],\"ps\":[\"ps0:2222\"],\"worker\":[\"127.0.0.1:2223\",\"localhost:2224\"]},\"task\":{\"type\":\"ps\",\"index\":0},\"environment\":\"cloud\"}'" \
	"tensorflow: the task's TF_CONFIG"

# What cannot be met is named; nothing is invented.
run -c "$conf" env --for pytorch --task ps:0
expect_status 5 "a ps is not in a pytorch world by default"
expect_err_match "ps:0 is not a training task" "... and the message says so"
run -c "$fixtures/noself.conf" env --for pytorch
expect_status 5 "no own task"
expect_err_match "own task is unknown" "... named"
run -c "$fixtures/sparse.conf" env --for pytorch
expect_status 5 "a sparse training job"
expect_err_match "job 'worker' has holes.*pytorch needs dense ranks" "... named"
run -c "$conf" env --for pytorch --jobs worker,trainer
expect_status 5 "--jobs names a job the cluster lacks"
expect_err_match "no job 'trainer'" "... named"
run -c "$conf" env --for pytorch --nproc-per-node 65537
expect_status 64 "--nproc-per-node past its bound"
expect_err_match "expected a count from 1 to 65536 or 'gpu'" "... named with the bound"
run -c "$conf" env --for pytorch --task worker:7
expect_status 5 "--task beyond the job"
# No task trains: only a ps and an evaluator, and an empty job.
cat >"$tmp/notrain.conf" <<'CONF'
chain = ( { plugin = "static"; config = {
  jobs = { ps = ["ps0:2222"]; evaluator = ["ev0:2222"]; worker = []; };
  task = { type = "ps"; index = 0; }; }; } );
CONF
run -c "$tmp/notrain.conf" env --for pytorch
expect_status 5 "only a ps and an evaluator: no master"
expect_err_match "^muster: the cluster has no training task \(jobs other than ps and evaluator\) to launch$" \
	"... named"
run -c "$tmp/notrain.conf" env --for jax --jobs worker
expect_status 5 "--jobs names an empty job"
expect_err_match "^muster: the cluster has no training task \(jobs worker\) to launch$" "... named"
run -c "$tmp/notrain.conf" hostfile --for openmpi
expect_status 5 "hostfile: no training task"
run -c "$tmp/notrain.conf" run --for pytorch -- true
expect_status 5 "run: no training task"

# A job named master is node 0 when there is no chief, wherever it is listed.
cat >"$tmp/master.conf" <<'CONF'
chain = ( { plugin = "static"; config = {
  jobs = { worker = ["w0:2222", "w1:2222"]; master = ["m0:1234"]; ps = ["ps0:1"]; };
  task = { type = "worker"; index = 1; }; }; } );
CONF
run -c "$tmp/master.conf" env --for pytorch --format dotenv
expect_out_match '^MASTER_ADDR=m0$' "pytorch: the master job's task 0 is MASTER_ADDR"
expect_out_match '^MASTER_PORT=1234$' "... its port MASTER_PORT"
expect_out_match '^RANK=2$' "... it is node 0, so worker:1 is node 2"
run -c "$tmp/master.conf" env --for jax --format dotenv
expect_out_match '^JAX_COORDINATOR_ADDRESS=m0:1234$' "jax: the master job's task 0 coordinates"
run -c "$conf" env --for mxnet
expect_status 64 "unknown framework"
expect_err_match "unknown framework 'mxnet' \\(tensorflow pytorch jax\\)" "... named"
run -c "$conf" env
expect_status 64 "env without --for"
run -c "$conf" env --for pytorch --nproc-per-node 0
expect_status 64 "--nproc-per-node 0"
run -c "$conf" env --for pytorch --format yaml
expect_status 64 "unknown format"

# Hostile job names reach TF_CONFIG; evaluated by real shells, nothing runs,
# and the variable holds exactly the TF_CONFIG muster prints.
evil="a'b\$(touch $tmp/pwned1)\`touch $tmp/pwned2\`;touch $tmp/pwned3
\"x\\\\\"
export TF_CONFIG=\$(touch $tmp/pwned4)'"
evil_json=$(printf '%s' "$evil" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')
tf="{\"cluster\":{$evil_json:[\"h0:1\"],\"worker\":[\"h1:2222\"]},\"task\":{\"type\":\"worker\",\"index\":0}}"
TF_CONFIG=$tf run -c "$fixtures/tf-only.conf" env --for tensorflow
expect_status 0 "env --for tensorflow with a hostile job name"
cp "$tmp/out" "$tmp/env.sh"
TF_CONFIG=$tf run -c "$fixtures/tf-only.conf" tf-config --task worker:0
cp "$tmp/out" "$tmp/want"
for sh in bash dash; do
	if ! command -v "$sh" >/dev/null 2>&1; then
		skip "$sh evaluates the sh output" "$sh not installed"
		continue
	fi
	rm -f "$tmp"/pwned*
	if $sh -c 'eval "$(cat "$1")" && printf "%s\n" "$TF_CONFIG"' sh "$tmp/env.sh" >"$tmp/got" 2>"$tmp/sherr" &&
	    cmp -s "$tmp/got" "$tmp/want" && ! ls "$tmp"/pwned* >/dev/null 2>&1; then
		pass "$sh: eval returns 0, runs nothing, TF_CONFIG exact"
	else
		fail "$sh: eval of the hostile sh output" "$(cat "$tmp/sherr")" "$(ls "$tmp")"
	fi
done
TF_CONFIG=$tf run -c "$fixtures/tf-only.conf" env --for tensorflow --format json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["TF_CONFIG"]+"\n" != open(sys.argv[2]).read())' "$tmp/out" "$tmp/want"; then
	pass "--format json: the same value, JSON-escaped"
else
	fail "--format json with a hostile job name"
fi
# A hostile address never gets this far: the backend refuses it, with
# nothing printed to evaluate.
nl='
'
for addr in "h\$(touch $tmp/pwned5):1" "h'; touch $tmp/pwned6; ':1" "h${nl}touch $tmp/pwned7${nl}:1"; do
	json=$(printf '%s' "$addr" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')
	shown=$(printf '%s' "$addr" | tr '\n' '^')
	TF_CONFIG="{\"cluster\":{\"worker\":[$json]},\"task\":{\"type\":\"worker\",\"index\":0}}" \
		run -c "$fixtures/tf-only.conf" env --for pytorch
	expect_status 2 "TF_CONFIG address $shown: refused by the backend"
	check "... nothing printed" test ! -s "$tmp/out"
	cat >"$tmp/evil.conf" <<CONF
chain = ( { plugin = "static"; config = {
  jobs = { worker = [$json]; }; task = { type = "worker"; index = 0; }; }; } );
CONF
	run -c "$tmp/evil.conf" env --for pytorch
	expect_status 4 "static address $shown: a configuration error"
	check "... nothing printed" test ! -s "$tmp/out"
done
if ls "$tmp"/pwned* >/dev/null 2>&1; then fail "nothing ran"; else pass "nothing ran"; fi

finish
