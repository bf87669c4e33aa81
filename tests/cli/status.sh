#!/bin/sh
# muster status: the cluster grouped into nodes (a scheduler's node order
# first, then hosts as their first task comes), tasks as runs with their
# ports, accelerators summed per node, this process's node starred; the
# colour rules through a real pseudo-terminal (script(1)): colour on a
# terminal, none with TERM=dumb, with NO_COLOR set to any value, or on a
# pipe; lines fitted to COLUMNS; text from a backend escaped; JSON; a
# member whose address is not published; a chain that found nothing shows
# each entry's answer; --watch follows a config edit, as JSON lines and as
# frames that replace each other.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/lib/tap.sh"
. "$MUSTER_TEST_SRCDIR/tests/watch/lib.sh"
require_tools python3 script

conf=$tmp/muster.conf
cat >"$conf" <<'EOC'
chain = ( { plugin = "static";
            config = { jobs = { worker = ["h1:2222", "h1:2223", "h2:2222", "h3:2222"];
                                ps = ["h2:3333"]; };
                       task = { type = "worker"; index = 2; };
                       placement = "processes"; node_order = ["h3", "h1", "h2"];
                       accelerators = { worker = { GPU = 4; }; }; }; } );
EOC

# A terminal: script(1) runs muster on a pseudo-terminal; its output has
# the terminal's \r\n, taken out here.
tty_conf=$conf
on_tty() { # ENV... -- ARGS...: the pty's output in $tmp/tty
	envs=
	while [ "$1" != -- ]; do envs="$envs $1"; shift; done
	shift
	set -f
	# shellcheck disable=SC2086
	env $envs script -qec "'$MUSTER_BIN' -c '$tty_conf' $*" /dev/null </dev/null |
		tr -d '\r' >"$tmp/tty"
	set +f
}
esc=$(printf '\033')
has_escape() { grep -q "$esc" "$tmp/tty"; }

run -c "$conf" status
expect_status 0 "status answers"
expect_out "Cluster from static
5 tasks on 3 nodes; this process: worker:2 at h2:2222

  NODE  TASKS           PORTS       ACCELERATORS  STATE
  h3    worker:3        2222        GPU:4         ready
  h1    worker:0-1      2222-2223   GPU:8         ready
* h2    worker:2, ps:0  2222, 3333  GPU:4         ready" \
	"a row per host in the node order, runs of tasks and ports, GPUs summed, own node starred"

on_tty TERM=xterm -- status
check "on a terminal: coloured" has_escape
if grep -q "${esc}\[32mready${esc}\[0m" "$tmp/tty" && grep -q "${esc}\[1;36m\* h2" "$tmp/tty"
then pass "ready in green, the own node in bold cyan"
else fail "ready in green, the own node in bold cyan" "$(cat -v "$tmp/tty")"; fi
sed "s/${esc}\[[0-9;]*m//g" "$tmp/tty" >"$tmp/plain"
run -c "$conf" status
check "the colours are all a terminal adds" cmp -s "$tmp/plain" "$tmp/out"
on_tty TERM=dumb -- status
check "TERM=dumb: no colour" sh -c "! grep -q '$esc' '$tmp/tty'"
on_tty TERM= -- status
check "no TERM: no colour" sh -c "! grep -q '$esc' '$tmp/tty'"
for v in 1 0 false; do
	on_tty TERM=xterm NO_COLOR=$v -- status
	check "NO_COLOR=$v: no colour" sh -c "! grep -q '$esc' '$tmp/tty'"
done
on_tty TERM=xterm NO_COLOR= -- status
check "an empty NO_COLOR is unset (no-color.org): colour" has_escape
TERM=xterm run -c "$conf" status
check "on a pipe: no colour" sh -c "! grep -q '$esc' '$tmp/out'"

for cols in 40 30; do
	on_tty TERM=xterm COLUMNS=$cols -- status
	sed "s/${esc}\[[0-9;]*m//g" "$tmp/tty" >"$tmp/plain"
	if awk -v w=$cols 'length($0) > w { bad = 1 } END { exit bad }' "$tmp/plain" &&
		grep -q '\.\.\.' "$tmp/plain"; then
		pass "COLUMNS=$cols: every line fits, cut cells end in ..."
	else
		fail "COLUMNS=$cols: every line fits, cut cells end in ..." "$(cat "$tmp/plain")"
	fi
done

run -c "$conf" status --format json
expect_status 0 "--format json"
if python3 - "$tmp/out" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "success" and d["source"] == "static" and d["message"] is None
assert d["self"] == {"job": "worker", "index": 2}
assert [n["host"] for n in d["nodes"]] == ["h3", "h1", "h2"]
h2 = d["nodes"][2]
assert h2["self"] and h2["accelerators"] == {"GPU": 4}
assert [(t["job"], t["index"], t["port"], t["self"]) for t in h2["tasks"]] == \
    [("worker", 2, 2222, True), ("ps", 0, 3333, False)]
