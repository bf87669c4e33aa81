#!/bin/sh
# muster run and the spark backend's reserved port: held through the
# resolve, released right before local rank 0 starts, which binds it
# (without SO_REUSEADDR, so a port still held would fail it).
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
fixtures=$MUSTER_TEST_SRCDIR/tests/cli
. "$MUSTER_TEST_SRCDIR/tests/spark/lib.sh"
unset TFOS_SERVER_HOST TFOS_SERVER_PORT TENSORFLOW_PORT MUSTER_TEST_EXECUTOR_ID

# The worker: binds the reserved port when it got one.
bind='import json, os, socket
port = os.environ.get("MUSTER_RESERVED_PORT")
if port:
    tf = json.loads(os.environ["TF_CONFIG"])
    assert tf["cluster"]["worker"][0].endswith(":" + port), tf
    assert os.environ["TENSORFLOW_PORT"] == port
    s = socket.socket()
    s.bind(("127.0.0.1", int(port)))
    s.listen(1)
    print("bound", port == tf["cluster"]["worker"][0].split(":")[1])
else:
    print("no port")'

start_server --size 1
spark_conf "$tmp/one.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 1; executor_id = 0;"
run -c "$tmp/one.conf" run --for tensorflow --nproc-per-node 2 --tee-prefix -- python3 -c "$bind"
expect_status 0 "run --for tensorflow on a spark reservation"
sort "$tmp/out" >"$tmp/sorted"
mv "$tmp/sorted" "$tmp/out"
expect_out "[0]: bound True
[1]: no port" "rank 0 binds the reserved port of its TF_CONFIG address; the other gets none"
stop_server "$server_pid"

# One process: muster run execs it, the port released right before.
start_server --size 1
spark_conf "$tmp/one.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 1; executor_id = 0;"
run -c "$tmp/one.conf" run --for tensorflow -- python3 -c "$bind"
expect_status 0 "run --for tensorflow, one process, on a spark reservation"
expect_out "bound True" "the exec'd process binds the reserved port of its TF_CONFIG address"
stop_server "$server_pid"
finish
