#!/bin/sh
# gce plugin: faults.  Off GCE: notfound without waiting on the network.
# Every failure is unavail (tryagain for an empty group) with the API's own
# message — 403, 404, 429 with Retry-After, 5xx after bounded retries,
# garbage, timeouts from the entry's budget — never a crash, a hang, a leak
# or a token.  Bad options fail at open with file:line.
. "$MUSTER_TEST_SRCDIR/tests/gce/lib.sh"
start_server
JOBS='jobs = { worker = "tf-workers"; };'
ms() { date +%s%3N; }
nreq() { py_log 'len(reqs)'; }

# Off GCE (the DMI name is another machine's, no $GCE_METADATA_HOST):
# notfound, not one request, at once.
DMI="$tmp/dmi-other"
c=$(conf offgce "$JOBS")
GCE_METADATA_HOST= run_muster "$c" resolve
expect_err "off GCE: notfound" $EX_NOTFOUND \
	"gce(g): notfound: not on Google Compute Engine ($tmp/dmi-other says \"Standard PC (Q35 + ICH9, 2009)\"), and project or zone is not configured"
check_eq "off GCE: no request" "$(nreq)" "0"
# The entry's own time from its -v line: a loaded machine's process start
# (sanitizers, parallel tests) is not what this measures.
took=$(printf '%s\n' "$err" | sed -n 's/.*info: gce(g): notfound:.*(\([0-9]*\) ms)$/\1/p')
check_eq "off GCE: the entry answers under 500 ms" "$([ "${took:-9999}" -lt 500 ] && echo yes)" "yes"
# ... with project and zone but no credentials: notfound too.
c=$(conf offgce2 "$JOBS project = \"muster-test\"; zone = \"us-central1-a\";")
GCE_METADATA_HOST= run_muster "$c" resolve
expect_err "off GCE, no credentials: notfound" $EX_NOTFOUND \
	"gce(g): notfound: no credentials: no access_token_file or credentials_file, GOOGLE_APPLICATION_CREDENTIALS is not set, no gcloud application-default credentials, and not on GCE"
# ... with project, zone and credentials: a launcher off GCE lists the
# cluster; the own task is unknown, the metadata server never asked.
printf 'static-access-token-1\n' >"$tmp/access-token"
start_server --access-token-file "$tmp/access-token"
c=$(conf offgce3 "jobs = { ps = \"tf-ps\"; }; project = \"muster-test\"; zone = \"us-central1-a\"; access_token_file = \"$tmp/access-token\";")
GCE_METADATA_HOST= run_muster "$c" resolve --format text
expect "off GCE with project, zone, credentials" 0 "ps 0 10.128.20.10:8470
ps 1 10.128.20.11:8470
rpc_layer: grpc
source: g"
check_eq "off GCE: no metadata request" \
	"$(py_log 'sum(1 for r in reqs if r["kind"] == "metadata")')" "0"

# No DMI file: one short probe (metadata_timeout_ms) of a metadata server
# that never answers (a listening socket nobody accepts on): notfound.
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
__import__("os").rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(60)' "$tmp/hole-port" &
hole_pid=$!
while [ ! -s "$tmp/hole-port" ]; do sleep 0.05; done
DMI="$tmp/no-dmi"
c=$(conf probe "$JOBS metadata_timeout_ms = 300;" "timeout_ms = 5000;")
t0=$(ms)
GCE_METADATA_HOST="127.0.0.1:$(cat "$tmp/hole-port")" run_muster "$c" resolve
t1=$(ms)
kill "$hole_pid" 2>/dev/null
wait "$hole_pid" 2>/dev/null
expect_err "no DMI, metadata silent: notfound" $EX_NOTFOUND \
	"gce(g): notfound: metadata server (project/project-id): GET http://127.0.0.1:$(cat "$tmp/hole-port")/computeMetadata/v1/project/project-id: no answer within 300 ms"
