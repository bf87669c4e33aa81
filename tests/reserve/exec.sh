#!/bin/sh
# muster resolve --exec: the cluster reaches COMMAND through its
# environment, and a reserved port (spark) is held until right before
# COMMAND starts, then handed over: COMMAND can bind it.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/lib/tap.sh"
conf=$MUSTER_TEST_SRCDIR/tests/cli/tf-only.conf
unset MUSTER_CLUSTER MUSTER_RESERVED_PORT TENSORFLOW_PORT

# tf_config: MUSTER_CLUSTER and TF_CONFIG, no port.
tfc='{"cluster":{"worker":["h0:2222","h1:2222"]},"task":{"type":"worker","index":1}}'
if TF_CONFIG=$tfc "$MUSTER_BIN" -c "$conf" resolve --exec -- \
	sh -c 'printf "%s\n%s\n%s\n" "$MUSTER_CLUSTER" "$TF_CONFIG" "${MUSTER_RESERVED_PORT-unset}"' \
	>"$tmp/out" 2>"$tmp/err"; then
	want_cluster=$(TF_CONFIG=$tfc "$MUSTER_BIN" -c "$conf" resolve)
	want_tfc=$(TF_CONFIG=$tfc "$MUSTER_BIN" -c "$conf" tf-config --task worker:1)
	if [ "$(sed -n 1p "$tmp/out")" = "$want_cluster" ] &&
		[ "$(sed -n 2p "$tmp/out")" = "$want_tfc" ] && [ "$(sed -n 3p "$tmp/out")" = unset ]; then
		pass "--exec: MUSTER_CLUSTER and TF_CONFIG set, no reserved port"
	else
		fail "--exec: MUSTER_CLUSTER and TF_CONFIG set, no reserved port" \
			"want: $want_cluster" "want: $want_tfc"
	fi
else
	fail "--exec runs the command"
fi

# Errors: a missing command (127), --exec with --format, no command.
TF_CONFIG=$tfc "$MUSTER_BIN" -c "$conf" resolve --exec -- /nonexistent/cmd >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 127 ] && grep -q "cannot run /nonexistent/cmd" "$tmp/err"; then
	pass "--exec: a command that does not exist exits 127"
else
	fail "--exec: a command that does not exist exits 127" "exit $rc"
fi
"$MUSTER_BIN" -c "$conf" resolve --exec --format json -- true >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 64 ] && grep -q "do not go together" "$tmp/err"; then
	pass "--exec with --format is a usage error"
else
	fail "--exec with --format is a usage error" "exit $rc"
fi
"$MUSTER_BIN" -c "$conf" resolve --exec >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 64 ] && grep -q "no command given" "$tmp/err"; then
	pass "--exec without a command is a usage error"
else
	fail "--exec without a command is a usage error" "exit $rc"
fi

# spark: the reserved port is exported and free for the command to bind.
if have_plugin spark && have_python3 && "$MUSTER_BIN" reserve --help >/dev/null 2>&1; then
	"$MUSTER_BIN" reserve --size 1 --host 127.0.0.1 --timeout 60 --port-file "$tmp/port" \
		>"$tmp/spec" 2>"$tmp/reserve.err" &
	rpid=$!
	i=0
	while [ ! -s "$tmp/port" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	cat >"$tmp/spark.conf" <<CONF
chain = ( { plugin = "spark"; timeout_ms = 60000;
            config = { cluster_size = 1; num_ps = 0; executor_id_variable = "MUSTER_TEST_EXECUTOR_ID"; }; } );
CONF
	TFOS_SERVER_HOST=127.0.0.1 TFOS_SERVER_PORT=$(cat "$tmp/port") MUSTER_TEST_EXECUTOR_ID=0 \
		"$MUSTER_BIN" -c "$tmp/spark.conf" resolve --exec -- python3 -c '
import json, os, socket
port = int(os.environ["MUSTER_RESERVED_PORT"])
assert os.environ["TENSORFLOW_PORT"] == str(port)
spec = json.loads(os.environ["MUSTER_CLUSTER"])["cluster"]
assert spec["worker"][0].endswith(":%d" % port), spec
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", port))
s.listen(1)
print("bound", port)
' >"$tmp/out" 2>"$tmp/err"
	rc=$?
	wait $rpid
	rrc=$?
	if [ $rc -eq 0 ] && grep -q '^bound [0-9]' "$tmp/out" && [ $rrc -eq 0 ]; then
		pass "--exec with spark: the command gets the reserved port and can bind it"
	else
		fail "--exec with spark: the command gets the reserved port and can bind it" \
			"resolve exit $rc, reserve exit $rrc" "$(cat "$tmp/reserve.err")"
	fi
else
	skip "--exec with spark" "the spark plugin, python3 or muster reserve is missing"
fi
finish
