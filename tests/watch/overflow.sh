#!/bin/sh
# muster watch after its inotify queue overflowed: the watch is stopped
# (SIGSTOP) while more files are made in the watched directory than the
# queue holds, the watched file is replaced by rename, and the watch goes
# on (SIGCONT).  The rename's event is lost with the others; the overflow
# must make the watch read its file again and print the change.  Once for
# muster.conf (the core's watch) and once for a tf_config file (the
# plugin's own watch).
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
. "$MUSTER_TEST_SRCDIR/tests/watch/lib.sh"

cleanup() { kill -CONT $pid 2>/dev/null || true; kill $pid 2>/dev/null || true; }

# Each file made is at least one event (IN_CREATE, then IN_CLOSE_WRITE):
# the queue's capacity and then some is sure to overflow it.
queued=$(cat /proc/sys/fs/inotify/max_queued_events 2>/dev/null || echo 16384)
nfiles=$((queued + 4000))
[ $nfiles -ge 20000 ] || nfiles=20000
[ $nfiles -le 300000 ] || skip_all "max_queued_events is $queued: too many files to overflow it"

# flood DIR: stop the watch, make $nfiles files in DIR, then run the
# rest of the arguments (the rename), and let the watch go on.
flood() {
	dir=$1
	shift
	kill -STOP $pid
	mkdir -p "$dir"
	(cd "$dir" && seq -f 'flood%.0f' 1 $nfiles | xargs touch)
	"$@"
	kill -CONT $pid
}

mkdir -p "$tmp/etc" "$tmp/tf"
conf=$tmp/etc/muster.conf
static_conf() {
	printf 'chain = ( { plugin = "static"; config = { jobs = { worker = ["%s"]; }; }; } );\n' "$1"
}

static_conf a:1 >"$conf"
watch_start "$MUSTER_BIN" -c "$conf" watch --settle-ms 0
await 1 "muster.conf: the first line" 20
static_conf b:2 >"$conf.new"
flood "$tmp/etc" mv "$conf.new" "$conf"
await 2 "muster.conf: replaced while the queue overflowed, the change is seen" 10
line_is 2 "c['cluster']=={'worker':['b:2']}" "muster.conf: the line after the overflow is the new cluster"
kill -TERM $pid
wait $pid || true

if have_plugin tf_config; then
	rm -rf "$tmp/etc"/flood*
	tf() { printf '{"cluster": {"worker": [%s]}, "task": {"type": "worker", "index": 0}}' "$1"; }
	tf '"w0:1"' >"$tmp/tf/tf.json"
	printf 'chain = ( { plugin = "tf_config"; config = { file = "%s"; }; } );\n' \
		"$tmp/tf/tf.json" >"$conf"
	watch_start "$MUSTER_BIN" -c "$conf" watch --settle-ms 0
	await 1 "tf_config file: the first line" 20
	tf '"w0:1", "w1:1"' >"$tmp/tf/tf.new"
	flood "$tmp/tf" mv "$tmp/tf/tf.new" "$tmp/tf/tf.json"
	await 2 "tf_config file: replaced while the queue overflowed, the change is seen" 10
	line_is 2 "c['added']==$(tasks worker:1 w1:1)" \
		"tf_config file: the line after the overflow adds the new worker"
	kill -TERM $pid
	wait $pid || true
else
	skip "tf_config file: an overflowed queue" "the tf_config plugin is not built"
fi
if grep -E -q 'runtime error:|AddressSanitizer|LeakSanitizer' "$tmp/werr"; then
	fail "no sanitizer report from the watch" "$(cat "$tmp/werr")"
fi

finish
