#!/bin/sh
# kubernetes plugin: faults.  Every failure is unavail (or notfound when no
# API server is configured at all) with the reason — the API's own Status
# message, curl's TLS reason, what is wrong in the JSON — never a crash, a
# hang or a leak, and never the token.
. "$MUSTER_TEST_SRCDIR/tests/kubernetes/lib.sh"
make_pki
token_setup

# Nothing configured, no kubeconfig, not in a pod: notfound, so a chain
# falls back.
c=$(conf nothing "")
run_muster "$c" resolve
expect_err "no API server: notfound" $EX_NOTFOUND \
	"kubernetes(k8s): notfound: no API server: no server setting, no kubeconfig (~/.kube/config does not exist), and not in a pod (KUBERNETES_SERVICE_HOST is not set)"

# serve [fake_apiserver options]: a fresh server; P is the first request,
# c a config for it.
serve() {
	start_server --token-file "$tmp/server-token" "$@"
	P="GET $URL/api/v1/namespaces/default/pods?labelSelector=job-name%3Dtensorflow&limit=500"
	c=$(conf ok "$(explicit)")
}
serve

# 401: a wrong token, no token.
printf 'not-the-token\n' >"$tmp/wrong-token"
c=$(conf wrong "server = \"$URL\"; token_file = \"$tmp/wrong-token\"; ca_file = \"$pki/ca.crt\";")
run_muster "$c" resolve
expect_err "401 wrong token" $EX_UNAVAIL \
	"kubernetes(k8s): unavail: $P: HTTP 401 Unauthorized: Unauthorized (credentials from the entry's server setting)"
c=$(conf notoken "server = \"$URL\"; ca_file = \"$pki/ca.crt\";")
run_muster "$c" resolve
expect_err "401 no token" $EX_UNAVAIL \
	"$P: HTTP 401 Unauthorized: Unauthorized (no credentials were sent; server from the entry's server setting)"
c=$(conf inline "server = \"$URL\"; token = \"$TOKEN\"; ca_file = \"$pki/ca.crt\";")
run_muster "$c" -vv resolve --format text
expect_err "token given inline, debug logs on" 0 "debug: kubernetes(k8s): API server $URL"

# The API server's own Status messages.
serve --mode forbidden
run_muster "$c" resolve
expect_err "403 RBAC" $EX_UNAVAIL \
	"$P: HTTP 403 Forbidden: pods is forbidden: User \"system:serviceaccount:default:nobody\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\" (credentials from the entry's server setting)"
serve --mode notfound
run_muster "$c" resolve
expect_err "404" $EX_UNAVAIL "$P: HTTP 404 Not Found: the server could not find the requested resource"
serve
c=$(conf prefix "server = \"$URL/k8s/clusters/c-1\"; token_file = \"$tmp/token\"; ca_file = \"$pki/ca.crt\";")
run_muster "$c" resolve
expect_err "a server path prefix is kept" $EX_UNAVAIL \
	"GET $URL/k8s/clusters/c-1/api/v1/namespaces/default/pods?labelSelector=job-name%3Dtensorflow&limit=500: HTTP 404 Not Found: the server could not find the requested resource"
c=$(conf badsel "$(explicit) jobs = { worker = [\"app in (a\"]; };")
run_muster "$c" resolve
expect_err "400 for a selector the API cannot parse" $EX_UNAVAIL \
	"labelSelector=app%20in%20%28a&limit=500: HTTP 400 Bad Request: unable to parse requirement: 'app in (a'"

# Answers that are not a PodList.
serve --mode garbage
run_muster "$c" resolve
expect_err "garbage" $EX_UNAVAIL \
	"unavail: $P: HTTP 200 OK: the server answered text/html, not JSON"
serve --mode truncated
run_muster "$c" resolve
expect_err "truncated JSON" $EX_UNAVAIL \
	"job worker: pods matching \"job-name=tensorflow\" in namespace default (page 1): the answer is not valid JSON at byte 17593 of 17594: A string is opened, but never closed."
