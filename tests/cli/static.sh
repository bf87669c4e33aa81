#!/bin/sh
# The built-in static backend through every command: no shared object is
# needed, so this test runs whatever plugins were built.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"

static=$here/static.conf
sparse=$here/sparse.conf

# resolve: JSON (the default), compared as structures with key order.
want='{"cluster":{"worker":["h1:2222","h2:2222"],"ps":["h3:2222"]},"task":{"type":"worker","index":1},"rpc_layer":"grpc"}'
run -c "$static" resolve
expect_status 0 "resolve"
expect_json "$want" "resolve prints the cluster, self task and rpc layer as JSON"
expect_empty_err "resolve prints nothing on stderr"
run -c "$static" resolve --format json
expect_json "$want" "resolve --format json is the default"

run -c "$sparse" resolve
expect_status 0 "resolve (sparse job, accelerators)"
expect_json '{"cluster":{"chief":["c0:2222"],"worker":{"0":"w0:2222","2":"w2:2222"}},"task":{"type":"worker","index":2},"environment":"cloud","accelerators":{"chief":{"0":{"GPU":1}},"worker":{"0":{"GPU":8},"2":{"GPU":4,"TPU":1}}}}' \
	"resolve: a sparse job is an object keyed by index, accelerators per task"

# resolve --format tf_config: this process's own TF_CONFIG, byte for byte.
run -c "$static" resolve --format tf_config
expect_status 0 "resolve --format tf_config"
expect_out '{"cluster":{"ps":["h3:2222"],"worker":["h1:2222","h2:2222"]},"task":{"type":"worker","index":1},"environment":"cloud"}' \
	"resolve --format tf_config is the own task's TF_CONFIG"
run -c "$here/noself.conf" resolve --format tf_config
expect_status 64 "resolve --format tf_config without a self task"
expect_err_match "^muster: .*tf-config --task" "... says to use tf-config --task"

# resolve --format text.
run -c "$static" resolve --format text
expect_status 0 "resolve --format text"
expect_out 'worker 0 h1:2222
worker 1 h2:2222
ps 0 h3:2222
task: worker 1
rpc_layer: grpc
source: static' "resolve --format text: tasks, then self"
run -c "$sparse" resolve --format text
expect_out 'chief 0 c0:2222 GPU=1
worker 0 w0:2222 GPU=8
worker 2 w2:2222 GPU=4 TPU=1
task: worker 2
environment: cloud
source: gpus' "resolve --format text: sparse indices, accelerators, environment, instance name"

# tf-config: Kubeflow's bytes.
run -c "$static" tf-config --task worker:0
expect_status 0 "tf-config --task worker:0"
expect_out '{"cluster":{"ps":["h3:2222"],"worker":["h1:2222","h2:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"}' \
	"tf-config: compact, jobs sorted, environment cloud"
run -c "$static" tf-config --task ps:0
expect_out '{"cluster":{"ps":["h3:2222"],"worker":["h1:2222","h2:2222"]},"task":{"type":"ps","index":0},"environment":"cloud"}' \
	"tf-config --task ps:0"
run -c "$static" tf-config --task worker:1 --sparse
expect_status 0 "tf-config --sparse"
expect_out '{"cluster":{"worker":{"1":"h2:2222"},"ps":["h3:2222"]},"task":{"type":"worker","index":1}}' \
	"tf-config --sparse: a worker sees itself and the ps job"
run -c "$static" tf-config --sparse --task ps:0
expect_out '{"cluster":{"worker":{},"ps":["h3:2222"]},"task":{"type":"ps","index":0}}' \
	"tf-config --sparse: a ps sees only itself"
run -c "$sparse" tf-config --task worker:2 --sparse
expect_out '{"cluster":{"worker":{"2":"w2:2222"},"ps":null},"task":{"type":"worker","index":2}}' \
	"tf-config --sparse without a ps job: \"ps\":null as Kubeflow writes it"
run -c "$static" tf-config --task worker:2
expect_status 5 "tf-config for a task the cluster lacks"

# master: SimpleClusterResolver's rules for static.
run -c "$static" master --task worker:0
expect_status 0 "master --task worker:0"
expect_out 'grpc://h1:2222' "master --task: the task's address with the rpc layer"
run -c "$static" master --task ps:0 --rpc-layer grpc+verbs
expect_out 'grpc+verbs://h3:2222' "master --rpc-layer replaces the scheme"
run -c "$sparse" master
expect_status 0 "master without --task"
expect_out 'grpc://c0:2222' "master without --task: the stored master string"
run -c "$sparse" master --task worker:2
expect_out 'w2:2222' "master --task without an rpc layer: no scheme"
run -c "$static" master --task nosuchjob:0
expect_status 5 "master --task nosuchjob:0"
expect_err_match "^muster: .*nosuchjob" "... names the job"
run -c "$static" master --task worker:9
expect_status 5 "master --task worker:9 (no such index)"

