#!/bin/sh
# muster status over the kubernetes plugin: Pending pods are members not
# ready (plugin ABI 1.8), shown beside the pods that are running while the
# entry answers tryagain, at the indices they will have, in the table and
# in JSON; a job without pods is one too; with --watch the frames follow
# the pods to Running.
. "$MUSTER_TEST_SRCDIR/tests/kubernetes/lib.sh"
. "$MUSTER_TEST_SRCDIR/tests/watch/lib.sh"
make_pki
token_setup

start_server --token-file "$tmp/server-token" --scenario pending --pending-polls 1000
c=$(conf pending "$(explicit)")
POD_NAME=tensorflow-worker-1 run_muster "$c" status
expect_status $EX_TRYAGAIN "Pending pods: status exits 3 (tryagain), as resolve does"
expect_out_match '^Not ready: k8s \(kubernetes\) answered tryagain: 10/12 pods running; waiting for tensorflow-worker-3: Pending$' \
	"the title names the entry and its answer"
expect_out_match '^So far: 10 tasks on 10 nodes, 2 not ready; this process: worker:1 at 10.244.1.11:8470$' \
	"what is ready so far, and this process's task"
expect_out_match '^\* 10\.244\.1\.11 +worker:1 +8470 +- +ready$' "the running pods are nodes, the own one starred"
expect_out_match '^  - +worker:3 +- +- +not ready: Pending \(tensorflow-worker-3\)$' \
	"a Pending pod is a member not ready, at the index it will have"
expect_out_match '^  - +worker:7 +- +- +not ready: Pending \(tensorflow-worker-7\)$' \
	"so is the other"
expect_err "the failure is said on stderr too" $EX_TRYAGAIN "tryagain: 10/12 pods running"

POD_NAME=tensorflow-worker-1 run_muster "$c" status --format json
if python3 - "$tmp/out" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "tryagain" and d["source"] == "k8s", d["status"]
assert d["message"].startswith("k8s (kubernetes) answered tryagain: 10/12 pods running")
assert d["self"] == {"job": "worker", "index": 1}
assert [t["index"] for n in d["nodes"] for t in n["tasks"]] == [0, 1, 2, 4, 5, 6, 8, 9, 10, 11]
assert d["pending"] == [
    {"job": "worker", "index": 3, "name": "tensorflow-worker-3", "reason": "Pending"},
    {"job": "worker", "index": 7, "name": "tensorflow-worker-7", "reason": "Pending"}]
assert [(e["instance"], e["answer"]) for e in d["entries"]] == [("k8s", "tryagain")]
EOP
then pass "JSON: the running tasks, the Pending pods, the entry's answer"
else fail "JSON: the running tasks, the Pending pods, the entry's answer"; fi

# A job whose selector matches nothing: a member not ready, index unknown.
start_server --token-file "$tmp/server-token" --scenario gpu
c=$(conf empty "$(explicit) jobs = { gpu = \"job-name=gpu\"; ps = [\"job-name=ps\", \"app=ps\"]; };")
run_muster "$c" status --format json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["status"]=="tryagain" and d["pending"]==[{"job":"ps","index":None,"name":None,"reason":"no pod matches \"job-name=ps\" or its other selectors"}] and sum(len(n["tasks"]) for n in d["nodes"])==6, d' "$tmp/out"
then pass "a job without pods: pending, its index unknown, the GPU job's pods ready"
else fail "a job without pods: pending, its index unknown, the GPU job's pods ready"; fi

# --watch: the tryagain frame, then (the pods Running after three
# listings) the cluster.
start_server --token-file "$tmp/server-token" --scenario pending --pending-polls 3
c=$(conf watch "$(explicit)")
watch_start "$MUSTER_BIN" -c "$c" status --watch --format json --settle-ms 20
cleanup() { kill $pid 2>/dev/null || true; stop_server; }
await 1 "--watch: the first frame" 20
line_is 1 "c['status']=='tryagain' and len(c['pending'])==2" "--watch: first, the pods not ready"
await 2 "--watch: a frame once the pods run" 10
line_is 2 "c['status']=='success' and c['pending']==[] and sum(len(n['tasks']) for n in c['nodes'])==12" \
	"--watch: then the whole cluster"
watch_stop "--watch: SIGTERM ends it with status 0"
finish