serve --mode short
run_muster "$c" resolve
expect_err "connection closed mid-answer" $EX_UNAVAIL "unavail: $P: "
serve --mode wrongtypes
run_muster "$c" resolve
expect_err "wrong types" $EX_UNAVAIL \
	"(page 1): items[2] (pod tensorflow-worker-10): status.podIP is a number; expected a string"
serve --mode itemsobject
run_muster "$c" resolve
expect_err "items is an object" $EX_UNAVAIL "(page 1): items is an object; expected an array"

# Encodings: a broken gzip stream, one that decodes past the page limit,
# an encoding not asked for.
serve --mode badgzip
run_muster "$c" resolve
expect_err "gzip with a wrong checksum" $EX_UNAVAIL \
	"unavail: $P: the answer is not valid gzip: corrupt gzip data (or a wrong checksum) in the member at byte 0 of "
serve --mode bomb
run_muster "$c" resolve
expect_err "gzip that decodes past 64 MiB" $EX_UNAVAIL \
	"unavail: $P: the answer decodes to more than 64 MiB"
serve --mode brotli
run_muster "$c" resolve
expect_err "an encoding not asked for" $EX_UNAVAIL \
	"unavail: $P: the answer's Content-Encoding is \"br\"; only gzip was asked for"
serve --mode forbidden,identity
run_muster "$c" resolve
expect_err "403 not compressed" $EX_UNAVAIL "HTTP 403 Forbidden: pods is forbidden: User"
serve --mode forbidden,badgzip
run_muster "$c" resolve
expect_err "403 whose gzip body is broken: the status alone" $EX_UNAVAIL \
	"$P: HTTP 403 Forbidden (credentials from the entry's server setting)"

# An address longer than any real one is formatted whole, not cut, and
# then left out: it is no IPv6 address.
serve --mode longip
c=$(conf longip "$(explicit) jobs = { ps = \"job-name=ps\"; };")
run_muster "$c" -v resolve --format text
expect "a 155-byte pod IP" 0 "rpc_layer: grpc
source: k8s"
expect_err "... left out, with why" 0 \
	"job ps: pod tensorflow-ps-0 is left out: address \"[fd00:aaaaaaaa" \
	"...\" is not HOST:PORT: what is in brackets is not an IPv6 address"

# Faults midway through a paged listing (12 pods, 3 a page), where each
# page is read while the next one is fetched: the first bad page is the
# one named, whatever befalls the page after it, as when pages are read
# one after another.
midway() {
	serve --mode "$1"
	c=$(conf midway "$(explicit) limit = 3;" "${2:-}")
	run_muster "$c" resolve
}
pages_asked() {
	py_log "len(reqs)"
}
midway wrongtypes@2
expect_err "a bad item on page 2 of 4" $EX_UNAVAIL \
	"(page 2): items[2] (pod tensorflow-worker-3): status.podIP is a number; expected a string"
check_eq "page 3 was fetched while page 2 was read, no further" "$(pages_asked)" 3
midway wrongtypes@2,short@3
expect_err "page 2's bad item, page 3 cut short" $EX_UNAVAIL \
	"(page 2): items[2] (pod tensorflow-worker-3): status.podIP is a number; expected a string"
check_eq "page 3's failure is not the one reported" "$(echo "$err" | grep -c "continue=")" 0
midway wrongtypes@2,slow@3 "timeout_ms = 700;"
expect_err "page 2's bad item, page 3 never answered" $EX_UNAVAIL \
	"(page 2): items[2] (pod tensorflow-worker-3): status.podIP is a number; expected a string"
midway short@3
expect_err "page 3 cut short" $EX_UNAVAIL \
	"unavail: GET $URL/api/v1/namespaces/default/pods?labelSelector=job-name%3Dtensorflow&limit=3&continue="
midway truncated@3
expect_err "page 3 truncated" $EX_UNAVAIL \
	"(page 3): the answer is not valid JSON at byte " "A string is opened, but never closed."
