#!/bin/sh
# The kubernetes plugin against a REAL kube-apiserver (v1.20.2 + etcd on
# loopback, ../shared/tools/kube-apiserver), driven through the `muster`
# program: token, client-certificate, kubeconfig and in-cluster
# (service-account) authentication, 5,000 pods listed in pages, RBAC
# forbidden, Pending pods (tryagain, `muster status`, and wait_ms until
# they run), set-based label selectors, IPv6 pod IPs, self identity, TLS
# and token failures.
#
# It needs a running server: tests/kubernetes-integration/run.sh builds one
# if absent, starts it, runs this and stops it (CI does that).  Under
# `make check` with no server running this test is skipped (a TAP skip) and
# says how to run it; with MUSTER_KINT_REQUIRE=1 a missing server, tool or
# plugin is a failure instead.
#
# Seeds its own namespaces (kint-small, kint-big, kint-pend, kint-sel) and is
# idempotent: the 5,000 pods are seeded once per server and reused.
set -u
: "${MUSTER_TEST_SRCDIR:?MUSTER_TEST_SRCDIR is not set: run this test with make check or run.sh}"
KINT_HERE=$MUSTER_TEST_SRCDIR/tests/kubernetes-integration
. "$KINT_HERE/api.sh"
. "$MUSTER_TEST_SRCDIR/tests/lib/tap.sh"
if [ "${MUSTER_KINT_REQUIRE:-0}" = 1 ]; then
	skip_all() { bail_out "$1"; }
fi

command -v curl >/dev/null 2>&1 || skip_all "curl not found"
command -v python3 >/dev/null 2>&1 || skip_all "python3 not found"
command -v openssl >/dev/null 2>&1 || skip_all "openssl not found"
how="run tests/kubernetes-integration/run.sh (builds the server when absent, starts it, runs this test, stops it), or start one with ../shared/tools/kube-apiserver/start.sh"
if ! kint_ready; then
	if [ ! -x "$KINT_APISERVER_BIN" ]; then
		skip_all "no kube-apiserver binary at $KINT_APISERVER_BIN and none running at $KINT_API: $how"
	elif ! command -v etcd >/dev/null 2>&1; then
		skip_all "no etcd (apt-get install etcd-server) and no kube-apiserver running at $KINT_API: $how"
	else
		skip_all "kube-apiserver is not running at $KINT_API: $how"
	fi
fi
tools=$(kint_tools "$MUSTER_TEST_SRCDIR") ||
	skip_all "kube-apiserver running, but no seed.sh: set MUSTER_KUBE_TOOLS to ../shared/tools/kube-apiserver"

have_plugin kubernetes ||
	skip_all "no kubernetes.so in MUSTER_PLUGIN_PATH ($MUSTER_PLUGIN_PATH)"

# The plugin must find only what each case gives it: no kubeconfig from the
# caller's home or environment, no in-cluster variables, no pod name.
HOME=$tmp/home
mkdir -p "$HOME"
export HOME
unset KUBECONFIG KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT POD_NAME HOSTNAME

kint_py() { python3 "$KINT_HERE/kint.py" "$@"; }

# runenv NAME=VALUE... -- ARGS...: lib.sh's run with extra environment.
runenv() {
	status=0
	(
		while [ "$1" != -- ]; do export "$1"; shift; done
		shift
		exec "$MUSTER_BIN" "$@"
	) >"$tmp/out" 2>"$tmp/err" || status=$?
	if grep -E -q 'runtime error:|AddressSanitizer|LeakSanitizer' "$tmp/err"; then
		fail "no sanitizer report from: muster $*"
	fi
}
incluster="KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=$API_PORT"

# ---------------------------------------------------------------- seeding
seed() { # N NS JOB PREFIX [ENV...]: seed.sh, output kept in $tmp/seed.log
	n=$1 ns=$2 job=$3 prefix=$4
	shift 4
	env POD_PREFIX="$prefix" "$@" "$tools/seed.sh" "$n" "$ns" "$job" >>"$tmp/seed.log" 2>&1 || {
		echo "Bail out! seed.sh $n $ns $job failed:"
		sed 's/^/# /' "$tmp/seed.log"
		exit 99
	}
}
echo "# kube-apiserver at $KINT_API; tools in $tools"
# kint-small: small-0..2, job-name=small, 2 GPUs each.
seed 3 kint-small small small GPUS=2
# kint-big: worker-0..4999, job-name=big; seeded once per server.
if [ "$(kint_count kint-big "" 2>/dev/null)" != 5000 ] ||
   [ "$(kint_count kint-big job-name=big status.phase!=Running 2>/dev/null)" != 0 ]; then
	echo "# seeding 5,000 pods"
	seed 5000 kint-big big worker PARALLEL=64