check_eq "probe: about metadata_timeout_ms" "$([ $((t1 - t0)) -lt 1500 ] && echo yes)" "yes"
# No DMI file and the metadata server answers: GCE.
c=$(conf probe2 "$JOBS self_instance = \"x\";")
run_muster "$c" resolve --format text
expect_err "no DMI, metadata answers: success" 0
DMI="$tmp/dmi-gce"

# On GCE (DMI) with a metadata server that is broken: unavail.
start_server --mode slow-metadata
c=$(conf slowmd "$JOBS metadata_timeout_ms = 300;")
run_muster "$c" resolve
expect_err "slow metadata server" $EX_UNAVAIL \
	"gce(g): unavail: metadata server (project/project-id): GET $URL/computeMetadata/v1/project/project-id: no answer within 300 ms"
start_server --mode no-flavor
c=$(conf noflavor "$JOBS")
run_muster "$c" resolve
expect_err "not a metadata server" $EX_UNAVAIL \
	"lacks \"Metadata-Flavor: Google\"; this is not a GCE metadata server"

# The API's own errors.
start_server --mode forbidden
c=$(conf forbidden "$JOBS")
run_muster "$c" resolve
expect_err "403" $EX_UNAVAIL \
	"gce(g): unavail: instance group tf-workers (zone us-central1-a, project muster-test): POST $API/projects/muster-test/zones/us-central1-a/instanceGroups/tf-workers/listInstances?maxResults=500&fields=items%2Finstance%2CnextPageToken: HTTP 403 Forbidden: Required 'compute.instanceGroups.list' permission for 'projects/muster-test' (credentials from the metadata server's default service account)"
start_server
c=$(conf nogroup "jobs = { worker = [\"tf-workers\", \"no-such-group\"]; };")
run_muster "$c" resolve
expect_err "404 group" $EX_UNAVAIL \
	"gce(g): unavail: instance group no-such-group (zone us-central1-a, project muster-test): POST $API/projects/muster-test/zones/us-central1-a/instanceGroups/no-such-group/listInstances?maxResults=500&fields=items%2Finstance%2CnextPageToken: HTTP 404 Not Found: The resource 'projects/muster-test/zones/us-central1-a/instanceGroups/no-such-group' was not found"
c=$(conf noproject "$JOBS project = \"other-project\";")
run_muster "$c" resolve
expect_err "404 project" $EX_UNAVAIL "HTTP 404 Not Found: The resource 'projects/other-project' was not found"
c=$(conf empty "jobs = { worker = \"tf-workers\"; ps = \"empty-group\"; };")
run_muster "$c" resolve
expect_err "empty group: tryagain" $EX_TRYAGAIN \
	"gce(g): tryagain: job ps: no RUNNING instance in instance group empty-group yet"

# 429: retried after Retry-After when it fits in the budget ...
start_server --mode quota --retry-after 1 --fail-count 1
c=$(conf quota1 "$JOBS")
run_muster "$c" resolve --format text
expect_err "429 once, retried after 1 s" 0 "gce(g): instance group tf-workers (zone us-central1-a, project muster-test): HTTP 429; retrying in 1000 ms"
check_eq "429 once: listInstances twice" \
	"$(py_log '[r["code"] for r in reqs if r["kind"] == "listInstances"]')" "[429, 200]"
# ... else unavail at once, with the quota message and the wait asked.
start_server --mode quota --retry-after 30
c=$(conf quota2 "$JOBS" "timeout_ms = 3000;")
t0=$(ms)
run_muster "$c" resolve
t1=$(ms)
expect_err "429, retry-after beyond the budget" $EX_UNAVAIL \
	"HTTP 429 Too Many Requests (quota): Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute' of service 'compute.googleapis.com' for consumer 'project_number:771288110'. (the API asks to retry after 30 s;"
check_eq "429: no waiting" "$([ $((t1 - t0)) -lt 1500 ] && echo yes)" "yes"