midway garbage@4
expect_err "page 4 not JSON" $EX_UNAVAIL \
	"&continue=eyJzdGFydCI6IDksICJydiI6IDIwMDAwfQ%3D%3D: HTTP 200 OK: the server answered text/html, not JSON"
midway itemsobject@4
expect_err "page 4 not a list" $EX_UNAVAIL "(page 4): items is an object; expected an array"
midway forbidden@3
expect_err "page 3 forbidden" $EX_UNAVAIL "HTTP 403 Forbidden: pods is forbidden"
midway ""
whole=$out
check_eq "12 pods in 4 pages" "$(pages_asked) $(echo "$out" | grep -o '"10\.244\.1\.' | wc -l)" "4 12"
midway expire@3
expect "410 on page 3: listed again, whole" 0 "$whole"
check_eq "410 on page 3: 3 + 4 requests" "$(pages_asked)" 7

# Listings that never end.  A continue token sent before is answered within
# a handful of requests, naming it (the budget bounds the tests before the
# fix); fresh tokens forever stop at max_pages.
token() {
	python3 -c 'import base64, json, sys
print(base64.b64encode(json.dumps({"start": int(sys.argv[1]), "rv": 20000}).encode()).decode())' "$1"
}
loops() {
	serve --mode "$1"
	c=$(conf loop "$(explicit) limit = 3; $2" "timeout_ms = 3000;")
	run_muster "$c" resolve
}
loops samecontinue ""
expect_err "the same continue token forever" $EX_UNAVAIL \
	"unavail: job worker: pods matching \"job-name=tensorflow\": the API server sent continue token \"$(token 3)\" twice (page 2); its listing would never end"
check_eq "the same continue token: requests" "$(pages_asked)" 2
loops cyclecontinue ""
expect_err "two continue tokens in turn" $EX_UNAVAIL \
	"sent continue token \"$(token 3)\" twice (page 3); its listing would never end"
check_eq "two continue tokens in turn: requests" "$(pages_asked)" 3
loops endless "max_pages = 5;"
expect_err "fresh continue tokens forever" $EX_UNAVAIL \
	"unavail: job worker: pods matching \"job-name=tensorflow\": more than 5 pages (max_pages); giving up"
check_eq "fresh continue tokens forever: requests" "$(pages_asked)" 5
loops "" "max_pages = 4;"
expect "4 pages within max_pages = 4" 0 "$whole"
loops "" "max_pages = 3;"
expect_err "4 pages beyond max_pages = 3" $EX_UNAVAIL "more than 3 pages (max_pages); giving up"
check_eq "4 pages beyond max_pages = 3: requests" "$(pages_asked)" 3

# Timeouts come from the entry's budget.
serve --mode slow
c=$(conf slow "$(explicit)" "timeout_ms = 700;")
t0=$(date +%s)
run_muster "$c" resolve
t1=$(date +%s)
expect_err "slow server" $EX_UNAVAIL "unavail: $P: no answer within the entry's time budget ("
check_eq "gave up within the budget" "$([ $((t1 - t0)) -le 2 ] && echo yes)" "yes"

# TLS: an unknown CA, no CA, a server certificate signed by another CA.
serve
c=$(conf noca "server = \"$URL\"; token_file = \"$tmp/token\";")
run_muster "$c" resolve
expect_err "TLS: certificate not trusted" $EX_UNAVAIL \
	"unavail: $P: TLS failed (credentials from the entry's server setting): SSL certificate problem: unable to get local issuer certificate"
c=$(conf otherca "server = \"$URL\"; token_file = \"$tmp/token\"; ca_file = \"$pki/other-ca.crt\";")
run_muster "$c" resolve
expect_err "TLS: another CA" $EX_UNAVAIL "TLS failed" "SSL certificate problem"
c=$(conf noca-file "server = \"$URL\"; token_file = \"$tmp/token\"; ca_file = \"$tmp/absent.crt\";")
run_muster "$c" resolve
expect_err "TLS: CA file missing" $EX_UNAVAIL "TLS failed" "$tmp/absent.crt"
c=$(conf insecure "server = \"$URL\"; token_file = \"$tmp/token\"; insecure_skip_tls_verify = true; jobs = { ps = \"job-name=ps\"; };")
run_muster "$c" resolve --format text
expect "insecure_skip_tls_verify" 0 "ps 0 10.244.2.10:8470
ps 1 10.244.2.11:8470
rpc_layer: grpc
source: k8s"
expect_err "insecure_skip_tls_verify warns" 0 \
	"muster: warning: kubernetes(k8s): insecure_skip_tls_verify: the certificate of $URL is not checked (from the entry's server setting)"

