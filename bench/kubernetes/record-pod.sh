#!/bin/sh
# Record one real pod, as a real kube-apiserver returns it inside a PodList
# (compact JSON, as any non-curl client gets it), into pod-template.json:
# the shape every pod of the benchmark is made from.
# Needs the server from ../shared/tools/kube-apiserver (start.sh; this
# seeds one pod with seed.sh).  Env as start.sh: K8S_DIR, API_PORT, K8S_TOKEN;
# MUSTER_KUBE_TOOLS (default ../shared/tools/kube-apiserver).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
K8S_DIR=${K8S_DIR:-/var/tmp/muster-kube}
API_PORT=${API_PORT:-16443}
K8S_TOKEN=${K8S_TOKEN:-k8s-test-token}
tools=${MUSTER_KUBE_TOOLS:-$here/../../../shared/tools/kube-apiserver}
"$tools/seed.sh" 1 bench-record tensorflow >/dev/null
curl -sS -A muster-bench-recorder --cacert "$K8S_DIR/run/certs/ca.crt" \
	-H "Authorization: Bearer $K8S_TOKEN" -H 'Accept: application/json' \
	"https://127.0.0.1:$API_PORT/api/v1/namespaces/bench-record/pods?labelSelector=job-name%3Dtensorflow" |
python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["items"][0], separators=(",", ":")))' \
	>"$here/pod-template.json"
wc -c "$here/pod-template.json"
