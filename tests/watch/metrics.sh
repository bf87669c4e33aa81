#!/bin/sh
# muster watch --metrics-port: the page scraped with curl while the watch
# follows its config (promtool where installed, tests/lib/prom_check.py
# everywhere): each printed change counted and its time kept, each run of
# the chain in the duration histogram, a broken edit a failed run; usage.
set -u
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
. "$MUSTER_TEST_SRCDIR/tests/watch/lib.sh"
require_tools python3 curl

conf=$tmp/muster.conf
write_conf() { printf 'chain = ( { plugin = "static"; config = { jobs = { worker = ["%s"]; }; }; } );\n' "$1"; }
write_conf a:1 >"$conf"

watch_start "$MUSTER_BIN" -c "$conf" watch --settle-ms 20 --metrics-port 0
cleanup() { kill $pid 2>/dev/null || true; }
await 1 "the watch's first line" 20
i=0
while ! grep -q 'metrics on' "$tmp/werr" && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
port=$(sed -n 's|^muster: metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' "$tmp/werr")
[ -n "$port" ] || bail_out "no metrics line: $(cat "$tmp/werr")"
pass "the page's address is said on stderr (port $port)"

# sample NAME: its value on the page just scraped.
sample() { python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import prom_check; print(prom_check.load(open(sys.argv[2]).read()).get(sys.argv[3]))" \
	"$MUSTER_TEST_SRCDIR/tests/lib" "$tmp/page" "$1"; }
scrape() { curl -sS -m 5 -o "$tmp/page" -w '%{http_code}' "http://127.0.0.1:$port/metrics"; }
page_ok() { # WHAT
	if python3 "$MUSTER_TEST_SRCDIR/tests/lib/prom_check.py" "$tmp/page" >"$tmp/why"; then
		pass "$1: the exposition checks$(command -v promtool >/dev/null || echo ' (no promtool: prom_check.py alone)')"
	else
		fail "$1: the exposition checks" "$(cat "$tmp/why")"
	fi
}

check_eq "a scrape: 200" "$(scrape)" 200
page_ok "after the first line"
check_eq "one change printed" "$(sample muster_watch_changes_total)" 1.0
check_eq "one run of the chain in the histogram" "$(sample muster_watch_resolve_duration_seconds_count)" 1.0
check_eq "... within 0.1 s" "$(sample 'muster_watch_resolve_duration_seconds_bucket{le="0.1"}')" 1.0
t=$(sample muster_watch_last_change_timestamp_seconds)
if python3 -c "import sys, time; sys.exit(0 if abs(float(sys.argv[1]) - time.time()) < 60 else 1)" "$t"
then pass "the last change's time is now ($t)"; else fail "the last change's time is now" "$t"; fi

write_conf b:2 >"$conf"
await 2 "an edit is a change"
scrape >/dev/null
check_eq "two changes printed" "$(sample muster_watch_changes_total)" 2.0
check_eq "two runs" "$(sample muster_watch_resolve_duration_seconds_count)" 2.0
check_eq "no failed run" "$(sample muster_watch_resolve_failures_total)" 0.0

# A config whose one entry fails: a failed run, no change.
printf 'chain = ( { plugin = "tf_config"; } );\n' >"$conf"
i=0
while [ "$(scrape >/dev/null; sample muster_watch_resolve_failures_total)" != 1.0 ] && [ $i -lt 300 ]; do
	sleep 0.01
	i=$((i + 1))
done
check_eq "a run that finds nothing is counted as failed" "$(sample muster_watch_resolve_failures_total)" 1.0
check_eq "... and is no change" "$(sample muster_watch_changes_total)" 2.0
page_ok "after a failed run"
curl -sS -m 5 -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/metrics" >"$tmp/code"
check_eq "POST: 405" "$(cat "$tmp/code")" 405
watch_stop "SIGTERM ends the watch with status 0"

run -c "$conf" watch --metrics-host 127.0.0.1
expect_status 64 "--metrics-host without --metrics-port: usage error"
run -c "$conf" watch --metrics-port 65536
expect_status 64 "--metrics-port 65536: usage error"
python3 -c 'import socket, time, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True); time.sleep(30)' >"$tmp/busy" &
busy=$!
cleanup() { kill $busy 2>/dev/null || true; }
i=0
while [ ! -s "$tmp/busy" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
run -c "$conf" watch --metrics-port "$(cat "$tmp/busy")"
expect_status $EX_UNAVAIL "a metrics port in use: exit 2"
expect_err_match "watch: metrics: cannot listen on 127.0.0.1 port [0-9]+: Address already in use" \
	"... saying so"
kill $busy
finish
