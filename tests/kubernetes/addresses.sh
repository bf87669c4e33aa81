#!/bin/sh
# kubernetes plugin: addresses and untrusted answers.  A pod whose IP makes
# no HOST:PORT (a port or brackets of its own, an escape sequence) is left
# out with the reason at info level, the pods after it moving up; this
# pod left out answers with the own task unknown, also under strict.  A
# proxy's HTML page where JSON was expected is named as such, with the
# HTTP status, over plain http:// as over TLS.
. "$MUSTER_TEST_SRCDIR/tests/kubernetes/lib.sh"
make_pki
token_setup

start_server --token-file "$tmp/server-token" --mode badip
c=$(conf badip "$(explicit)")
POD_NAME=tensorflow-worker-1 run_muster "$c" -v resolve --format text
expect "bad pod IPs are left out, the pods after them move up" 0 "worker 0 10.244.1.10:8470
worker 1 10.244.1.14:8470
worker 2 10.244.1.15:8470
worker 3 10.244.1.16:8470
worker 4 10.244.1.17:8470
worker 5 10.244.1.18:8470
worker 6 10.244.1.19:8470
worker 7 10.244.1.20:8470
worker 8 10.244.1.21:8470
rpc_layer: grpc
source: k8s"
expect_err "... each with its reason at info level" 0 \
	"info: kubernetes(k8s): job worker: pod tensorflow-worker-1 is left out: address \"[10.244.1.11:99]:8470\" is not HOST:PORT: what is in brackets is not an IPv6 address" \
	"pod tensorflow-worker-2 is left out: address \"[[fd00::12]]:8470\" is not HOST:PORT: a second '['" \
	"pod tensorflow-worker-3 is left out: address \"10.244.1.13\\x1b[2J:8470\" is not HOST:PORT: byte 0x1b cannot be in a host name"
case "$err" in
*"$(printf '\033')"*) fail "an escape byte from a pod reached the terminal" ;;
esac
POD_NAME=tensorflow-worker-4 run_muster "$c" master
expect "a pod after them: its index moved up" 0 "grpc://10.244.1.14:8470"
cat >"$tmp/strict.conf" <<EOC
strict = true;
chain = ( { plugin = "kubernetes"; name = "k8s"; config = { $(explicit) }; } );
EOC
POD_NAME=tensorflow-worker-1 run_muster "$tmp/strict.conf" resolve
expect "strict: own pod left out, own task unknown" 0 '{"cluster":{"worker":["10.244.1.10:8470","10.244.1.14:8470","10.244.1.15:8470","10.244.1.16:8470","10.244.1.17:8470","10.244.1.18:8470","10.244.1.19:8470","10.244.1.20:8470","10.244.1.21:8470"]},"rpc_layer":"grpc"}'

# IPv6 pod IPs get their brackets once.
start_server --token-file "$tmp/server-token" --scenario ipv6
c=$(conf v6 "$(explicit)")
run_muster "$c" master --task worker:1
expect "IPv6 pod IP: bracketed once" 0 "grpc://[fd00:10:244::11]:8470"

# A proxy's error page, and a 200 that is HTML, over plain http://.
start_server --plain --mode badgateway
c=$(conf plain "server = \"$URL\";")
run_muster "$c" resolve
expect_err "502 with an HTML page" $EX_UNAVAIL \
	"kubernetes(k8s): unavail: GET $URL/api/v1/namespaces/default/pods?labelSelector=job-name%3Dtensorflow&limit=500: HTTP 502 Bad Gateway: the server answered text/html, not JSON"
start_server --plain --mode garbage
c=$(conf plain "server = \"$URL\";")
run_muster "$c" resolve
expect_err "200 with an HTML page" $EX_UNAVAIL \
	"GET $URL/api/v1/namespaces/default/pods?labelSelector=job-name%3Dtensorflow&limit=500: HTTP 200 OK: the server answered text/html, not JSON"
start_server --plain
c=$(conf plain "server = \"$URL\";")
run_muster "$c" master --task worker:0
expect "plain http:// without a token still works" 0 "grpc://10.244.1.10:8470"

finish
