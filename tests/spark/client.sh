#!/bin/sh
# The spark plugin (through `muster resolve`) against a Python reservation
# server written from the protocol description (tests/spark/server.py):
# configuration, the template, the nine registration fields, the
# environment TFoS uses, unreachable and slow servers, duplicates, a retried
# executor, and hostile replies (unavail, never a crash, hang or leak).
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
. "$MUSTER_TEST_SRCDIR/tests/spark/lib.sh"
unset TFOS_SERVER_HOST TFOS_SERVER_PORT TENSORFLOW_PORT MUSTER_TEST_EXECUTOR_ID

# py_check PROGRAM DESCRIPTION: a Python check over $tmp/out and the
# server's request log ($server_log); pass when it exits 0.
py_check() {
	if python3 -c "$1" "$tmp/out" "$server_log" 2>"$tmp/pyerr"; then
		pass "$2"
	else
		fail "$2" "$(cat "$tmp/pyerr")"
	fi
}

# ---- configuration ----

spark_conf "$tmp/none.conf" 'cluster_size = 1; executor_id = 0;'
run -c "$tmp/none.conf" resolve
expect_status 1 "no server known: notfound"
expect_err_match "TFOS_SERVER_HOST" "... naming TFOS_SERVER_HOST/PORT"

TFOS_SERVER_HOST=127.0.0.1 run -c "$tmp/none.conf" resolve
expect_status 2 "TFOS_SERVER_HOST without TFOS_SERVER_PORT: unavail"
expect_err_match "TFOS_SERVER_PORT is not" "... saying what is missing"

TFOS_SERVER_HOST=127.0.0.1 TFOS_SERVER_PORT=9997-9999 run -c "$tmp/none.conf" resolve
expect_status 2 "TFOS_SERVER_PORT range: unavail"
expect_err_match "range" "... the client needs one port"

spark_conf "$tmp/c.conf" 'server = "127.0.0.1:1"; executor_id = 0;'
run -c "$tmp/c.conf" check
expect_status 4 "cluster_size is required"
expect_err_match "c\.conf:.*cluster_size is required" "... with file and line"

spark_conf "$tmp/c.conf" 'server = "127.0.0.1"; cluster_size = 1; executor_id = 0;'
run -c "$tmp/c.conf" check
expect_status 4 "server without a port"
expect_err_match "c\.conf:[0-9]+: .*server: .*host:port" "... names the line and the form"

spark_conf "$tmp/c.conf" 'server = "127.0.0.1:1"; cluster_size = 2; executor_id = 0;
  executor_id_variable = "X";'
run -c "$tmp/c.conf" check
expect_status 4 "executor_id and executor_id_variable exclude each other"

spark_conf "$tmp/c.conf" 'server = "127.0.0.1:1"; cluster_size = 2;'
run -c "$tmp/c.conf" check
expect_status 4 "no executor id at all"

spark_conf "$tmp/c.conf" 'server = "127.0.0.1:1"; cluster_size = 2; executor_id = 0;
  master_node = "boss";'
run -c "$tmp/c.conf" check
expect_status 4 "master_node must be chief or master"
expect_err_match 'master_node must be' "... says so"

spark_conf "$tmp/c.conf" 'server = "127.0.0.1:1"; cluster_size = 2; num_ps = 2; executor_id = 0;'
run -c "$tmp/c.conf" check
expect_status 4 "2 executors, 2 ps: impossible template (TFoS asserts)"
expect_err_match "template" "... says the template is impossible"

spark_conf "$tmp/c.conf" 'server = "127.0.0.1:1"; cluster_size = 2; executor_id = 2;'
run -c "$tmp/c.conf" check
expect_status 4 "executor_id outside the cluster"

spark_conf "$tmp/c.conf" 'server = "127.0.0.1:1"; cluster_size = 2;
  executor_id_variable = "MUSTER_TEST_EXECUTOR_ID";'
run -c "$tmp/c.conf" resolve
expect_status 1 "executor id variable unset: notfound"
expect_err_match "MUSTER_TEST_EXECUTOR_ID is not set" "... naming the variable"
MUSTER_TEST_EXECUTOR_ID=abc run -c "$tmp/c.conf" resolve
expect_status 2 "executor id variable not a number: unavail"
MUSTER_TEST_EXECUTOR_ID=7 run -c "$tmp/c.conf" resolve
expect_status 2 "executor id beyond cluster_size: unavail"
expect_err_match "outside the cluster of 2" "... says so"

# ---- one executor, the whole exchange ----

