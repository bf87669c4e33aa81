#!/bin/sh
# Authenticated reservation frames (tfos/wire/frame.h): with
# auth_key_file on both ends every frame carries an HMAC-SHA256 tag; a
# mismatch on either side, or a wrong key, is unavail; an exposed key file
# is a config error.  The server is tests/spark/server.py speaking the
# format from its description.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
. "$MUSTER_TEST_SRCDIR/tests/spark/lib.sh"
unset TFOS_SERVER_HOST TFOS_SERVER_PORT TENSORFLOW_PORT

umask 077
printf 'a shared key of more than sixteen bytes\n' >"$tmp/key"
printf 'another key, also long enough to use\n' >"$tmp/wrong"

start_server --size 1 --auth-key-file "$tmp/key"
spark_conf "$tmp/a.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 1; executor_id = 0;
  auth_key_file = \"$tmp/key\"; io_timeout_ms = 3000;"
run -c "$tmp/a.conf" resolve --format text
expect_status 0 "same key on both ends: resolved"
expect_out_match '^worker 0 127\.0\.0\.1:[0-9]+$' "... the cluster"
if grep -q "shared key" "$tmp/err"; then
	fail "... the key never appears in messages"
else
	pass "... the key never appears in messages"
fi

spark_conf "$tmp/b.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 1; executor_id = 0;
  io_timeout_ms = 3000;"
run -c "$tmp/b.conf" resolve
expect_status 2 "server authenticates, client does not: unavail"
stop_server "$server_pid"

start_server --size 1 --auth-key-file "$tmp/wrong"
run -c "$tmp/a.conf" resolve
expect_status 2 "wrong key: unavail"
spark_conf "$tmp/a2.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 1; executor_id = 0;
  auth_key_file = \"$tmp/key\"; io_timeout_ms = 3000;"
run -c "$tmp/a2.conf" resolve
expect_status 2 "wrong key (fresh config): unavail"
if grep -q '"REG"' "$server_log"; then
	fail "... the server accepted nothing"
else
	pass "... the server accepted nothing"
fi
stop_server "$server_pid"

start_server --size 1
spark_conf "$tmp/c.conf" "server = \"127.0.0.1:$server_port\"; cluster_size = 1; executor_id = 0;
  auth_key_file = \"$tmp/key\"; io_timeout_ms = 1000;"
run -c "$tmp/c.conf" resolve
expect_status 2 "client authenticates, server (TFoS-compatible) does not: unavail"
stop_server "$server_pid"

chmod 644 "$tmp/key"
run -c "$tmp/a.conf" check
expect_status 4 "a key file others can read: config error"
expect_err_match "a\.conf:[0-9]+: " "... naming the config line"
chmod 600 "$tmp/key"
spark_conf "$tmp/d.conf" "server = \"127.0.0.1:1\"; cluster_size = 1; executor_id = 0;
  auth_key_file = \"$tmp/no-such-key\";"
run -c "$tmp/d.conf" check
expect_status 4 "a missing key file: config error"

finish
