#!/bin/sh
# The kubernetes plugin's mode = "indexed_job" against a REAL kube-apiserver
# (../shared/tools/kube-apiserver), from inside "pods": muster runs with the
# host name the Job controller gives a pod (a UTS namespace), the pod's
# service-account files at /var/run/secrets/kubernetes.io/serviceaccount (a
# mount namespace) and the environment its container gets.  No Job or
# JobSet controller runs there, so the test writes what they would: the
# Jobs (as a user, or as the JobSet controller labels them) and each Job's
# pods (labels, annotations, owner reference, host name, subdomain,
# JOB_COMPLETION_INDEX from the completion-index annotation); each pod's
# container environment is then read back from the API as the kubelet
# resolves it.
#
# Needs a running server, as integration.sh: run.sh starts one; `make
# check` skips this test when none runs, MUSTER_KINT_REQUIRE=1 fails it.
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
command -v python3 >/dev/null 2>&1 || skip_all "python3 not found"
kint_ready || skip_all "kube-apiserver is not running at $KINT_API: run tests/kubernetes-integration/run.sh"
have_plugin kubernetes || skip_all "no kubernetes.so in MUSTER_PLUGIN_PATH ($MUSTER_PLUGIN_PATH)"
unshare -u -m true 2>/dev/null || skip_all "no UTS and mount namespaces here (unshare -u -m, as root)"

kint_py() { python3 "$KINT_HERE/kint.py" "$@"; }
ns=kint-idx

# ---------------------------------------------------------------- objects
# create PATH JSON: POST it (deleted first, at once: no controller finishes
# a graceful deletion here), the answer in $tmp/created.
create() {
	obj=$(printf '%s' "$2" | python3 -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["name"])')
	kint_api DELETE "$1/$obj?gracePeriodSeconds=0&propagationPolicy=Background" >/dev/null
	tries=0
	while [ "$(kint_api GET "$1/$obj")" = 200 ]; do # a finalizer may hold it
		kint_api PATCH "$1/$obj" '{"metadata":{"finalizers":null}}' \
			application/merge-patch+json >/dev/null
		tries=$((tries + 1))
		[ $tries -lt 50 ] || { echo "Bail out! $1/$obj does not go away"; exit 99; }
		sleep 0.1
	done
	code=$(KINT_OUT=$tmp/created kint_api POST "$1" "$2")
	[ "$code" = 201 ] || { echo "Bail out! POST $1 ($obj): HTTP $code"; sed 's/^/# /' "$tmp/created"; exit 99; }
}
jobs=/apis/batch/v1/namespaces/$ns/jobs
pods=/api/v1/namespaces/$ns/pods

# job NAME KINT-JOB-OPTIONS...: the Job, then its pods as the Job
# controller makes them (one per completion index, Running at
# 127.0.1.<n>); the Job's pods' files are $tmp/pod.NAME-<i>.
job() {
	name=$1
	shift
	create "$jobs" "$(kint_py job "$name" --namespace "$ns" "$@")"
	cp "$tmp/created" "$tmp/job.$name"
	n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["spec"]["completions"])' "$tmp/job.$name")
	i=0
	while [ "$i" -lt "$n" ]; do
		create "$pods" "$(kint_py job-pod "$tmp/job.$name" "$i")"
		cp "$tmp/created" "$tmp/pod.$name-$i"
		pod=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["metadata"]["name"])' "$tmp/created")
		kint_phase "$ns" "$pod" Running "127.0.1.$((i + 1))" || exit 99
		i=$((i + 1))
	done
}

# in_pod POD SA [VAR=VALUE...] -- MUSTER-ARGS...: muster inside pod POD
# ($tmp/pod.POD) of service account SA: its host name, the service
# account's token, CA and namespace where the kubelet mounts them, the
# container's environment (JOB_COMPLETION_INDEX as the kubelet resolves
# it) and the in-cluster variables; VARs added or replacing.  Sets
# status, $tmp/out, $tmp/err; with in_pod_bg=1 it runs in the background
# instead, appending to $tmp/lines and $tmp/werr (watch_start's files),
# its pid in $pid.
in_pod_bg=0
in_pod() {
	podfile=$tmp/pod.$1
	sa=$tmp/sa.$2
	shift 2
	kint_py pod-env "$podfile" >"$tmp/podenv" || exit 99
	host=$(head -n 1 "$tmp/podenv")
	set -- $(tail -n +2 "$tmp/podenv") "$@"
	status=0
	set -- unshare -u -m sh -c '
		hostname "$1" || exit 70
		mount -t tmpfs tmpfs /run || exit 70
		d=/run/secrets/kubernetes.io/serviceaccount
		mkdir -p "$d" && cp "$2"/token "$2"/ca.crt "$2"/namespace "$d"/ || exit 70
		shift 2
		vars=
		while [ "$1" != -- ]; do vars="$vars $1"; shift; done
		shift
		exec env -i $vars "$MUSTER_BIN" -c "$MUSTER_CONF_FILE" "$@"' \
		sh "$host" "$sa" PATH="$PATH" MUSTER_PLUGIN_PATH="$MUSTER_PLUGIN_PATH" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" \
		HOSTNAME="$host" KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT="$API_PORT" \
		"$@"
	if [ "$in_pod_bg" = 1 ]; then
		watch_start "$@"
		return
	fi
	"$@" >"$tmp/out" 2>"$tmp/err" || status=$?
	no_sanitizer_report "muster in pod $podfile"
}

