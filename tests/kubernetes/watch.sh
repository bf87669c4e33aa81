#!/bin/sh
# kubernetes plugin: the watch's own requests against the loopback API
# server.  A stop is seen during a listing that does not answer (not
# after the listing's 10 s budget), and a server that answers a watch with
# a plain listing, or with 410 Gone right after the listing, is asked again
# with a growing backoff, not in a loop.
. "$MUSTER_TEST_SRCDIR/tests/kubernetes/lib.sh"
. "$MUSTER_TEST_SRCDIR/tests/watch/lib.sh"
make_pki
token_setup

# now_ms: the monotonic clock's milliseconds, for elapsed times.
now_ms() { python3 -c 'import time; print(int(time.monotonic() * 1000))'; }
# watch_requests: how many of the logged requests were watch streams.
watch_requests() { grep -c '"watch": "1"' "$tmp/requests.log" || true; }

# The listing that gives a watch its resourceVersion hangs for 30 s.
start_server --token-file "$tmp/server-token" --mode slowwatch
c=$(conf slow "$(explicit)" "watch_interval_ms = 86400000;")
watch_start "$MUSTER_BIN" -c "$c" watch --settle-ms 0
cleanup() { kill $pid 2>/dev/null || true; stop_server; }
# The watch thread is inside its listing once the server has the request.
i=0
while ! grep -q '"held": 30' "$tmp/requests.log" 2>/dev/null && [ $i -lt 500 ]; do
	sleep 0.02
	i=$((i + 1))
done
[ $i -lt 500 ] || bail_out "the watch's listing never reached the server in 10 s"
sleep 0.5
t0=$(now_ms)
kill -TERM $pid
rc=0
wait $pid || rc=$?
dt=$(($(now_ms) - t0))
check_eq "SIGTERM during a hanging listing: exit status" "$rc" 0
if [ "$dt" -lt 3000 ]; then
	pass "SIGTERM during a hanging listing ends the watch in ${dt} ms (budget 10 s)"
else
	fail "SIGTERM during a hanging listing ends the watch promptly" "${dt} ms"
fi
if grep -q 'Callback aborted\|watch: GET' "$tmp/werr"; then
	fail "a stop is not reported as a failed listing" "$(cat "$tmp/werr")"
else
	pass "a stop is not reported as a failed listing"
fi

# A listing the server refuses: the watch says why, as its listing's call
# failed, then ends, and the core polls the entry.
start_server --token-file "$tmp/server-token" --mode forbidden
c=$(conf refused "$(explicit)" "watch_interval_ms = 86400000;")
watch_start "$MUSTER_BIN" -c "$c" watch --settle-ms 0
i=0
while ! grep -q 'watch ended' "$tmp/werr" && [ $i -lt 1000 ]; do
	sleep 0.01
	i=$((i + 1))
done
if grep -q '^muster: warning: kubernetes(k8s): watch: GET .*/pods?.*limit=1: HTTP 403.*forbidden' \
	"$tmp/werr"; then
	pass "a refused listing: the watch says why"
else
	fail "a refused listing: the watch says why" "$(cat "$tmp/werr")"
fi
if grep -q 'kubernetes(k8s): watch ended; polling every 86400000 ms' "$tmp/werr"; then
	pass "... and ends: the core polls the entry"
else
	fail "... and ends: the core polls the entry" "$(cat "$tmp/werr")"
fi
kill -TERM $pid
wait $pid || true

# retried_with_backoff WHAT [fake_apiserver.py options]: over 4 s a watch
# against that server asks again a handful of times (backoff 100 ms
# doubling to 2 s, with jitter), never in a loop; SIGTERM then ends it.
retried_with_backoff() {
	what=$1
	shift
	start_server --token-file "$tmp/server-token" "$@"
	c=$(conf backoff "$(explicit)" "watch_interval_ms = 86400000;")
	watch_start "$MUSTER_BIN" -c "$c" watch --settle-ms 0
	await 1 "$what: the first line" 20
	: >"$tmp/requests.log"
	sleep 4
	n=$(watch_requests)
	if [ "$n" -ge 1 ] && [ "$n" -le 12 ]; then
		pass "$what: retried with backoff ($n requests in 4 s)"
	else
		fail "$what: retried with backoff" "$n watch requests in 4 s"
	fi
	kill -TERM $pid
	rc=0
	wait $pid || rc=$?
	check_eq "... and SIGTERM ends it with status 0" "$rc" 0
}

# This server answers ?watch=1 with a PodList and closes: not an event
# stream.
retried_with_backoff "a watch answered by a listing"
# After the first stream (a listing again, which arms the watch) every
# watch gets 410 Gone at once: each lists again, then backs off as well.
retried_with_backoff "a watch gone right after its listing" --mode gonewatch
gone=$(grep -c '"answer": 410' "$tmp/requests.log" || true)
if [ "$gone" -ge 1 ]; then
	pass "... the server answered 410 Gone ($gone times)"
else
	fail "... the server answered 410 Gone"
fi
if grep -q "$TOKEN" "$tmp/lines" "$tmp/werr"; then
	fail "the bearer token never appears in a watch's output"
else
	pass "the bearer token never appears in a watch's output"
fi
finish
