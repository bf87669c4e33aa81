#!/bin/sh
# muster watch over the kubernetes plugin against a REAL kube-apiserver:
# the plugin's watch streams report pods added, deleted, turned Pending and
# given another IP; the API server stopped for 5 s and started again, the
# watch resumes and reports what changed since; memory stays flat over
# 10,000 pod updates.  Needs a running server, as integration.sh (which
# says how to start one); skipped without it.
set -u
: "${MUSTER_TEST_SRCDIR:?MUSTER_TEST_SRCDIR is not set: run this test with make check or run.sh}"
KINT_HERE=$MUSTER_TEST_SRCDIR/tests/kubernetes-integration
. "$KINT_HERE/api.sh"

. "$MUSTER_TEST_SRCDIR/tests/lib/tap.sh"
. "$MUSTER_TEST_SRCDIR/tests/watch/lib.sh"
if [ "${MUSTER_KINT_REQUIRE:-0}" = 1 ]; then
	skip_all() { bail_out "$1"; }
fi
command -v curl >/dev/null 2>&1 || skip_all "curl not found"
kint_ready || skip_all "kube-apiserver is not running at $KINT_API (see integration.sh)"
tools=$(kint_tools "$MUSTER_TEST_SRCDIR") ||
	skip_all "no start.sh: set MUSTER_KUBE_TOOLS to ../shared/tools/kube-apiserver"

have_plugin kubernetes || skip_all "no kubernetes.so in MUSTER_PLUGIN_PATH"
HOME=$tmp/home
mkdir -p "$HOME"
export HOME
unset KUBECONFIG KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT POD_NAME HOSTNAME

ns=kint-watch
kint_ns $ns || exit 99
# A clean namespace: the pods of an earlier run are gone.
kint_api DELETE "/api/v1/namespaces/$ns/pods?gracePeriodSeconds=0" >/dev/null
label='{"job-name":"w"}'
ip() { echo "10.9.0.$1"; }
for i in 0 1 2 3 4 5 6 7; do
	kint_pod $ns w-$i "$label" "$(ip $i)" || { echo "Bail out! seeding $ns"; exit 99; }
done

cat >"$tmp/k.conf" <<CONF
# A day between polls: every line here comes from the plugin's watch.
chain = ( { plugin = "kubernetes"; timeout_ms = 20000; watch_interval_ms = 86400000; config = {
  server = "$KINT_API"; ca_file = "$KINT_CA"; token = "$K8S_TOKEN";
  namespace = "$ns"; jobs = { worker = ["job-name=w"]; }; port = 1;
}; } );
CONF
# A small ASan quarantine: freed memory is reused, so RSS measures the watch.
watch_start env ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}:quarantine_size_mb=1" \
	"$MUSTER_BIN" -c "$tmp/k.conf" -v watch --settle-ms 1500
cleanup() { kill $pid 2>/dev/null || true; }
addr() { echo "'$(ip "$1"):1'"; }

await 1 "the first line comes once the streams are open" 30
line_is 1 "len(c['cluster']['worker'])==8 and len(c['added'])==8" "the first line: 8 running pods"
grep -q 'watch ended' "$tmp/werr" && fail "the plugin's watch runs (no polling)" "$(cat "$tmp/werr")"

for i in 8 9 10 11; do kint_pod $ns w-$i "$label" "$(ip $i)"; done
await 2 "4 pods added: a line" 10
line_is 2 "len(c['cluster']['worker'])==12 and sorted(t['address'] for t in c['added'])==sorted([$(addr 8),$(addr 9),$(addr 10),$(addr 11)])" \
	"the 4 pods added, in one line after the settle"

kint_api DELETE "/api/v1/namespaces/$ns/pods/w-10?gracePeriodSeconds=0" >/dev/null
kint_api DELETE "/api/v1/namespaces/$ns/pods/w-11?gracePeriodSeconds=0" >/dev/null
await 3 "2 pods deleted: a line" 10
line_is 3 "len(c['cluster']['worker'])==10 and sorted(t['address'] for t in c['removed'])==sorted([$(addr 10),$(addr 11)])" \
	"the 2 deleted pods are removed"

# A pod turned Pending: resolve() answers tryagain, which prints nothing
# and ends nothing; running again, it is back.
kint_phase $ns w-3 Pending "$(ip 3)"
sleep 3
[ "$(nlines)" -eq 3 ] && kill -0 $pid 2>/dev/null &&
	pass "a Pending pod (tryagain) prints no line and the watch goes on" ||
	fail "a Pending pod (tryagain) prints no line and the watch goes on" "$(cat "$tmp/lines" "$tmp/werr")"
kint_phase $ns w-3 Running "$(ip 3)"
kint_phase $ns w-5 Running 10.9.1.5
await 4 "an IP changed: a line" 10
line_is 4 "c['moved']==[{'task':'worker:5','address':'10.9.1.5:1'}]" "the pod's new IP: its task moved"

# The API server stopped for 5 s and started again: the watch resumes
# (or lists again) and reports the change made since.
old=$(cat "$K8S_DIR/run/apiserver.pid")
kill "$old"
# Its graceful shutdown takes a while: gone before another starts.
while kill -0 "$old" 2>/dev/null; do sleep 0.2; done
sleep 5
"$tools/start.sh" >"$tmp/start.log" 2>&1 || { echo "Bail out! restarting the API server"; cat "$tmp/start.log"; exit 99; }
kint_phase $ns w-6 Running 10.9.1.6
await 5 "after the API server restarts, a change: a line" 20
line_is 5 "c['moved']==[{'task':'worker:6','address':'10.9.1.6:1'}]" "the change made after the restart is reported"

# 10,000 updates of a pod the watch reads (its phase flips, and back,
# never settling on a different answer): the watch's memory stays flat.
rss() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }
flip() { # N: N status patches, over one curl process
	python3 - "$1" "$KINT_API" "$ns" "$KINT_CA" "$K8S_TOKEN" >"$tmp/patches" <<'PY'
import sys
n, api, ns, ca, token = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
for i in range(n):
    if i:
        print('next')
    ph = "Running" if i % 2 else "Succeeded"
    print('url = "%s/api/v1/namespaces/%s/pods/w-7/status"' % (api, ns))
    print('request = "PATCH"\ncacert = "%s"\noutput = "/dev/null"\nsilent' % ca)
    print('header = "Authorization: Bearer %s"' % token)
    print('header = "Content-Type: application/merge-patch+json"')
    print('data = "{\\"status\\":{\\"phase\\":\\"%s\\"}}"' % ph)
PY
	curl -K "$tmp/patches"
}
flip 2000
r1=$(rss)
flip 10000
sleep 2
r2=$(rss)
if [ -n "$r1" ] && [ -n "$r2" ] && [ "$r2" -lt $((r1 + 16384)) ]; then
	pass "RSS flat over 10,000 pod updates ($r1 kB, then $r2 kB)"
else
	fail "RSS flat over 10,000 pod updates" "$r1 kB, then $r2 kB"
fi

kill -TERM $pid
rc=0
wait $pid || rc=$?
[ $rc -eq 0 ] && pass "SIGTERM ends the watch promptly, status 0" || fail "SIGTERM ends the watch" "exit $rc"
if grep -E -q 'runtime error:|AddressSanitizer|LeakSanitizer' "$tmp/werr"; then
	fail "no sanitizer report from the watch" "$(cat "$tmp/werr")"
fi
finish
