#!/bin/sh
# examples/kubernetes against a REAL kube-apiserver (the one of
# tests/kubernetes-integration): rbac.yaml's objects applied to a namespace,
# the service account it creates resolves the cluster through the `muster`
# program, and one without the binding gets the API's clear forbidden
# error.  Then job.yaml as shipped: its ConfigMap's muster.conf passes
# `muster check`, and its container's command (the trainer swapped for a
# line printing PyTorch's variables) runs in-cluster as that service
# account with POD_NAME set, waiting past the default 5 s budget for a
# Pending pod.  Skipped without a server; with MUSTER_KINT_REQUIRE=1 (run.sh)
# a missing server, tool or plugin is a failure instead.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/lib/tap.sh"
KINT_HERE=$MUSTER_TEST_SRCDIR/tests/kubernetes-integration
. "$KINT_HERE/api.sh"
if [ "${MUSTER_KINT_REQUIRE:-0}" = 1 ]; then
	skip_all() { bail_out "$1"; }
fi
require_tools curl python3 openssl
require_plugin kubernetes
python3 -c 'import yaml' 2>/dev/null || skip_all "python3-yaml is not installed (reads the example)"
kint_ready ||
	skip_all "no kube-apiserver running at $KINT_API (tests/kubernetes-integration/run.sh starts one)"
unset KUBECONFIG KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT POD_NAME
HOME=$tmp
export HOME
ns=muster-example

# apply FILE: each object of the YAML file, created in $ns or replaced there.
apply() {
	python3 -c '
import json, sys, yaml
paths = {"ServiceAccount": "/api/v1/namespaces/%s/serviceaccounts",
         "Role": "/apis/rbac.authorization.k8s.io/v1/namespaces/%s/roles",
         "RoleBinding": "/apis/rbac.authorization.k8s.io/v1/namespaces/%s/rolebindings"}
for doc in yaml.safe_load_all(open(sys.argv[1])):
    print(paths[doc["kind"]] % sys.argv[2], doc["metadata"]["name"],
          json.dumps(doc, separators=(",", ":")))
' "$1" "$ns" | while read -r path name body; do
		code=$(kint_api POST "$path" "$body")
		[ "$code" != 409 ] || code=$(kint_api PUT "$path/$name" "$body")
		case $code in 200 | 201) ;; *) bail_out "applying $path/$name: HTTP $code" ;; esac
	done
}

kint_ns "$ns" && apply "$MUSTER_TEST_SRCDIR/examples/kubernetes/rbac.yaml" &&
	kint_api DELETE "/api/v1/namespaces/$ns/pods/train-1?gracePeriodSeconds=0" >/dev/null &&
	kint_pod "$ns" train-0 '{"job-name":"train"}' 10.9.0.1 &&
	kint_sa "$ns" muster "$tmp/muster.token" && kint_sa "$ns" nobinding "$tmp/nobinding.token" ||
	bail_out "cannot set up the namespace $ns"

# conf TOKEN-FILE: the chain a pod of job.yaml would have, with the token.
conf() {
	cat >"$tmp/$2.conf" <<EOC
chain = ( { plugin = "kubernetes"; timeout_ms = 60000; config = {
  server = "$KINT_API"; ca_file = "$KINT_CA"; token_file = "$1"; namespace = "$ns";
  jobs = { worker = "job-name=train"; }; port = 29500; }; } );
EOC
	echo "$tmp/$2.conf"
}

# The binding reaches the authorizer's cache asynchronously.
i=0
while :; do
	"$MUSTER_BIN" -c "$(conf "$tmp/muster.token" sa)" resolve >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 0 ] || [ $i -ge 50 ] || ! grep -q forbidden "$tmp/err" || { i=$((i + 1)); sleep 0.2; continue; }
	break
done
out=$(cat "$tmp/out")
err=$(cat "$tmp/err")
expect "the example's service account resolves" 0 \
	'{"cluster":{"worker":["10.9.0.1:29500"]},"rpc_layer":"grpc","accelerators":{"worker":{"0":{"GPU":1}}}}'