# sa NAME: service account NAME's files ($tmp/sa.NAME).
sa() {
	mkdir -p "$tmp/sa.$1"
	kint_sa "$ns" "$1" "$tmp/sa.$1/token" || exit 99
	cp "$KINT_CA" "$tmp/sa.$1/ca.crt"
	printf '%s\n' "$ns" >"$tmp/sa.$1/namespace"
}

kint_ns "$ns" || exit 99
sa trainer
sa plain
# The trainer may read Jobs (get: an Indexed Job; list: a JobSet's).
code=$(kint_api POST "/apis/rbac.authorization.k8s.io/v1/namespaces/$ns/roles" \
	'{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"job-reader"},"rules":[{"apiGroups":["batch"],"resources":["jobs"],"verbs":["get","list"]}]}')
case $code in 201|409) ;; *) echo "Bail out! creating role: HTTP $code"; exit 99;; esac
code=$(kint_api POST "/apis/rbac.authorization.k8s.io/v1/namespaces/$ns/rolebindings" \
	'{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"trainer-job-reader"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"job-reader"},"subjects":[{"kind":"ServiceAccount","name":"trainer","namespace":"'"$ns"'"}]}')
case $code in 201|409) ;; *) echo "Bail out! creating rolebinding: HTTP $code"; exit 99;; esac
# The headless Service a user makes for the pods' names (muster reads none).
kint_api DELETE "/api/v1/namespaces/$ns/services/train-svc" >/dev/null
code=$(kint_api POST "/api/v1/namespaces/$ns/services" \
	'{"apiVersion":"v1","kind":"Service","metadata":{"name":"train-svc"},"spec":{"clusterIP":"None","selector":{"job-name":"train"},"publishNotReadyAddresses":true}}')
[ "$code" = 201 ] || { echo "Bail out! creating the headless Service: HTTP $code"; exit 99; }

i=0
until [ "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$KINT_CA" \
	-H "Authorization: Bearer $(cat "$tmp/sa.trainer/token")" "$KINT_API$jobs")" = 200 ]; do
	i=$((i + 1))
	[ $i -lt 50 ] || { echo "Bail out! the trainer service account cannot list jobs"; exit 99; }
	sleep 0.2
done

# The shipped chain, as a pod has it: its indexed_job entry answers.
MUSTER_CONF_FILE=$MUSTER_TEST_SRCDIR/conf/muster.conf
export MUSTER_CONF_FILE

# ------------------------------------------------------ 1. an Indexed Job
job train --completions 3 --subdomain train-svc --gpus 2
train='"cluster":{"worker":["train-0.train-svc:2222","train-1.train-svc:2222","train-2.train-svc:2222"]}'
gpus='"accelerators":{"worker":{"0":{"GPU":2},"1":{"GPU":2},"2":{"GPU":2}}}'
for i in 0 1 2; do
	in_pod "train-$i" trainer -- resolve
	expect_status 0 "Indexed Job, pod $i: resolve"
	expect_json "{$train,\"task\":{\"type\":\"worker\",\"index\":$i},\"rpc_layer\":\"grpc\",$gpus}" \
		"Indexed Job, pod $i: three members <job>-<i>.<subdomain>, its own index, 2 GPUs each"
done
in_pod train-2 trainer -- env --for pytorch
expect_out_match "^export MASTER_ADDR='train-0.train-svc'$" "Indexed Job: MASTER_ADDR is pod 0's name"
expect_out_match "^export WORLD_SIZE='3'$" "Indexed Job: WORLD_SIZE counts the pods"
expect_out_match "^export RANK='2'$" "Indexed Job: RANK is the completion index"
in_pod train-1 trainer -- -v resolve
expect_err_match '^muster: info: kubernetes\(indexed_job\): success' \
	"the shipped chain's indexed_job entry answers"

