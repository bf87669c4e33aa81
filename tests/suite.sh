#!/bin/sh
# The whole test suite, as CI runs it:
#  1. a build under AddressSanitizer + UndefinedBehaviorSanitizer (leaks
#     included), warnings as errors, and `make check` on it;
#  2. the kubernetes backend against a real kube-apiserver with etcd on
#     loopback (../shared/tools/kube-apiserver; built once per machine when
#     absent, about 10 minutes), through the sanitizer build;
#  3. `make distcheck` on a plain build (tarball, VPATH, read-only srcdir,
#     install/uninstall), which runs the suite once more.
# Ends with "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
san="$top/build-sanitize"
plain="$top/build-distcheck"
build_ok=1
distcheck_ok=0
kint=skip

[ -x "$top/configure" ] || (cd "$top" && ./autogen.sh) || exit 1

echo "== ASan + UBSan build and make check ($san)"
mkdir -p "$san"
(
  cd "$san" &&
  sanitize="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
  "$top/configure" --enable-werror CFLAGS="$sanitize" CXXFLAGS="$sanitize" \
    LDFLAGS="-fsanitize=address,undefined" >configure.out 2>&1 &&
  make -j"$jobs" >make.out 2>&1
) || { echo "sanitizer build failed:"; tail -40 "$san/make.out" "$san/configure.out" 2>/dev/null; build_ok=0; }
if [ "$build_ok" -eq 1 ]; then
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    make -C "$san" -j"$jobs" check >"$san/check.out" 2>&1
  grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR):' "$san/check.out"
  if grep -qE '^(FAIL|ERROR|XPASS):' "$san/check.out"; then
    for log in $(grep -lE '^:test-result: (FAIL|ERROR)' $(find "$san" -name '*.trs') 2>/dev/null); do
      echo "--- ${log%.trs}.log"; tail -30 "${log%.trs}.log"
    done
  fi
fi

echo "== kubernetes integration against a real kube-apiserver"
if [ "$build_ok" -eq 1 ] && { [ -d "$top/../shared/tools/kube-apiserver" ] || [ -n "${MUSTER_KUBE_TOOLS:-}" ]; }; then
  if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
     "$top/tests/kubernetes-integration/run.sh" "$san" >"$san/kint.out" 2>&1; then
    echo "PASS: kubernetes integration ($(grep -c '^ok ' "$san/kint.out") cases)"
    kint=pass
  else
    echo "FAIL: kubernetes integration"; grep -E '^(not ok|Bail out)' "$san/kint.out"; tail -20 "$san/kint.out"
    kint=fail
  fi
else
  echo "SKIP: kubernetes integration: no ../shared/tools/kube-apiserver (set MUSTER_KUBE_TOOLS)"
fi

echo "== make distcheck ($plain)"
mkdir -p "$plain"
if (cd "$plain" && "$top/configure" >configure.out 2>&1 && make -j"$jobs" distcheck >distcheck.out 2>&1); then
  echo "PASS: make distcheck"
  distcheck_ok=1
else
  echo "FAIL: make distcheck"; tail -40 "$plain/distcheck.out"
fi

# Totals: every test of the sanitizer run, plus distcheck as one.
pass=$(grep -cE '^(PASS|XFAIL):' "$san/check.out" 2>/dev/null); pass=${pass:-0}
fail=$(grep -cE '^(FAIL|ERROR|XPASS):' "$san/check.out" 2>/dev/null); fail=${fail:-0}
skip=$(grep -cE '^SKIP:' "$san/check.out" 2>/dev/null); skip=${skip:-0}
[ "$build_ok" -eq 1 ] || fail=$((fail + 1))
if [ "$distcheck_ok" -eq 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
case $kint in pass) pass=$((pass + 1)) ;; fail) fail=$((fail + 1)) ;; *) skip=$((skip + 1)) ;; esac
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