fi
# kint-pend: pend-0..2 Running, pend-late-0 Pending (pod IP 10.245.0.1).
seed 3 kint-pend pend pend
seed 1 kint-pend pend pend-late PHASE=Pending POD_IP_BASE=10.245
# kint-sel: hand-made labels for the set-based selectors.
kint_ns kint-sel || exit 99
kint_pod kint-sel a-0 '{"job-name":"a","tier":"db","app.kubernetes.io/component":"trainer"}' 10.1.0.1 &&
kint_pod kint-sel a-1 '{"job-name":"a","tier":"db","app.kubernetes.io/component":"trainer"}' 10.1.0.2 &&
kint_pod kint-sel b-0 '{"job-name":"b","tier":"web"}' 10.1.0.3 &&
kint_pod kint-sel b-1 '{"job-name":"b","tier":"db","canary":"true"}' 10.1.0.4 &&
kint_pod kint-sel c-0 '{"job-name":"c","tier":"db"}' 10.1.0.5 &&
kint_pod kint-sel v6-0 '{"job-name":"v6"}' fd00:10:244::5 ||
	{ echo "Bail out! could not create the kint-sel pods"; exit 99; }
# Service accounts: one allowed to list pods in kint-small, one with no rights.
kint_sa kint-small reader "$tmp/reader.token" &&
kint_pod_reader kint-small reader &&
kint_sa kint-small norights "$tmp/norights.token" ||
	{ echo "Bail out! could not set up the service accounts"; exit 99; }
# RBAC bindings reach the authorizer's cache asynchronously.
i=0
until [ "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$KINT_CA" \
	-H "Authorization: Bearer $(cat "$tmp/reader.token")" \
	"$KINT_API/api/v1/namespaces/kint-small/pods?limit=1")" = 200 ]; do
	i=$((i + 1))
	[ $i -lt 50 ] || { echo "Bail out! the reader service account cannot list pods"; exit 99; }
	sleep 0.2
done

# ---------------------------------------------------------------- helpers
# conf NAME BODY: a one-entry chain with the kubernetes plugin, BODY inside
# its config group; prints the file's path.
conf() {
	cat >"$tmp/$1.conf" <<EOF
strict = true;
chain = (
  {
    plugin = "kubernetes";
    timeout_ms = ${KINT_TIMEOUT_MS:-60000};
    config = {
$2
    };
  }
);
EOF
	echo "$tmp/$1.conf"
}
direct="server = \"$KINT_API\"; ca_file = \"$KINT_CA\";"

# want ARGS...: the expected JSON (kint.py want) into $tmp/want.
want() { kint_py want "$@" >"$tmp/want"; }

# expect_want DESCRIPTION: stdout equals $tmp/want (key order included).
expect_want() {
	if kint_py compare "$tmp/out" "$tmp/want" 2>"$tmp/pyerr"; then
		pass "$1"
	else
		fail "$1" "$(cat "$tmp/pyerr")"
	fi
}

# expect_no_secret DESCRIPTION TOKEN-FILE...: no token leaks to stdout/stderr.
expect_no_secret() {
	d=$1
	shift
	for f in "$@"; do
		if grep -F -q -e "$(cat "$f")" "$tmp/out" "$tmp/err"; then
			fail "$d" "the token from $f appears in the output"
			return
		fi
	done
	pass "$d"
}

small_want() { want --job "worker=seeded:small:3:10.244:natural:pod_ip:2" "$@"; }

# ------------------------------------------------- 1. token authentication
c=$(conf token "$direct token = \"$K8S_TOKEN\"; namespace = \"kint-small\"; jobs = { worker = [\"job-name=small\"]; };")
run -c "$c" resolve
expect_status 0 "token: resolve"
small_want
expect_want "token: 3 Running pods, pod IPs, natural order, 2 GPUs each"

printf '%s\n' "$K8S_TOKEN" >"$tmp/admin.token"
c=$(conf tokenfile "$direct token_file = \"$tmp/admin.token\"; namespace = \"kint-small\"; jobs = { worker = [\"job-name=small\"]; };")
run -c "$c" resolve
expect_status 0 "token_file: resolve"
expect_want "token_file: same cluster"
expect_no_secret "token_file: the token is not printed" "$tmp/admin.token"

