#!/bin/bash
# CI: the Debian packages.  Build them from a clean copy of the tree
# (`dpkg-buildpackage -us -uc -b`), check them with lintian (no errors),
# install them on this machine, then use muster from the installed files
# only: `muster resolve` and Python's `import muster; muster.resolve()`
# against the shipped /etc/muster/muster.conf.  The packages are removed
# again at the end.  SKIP (exit 0) when not root or without the tools,
# except under CI (CI set, as CI services set it: CI=true), where that is a
# failure: CI must build and use the packages.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
what="debian packages"
. "$top/.ci/lib.sh"
[ "$(id -u)" = 0 ] || cannot "not root"
for tool in dpkg-buildpackage lintian apt-get git; do
	command -v "$tool" >/dev/null || cannot "no $tool"
done
work=$(mktemp -d "${TMPDIR:-/tmp}/muster-deb-XXXXXX")
packages="libmuster1 libmuster-dev muster muster-plugin-kubernetes muster-plugin-gce
	muster-plugin-libvirt muster-plugin-spark python3-muster"
cleanup() {
	# shellcheck disable=SC2086
	apt-get purge -y -qq $packages >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

echo "== debian: building the packages in $work"
clean_copy "$top" "$work/muster"
debian_path
(cd "$work/muster" &&
	DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -us -uc -b) \
	>"$work/build.log" 2>&1 || { tail -n 60 "$work/build.log"; exit 1; }
ls "$work"/*.deb

echo "== debian: lintian"
lintian --fail-on error "$work"/*.changes

echo "== debian: installing"
apt-get install -y -qq "$work"/*.deb >/dev/null

echo "== debian: the installed muster"
cd /
out=$(env -u MUSTER_CONF -u TF_CONFIG -u MUSTER_PLUGIN_PATH muster resolve)
echo "muster resolve: $out"
[ "$out" = '{"cluster":{"worker":["localhost:2222"]},"task":{"type":"worker","index":0},"rpc_layer":"grpc"}' ]
py=$(env -u MUSTER_CONF -u TF_CONFIG -u MUSTER_PLUGIN_PATH -u PYTHONPATH \
	/usr/bin/python3 -c "import muster; print(muster.resolve())")
echo "python3 -c 'import muster; print(muster.resolve())': $py"
[ "$py" = "$out" ]
tf=$(TF_CONFIG='{"cluster":{"worker":["h1:1","h2:2"]},"task":{"type":"worker","index":1}}' \
	/usr/bin/python3 -c "import muster; c = muster.resolve(); print(c.task_id, c.master())")
[ "$tf" = "1 h2:2" ]
echo "== debian: PASS"
