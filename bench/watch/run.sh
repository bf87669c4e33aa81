#!/bin/sh
# muster watch's latency and idle CPU against a real kube-apiserver
# (`make bench-watch`, or bench/watch/run.sh BUILDDIR [SRCDIR]).  Starts its
# own API server and etcd on ports of their own, and stops them at the end.
# Env: BENCH_CHANGES [200]  BENCH_PODS [16]  BENCH_IDLE_S [60]
#      BENCH_SAMPLES (a file for each change's times, one JSON line each)
#      BENCH_PYTHON [/usr/bin/python3] (with Debian's python3-kubernetes)
#      MUSTER_KUBE_TOOLS [../shared/tools/kube-apiserver beside the source]
#      KUBE_APISERVER [/var/tmp/muster-kube/bin/kube-apiserver: build.sh's]
#      K8S_DIR [/var/tmp/muster-kube-bench]  API_PORT [17443]
#      ETCD_PORT [24790]  ETCD_PEER_PORT [24800]
set -eu
build=${1:?usage: run.sh BUILDDIR [SRCDIR]}
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
K8S_DIR=${K8S_DIR:-/var/tmp/muster-kube-bench}
KUBE_APISERVER=${KUBE_APISERVER:-/var/tmp/muster-kube/bin/kube-apiserver}
API_PORT=${API_PORT:-17443}
ETCD_PORT=${ETCD_PORT:-24790}
ETCD_PEER_PORT=${ETCD_PEER_PORT:-24800}
export K8S_DIR KUBE_APISERVER API_PORT ETCD_PORT ETCD_PEER_PORT
. "$src/tests/kubernetes-integration/api.sh"
tools=$(kint_tools "$src") || { echo "no ../shared/tools/kube-apiserver: set MUSTER_KUBE_TOOLS" >&2; exit 1; }

python=${BENCH_PYTHON:-/usr/bin/python3}
"$python" -c 'import kubernetes' 2>/dev/null ||
	{ echo "no python3-kubernetes for $python (apt-get install python3-kubernetes)" >&2; exit 1; }
trap '"$tools/stop.sh" >/dev/null' EXIT
trap 'exit 1' INT TERM
"$tools/start.sh" >/dev/null
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $("$KUBE_APISERVER" --version), API $KINT_API"
"$python" "$src/bench/watch/bench.py" --build "$build" --api "$KINT_API" --ca "$KINT_CA" \
	--token "$K8S_TOKEN" --kubeconfig "$K8S_DIR/kubeconfig"
