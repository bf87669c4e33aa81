#!/bin/sh
# kubernetes plugin: the query — explicit connection with a token, jobs and
# label selectors (encoded), paging and 410 restarts, namespaces, order,
# addresses, ports, self identity, master, IPv6, plain http.
. "$MUSTER_TEST_SRCDIR/tests/kubernetes/lib.sh"
make_pki
token_setup
start_server --token-file "$tmp/server-token"

workers_natural="worker 0 10.244.1.10:8470
worker 1 10.244.1.11:8470
worker 2 10.244.1.12:8470
worker 3 10.244.1.13:8470
worker 4 10.244.1.14:8470
worker 5 10.244.1.15:8470
worker 6 10.244.1.16:8470
worker 7 10.244.1.17:8470
worker 8 10.244.1.18:8470
worker 9 10.244.1.19:8470
worker 10 10.244.1.20:8470
worker 11 10.244.1.21:8470"

# TF's defaults otherwise: { worker = ["job-name=tensorflow"] }, port 8470,
# rpc layer grpc; numeric-aware order (worker-10 after worker-9).
c=$(conf default "$(explicit)")
run_muster "$c" resolve --format text
expect "defaults, natural order" 0 "$workers_natural
rpc_layer: grpc
source: k8s"
check_eq "one request, in the default namespace, limit 500, compressed" \
	"$(py_log '[(r["path"], r["raw_query"], r["gzip"], r["auth"], r["accept"]) for r in reqs]')" \
	"[('/api/v1/namespaces/default/pods', 'labelSelector=job-name%3Dtensorflow&limit=500', True, 'ok', 'application/json')]"

# TF's order: names as strings, per selector.
c=$(conf name "$(explicit) order = \"name\";")
run_muster "$c" resolve --format text
expect "order = name" 0 "worker 0 10.244.1.10:8470
worker 1 10.244.1.11:8470
worker 2 10.244.1.20:8470
worker 3 10.244.1.21:8470
worker 4 10.244.1.12:8470
worker 5 10.244.1.13:8470
worker 6 10.244.1.14:8470
worker 7 10.244.1.15:8470
worker 8 10.244.1.16:8470
worker 9 10.244.1.17:8470
worker 10 10.244.1.18:8470
worker 11 10.244.1.19:8470
rpc_layer: grpc
source: k8s"

# The index label gives the index.
c=$(conf label "$(explicit) index_label = \"index\";")
run_muster "$c" resolve --format text
expect "order = label" 0 "$workers_natural
rpc_layer: grpc
source: k8s"

# TF's address (the node's IP), another port.
c=$(conf hostip "$(explicit) address = \"host_ip\"; port = 2222; jobs = { ps = [\"job-name=ps\"]; };")
run_muster "$c" resolve --format text
expect "host_ip" 0 "ps 0 192.168.0.9:2222
ps 1 192.168.0.9:2222
rpc_layer: grpc
source: k8s"

