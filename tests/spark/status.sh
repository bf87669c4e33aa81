#!/bin/sh
# muster status over the spark plugin, against a real `muster reserve`:
# while the reservation waits, the executors registered so far are tasks
# and the others members not ready (plugin ABI 1.8), each where the
# template puts it.
set -u
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
. "$MUSTER_TEST_SRCDIR/tests/spark/lib.sh"
unset TFOS_SERVER_HOST TFOS_SERVER_PORT TENSORFLOW_PORT

"$MUSTER_BIN" reserve --size 4 --host 127.0.0.1 --port-file "$tmp/port" --timeout 60 \
	>"$tmp/reserve.out" 2>"$tmp/reserve.err" &
server_pids=$!
wait_for_file "$tmp/port" || bail_out "muster reserve did not start"
port=$(cat "$tmp/port")

# Executor 1 registers and waits; the template (num_ps = 1) makes it
# worker:0, this process (executor 2) worker:1, executor 0 ps:0 and
# executor 3 worker:2.
spark_conf "$tmp/one.conf" "server = \"127.0.0.1:$port\"; cluster_size = 4; num_ps = 1;
  executor_id = 1; reservation_timeout_ms = 1000;"
run -c "$tmp/one.conf" resolve
expect_status $EX_TRYAGAIN "executor 1 registers, and waits in vain"
spark_conf "$tmp/two.conf" "server = \"127.0.0.1:$port\"; cluster_size = 4; num_ps = 1;
  executor_id = 2; reservation_timeout_ms = 1000;"
run -c "$tmp/two.conf" status --format json
expect_status $EX_TRYAGAIN "status: tryagain while executors are missing"
if python3 - "$tmp/out" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "tryagain" and d["source"] == "sp", d
assert d["message"].startswith("sp (spark) answered tryagain: reservations not complete"), d["message"]
tasks = sorted((t["job"], t["index"], t["address"].rsplit(":", 1)[0], t["self"])
               for n in d["nodes"] for t in n["tasks"])
assert tasks == [("worker", 0, "127.0.0.1", False), ("worker", 1, "127.0.0.1", True)], tasks
assert d["self"] == {"job": "worker", "index": 1}
assert d["pending"] == [
    {"job": "ps", "index": 0, "name": "executor 0", "reason": "not registered"},
    {"job": "worker", "index": 2, "name": "executor 3", "reason": "not registered"}], d["pending"]
EOP
then pass "the registered executors as tasks (this one starred), the missing ones pending"
else fail "the registered executors as tasks (this one starred), the missing ones pending"; fi
run -c "$tmp/two.conf" status
expect_out_match '^  - +worker:2 +- +- +not ready: not registered \(executor 3\)$' \
	"the table: a missing executor is a member not ready"
finish