# accelerators.
run -c "$sparse" accelerators
expect_status 0 "accelerators (self)"
expect_json '{"GPU":4,"TPU":1}' "accelerators: this process's task's own"
run -c "$sparse" accelerators --task worker:0
expect_json '{"GPU":8}' "accelerators --task worker:0: the job's"
run -c "$sparse" accelerators --task chief:0
expect_json '{"GPU":1}' "accelerators --task chief:0"
run -c "$static" accelerators --task ps:0
expect_status 0 "accelerators of a task without any"
expect_out '{}' "accelerators: {} when there are none"
run -c "$sparse" accelerators --task worker:1
expect_status 5 "accelerators --task worker:1 (a hole in a sparse job)"

# plugins: a header and one aligned row per entry.
run -c "$static" plugins
expect_status 0 "plugins"
expect_out_match '^PLUGIN +INSTANCE +VERSION +ABI +FILE +CONFIG +WATCH +STATE$' "plugins: the header"
expect_out_match "^static +static +[0-9][^ ]* +[0-9]+\.[0-9]+ +built-in +.*/static\.conf:4 +config +built-in$" \
	"plugins: static is built in, declared at static.conf:4, followed through its config"
if [ "$(wc -l <"$tmp/out")" -eq 2 ]; then
	pass "plugins: one row per chain entry"
else
	fail "plugins: one row per chain entry"
fi
col=$(sed -n 1p "$tmp/out" | awk '{ print index($0, "STATE") }')
row=$(sed -n 2p "$tmp/out" | awk '{ print length($0) - length("built-in") + 1 }')
if [ "$col" = "$row" ]; then
	pass "plugins: columns are aligned"
else
	fail "plugins: columns are aligned" "STATE at column $col, the row's state at $row"
fi
run -c "$sparse" plugins
expect_out_match "^static +gpus " "plugins: the instance name"

# check.
run -c "$static" check
expect_status 0 "check"
expect_out "$static: OK" "check prints FILE: OK"
expect_empty_err "check prints nothing on stderr"

# MUSTER_CONF is used without -c; -c wins over it.
status=0
MUSTER_CONF=$static "$MUSTER_BIN" check >"$tmp/out" 2>"$tmp/err" || status=$?
expect_status 0 "MUSTER_CONF without -c"
expect_out "$static: OK" "check reads \$MUSTER_CONF"
status=0
MUSTER_CONF=$tmp/no-such.conf "$MUSTER_BIN" -c "$static" check >"$tmp/out" 2>"$tmp/err" ||
	status=$?
expect_out "$static: OK" "-c wins over \$MUSTER_CONF"

# Drop-ins: "<config>.d/*.conf" after the main file; a chain there replaces
# the main file's.
cp "$static" "$tmp/main.conf"
mkdir "$tmp/main.conf.d"
cat >"$tmp/main.conf.d/50-chain.conf" <<'CONF'
chain = ( { plugin = "static"; name = "dropin"; config = { jobs = { evaluator = ["e0:2222"]; }; }; } );
CONF
echo 'chain = ( { plugin = "no_such_plugin"; } );' >"$tmp/main.conf.d/README"
run -c "$tmp/main.conf" resolve --format text
expect_status 0 "resolve with a drop-in"
expect_out 'evaluator 0 e0:2222
source: dropin' "a drop-in's chain replaces the main file's; other files are ignored"

# Standard output is checked: a write error is exit 70, not a truncated
# answer and exit 0.
if [ -w /dev/full ]; then
	status=0
	"$MUSTER_BIN" -c "$static" resolve >/dev/full 2>"$tmp/err" || status=$?
	expect_status 70 "resolve > /dev/full"
	expect_err_match "^muster: error writing to standard output" "... says so"
	status=0
	"$MUSTER_BIN" -c "$static" plugins >/dev/full 2>"$tmp/err" || status=$?
	expect_status 70 "plugins > /dev/full"
	status=0
	"$MUSTER_BIN" --help >/dev/full 2>"$tmp/err" || status=$?
	expect_status 70 "--help > /dev/full"
else
	skip "write errors" "no writable /dev/full"
fi
status=0
"$MUSTER_BIN" -c "$static" check >&- 2>"$tmp/err" || status=$?
expect_status 70 "check with stdout closed"

finish
