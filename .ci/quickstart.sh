#!/bin/bash
# CI: the README's quick start from a clean copy of the tree, as on a
# user's fresh Debian machine: as root, Debian's PATH (its /usr/bin/python3,
# whatever else is on this machine's PATH), the default prefix.  Then
# `/usr/bin/python3 -c 'import muster'`, from any directory, must load the
# package that `make install` put where that python3 looks
# (/usr/local/lib/python3.X/dist-packages on Debian) and answer as the
# installed `muster resolve`.
# /usr/local and /etc (the loader's cache that ldconfig writes) are the
# script's own: overlays in a private mount namespace, gone when it ends,
# so this machine's are left as they were and nothing else running here
# sees the install.  Without namespaces or overlayfs, CI's throwaway
# machine gets the real install and `make uninstall` after it.  SKIP when
# not root, or (outside CI) without namespaces.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
what="quick start"
. "$top/.ci/lib.sh"
[ "$(id -u)" = 0 ] || cannot "not root (the quick start installs into /usr/local)"
[ -x /usr/bin/python3 ] || cannot "no /usr/bin/python3 (install python3)"
work=$(mktemp -d "${TMPDIR:-/tmp}/muster-quickstart-XXXXXX")
trap 'rm -rf "$work"' EXIT

# The README's command, less its apt-get part (.ci/run installed the
# packages already).
quickstart=$(sed -n '/^## Quick start/,/^```$/p' "$top/README.md" | grep -F './autogen.sh' |
	sed 's/^.*&& \(\.\/autogen\.sh\)/\1/')
case $quickstart in
./autogen.sh*"make install"*) ;;
*) echo "FAIL: quick start: no ./autogen.sh ... make install in README.md's Quick start"; exit 1 ;;
esac
clean_copy "$top" "$work/muster"
debian_path
unset PYTHONPATH MUSTER_CONF TF_CONFIG MUSTER_PLUGIN_PATH PYTHONHOME VIRTUAL_ENV

# In the namespace (or on CI's machine): the quick start, then the checks.
run() {
	echo "== quick start: $quickstart"
	(cd "$work/muster" && eval "$quickstart") >"$work/quickstart.log" 2>&1 ||
		{ tail -n 60 "$work/quickstart.log"; return 1; }
	cd /
	out=$(muster resolve)
	echo "muster resolve: $out"
	py=$(/usr/bin/python3 -c 'import muster; print(muster.__file__); print(muster.resolve())')
	printf '/usr/bin/python3 -c "import muster; ...":\n%s\n' "$py"
	file=$(printf '%s\n' "$py" | sed -n 1p)
	case $file in
	/usr/local/lib/python3*/muster/__init__.py) ;;
	*) echo "FAIL: quick start: import muster loaded $file, not the package in /usr/local"; return 1 ;;
	esac
	[ "$(printf '%s\n' "$py" | sed -n 2p)" = "$out" ] ||
		{ echo "FAIL: quick start: muster.resolve() is not muster resolve's JSON"; return 1; }
	echo "== quick start: PASS"
}

# private: /usr/local and /etc as overlays whose writable layers live in a
# tmpfs (overlayfs takes no overlay as its upper layer).
private() {
	mount -t tmpfs tmpfs "$work/layers"
	for dir in /usr/local /etc; do
		layer=$work/layers/${dir//\//_}
		mkdir -p "$layer/upper" "$layer/work"
		mount -t overlay overlay -o "lowerdir=$dir,upperdir=$layer/upper,workdir=$layer/work" "$dir"
	done
}

mkdir "$work/layers"
export -f run private
export work quickstart
if unshare --mount --propagation private true 2>/dev/null &&
	unshare --mount --propagation private bash -c 'set -e; private' 2>/dev/null; then
	unshare --mount --propagation private bash -c 'set -euo pipefail; private; run'
else
	case ${CI:-} in
	"" | false | 0) cannot "no private mount namespace with overlayfs here (unshare)" ;;
	esac
	echo "== quick start: no private mount namespace: installing into this machine's /usr/local"
	rc=0
	run || rc=$?
	(cd "$work/muster" && make uninstall >/dev/null && ldconfig) || rc=1
	exit "$rc"
fi
