# Shared by tests/python/*.sh: run the pytest file named like the script
# (api.sh -> test_api.py) against the package of this build, staged in a
# scratch directory (the extension from python/.libs, the modules from the
# source tree), under the Python it was built for -- or, when that one lacks
# pytest, another python3 of the same ABI that has it (Debian's).
# Under the sanitizer build, with ASan preloaded (tests/python/preload.sh).
# Each pytest test is one TAP line (from pytest's JUnit XML); pytest's own
# report follows as diagnostics.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/lib/tap.sh"
ext=$MUSTER_TEST_BUILDDIR/python/.libs/_muster.so
[ -f "$ext" ] ||
	skip_all "the Python extension is not built (configure found no Python.h: install python3-dev)"

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

# pick_python MODULES...: sets $python, else skips naming what is missing.
pick_python() {
	for python in "${MUSTER_PYTHON:-}" /usr/bin/python3 "$(command -v python3)"; do
		if have_python "$python" "$@"; then
			return 0
		fi
	done
	skip_all "no python3 of ABI $abi with: $* (install python3-pytest${2:+ and the framework})"
}
mkdir -p "$tmp/site/muster"
ln -s "$MUSTER_TEST_SRCDIR"/python/muster/*.py "$MUSTER_TEST_SRCDIR/python/muster/py.typed" \
	"$ext" "$tmp/site/muster/"
PYTHONPATH=$tmp/site${PYTHONPATH:+:$PYTHONPATH}
PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH PYTHONDONTWRITEBYTECODE

. "$MUSTER_TEST_SRCDIR/tests/python/preload.sh"
python_preload "$ext"

# run_pytest [MODULES...]: the test file of this script, as TAP; MODULES
# are what it needs beyond pytest.
run_pytest() {
	pick_python pytest "$@"
	name=$(basename "$0" .sh)
	echo "# $python, ${asan:+ASan preloaded, }test_$name.py"
	(cd "$tmp" && "$python" -m pytest -q -p no:cacheprovider --rootdir "$tmp" \
		--junitxml="$tmp/junit.xml" "$MUSTER_TEST_SRCDIR/tests/python/test_$name.py") \
		>"$tmp/pytest.out" 2>&1
	sed 's/^/# /' "$tmp/pytest.out"
	[ -s "$tmp/junit.xml" ] || bail_out "pytest wrote no report"
	"$python" - "$tmp/junit.xml" <<'EOP'
import sys
import xml.etree.ElementTree as ET
n = failed = 0
for case in ET.parse(sys.argv[1]).iter("testcase"):
    n += 1
    name = case.get("name")
    bad = case.find("failure") if case.find("failure") is not None else case.find("error")
    skipped = case.find("skipped")
    if bad is not None:
        failed += 1
        print("not ok %d - %s" % (n, name))
        for line in (bad.get("message") or "").splitlines()[:20]:
            print("#   " + line)
    elif skipped is not None:
        why = (skipped.get("message") or "skipped").replace("\n", " ")
        print("ok %d - %s # SKIP %s" % (n, name, why))
    else:
        print("ok %d - %s" % (n, name))
print("1..%d" % n)
sys.exit(1 if failed or not n else 0)
EOP
	exit $?
}