start_server --size 1
spark_conf "$tmp/one.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 1; executor_id = 0;"
run -c "$tmp/one.conf" resolve
expect_status 0 "one executor: resolved"
expect_empty_err "... quietly"
py_check '
import json, sys
got = json.loads(open(sys.argv[1]).read())
addr = got["cluster"]["worker"][0]
assert addr.startswith("127.0.0.1:") and int(addr.split(":")[1]) > 0, got
assert got["task"] == {"type": "worker", "index": 0}, got
assert got["rpc_layer"] == "grpc", got
' "... worker 0 at a reserved port on 127.0.0.1, rpc_layer grpc"
py_check '
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[2])]
types = [r["type"] for r in reqs]
assert types[:2] == ["QINFO", "REG"] and types[-1] == "QINFO", types
assert set(types[2:-1]) == {"QUERY"}, types
reg = reqs[1]
want = ["executor_id", "host", "job_name", "task_index", "port", "tb_pid", "tb_port", "addr", "authkey"]
assert reg["keys"] == want, reg["keys"]
assert reg["types"] == {"executor_id": "int", "host": "str", "job_name": "str", "task_index": "int",
    "port": "int", "tb_pid": "int", "tb_port": "int", "addr": "str", "authkey": "bytes"}, reg["types"]
d = reg["data"]
assert d["executor_id"] == 0 and d["host"] == "127.0.0.1" and d["job_name"] == "worker", d
assert d["task_index"] == 0 and d["tb_pid"] == 0 and d["tb_port"] == 0 and len(d["authkey"]) == 32, d
got = json.loads(open(sys.argv[1]).read())
assert got["cluster"]["worker"][0] == "127.0.0.1:%d" % d["port"], (got, d)
' "... QINFO, REG of the nine fields in TFoS order and types, QUERY, QINFO"
run -c "$tmp/one.conf" master
expect_status 0 "master after a reservation"
expect_out_match '^grpc://127\.0\.0\.1:[0-9]+$' "... is this task's address with grpc://"
stop_server "$server_pid"

# ---- the environment TFoS uses, the template ----

# Five executors, 1 ps, a chief and an evaluator: 0 ps, 1 chief, 2
# evaluator, 3-4 workers.  Four are registered already (from other hosts,
# out of order); this process is executor 3 and TENSORFLOW_PORT fixes its
# port, so nothing is bound.
start_server --size 5 --preload '[
  {"executor_id": 4, "host": "10.0.0.5", "job_name": "worker", "task_index": 1, "port": 40004, "addr": ""},
  {"executor_id": 1, "host": "10.0.0.2", "job_name": "chief", "task_index": 0, "port": 40001, "addr": ""},
  {"executor_id": 0, "host": "10.0.0.1", "job_name": "ps", "task_index": 0, "port": 40000, "addr": ["10.0.0.1", 39999], "extra": "kept"},
  {"executor_id": 2, "host": "10.0.0.3", "job_name": "evaluator", "task_index": 0, "port": 40002, "addr": ["10.0.0.3", 1]}]'
spark_conf "$tmp/env.conf" 'cluster_size = 5; num_ps = 1; master_node = "chief"; eval_node = true;
  executor_id_variable = "MUSTER_TEST_EXECUTOR_ID";'
TFOS_SERVER_HOST=127.0.0.1 TFOS_SERVER_PORT=$server_port TENSORFLOW_PORT=4444 \
	MUSTER_TEST_EXECUTOR_ID=3 run -c "$tmp/env.conf" resolve
expect_status 0 "TFOS_SERVER_HOST/PORT, executor id from a variable, TENSORFLOW_PORT"
expect_json '{"cluster":{"ps":["10.0.0.1:40000"],"chief":["10.0.0.2:40001"],"evaluator":["10.0.0.3:40002"],"worker":["127.0.0.1:4444","10.0.0.5:40004"]},"task":{"type":"worker","index":0},"rpc_layer":"grpc"}' \
	"... the ClusterSpec sorted by executor id, jobs ps, chief, evaluator, worker"
TFOS_SERVER_HOST=127.0.0.1 TFOS_SERVER_PORT=$server_port TENSORFLOW_PORT=4444 \
	MUSTER_TEST_EXECUTOR_ID=3 run -c "$tmp/env.conf" resolve --format tf_config
expect_status 0 "the same cluster as TF_CONFIG"
expect_out_match '"task":\{"type":"worker","index":0\}' "... with this task"
stop_server "$server_pid"

# The last registration lands between a QUERY (False) and the progress
# QINFO: that complete list is the answer.  Asking QUERY again would race a
# server that finishes once everyone has the list (it closes the
# connection), as muster reserve does.
start_server --size 2 --mode racy --preload '[
  {"executor_id": 1, "host": "10.0.0.2", "job_name": "worker", "task_index": 1, "port": 40001}]'
