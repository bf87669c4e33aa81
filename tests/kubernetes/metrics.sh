#!/bin/sh
# muster watch --metrics-port over the kubernetes plugin: the watch's
# reconnects and resyncs (plugin ABI 1.8's watch_event) counted per
# backend, labelled with the entry's name.  A server that answers a watch
# with a plain listing breaks every stream: reconnects; one that answers
# 410 Gone after the first: resyncs.
. "$MUSTER_TEST_SRCDIR/tests/kubernetes/lib.sh"
. "$MUSTER_TEST_SRCDIR/tests/watch/lib.sh"
require_tools curl
make_pki
token_setup

# sample NAME: its value on the page just scraped ($tmp/page).
sample() { python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import prom_check; print(prom_check.load(open(sys.argv[2]).read()).get(sys.argv[3]))" \
	"$MUSTER_TEST_SRCDIR/tests/lib" "$tmp/page" "$1"; }

# counted WHAT SERVER-OPTIONS...: a watch with a page against that server;
# waits up to 10 s for NAME{backend="k8s"} to reach 1.
counted() {
	name=$1
	shift
	start_server --token-file "$tmp/server-token" "$@"
	c=$(conf m "$(explicit)" "watch_interval_ms = 86400000;")
	watch_start "$MUSTER_BIN" -c "$c" watch --settle-ms 0 --metrics-port 0
	await 1 "$name: the watch's first line" 20
	port=$(sed -n 's|^muster: metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' "$tmp/werr")
	i=0
	v=
	while [ $i -lt 100 ]; do
		curl -sS -m 5 -o "$tmp/page" "http://127.0.0.1:$port/metrics" 2>/dev/null &&
			v=$(sample "$name{backend=\"k8s\"}")
		case $v in 0.0 | None | '') ;; *) break ;; esac
		sleep 0.1
		i=$((i + 1))
	done
	case $v in
	0.0 | None | '') fail "$name{backend=\"k8s\"} counts" "got '$v'" "$(cat "$tmp/page")" ;;
	*) pass "$name{backend=\"k8s\"} counts ($v)" ;;
	esac
	if python3 "$MUSTER_TEST_SRCDIR/tests/lib/prom_check.py" "$tmp/page" >"$tmp/why"; then
		pass "$name: the exposition checks"
	else
		fail "$name: the exposition checks" "$(cat "$tmp/why")"
	fi
	kill -TERM $pid
	wait $pid || true
}
cleanup() { kill $pid 2>/dev/null || true; stop_server; }

counted muster_watch_reconnects_total
check_eq "... and no resync" "$(sample 'muster_watch_resyncs_total{backend="k8s"}')" 0.0
counted muster_watch_resyncs_total --mode gonewatch
finish