printf '%s\n' "not-a-token" >"$tmp/bad.token"
c=$(conf badtoken "$direct token_file = \"$tmp/bad.token\"; namespace = \"kint-small\"; jobs = { worker = [\"job-name=small\"]; };")
run -c "$c" resolve
expect_status 2 "wrong token: unavail"
expect_err_match "Unauthorized" "wrong token: the API's 401 message"
expect_no_secret "wrong token: the token is not printed" "$tmp/bad.token"

# -------------------------------------- 2. client-certificate authentication
c=$(conf cert "$direct client_cert = \"$KINT_CERT\"; client_key = \"$KINT_KEY\"; namespace = \"kint-small\"; jobs = { worker = [\"job-name=small\"]; };")
run -c "$c" resolve
expect_status 0 "client certificate: resolve"
small_want
expect_want "client certificate: same cluster"
expect_err_nomatch "PRIVATE KEY" "client certificate: no key material printed"

# TLS: a CA that did not sign the server's certificate.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/other-ca.key" -out "$tmp/other-ca.crt" \
	-days 1 -subj "/CN=other-ca" >/dev/null 2>&1
c=$(conf badca "server = \"$KINT_API\"; ca_file = \"$tmp/other-ca.crt\"; token = \"$K8S_TOKEN\"; namespace = \"kint-small\"; jobs = { worker = [\"job-name=small\"]; };")
run -c "$c" resolve
expect_status 2 "TLS: server certificate not signed by ca_file: unavail"
expect_err_match "[Cc]ertificate|SSL|TLS" "TLS: the error gives the reason"
expect_no_secret "TLS: the token is not printed" "$tmp/admin.token"

# ---------------------------------------------------------- 3. kubeconfig
b64() { base64 <"$1" | tr -d '\n'; }
cat >"$tmp/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: $KINT_API
    certificate-authority: $KINT_CA
- name: local-data
  cluster:
    server: $KINT_API
    certificate-authority-data: $(b64 "$KINT_CA")
users:
- name: admin
  user:
    token: $K8S_TOKEN
- name: admin-x509
  user:
    client-certificate: $KINT_CERT
    client-key: $KINT_KEY
- name: admin-x509-data
  user:
    client-certificate-data: $(b64 "$KINT_CERT")
    client-key-data: $(b64 "$KINT_KEY")
- name: reader
  user:
    tokenFile: $tmp/reader.token
contexts:
- name: small
  context: {cluster: local, user: admin, namespace: kint-small}
- name: sel-x509
  context: {cluster: local, user: admin-x509, namespace: kint-sel}
- name: sel-data
  context: {cluster: local-data, user: admin-x509-data, namespace: kint-sel}
- name: reader
  context: {cluster: local, user: reader, namespace: kint-small}
current-context: small
EOF
sel_a() { want --job "worker=10.1.0.1,10.1.0.2" "$@"; }

c=$(conf kubeconfig "kubeconfig = \"$tmp/kubeconfig\"; jobs = { worker = [\"job-name=small\"]; };")
run -c "$c" resolve
expect_status 0 "kubeconfig option: resolve"
small_want
expect_want "kubeconfig option: current context's server, CA, token and namespace"

c=$(conf kubeconfig-ctx "kubeconfig = \"$tmp/kubeconfig\"; context = \"sel-x509\"; jobs = { worker = [\"job-name=a\"]; };")
run -c "$c" resolve
expect_status 0 "kubeconfig context option (client-certificate files): resolve"
sel_a
expect_want "kubeconfig context option: that context's user and namespace (kint-sel)"

c=$(conf kubeconfig-data "kubeconfig = \"$tmp/kubeconfig\"; context = \"sel-data\"; jobs = { worker = [\"job-name=a\"]; };")
run -c "$c" resolve
expect_status 0 "kubeconfig -data forms (CA, client cert, key inline): resolve"
expect_want "kubeconfig -data forms: same cluster"

c=$(conf kubeconfig-env "jobs = { worker = [\"job-name=small\"]; };")
runenv "KUBECONFIG=$tmp/kubeconfig" -- -c "$c" resolve
expect_status 0 "\$KUBECONFIG: resolve"
small_want
expect_want "\$KUBECONFIG: read when no kubeconfig option is given"