# The API server decides, not the pod: completions 4 makes four members.
job train --completions 4 --subdomain train-svc
in_pod train-3 trainer -- resolve
expect_status 0 "Indexed Job of 4: resolve"
expect_out_match '"train-3.train-svc:2222"\]\},"task":\{"type":"worker","index":3\},"rpc_layer":"grpc"\}$' \
	"Indexed Job of 4: four members, no accelerators when the template asks none"

# muster watch: the plugin's watch reads the Job again and reports a
# change (the Job made again with another size).
in_pod_bg=1 in_pod train-1 trainer -- -v watch --settle-ms 100
in_pod_bg=0
cleanup() { [ -z "${pid:-}" ] || kill "$pid" 2>/dev/null || true; }
await 1 "watch: the first line" 30
line_is 1 "len(c['cluster']['worker'])==4 and c['task']=={'type':'worker','index':1}" \
	"watch: the first line has the Job's four members"
job train --completions 2 --subdomain train-svc
await 2 "watch: the Job made again with 2 pods is reported" 30
line_is 2 "len(c['cluster']['worker'])==2 and len(c['removed'])==2" "watch: two members removed"
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
pid=
check_eq "watch: the plugin's own watch ran (no polling)" \
	"$(grep -c 'watch ended' "$tmp/werr")" 0
job train --completions 3 --subdomain train-svc --gpus 2

# ------------------------------------------------ 2. what is wrong, said
in_pod train-1 plain -- resolve
expect_status 2 "no right to read the Job: unavail"
expect_err_match 'HTTP 403.*cannot get resource "jobs".*needs get on jobs in API group batch' \
	"403: the API's message and what muster needs"

in_pod train-1 trainer JOB_COMPLETION_INDEX=7 -- resolve
expect_status 2 "host name and JOB_COMPLETION_INDEX disagree: unavail"
expect_err_match 'host name "train-1" is not <job>-7' "the host name is named"

job wide --completions 4 --parallelism 2 --subdomain train-svc
in_pod wide-0 trainer -- resolve
expect_status 2 "parallelism below completions: unavail"
expect_err_match "Job wide runs at most 2 of its 4 pods at once" "parallelism: said so"

job nosub --completions 2
in_pod nosub-1 trainer -- resolve
expect_status 2 "no subdomain: unavail"
expect_err_match "Job nosub gives its pods no subdomain" "no subdomain: said so"

job gone --completions 2 --subdomain train-svc
kint_api DELETE "$jobs/gone?propagationPolicy=Background" >/dev/null
in_pod gone-1 trainer -- resolve
expect_status 2 "the Job is gone: unavail"
expect_err_match 'HTTP 404.*"gone" not found.*the Job gone of this pod' "404: names the Job"

job short --completions 2 --subdomain train-svc
in_pod short-1 trainer -- resolve
expect_status 0 "index 1 of 2: resolve"
create "$pods" "$(kint_py job-pod "$tmp/job.short" 5)"
cp "$tmp/created" "$tmp/pod.short-5"
in_pod short-5 trainer -- resolve
expect_status 2 "index past completions: unavail"
expect_err_match "JOB_COMPLETION_INDEX=5 is not below Job short's spec.completions \\(2\\)" \
	"index past completions: said so"

in_pod train-1 trainer KUBERNETES_SERVICE_HOST= -- resolve
expect_status 2 "no API server in reach: unavail, never a one-task cluster"
expect_err_match "JOB_COMPLETION_INDEX=1: this is a pod of an Indexed Job" "no API server: said so"

in_pod train-1 trainer JOB_COMPLETION_INDEX=x1 -- resolve
expect_status 2 "a bad JOB_COMPLETION_INDEX: unavail"
expect_err_match 'JOB_COMPLETION_INDEX must be an integer from 0 to [0-9]+, not "x1"' \
	"a bad JOB_COMPLETION_INDEX: named"

in_pod train-1 trainer JOB_COMPLETION_INDEX= -- resolve
expect_status 2 "an empty JOB_COMPLETION_INDEX: unavail"

# Outside an Indexed Job: notfound, the chain goes on.
run -c "$MUSTER_CONF_FILE" resolve
expect_status 0 "no JOB_COMPLETION_INDEX: notfound, the next entry answers"
expect_out_match '"localhost:2222"' "no JOB_COMPLETION_INDEX: the static entry's cluster"