"$MUSTER_BIN" -c "$(conf "$tmp/nobinding.token" nb)" resolve >"$tmp/out" 2>"$tmp/err"
rc=$?
out=$(cat "$tmp/out")
err=$(cat "$tmp/err")
expect_err "a service account without the binding" $EX_UNAVAIL "HTTP 403 Forbidden" \
	"pods is forbidden: User \"system:serviceaccount:$ns:nobinding\" cannot list resource \"pods\""

# job.yaml: the ConfigMap's muster.conf to $tmp/example.conf; the
# container's command, one argument a line, to $tmp/command with the
# program this build's, its -c the ConfigMap's file with only the service
# account's directory added (a pod's is /var/run/secrets/...), and the
# trainer after "--" a line of the variables it gets.
python3 - "$MUSTER_TEST_SRCDIR/examples/kubernetes/job.yaml" "$tmp" "$MUSTER_BIN" <<'EOP' \
	>"$tmp/extract.err" 2>&1 || bail_out "reading job.yaml: $(cat "$tmp/extract.err")"
import sys, yaml
path, tmp, muster = sys.argv[1:]
docs = {d["kind"]: d for d in yaml.safe_load_all(open(path))}
configmap, pod = docs["ConfigMap"], docs["Job"]["spec"]["template"]["spec"]
conf = configmap["data"]["muster.conf"]
open(tmp + "/example.conf", "w").write(conf)
assert conf.count("config = {") == 1, "one entry with a config block"
open(tmp + "/pod.conf", "w").write(conf.replace(
    "config = {", 'config = { serviceaccount_dir = "%s/sa";' % tmp))
container = pod["containers"][0]
assert {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}} \
    in container["env"], "POD_NAME from the pod's name"
volume = {v["name"]: v for v in pod["volumes"]}
mounts = {m["mountPath"] + "/muster.conf": volume[m["name"]] for m in container["volumeMounts"]}
cmd = list(container["command"])
assert cmd[0] == "muster" and cmd[1] == "-c", cmd
assert mounts[cmd[2]]["configMap"]["name"] == configmap["metadata"]["name"], cmd[2]
cmd[0], cmd[2] = muster, tmp + "/pod.conf"
cmd[cmd.index("--") + 1:] = ["sh", "-c", "echo RANK=$RANK WORLD_SIZE=$WORLD_SIZE "
                             "MASTER_ADDR=$MASTER_ADDR MASTER_PORT=$MASTER_PORT"]
open(tmp + "/command", "w").write("".join(a + "\n" for a in cmd))
EOP

run -c "$tmp/example.conf" check
expect_status 0 "job.yaml's muster.conf passes muster check"

mkdir "$tmp/sa"
cp "$tmp/muster.token" "$tmp/sa/token"
cp "$KINT_CA" "$tmp/sa/ca.crt"
printf '%s' "$ns" >"$tmp/sa/namespace"
kint_pod "$ns" train-1 '{"job-name":"train"}' 10.9.0.2 Pending ||
	bail_out "cannot create the Pending pod train-1"
set --
while IFS= read -r arg; do set -- "$@" "$arg"; done <"$tmp/command"
(
	KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=$API_PORT POD_NAME=train-1
	export KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT POD_NAME
	exec "$@"
) >"$tmp/out" 2>"$tmp/err" &
pid=$!
# Past the default timeout_ms (5000), then the pod runs.
sleep 6
kint_phase "$ns" train-1 Running 10.9.0.2 || bail_out "cannot turn train-1 Running"
rc=0
wait $pid || rc=$?
no_sanitizer_report "job.yaml's command"
out=$(cat "$tmp/out")
err=$(cat "$tmp/err")
expect "job.yaml's command, as train-1 in-cluster, waits for the Pending pod and starts the trainer" 0 \
	"RANK=1 WORLD_SIZE=2 MASTER_ADDR=10.9.0.1 MASTER_PORT=29500"
finish
