#!/bin/sh
# CI entry point for the integration tests against a real kube-apiserver:
# build the server if absent (ensure-apiserver.sh), start it with etcd on
# loopback, run integration.sh (seeds its own pods), watch.sh, indexed.sh
# (Indexed Jobs and JobSets, written as their controllers would) and the
# kubernetes example's test (tests/examples), stop the server again
# (only if this script started it).  Prints TAP lines (ok N - ... /
# not ok N - ...) and exits non-zero on any failure; a missing server, tool
# or plugin is a failure here, never a skip.
#
#   run.sh [BUILDDIR]
# BUILDDIR: a configured and built muster tree (default: $MUSTER_BUILDDIR,
# else build-sanitize/ as tests/suite.sh leaves it, else the source tree).
# Env: K8S_DIR, API_PORT, K8S_TOKEN (as start.sh), MUSTER_KUBE_TOOLS.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
KINT_HERE=$here
. "$here/api.sh"

build=${1:-${MUSTER_BUILDDIR:-}}
if [ -z "$build" ]; then
	for b in "$top/build-sanitize" "$top"; do
		[ -x "$b/cli/muster" ] && { build=$b; break; }
	done
fi
[ -n "$build" ] && [ -x "$build/cli/muster" ] || {
	echo "Bail out! no built muster (cli/muster) in ${build:-build-sanitize/ or the source tree}: run.sh BUILDDIR"
	exit 1
}
build=$(cd "$build" && pwd)
tools=$(kint_tools "$top") || {
	echo "Bail out! no ../shared/tools/kube-apiserver beside $top; set MUSTER_KUBE_TOOLS"
	exit 1
}
export MUSTER_KUBE_TOOLS="$tools"

ensure_out=$("$here/ensure-apiserver.sh" 2>&1) || {
	echo "Bail out! ensure-apiserver.sh failed:"
	printf '%s\n' "$ensure_out" | sed 's/^/# /'
	exit 1
}
printf '%s\n' "$ensure_out" | sed 's/^/# /'
started=0
if kint_ready; then
	echo "# using the kube-apiserver already running at $KINT_API"
else
	"$tools/start.sh" >"${TMPDIR:-/tmp}/kint-start.$$.log" 2>&1 || {
		echo "Bail out! start.sh failed:"
		sed 's/^/# /' "${TMPDIR:-/tmp}/kint-start.$$.log"
		rm -f "${TMPDIR:-/tmp}/kint-start.$$.log"
		exit 1
	}
	rm -f "${TMPDIR:-/tmp}/kint-start.$$.log"
	started=1
	echo "# started kube-apiserver at $KINT_API"
fi
stop() { [ "$started" = 0 ] || "$tools/stop.sh" | sed 's/^/# /'; }
trap stop EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# The environment tests/local.mk gives every test.
unset MUSTER_CONF TF_CONFIG KUBERNETES_SERVICE_HOST
MUSTER_PLUGIN_PATH="$build/plugins/tf_config/.libs:$build/plugins/kubernetes/.libs:$build/plugins/spark/.libs:$build/plugins/platforms/.libs:$build/plugins/gce/.libs:$build/tests/plugins/.libs"
MUSTER_TEST_SRCDIR=$top
MUSTER_TEST_BUILDDIR=$build
MUSTER_BIN=$build/cli/muster
MUSTER_KINT_REQUIRE=1
export MUSTER_PLUGIN_PATH MUSTER_TEST_SRCDIR MUSTER_TEST_BUILDDIR MUSTER_BIN MUSTER_KINT_REQUIRE
rc=0
sh "$here/integration.sh" || rc=$?
sh "$here/watch.sh" || rc=$?
sh "$here/indexed.sh" || rc=$?
sh "$top/tests/examples/kubernetes.sh" || rc=$?
exit $rc
