# Helpers for the spark tests (tests/spark/*.sh), sourced after
# tests/lib/tap.sh: reservation servers (tests/spark/server.py, a Python
# server written from the protocol description) started on loopback and
# stopped on exit, and configs with one spark entry.

require_tools python3
require_plugin spark

server_py=$MUSTER_TEST_SRCDIR/tests/spark/server.py
server_pids=
nservers=0

cleanup_servers() {
	for pid in $server_pids; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in $server_pids; do
		wait "$pid" 2>/dev/null || true
	done
	server_pids=
}
cleanup() { cleanup_servers; }

# wait_for_file FILE: up to 20 s.
wait_for_file() {
	i=0
	while [ ! -s "$1" ]; do
		i=$((i + 1))
		if [ "$i" -gt 200 ]; then
			return 1
		fi
		sleep 0.1
	done
}

# start_server ARGS...: a Python reservation server; sets $server_port and
# $server_pid.  ARGS go to server.py (--size N, --mode M, ...).
start_server() {
	nservers=$((nservers + 1))
	portfile=$tmp/server$nservers.port
	python3 "$server_py" --port-file "$portfile" --log "$tmp/server$nservers.log" "$@" \
		2>"$tmp/server$nservers.err" &
	server_pid=$!
	server_pids="$server_pids $server_pid"
	server_log=$tmp/server$nservers.log
	if ! wait_for_file "$portfile"; then
		sed 's/^/# /' "$tmp/server$nservers.err"
		bail_out "the Python reservation server did not start"
	fi
	server_port=$(cat "$portfile")
}

stop_server() {
	kill "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# spark_conf FILE BODY [ENTRY_EXTRA]: a config whose only entry is spark with
# this config group body; ENTRY_EXTRA goes into the entry (timeout_ms ...).
spark_conf() {
	cat >"$1" <<EOF
chain = (
  {
    plugin = "spark";
    name = "sp";
    timeout_ms = ${3:-30000};
    config = { $2 };
  }
);
EOF
}