# A named container port, falling back to `port` where a pod has none.
c=$(conf portname "$(explicit) port_name = \"tfjob-port\"; port = 9999; order = \"name\";
    jobs = { worker = \"job-name=tensorflow\"; ps = [\"job-name=ps\"]; };")
POD_NAME=tensorflow-ps-1 run_muster "$c" resolve
expect "port_name, two jobs, self identity from POD_NAME" 0 \
'{"cluster":{"worker":["10.244.1.10:2222","10.244.1.11:2222","10.244.1.20:2222","10.244.1.21:2222","10.244.1.12:2222","10.244.1.13:2222","10.244.1.14:2222","10.244.1.15:2222","10.244.1.16:2222","10.244.1.17:2222","10.244.1.18:2222","10.244.1.19:2222"],"ps":["10.244.2.10:9999","10.244.2.11:9999"]},"task":{"type":"ps","index":1},"rpc_layer":"grpc"}'
POD_NAME=tensorflow-ps-1 run_muster "$c" master
expect "master: the own task" 0 "grpc://10.244.2.11:9999"
run_muster "$c" master
expect "master: unknown own task" 0 ""
run_muster "$c" master --task worker:2 --rpc-layer grpc+verbs
expect "master: given task and rpc layer" 0 "grpc+verbs://10.244.1.20:2222"
HOSTNAME=tensorflow-worker-10 run_muster "$c" master
expect "self identity from HOSTNAME" 0 "grpc://10.244.1.20:2222"
c=$(conf selfpod "$(explicit) self_pod = \"tensorflow-worker-11\"; rpc_layer = \"\";")
POD_NAME=tensorflow-worker-1 run_muster "$c" master
expect "self_pod wins over POD_NAME; rpc_layer \"\" has no prefix" 0 "10.244.1.21:8470"

# Any label-selector syntax passes through encoded: set-based, negation,
# inequality, existence.
c=$(conf selectors "$(explicit) jobs = { t = [\"app in (trainer,eval),!canary\"];
    w = [\"tier!=web,app notin (trainer)\"]; e = [\"canary\"]; };")
run_muster "$c" resolve --format text
expect "set-based selectors" 0 "$(echo "$workers_natural" | sed 's/^worker/t/')
w 0 10.244.2.10:8470
e 0 10.244.3.10:8470
rpc_layer: grpc
source: k8s"
check_eq "selectors URL-encoded" "$(py_log '" ".join(r["raw_query"].split("&")[0] for r in reqs)')" \
	"labelSelector=app%20in%20%28trainer%2Ceval%29%2C%21canary labelSelector=tier%21%3Dweb%2Capp%20notin%20%28trainer%29 labelSelector=canary"

# A pod two selectors match is one task (TF lists it twice).
c=$(conf overlap "$(explicit) jobs = { worker = [\"job-name=tensorflow\", \"app=trainer\", \"index in (3,4)\"]; };")
run_muster "$c" resolve --format text
expect "overlapping selectors" 0 "$workers_natural
rpc_layer: grpc
source: k8s"

# Paging: one connection, the continue token handed back.
c=$(conf paging "$(explicit) limit = 5;")
run_muster "$c" -vv resolve --format text
expect "limit = 5" 0 "$workers_natural
rpc_layer: grpc
source: k8s"
check_eq "three pages" "$(py_log '[r["items"] for r in reqs]')" "[5, 5, 2]"
check_eq "continue tokens" "$(py_log '["continue" in r["query"] for r in reqs]')" "[False, True, True]"
check_eq "one connection for all pages" "$(py_log 'len(set(r["client_port"] for r in reqs))')" "1"
expect_err "pages 1 and 2 read while the next was fetched" 0 \
	"job worker: 3 pages of pods matching \"job-name=tensorflow\", 2 read while the next was fetched"
c=$(conf nolimit "$(explicit) limit = 0;")
run_muster "$c" resolve --format text
check_eq "limit = 0: one unpaged request" "$(py_log '[r["raw_query"] for r in reqs]')" \
	"['labelSelector=job-name%3Dtensorflow']"

# 410 Gone on an expired continue token: the listing starts again.
start_server --token-file "$tmp/server-token" --mode expire
c=$(conf expire "$(explicit) limit = 5;")
run_muster "$c" -v resolve --format text
expect "410 restarts the listing" 0 "$workers_natural
rpc_layer: grpc
source: k8s"
expect_err "410 is logged" 0 "the continue token expired (410 Gone) on page 2; listing pods matching \"job-name=tensorflow\" again from the start"
check_eq "requests after a 410" "$(py_log '[(r.get("answer", 200), "continue" in r["query"]) for r in reqs]')" \
	"[(200, False), (410, True), (200, False), (200, True), (200, True)]"

# Encodings: gzip is asked for and decoded here; a server that does not
# compress, or sends a stream of several gzip members, gives the same.
for mode in identity gzipmembers; do
	start_server --token-file "$tmp/server-token" --mode $mode
	c=$(conf $mode "$(explicit) limit = 5;")
	run_muster "$c" resolve --format text
	expect "answers in $mode" 0 "$workers_natural
rpc_layer: grpc
source: k8s"
done

# Namespaces: the option; all namespaces as TF (same name twice: by namespace).
start_server --token-file "$tmp/server-token"
c=$(conf ns "$(explicit) namespace = \"other\";")
run_muster "$c" resolve --format text
expect "namespace" 0 "worker 0 10.244.9.10:8470
rpc_layer: grpc
source: k8s"
check_eq "namespace path" "$(py_log 'reqs[0]["path"]')" "/api/v1/namespaces/other/pods"
c=$(conf allns "$(explicit) all_namespaces = true; limit = 4;")
run_muster "$c" resolve --format text
expect "all_namespaces" 0 "worker 0 10.244.1.10:8470
worker 1 10.244.9.10:8470
worker 2 10.244.1.11:8470
worker 3 10.244.1.12:8470
worker 4 10.244.1.13:8470
worker 5 10.244.1.14:8470
worker 6 10.244.1.15:8470
worker 7 10.244.1.16:8470
worker 8 10.244.1.17:8470
worker 9 10.244.1.18:8470
worker 10 10.244.1.19:8470
worker 11 10.244.1.20:8470
worker 12 10.244.1.21:8470
rpc_layer: grpc
source: k8s"
check_eq "all_namespaces path" "$(py_log 'reqs[0]["path"]')" "/api/v1/pods"
POD_NAME=tensorflow-worker-0 POD_NAMESPACE=other run_muster "$c" master
expect "all_namespaces: POD_NAMESPACE picks the own pod" 0 "grpc://10.244.9.10:8470"

# IPv6: pod IPs in brackets; the API server itself on ::1.
if python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null; then
	start_server --token-file "$tmp/server-token" --scenario ipv6 --ipv6
	c=$(conf v6 "$(explicit) jobs = { worker = [\"job-name=tensorflow\", \"job-name=ps\"]; };")
	POD_NAME=tensorflow-worker-2 run_muster "$c" master
	expect "IPv6 pod IP, server on [::1]" 0 "grpc://[fd00:10:244::12]:8470"
	c=$(conf v6h "$(explicit) address = \"host_ip\"; jobs = { worker = [\"index=1\"]; };")
	run_muster "$c" resolve --format text
	expect "IPv6 host IP" 0 "worker 0 [fd00:192:168::2]:8470
rpc_layer: grpc
source: k8s"
else
	skip "IPv6 checks" "no IPv6 loopback"
fi

# kubectl proxy: plain http, no credentials.
start_server --plain
c=$(conf proxy "server = \"$URL/\"; jobs = { ps = [\"job-name=ps\"]; };")
run_muster "$c" resolve --format text
expect "plain http (kubectl proxy)" 0 "ps 0 10.244.2.10:8470
ps 1 10.244.2.11:8470
rpc_layer: grpc
source: k8s"
check_eq "no Authorization header" "$(py_log 'reqs[0]["auth"]')" "none"

finish
