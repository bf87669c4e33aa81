#!/bin/sh
# muster watch following its config file: the first line, edits in place
# and by rename, an edit that changes nothing, a broken edit and its repair,
# and SIGTERM.  A real watch process; lines are awaited, never slept for.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
. "$MUSTER_TEST_SRCDIR/tests/watch/lib.sh"

conf=$tmp/muster.conf
write_conf() { # ADDRESSES...: a static worker job with these tasks
	list=
	for a in "$@"; do list="$list${list:+, }\"$a\""; done
	printf 'chain = ( { plugin = "static"; config = { jobs = { worker = [%s]; }; }; } );\n' \
		"$list"
}
write_conf a:1 b:2 >"$conf"

watch_start "$MUSTER_BIN" -c "$conf" watch --settle-ms 20
cleanup() { kill $pid 2>/dev/null || true; }


await 1 "the first line comes at once" 20
line_is 1 "c['cluster']=={'worker':['a:1','b:2']} and [t['task'] for t in c['added']]==['worker:0','worker:1'] and c['removed']==c['moved']==c['accelerators_changed']==[]" \
	"the first line is the current cluster, every task added"

write_conf a:1 b:3 c:4 >"$conf"
await 2 "an edit in place is seen"
line_is 2 "c['cluster']=={'worker':['a:1','b:3','c:4']} and c['added']==$(tasks worker:2 c:4) and c['moved']==$(tasks worker:1 b:3) and c['removed']==[]" \
	"the change lists the added and the moved task"

write_conf a:1 >"$conf.new"
mv "$conf.new" "$conf"
await 3 "an edit by rename is seen"
line_is 3 "c['removed']==[{'task':'worker:1','address':'b:3'},{'task':'worker:2','address':'c:4'}] and c['added']==c['moved']==[]" \
	"the change lists the removed tasks with their last addresses"

# A comment changes nothing a reader sees: no line.  The broken edit after
# it must not print one either; the repair that follows does.
{ echo '# only a comment'; write_conf a:1; } >"$conf"
echo 'chain = ( { plugin = "static"' >"$conf"
sleep 0.5
if [ "$(nlines)" -eq 3 ]; then
	pass "an edit that changes nothing, and a broken edit, print no line"
else
	fail "an edit that changes nothing, and a broken edit, print no line" "$(cat "$tmp/lines")"
fi
if [ "$(grep -c 'muster.conf:[0-9]*: syntax error' "$tmp/werr")" -eq 1 ]; then
	pass "the broken edit is one stderr line naming file:line"
else
	fail "the broken edit is one stderr line naming file:line" "$(cat "$tmp/werr")"
fi
write_conf z:9 >"$conf"
await 4 "the repaired file is followed"
line_is 4 "c['cluster']=={'worker':['z:9']} and c['moved']==$(tasks worker:0 z:9)" \
	"after a broken edit the change is taken from the last good result"

kill -TERM $pid
rc=0
wait $pid || rc=$?
if [ $rc -eq 0 ]; then pass "SIGTERM ends the watch with status 0"; else fail "SIGTERM ends the watch with status 0" "exit $rc"; fi
if grep -E -q 'runtime error:|AddressSanitizer|LeakSanitizer' "$tmp/werr"; then
	fail "no sanitizer report from the watch" "$(cat "$tmp/werr")"
fi

