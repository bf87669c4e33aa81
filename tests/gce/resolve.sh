#!/bin/sh
# gce plugin: the query — jobs and groups, project/zone from the metadata
# server, O(pages) requests (listInstances RUNNING + one instances.list per
# zone, filter and fields), paging, order (natural, name, TF's ip),
# addresses (internal, external, interface, IPv6), accelerators, self
# identity, master, rpc_layer, port.
. "$MUSTER_TEST_SRCDIR/tests/gce/lib.sh"
start_server

workers="worker 0 10.128.0.2:8470
worker 1 10.128.1.2:8470
worker 2 10.128.2.2:8470
worker 3 10.128.3.2:8470
worker 4 10.128.4.2:8470
worker 5 10.128.5.2:8470
worker 6 10.128.6.2:8470
worker 7 10.128.7.2:8470
worker 8 10.128.8.2:8470
worker 9 10.128.9.2:8470
worker 10 10.128.10.2:8470
worker 11 10.128.11.2:8470"

# Defaults: project, zone and token from the metadata server, natural order
# (tf-worker-10 after tf-worker-9), STOPPING tf-worker-12 left out, self
# from instance/name (tf-worker-3).
c=$(conf default "jobs = { worker = \"tf-workers\"; };")
run_muster "$c" resolve --format text
expect "defaults" 0 "$workers
task: worker 3
rpc_layer: grpc
source: g"
check_eq "requests: 2 metadata + token, 1 listInstances, 1 instances.list, instance/name" \
	"$(py_log '[(r["method"], r["path"].split("/v1/")[1], r["code"]) for r in reqs]')" \
	"[('GET', 'project/project-id', 200), ('GET', 'instance/zone', 200), ('GET', 'instance/service-accounts/default/token', 200), ('POST', 'projects/muster-test/zones/us-central1-a/instanceGroups/tf-workers/listInstances', 200), ('GET', 'projects/muster-test/zones/us-central1-a/instances', 200), ('GET', 'instance/name', 200)]"
check_eq "listInstances asks for RUNNING instances, URLs only, 500 a page" \
	"$(py_log '[(r["body"], r["query"]) for r in reqs if r["kind"] == "listInstances"]')" \
	"[({'instanceState': 'RUNNING'}, {'maxResults': '500', 'fields': 'items/instance,nextPageToken'})]"
check_eq "instances.list: a RUNNING filter and a fields selection" \
	"$(py_log '[(r["query"]["filter"], r["query"]["fields"], r["auth"]) for r in reqs if r["kind"] == "instances.list"]')" \
	"[('status = RUNNING', 'nextPageToken,items(name,status,networkInterfaces(networkIP,ipv6Address,accessConfigs(natIP),ipv6AccessConfigs(externalIpv6)),guestAccelerators(acceleratorType,acceleratorCount))', 'ok')]"
check_eq "one connection for all requests" "$(py_log 'len(set(r["client_port"] for r in reqs))')" "1"

# TF's order: the ip:port strings sorted as strings.
c=$(conf ip "jobs = { worker = \"tf-workers\"; }; order = \"ip\"; self_instance = \"none\";")
run_muster "$c" resolve --format text
expect "order = ip (TF's)" 0 "worker 0 10.128.0.2:8470
worker 1 10.128.1.2:8470
worker 2 10.128.10.2:8470
worker 3 10.128.11.2:8470
worker 4 10.128.2.2:8470
worker 5 10.128.3.2:8470
worker 6 10.128.4.2:8470
worker 7 10.128.5.2:8470
worker 8 10.128.6.2:8470
worker 9 10.128.7.2:8470
worker 10 10.128.8.2:8470
worker 11 10.128.9.2:8470
rpc_layer: grpc
source: g"
check_eq "self_instance: no instance/name request" \
	"$(py_log 'sum(1 for r in reqs if r["path"].endswith("instance/name"))')" "0"
c=$(conf name "jobs = { worker = \"tf-workers\"; }; order = \"name\"; self_instance = \"tf-worker-10\";")
run_muster "$c" resolve --format text
expect "order = name" 0 "worker 0 10.128.0.2:8470
worker 1 10.128.1.2:8470
worker 2 10.128.10.2:8470
worker 3 10.128.11.2:8470
worker 4 10.128.2.2:8470
worker 5 10.128.3.2:8470
worker 6 10.128.4.2:8470
worker 7 10.128.5.2:8470
worker 8 10.128.6.2:8470
worker 9 10.128.7.2:8470
worker 10 10.128.8.2:8470
worker 11 10.128.9.2:8470
task: worker 2
rpc_layer: grpc
source: g"

# Several jobs, several groups (one in another zone, a regional one with
# members in two zones), port and rpc_layer: one instances.list per zone.
c=$(conf multi "jobs = { ps = \"tf-ps\"; worker = [\"us-central1-b/tf-workers-b\", \"regional\"]; };
	port = 2222; rpc_layer = \"grpc+verbs\"; project = \"muster-test\"; zone = \"us-central1-a\";")