mkdir -p "$HOME/.kube"
sed 's/^current-context: small$/current-context: reader/' "$tmp/kubeconfig" >"$HOME/.kube/config"
run -c "$c" resolve
expect_status 0 "~/.kube/config (tokenFile user, service-account token): resolve"
expect_want "~/.kube/config: read when nothing else is given"
expect_no_secret "~/.kube/config: the token is not printed" "$tmp/reader.token"
rm -rf "$HOME/.kube"

# --------------------------------------------------------- 4. in-cluster
sa=$tmp/serviceaccount
mkdir -p "$sa"
cp "$tmp/reader.token" "$sa/token"
cp "$KINT_CA" "$sa/ca.crt"
printf 'kint-small' >"$sa/namespace"
c=$(conf incluster "serviceaccount_dir = \"$sa\"; jobs = { worker = [\"job-name=small\"]; };")
runenv $incluster -- -c "$c" resolve
expect_status 0 "in-cluster (service host/port env, SA token, ca.crt, namespace files): resolve"
small_want
expect_want "in-cluster: namespace from the namespace file, Role-bound service account"
expect_no_secret "in-cluster: the token is not printed" "$sa/token"

run -c "$c" resolve
expect_status 1 "no KUBERNETES_SERVICE_HOST, no kubeconfig, no server: notfound"

# Self identity from POD_NAME.
runenv $incluster POD_NAME=small-1 -- -c "$c" resolve
expect_status 0 "in-cluster with POD_NAME=small-1: resolve"
small_want --task worker:1
expect_want "POD_NAME names a listed pod: task worker:1"

# ------------------------------------------------------ 5. RBAC forbidden
cp "$tmp/norights.token" "$sa/token"
runenv $incluster -- -c "$c" resolve
expect_status 2 "RBAC: service account without rights: unavail"
expect_err_match 'pods is forbidden: User "system:serviceaccount:kint-small:norights" cannot list resource "pods" in API group "" in the namespace "kint-small"' \
	"RBAC: the API's own Status message"
expect_no_secret "RBAC: the token is not printed" "$sa/token"

# The reader may list its namespace, not the cluster: TF's all-namespaces
# listing fails where muster's default succeeds.
cp "$tmp/reader.token" "$sa/token"
c=$(conf incluster-all "serviceaccount_dir = \"$sa\"; all_namespaces = true; jobs = { worker = [\"job-name=small\"]; };")
runenv $incluster -- -c "$c" resolve
expect_status 2 "RBAC: all_namespaces with a namespaced Role: unavail"
expect_err_match 'pods is forbidden: User "system:serviceaccount:kint-small:reader" cannot list resource "pods" in API group "" at the cluster scope' \
	"RBAC: cluster scope refused, with the API's message"

# ------------------------------------------------- 6. 5,000 pods in pages
c=$(conf big500 "$direct token = \"$K8S_TOKEN\"; namespace = \"kint-big\"; limit = 500; jobs = { worker = [\"job-name=big\"]; };")
run -c "$c" -vv resolve
expect_status 0 "5,000 pods, limit 500 (10 pages): resolve"
expect_err_match 'job worker: 10 pages of pods matching "job-name=big", 9 read while the next was fetched' \
	"5,000 pods: the API server's pages give their continue token early"
want --job "worker=seeded:worker:5000:10.244"
expect_want "5,000 pods: all tasks, natural order worker-0..worker-4999, pod IPs, GPUs"

c=$(conf big777 "$direct token = \"$K8S_TOKEN\"; namespace = \"kint-big\"; limit = 777; order = \"natural\"; jobs = { worker = [\"job-name=big\"]; };")
run -c "$c" resolve
expect_status 0 "5,000 pods, limit 777 (last page partial): resolve"
expect_want "5,000 pods, limit 777: same cluster"

c=$(conf bigtf "$direct token = \"$K8S_TOKEN\"; all_namespaces = true; order = \"name\"; address = \"host_ip\"; jobs = { worker = [\"job-name=big\"]; };")
run -c "$c" resolve
expect_status 0 "5,000 pods, TF's choices (all namespaces, name order, host IP): resolve"
want --job "worker=seeded:worker:5000:10.244:name:host_ip"
expect_want "5,000 pods, TF's choices: string order (worker-10 before worker-2), hostIP:8470"