# 5xx: bounded retries with backoff.
start_server --mode unavailable --fail-count 2
c=$(conf u1 "$JOBS")
run_muster "$c" resolve --format text
expect_err "503 twice, then fine" 0
check_eq "503 twice: 3 listInstances" \
	"$(py_log '[r["code"] for r in reqs if r["kind"] == "listInstances"]')" "[503, 503, 200]"
start_server --mode unavailable
c=$(conf u1 "$JOBS")
run_muster "$c" resolve
expect_err "503 always" $EX_UNAVAIL \
	"HTTP 503 Service Unavailable: The service is currently unavailable. (gave up after 4 attempts)"
check_eq "503 always: 1 + retries (3) attempts" \
	"$(py_log 'sum(1 for r in reqs if r["kind"] == "listInstances")')" "4"
c=$(conf u2 "$JOBS retries = 0;")
run_muster "$c" resolve
expect_err "retries = 0" $EX_UNAVAIL "(gave up after 1 attempt)"

# Answers that are not the API's.
start_server --mode garbage
c=$(conf garbage "$JOBS")
run_muster "$c" resolve
expect_err "garbage" $EX_UNAVAIL \
	"gce(g): unavail: instance group tf-workers (zone us-central1-a, project muster-test): HTTP 200 OK: the server answered text/html, not JSON"
start_server --mode truncated
c=$(conf truncated "$JOBS")
run_muster "$c" resolve
expect_err "truncated" $EX_UNAVAIL "the answer is not valid JSON (error at byte"

# A listing that never ends: the API hands back the token it was given.
start_server --mode stuck-token
c=$(conf stuck "$JOBS page_size = 1;")
run_muster "$c" resolve
expect_err "stuck page token" $EX_UNAVAIL "(page 2): the API repeats page token"

# Timeouts come from the entry's budget.
start_server --mode slow
c=$(conf slow "$JOBS" "timeout_ms = 700;")
t0=$(ms)
run_muster "$c" resolve
t1=$(ms)
expect_err "slow API" $EX_UNAVAIL "gce(g): unavail: instance group tf-workers (zone us-central1-a, project muster-test): POST" "no answer within"
check_eq "slow API: within the budget" "$([ $((t1 - t0)) -lt 1500 ] && echo yes)" "yes"

# Nobody listening.
stop_server
c=$(conf refused "$JOBS project = \"p\"; zone = \"z\"; access_token_file = \"$tmp/access-token\";")
run_muster "$c" resolve
expect_err "connection refused" $EX_UNAVAIL "unavail: instance group tf-workers (zone z, project p): POST $API/projects/p/zones/z/instanceGroups/tf-workers/listInstances" "Failed to connect to 127.0.0.1 port $PORT"

# Bad options fail at open, with file:line.
check_opt() {
	c=$(conf "$1" "$2")
	run_muster "$c" check
	expect_err "option: $1" $EX_CONFIG "$c:2: gce(g): $3"
}
check_opt nojobs "" "jobs is required"
c=$(conf nojobs "")
run_muster "$c" check
expect_err "no jobs" $EX_CONFIG "gce(g): jobs is required: jobs = { worker = [\"instance-group\", ...]; };"
check_opt badgroup "jobs = { worker = \"Tf_Workers\"; };" "jobs.worker: \"Tf_Workers\" is not an instance group name"
check_opt emptylist "jobs = { worker = []; };" "jobs.worker must not be empty"
check_opt badorder "$JOBS order = \"random\";" "order must be one of natural, name, ip, not \"random\""
check_opt badaddr "$JOBS address = \"public\";" "address must be one of internal, external, not \"public\""
check_opt badpage "$JOBS page_size = 501;" "page_size must be between 1 and 500, not 501"
check_opt badport "$JOBS port = 0;" "port must be between 1 and 65535, not 0"
check_opt badzone "$JOBS zone = \"US/East\";" "zone \"US/East\" is not a zone name"

finish