# text: one line per change as well.
write_conf a:1 b:2 >"$conf"
watch_start "$MUSTER_BIN" -c "$conf" watch --format text --settle-ms 0
await 1 "watch --format text prints the first line" 20
write_conf a:1 c:3 d:4 >"$conf"
await 2 "watch --format text prints a change"
kill -TERM $pid
wait $pid || true
if [ "$(cat "$tmp/lines")" = "+worker:0=a:1 +worker:1=b:2
+worker:2=d:4 ~worker:1=c:3" ]; then
	pass "text lines mark added (+) and moved (~) tasks"
else
	fail "text lines mark added (+) and moved (~) tasks" "$(cat "$tmp/lines")"
fi

# tf_config's file form: the plugin's own watch follows the file.
if have_plugin tf_config; then
	printf '{"cluster": {"worker": ["w0:1"]}, "task": {"type": "worker", "index": 0}}' >"$tmp/tf.json"
	printf 'chain = ( { plugin = "tf_config"; config = { file = "%s"; }; } );\n' "$tmp/tf.json" >"$conf"
	watch_start "$MUSTER_BIN" -c "$conf" watch --settle-ms 0
	await 1 "tf_config file: the first line" 20
	printf '{"cluster": {"worker": ["w0:1", "w1:1"]}, "task": {"type": "worker", "index": 0}}' >"$tmp/tf.new"
	mv "$tmp/tf.new" "$tmp/tf.json"
	await 2 "tf_config file: a replaced TF_CONFIG file is seen"
	line_is 2 "c['added']==$(tasks worker:1 w1:1)" "tf_config file: the change adds the new worker"
	printf '{"cluster": ' >"$tmp/tf.json"
	sleep 0.5
	printf '{"cluster": {"worker": ["w0:1"]}, "task": {"type": "worker", "index": 0}}' >"$tmp/tf.json"
	await 3 "tf_config file: a broken file, then a repaired one"
	line_is 3 "c['removed']==$(tasks worker:1 w1:1)" "tf_config file: the repair is diffed against the last good result"
	if [ "$(grep -c 'tf.json' "$tmp/werr")" -eq 1 ]; then
		pass "tf_config file: the broken file is one stderr line"
	else
		fail "tf_config file: the broken file is one stderr line" "$(cat "$tmp/werr")"
	fi
	kill -TERM $pid
	wait $pid || true
else
	skip "tf_config file watch" "the tf_config plugin is not built"
fi

# warned_once ENTRY WARNING DESCRIPTION: a watch of a polled ENTRY that
# keeps failing before a static entry that answers gives the first line,
# then WARNING once over many polls, not at every poll.
warned_once() {
	printf 'chain = ( %s,\n  { plugin = "static"; config = { jobs = { worker = ["a:1"]; }; }; } );\n' \
		"$1" >"$conf"
	watch_start "$MUSTER_BIN" -c "$conf" watch --settle-ms 0
	await 1 "$3: the first line" 20
	sleep 1.5
	kill -TERM $pid
	wait $pid || true
	n=$(grep -c "$2" "$tmp/werr")
	if [ "$n" -eq 1 ] && [ "$(nlines)" -eq 1 ]; then
		pass "$3 is warned about once"
	else
		fail "$3 is warned about once" "$n warnings:" "$(cat "$tmp/werr")"
	fi
}

if have_plugin stub; then
	warned_once '{ plugin = "stub"; watch_interval_ms = 100;
    config = { status = "unavail"; reason = "the backend is down"; }; }' \
		'the backend is down' "a polled entry that keeps failing"
	# A hung backend: its reason holds the time it took, which differs
	# from poll to poll.
	warned_once '{ plugin = "stub"; watch_interval_ms = 50; timeout_ms = 20;
    config = { sleep_ms = 60; jobs = { worker = ["z:9"]; }; }; }' \
		'no answer within its 20 ms budget' "a polled entry that keeps overrunning its budget"
else
	skip "a polled entry that keeps failing is warned about once" "the stub plugin is not built"
	skip "a polled entry that keeps overrunning its budget is warned about once" \
		"the stub plugin is not built"
fi

# muster plugins says how a watch follows each entry.
if have_plugin tf_config && have_plugin stub; then
	cat >"$conf" <<EOC
chain = ( { plugin = "tf_config"; config = { file = "$tmp/tf.json"; }; },
          { plugin = "stub"; watch_interval_ms = 250; },
          { plugin = "static"; config = { jobs = { worker = ["a:1"]; }; }; } );
EOC
	run -c "$conf" plugins
	expect_status 0 "plugins over a watched, a polled and a config-only entry"
	expect_out_match '^tf_config .* watch +loaded$' "plugins: tf_config's file form watches its file"
	expect_out_match '^stub .* poll 250 ms +loaded$' "plugins: a plugin without watch() is polled at its interval"
	expect_out_match '^static .* config +built-in$' "plugins: static changes with its config alone"
else
	skip "plugins: the WATCH column" "the tf_config or stub plugin is not built"
fi
# The schedulers and spark cannot change within a job; gce is polled.
if have_plugin slurm && have_plugin spark && have_plugin gce; then
	cat >"$conf" <<EOC
chain = ( { plugin = "slurm"; }, { plugin = "spark"; config = { cluster_size = 2; executor_id = 0; }; },
          { plugin = "gce"; config = { jobs = { worker = ["g"]; }; }; } );
EOC
	run -c "$conf" plugins
	expect_out_match '^slurm .* config +loaded$' "plugins: slurm is never polled"
	expect_out_match '^spark .* config +loaded$' "plugins: spark is never polled"
	expect_out_match '^gce .* poll 10000 ms +loaded$' "plugins: gce is polled at watch_interval_ms"
else
	skip "plugins: the WATCH column of slurm, spark and gce" "one of them is not built"
fi

run -c "$conf" watch --settle-ms -1
expect_status 64 "a negative --settle-ms is a usage error"
run watch --help
expect_status 0 "watch --help"

finish
