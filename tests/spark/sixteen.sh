#!/bin/sh
# Real processes: `muster reserve --size 16` and sixteen `muster resolve`
# processes with a spark config registering at once.  Every one prints the
# same ClusterSpec (the one the server writes too) and its own task, and
# holds its own TF port.  Where `muster reserve` is not built, the Python
# server from the protocol description stands in.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
. "$MUSTER_TEST_SRCDIR/tests/spark/lib.sh"
unset TFOS_SERVER_HOST TFOS_SERVER_PORT TENSORFLOW_PORT MUSTER_TEST_EXECUTOR_ID

n=16
if "$MUSTER_BIN" reserve --help >/dev/null 2>&1; then
	server="muster reserve"
	"$MUSTER_BIN" reserve --size "$n" --host 127.0.0.1 --port 0 --timeout 120 \
		--port-file "$tmp/reserve.port" --output "$tmp/reserve.json" \
		>"$tmp/reserve.out" 2>"$tmp/reserve.err" &
	reserve_pid=$!
	server_pids="$server_pids $reserve_pid"
	if ! wait_for_file "$tmp/reserve.port"; then
		echo "Bail out! muster reserve did not start"
		cat "$tmp/reserve.err"
		exit 99
	fi
	sleep 0.2 # the port file is written whole by then
	server_port=$(cat "$tmp/reserve.port")
else
	server="the Python server (muster reserve is not built)"
	start_server --size "$n"
fi
echo "# server: $server on port $server_port"

spark_conf "$tmp/spark.conf" "cluster_size = $n; num_ps = 2; master_node = \"chief\";
  eval_node = true; executor_id_variable = \"MUSTER_TEST_EXECUTOR_ID\";" 120000

i=0
pids=
while [ "$i" -lt "$n" ]; do
	TFOS_SERVER_HOST=127.0.0.1 TFOS_SERVER_PORT=$server_port MUSTER_TEST_EXECUTOR_ID=$i \
		"$MUSTER_BIN" -c "$tmp/spark.conf" resolve >"$tmp/out.$i" 2>"$tmp/err.$i" &
	pids="$pids $!"
	i=$((i + 1))
done
i=0
for pid in $pids; do
	rc=0
	wait "$pid" || rc=$?
	echo "$rc" >"$tmp/rc.$i"
	i=$((i + 1))
done

i=0
nok=0
while [ "$i" -lt "$n" ]; do
	if [ "$(cat "$tmp/rc.$i")" = 0 ]; then
		nok=$((nok + 1))
	else
		echo "# executor $i exited $(cat "$tmp/rc.$i"):"
		sed 's/^/#   /' "$tmp/err.$i"
	fi
	if grep -E -q 'runtime error:|AddressSanitizer|LeakSanitizer' "$tmp/err.$i"; then
		fail "executor $i: no sanitizer report"
	fi
	i=$((i + 1))
done
if [ "$nok" -eq "$n" ]; then
	pass "all $n clients resolved"
else
	fail "all $n clients resolved" "only $nok did"
fi

if python3 - "$tmp" "$n" >"$tmp/check.out" 2>&1 <<'EOF'; then
import json, sys
tmp, n = sys.argv[1], int(sys.argv[2])
outs = [json.loads(open("%s/out.%d" % (tmp, i)).read()) for i in range(n)]
spec = outs[0]["cluster"]
# The template: 2 ps, a chief, an evaluator, 12 workers, in that order.
assert list(spec) == ["ps", "chief", "evaluator", "worker"], list(spec)
assert [len(spec[j]) for j in spec] == [2, 1, 1, 12], spec
addrs = [a for j in spec for a in spec[j]]
assert len(set(addrs)) == n, "two tasks share an address: %r" % addrs
for i, o in enumerate(outs):
    assert o["cluster"] == spec, "executor %d sees another cluster" % i
    want = (("ps", i) if i < 2 else ("chief", 0) if i == 2 else
            ("evaluator", 0) if i == 3 else ("worker", i - 4))
    assert (o["task"]["type"], o["task"]["index"]) == want, (i, o["task"], want)
    assert o["rpc_layer"] == "grpc", o
print("ok")
EOF
	pass "every client prints the same ClusterSpec and its own task"
else
	fail "every client prints the same ClusterSpec and its own task" "$(cat "$tmp/check.out")"
fi

if [ -n "${reserve_pid:-}" ]; then
	rc=0
	wait "$reserve_pid" || rc=$?
	server_pids=
	if [ "$rc" -eq 0 ]; then
		pass "muster reserve exits 0 once everyone has the list"
	else
		fail "muster reserve exits 0 once everyone has the list" "exit $rc" \
			"$(cat "$tmp/reserve.err")"
	fi
	if python3 - "$tmp" <<'EOF' >"$tmp/check.out" 2>&1; then
import json, sys
tmp = sys.argv[1]
server = json.loads(open(tmp + "/reserve.json").read())
server = server.get("cluster", server)
client = json.loads(open(tmp + "/out.0").read())["cluster"]
assert server == client, (server, client)
EOF
		pass "... and writes the same ClusterSpec"
	else
		fail "... and writes the same ClusterSpec" "$(cat "$tmp/check.out")"
	fi
fi

finish
