#!/bin/sh
# gce plugin: addresses and untrusted answers.  An instance whose networkIP
# makes no HOST:PORT is left out with the reason at info level; this
# instance left out answers with the own task unknown, also under strict.
# A proxy's HTML page where JSON was expected is named as such, with the
# HTTP status.  Everything over plain http:// (compute_endpoint and
# GCE_METADATA_HOST), as loopback servers and proxies serve.
. "$MUSTER_TEST_SRCDIR/tests/gce/lib.sh"

start_server --mode badip
c=$(conf badip 'jobs = { worker = "tf-workers"; };')
run_muster "$c" -v resolve --format text
expect "bad networkIPs are left out" 0 "worker 0 10.128.0.2:8470
worker 1 10.128.2.2:8470
worker 2 10.128.4.2:8470
worker 3 10.128.5.2:8470
worker 4 10.128.6.2:8470
worker 5 10.128.7.2:8470
worker 6 10.128.8.2:8470
worker 7 10.128.9.2:8470
worker 8 10.128.10.2:8470
worker 9 10.128.11.2:8470
rpc_layer: grpc
source: g"
expect_err "... each with its reason at info level" 0 \
	"info: gce(g): job worker: instance tf-worker-1 (zone us-central1-a) is left out: address \"[10.128.1.2:99]:8470\" is not HOST:PORT: what is in brackets is not an IPv6 address" \
	"instance tf-worker-3 (zone us-central1-a) is left out: address \"10.128.3.2 x:8470\" is not HOST:PORT: ' ' cannot be in a host name"
sed 's/^chain/strict = true;\nchain/' "$c" >"$tmp/strict.conf"
run_muster "$tmp/strict.conf" master
expect "strict: own instance left out, own task unknown, no master" 0 ""

start_server --mode badgateway
c=$(conf bad 'jobs = { worker = "tf-workers"; }; retries = 0;')
run_muster "$c" resolve
expect_err "502 with an HTML page" $EX_UNAVAIL \
	"gce(g): unavail: instance group tf-workers (zone us-central1-a, project muster-test): POST $API/projects/muster-test/zones/us-central1-a/instanceGroups/tf-workers/listInstances" \
	": HTTP 502 Bad Gateway: the server answered text/html, not JSON (gave up after 1 attempt)"
start_server --mode garbage
c=$(conf garbage 'jobs = { worker = "tf-workers"; };')
run_muster "$c" resolve
expect_err "200 with an HTML page" $EX_UNAVAIL \
	"instance group tf-workers (zone us-central1-a, project muster-test): HTTP 200 OK: the server answered text/html, not JSON"

finish