# ------------------------------------------------------------ 3. a JobSet
# JobSet js: replicated job "driver" (1 Job of 1 pod), then "workers" (2
# Jobs of 2 pods), subdomain js, as the JobSet controller makes them.
juid=8f1d0c7e-5b7a-4c53-9a2e-6d3f1e2b4c5a
js() { # NAME RJOB J REPLICAS GLOBAL PODS [MORE...]
	n=$1 r=$2 jx=$3 reps=$4 g=$5 p=$6
	shift 6
	job "$n" --jobset js --jobset-uid "$juid" --rjob "$r" --job-index "$jx" --replicas "$reps" \
		--global-index "$g" --global-replicas 3 --completions "$p" --gpus 1 "$@"
}
js js-workers-1 workers 1 2 2 2
js js-driver-0 driver 0 1 0 1
js js-workers-0 workers 0 2 1 2
jsc='"cluster":{"driver":["js-driver-0-0.js:2222"],"workers":["js-workers-0-0.js:2222","js-workers-0-1.js:2222","js-workers-1-0.js:2222","js-workers-1-1.js:2222"]}'
jsa='"accelerators":{"driver":{"0":{"GPU":1}},"workers":{"0":{"GPU":1},"1":{"GPU":1},"2":{"GPU":1},"3":{"GPU":1}}}'
in_pod js-workers-1-1 trainer -- resolve
expect_status 0 "JobSet, pod 1 of Job 1 of workers: resolve"
expect_json "{$jsc,\"task\":{\"type\":\"workers\",\"index\":3},\"rpc_layer\":\"grpc\",$jsa}" \
	"JobSet: one job per replicated job in job-global-index order, Jobs by job-index, pods by completion index"
in_pod js-driver-0-0 trainer -- resolve
expect_out_match '"task":\{"type":"driver","index":0\}' "JobSet: the driver is driver:0"
in_pod js-workers-0-1 trainer -- env --for pytorch
expect_out_match "^export MASTER_ADDR='js-driver-0-0.js'$" "JobSet: the master is the first replicated job's first pod"
expect_out_match "^export WORLD_SIZE='5'$" "JobSet: WORLD_SIZE counts every pod"
expect_out_match "^export RANK='2'$" "JobSet: workers:1 is rank 2"

# The coordinator (label jobset.sigs.k8s.io/coordinator) leads.
for j in "js-workers-1 workers 1 2 2 2" "js-driver-0 driver 0 1 0 1" "js-workers-0 workers 0 2 1 2"; do
	# shellcheck disable=SC2086 # the fields of one Job
	js $j --coordinator js-workers-0-0.js
done
in_pod js-driver-0-0 trainer -- resolve
expect_out_match '^\{"cluster":\{"workers":\[.*\],"driver":\[' "JobSet coordinator: its replicated job comes first"
for j in "js-workers-1 workers 1 2 2 2" "js-driver-0 driver 0 1 0 1" "js-workers-0 workers 0 2 1 2"; do
	# shellcheck disable=SC2086
	js $j --coordinator js-workers-0-1.js
done
in_pod js-driver-0-0 trainer -- resolve
expect_status 2 "JobSet coordinator not first of its job: unavail"
expect_err_match "coordinator js-workers-0-1.js is not the first pod of replicated job workers" \
	"JobSet coordinator: said so"

# A Job of the set not there yet: tryagain; one being deleted (a restart):
# the same.
js js-workers-1 workers 1 2 2 2
js js-driver-0 driver 0 1 0 1
js js-workers-0 workers 0 2 1 2 --finalizer muster.test/hold
kint_api DELETE "$jobs/js-workers-0?propagationPolicy=Background" >/dev/null
in_pod js-workers-1-0 trainer -- resolve
expect_status 3 "JobSet with a Job on its way out: tryagain"
expect_err_match "replicated job workers has no Job with job-index 0 yet" "tryagain: says which"
js js-workers-0 workers 0 2 1 2
kint_api DELETE "$jobs/js-workers-1?propagationPolicy=Background" >/dev/null
in_pod js-workers-0-0 trainer -- resolve
expect_status 3 "JobSet missing its last Job: tryagain"
expect_err_match "replicated job workers has 1 of its 2 Jobs yet" "tryagain: how many"

# Listing a JobSet's Jobs needs list.
js js-workers-1 workers 1 2 2 2
in_pod js-workers-1-0 plain -- resolve
expect_status 2 "JobSet without the right to read Jobs: unavail"
expect_err_match 'HTTP 403' "JobSet: 403 said"
finish