spark_conf "$tmp/racy.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 2; executor_id = 0;"
run -c "$tmp/racy.conf" resolve --format text
expect_status 0 "the complete list in a progress QINFO is the answer"
expect_out_match '^worker 1 10\.0\.0\.2:40001$' "... with the other worker"
stop_server "$server_pid"

# This process as the ps: addr is TFoS's (host, port) tuple.
start_server --size 2 --preload '[
  {"executor_id": 1, "host": "10.0.0.2", "job_name": "worker", "task_index": 0, "port": 40001}]'
spark_conf "$tmp/ps.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 2; num_ps = 1;
  executor_id = 0;"
run -c "$tmp/ps.conf" resolve --format text
expect_status 0 "executor 0 of a template with one ps"
expect_out_match '^task: ps 0$' "... is ps 0"
expect_out_match '^worker 0 10\.0\.0\.2:40001$' "... beside worker 0"
py_check '
import json, sys
reg = [json.loads(l) for l in open(sys.argv[2]) if "REG" in l][0]
assert reg["types"]["addr"] == "tuple", reg
assert reg["data"]["addr"][0] == "127.0.0.1", reg
assert reg["data"]["job_name"] == "ps" and reg["data"]["task_index"] == 0, reg
' "... registered with addr as a (host, port) tuple"
stop_server "$server_pid"

# IPv6 loopback, when this machine has it: the address is bracketed.
if python3 -c 'import socket; s = socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null; then
	start_server --size 1 --host ::1
	spark_conf "$tmp/v6.conf" "server = \"[::1]:$server_port\"; cluster_size = 1; executor_id = 0;"
	run -c "$tmp/v6.conf" resolve --format text
	expect_status 0 "IPv6 server"
	expect_out_match '^worker 0 \[::1\]:[0-9]+$' "... this task's address is [::1]:port"
	stop_server "$server_pid"
else
	skip "IPv6 server" "no ::1 here"
fi

# ---- unreachable, stuck, slow, never complete ----

start_server --size 1
dead_port=$server_port
stop_server "$server_pid"
spark_conf "$tmp/dead.conf" "server = \"127.0.0.1:$dead_port\"; cluster_size = 1; executor_id = 0;"
run -c "$tmp/dead.conf" resolve
expect_status 2 "connection refused: unavail"
expect_err_match "cannot connect to the reservation server 127\.0\.0\.1 port $dead_port: Connection refused" \
	"... naming the server and the reason"

start_server --size 1 --mode hang
spark_conf "$tmp/hang.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 1; executor_id = 0;
  io_timeout_ms = 300;"
start=$(date +%s)
run -c "$tmp/hang.conf" resolve
end=$(date +%s)
expect_status 2 "a server that never answers: unavail"
expect_err_match "no answer within 300 ms" "... after io_timeout_ms"
if [ $((end - start)) -le 10 ]; then pass "... promptly"; else fail "... promptly" "took $((end - start)) s"; fi
stop_server "$server_pid"

start_server --size 1 --mode trickle --delay 0.2
spark_conf "$tmp/trickle.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 1; executor_id = 0;
  io_timeout_ms = 1000;"
start=$(date +%s)
run -c "$tmp/trickle.conf" resolve
end=$(date +%s)
expect_status 2 "a server trickling one byte at a time: unavail"
expect_err_match "no answer within 1000 ms" "... io_timeout_ms bounds the whole reply"
if [ $((end - start)) -le 10 ]; then pass "... promptly"; else fail "... promptly" "took $((end - start)) s"; fi
stop_server "$server_pid"

start_server --size 1 --mode slowpoke --delay 0.2
spark_conf "$tmp/slow.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 1; executor_id = 0;"
run -c "$tmp/slow.conf" resolve
expect_status 0 "a slow server (0.2 s per answer) is only slow"
stop_server "$server_pid"

start_server --size 4
spark_conf "$tmp/never.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 4; executor_id = 0;
  reservation_timeout_ms = 1500;"
start=$(date +%s)
run -c "$tmp/never.conf" -v resolve
end=$(date +%s)
expect_status 3 "reservations never complete: tryagain"
expect_err_match "not complete after [0-9]+ ms \(reservation_timeout_ms\): 1/4 reserved, 3 missing \(executor ids 1, 2, 3\)" \
	"... with the count and the missing executors"
expect_err_match "1/4 reserved" "... progress logged with -v"
if [ $((end - start)) -le 8 ]; then pass "... after reservation_timeout_ms"; else fail "... after reservation_timeout_ms" "took $((end - start)) s"; fi