assert d["nodes"][1]["accelerators"] == {"GPU": 8}
assert d["pending"] == [] and d["pending_dropped"] == 0
assert d["entries"] == [{"instance": "static", "plugin": "static", "answer": "success",
                         "reason": None, "ms": d["entries"][0]["ms"], "used": True,
                         "after": False}]
EOP
then pass "JSON: nodes, tasks, self, accelerators, entries"; else fail "JSON: nodes, tasks, self, accelerators, entries"; fi

# A job name with a terminal escape in it (TF_CONFIG may name any job):
# shown escaped, never sent to the terminal.
printf 'chain = ( { plugin = "tf_config"; } );\n' >"$tmp/tf.conf"
tty_conf=$tmp/tf.conf
on_tty TERM=xterm 'TF_CONFIG={"cluster":{"w\u001b[2J":["h1:1"]}}' -- status
tty_conf=$conf
if grep -q 'w\\x1b\[2J:0' "$tmp/tty" && ! grep -q "${esc}\[2J" "$tmp/tty"; then
	pass "a job name's escape is shown as \x1b, never sent"
else
	fail "a job name's escape is shown as \x1b, never sent" "$(cat -v "$tmp/tty")"
fi

# A member whose platform does not publish its address (a placeholder
# host under unknown.invalid): its place shown, its state said.
printf 'chain = ( { plugin = "static"; config = { jobs = { worker = ["h1:1", "aws-batch-node-2.unknown.invalid:1"]; }; }; } );\n' \
	>"$tmp/ph.conf"
run -c "$tmp/ph.conf" status
expect_out_match '^  aws-batch-node-2\.unknown\.invalid +worker:1 +1 +- +address not published$' \
	"a placeholder host: address not published"
expect_out_match '^  h1 +worker:0 +1 +- +ready$' "... the others ready"

# No cluster: each entry's answer, and the chain's exit status.
run -c "$tmp/tf.conf" status
expect_status $EX_NOTFOUND "no cluster: notfound"
expect_out_match '^No cluster: ' "no cluster: said first"
expect_out_match '^tf_config +tf_config +notfound +[0-9]+ +TF_CONFIG is not set' \
	"no cluster: each entry's answer and reason"
run -c "$tmp/tf.conf" status --format json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["status"]=="notfound" and d["nodes"]==[] and d["source"] is None and d["entries"][0]["answer"]=="notfound", d' "$tmp/out"
then pass "no cluster: JSON says notfound, with the entries"; else fail "no cluster: JSON says notfound, with the entries"; fi

# Usage.
run -c "$conf" status --format yaml
expect_status 64 "an unknown format is a usage error"
run -c "$conf" status --settle-ms 10
expect_status 64 "--settle-ms without --watch is a usage error"

# --watch, JSON: a line per frame, a config edit is a new one.
watch_start "$MUSTER_BIN" -c "$conf" status --watch --format json --settle-ms 20
cleanup() { kill $pid 2>/dev/null || true; }
await 1 "--watch: the first frame at once" 20
line_is 1 "c['status']=='success' and len(c['nodes'])==3" "--watch: the first frame is the cluster"
sleep 0.3
check_eq "--watch: the watch's first change is the same frame, not drawn again" "$(nlines)" 1
sed 's/"h2:3333"/"h4:3333"/' "$conf" >"$conf.new" && mv "$conf.new" "$conf"
await 2 "--watch: a config edit draws a frame"
line_is 2 "[n['host'] for n in c['nodes']]==['h3','h1','h2','h4'] and c['entries'] is None" \
	"--watch: the new frame has the edited cluster (h4 is not in the node order: last)"
watch_stop "--watch: SIGTERM ends it with status 0"

# --watch on a terminal: each frame clears the screen and replaces the last.
: >"$tmp/tty"
TERM=xterm script -qfc "'$MUSTER_BIN' -c '$conf' status --watch --settle-ms 20" /dev/null \
	</dev/null >"$tmp/tty" 2>&1 &
spid=$!
cleanup() { kill $pid $spid 2>/dev/null || true; }
frames() { grep -o "${esc}\[H${esc}\[2J" "$tmp/tty" | wc -l; }
i=0
while [ "$(frames)" -lt 1 ] && [ $i -lt 2000 ]; do sleep 0.01; i=$((i + 1)); done
sed 's/"h4:3333"/"h5:3333"/' "$conf" >"$conf.new" && mv "$conf.new" "$conf"
i=0
while [ "$(frames)" -lt 2 ] && [ $i -lt 300 ]; do sleep 0.01; i=$((i + 1)); done
if [ "$(frames)" -eq 2 ] && grep -q 'h5' "$tmp/tty"; then
	pass "--watch on a terminal: home and clear before each frame"
else
	fail "--watch on a terminal: home and clear before each frame" "$(cat -v "$tmp/tty")"
fi
kill -TERM $spid 2>/dev/null
wait $spid 2>/dev/null
finish