# ------------------------------------------------------- 7. Pending pods
pend_conf() {
	conf "pend$1" "$direct token = \"$K8S_TOKEN\"; namespace = \"kint-pend\"; jobs = { worker = [\"job-name=pend\"]; }; $2"
}
c=$(pend_conf 0 "")
run -c "$c" resolve
expect_status 3 "a Pending pod: tryagain"
expect_err_match 'pend-late-0' "tryagain: names the pod"
expect_err_match 'Pending' "tryagain: gives its phase"
# muster status: the Running pods so far, the Pending one a member not
# ready at the index it will have (plugin ABI 1.8).
run -c "$c" status --format json
expect_status 3 "status of a Pending pod's cluster: tryagain"
if python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "tryagain", d["status"]
assert sorted(t["index"] for n in d["nodes"] for t in n["tasks"]) == [0, 1, 2], d["nodes"]
assert d["pending"] == [{"job": "worker", "index": 3, "name": "pend-late-0", "reason": "Pending"}], d["pending"]' "$tmp/out"
then pass "status: three pods running, pend-late-0 pending at index 3"
else fail "status: three pods running, pend-late-0 pending at index 3"; fi

# wait_ms: the pod turns Running 2 s after muster starts; muster waits.
c=$(pend_conf 1 "wait_ms = 30000;")
( "$MUSTER_BIN" -c "$c" resolve >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/bgstatus" ) &
bg=$!
sleep 2
kint_phase kint-pend pend-late-0 Running 10.245.0.1
wait $bg
status=$(cat "$tmp/bgstatus")
if grep -E -q 'runtime error:|AddressSanitizer|LeakSanitizer' "$tmp/err"; then
	fail "no sanitizer report from: muster (wait_ms)"
fi
expect_status 0 "wait_ms: waits until the Pending pod runs"
want --job "worker=seeded:pend:3:10.244,seeded:pend-late:1:10.245"
expect_want "wait_ms: then all 4 tasks"
kint_phase kint-pend pend-late-0 Pending 10.245.0.1

c=$(pend_conf 2 "wait_ms = 1500;")
run -c "$c" resolve
expect_status 3 "wait_ms spent, pod still Pending: tryagain"
expect_err_match 'pend-late-0' "wait_ms spent: names the pod"

# --------------------------------------------- 8. set-based label selectors
sel() { # DESCRIPTION JOBS-GROUP WANT-ARGS...
	d=$1 j=$2
	shift 2
	c=$(conf sel "$direct token = \"$K8S_TOKEN\"; namespace = \"kint-sel\"; jobs = { $j };")
	run -c "$c" resolve
	expect_status 0 "selector $d: resolve"
	want "$@"
	expect_want "selector $d: the matching pods"
}
sel "job-name in (a,b)" 'worker = ["job-name in (a,b)"];' \
	--job "worker=10.1.0.1,10.1.0.2,10.1.0.3,10.1.0.4"
sel "job-name in (a,b),!canary" 'worker = ["job-name in (a,b),!canary"];' \
	--job "worker=10.1.0.1,10.1.0.2,10.1.0.3"
sel "job-name in (a,b),tier!=web" 'worker = ["job-name in (a,b),tier!=web"];' \
	--job "worker=10.1.0.1,10.1.0.2,10.1.0.4"
sel "job-name notin (a,v6),!canary" 'worker = ["job-name notin (a,v6),!canary"];' \
	--job "worker=10.1.0.3,10.1.0.5"
sel "canary (exists)" 'worker = ["canary"];' \
	--job "worker=10.1.0.4"
sel "app.kubernetes.io/component=trainer" 'worker = ["app.kubernetes.io/component=trainer"];' \
	--job "worker=10.1.0.1,10.1.0.2"
sel "two selectors, two jobs" 'worker = ["job-name=a", "job-name=c"]; ps = ["tier=web"];' \
	--job "worker=10.1.0.1,10.1.0.2,10.1.0.5" --job "ps=10.1.0.3"
sel "IPv6 pod IP" 'worker = ["job-name=v6"];' --job "worker=[fd00:10:244::5]"

# A job that no pod matches is not ready yet (pods not created): tryagain,
# where TF would give the job zero tasks.
c=$(conf sel-none "$direct token = \"$K8S_TOKEN\"; namespace = \"kint-sel\"; jobs = { worker = [\"job-name=a\"]; ps = [\"job-name=nobody\"]; };")
run -c "$c" resolve
expect_status 3 "a job no pod matches: tryagain"
expect_err_match 'job-name=nobody' "... naming its selector"

finish