# The same server again: this executor is already registered (a retry).
spark_conf "$tmp/budget.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 4; executor_id = 0;" 1200
run -c "$tmp/budget.conf" resolve
expect_status 3 "the entry's budget ends first: tryagain in time"
expect_err_match "\(the entry's timeout_ms\): 1/4 reserved" "... saying which limit"
nreg=$(grep -c '"REG"' "$server_log" || true)
if [ "$nreg" -eq 1 ]; then
	pass "... the retry reused the registration (one REG in all)"
else
	fail "... the retry reused the registration (one REG in all)" "$nreg REGs"
fi
stop_server "$server_pid"

# ---- retried executor: reuse its registration and port ----

start_server --size 2 --preload '[
  {"executor_id": 1, "host": "127.0.0.1", "job_name": "worker", "task_index": 1, "port": 5555},
  {"executor_id": 0, "host": "10.0.0.1", "job_name": "worker", "task_index": 0, "port": 40000}]'
spark_conf "$tmp/retry.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 2; executor_id = 1;"
run -c "$tmp/retry.conf" resolve
expect_status 0 "a retried executor"
expect_json '{"cluster":{"worker":["10.0.0.1:40000","127.0.0.1:5555"]},"task":{"type":"worker","index":1},"rpc_layer":"grpc"}' \
	"... reuses its registration's port"
if grep -q '"REG"' "$server_log"; then
	fail "... and does not register again"
else
	pass "... and does not register again"
fi
stop_server "$server_pid"

# ---- duplicates ----

start_server --size 2 --preload '[
  {"executor_id": 0, "host": "10.9.9.9", "job_name": "worker", "task_index": 0, "port": 40000}]'
spark_conf "$tmp/dup.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 2; executor_id = 0;"
run -c "$tmp/dup.conf" resolve
expect_status 2 "our executor id registered by another host: unavail"
expect_err_match "duplicate executor id 0: already registered by 10\.9\.9\.9" "... a clear error"
if grep -q '"REG"' "$server_log"; then
	fail "... before registering"
else
	pass "... before registering"
fi
stop_server "$server_pid"

start_server --size 3 --preload '[
  {"executor_id": 1, "host": "10.0.0.2", "job_name": "worker", "task_index": 1, "port": 40001},
  {"executor_id": 1, "host": "10.0.0.3", "job_name": "worker", "task_index": 1, "port": 40001}]'
spark_conf "$tmp/dup2.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 3; executor_id = 0;"
run -c "$tmp/dup2.conf" resolve
expect_status 2 "two other executors share an id: unavail"
expect_err_match "[Dd]uplicate.*1" "... naming the executor id"
stop_server "$server_pid"

# Executors disagreeing on the template: the cluster would be wrong.
start_server --size 2 --preload '[
  {"executor_id": 0, "host": "10.0.0.1", "job_name": "ps", "task_index": 0, "port": 40000}]'
spark_conf "$tmp/tmpl.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 2; executor_id = 1;"
run -c "$tmp/tmpl.conf" resolve
expect_status 2 "executors with different templates: unavail"
expect_err_match "same cluster_size, num_ps" "... says which options must agree"
stop_server "$server_pid"

# ---- hostile and broken replies ----

for on in QINFO REG QUERY; do
	for mode in close notpickle global huge truncated deep wrongtype err; do
		if [ "$mode" = wrongtype ] && [ "$on" = REG ]; then
			continue # 'OK' is the right answer to REG
		fi
		start_server --size 1 --mode "$mode" --bad-on "$on"
		spark_conf "$tmp/bad.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 1;
		  executor_id = 0; io_timeout_ms = 2000;" 10000
		run -c "$tmp/bad.conf" resolve
		expect_status 2 "$mode reply to $on: unavail"
		stop_server "$server_pid"
	done
done
# bad_server MODE: a server misbehaving so, and $tmp/bad.conf pointing at it.
bad_server() {
	start_server --size 1 --mode "$1"
	spark_conf "$tmp/bad.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 1;
	  executor_id = 0;" 10000
}
bad_server global
run -c "$tmp/bad.conf" resolve
expect_err_match "GLOBAL" "a pickle that names code: refused, naming the opcode"
stop_server "$server_pid"
bad_server huge
run -c "$tmp/bad.conf" resolve
expect_err_match "announces more than" "a 4 GiB frame: refused before reading it"
stop_server "$server_pid"
bad_server truncated
run -c "$tmp/bad.conf" resolve
expect_err_match "closed the connection inside its reply" "a truncated reply: says so"
stop_server "$server_pid"
bad_server badlist
run -c "$tmp/bad.conf" resolve
expect_status 2 "a registration without its fields: unavail"
expect_err_match "do not make a cluster" "... says the list is broken"
stop_server "$server_pid"

finish
