#!/bin/sh
# The shipped default configuration (conf/muster.conf): tf_config, the
# schedulers (tests/hpc/chain.sh), then a single-task static cluster on
# localhost:2222; a broken TF_CONFIG ends the chain (exit 2);
# MUSTER_NO_DETECT=1 skips tf_config.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"

conf=$MUSTER_TEST_SRCDIR/conf/muster.conf
if [ ! -f "$conf" ]; then
	skip "the default configuration" "$conf is missing"
	finish
fi

# Every plugin the default chain names must be built for `check` to pass.
missing=
for p in tf_config slurm mpi pbs lsf sagemaker; do
	have_plugin "$p" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	skip "check the default configuration" "not built:$missing"
else
	run -c "$conf" check
	expect_status 0 "check the default configuration"
	expect_out "$conf: OK" "... is OK"
	expect_empty_err "... without a warning"
fi

if ! have_plugin tf_config; then
	skip "the default configuration" "the tf_config plugin was not built"
	finish
fi

# TF_CONFIG unset: tf_config answers notfound, static answers.
local='{"cluster":{"worker":["localhost:2222"]},"task":{"type":"worker","index":0},"rpc_layer":"grpc"}'
run -c "$conf" resolve
expect_status 0 "resolve, TF_CONFIG unset"
expect_json "$local" "TF_CONFIG unset: a single task on localhost:2222"
if [ -z "$missing" ]; then
	expect_empty_err "TF_CONFIG unset: no warning"
else
	skip "TF_CONFIG unset: no warning" "an entry's plugin is not built:$missing"
fi
status=0
MUSTER_CONF=$conf "$MUSTER_BIN" resolve >"$tmp/out" 2>"$tmp/err" || status=$?
expect_json "$local" "the same through \$MUSTER_CONF"
run -c "$conf" resolve --format text
expect_out 'worker 0 localhost:2222
task: worker 0
rpc_layer: grpc
source: localhost' "resolve --format text, TF_CONFIG unset"
run -c "$conf" master --task worker:0
expect_out 'grpc://localhost:2222' "master --task worker:0, TF_CONFIG unset"
run -c "$conf" master
expect_out 'grpc://localhost:2222' "master: the default config's stored master, TF_CONFIG unset"

run -c "$conf" plugins
expect_status 0 "plugins"
expect_out_match '^tf_config +tf_config +[^ ]+ +1\.[0-9]+ +/[^ ]*/tf_config\.so +.*muster\.conf:[0-9]+ +watch +loaded$' \
	"plugins: tf_config is loaded from its shared object"
expect_out_match '^static +localhost +.* built-in$' "plugins: static, instance localhost, built in"

# with_tf_config VALUE ARGS...: run muster with TF_CONFIG=VALUE.
with_tf_config() {
	value=$1
	shift
	status=0
	TF_CONFIG=$value "$MUSTER_BIN" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
}

# TF_CONFIG set: the TF job's cluster.
tfc='{"cluster":{"chief":["c0:2222"],"worker":["w0:2222","w1:2222"],"ps":["p0:2222"]},"task":{"type":"worker","index":1}}'
with_tf_config "$tfc" -c "$conf" resolve
expect_status 0 "resolve, TF_CONFIG set"
expect_json '{"cluster":{"chief":["c0:2222"],"worker":["w0:2222","w1:2222"],"ps":["p0:2222"]},"task":{"type":"worker","index":1}}' \
	"TF_CONFIG set: the TF job's cluster and task"
with_tf_config "$tfc" -c "$conf" tf-config --task ps:0
expect_out '{"cluster":{"chief":["c0:2222"],"ps":["p0:2222"],"worker":["w0:2222","w1:2222"]},"task":{"type":"ps","index":0},"environment":"cloud"}' \
	"TF_CONFIG set: tf-config for another task"
with_tf_config "$tfc" -c "$conf" resolve --format text
expect_out_match '^source: tf_config$' "TF_CONFIG set: tf_config answered"

# Python's json.dumps spacing is accepted as well.
with_tf_config '{"cluster": {"worker": ["w0:2222", "w1:2222"]}, "task": {"type": "worker", "index": 0}, "rpc_layer": "grpc"}' \
	-c "$conf" master
expect_status 0 "master, spaced TF_CONFIG"
expect_out 'grpc://w0:2222' "master: this task's address with TF_CONFIG's rpc_layer"

# The TF_CONFIG Kubeflow's operator writes comes back byte for byte.
kubeflow='{"cluster":{"evaluator":["test-tfjob-evaluator-0.ns3.svc.tf.training.io:2222"],"ps":["test-tfjob-ps-0.ns3.svc.tf.training.io:2222"],"worker":["test-tfjob-worker-0.ns3.svc.tf.training.io:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"}'
with_tf_config "$kubeflow" -c "$conf" resolve --format tf_config
expect_status 0 "resolve --format tf_config, Kubeflow's TF_CONFIG"
expect_out "$kubeflow" "Kubeflow's TF_CONFIG round-trips byte for byte"

# A cluster of one task: TF's master() is "", an empty line.
with_tf_config '{"cluster":{"worker":["w0:2222"]},"task":{"type":"worker","index":0}}' \
	-c "$conf" master
expect_status 0 "master, single-task TF_CONFIG"
expect_out '' "master: an empty line when it cannot be known"

# A malformed TF_CONFIG: tf_config answers unavail and the chain ends
# there, naming the variable, rather than answer the localhost cluster.
with_tf_config 'not json' -c "$conf" resolve
expect_status 2 "resolve, malformed TF_CONFIG: unavail"
expect_err_match '^muster: .*tf_config\(tf_config\): unavail: TF_CONFIG is not valid JSON' \
	"malformed TF_CONFIG: stderr names TF_CONFIG"
check "malformed TF_CONFIG: no cluster" test ! -s "$tmp/out"

# MUSTER_NO_DETECT: tf_config (an entry that detects its environment)
# stands aside, even for a malformed TF_CONFIG, and static answers; "0"
# leaves it on.
status=0
MUSTER_NO_DETECT=1 TF_CONFIG=$tfc "$MUSTER_BIN" -c "$conf" resolve >"$tmp/out" 2>"$tmp/err" ||
	status=$?
expect_status 0 "resolve, TF_CONFIG set, MUSTER_NO_DETECT=1"
expect_json "$local" "MUSTER_NO_DETECT=1: tf_config stands aside, the localhost cluster"
status=0
MUSTER_NO_DETECT=1 TF_CONFIG='not json' "$MUSTER_BIN" -c "$conf" resolve >"$tmp/out" \
	2>"$tmp/err" || status=$?
expect_status 0 "resolve, malformed TF_CONFIG, MUSTER_NO_DETECT=1"
expect_json "$local" "MUSTER_NO_DETECT=1: a malformed TF_CONFIG is not read"
status=0
MUSTER_NO_DETECT=0 TF_CONFIG=$tfc "$MUSTER_BIN" -c "$conf" resolve --format text >"$tmp/out" \
	2>"$tmp/err" || status=$?
expect_out_match '^source: tf_config$' "MUSTER_NO_DETECT=0: tf_config answers"

finish