# Credentials that cannot be read.
c=$(conf notokenfile "server = \"$URL\"; token_file = \"$tmp/absent-token\"; ca_file = \"$pki/ca.crt\";")
run_muster "$c" resolve
expect_err "token file missing" $EX_UNAVAIL "unavail: cannot read token_file $tmp/absent-token: No such file or directory"
printf 'abc\ndef\n' >"$tmp/two-lines"
c=$(conf twolines "server = \"$URL\"; token_file = \"$tmp/two-lines\"; ca_file = \"$pki/ca.crt\";")
run_muster "$c" resolve
expect_err "token file with a newline inside" $EX_UNAVAIL "token_file $tmp/two-lines holds a control character; expected one token"

# Nobody listening.
serve
stop_server
run_muster "$c" resolve
expect_err "connection refused" $EX_UNAVAIL "unavail: $P: Failed to connect to 127.0.0.1 port $PORT"

# Bad options fail at open, with file:line.
c=$(conf badopt1 "token = \"x\";")
run_muster "$c" check
expect_err "token without server" $EX_CONFIG "$c:2: kubernetes(k8s): token needs server"
c=$(conf badopt2 "server = \"ftp://x\";")
run_muster "$c" check
expect_err "server scheme" $EX_CONFIG "server must be an https:// or http:// URL, not \"ftp://x\""
c=$(conf badopt3 "order = \"label\";")
run_muster "$c" check
expect_err "order label without index_label" $EX_CONFIG "order = \"label\" needs index_label"
c=$(conf badopt4 "address = \"node\";")
run_muster "$c" check
expect_err "address" $EX_CONFIG "address must be one of pod_ip, host_ip, kubeflow, not \"node\""
c=$(conf badopt5 "jobs = { worker = []; };")
run_muster "$c" check
expect_err "empty selector list" $EX_CONFIG "jobs.worker must not be empty"
c=$(conf badopt6 "namespace = \"a\"; all_namespaces = true;")
run_muster "$c" check
expect_err "namespace with all_namespaces" $EX_CONFIG "all_namespaces and namespace exclude each other"
c=$(conf badopt7 "server = \"https://x\"; client_cert = \"/c\";")
run_muster "$c" check
expect_err "client_cert without client_key" $EX_CONFIG "client_cert and client_key go together"
c=$(conf badopt8 "limit = -1;")
run_muster "$c" check
expect_err "limit range" $EX_CONFIG "limit must be between 0 and 1000000, not -1"
c=$(conf badopt8b "max_pages = 0;")
run_muster "$c" check
expect_err "max_pages range" $EX_CONFIG "max_pages must be between 1 and 1000000, not 0"
c=$(conf badopt9 "accelerators = { GPU = 3; };")
run_muster "$c" check
expect_err "accelerators type" $EX_CONFIG "accelerators.GPU must be a list of strings, not an integer"
kinds=$(i=0; while [ $i -lt 65 ]; do printf 'K%d = "r%d"; ' $i $i; i=$((i + 1)); done)
c=$(conf badopt10 "accelerators = { $kinds };")
run_muster "$c" check
expect_err "65 accelerator kinds" $EX_CONFIG "accelerators: at most 64 kinds"
sels=$(i=0; while [ $i -lt 65536 ]; do printf '"a=%d",' $i; i=$((i + 1)); done)
c=$(conf badopt11 "jobs = { worker = [ ${sels%,} ]; };")
run_muster "$c" check
expect_err "65,536 selectors" $EX_CONFIG "jobs.worker: at most 65535 label selectors"

finish
