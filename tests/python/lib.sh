# Shared by tests/python/*.sh: run the pytest file named like the script
# (api.sh -> test_api.py) against the package of this build, staged in a
# scratch directory (the extension from python/.libs, the modules from the
# source tree), under the Python it was built for -- or, when that one lacks
# pytest, another python3 of the same ABI that has it (Debian's).
#
# The sanitizer build: the extension is linked to libasan, the interpreter
# is not, and ASan must be the first library in the process, so its runtime
# is preloaded (LD_PRELOAD, the very file the extension names), with
# libstdc++ after it so that ASan finds __cxa_throw for C++ libraries loaded
# later (PyTorch's; without it their first throw aborts in ASan's CHECK).  Python's
# own allocations at exit are not ours to report: detect_leaks=0 (the tests
# check reference counts and RSS instead).
set -u
: "${MUSTER_TEST_SRCDIR:?run me from make check}" "${MUSTER_TEST_BUILDDIR:?}"
ext=$MUSTER_TEST_BUILDDIR/python/.libs/_muster.so
if [ ! -f "$ext" ]; then
	echo "SKIP: the Python extension is not built (configure found no Python.h: install python3-dev)"
	exit 77
fi

# have_python PY MODULES...: PY runs, has the extension's ABI and imports MODULES.
abi=$("${MUSTER_PYTHON:-python3}" -c 'import sysconfig; print(sysconfig.get_config_var("SOABI"))')
have_python() {
	py=$1
	shift
	[ -n "$py" ] && [ "$py" != : ] || return 1
	"$py" -c 'import sys, sysconfig, importlib
if sysconfig.get_config_var("SOABI") != sys.argv[1]: sys.exit(1)
for m in sys.argv[2:]: importlib.import_module(m)' "$abi" "$@" >/dev/null 2>&1
}

# pick_python MODULES...: sets $python, else SKIPs naming what is missing.
pick_python() {
	for python in "${MUSTER_PYTHON:-}" /usr/bin/python3 "$(command -v python3)"; do
		if have_python "$python" "$@"; then
			return 0
		fi
	done
	echo "SKIP: no python3 of ABI $abi with: $* (install python3-pytest${2:+ and the framework})"
	exit 77
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/muster-python-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/site/muster"
ln -s "$MUSTER_TEST_SRCDIR"/python/muster/*.py "$MUSTER_TEST_SRCDIR/python/muster/py.typed" \
	"$ext" "$tmp/site/muster/"
PYTHONPATH=$tmp/site${PYTHONPATH:+:$PYTHONPATH}
PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH PYTHONDONTWRITEBYTECODE

asan=$(ldd "$ext" 2>/dev/null | sed -n 's/^[[:space:]]*libasan[^ ]* => \([^ ]*\) .*/\1/p')
if [ -n "$asan" ]; then
	cxx=$(ldd "$ext" 2>/dev/null | sed -n 's/^[[:space:]]*libstdc++[^ ]* => \([^ ]*\) .*/\1/p')
	[ -n "$cxx" ] || cxx=$(${CXX:-g++} -print-file-name=libstdc++.so 2>/dev/null)
	LD_PRELOAD=$asan${cxx:+:$cxx}${LD_PRELOAD:+:$LD_PRELOAD}
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	export LD_PRELOAD ASAN_OPTIONS
fi

# run_pytest [MODULES...]: the test file of this script; MODULES are what it needs beyond pytest.
run_pytest() {
	pick_python pytest "$@"
	name=$(basename "$0" .sh)
	echo "# $python, ${asan:+ASan preloaded, }$name"
	cd "$tmp" || exit 99
	exec "$python" -m pytest -q -p no:cacheprovider --rootdir "$tmp" \
		"$MUSTER_TEST_SRCDIR/tests/python/test_$name.py"
}
