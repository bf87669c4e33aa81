#!/bin/sh
# Make sure a kube-apiserver binary and etcd exist, building/installing only
# what is missing:
#   - $K8S_DIR/bin/kube-apiserver (or $KUBE_APISERVER): built with
#     ../shared/tools/kube-apiserver/build.sh (about 10 minutes cold on 2
#     cores; cached under $K8S_DIR, so paid once per machine);
#   - etcd: `apt-get install etcd-server` when running as root.
# Env: K8S_DIR [/var/tmp/muster-kube], KUBE_APISERVER, MUSTER_KUBE_TOOLS
# (default: ../shared/tools/kube-apiserver beside the source tree).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
KINT_HERE=$here
. "$here/api.sh"
tools=$(kint_tools "$here/../..") || {
	echo "ensure-apiserver: no ../shared/tools/kube-apiserver; set MUSTER_KUBE_TOOLS" >&2
	exit 1
}

if ! command -v etcd >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1 ||
   ! command -v curl >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "ensure-apiserver: installing etcd-server openssl curl"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends etcd-server openssl curl >/dev/null
	else
		echo "ensure-apiserver: need etcd, openssl and curl (apt-get install etcd-server openssl curl)" >&2
		exit 1
	fi
fi

if [ -x "$KINT_APISERVER_BIN" ]; then
	echo "ensure-apiserver: $KINT_APISERVER_BIN ($("$KINT_APISERVER_BIN" --version 2>/dev/null || echo '?'))"
	exit 0
fi
echo "ensure-apiserver: no $KINT_APISERVER_BIN; building it with $tools/build.sh (about 10 minutes)"
"$tools/build.sh"
[ -x "$KINT_APISERVER_BIN" ] || { echo "ensure-apiserver: build.sh did not produce $KINT_APISERVER_BIN" >&2; exit 1; }
