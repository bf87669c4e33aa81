#!/bin/sh
# examples/kubernetes/rbac.yaml against a REAL kube-apiserver (the one of
# tests/kubernetes-integration): its objects applied to a namespace, the
# service account it creates resolves the cluster through the `muster`
# program, and one without the binding gets the API's clear forbidden
# error.  Skipped (exit 77, with the reason) when no server is running.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/lib/tap.sh"
KINT_HERE=$MUSTER_TEST_SRCDIR/tests/kubernetes-integration
. "$KINT_HERE/api.sh"
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
finish