run_muster "$c" resolve --format text
expect "jobs, groups, zones" 0 "ps 0 10.128.20.10:2222
ps 1 10.128.20.11:2222
worker 0 10.132.0.99:2222
worker 1 10.132.0.10:2222
worker 2 10.132.0.11:2222
worker 3 10.128.60.10:2222
worker 4 10.132.60.11:2222
rpc_layer: grpc+verbs
source: g"
check_eq "project and zone configured: no metadata but the token and name" \
	"$(py_log '[r["path"].split("/v1/")[1] for r in reqs if r["kind"] == "metadata"]')" \
	"['instance/service-accounts/default/token', 'instance/name']"
check_eq "3 listInstances, one instances.list per zone" \
	"$(py_log 'sorted((r["kind"], r["path"].split("/zones/")[1].split("/")[0]) for r in reqs if r["kind"] != "metadata")')" \
	"[('instances.list', 'us-central1-a'), ('instances.list', 'us-central1-b'), ('listInstances', 'us-central1-a'), ('listInstances', 'us-central1-a'), ('listInstances', 'us-central1-b')]"
run_muster "$c" master --task worker:1
expect "master" 0 "grpc+verbs://10.132.0.10:2222"

# One instance in two groups of a job is one task, the first group's
# (the members are de-duplicated in one sort, not a scan per member).
c=$(conf twice "jobs = { ps = [\"tf-ps\", \"tf-ps\"]; worker = \"tf-ps\"; };
	port = 2222; project = \"muster-test\"; zone = \"us-central1-a\";")
run_muster "$c" resolve --format text
expect "an instance in two groups: one task" 0 "ps 0 10.128.20.10:2222
ps 1 10.128.20.11:2222
worker 0 10.128.20.10:2222
worker 1 10.128.20.11:2222
rpc_layer: grpc
source: g"

# Addresses: external (NAT IP), interface, IPv6.
c=$(conf ext "jobs = { ps = \"tf-ps\"; }; address = \"external\";")
run_muster "$c" resolve --format text
expect "address = external" 0 "ps 0 34.70.1.10:8470
ps 1 34.70.1.11:8470
rpc_layer: grpc
source: g"
c=$(conf noext "jobs = { worker = \"tf-workers\"; }; address = \"external\";")
run_muster "$c" resolve
expect_err "no external address" $EX_UNAVAIL \
	"gce(g): unavail: job worker: instance tf-worker-0 (zone us-central1-a) has no external address on network interface 0"
c=$(conf nic1 "jobs = { ps = \"tf-ps\"; }; interface = 1;")
run_muster "$c" resolve
expect_err "no second interface" $EX_UNAVAIL \
	"instance tf-ps-0 (zone us-central1-a) has no internal address on network interface 1"
c=$(conf v6 "jobs = { worker = \"v6-group\"; };")
run_muster "$c" resolve --format text
expect "IPv6-only interface, bracketed" 0 "worker 0 [fd20:b2c:5e4:0:0:1::]:8470
worker 1 10.128.40.11:8470
rpc_layer: grpc
source: g"

# Accelerators: acceleratorType basenames, counts summed, TPU by name.
c=$(conf gpu "jobs = { worker = \"gpu-workers\"; }; self_instance = \"gpu-0\";")
run_muster "$c" resolve
expect "accelerators" 0 '{"cluster":{"worker":["10.128.30.10:8470","10.128.30.11:8470","10.128.30.12:8470"]},"task":{"type":"worker","index":0},"rpc_layer":"grpc","accelerators":{"worker":{"0":{"GPU":8},"1":{"GPU":4},"2":{"TPU":4}}}}'
run_muster "$c" accelerators
expect "own accelerators" 0 '{"GPU":8}'

# Paging: 1,000 instances in 4 groups, pages of 100: listInstances 4 x 3
# pages, instances.list 13 pages (1,250 instances in the zone).
start_server --scenario big:1000:4
c=$(conf paged "jobs = { worker = [\"tf-group-0\", \"tf-group-1\", \"tf-group-2\", \"tf-group-3\"]; };
	page_size = 100; self_instance = \"tf-2-7\";")
run_muster "$c" resolve --format text
check_eq "paged: all 1,000 tasks" "$(printf '%s\n' "$out" | grep -c '^worker ')" "1000"
check_eq "paged: task 507 is tf-2-7" "$(printf '%s\n' "$out" | grep '^task:')" "task: worker 507"
check_eq "paged: requests" \
	"$(py_log 'sorted(__import__("collections").Counter(r["kind"] for r in reqs).items())')" \
	"[('instances.list', 13), ('listInstances', 12), ('metadata', 3)]"
check_eq "paged: page tokens followed" \
	"$(py_log 'sum(1 for r in reqs if "pageToken" in r["query"])')" "20"

finish
